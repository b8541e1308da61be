//! Byte-level helpers for the scanner: character classes, separators inside numbers, full-width digits,
//! and the Turkish-aware folding used for keyword matching.

/// Class bits of the scanner's dispatch table.
pub const DIGIT: u8 = 1;
pub const UPPER: u8 = 2;
pub const AT: u8 = 4;
pub const COLON: u8 = 8;
pub const OPEN: u8 = 16; // '[' (mask tokens), '+', '(' (phones)
pub const LEAD: u8 = 32; // UTF-8 lead bytes of Turkish capitals and full-width digits

pub static CLASS: [u8; 256] = {
    let mut table = [0u8; 256];
    let mut b = b'0';
    while b <= b'9' {
        table[b as usize] = DIGIT;
        b += 1;
    }
    let mut b = b'A';
    while b <= b'Z' {
        table[b as usize] = UPPER;
        b += 1;
    }
    table[b'@' as usize] = AT;
    table[b':' as usize] = COLON;
    table[b'[' as usize] = OPEN;
    table[b'+' as usize] = OPEN;
    table[b'(' as usize] = OPEN;
    table[0xC3] = LEAD;
    table[0xC4] = LEAD;
    table[0xC5] = LEAD;
    table[0xEF] = LEAD;
    table
};

/// The value of an ASCII or full-width digit at `i`, and its length in bytes.
#[inline]
pub fn digit_at(b: &[u8], i: usize) -> Option<(u8, usize)> {
    let c = *b.get(i)?;
    if c.is_ascii_digit() {
        return Some((c, 1));
    }
    if c == 0xEF && b.get(i + 1) == Some(&0xBC) {
        if let Some(&third) = b.get(i + 2) {
            if (0x90..=0x99).contains(&third) {
                return Some((b'0' + (third - 0x90), 3));
            }
        }
    }
    None
}

/// Length of a separator allowed inside a grouped number at `i` (0 when there is none): space, NBSP,
/// narrow and thin spaces, '.', '-', '/', Unicode dashes and minus, parentheses.
#[inline]
pub fn separator_at(b: &[u8], i: usize) -> usize {
    match b.get(i) {
        Some(b' ' | b'.' | b'-' | b'/' | b'(' | b')') => 1,
        Some(0xC2) if b.get(i + 1) == Some(&0xA0) => 2,
        Some(0xE2) => match (b.get(i + 1), b.get(i + 2)) {
            (Some(0x80), Some(0x89 | 0xAF | 0x90..=0x95)) => 3,
            (Some(0x88), Some(0x92)) => 3,
            _ => 0,
        },
        _ => 0,
    }
}

/// Bytes of the space at `i` that may stand between the words of a name or an address: a space, a
/// no-break space (U+00A0) or a narrow no-break space (U+202F), as word processors write them.
pub fn space_at(b: &[u8], i: usize) -> usize {
    match b.get(i) {
        Some(b' ') => 1,
        Some(0xC2) if b.get(i + 1) == Some(&0xA0) => 2,
        Some(0xE2) if b.get(i + 1) == Some(&0x80) && b.get(i + 2) == Some(&0xAF) => 3,
        _ => 0,
    }
}

/// Where the run of [`space_at`] spaces starting at `i` ends.
pub fn after_spaces(b: &[u8], mut i: usize) -> usize {
    loop {
        let space = space_at(b, i);
        if space == 0 {
            return i;
        }
        i += space;
    }
}

/// Where the run of [`space_before`] spaces ending at `i` starts.
pub fn before_spaces(b: &[u8], mut i: usize) -> usize {
    loop {
        let space = space_before(b, i);
        if space == 0 {
            return i;
        }
        i -= space;
    }
}

/// [`space_at`] for the space that ends just before `i`.
pub fn space_before(b: &[u8], i: usize) -> usize {
    if i >= 1 && b[i - 1] == b' ' {
        1
    } else if i >= 2 && b[i - 2..i] == [0xC2, 0xA0] {
        2
    } else if i >= 3 && b[i - 3..i] == [0xE2, 0x80, 0xAF] {
        3
    } else {
        0
    }
}

/// Bytes that continue a word, as a table: one load per byte in the loops that walk whole texts word by
/// word (known values, propagation) instead of three range tests.
static WORD: [bool; 256] = {
    let mut table = [false; 256];
    let mut c = 0;
    while c < 256 {
        let b = c as u8;
        table[c] = b.is_ascii_alphanumeric() || b >= 0x80;
        c += 1;
    }
    table
};

/// A byte that continues a word: an ASCII letter or digit, or any byte of a non-ASCII character.
#[inline]
pub fn is_word_byte(c: u8) -> bool {
    WORD[usize::from(c)]
}

const HIGH_BITS: u64 = 0x8080_8080_8080_8080;
const LOW_BITS: u64 = 0x0101_0101_0101_0101;

