//! The context keywords as a trie walked from word starts: ASCII case-insensitive; at each word start
//! the longest keyword starting there, and none starting inside a keyword already found (the test below
//! holds it to the `aho-corasick` crate's anchored leftmost-longest answers at the same word starts).
//!
//! A keyword only counts at the start of a word, so there is no need to follow every byte through an
//! Aho-Corasick automaton (one dependent table load per byte, the scanner's largest single cost on a
//! number-dense text): the walk goes from word start to word start (64 bytes at a time), turns away
//! the word starts whose first three bytes begin no keyword with one look-up in a 4 KB bit table, and
//! steps down the trie only at the few others.

/// Patterns are matched on bytes with ASCII letters folded to lower case.
pub struct Automaton {
    /// Byte -> class: one class per distinct (folded) byte of the patterns, 0 for every other byte.
    classes: [u8; 256],
    /// `row + class` -> the next state's row (`state * stride`); row 0 is the dead state.
    next: Vec<u32>,
    /// States from this one on (times `stride`) end at least one pattern.
    first_match: u32,
    stride: usize,
    /// For each matching state (`state - first_match`): the first pattern ending there.
    outputs: Vec<u32>,
    /// Bytes that begin some pattern.
    first: [bool; 256],
    /// Bytes after which a word starts (neither a word byte nor '_', which joins placeholder words).
    boundary: [bool; 256],
    /// Every pattern begins with a word byte: the search may then go from word start to word start.
    word_first: bool,
    /// Some pattern begins with an ASCII digit (otherwise the words that do are passed over).
    digit_first: bool,
    /// Bit [`trigram`] of the [`TRIGRAM_CODE`]s of a pattern's first three bytes (of its first two and
    /// any third for a pattern of two bytes): a word start whose three bytes have no bit set begins no
    /// pattern. One look-up in a table of 4 KB turns away nearly every word start ("teslim", "tarih",
    /// "kapsam"), where the trie's first two steps let through all those that begin like a keyword ("te"
    /// of "tel", "ta" of "tax id"); the codes are lossy, so what passes is still walked down the trie.
    trigrams: Box<[u64; 512]>,
}

/// Five bits per byte for the trigram filter: ASCII letters case-folded to 1-26, digits 27, the space
/// 28, other ASCII punctuation 29, bytes of multi-byte characters 30 or 31 (by their lowest bit), the
/// control bytes 0. Different bytes may share a code (a false alarm, settled by the trie), but a byte
/// and its ASCII case partner always do.
static TRIGRAM_CODE: [u8; 256] = {
    let mut table = [0u8; 256];
    let mut b = 0usize;
    while b < 256 {
        let byte = b as u8;
        table[b] = if byte.is_ascii_alphabetic() {
            byte.to_ascii_lowercase() - b'a' + 1
        } else if byte.is_ascii_digit() {
            27
        } else if byte == b' ' {
            28
        } else if byte.is_ascii_punctuation() {
            29
        } else if byte >= 0x80 {
            30 + (byte & 1)
        } else {
            0
        };
        b += 1;
    }
    table
};

fn trigram(c0: u8, c1: u8, c2: u8) -> usize {
    usize::from(c0) << 10 | usize::from(c1) << 5 | usize::from(c2)
}

const NONE: u32 = u32::MAX;
/// The root's row: state 1 (state 0 is dead).
const ROOT: u32 = 1;

