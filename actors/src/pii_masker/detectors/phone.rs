//! Phone numbers of every region, judged by libphonenumber's metadata (the `phonenumber` crate, which
//! ships Google's metadata as data): a region's national significant numbers, the lengths they take,
//! its trunk prefix and the layouts (formats) its numbers are written in.
//!
//! The crate's own matchers are not used on the hot path: every regex it holds is looked up in one
//! process-wide LRU cache of 100 entries behind a mutex, which the ~30 regions of the default list (ten
//! patterns each) would thrash, and which would serialise the masker's threads. Instead each region's
//! patterns are taken from the metadata as text and compiled once, lazily, into regexes of our own,
//! anchored at both ends; a candidate is turned away by its length before any regex runs.

use std::borrow::Cow;
use std::collections::HashMap;
use std::sync::OnceLock;

use phonenumber::metadata::{Descriptor, Metadata, DATABASE};
use regex::Regex;

/// A two-letter region code (ISO 3166-1 alpha-2, upper case), as libphonenumber names regions.
pub type RegionId = [u8; 2];

/// The regions whose national numbers are looked for when a number carries no country code, unless
/// configuration says otherwise (`pii.phone_regions`): Turkey, the EU/EEA, the UK, Switzerland, the US.
pub const DEFAULT_REGIONS: &[&str] = &[
    "TR", "AT", "BE", "BG", "HR", "CY", "CZ", "DK", "EE", "FI", "FR", "DE", "GR", "HU", "IE", "IT",
    "LV", "LT", "LU", "MT", "NL", "PL", "PT", "RO", "SK", "SI", "ES", "SE", "IS", "LI", "NO", "GB",
    "CH", "US",
];

static REGIONS: OnceLock<Vec<RegionId>> = OnceLock::new();

/// The regions named by `codes` (ISO 3166-1 alpha-2, any case), or an error naming the unknown ones.
pub fn check_regions(codes: &[String]) -> Result<Vec<RegionId>, String> {
    let mut regions = Vec::with_capacity(codes.len());
    let mut unknown = Vec::new();
    for code in codes {
        let upper = code.trim().to_ascii_uppercase();
        match region_id(&upper).filter(|id| rules_table().contains_key(id)) {
            Some(id) => regions.push(id),
            None => unknown.push(code.clone()),
        }
    }
    if !unknown.is_empty() {
        return Err(format!(
            "pii.phone_regions: unknown region code(s) {} (ISO 3166-1 alpha-2, e.g. TR, DE, GB)",
            unknown.join(", ")
        ));
    }
    Ok(regions)
}

/// Sets the regions of national numbers for this process (from `pii.phone_regions`); the first call
/// wins (a process serves one configuration).
pub fn configure_regions(codes: &[String]) -> Result<(), String> {
    let regions = check_regions(codes)?;
    let _ = REGIONS.set(regions);
    Ok(())
}

/// The regions of national numbers in force.
pub fn regions() -> &'static [RegionId] {
    REGIONS.get_or_init(|| {
        DEFAULT_REGIONS
            .iter()
            .filter_map(|code| region_id(code))
            .collect()
    })
}

pub fn region_id(code: &str) -> Option<RegionId> {
    let b = code.as_bytes();
    (b.len() == 2 && b.iter().all(u8::is_ascii_uppercase)).then(|| [b[0], b[1]])
}

/// One pattern of national significant numbers and the lengths it allows.
struct Pattern {
    regex: Regex,
    lengths: Vec<u16>,
}

impl Pattern {
    fn from(descriptor: &Descriptor, general: &[u16]) -> Option<Pattern> {
        let source = descriptor.national_number().as_str();
        // "NA" marks a type the region does not have.
        if source == "NA" || source.is_empty() {
            return None;
        }
        let lengths = if descriptor.possible_length().is_empty() {
            general.to_vec()
        } else {
            descriptor.possible_length().to_vec()
        };
        Some(Pattern {
            regex: anchored(source)?,
            lengths,
        })
    }

    fn matches(&self, nsn: &str) -> bool {
        (self.lengths.is_empty() || self.lengths.contains(&(nsn.len() as u16)))
            && self.regex.is_match(nsn)
    }
}

/// A metadata pattern (written with insignificant white space) compiled to match a whole string.
fn anchored(source: &str) -> Option<Regex> {
    let compact: String = source.chars().filter(|c| !c.is_whitespace()).collect();
    Regex::new(&format!("^(?:{compact})$")).ok()
}

/// One national layout of a region: which numbers it applies to, and the lengths of its groups.
pub struct Layout {
    pattern: Regex,
    leading: Option<Regex>,
    /// Whether the trunk prefix is written before the first group (`0$1`).
    pub trunk: bool,
    /// The group lengths are read from the pattern's captures for each number.
    format: String,
}