/// Bit 7 of each byte of `x` (eight bytes of text, the first in the lowest byte) set where that byte
/// continues a word, as [`is_word_byte`] says: range tests on eight bytes at once. Each test adds to
/// the byte's low seven bits a constant that sets bit 7 exactly at or past a bound, without a carry
/// into the next byte; a non-ASCII byte is a word byte by its own bit 7.
#[inline(always)]
fn word_bits(x: u64) -> u64 {
    let low = x & !HIGH_BITS;
    let at_least = |v: u64, bound: u8| v.wrapping_add(LOW_BITS * u64::from(0x80 - bound));
    let above = |v: u64, bound: u8| v.wrapping_add(LOW_BITS * u64::from(0x7f - bound));
    let digit = at_least(low, b'0') & !above(low, b'9');
    // Upper-case ASCII letters to lower case; no other byte lands in a..z by it.
    let folded = low | (LOW_BITS * 0x20);
    let letter = at_least(folded, b'a') & !above(folded, b'z');
    (x | digit | letter) & HIGH_BITS
}

/// The word starts in `from..to`, left to right: word bytes ([`is_word_byte`]) after one that is not
/// (the byte before `from` is looked at). Eight bytes at a time: the loops that walk a whole text word
/// by word (known values, context keywords) spent most of their time stepping over the bytes of words
/// one load at a time.
pub fn word_starts(b: &[u8], from: usize, to: usize) -> WordStarts<'_> {
    WordStarts {
        b,
        next: from,
        to: to.min(b.len()),
        base: from,
        starts: 0,
        previous: from > 0 && is_word_byte(b[from - 1]),
    }
}

pub struct WordStarts<'b> {
    b: &'b [u8],
    /// The next byte not yet looked at.
    next: usize,
    to: usize,
    /// The word starts found in the chunk at `base`, not yet answered (bit 7 of each byte).
    base: usize,
    starts: u64,
    /// Whether the byte before `next` continues a word.
    previous: bool,
}

impl Iterator for WordStarts<'_> {
    type Item = usize;

    #[inline(always)]
    fn next(&mut self) -> Option<usize> {
        loop {
            if self.starts != 0 {
                let at = self.base + (self.starts.trailing_zeros() as usize >> 3);
                self.starts &= self.starts - 1;
                return Some(at);
            }
            if self.next + 8 <= self.to {
                let mut chunk = [0u8; 8];
                chunk.copy_from_slice(&self.b[self.next..self.next + 8]);
                let words = word_bits(u64::from_le_bytes(chunk));
                self.starts = words & !((words << 8) | (u64::from(self.previous) << 7));
                self.previous = words >> 63 != 0;
                self.base = self.next;
                self.next += 8;
                continue;
            }
            while self.next < self.to {
                let at = self.next;
                let word = is_word_byte(self.b[at]);
                let start = word && !self.previous;
                self.previous = word;
                self.next += 1;
                if start {
                    return Some(at);
                }
            }
            return None;
        }
    }
}

#[inline]
pub fn is_alnum(c: u8) -> bool {
    c.is_ascii_alphanumeric()
}

/// True when the byte before `i` continues a word (ASCII alphanumeric or part of a non-ASCII letter).
#[inline]
pub fn word_before(b: &[u8], i: usize) -> bool {
    i > 0 && (b[i - 1].is_ascii_alphanumeric() || b[i - 1] >= 0x80 && !is_space_tail(b, i))
}

/// Whether the non-ASCII character ending at `i` is a space or dash (NBSP, thin spaces, dashes).
fn is_space_tail(b: &[u8], i: usize) -> bool {
    (i >= 2 && b[i - 2] == 0xC2 && b[i - 1] == 0xA0)
        || (i >= 3 && b[i - 3] == 0xE2 && (b[i - 2] == 0x80 || b[i - 2] == 0x88))
}

/// Turkish capital letters as UTF-8 (Ç Ğ İ Ö Ş Ü) at `i`: their byte length.
#[inline]
pub fn turkish_upper_at(b: &[u8], i: usize) -> usize {
    match (b.get(i), b.get(i + 1)) {
        (Some(0xC3), Some(0x87 | 0x96 | 0x9C)) => 2,
        (Some(0xC4), Some(0x9E | 0xB0)) => 2,
        (Some(0xC5), Some(0x9E)) => 2,
        _ => 0,
    }
}

/// Length of the letter at `i` (ASCII letter, or a two-byte Latin letter), 0 when it is not one.
#[inline]
pub fn letter_at(b: &[u8], i: usize) -> usize {
    match b.get(i) {
        Some(c) if c.is_ascii_alphabetic() => 1,
        Some(0xC3..=0xC5) if b.get(i + 1).is_some_and(|n| (0x80..=0xBF).contains(n)) => 2,
        _ => 0,
    }
}

/// Is the letter at `i` upper-case (ASCII or Turkish capital)?
#[inline]
pub fn upper_at(b: &[u8], i: usize) -> bool {
    b.get(i).is_some_and(u8::is_ascii_uppercase) || turkish_upper_at(b, i) > 0
}

