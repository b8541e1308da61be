//! The PII engine: finds the 46 personal-data types of `shared/spec/pii-types.md` in one pass over
//! the text, resolves overlaps, masks each value as `[MASKED_<TYPE>]`, and re-scans the output so
//! that a masked result can never carry a detectable value. Pure and synchronous; never panics on
//! any input; findings never contain the raw value.

mod automaton;
pub(crate) mod checksum;
mod context;
pub(crate) mod lexicon;
// Test support: generators of values, layouts and business text, and the planted corpora built from
// them. Compiled for the unit tests, and for benches and integration tests through the crate's
// `test-support` feature (its own dev-dependency turns it on); never into the service.
#[cfg(any(test, feature = "test-support"))]
pub mod planted;
mod scan;
#[cfg(any(test, feature = "test-support"))]
pub mod synthetic;
pub(crate) mod text;
mod types;

use std::collections::BTreeMap;

use serde::Serialize;

pub use types::{PiiType, TypeSet};

/// What to detect and mask.
#[derive(Clone, Debug)]
pub struct Policy {
    /// Types that are detected (default: all 46).
    pub enabled: TypeSet,
    /// Findings below this confidence are ignored (default 0: everything).
    pub min_confidence: f32,
    /// Bytes before a candidate searched for context keywords (default 64).
    pub context_before: usize,
    /// Bytes after a candidate searched for context keywords (default 24).
    pub context_after: usize,
    /// Values known from outside the text (a document's author, e-mail display names, the VKN of an
    /// e-invoice party): masked as that type wherever they occur.
    pub known_values: Vec<(PiiType, String)>,
    /// A matcher over `known_values`, built once by [`Policy::prepare`] for the many parts of a document.
    prepared: Option<std::sync::Arc<KnownMatcher>>,
    /// What replaces a found value when it is not its type's `[MASKED_<TYPE>]` (the tenant's masking
    /// operators); None: placeholders.
    pub replacer: Option<std::sync::Arc<dyn Replacer>>,
}

/// What a found value becomes in the masked output, when not its type's placeholder.
pub trait Replacer: Send + Sync + std::fmt::Debug {
    /// The replacement of `value`, of type `ty` as written in the text; None: the type's placeholder.
    /// `round` counts the replacements of this value already turned down because each was itself a
    /// value of the text: another is drawn.
    fn replace(&self, ty: PiiType, value: &str, round: u32) -> Option<String>;

    /// Whether what it writes for `ty` may read as a value (a surrogate), which must then not be one
    /// of the text's own values; tokens, placeholders and nothing never are.
    fn writes_values(&self, ty: PiiType) -> bool;
}

/// The known values, ready to be found in many texts: looked up by their first word at each word start
/// of a text (one hash look-up per word instead of an automaton step per byte), with an automaton only
/// for the few values that do not start with a letter or digit ("+44 20 ..."). `built_from` is the
/// number of `known_values` it was built from (a policy whose list changed afterwards falls back to
/// matching from scratch).
struct KnownMatcher {
    built_from: usize,
    /// Sorted by (type, value).
    values: Vec<(PiiType, String)>,
    /// First word -> indices into `values`, longest value first.
    by_word: rustc_hash::FxHashMap<Vec<u8>, Vec<usize>>,
    /// Per first byte of a word: bit n set when some value's first word has n bytes (31: 31 or more).
    /// Most words of a text are turned away here without hashing.
    word_lengths: [u32; 256],
    /// Bit `first byte * 256 + second byte` set for the first two bytes of each of those values: the
    /// walk over a text stops only at word starts that begin like some value.
    pairs: Box<[u64; 1024]>,
    /// The values that start with neither a letter nor a digit, and their indices into `values`.
    others: Option<(aho_corasick::AhoCorasick, Vec<usize>)>,
}

impl KnownMatcher {
    fn new(built_from: usize, values: Vec<(PiiType, String)>) -> KnownMatcher {
        let mut by_word: rustc_hash::FxHashMap<Vec<u8>, Vec<usize>> = Default::default();
        let mut others = Vec::new();
        let mut word_lengths = [0u32; 256];
        let mut pairs = Box::new([0u64; 1024]);
        for (index, (_, value)) in values.iter().enumerate() {
            let bytes = value.as_bytes();
            let first = bytes
                .iter()
                .position(|&c| !text::is_word_byte(c))
                .unwrap_or(bytes.len());
            if first == 0 {
                others.push(index);
            } else {
                by_word
                    .entry(bytes[..first].to_vec())
                    .or_default()
                    .push(index);
                word_lengths[usize::from(bytes[0])] |= 1 << first.min(31);
                // Matchable values have at least four characters.
                let pair = usize::from(bytes[0]) << 8 | usize::from(bytes[1]);
                pairs[pair >> 6] |= 1 << (pair & 63);
            }
        }
        for list in by_word.values_mut() {
            list.sort_by_key(|&index| std::cmp::Reverse(values[index].1.len()));
        }
        let others = if others.is_empty() {
            None
        } else {
            // A contiguous NFA: the DFA the builder would choose for so few values cost more to
            // build (per document) than all its searches saved.
            aho_corasick::AhoCorasickBuilder::new()
                .match_kind(aho_corasick::MatchKind::LeftmostLongest)
                .kind(Some(aho_corasick::AhoCorasickKind::ContiguousNFA))
                .build(others.iter().map(|&index| &values[index].1))
                .ok()
                .map(|automaton| (automaton, others))
        };
        KnownMatcher {
            built_from,
            values,
            by_word,
            word_lengths,
            pairs,
            others,
        }
    }

