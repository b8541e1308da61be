//! A dense Aho-Corasick automaton for the context keywords: ASCII case-insensitive, reporting matches
//! leftmost-longest like the `aho-corasick` crate's (the test below holds it to that crate's answers).
//!
//! Written out because the keyword search runs over most of a number-dense text in every scan, and the
//! crate's search loop (behind a trait object, with its special-state checks) spent some 18
//! instructions per byte there; this one is one table load per byte into a table of `u16` states,
//! with the states that end a keyword numbered last so that one comparison tells them.

/// Patterns are matched on bytes with ASCII letters folded to lower case.
pub struct Automaton {
    /// Byte -> class: one class per distinct (folded) byte of the patterns, 0 for every other byte.
    classes: [u8; 256],
    /// `state * stride + class` -> next state, times `stride` (the start of its row).
    next: Vec<u32>,
    /// States from this one on (times `stride`) end at least one pattern.
    first_match: u32,
    stride: usize,
    /// For each matching state (`state - first_match`): the patterns ending there.
    outputs: Vec<Vec<u32>>,
    /// Pattern lengths in bytes.
    lengths: Vec<usize>,
}

const NONE: u32 = u32::MAX;

impl Automaton {
    /// `None` when the patterns need more than `u16` states (the keyword list needs a few thousand).
    pub fn new<P: AsRef<[u8]>>(patterns: &[P]) -> Option<Automaton> {
        if patterns.iter().any(|p| p.as_ref().is_empty()) {
            return None;
        }
        let mut classes = [0u8; 256];
        let mut count = 1usize;
        for pattern in patterns {
            for &byte in pattern.as_ref() {
                let byte = byte.to_ascii_lowercase();
                if classes[usize::from(byte)] == 0 {
                    classes[usize::from(byte)] = u8::try_from(count).ok()?;
                    count += 1;
                }
            }
        }
        for upper in b'A'..=b'Z' {
            classes[usize::from(upper)] = classes[usize::from(upper.to_ascii_lowercase())];
        }
        let stride = count;
        // The trie, then failure links breadth first, completing every missing transition.
        let mut trie: Vec<u32> = vec![NONE; stride];
        let mut own: Vec<Vec<u32>> = vec![Vec::new()];
        for (id, pattern) in patterns.iter().enumerate() {
            let mut state = 0usize;
            for &byte in pattern.as_ref() {
                let class = usize::from(classes[usize::from(byte)]);
                if trie[state * stride + class] == NONE {
                    let new = own.len();
                    trie.extend(std::iter::repeat_n(NONE, stride));
                    own.push(Vec::new());
                    trie[state * stride + class] = u32::try_from(new).ok()?;
                }
                state = trie[state * stride + class] as usize;
            }
            own[state].push(u32::try_from(id).ok()?);
        }
        let states = own.len();
        if states >= usize::from(u16::MAX) {
            return None;
        }
        let mut fail = vec![0usize; states];
        let mut outputs = own;
        let mut order = Vec::with_capacity(states);
        let mut queue = std::collections::VecDeque::new();
        for slot in &mut trie[..stride] {
            match *slot {
                NONE => *slot = 0,
                child => {
                    fail[child as usize] = 0;
                    queue.push_back(child as usize);
                }
            }
        }
        while let Some(state) = queue.pop_front() {
            order.push(state);
            let inherited = outputs[fail[state]].clone();
            outputs[state].extend(inherited);
            for class in 0..stride {
                let via_fail = trie[fail[state] * stride + class];
                match trie[state * stride + class] {
                    NONE => trie[state * stride + class] = via_fail,
                    child => {
                        fail[child as usize] = via_fail as usize;
                        queue.push_back(child as usize);
                    }
                }
            }
        }
        // Renumber: the root first, states without output next, matching states last.
        let (plain, matching): (Vec<usize>, Vec<usize>) = std::iter::once(0)
            .chain(order)
            .partition(|&state| outputs[state].is_empty());
        let mut number = vec![0u16; states];
        for (new, &old) in plain.iter().chain(&matching).enumerate() {
            number[old] = u16::try_from(new).ok()?;
        }
        let mut next = vec![0u32; states * stride];
        let width = u32::try_from(stride).ok()?;
        for old in 0..states {
            let new = usize::from(number[old]);
            for class in 0..stride {
                next[new * stride + class] =
                    u32::from(number[trie[old * stride + class] as usize]) * width;
            }
        }
        let lengths = patterns.iter().map(|p| p.as_ref().len()).collect();
        let outputs = matching
            .iter()
            .map(|&old| {
                let mut ids = std::mem::take(&mut outputs[old]);
                ids.sort_unstable();
                ids.dedup();
                ids
            })
            .collect();
        Some(Automaton {
            classes,
            stride,
            next,
            first_match: u32::try_from(plain.len()).ok()? * width,
            outputs,
            lengths,
        })
    }

