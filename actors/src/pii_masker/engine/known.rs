//! What one document has revealed about itself, masked wherever it occurs in the document's parts:
//! the values it declares (its author, e-mail display names, the VKN of an e-invoice party) and the
//! values its full text was found to hold. Per document, beside the tenant's [`Policy`](super::Policy),
//! which stays the same for every document.

use super::{text, PiiType};

/// The values known about one document, and a matcher over them built once ([`Known::prepare`]) for
/// the many parts of the document.
#[derive(Clone, Debug, Default)]
pub struct Known {
    values: Vec<(PiiType, String)>,
    /// Built by [`Known::prepare`] over `values`; dropped when they change.
    prepared: Option<std::sync::Arc<KnownMatcher>>,
}

impl Known {
    /// More values known about the document. A matcher prepared before is dropped: the values are
    /// searched for from scratch until [`Known::prepare`] is called again.
    pub fn extend(&mut self, values: impl IntoIterator<Item = (PiiType, String)>) {
        if let Some(prepared) = self.prepared.take() {
            // The values went into the matcher: back out of it.
            self.values = match std::sync::Arc::try_unwrap(prepared) {
                Ok(matcher) => matcher.values,
                Err(shared) => shared.values.clone(),
            };
        }
        self.values.extend(values);
    }

    /// One more value known about the document (see [`Known::extend`]).
    pub fn push(&mut self, ty: PiiType, value: String) {
        self.extend([(ty, value)]);
    }

    /// The values as given; once prepared, those worth propagating ([`matchable`]).
    pub fn values(&self) -> &[(PiiType, String)] {
        match &self.prepared {
            Some(prepared) => &prepared.values,
            None => &self.values,
        }
    }

    /// Builds the matcher for the values once, so that masking many parts of one document does not
    /// search for every value in every part from scratch. The values move into it, made
    /// [`matchable`] in place: a large table's findings are millions of values, never copied.
    pub fn prepare(&mut self) {
        let mut values = std::mem::take(&mut self.values);
        for (_, value) in values.iter_mut() {
            let trimmed = value.trim();
            if trimmed.len() != value.len() {
                *value = trimmed.to_string();
            }
        }
        values.retain(|(ty, value)| worth_propagating(*ty, value));
        values.sort_unstable();
        values.dedup_by(|a, b| a.1 == b.1);
        values.shrink_to_fit();
        self.prepared = Some(std::sync::Arc::new(KnownMatcher::new(values)));
    }

    /// The matcher, when prepared for the current values.
    pub(super) fn prepared(&self) -> Option<&KnownMatcher> {
        self.prepared.as_deref()
    }
}

/// The known values, ready to be found in many texts: looked up by their first word at each word start
/// of a text (one hash look-up per word instead of an automaton step per byte), with an automaton only
/// for the few values that do not start with a letter or digit ("+44 20 ...").
///
/// Values that share a first word (a column of phones all starting "0532", thousands of names
/// starting "Ayşe") are kept sorted, so that the longest one a text holds at a word start is found by
/// binary search: a list walked value by value made a large table's masking quadratic (a 64 MB CSV
/// of customers: ten minutes). A group is found by a hash of the word rather than the word itself:
/// one small entry per group instead of a key and a list allocated for each.
pub(super) struct KnownMatcher {
    /// Sorted by (type, value).
    values: Vec<(PiiType, String)>,
    /// Indices into `values` of the values that start with a word, grouped by the hash of that word,
    /// each group sorted by value (the lowest index last among equal values).
    sorted: Vec<u32>,
    /// The hash of a first word -> its group's range in `sorted`.
    by_word: rustc_hash::FxHashMap<u64, (u32, u32)>,
    /// Per first byte of a word: bit n set when some value's first word has n bytes (31: 31 or more).
    /// Most words of a text are turned away here without hashing.
    word_lengths: [u32; 256],
    /// Bit `first byte * 256 + second byte` set for the first two bytes of each of those values: the
    /// walk over a text stops only at word starts that begin like some value.
    pairs: Box<[u64; 1024]>,
    /// The values that start with neither a letter nor a digit, and their indices into `values`.
    others: Option<(aho_corasick::AhoCorasick, Vec<usize>)>,
}