    /// Whether `value` is among the values, as `ty` (`values` is sorted).
    fn contains(&self, ty: PiiType, value: &str) -> bool {
        self.values
            .binary_search_by(|(t, v)| (*t, v.as_str()).cmp(&(ty, value)))
            .is_ok()
    }

    /// Each occurrence of a value in `text` that starts a word: (start, end, type), left to right,
    /// the longest value at a position, none inside another.
    fn find(&self, text: &str, mut found: impl FnMut(usize, usize, PiiType)) {
        let b = text.as_bytes();
        let n = b.len();
        let begins_like_a_value = |at: usize| {
            at + 1 < n && {
                let pair = usize::from(b[at]) << 8 | usize::from(b[at + 1]);
                self.pairs[pair >> 6] & (1 << (pair & 63)) != 0
            }
        };
        // Word start by word start: only a start that begins like some value (the pair bitmap) is
        // looked at further, and none inside the last value found.
        let mut after = 0;
        for start in text::word_starts(b, 0, n) {
            if start < after || !begins_like_a_value(start) {
                continue;
            }
            let mut end = start + 1;
            while end < n && text::is_word_byte(b[end]) {
                end += 1;
            }
            if self.word_lengths[usize::from(b[start])] & (1 << (end - start).min(31)) == 0 {
                continue;
            }
            let Some(list) = self.by_word.get(&b[start..end]) else {
                continue;
            };
            if let Some(&index) = list
                .iter()
                .find(|&&index| b[start..].starts_with(self.values[index].1.as_bytes()))
            {
                let (ty, value) = &self.values[index];
                after = start + value.len();
                found(start, after, *ty);
            }
        }
        if let Some((automaton, indices)) = &self.others {
            for hit in automaton.find_iter(text) {
                found(
                    hit.start(),
                    hit.end(),
                    self.values[indices[hit.pattern().as_usize()]].0,
                );
            }
        }
    }
}

impl std::fmt::Debug for KnownMatcher {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("KnownMatcher")
            .field("values", &self.values.len())
            .finish()
    }
}

impl Default for Policy {
    fn default() -> Self {
        Policy {
            enabled: TypeSet::all(),
            min_confidence: 0.0,
            context_before: 64,
            context_after: 24,
            known_values: Vec::new(),
            prepared: None,
            replacer: None,
        }
    }
}

impl Policy {
    /// Builds the matcher for `known_values` once, so that masking many parts of one document does not
    /// search for every value in every part from scratch. Call again after changing `known_values`.
    pub fn prepare(&mut self) {
        let values = matchable(
            self.known_values
                .iter()
                .map(|(ty, value)| (*ty, value.as_str())),
        )
        .into_iter()
        .map(|(ty, value)| (ty, value.to_string()))
        .collect::<Vec<_>>();
        self.prepared = Some(std::sync::Arc::new(KnownMatcher::new(
            self.known_values.len(),
            values,
        )));
    }

    /// Only these types.
    pub fn only(types: &[PiiType]) -> Policy {
        Policy {
            enabled: types.iter().fold(TypeSet::default(), |set, t| set.with(*t)),
            ..Policy::default()
        }
    }
}

/// One detected value. Offsets refer to the input text; the value itself is never stored. Written out
/// (JSON), never read back: the detector's name is the engine's own (no allocation per finding).
#[derive(Clone, Debug, PartialEq, Serialize, utoipa::ToSchema)]
pub struct Finding {
    #[serde(rename = "type")]
    pub pii_type: PiiType,
    pub start: usize,
    pub end: usize,
    pub char_start: usize,
    pub char_end: usize,
    pub confidence: f32,
    /// The detector that found it (`checksum`, `regex`, `label`, `gazetteer`, ...).
    #[schema(value_type = String)]
    pub detector: &'static str,
}

/// The result of [`mask`].
#[derive(Clone, Debug, Serialize)]
pub struct Masked {
    pub text: String,
    pub findings: Vec<Finding>,
    /// `pii_type_summary`: type name -> count.
    pub summary: BTreeMap<String, u64>,
    /// What replaced each finding, in order, when the policy has a replacer (None in a place: the
    /// type's placeholder); None: placeholders throughout.
    #[serde(skip)]
    pub written: Option<Vec<Option<String>>>,
}

/// Masking was refused: the output would still contain detectable values.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("masked output still contains detectable personal data ({remaining:?}); result refused")]
pub struct LeakError {
    pub remaining: BTreeMap<String, u64>,
}