/// What the metadata says of one region, compiled.
pub struct Rules {
    pub id: RegionId,
    pub country_code: u16,
    pub trunk_prefix: Option<String>,
    prefix_for_parsing: Option<Regex>,
    transform: Option<String>,
    general: Pattern,
    /// Fixed line, mobile, toll free, premium rate, shared cost, personal, VoIP, pager, UAN, voicemail.
    types: Vec<Pattern>,
    pub layouts: Vec<Layout>,
    min_length: usize,
    max_length: usize,
}

fn rules_table() -> &'static HashMap<RegionId, OnceLock<Option<Rules>>> {
    static TABLE: OnceLock<HashMap<RegionId, OnceLock<Option<Rules>>>> = OnceLock::new();
    TABLE.get_or_init(|| {
        DATABASE
            .iter()
            .filter_map(|meta| region_id(meta.id()))
            .map(|id| (id, OnceLock::new()))
            .collect()
    })
}

/// The compiled rules of a region (compiled on first use).
pub fn rules(id: RegionId) -> Option<&'static Rules> {
    rules_table()
        .get(&id)?
        .get_or_init(|| {
            let code = std::str::from_utf8(&id).ok()?;
            Rules::compile(DATABASE.by_id(code)?, id)
        })
        .as_ref()
}

impl Rules {
    fn compile(meta: &Metadata, id: RegionId) -> Option<Rules> {
        let descriptors = meta.descriptors();
        let general_lengths = descriptors.general().possible_length().to_vec();
        let general = Pattern::from(descriptors.general(), &[])?;
        let types = [
            meta.descriptors().fixed_line(),
            meta.descriptors().mobile(),
            meta.descriptors().toll_free(),
            meta.descriptors().premium_rate(),
            meta.descriptors().shared_cost(),
            meta.descriptors().personal_number(),
            meta.descriptors().voip(),
            meta.descriptors().pager(),
            meta.descriptors().uan(),
            meta.descriptors().voicemail(),
        ]
        .into_iter()
        .flatten()
        .filter_map(|descriptor| Pattern::from(descriptor, &general_lengths))
        .collect::<Vec<_>>();
        let layouts = meta
            .formats()
            .iter()
            .filter_map(|format| {
                Some(Layout {
                    pattern: anchored(format.pattern().as_str())?,
                    leading: format
                        .leading_digits()
                        .last()
                        .and_then(|leading| leading_regex(leading.as_str())),
                    trunk: format.national_prefix().is_some_and(|rule| {
                        rule.starts_with('0') || rule.contains("$NP") || rule.starts_with('8')
                    }),
                    format: format.format().to_owned(),
                })
            })
            .collect();
        // The metadata gives the general pattern no lengths of its own: the types' lengths bound it, so
        // that most candidates are turned away before any regex runs.
        let lengths = || {
            types
                .iter()
                .flat_map(|pattern| pattern.lengths.iter().copied())
        };
        let min_length = lengths().min().unwrap_or(4).into();
        let max_length = lengths().max().unwrap_or(17).into();
        Some(Rules {
            id,
            country_code: meta.country_code(),
            trunk_prefix: meta.national_prefix().map(str::to_owned),
            // Without a pattern of its own, the trunk prefix is what is removed (as libphonenumber does).
            prefix_for_parsing: meta
                .national_prefix_for_parsing()
                .map(|regex| regex.as_str().to_owned())
                .or_else(|| meta.national_prefix().map(regex::escape))
                .and_then(|source| leading_regex(&source)),
            transform: meta.national_prefix_transform_rule().map(str::to_owned),
            general,
            types,
            layouts,
            min_length,
            max_length,
        })
    }

    /// Whether `nsn` (digits only, without country code or trunk prefix) is a valid number of this
    /// region: of its lengths, matching its general pattern and one of its types'.
    pub fn valid_nsn(&self, nsn: &str) -> bool {
        nsn.len() >= self.min_length
            && nsn.len() <= self.max_length
            && self.general.matches(nsn)
            && self.types.iter().any(|pattern| pattern.matches(nsn))
    }