/// Appends `src` folded for keyword matching: ASCII lower case, Turkish and common Latin letters
/// reduced to their ASCII base (İ, I, ı and i all become `i`), the combining dot dropped, no-break
/// spaces (U+00A0, U+202F) made plain spaces ("Ad Soyad:" typed with one is still a label). Other
/// bytes are copied.
pub fn fold_into(src: &[u8], out: &mut Vec<u8>) {
    let mut i = 0;
    while i < src.len() {
        let c = src[i];
        if c < 0x80 {
            out.push(c.to_ascii_lowercase());
            i += 1;
            continue;
        }
        let next = src.get(i + 1).copied().unwrap_or(0);
        let folded = match (c, next) {
            (0xC2, 0xA0) => Some(b' '),
            (0xE2, 0x80) if src.get(i + 2) == Some(&0xAF) => {
                out.push(b' ');
                i += 3;
                continue;
            }
            (0xC3, 0x87 | 0xA7) => Some(b'c'),
            (0xC4, 0x9E | 0x9F) => Some(b'g'),
            (0xC4, 0xB0 | 0xB1) => Some(b'i'),
            (0xC3, 0x96 | 0xB6) => Some(b'o'),
            (0xC5, 0x9E | 0x9F) => Some(b's'),
            (0xC3, 0x9C | 0xBC) => Some(b'u'),
            (0xC3, 0xA9 | 0xA8 | 0xAA | 0xAB | 0x89) => Some(b'e'),
            (0xC3, 0xA4 | 0xA0 | 0xA1 | 0xA2 | 0x84) => Some(b'a'),
            (0xC3, 0x9F) => Some(b's'),
            (0xCC, 0x87) => None, // combining dot above (from a lower-cased İ): dropped
            _ => {
                out.push(c);
                i += 1;
                continue;
            }
        };
        if let Some(letter) = folded {
            out.push(letter);
        }
        i += 2;
    }
}

/// Folds a whole string (for building keyword tables and gazetteers).
pub fn fold(text: &str) -> Vec<u8> {
    let mut out = Vec::with_capacity(text.len());
    fold_into(text.as_bytes(), &mut out);
    out
}

/// The largest char boundary at or below `i`.
pub fn floor_boundary(text: &str, mut i: usize) -> usize {
    i = i.min(text.len());
    while i > 0 && !text.is_char_boundary(i) {
        i -= 1;
    }
    i
}

/// The smallest char boundary at or above `i`.
pub fn ceil_boundary(text: &str, mut i: usize) -> usize {
    while i < text.len() && !text.is_char_boundary(i) {
        i += 1;
    }
    i.min(text.len())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every byte value, at every offset of a chunk, against the one-byte-at-a-time definition; and the
    /// skipping a caller asks for.
    #[test]
    fn word_starts_eight_bytes_at_a_time_agree_with_the_byte_loop() {
        let reference = |b: &[u8], from: usize, to: usize, skip: usize| {
            let mut starts = Vec::new();
            let mut wanted = from;
            for at in from..to.min(b.len()) {
                let before = at > 0 && is_word_byte(b[at - 1]);
                if is_word_byte(b[at]) && !before && at >= wanted {
                    starts.push(at);
                    wanted = at + skip;
                }
            }
            starts
        };
        let mut texts: Vec<Vec<u8>> = (0..=255u8)
            .map(|byte| {
                let mut text = b"ab cd-12 x".to_vec();
                text.insert(usize::from(byte) % 9, byte);
                text.extend([byte, b' ', byte, byte, b'.', b'Z']);
                text
            })
            .collect();
        texts.push(
            "Şirket: Ayşe Yılmaz, T.C. 10000000146; e-posta a_b@c.com\n\n[MASKED_IBAN]".into(),
        );
        for text in &texts {
            for from in 0..text.len().min(11) {
                for to in [text.len(), text.len().saturating_sub(3), from + 9] {
                    for skip in [1, 2, 7] {
                        let mut starts = Vec::new();
                        let mut wanted = from;
                        for at in word_starts(text, from, to) {
                            if at >= wanted {
                                starts.push(at);
                                wanted = at + skip;
                            }
                        }
                        assert_eq!(
                            starts,
                            reference(text, from, to, skip),
                            "{text:?} {from}..{to}"
                        );
                    }
                }
            }
        }
    }

    #[test]
    fn turkish_folding_unifies_dotted_and_dotless_i() {
        assert_eq!(
            fold("İSTANBUL Kimliği IBAN'ı ılık"),
            b"istanbul kimligi iban'i ilik".to_vec()
        );
        assert_eq!(fold(&"İ".to_lowercase()), b"i".to_vec());
        assert_eq!(fold("ŞÇĞÜÖ şçğüö"), b"scguo scguo".to_vec());
    }

    #[test]
    fn digits_and_separators() {
        assert_eq!(digit_at("５".as_bytes(), 0), Some((b'5', 3)));
        assert_eq!(separator_at("\u{a0}".as_bytes(), 0), 2);
        assert_eq!(separator_at("\u{2013}".as_bytes(), 0), 3);
        assert_eq!(separator_at("\u{2212}".as_bytes(), 0), 3);
        assert_eq!(separator_at(b"x", 0), 0);
    }
}