/// Non-overlapping hits: the longest validated span wins, then the hit's priority (its type's, or
/// its rank by nearest keyword among the hits of one value that rest on no checksum). `hits` is left
/// filtered by the policy and sorted, for a second round. A name or an address that lost to an
/// overlapping value keeps its words outside the winner ([`remainders`]).
fn resolve(text: &str, hits: &mut Vec<scan::Hit>, policy: &Policy) -> Vec<scan::Hit> {
    hits.retain(|h| {
        policy.enabled.contains(h.ty) && h.confidence >= policy.min_confidence && h.end > h.start
    });
    hits.sort_by(order);
    // `hits` stays whole for a second round (see `resolved`); this round resolves the uncrossed ones.
    let uncrossed = uncross(hits);
    let hits: &[scan::Hit] = uncrossed.as_deref().unwrap_or(hits);
    let mut kept = settle(hits, greedy(hits));
    // A remainder may overlap another name or address, which then keeps its own part outside it
    // ("Atatürk Cad. No: 12 - Adres: Hürriyet Mah. ... Kimlik: 10000000146": the label's address loses
    // to the TCKN its 200 bytes end in, and its remainder overlaps the street address before it). A
    // few rounds settle every case met; a part left over is found by the re-scan, which refuses it.
    for _ in 0..4 {
        let mut rest = remainders(text, hits, &kept);
        rest.retain(|part| {
            let first = kept.partition_point(|k| k.start < part.start);
            !kept[first..]
                .iter()
                .take_while(|k| k.start == part.start)
                .any(|k| k.end == part.end && k.ty == part.ty)
        });
        if rest.is_empty() {
            break;
        }
        rest.extend_from_slice(&kept);
        rest.sort_by(order);
        kept = settle(hits, greedy(&rest));
    }
    kept
}

/// By start, the longest first, then by priority.
fn order(a: &scan::Hit, b: &scan::Hit) -> std::cmp::Ordering {
    a.start
        .cmp(&b.start)
        .then(b.end.cmp(&a.end))
        .then(a.priority.cmp(&b.priority))
}

/// Whether a hit is written in words that can be cut: a name, an address, an e-mail address.
fn cuttable(hit: &scan::Hit) -> bool {
    matches!(
        hit.ty,
        PiiType::PersonName | PiiType::Address | PiiType::Email
    )
}

/// Whether `candidate` beats `current`, which it overlaps: the longer span, then the better priority.
/// But of two spans that cross (each holds a part of the other's text):
/// - a name, an address or an e-mail address loses to a value of another kind, and keeps its words
///   outside it (see [`remainders`]): "Date of birth: March 12, 1985 Atatürk Cad. No: 12" (the street
///   address walked back onto the year), "4111 1111 1111 1111.mehmet@ornek.com.tr" (the e-mail's local
///   part takes the card's last group), an address behind its label whose 200 bytes end inside an IBAN;
/// - otherwise one validated by a checksum or a distinctive form wins over one that rests on a keyword
///   or a label alone: in "Tel: 0532 123 45 67 0212 345 67 89" (one chain) the label makes a phone
///   number of "45 67 0212 345 67", which would beat the two numbers it cuts through by its length.
///
/// And a value validated by a checksum or a distinctive form written inside an address wins over the
/// address, which keeps its words on either side (see [`remainders`]): in "Adres: Hürriyet Mah. Akasya
/// Sok. 0532 123 45 67 Kadıköy" the phone number is a phone number, masked and counted as one, not a
/// part of the address.
fn better(candidate: &scan::Hit, current: &scan::Hit) -> bool {
    if holds_value(current, candidate) {
        return true;
    }
    if holds_value(candidate, current) {
        return false;
    }
    let crossing = (candidate.start < current.start && candidate.end < current.end)
        || (candidate.start > current.start && candidate.end > current.end);
    if crossing {
        if cuttable(candidate) != cuttable(current) {
            return !cuttable(candidate);
        }
        if validated(candidate) != validated(current) {
            return validated(candidate);
        }
    }
    let (cl, ul) = (candidate.end - candidate.start, current.end - current.start);
    cl > ul || (cl == ul && candidate.priority < current.priority)
}

fn validated(hit: &scan::Hit) -> bool {
    hit.confidence >= scan::VALIDATED
}

/// Whether `address`, an address, holds `value`, a validated value of another kind, inside its span.
fn holds_value(address: &scan::Hit, value: &scan::Hit) -> bool {
    address.ty == PiiType::Address
        && !cuttable(value)
        && validated(value)
        && address.start <= value.start
        && value.end <= address.end
        && (address.start, address.end) != (value.start, value.end)
}

/// Drops each value that two others, as strong and clear of each other, cross from either side: in
/// "İletişim: 0540 395 80 59 0212 345 67 89" (one chain) the digits "395 80 59 0212" pass the TCKN
/// check, and as long as either phone number they would beat both by their priority, leaving "0540"
/// and "345 67 89"; in "DE89 3704 0044 0532 0130 00 1000 0212 345 67 89" 26 digits across the IBAN
/// and the phone number pass the SGK workplace check. What lies between the two alone is left (here
/// "1000"), rather than a part of each. `hits` is sorted by [`order`], and so are the hits returned
/// (`None`: all of them).
fn uncross(hits: &[scan::Hit]) -> Option<Vec<scan::Hit>> {
    // For each value crossed from the left by one as strong: the least end of those; from the right:
    // the greatest start. Filled only once some value is crossed.
    let mut bounds: Vec<(usize, usize)> = Vec::new();
    for (i, h) in hits.iter().enumerate() {
        if cuttable(h) {
            continue;
        }
        for (j, g) in hits.iter().enumerate().skip(i + 1) {
            if g.start >= h.end {
                break;
            }
            if g.start == h.start || g.end <= h.end || cuttable(g) {
                continue;
            }
            if bounds.is_empty() {
                bounds = vec![(usize::MAX, 0); hits.len()];
            }
            // `h` crosses `g` from the left.
            if validated(h) >= validated(g) {
                bounds[j].0 = bounds[j].0.min(h.end);
            }
            if validated(g) >= validated(h) {
                bounds[i].1 = bounds[i].1.max(g.start);
            }
        }
    }
    if bounds.is_empty() {
        return None;
    }
    Some(
        hits.iter()
            .zip(bounds)
            .filter(|&(_, (left_end, right_start))| left_end > right_start)
            .map(|(hit, _)| *hit)
            .collect(),
    )
}