    /// The national significant number of `digits` dialled inside the region (trunk prefix or carrier
    /// code removed as the metadata says), when it is valid.
    pub fn national<'d>(&self, digits: &'d str) -> Option<Cow<'d, str>> {
        if digits.len() < self.min_length {
            return None;
        }
        if let Some(prefix) = &self.prefix_for_parsing {
            if let Some(captures) = prefix.captures(digits) {
                let whole = captures.get(0).map_or(0, |m| m.end());
                let rest = &digits[whole..];
                let stripped = match &self.transform {
                    // A transform rule rewrites the prefix ("$1" keeps a captured part).
                    Some(rule) if captures.len() > 1 && captures.get(1).is_some() => {
                        let mut out = String::new();
                        captures.expand(rule, &mut out);
                        out.push_str(rest);
                        Cow::Owned(out)
                    }
                    _ => Cow::Borrowed(rest),
                };
                if self.valid_nsn(&stripped) {
                    return Some(stripped);
                }
            }
        }
        self.valid_nsn(digits).then_some(Cow::Borrowed(digits))
    }

    /// The layouts that apply to `nsn`, each with the groups it writes `nsn` in (its format's `$1`,
    /// `$2`... in order).
    fn layouts_of<'a>(&'a self, nsn: &'a str) -> impl Iterator<Item = (&'a Layout, Vec<&'a str>)> {
        self.layouts.iter().filter_map(move |layout| {
            if layout
                .leading
                .as_ref()
                .is_some_and(|leading| !leading.is_match(nsn))
            {
                return None;
            }
            let captures = layout.pattern.captures(nsn)?;
            let bytes = layout.format.as_bytes();
            let groups: Vec<&str> = (0..bytes.len().saturating_sub(1))
                .filter(|&k| bytes[k] == b'$' && bytes[k + 1].is_ascii_digit())
                .filter_map(|k| captures.get(usize::from(bytes[k + 1] - b'0')))
                .map(|group| group.as_str())
                .collect();
            (!groups.is_empty()).then_some((layout, groups))
        })
    }

    /// Whether the groups of a national number, as written (`written`: the digit counts of its groups,
    /// a trunk prefix included in the first), follow one of the region's own layouts for `nsn`.
    /// A layout that writes its first group in brackets (`($1) $2-$3`) needs them written
    /// (`bracketed`).
    pub fn written_as_layout(
        &self,
        nsn: &str,
        trunk_written: bool,
        bracketed: bool,
        written: &[usize],
    ) -> bool {
        let trunk = match (trunk_written, &self.trunk_prefix) {
            (true, Some(trunk)) => trunk.len(),
            _ => 0,
        };
        self.layouts_of(nsn).any(|(layout, groups)| {
            if layout.format.starts_with('(') && !bracketed {
                return false;
            }
            let mut lengths: Vec<usize> = groups.iter().map(|group| group.len()).collect();
            lengths[0] += trunk;
            // After an area code with its trunk prefix, the rest is often written as one group
            // ("030 1234567" for "030 123 4567"): the later groups joined count as the same layout.
            let last = written.len().saturating_sub(1);
            lengths == written
                || (trunk > 0
                    && written.len() >= 2
                    && written.len() < lengths.len()
                    && written[..last] == lengths[..last]
                    && written[last] == lengths[last..].iter().sum::<usize>())
        })
    }

    /// An example number of each type the region has (national significant numbers).
    pub fn examples(&self) -> Vec<(&'static str, String)> {
        let Some(meta) = std::str::from_utf8(&self.id)
            .ok()
            .and_then(|code| DATABASE.by_id(code))
        else {
            return Vec::new();
        };
        [
            ("fixed_line", meta.descriptors().fixed_line()),
            ("mobile", meta.descriptors().mobile()),
            ("toll_free", meta.descriptors().toll_free()),
        ]
        .into_iter()
        .filter_map(|(kind, descriptor)| Some((kind, descriptor?.example()?.to_owned())))
        .collect()
    }

    /// `nsn` written in the region's national layout (groups joined by `separator`, the trunk prefix in
    /// front where the layout writes one), when one applies.
    pub fn format_national(&self, nsn: &str, separator: &str) -> Option<String> {
        let (layout, groups) = self.layouts_of(nsn).next()?;
        let trunk = match (layout.trunk, &self.trunk_prefix) {
            (true, Some(trunk)) => trunk.as_str(),
            _ => "",
        };
        Some(format!("{trunk}{}", groups.join(separator)))
    }
}

fn leading_regex(source: &str) -> Option<Regex> {
    let compact: String = source.chars().filter(|c| !c.is_whitespace()).collect();
    Regex::new(&format!("^(?:{compact})")).ok()
}

/// An assigned country calling code: its regions (NANP's 1: the US, Canada and the Caribbean), or for
/// a non-geographic code (+800, +870...) the pattern of its numbers.
struct Code {
    regions: Vec<RegionId>,
    non_geographic: Option<Pattern>,
}