    /// The patterns ending at `end` in the matching state whose row starts at `row`.
    #[inline(never)]
    fn record(&self, row: u32, end: usize, out: &mut Vec<(usize, usize, u32)>) {
        let state = ((row - self.first_match) as usize) / self.stride;
        for &id in &self.outputs[state] {
            out.push((end - self.lengths[id as usize], end, id));
        }
    }

    /// The non-overlapping leftmost-longest matches inside `text[from..to]` as (start, end, pattern),
    /// in order; of equal spans, the pattern added first.
    pub fn find_all(
        &self,
        text: &[u8],
        from: usize,
        to: usize,
        out: &mut Vec<(usize, usize, u32)>,
    ) {
        out.clear();
        let to = to.min(text.len());
        if from >= to {
            return;
        }
        let (next, classes, first_match) = (&self.next[..], &self.classes, self.first_match);
        let mut row = 0u32;
        for (offset, &byte) in text[from..to].iter().enumerate() {
            row = next[row as usize + usize::from(classes[usize::from(byte)])];
            if row >= first_match {
                self.record(row, from + offset + 1, out);
            }
        }
        // Every match was recorded; keep the leftmost-longest ones, left to right.
        out.sort_unstable_by(|a, b| a.0.cmp(&b.0).then(b.1.cmp(&a.1)).then(a.2.cmp(&b.2)));
        let mut kept = 0;
        let mut after = from;
        for index in 0..out.len() {
            let hit = out[index];
            if hit.0 >= after {
                out[kept] = hit;
                kept += 1;
                after = hit.1;
            }
        }
        out.truncate(kept);
    }
}

#[cfg(test)]
pub(super) mod tests {
    use super::*;
    use aho_corasick::{AhoCorasick, AhoCorasickBuilder, MatchKind};

    /// The `aho-corasick` crate configured as [`Automaton`] claims to behave.
    pub(in crate::pii_masker::engine) fn oracle<P: AsRef<[u8]>>(patterns: &[P]) -> AhoCorasick {
        AhoCorasickBuilder::new()
            .ascii_case_insensitive(true)
            .match_kind(MatchKind::LeftmostLongest)
            .build(patterns)
            .expect("builds")
    }

    /// The oracle's matches inside `text[from..to]`, as [`Automaton::find_all`] gives them.
    pub(in crate::pii_masker::engine) fn oracle_matches(
        oracle: &AhoCorasick,
        text: &[u8],
        from: usize,
        to: usize,
    ) -> Vec<(usize, usize, u32)> {
        oracle
            .find_iter(aho_corasick::Input::new(text).range(from..to))
            .map(|m| (m.start(), m.end(), m.pattern().as_u32()))
            .collect()
    }

    #[test]
    fn matches_leftmost_longest_like_the_aho_corasick_crate() {
        let patterns: Vec<&[u8]> = vec![
            b"tel",
            b"telefon",
            b"Tel",
            b"kimlik no",
            b"kimlik",
            b"imli",
            b"t.c. kimli",
            b"no",
            "doğum".as_bytes(),
            "DOĞUM".as_bytes(),
            b"vkn",
            b"4/b",
            b"dl#",
            b"a",
            b"ab",
            b"abc",
            b"bcd",
            b"c",
        ];
        let automaton = Automaton::new(&patterns).expect("builds");
        let expected = oracle(&patterns);
        let texts: Vec<Vec<u8>> = vec![
            b"Telefon: 0532, TEL 12, otel, T.C. Kimlik No 1".to_vec(),
            "DOĞUM tarihi, doğum yeri; Doğum".as_bytes().to_vec(),
            b"abcd abc ab a bcd xabcdx 4/B DL# vkn".to_vec(),
            b"".to_vec(),
            b"kimlik nokimlik no kimlik".to_vec(),
        ];
        let mut rng = super::super::synthetic::Rng::new(5);
        let mut texts = texts;
        for _ in 0..200 {
            let len = rng.below(60) as usize;
            let alphabet = b"abcdtelfonkimLIK .#/4";
            texts.push(
                (0..len)
                    .map(|_| alphabet[rng.below(alphabet.len() as u64) as usize])
                    .collect(),
            );
        }
        let mut out = Vec::new();
        for text in &texts {
            for (from, to) in [
                (0, text.len()),
                (1, text.len()),
                (0, text.len() / 2),
                (3, 9),
            ] {
                let (from, to) = (from.min(text.len()), to.min(text.len()));
                if from > to {
                    continue;
                }
                automaton.find_all(text, from, to, &mut out);
                assert_eq!(
                    out,
                    oracle_matches(&expected, text, from, to),
                    "{:?} {from}..{to}",
                    String::from_utf8_lossy(text)
                );
            }
        }
    }
}