/// `kept`, resolved from `hits` (sorted by [`order`]), and every hit that lost to one that lost in turn
/// to another that leaves it clear: in "Doğum Tarihi: 12.03.1985 0212 345 67 89" (one chain) the
/// digits "1985 0212 345" pass the PESEL check and beat the date they cross, then lose to the phone
/// number. Such a hit, overlapping no winner, is resolved again with them (it would otherwise stay in
/// the output, and the re-scan find it).
fn settle(hits: &[scan::Hit], mut kept: Vec<scan::Hit>) -> Vec<scan::Hit> {
    loop {
        // Both are sorted by start, and the winners do not overlap: one walk over the two.
        let mut winner = 0;
        let mut clear: Vec<scan::Hit> = Vec::new();
        for hit in hits {
            while winner < kept.len() && kept[winner].end <= hit.start {
                winner += 1;
            }
            if kept.get(winner).is_none_or(|k| k.start >= hit.end) {
                clear.push(*hit);
            }
        }
        if clear.is_empty() {
            return kept;
        }
        // The winners overlap none of these: they all stay, and at least one of these joins them.
        clear.extend_from_slice(&kept);
        clear.sort_by(order);
        kept = greedy(&clear);
    }
}

/// The overlap resolution proper over `hits` sorted by [`order`].
fn greedy(hits: &[scan::Hit]) -> Vec<scan::Hit> {
    let mut kept: Vec<scan::Hit> = Vec::with_capacity(hits.len());
    for &hit in hits {
        match kept.last_mut() {
            Some(last) if hit.start < last.end => {
                if better(&hit, last) {
                    *last = hit;
                    // The replacement may now overlap its predecessor; keep the better of the two.
                    while kept.len() >= 2 {
                        let n = kept.len();
                        if kept[n - 1].start < kept[n - 2].end {
                            if better(&kept[n - 1], &kept[n - 2]) {
                                kept.swap(n - 1, n - 2);
                            }
                            kept.pop();
                        } else {
                            break;
                        }
                    }
                }
            }
            _ => kept.push(hit),
        }
    }
    kept
}

/// The parts of each name, address and e-mail address of `hits` that lost to an overlapping value in
/// `kept` and lie outside every kept hit, trimmed to their words: "Sayın Ayşe Yılmaz Hürriyet Mah.
/// Akasya Sok. No:5" holds a name that runs into the address after it, and whichever of the two loses
/// would otherwise be lost whole, to be found in the masked text by its re-scan (which then refuses
/// it); in "TR59 ... 2221 71/mehmet@ornek.com.tr" the e-mail's local part takes the IBAN's last group
/// ('/' and digits are allowed there). A part needs a word of two letters, a name's a capital first
/// and an e-mail's its '@'.
fn remainders(text: &str, hits: &[scan::Hit], kept: &[scan::Hit]) -> Vec<scan::Hit> {
    let mut found = Vec::new();
    // Both are sorted by start, and the winners do not overlap (their ends rise too): the first
    // winner that may overlap a hit only moves forward, one walk over the two instead of two binary
    // searches per name (a customer list holds a name on every line).
    let mut first = 0;
    for hit in hits {
        if !cuttable(hit) {
            continue;
        }
        while kept.get(first).is_some_and(|k| k.end <= hit.start) {
            first += 1;
        }
        let overlapping = &kept[first..];
        let overlapping =
            &overlapping[..overlapping.iter().take_while(|k| k.start < hit.end).count()];
        if overlapping.is_empty()
            || overlapping
                .iter()
                .any(|k| (k.start, k.end, k.ty) == (hit.start, hit.end, hit.ty))
        {
            continue;
        }
        // The part is cut only by the winners that beat the hit: those it crosses, that hold it, or
        // that are validated values inside an address. Another shorter one inside it it would beat,
        // and does again as a part (one placeholder, as when the hit wins whole).
        let beaten_by = |k: &&scan::Hit| {
            k.start < hit.start
                || k.end > hit.end
                || k.end - k.start >= hit.end - hit.start
                || holds_value(hit, k)
        };
        found.extend(parts(
            text,
            hit,
            overlapping
                .iter()
                .filter(beaten_by)
                .map(|k| (k.start, k.end)),
        ));
    }
    found
}