/// Every assigned calling code, read from the metadata once.
fn codes() -> &'static HashMap<u16, Code> {
    static CODES: OnceLock<HashMap<u16, Code>> = OnceLock::new();
    CODES.get_or_init(|| {
        let mut codes: HashMap<u16, Code> = HashMap::new();
        for meta in DATABASE.iter() {
            let code = codes.entry(meta.country_code()).or_insert(Code {
                regions: Vec::new(),
                non_geographic: None,
            });
            match region_id(meta.id()) {
                Some(id) => code.regions.push(id),
                None => code.non_geographic = Pattern::from(meta.descriptors().general(), &[]),
            }
        }
        codes
    })
}

/// A number written with its country calling code (`digits`: what follows `+`, `00` or `011`, the
/// digits only, a `(0)` after the code already dropped): the code, its length and whether the rest is
/// a valid number of one of the code's regions. `None` when no assigned code starts it.
pub fn international(digits: &str) -> Option<(u16, usize, bool)> {
    for length in 1..=3 {
        let Some(prefix) = digits.get(..length) else {
            break;
        };
        let Ok(code) = prefix.parse::<u16>() else {
            break;
        };
        let Some(assigned) = codes().get(&code) else {
            continue;
        };
        let rest = &digits[length..];
        let valid = assigned.regions.iter().any(|&id| {
            rules(id).is_some_and(|rules| {
                rules.valid_nsn(rest)
                    // Italy and a few others keep a leading 0 in the number itself; elsewhere a trunk
                    // 0 written after the code (`+44 020 ...`) is dialled by no one, but written.
                    || rules
                        .trunk_prefix
                        .as_deref()
                        .and_then(|trunk| rest.strip_prefix(trunk))
                        .is_some_and(|stripped| rules.valid_nsn(stripped))
            })
        }) || assigned
            .non_geographic
            .as_ref()
            .is_some_and(|pattern| pattern.matches(rest));
        return Some((code, length, valid));
    }
    None
}

/// The regions in force (see [`regions`]) for which `digits`, dialled nationally, is a valid number,
/// with its national significant number.
pub fn national_regions(digits: &str) -> impl Iterator<Item = (&'static Rules, Cow<'_, str>)> + '_ {
    regions()
        .iter()
        .filter_map(|id| rules(*id))
        .filter_map(move |rules| Some((rules, rules.national(digits)?)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_default_region_compiles() {
        for code in DEFAULT_REGIONS {
            let rules = rules(region_id(code).expect("a code")).expect(code);
            assert!(!rules.types.is_empty(), "{code}");
            for (kind, example) in rules.examples() {
                assert!(rules.valid_nsn(&example), "{code} {kind} {example}");
            }
        }
    }

    #[test]
    fn national_numbers_with_their_trunk_prefix() {
        let de = rules(*b"DE").expect("DE");
        assert_eq!(de.national("030123456").as_deref(), Some("30123456"));
        let it = rules(*b"IT").expect("IT");
        // Italy keeps the leading 0 of fixed lines in the number itself.
        assert_eq!(it.national("0612345678").as_deref(), Some("0612345678"));
        let us = rules(*b"US").expect("US");
        // libphonenumber holds the fictional 555-01xx numbers valid, as its Python port does.
        assert!(us.national("4155550132").is_some());
        assert!(us.national("12015550123").is_some(), "the trunk 1");
        assert!(de.national("0000000").is_none());
    }

    #[test]
    fn international_numbers() {
        assert_eq!(international("420773602266"), Some((420, 3, true)));
        assert_eq!(international("4930123456"), Some((49, 2, true)));
        assert_eq!(international("390612345678"), Some((39, 2, true)));
        assert_eq!(
            international("44020 7946 0958".replace(' ', "").as_str()).map(|r| r.2),
            Some(true)
        );
        assert!(matches!(international("4900000"), Some((49, 2, false))));
    }

    #[test]
    fn national_layouts() {
        let de = rules(*b"DE").expect("DE");
        let nsn = de.national("030123456").expect("valid");
        assert!(de.written_as_layout(&nsn, true, false, &[3, 6]));
        let us = rules(*b"US").expect("US");
        let nsn = us.national("4155550132").expect("valid");
        assert!(us.written_as_layout(&nsn, false, true, &[3, 3, 4]));
        assert!(!us.written_as_layout(&nsn, false, false, &[3, 3, 4]));
        let fr = rules(*b"FR").expect("FR");
        let nsn = fr.national("0123456789").expect("valid");
        assert!(fr.written_as_layout(&nsn, true, false, &[2, 2, 2, 2, 2]));
        assert!(!fr.written_as_layout(&nsn, true, false, &[4, 6]));
        assert_eq!(
            fr.format_national(&nsn, " ").as_deref(),
            Some("01 23 45 67 89")
        );
    }
}
