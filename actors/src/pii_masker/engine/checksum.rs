//! The check digits of the catalogue's checksummed types, applied to a value on its own: what the
//! property tests hold generated values to, and what the PII precision audit uses as its second
//! opinion on a masked value of such a type (a value whose check holds is that type's beyond doubt).

use super::types::Trait;
use super::PiiType;
use crate::pii_masker::detectors::{eu, generic, tr, us, vat, Check};

/// Whether every form of `ty` carries a check that a random value of its shape fails ([`Trait::Checksum`]
/// in the type table).
pub fn has_checksum(ty: PiiType) -> bool {
    ty.is(Trait::Checksum)
}

/// A value as written (spaces, dashes, dots, slashes between its groups; lower case) reduced to the
/// compact form its check is defined on: letters in upper case, digits and the MRZ filler `<` (a
/// crypto wallet keeps its case: a Bitcoin address is case-sensitive). A Swedish number is checked on
/// its ten digits, without the century a twelve-digit form starts with.
pub fn compact_written(ty: PiiType, written: &str) -> String {
    let compact: String = written
        .chars()
        .filter(|c| c.is_ascii_alphanumeric() || *c == '<')
        .map(|c| {
            if ty == PiiType::CryptoWallet {
                c
            } else {
                c.to_ascii_uppercase()
            }
        })
        .collect();
    match ty {
        PiiType::PersonalIdSe if compact.len() == 12 => compact[2..].to_string(),
        _ => compact,
    }
}

/// Whether the checksum of `ty` holds for the compact `value` (its layout aside): what a changed digit
/// must break for the value to be no longer of the type.
pub fn checksum_holds(ty: PiiType, value: &str) -> bool {
    let v = value.as_bytes();
    match ty {
        PiiType::NationalIdTr => tr::tckn(v),
        PiiType::TaxIdTr => tr::vkn(v),
        PiiType::IbanTr | PiiType::Iban => generic::iban_check(v) != Check::Fails,
        PiiType::CreditCard => generic::credit_card_check(v) != Check::Fails,
        PiiType::Imei => generic::imei(v),
        PiiType::NpiUs => us::npi_us(v),
        PiiType::AbaRoutingUs => us::aba_routing_us(v),
        PiiType::TaxIdDe => eu::tax_id_de_check(v) != Check::Fails,
        PiiType::SocialSecurityFr => eu::social_security_fr(v),
        PiiType::NationalIdEs => eu::national_id_es(v),
        PiiType::ForeignerIdEs => eu::foreigner_id_es(v),
        PiiType::FiscalCodeIt => eu::fiscal_code_it(v),
        PiiType::CitizenIdNl => eu::citizen_id_nl(v),
        PiiType::NationalIdPl => eu::national_id_pl_check(v) != Check::Fails,
        PiiType::NhsNumberUk => eu::nhs_number_uk(v),
        PiiType::NationalIdBe => eu::national_id_be(v),
        PiiType::PersonalIdSe => eu::personal_id_se_check(v) != Check::Fails,
        PiiType::VatEu => vat::vat_eu(v),
        // A VIN without the North American check digit is a VIN behind its label all the same.
        PiiType::Vin => generic::vin(v).is_some(),
        PiiType::CryptoWallet => generic::btc_base58(v) || generic::btc_bech32(v),
        PiiType::Mrz => generic::mrz_td3_line2(v),
        // No checksum: a changed digit leaves a value of the same shape.
        _ => true,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::pii_masker::engine::planted;
    use crate::pii_masker::engine::synthetic::Rng;

    /// Every layout the catalogue claims for a checksummed type, compacted, passes its check: what a
    /// masked value of the type shows the precision audit.
    #[test]
    fn every_written_layout_compacts_to_a_value_whose_check_holds() {
        let mut rng = Rng::new(47);
        for ty in planted::GENERATED
            .into_iter()
            .filter(|ty| has_checksum(*ty))
        {
            for _ in 0..50 {
                let Some(value) = planted::compact(ty, &mut rng) else {
                    continue;
                };
                for (layout, written) in planted::layouts(ty, &value) {
                    let compact = compact_written(ty, &written);
                    assert!(
                        checksum_holds(ty, &compact),
                        "{} {layout}: {written:?} -> {compact:?}",
                        ty.name()
                    );
                }
            }
        }
    }

    /// `has_checksum` names exactly the types whose check a changed digit can break, but for the three
    /// whose check covers some forms only.
    #[test]
    fn the_checksummed_types_are_those_a_changed_digit_breaks() {
        let mut rng = Rng::new(11);
        for ty in planted::GENERATED {
            let mut broken = 0;
            for _ in 0..200 {
                let Some(value) = planted::compact(ty, &mut rng) else {
                    continue;
                };
                if let Some(changed) = planted::with_one_digit_changed(&value, &mut rng) {
                    broken += usize::from(!checksum_holds(ty, &changed));
                }
            }
            let partial = ty.is(Trait::SomeChecksum);
            if has_checksum(ty) {
                assert!(
                    broken > 0,
                    "{}: no changed digit broke its check",
                    ty.name()
                );
            } else if !partial {
                assert_eq!(broken, 0, "{} has a check", ty.name());
            }
        }
    }
}