impl Automaton {
    /// `None` when a pattern is shorter than two bytes (the search relies on that) or the patterns
    /// need more than `u16` states (the keyword list needs a few thousand).
    pub fn new<P: AsRef<[u8]>>(patterns: &[P]) -> Option<Automaton> {
        if patterns.iter().any(|p| p.as_ref().len() < 2) {
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
        // The trie: state 0 dead, state 1 the root; a missing transition leads to the dead state.
        let mut trie: Vec<u32> = vec![0; 2 * stride];
        let mut ends: Vec<u32> = vec![NONE, NONE];
        for (id, pattern) in patterns.iter().enumerate() {
            let mut state = ROOT as usize;
            for &byte in pattern.as_ref() {
                let class = usize::from(classes[usize::from(byte)]);
                if trie[state * stride + class] == 0 {
                    let new = ends.len();
                    trie.extend(std::iter::repeat_n(0, stride));
                    ends.push(NONE);
                    trie[state * stride + class] = u32::try_from(new).ok()?;
                }
                state = trie[state * stride + class] as usize;
            }
            if ends[state] == NONE {
                ends[state] = u32::try_from(id).ok()?;
            }
        }
        let states = ends.len();
        if states >= usize::from(u16::MAX) {
            return None;
        }
        // Renumber: dead and root first, states without a pattern ending next, matching states last.
        let (plain, matching): (Vec<usize>, Vec<usize>) =
            (2..states).partition(|&state| ends[state] == NONE);
        let first_state = states - matching.len();
        let order: Vec<usize> = [0, 1].into_iter().chain(plain).chain(matching).collect();
        let mut number = vec![0u32; states];
        for (new, &old) in order.iter().enumerate() {
            number[old] = u32::try_from(new).ok()?;
        }
        let width = u32::try_from(stride).ok()?;
        let mut next = vec![0u32; states * stride];
        for &old in &order {
            let new = number[old] as usize;
            for class in 0..stride {
                next[new * stride + class] = number[trie[old * stride + class] as usize] * width;
            }
        }
        let outputs = order[first_state..].iter().map(|&old| ends[old]).collect();
        let mut first = [false; 256];
        let mut boundary = [false; 256];
        for byte in 0..=255u8 {
            let class = usize::from(classes[usize::from(byte)]);
            first[usize::from(byte)] = class != 0 && trie[ROOT as usize * stride + class] != 0;
            boundary[usize::from(byte)] = !super::text::is_word_byte(byte) && byte != b'_';
        }
        let word_first =
            (0..=255u8).all(|b| !first[usize::from(b)] || super::text::is_word_byte(b));
        let mut trigrams = Box::new([0u64; 512]);
        for pattern in patterns {
            let p = pattern.as_ref();
            let (c0, c1) = (
                TRIGRAM_CODE[usize::from(p[0])],
                TRIGRAM_CODE[usize::from(p[1])],
            );
            let thirds = match p.get(2) {
                Some(&third) => {
                    let code = TRIGRAM_CODE[usize::from(third)];
                    code..=code
                }
                None => 0..=31,
            };
            for c2 in thirds {
                let bit = trigram(c0, c1, c2);
                trigrams[bit / 64] |= 1 << (bit % 64);
            }
        }
        let digit_first = patterns.iter().any(|p| p.as_ref()[0].is_ascii_digit());
        Some(Automaton {
            word_first,
            digit_first,
            trigrams,
            classes,
            next,
            first_match: u32::try_from(first_state).ok()? * width,
            stride,
            outputs,
            first,
            boundary,
        })
    }

    /// The longest pattern starting at `start`: its end and id.
    #[inline(never)]
    fn longest(&self, text: &[u8], start: usize) -> Option<(usize, u32)> {
        let (next, classes) = (&self.next[..], &self.classes);
        let mut row = ROOT * self.stride as u32;
        let mut best = None;
        for (offset, &byte) in text[start..].iter().enumerate() {
            row = next[row as usize + usize::from(classes[usize::from(byte)])];
            if row == 0 {
                break;
            }
            if row >= self.first_match {
                let state = ((row - self.first_match) as usize) / self.stride;
                best = Some((start + offset + 1, self.outputs[state]));
            }
        }
        best
    }

    /// The patterns starting at the start of `words` and after each of its spaces (a key's or a
    /// header's words, [`super::text::key_words`]), as [`Self::find_at_word_starts`] gives them: the
    /// few word starts of a short string need none of its block machinery.
    pub fn find_after_spaces(&self, words: &[u8], out: &mut Vec<(usize, usize, u32)>) {
        out.clear();
        let mut at = 0;
        while at < words.len() {
            let found = if self.first[usize::from(words[at])] {
                self.longest(words, at)
            } else {
                None
            };
            let from = match found {
                Some((end, id)) => {
                    out.push((at, end, id));
                    end
                }
                None => at,
            };
            match memchr::memchr(b' ', &words[from..]) {
                Some(space) => at = from + space + 1,
                None => break,
            }
        }
    }

    /// The patterns starting at word starts inside `from..to` (a word start at `from` is judged by the
    /// byte before it), as (start, end, pattern) in order: at each word start the longest, of equal
    /// ones the pattern added first, and no word start inside a pattern already found. A match may end
    /// after `to`.
    pub fn find_at_word_starts(
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
        let (first, boundary) = (&self.first, &self.boundary);
        let (next, classes) = (&self.next[..], &self.classes);
        let root = ROOT as usize * self.stride;
        // Every keyword has at least two bytes: the second step of the trie turns away most word
        // starts ("ve", "ta", "ka"...) before a call (where the three bytes of the trigram filter are
        // not there, and in the byte-by-byte search).
        let two_steps = |at: usize| {
            text.get(at + 1).is_some_and(|&second| {
                let row = next[root + usize::from(classes[usize::from(text[at])])];
                next[row as usize + usize::from(classes[usize::from(second)])] != 0
            })
        };
        let trigrams = &*self.trigrams;
        let three_steps = |at: usize| match text.get(at..at + 3) {
            Some(&[b0, b1, b2]) => {
                let bit = trigram(
                    TRIGRAM_CODE[usize::from(b0)],
                    TRIGRAM_CODE[usize::from(b1)],
                    TRIGRAM_CODE[usize::from(b2)],
                );
                trigrams[bit / 64] & (1 << (bit % 64)) != 0
            }
            _ => two_steps(at),
        };
        if self.word_first {
            let mut after = from;
            let starts = if self.digit_first {
                super::text::word_starts(text, from, to)
            } else {
                super::text::word_starts_but_digits(text, from, to)
            };
            for at in starts {
                // A word start follows a byte that is no word byte; it must also be a boundary ('_').
                if at < after
                    || !three_steps(at)
                    || (at > 0 && !boundary[usize::from(text[at - 1])])
                {
                    continue;
                }
                if let Some((end, id)) = self.longest(text, at) {
                    out.push((at, end, id));
                    after = end;
                }
            }
            return;
        }
        // Position `i + 1` starts a word when byte `i` is a boundary: one look-up per byte, the second
        // only after a boundary (about one byte in seven of prose).
        let mut i = if from == 0 {
            if first[usize::from(text[0])] {
                if let Some((end, id)) = self.longest(text, 0) {
                    out.push((0, end, id));
                }
            }
            match out.first() {
                Some(&(_, end, _)) => end - 1,
                None => 0,
            }
        } else {
            from - 1
        };
        while i + 1 < to {
            if boundary[usize::from(text[i])] && first[usize::from(text[i + 1])] && two_steps(i + 1)
            {
                if let Some((end, id)) = self.longest(text, i + 1) {
                    out.push((i + 1, end, id));
                    i = end - 1;
                    continue;
                }
            }
            i += 1;
        }
    }
}

#[cfg(test)]
pub(super) mod tests {
    use super::*;
    use aho_corasick::{AhoCorasick, AhoCorasickBuilder, Anchored, Input, MatchKind, StartKind};

