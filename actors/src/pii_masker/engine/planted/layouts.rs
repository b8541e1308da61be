//! The layouts the catalogue claims for each generated type, applied to a compact value.

use super::*;

/// The layouts of `ty` the catalogue claims, applied to its compact value: each layout's name and the
/// value as written.
pub fn layouts(ty: PiiType, value: &str) -> Vec<(&'static str, String)> {
    let groups = |sizes: &[usize], sep: &str| {
        let mut out = Vec::new();
        let mut at = 0;
        for &size in sizes {
            if at >= value.len() {
                break;
            }
            let end = (at + size).min(value.len());
            out.push(&value[at..end]);
            at = end;
        }
        if at < value.len() {
            out.push(&value[at..]);
        }
        out.join(sep)
    };
    let fours = |sep: &str| groups(&[4; 9], sep);
    let mut out = vec![("plain", value.to_string())];
    match ty {
        PiiType::NationalIdTr => out.push(("3-3-3-2 spaced", groups(&[3, 3, 3, 2], " "))),
        PiiType::TaxIdTr => out.push(("3-3-4 spaced", groups(&[3, 3, 4], " "))),
        PiiType::PhoneTr => {
            out.clear();
            let (a, b, c, d) = (&value[..3], &value[3..6], &value[6..8], &value[8..]);
            out.push(("+90 spaced", format!("+90 {a} {b} {c} {d}")));
            out.push(("+90 parentheses", format!("+90 ({a}) {b} {c} {d}")));
            out.push(("+90 dashed", format!("+90-{a}-{b}-{c}-{d}")));
            out.push(("+90 plain", format!("+90{value}")));
            out.push(("0090", format!("0090 {a} {b} {c} {d}")));
            out.push(("trunk 0 spaced", format!("0{a} {b} {c} {d}")));
            out.push(("trunk 0 plain", format!("0{value}")));
            out.push(("trunk 0 parentheses", format!("0 ({a}) {b}-{c}-{d}")));
            out.push((
                "trunk 0, area in parentheses",
                format!("(0{a}) {b} {c} {d}"),
            ));
            out.push(("trunk 0, one run", format!("0 ({a}) {b}{c}{d}")));
        }
        PiiType::IbanTr | PiiType::Iban => {
            out.push(("groups of 4", fours(" ")));
            out.push(("lower case", value.to_ascii_lowercase()));
        }
        PiiType::CreditCard => {
            if value.len() == 15 {
                out.push(("4-6-5 spaced", groups(&[4, 6, 5], " ")));
            } else {
                out.push(("4-4-4-4 spaced", fours(" ")));
                out.push(("4-4-4-4 dashed", fours("-")));
            }
        }
        PiiType::Imei => {
            out.push(("2-6-6-1 dashed", groups(&[2, 6, 6, 1], "-")));
            out.push(("8-6-1 spaced", groups(&[8, 6, 1], " ")));
        }
        PiiType::TaxIdDe => out.push(("2-3-3-3 spaced", groups(&[2, 3, 3, 3], " "))),
        PiiType::SocialSecurityFr => {
            out.push(("1-2-2-2-3-3-2 spaced", groups(&[1, 2, 2, 2, 3, 3, 2], " ")))
        }
        PiiType::NationalIdEs | PiiType::ForeignerIdEs => {
            out.push((
                "hyphen before the letter",
                format!("{}-{}", &value[..8], &value[8..]),
            ));
        }
        PiiType::NationalInsuranceUk => {
            out.push(("2-2-2-2-1 spaced", groups(&[2, 2, 2, 2, 1], " ")));
            out.push(("lower case", value.to_ascii_lowercase()));
        }
        PiiType::NhsNumberUk => out.push(("3-3-4 spaced", groups(&[3, 3, 4], " "))),
        PiiType::NationalIdBe => {
            let v = value;
            out.push((
                "dotted",
                format!(
                    "{}.{}.{}-{}.{}",
                    &v[..2],
                    &v[2..4],
                    &v[4..6],
                    &v[6..9],
                    &v[9..]
                ),
            ));
        }
        PiiType::PersonalIdSe => {
            out.clear();
            out.push(("YYMMDD-NNNC", format!("{}-{}", &value[..6], &value[6..])));
            out.push((
                "YYYYMMDD-NNNC",
                format!("19{}-{}", &value[..6], &value[6..]),
            ));
            out.push(("YYMMDD+NNNC", format!("{}+{}", &value[..6], &value[6..])));
        }
        PiiType::VatEu => out.push(("lower case", value.to_ascii_lowercase())),
        PiiType::MbiUs => {
            out.push(("4-3-4 dashed", groups(&[4, 3, 4], "-")));
            out.push(("lower case", groups(&[4, 3, 4], "-").to_ascii_lowercase()));
        }
        PiiType::MacAddress => {
            out.push(("hyphens", value.replace(':', "-")));
            out.push(("lower case", value.to_ascii_lowercase()));
            let hex: String = value.replace(':', "").to_ascii_lowercase();
            out.push((
                "Cisco dots",
                format!("{}.{}.{}", &hex[..4], &hex[4..8], &hex[8..]),
            ));
        }
        PiiType::Ipv4 => out.push(("with a prefix length", format!("{value}/24"))),
        PiiType::Ipv6 => out.push(("with a prefix length", format!("{value}/64"))),
        PiiType::SsnUs | PiiType::ItinUs => {
            out.clear();
            out.push(("3-2-4 dashed", groups(&[3, 2, 4], "-")));
        }
        PiiType::Mrz => {
            out.clear();
            let surname = format!("P<{}YILMAZ<<AYSE<NUR", &value[10..13]);
            out.push(("TD3 line 2", value.to_string()));
            out.push(("TD3 two lines", format!("{surname:<<44}\n{value}")));
        }
        PiiType::EinUs => {
            out.clear();
            out.push(("2-7 dashed", groups(&[2, 7], "-")));
        }
        PiiType::IsyeriSicilNo => {
            out.push(("grouped", groups(&[1, 4, 2, 2, 7, 3, 2, 2, 3], " ")));
        }
        PiiType::PhoneIntl => {
            out.clear();
            let (number, rest) = value.split_at(value.len() - 8);
            out.push((
                "+ spaced",
                format!("{number} {} {}", &rest[..4], &rest[4..]),
            ));
            out.push(("+ one run", value.to_string()));
        }
        PiiType::LicensePlateTr => {
            let letters_at = 2;
            let digits_at = value[letters_at..]
                .find(|c: char| c.is_ascii_digit())
                .map_or(value.len(), |p| p + letters_at);
            let (p, l, n) = (&value[..2], &value[2..digits_at], &value[digits_at..]);
            out.push(("spaced", format!("{p} {l} {n}")));
            out.push(("dashed", format!("{p}-{l}-{n}")));
        }
        _ => {}
    }
    // Plain forms of the types that need a distinctive form are not theirs.
    if matches!(
        ty,
        PiiType::SsnUs | PiiType::PersonalIdSe | PiiType::PhoneTr
    ) {
        out.retain(|(name, _)| *name != "plain");
    }
    out
}