/// The parts of `hit` (a name, an address, an e-mail address) outside the spans `cuts` (in order).
fn parts(
    text: &str,
    hit: &scan::Hit,
    cuts: impl Iterator<Item = (usize, usize)>,
) -> Vec<scan::Hit> {
    let mut parts = Vec::new();
    let mut cursor = hit.start;
    for (start, end) in cuts.chain([(hit.end, hit.end)]) {
        let (from, to) = (cursor, start.min(hit.end));
        cursor = cursor.max(end);
        if from < to {
            parts.extend(part(text, hit, from, to));
        }
    }
    parts
}

/// `text[from..to]` as a part of `hit`, trimmed of punctuation: a word of two letters, a name's with a
/// capital first, an e-mail's with its '@'.
fn part(text: &str, hit: &scan::Hit, from: usize, to: usize) -> Option<scan::Hit> {
    let b = text.as_bytes();
    // Hits start and end on char boundaries (`resolved` snaps them), and so do the spans cut out.
    let punctuation = |c: char| c.is_ascii() && !c.is_ascii_alphanumeric();
    let part = text.get(from..to)?.trim_end_matches(punctuation);
    let mut end = from + part.len();
    // An address keeps the dot of the abbreviation it ends with ("Hürriyet Mah. Akasya Sok."), as it
    // does when it is masked whole.
    if hit.ty == PiiType::Address
        && end < to
        && b[end] == b'.'
        && part.ends_with(char::is_alphabetic)
    {
        end += 1;
    }
    let part = &text[from..end];
    let start = end - part.trim_start_matches(punctuation).len();
    let fails = start >= end
        || (hit.ty == PiiType::PersonName && !text::upper_at(b, start))
        || (hit.ty == PiiType::Email && !b[start..end].contains(&b'@'))
        || !has_word(b, start, end);
    (!fails).then_some(scan::Hit {
        start,
        end,
        shortcut: None,
        ..*hit
    })
}

/// Whether `b[start..end]` holds a run of two letters.
fn has_word(b: &[u8], start: usize, end: usize) -> bool {
    let mut i = start;
    let mut run = 0;
    while i < end {
        let l = text::letter_at(b, i);
        if l == 0 {
            run = 0;
            i += 1;
        } else {
            run += 1;
            if run >= 2 {
                return true;
            }
            i += l;
        }
    }
    false
}

/// A name found once (behind a label, in a name column) is a name everywhere in the document, and a
/// value the document itself declares (see [`Policy::known_values`]) is masked wherever it occurs.
/// Values worth propagating: trimmed, long enough (names 5 characters, others 4), sorted, deduplicated.
fn matchable<'a>(values: impl Iterator<Item = (PiiType, &'a str)>) -> Vec<(PiiType, &'a str)> {
    // A name recurs on many lines: the copies are dropped by hashing first, and only the distinct
    // values sorted (sorting them all compared the same strings over and over).
    let mut seen = rustc_hash::FxHashSet::default();
    let mut values: Vec<(PiiType, &str)> = values
        .map(|(ty, value)| (ty, value.trim()))
        .filter(|&(ty, value)| {
            value.chars().count() >= if ty == PiiType::PersonName { 5 } else { 4 }
                && seen.insert((ty, value))
        })
        .collect();
    values.sort_unstable();
    values.dedup_by(|a, b| a.1 == b.1);
    values
}

/// Up to this many values to propagate are each searched for on their own.
const FEW_VALUES: usize = 8;

/// Every further occurrence of a found person name, and of each known value, is personal data too.
fn propagate(text: &str, policy: &Policy, hits: &mut Vec<scan::Hit>) {
    let b = text.as_bytes();
    let letter = text::is_word_byte;
    let mut found: Vec<scan::Hit> = Vec::new();
    let mut push = |start: usize, end: usize, ty: PiiType| {
        if (start > 0 && letter(b[start - 1])) || b.get(end).is_some_and(|&c| letter(c)) {
            return;
        }
        found.push(scan::Hit {
            start,
            end,
            ty,
            confidence: 0.6,
            detector: "propagated",
            priority: ty.priority(),
            shortcut: None,
        });
    };
    let names = hits
        .iter()
        .filter(|h| h.ty == PiiType::PersonName)
        .map(|h| (PiiType::PersonName, text[h.start..h.end].trim()))
        .filter(|(_, name)| name.contains(' ') && !name.contains('\n'));
    let prepared = policy
        .prepared
        .as_deref()
        .filter(|p| p.built_from == policy.known_values.len());
    let values = match prepared {
        Some(prepared) => {
            prepared.find(text, &mut push);
            // Names the prepared automaton already matches (a document's names, found in its full
            // text) need no second search.
            let mut names = matchable(names);
            names.retain(|(ty, name)| !prepared.contains(*ty, name));
            names
        }
        None => matchable(
            names.chain(
                policy
                    .known_values
                    .iter()
                    .map(|(ty, value)| (*ty, value.as_str())),
            ),
        ),
    };
    // The names found in this text are few: a direct search each. Otherwise an automaton costs some
    // 16,000 instructions per value to build and then searches fast (its prefilter skips to the values'
    // first bytes); the word-start look-up costs next to nothing to build and some ten instructions per
    // byte of text. Measured (callgrind): the automaton wins on long texts with few values (the
    // 10 MB benchmark, 64 names), the look-up on a document (40 KB, ~80 names: 3.1 M -> 0.6 M
    // instructions).
    if text.len().saturating_mul(values.len()) <= 64 * 1024 || values.len() <= FEW_VALUES {
        // A vectorised search per value: an automaton's prefilter over a few Turkish names ("İhsan
        // Tarhan", "Nirgül Sezer") picks bytes that are common in Turkish text and stops at most of
        // its lines (two names over 200 KB of an e-mail: 118 M instructions against 2 M).
        for (ty, value) in &values {
            for start in memchr::memmem::find_iter(b, value.as_bytes()) {
                push(start, start + value.len(), *ty);
            }
        }
    } else if text.len() > 4096 * values.len() {
        if let Ok(automaton) = aho_corasick::AhoCorasickBuilder::new()
            .match_kind(aho_corasick::MatchKind::LeftmostLongest)
            .kind(Some(aho_corasick::AhoCorasickKind::NoncontiguousNFA))
            .build(values.iter().map(|(_, v)| v))
        {
            for hit in automaton.find_iter(text) {
                push(hit.start(), hit.end(), values[hit.pattern().as_usize()].0);
            }
        }
    } else {
        let values = values
            .into_iter()
            .map(|(ty, value)| (ty, value.to_string()))
            .collect();
        KnownMatcher::new(0, values).find(text, &mut push);
    }
    hits.extend(found);
}

