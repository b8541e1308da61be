//! Phone numbers of every region, judged by libphonenumber's metadata (Google's, as the `phonenumber`
//! crate ships it): a region's national significant numbers, the lengths they take, its trunk prefix
//! and the layouts (formats) its numbers are written in.
//!
//! `build.rs` writes the metadata as statics ([`METADATA`]), so that nothing is loaded at run time.
//! The crate's own matchers are not used: every regex it holds is looked up in one process-wide LRU
//! cache of 100 entries behind a mutex, which the ~30 regions of the default list (ten patterns each)
//! would thrash, and which would serialise the masker's threads. Instead each pattern is compiled once,
//! on first use, into a regex of our own (bytes, ASCII digits), anchored at both ends; a candidate is
//! turned away by its length before any regex is compiled or run.

use std::borrow::Cow;
use std::sync::OnceLock;

use regex::{Regex, RegexBuilder};
use regex_automata::dfa::{dense, Automaton, StartKind};
use regex_automata::util::{start, syntax};
use regex_automata::Anchored;

/// One pattern of national significant numbers as the metadata writes it, and the lengths it allows.
pub(crate) struct PatternData {
    /// "general", "fixed_line", "mobile", "toll_free"... as libphonenumber names number types.
    #[cfg_attr(not(any(test, feature = "test-support")), allow(dead_code))]
    kind: &'static str,
    source: &'static str,
    lengths: &'static [u16],
}

/// One national layout as the metadata writes it (see [`Layout`]).
pub(crate) struct LayoutData {
    pattern: &'static str,
    leading: Option<&'static str>,
    trunk: bool,
    format: &'static str,
}

/// A region (or a non-geographic code, id "001") as the metadata writes it.
pub(crate) struct RegionData {
    id: &'static str,
    country_code: u16,
    trunk_prefix: Option<&'static str>,
    prefix_for_parsing: Option<&'static str>,
    transform: Option<&'static str>,
    general: Option<PatternData>,
    types: &'static [PatternData],
    layouts: &'static [LayoutData],
    examples: &'static [(&'static str, &'static str)],
}