    /// The `aho-corasick` crate configured as [`Automaton`] claims to behave at each word start.
    pub(in crate::pii_masker::engine) fn oracle<P: AsRef<[u8]>>(patterns: &[P]) -> AhoCorasick {
        AhoCorasickBuilder::new()
            .ascii_case_insensitive(true)
            .match_kind(MatchKind::LeftmostLongest)
            .start_kind(StartKind::Anchored)
            .build(patterns)
            .expect("builds")
    }

    /// The oracle's matches at the word starts inside `text[from..to]`, as
    /// [`Automaton::find_at_word_starts`] gives them.
    pub(in crate::pii_masker::engine) fn oracle_matches(
        oracle: &AhoCorasick,
        text: &[u8],
        from: usize,
        to: usize,
    ) -> Vec<(usize, usize, u32)> {
        let mut found = Vec::new();
        let mut at = from;
        while at < to.min(text.len()) {
            let word_start = at == 0
                || !(crate::pii_masker::engine::text::is_word_byte(text[at - 1])
                    || text[at - 1] == b'_');
            if word_start {
                let input = Input::new(text)
                    .span(at..text.len())
                    .anchored(Anchored::Yes);
                if let Some(m) = oracle.find(input) {
                    found.push((m.start(), m.end(), m.pattern().as_u32()));
                    at = m.end();
                    continue;
                }
            }
            at += 1;
        }
        found
    }

    #[test]
    fn matches_at_word_starts_like_the_aho_corasick_crate() {
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
            b"ab",
            b"abc",
            b"bcd",
            b"cd",
        ];
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
            let alphabet = b"abcdtelfonkimLIK .#/4_(";
            texts.push(
                (0..len)
                    .map(|_| alphabet[rng.below(alphabet.len() as u64) as usize])
                    .collect(),
            );
        }
        // Patterns that all begin with a word byte are searched word start by word start; one that
        // begins with another byte ("(tel") sends the search through every byte.
        let mut with_punctuation = patterns.clone();
        with_punctuation.push(b"(tel");
        for patterns in [patterns, with_punctuation] {
            let automaton = Automaton::new(&patterns).expect("builds");
            assert_eq!(automaton.word_first, patterns.iter().all(|p| p[0] != b'('));
            let expected = oracle(&patterns);
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
                    automaton.find_at_word_starts(text, from, to, &mut out);
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
}