/// The scanner's candidates for one text. They depend on the text, the context windows and the types
/// the policy keeps, not on the known values, so a document's text scanned for its findings can be
/// masked with the values those findings revealed without being scanned a second time.
pub struct Scanned {
    /// The scanned text's length and hash: candidates are only reused for that text.
    text: (usize, u64),
    windows: (usize, usize),
    /// The policy's types and least confidence (its bits), which the scanner skips moot spans by.
    keep: (TypeSet, u32),
    candidates: Vec<scan::Hit>,
}

fn fingerprint(text: &str) -> (usize, u64) {
    use std::hash::BuildHasher;
    (text.len(), rustc_hash::FxBuildHasher.hash_one(text))
}

/// A scanner that takes no shortcut (see [`scan::Scanner::skipping_nothing`]).
fn scanner_skipping_nothing<'t>(text: &'t str, policy: &Policy) -> scan::Scanner<'t> {
    scan::Scanner::new(text, policy.context_before, policy.context_after).skipping_nothing()
}

fn candidates(text: &str, policy: &Policy) -> Vec<scan::Hit> {
    scan::Scanner::new(text, policy.context_before, policy.context_after)
        .keeping(policy.enabled, policy.min_confidence)
        .run()
}

/// Candidates plus propagated values, snapped to char boundaries and resolved.
fn resolved(text: &str, policy: &Policy, mut hits: Vec<scan::Hit>) -> Vec<scan::Hit> {
    propagate(text, policy, &mut hits);
    // Offsets must fall on char boundaries: snap inwards defensively.
    let snap = |mut h: scan::Hit| {
        h.start = text::ceil_boundary(text, h.start);
        h.end = text::floor_boundary(text, h.end);
        h
    };
    let mut hits: Vec<scan::Hit> = hits.into_iter().map(snap).collect();
    let kept = resolve(text, &mut hits, policy);
    // A whole grouped number whose shorter spans the scanner skipped, beaten after all by a longer hit
    // around it: none of its hits survived, and a span of it outside the winner may be a value. Those
    // tokens are evaluated again, every span, and everything resolved once more.
    let survived = |start: usize, end: usize| {
        let first = kept.partition_point(|k| k.start < start);
        kept[first..]
            .iter()
            .take_while(|k| k.start == start)
            .any(|k| k.end == end)
    };
    let mut lost: Vec<usize> = hits
        .iter()
        .filter_map(|h| h.shortcut.filter(|_| !survived(h.start, h.end)))
        .collect();
    if lost.is_empty() {
        return kept;
    }
    lost.sort_unstable();
    lost.dedup();
    let every_span = scanner_skipping_nothing(text, policy).tokens(&lost);
    hits.extend(every_span.into_iter().map(snap));
    resolve(text, &mut hits, policy)
}

fn raw_hits(text: &str, policy: &Policy) -> Vec<scan::Hit> {
    resolved(text, policy, candidates(text, policy))
}

fn findings_of(text: &str, hits: &[scan::Hit]) -> Vec<Finding> {
    let mut findings = Vec::with_capacity(hits.len());
    let (mut byte, mut chars) = (0usize, 0usize);
    for hit in hits {
        chars += text[byte..hit.start].chars().count();
        let char_start = chars;
        chars += text[hit.start..hit.end].chars().count();
        byte = hit.end;
        findings.push(Finding {
            pii_type: hit.ty,
            start: hit.start,
            end: hit.end,
            char_start,
            char_end: chars,
            confidence: hit.confidence,
            detector: hit.detector,
        });
    }
    findings
}

fn summarise(findings: &[Finding]) -> BTreeMap<String, u64> {
    count_types(findings.iter().map(|finding| finding.pii_type))
}

/// Type name -> count. Counted by the types' numbers first: each name is allocated once, not once per
/// finding (a customer list has several on every line).
fn count_types(types: impl Iterator<Item = PiiType>) -> BTreeMap<String, u64> {
    let mut by_type = [0u64; PiiType::ALL.len()];
    for ty in types {
        by_type[ty as usize] += 1;
    }
    PiiType::ALL
        .iter()
        .zip(by_type)
        .filter(|&(_, count)| count > 0)
        .map(|(ty, count)| (ty.name().to_string(), count))
        .collect()
}