include!(concat!(env!("OUT_DIR"), "/phone_metadata.rs"));

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
        match region_id(&upper).filter(|&id| known(id)) {
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

/// A metadata pattern compiled to match a whole string (`end`) or its start: ASCII only (`\d` is
/// 0-9), which keeps both the compilation and the search small.
fn compile(source: &str, end: bool) -> Option<Regex> {
    let anchored = if end {
        format!("^(?:{source})$")
    } else {
        format!("^(?:{source})")
    };
    RegexBuilder::new(&anchored).unicode(false).build().ok()
}

/// A pattern of whole numbers as a DFA: a search walks one transition a digit.
type Dfa = dense::DFA<Vec<u32>>;

/// A metadata pattern as a DFA matching whole strings only (`$`; anchored at the start).
fn compile_dfa(source: &str) -> Option<Dfa> {
    dense::Builder::new()
        .configure(
            dense::Config::new()
                .start_kind(StartKind::Anchored)
                .accelerate(false),
        )
        .syntax(syntax::Config::new().unicode(false).utf8(false))
        .build(&format!("(?:{source})$"))
        .ok()
}

/// Whether the DFA matches the whole of `s`.
fn whole_match(dfa: &Dfa, s: &[u8]) -> bool {
    let Ok(mut state) = dfa.start_state(&start::Config::new().anchored(Anchored::Yes)) else {
        return false;
    };
    for &byte in s {
        state = dfa.next_state(state, byte);
        if dfa.is_dead_state(state) {
            return false;
        }
    }
    dfa.is_match_state(dfa.next_eoi_state(state))
}

/// One pattern of national significant numbers and the lengths it allows, compiled on first use.
struct Pattern {
    data: &'static PatternData,
    dfa: OnceLock<Option<Dfa>>,
}

impl Pattern {
    fn new(data: &'static PatternData) -> Pattern {
        Pattern {
            data,
            dfa: OnceLock::new(),
        }
    }

    fn matches(&self, nsn: &str) -> bool {
        let lengths = self.data.lengths;
        (lengths.is_empty() || lengths.contains(&(nsn.len() as u16)))
            && self
                .dfa
                .get_or_init(|| compile_dfa(self.data.source))
                .as_ref()
                .is_some_and(|dfa| whole_match(dfa, nsn.as_bytes()))
    }
}

/// One national layout of a region: which numbers it applies to, and the lengths of its groups.
pub struct Layout {
    pattern: Regex,
    leading: Option<Regex>,
    /// Whether the trunk prefix is written before the first group (`0$1`).
    #[cfg_attr(not(any(test, feature = "test-support")), allow(dead_code))]
    pub trunk: bool,
    /// The group lengths are read from the pattern's captures for each number.
    format: &'static str,
}

/// How the trunk prefix (or a carrier code) is taken off a nationally dialled number.
enum Parsing {
    None,
    /// A fixed prefix, "0" in most regions.
    Literal(&'static str),
    /// A pattern, with captures a transform rule may keep; compiled on first use.
    Pattern(&'static str, OnceLock<Option<Regex>>),
}

/// What the metadata says of one region, compiled as it is used.
pub struct Rules {
    pub id: RegionId,
    #[cfg_attr(not(any(test, feature = "test-support")), allow(dead_code))]
    pub country_code: u16,
    pub trunk_prefix: Option<&'static str>,
    parsing: Parsing,
    transform: Option<&'static str>,
    /// Fixed line, mobile, toll free, premium rate, shared cost, personal, VoIP, pager, UAN, voicemail.
    types: Vec<Pattern>,
    layouts: &'static [LayoutData],
    compiled_layouts: OnceLock<Vec<Layout>>,
    #[cfg_attr(not(any(test, feature = "test-support")), allow(dead_code))]
    examples: &'static [(&'static str, &'static str)],
    min_length: usize,
    max_length: usize,
}

/// A region's slot in [`rules_table`]: its two letters as a number below 26 * 26.
fn slot(id: RegionId) -> Option<usize> {
    let [a, b] = id;
    (a.is_ascii_uppercase() && b.is_ascii_uppercase())
        .then(|| usize::from(a - b'A') * 26 + usize::from(b - b'A'))
}

/// A region's metadata and its rules once set up.
type Slot = Option<(&'static RegionData, OnceLock<Option<Rules>>)>;

/// Every region of the metadata in its slot (indexed, not hashed: a candidate may look up thirty
/// regions).
fn rules_table() -> &'static [Slot] {
    type Table = Vec<Slot>;
    static TABLE: OnceLock<Table> = OnceLock::new();
    TABLE.get_or_init(|| {
        let mut table: Table = (0..26 * 26).map(|_| None).collect();
        for meta in METADATA {
            if let Some(k) = region_id(meta.id).and_then(slot) {
                table[k] = Some((meta, OnceLock::new()));
            }
        }
        table
    })
}

/// Whether the metadata knows the region.
fn known(id: RegionId) -> bool {
    slot(id).is_some_and(|k| rules_table()[k].is_some())
}

/// The rules of a region (set up on first use; their patterns are compiled as they are needed).
pub fn rules(id: RegionId) -> Option<&'static Rules> {
    let (meta, rules) = rules_table()[slot(id)?].as_ref()?;
    rules.get_or_init(|| Rules::new(meta, id)).as_ref()
}

impl Rules {
    fn new(meta: &'static RegionData, id: RegionId) -> Option<Rules> {
        meta.general.as_ref()?;
        let types: Vec<Pattern> = meta.types.iter().map(Pattern::new).collect();
        // The metadata gives the general pattern no lengths of its own: the types' lengths bound it, so
        // that most candidates are turned away before any regex runs.
        let lengths = || {
            meta.types
                .iter()
                .flat_map(|pattern| pattern.lengths.iter().copied())
        };
        let min_length = lengths().min().unwrap_or(4).into();
        let max_length = lengths().max().unwrap_or(17).into();
        let parsing = match meta.prefix_for_parsing {
            None => Parsing::None,
            Some(source) if source.bytes().all(|b| b.is_ascii_digit()) => Parsing::Literal(source),
            Some(source) => Parsing::Pattern(source, OnceLock::new()),
        };
        Some(Rules {
            id,
            country_code: meta.country_code,
            trunk_prefix: meta.trunk_prefix,
            parsing,
            transform: meta.transform,
            types,
            layouts: meta.layouts,
            compiled_layouts: OnceLock::new(),
            examples: meta.examples,
            min_length,
            max_length,
        })
    }

    /// The region's layouts, compiled on first use.
    fn layouts(&self) -> &[Layout] {
        self.compiled_layouts.get_or_init(|| {
            self.layouts
                .iter()
                .filter_map(|data| {
                    Some(Layout {
                        pattern: compile(data.pattern, true)?,
                        leading: data.leading.and_then(|leading| compile(leading, false)),
                        trunk: data.trunk,
                        format: data.format,
                    })
                })
                .collect()
        })
    }

    /// Whether `nsn` (digits only, without country code or trunk prefix) is a valid number of this
    /// region: of the lengths and pattern of one of its types. (libphonenumber first tries the general
    /// pattern, which its metadata builder makes the union of the types' patterns: a shortcut that
    /// would cost a search here, where lengths already turn most candidates away.)
    pub fn valid_nsn(&self, nsn: &str) -> bool {
        nsn.len() >= self.min_length
            && nsn.len() <= self.max_length
            && self.types.iter().any(|pattern| pattern.matches(nsn))
    }

    /// The national significant number of `digits` dialled inside the region (trunk prefix or carrier
    /// code removed as the metadata says), when it is valid.
    pub fn national<'d>(&self, digits: &'d str) -> Option<Cow<'d, str>> {
        if digits.len() < self.min_length {
            return None;
        }
        let stripped = match &self.parsing {
            Parsing::None => None,
            Parsing::Literal(prefix) => digits.strip_prefix(prefix).map(Cow::Borrowed),
            Parsing::Pattern(source, regex) => regex
                .get_or_init(|| compile(source, false))
                .as_ref()
                .and_then(|prefix| {
                    let captures = prefix.captures(digits)?;
                    let whole = captures.get(0).map_or(0, |m| m.end());
                    let rest = &digits[whole..];
                    Some(match self.transform {
                        // A transform rule rewrites the prefix ("$1" keeps a captured part).
                        Some(rule) if captures.len() > 1 && captures.get(1).is_some() => {
                            let mut out = String::new();
                            captures.expand(rule, &mut out);
                            out.push_str(rest);
                            Cow::Owned(out)
                        }
                        _ => Cow::Borrowed(rest),
                    })
                }),
        };
        if let Some(stripped) = stripped.filter(|stripped| self.valid_nsn(stripped)) {
            return Some(stripped);
        }
        self.valid_nsn(digits).then_some(Cow::Borrowed(digits))
    }

    /// The layouts that apply to `nsn`, each with the groups it writes `nsn` in (its format's `$1`,
    /// `$2`... in order).
    fn layouts_of<'a>(&'a self, nsn: &'a str) -> impl Iterator<Item = (&'a Layout, Vec<&'a str>)> {
        self.layouts().iter().filter_map(move |layout| {
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

    /// The pattern of the region's numbers of `kind` ("fixed_line", "mobile"...) as the metadata writes
    /// it, with the lengths it allows: for generators of test numbers.
    #[cfg(any(test, feature = "test-support"))]
    pub fn pattern_of(&self, kind: &str) -> Option<(&'static str, &'static [u16])> {
        self.types
            .iter()
            .find(|pattern| pattern.data.kind == kind)
            .map(|pattern| (pattern.data.source, pattern.data.lengths))
    }

    /// The digits of its trunk prefix when it is fixed ("0" in most of Europe, "1" in the US).
    #[cfg(any(test, feature = "test-support"))]
    pub fn trunk(&self) -> Option<&'static str> {
        self.trunk_prefix
            .filter(|trunk| !trunk.is_empty() && trunk.bytes().all(|b| b.is_ascii_digit()))
    }

    /// An example number of each type the region has (national significant numbers).
    #[cfg(any(test, feature = "test-support"))]
    pub fn examples(&self) -> Vec<(&'static str, String)> {
        self.examples
            .iter()
            .map(|&(kind, example)| (kind, example.to_owned()))
            .collect()
    }

    /// `nsn` written in the region's national layout (groups joined by `separator`, the trunk prefix in
    /// front where the layout writes one), when one applies.
    #[cfg(any(test, feature = "test-support"))]
    pub fn format_national(&self, nsn: &str, separator: &str) -> Option<String> {
        let (trunk, groups) = self.national_groups(nsn)?;
        Some(format!("{trunk}{}", groups.join(separator)))
    }

    /// The groups the region's first layout for `nsn` writes it in, and the trunk prefix that layout
    /// writes before them ("" when none).
    #[cfg(any(test, feature = "test-support"))]
    pub fn national_groups<'a>(&'a self, nsn: &'a str) -> Option<(&'static str, Vec<&'a str>)> {
        let (layout, groups) = self.layouts_of(nsn).next()?;
        let trunk = match (layout.trunk, self.trunk_prefix) {
            (true, Some(trunk)) => trunk,
            _ => "",
        };
        Some((trunk, groups))
    }
}

/// An assigned country calling code: its regions (NANP's 1: the US, Canada and the Caribbean), or for
/// a non-geographic code (+800, +870...) the pattern of its numbers.
struct Code {
    regions: Vec<RegionId>,
    non_geographic: Option<Pattern>,
}

/// Every assigned calling code, read from the metadata once, indexed by the code (below 1000).
fn codes() -> &'static [Option<Code>] {
    static CODES: OnceLock<Vec<Option<Code>>> = OnceLock::new();
    CODES.get_or_init(|| {
        let mut codes: Vec<Option<Code>> = (0..1000).map(|_| None).collect();
        for meta in METADATA {
            let Some(entry) = codes.get_mut(usize::from(meta.country_code)) else {
                continue;
            };
            let code = entry.get_or_insert_with(|| Code {
                regions: Vec::new(),
                non_geographic: None,
            });
            match region_id(meta.id) {
                Some(id) => code.regions.push(id),
                None => code.non_geographic = meta.general.as_ref().map(Pattern::new),
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
        let Some(assigned) = codes()[usize::from(code)].as_ref() else {
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