/// The hash a first word is grouped by.
fn word_hash(word: &[u8]) -> u64 {
    use std::hash::BuildHasher;
    rustc_hash::FxBuildHasher.hash_one(word)
}

impl KnownMatcher {
    pub(super) fn new(values: Vec<(PiiType, String)>) -> KnownMatcher {
        let mut grouped: Vec<(u64, u32)> = Vec::with_capacity(values.len());
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
                grouped.push((word_hash(&bytes[..first]), index as u32));
                word_lengths[usize::from(bytes[0])] |= 1 << first.min(31);
                // Matchable values have at least four characters.
                let pair = usize::from(bytes[0]) << 8 | usize::from(bytes[1]);
                pairs[pair >> 6] |= 1 << (pair & 63);
            }
        }
        let value = |index: u32| values[index as usize].1.as_bytes();
        grouped.sort_unstable_by(|a, b| {
            (a.0, value(a.1))
                .cmp(&(b.0, value(b.1)))
                .then(b.1.cmp(&a.1))
        });
        let mut by_word: rustc_hash::FxHashMap<u64, (u32, u32)> = Default::default();
        for (at, (hash, _)) in grouped.iter().enumerate() {
            let group = by_word.entry(*hash).or_insert((at as u32, at as u32));
            group.1 = at as u32 + 1;
        }
        let sorted = grouped.into_iter().map(|(_, index)| index).collect();
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
            values,
            sorted,
            by_word,
            word_lengths,
            pairs,
            others,
        }
    }

    /// The longest value of `group` (indices sorted by value) that `rest` starts with. The largest
    /// value not above `rest` is that value when `rest` starts with it; otherwise any value `rest`
    /// starts with is no longer than what the two have in common, and the search goes on below that.
    fn longest_prefix(&self, group: &[u32], rest: &[u8]) -> Option<usize> {
        let mut limit = rest;
        loop {
            let at =
                group.partition_point(|&index| self.values[index as usize].1.as_bytes() <= limit);
            let index = *group.get(at.checked_sub(1)?)? as usize;
            let value = self.values[index].1.as_bytes();
            if rest.starts_with(value) {
                return Some(index);
            }
            let common = value.iter().zip(rest).take_while(|(a, b)| a == b).count();
            if common == 0 {
                return None;
            }
            limit = &rest[..common];
        }
    }

    /// Whether `value` is among the values, as `ty` (`values` is sorted).
    pub(super) fn contains(&self, ty: PiiType, value: &str) -> bool {
        self.values
            .binary_search_by(|(t, v)| (*t, v.as_str()).cmp(&(ty, value)))
            .is_ok()
    }

    /// Each occurrence of a value in `text` that starts a word: (start, end, type), left to right,
    /// the longest value at a position, none inside another.
    pub(super) fn find(&self, text: &str, mut found: impl FnMut(usize, usize, PiiType)) {
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
            let Some(&(from, to)) = self.by_word.get(&word_hash(&b[start..end])) else {
                continue;
            };
            let group = &self.sorted[from as usize..to as usize];
            if let Some(index) = self.longest_prefix(group, &b[start..]) {
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

/// A name found once (behind a label, in a name column) is a name everywhere in the document, and a
/// value the document itself declares (see [`Known`]) is masked wherever it occurs.
/// Values worth propagating: trimmed, long enough (names 5 characters, others 4), sorted, deduplicated.
pub(super) fn matchable<'a>(
    values: impl Iterator<Item = (PiiType, &'a str)>,
) -> Vec<(PiiType, &'a str)> {
    // A name recurs on many lines: the copies are dropped by hashing first, and only the distinct
    // values sorted (sorting them all compared the same strings over and over).
    let mut seen = rustc_hash::FxHashSet::default();
    let mut values: Vec<(PiiType, &str)> = values
        .map(|(ty, value)| (ty, value.trim()))
        .filter(|&(ty, value)| worth_propagating(ty, value) && seen.insert((ty, value)))
        .collect();
    values.sort_unstable();
    values.dedup_by(|a, b| a.1 == b.1);
    values
}

/// Long enough to be propagated: names five characters, other values four (a trimmed value).
fn worth_propagating(ty: PiiType, value: &str) -> bool {
    value.chars().count() >= if ty == PiiType::PersonName { 5 } else { 4 }
}