/// Finds personal data without changing the text.
pub fn detect(text: &str, policy: &Policy) -> Vec<Finding> {
    findings_of(text, &raw_hits(text, policy))
}

/// Replaces every finding by its placeholder, then re-scans the output; a detectable value left in the
/// output refuses the result.
pub fn mask(text: &str, policy: &Policy) -> Result<Masked, LeakError> {
    masked_by(text, policy, raw_hits(text, policy))
}

/// [`mask`] for a text already scanned by [`summarize_scanned`] (`policy` may know more values). The
/// candidates are reused only for the same text, context windows, types and least confidence; otherwise
/// the text is scanned again.
pub fn mask_scanned(text: &str, policy: &Policy, scanned: Scanned) -> Result<Masked, LeakError> {
    let same = scanned.text == fingerprint(text)
        && scanned.windows == (policy.context_before, policy.context_after)
        && scanned.keep == (policy.enabled, policy.min_confidence.to_bits());
    let candidates = if same {
        scanned.candidates
    } else {
        candidates(text, policy)
    };
    masked_by(text, policy, resolved(text, policy, candidates))
}

/// `text[from..to]` with each finding (all inside that range, in order) replaced by its placeholder,
/// or by its place in `written` (aligned with `findings`) when that holds a replacement.
pub fn with_replacements(
    text: &str,
    from: usize,
    to: usize,
    findings: &[Finding],
    written: Option<&[Option<String>]>,
) -> String {
    let replacement = |index: usize, finding: &Finding| -> &str {
        written
            .and_then(|written| written.get(index))
            .and_then(|w| w.as_deref())
            .unwrap_or_else(|| finding.pii_type.placeholder())
    };
    // Sized exactly: a placeholder is usually longer than its value, and a string grown past its
    // first guess copies everything written so far.
    let longer: usize = findings
        .iter()
        .enumerate()
        .map(|(index, f)| replacement(index, f).len().saturating_sub(f.end - f.start))
        .sum();
    let mut out = String::with_capacity(to - from + longer);
    let mut cursor = from;
    for (index, finding) in findings.iter().enumerate() {
        out.push_str(&text[cursor..finding.start]);
        out.push_str(replacement(index, finding));
        cursor = finding.end;
    }
    out.push_str(&text[cursor..to]);
    out
}

/// The policy's replacement of each finding (None: the placeholder), none of which is itself a value
/// found in the text: such a replacement is drawn again, and after a few draws the placeholder stands.
fn replacements(text: &str, findings: &[Finding], replacer: &dyn Replacer) -> Vec<Option<String>> {
    // The text's values by a hash of their letters and digits in lower case (a hash that two values
    // share by chance only costs a draw more); made only when some type's replacement is a value.
    let folded = |value: &str| -> u64 {
        use std::hash::Hasher;
        let mut hasher = rustc_hash::FxHasher::default();
        for c in value.chars().filter(|c| c.is_alphanumeric()) {
            for lower in c.to_lowercase() {
                hasher.write_u32(u32::from(lower));
            }
        }
        hasher.finish()
    };
    let found: Option<rustc_hash::FxHashSet<u64>> = findings
        .iter()
        .any(|f| replacer.writes_values(f.pii_type))
        .then(|| {
            findings
                .iter()
                .map(|f| folded(&text[f.start..f.end]))
                .collect()
        });
    findings
        .iter()
        .map(|finding| {
            let value = &text[finding.start..finding.end];
            let Some(found) = found
                .as_ref()
                .filter(|_| replacer.writes_values(finding.pii_type))
            else {
                return replacer.replace(finding.pii_type, value, 0);
            };
            (0..8).find_map(
                |round| match replacer.replace(finding.pii_type, value, round) {
                    Some(written) if found.contains(&folded(&written)) => None,
                    other => Some(other),
                },
            )?
        })
        .collect()
}

fn masked_by(text: &str, policy: &Policy, mut hits: Vec<scan::Hit>) -> Result<Masked, LeakError> {
    // A value can become detectable only once its neighbours are masked: a placeholder shorter than
    // the value it replaces brings a keyword within a number's context window ("Sipariş SIP-1234567890
    // ayse.yilmaz@example.com Vergi No: ...": "Vergi" is 25 bytes after the order number, whose
    // digits pass the VKN check, and 16 after `[MASKED_EMAIL]`). What the re-scan finds wholly in the
    // text between replacements is a value of the input too, and is masked in another round; what
    // lies wholly inside a replacement is the engine's own writing (a surrogate passes its checksum by
    // design); what straddles a replacement's edge demotes that replacement to its placeholder for
    // another round, and refuses the result when it is a placeholder already, as does anything still
    // there after the last round.
    let mut rounds = 1;
    // Findings (by start) whose replacement must be the placeholder.
    let mut demoted: Vec<usize> = Vec::new();
    loop {
        let findings = findings_of(text, &hits);
        let mut written = policy
            .replacer
            .as_deref()
            .map(|replacer| replacements(text, &findings, replacer));
        if let Some(written) = written.as_mut() {
            for (finding, place) in findings.iter().zip(written.iter_mut()) {
                if demoted.binary_search(&finding.start).is_ok() {
                    *place = None;
                }
            }
        }
        let out = with_replacements(text, 0, text.len(), &findings, written.as_deref());
        // Without a finding the output is the text itself, whose scan (`hits`, by the same policy)
        // found nothing: a re-scan would find nothing again. A text without personal data is masked
        // at the cost of its detection.
        let remaining = if hits.is_empty() {
            Vec::new()
        } else {
            raw_hits(&out, policy)
        };
        let refused = |remaining: &[scan::Hit]| LeakError {
            remaining: count_types(remaining.iter().map(|hit| hit.ty)),
        };
        let placed = if remaining.is_empty() {
            Placed::Input(Vec::new())
        } else {
            in_input(text, &findings, written.as_deref(), &remaining)
        };
        match placed {
            Placed::Input(more) if more.is_empty() => {
                return Ok(Masked {
                    text: out,
                    summary: summarise(&findings),
                    findings,
                    written,
                })
            }
            _ if rounds >= 4 => return Err(refused(&remaining)),
            Placed::Input(more) => hits.extend(more),
            Placed::Straddling(_) if written.is_none() => return Err(refused(&remaining)),
            Placed::Straddling(starts) => {
                let fresh: Vec<usize> = starts
                    .into_iter()
                    .filter(|start| demoted.binary_search(start).is_err())
                    .collect();
                if fresh.is_empty() {
                    return Err(refused(&remaining));
                }
                demoted.extend(fresh);
                demoted.sort_unstable();
            }
        }
        hits.sort_by(order);
        rounds += 1;
    }
}

/// Where the re-scan's hits in a masked text lie in the input.
enum Placed {
    /// Each wholly between two replacements (at its place in the input) or wholly inside one (left
    /// out: the engine's own writing).
    Input(Vec<scan::Hit>),
    /// Some straddle a replacement's edge: the starts (in the input) of those replacements' findings.
    Straddling(Vec<usize>),
}

/// The hits the re-scan found in the masked text (`remaining`, with `findings` replaced in `text` by
/// `written`, or placeholders) placed in `text` ([`Placed`]).
fn in_input(
    text: &str,
    findings: &[Finding],
    written: Option<&[Option<String>]>,
    remaining: &[scan::Hit],
) -> Placed {
    // The stretches of text the output keeps and the replacements between them: (start in the
    // output, end in the output, start in the input), in order; `kept[i]` precedes `findings[i]`.
    let mut kept = Vec::with_capacity(findings.len() + 1);
    let mut replaced = Vec::with_capacity(findings.len());
    let (mut input, mut output) = (0, 0);
    for (index, finding) in findings.iter().enumerate() {
        kept.push((output, output + finding.start - input, input));
        output += finding.start - input;
        let length = written
            .and_then(|written| written.get(index))
            .and_then(|w| w.as_ref())
            .map_or_else(|| finding.pii_type.placeholder().len(), String::len);
        replaced.push((output, output + length));
        output += length;
        input = finding.end;
    }
    kept.push((output, output + text.len() - input, input));
    let mut placed = Vec::new();
    let mut straddling = Vec::new();
    for hit in remaining {
        let at = kept.partition_point(|stretch| stretch.1 < hit.end);
        if let Some(&(start, end, from)) = kept.get(at) {
            if start <= hit.start && hit.end <= end {
                placed.push(scan::Hit {
                    start: from + hit.start - start,
                    end: from + hit.end - start,
                    ..*hit
                });
                continue;
            }
        }
        // Not within a kept stretch: inside one replacement, or across an edge of some.
        let first = replaced.partition_point(|r| r.1 <= hit.start);
        let inside = replaced
            .get(first)
            .is_some_and(|&(start, end)| start <= hit.start && hit.end <= end);
        if !inside {
            straddling.extend(
                replaced[first..]
                    .iter()
                    .zip(&findings[first..])
                    .take_while(|((start, _), _)| *start < hit.end)
                    .map(|(_, finding)| finding.start),
            );
        }
    }
    if straddling.is_empty() {
        Placed::Input(placed)
    } else {
        straddling.sort_unstable();
        straddling.dedup();
        Placed::Straddling(straddling)
    }
}

/// Counts without masking (`--no-mask`): findings and summary.
pub fn summarize(text: &str, policy: &Policy) -> (Vec<Finding>, BTreeMap<String, u64>) {
    let findings = detect(text, policy);
    let summary = summarise(&findings);
    (findings, summary)
}

/// [`summarize`], keeping the scanner's candidates for [`mask_scanned`].
pub fn summarize_scanned(
    text: &str,
    policy: &Policy,
) -> (Vec<Finding>, BTreeMap<String, u64>, Scanned) {
    let candidates = candidates(text, policy);
    let findings = findings_of(text, &resolved(text, policy, candidates.clone()));
    let summary = summarise(&findings);
    let scanned = Scanned {
        text: fingerprint(text),
        windows: (policy.context_before, policy.context_after),
        keep: (policy.enabled, policy.min_confidence.to_bits()),
        candidates,
    };
    (findings, summary, scanned)
}

#[cfg(test)]
mod tests;
