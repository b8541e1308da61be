//! Byte-level helpers for the scanner: character classes, separators inside numbers, full-width digits,
//! and the Turkish-aware folding used for keyword matching.

/// Class bits of the scanner's dispatch table.
pub const DIGIT: u8 = 1;
pub const UPPER: u8 = 2;
pub const AT: u8 = 4;
pub const COLON: u8 = 8;
pub const OPEN: u8 = 16; // '[' (mask tokens), '+', '(' (phones), '=' (keys)
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
    table[b'=' as usize] = OPEN;
    table[0xC3] = LEAD;
    table[0xC4] = LEAD;
    table[0xC5] = LEAD;
    table[0xC8] = LEAD;
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

/// Bit k set where byte k of a block of 64 continues a word, as [`is_word_byte`] says. The tests are
/// written with non-short-circuit operators on a byte array, which the compiler turns into vector
/// compares; eight 0/1 bytes then become eight bits by one multiplication, which moves byte j's bit
/// to bit 56 + j with no two products on one bit (so no carries).
#[inline(always)]
fn word_mask(block: &[u8]) -> u64 {
    let mut flags = [0u8; 64];
    for (flag, &c) in flags.iter_mut().zip(block) {
        // Non-ASCII, a digit, or a letter (`| 0x20` lower-cases A-Z and lands no other byte in a-z).
        *flag = u8::from(
            (c >= 0x80) | (c.wrapping_sub(b'0') < 10) | ((c | 0x20).wrapping_sub(b'a') < 26),
        );
    }
    flag_bits(&flags)
}

/// Bit k set where byte k of a block of 64 is an ASCII digit (as [`word_mask`] is built).
#[inline(always)]
fn digit_mask(block: &[u8]) -> u64 {
    let mut flags = [0u8; 64];
    for (flag, &c) in flags.iter_mut().zip(block) {
        *flag = u8::from(c.wrapping_sub(b'0') < 10);
    }
    flag_bits(&flags)
}

/// 64 bytes of 0 or 1 as the bits of a word.
#[inline(always)]
fn flag_bits(flags: &[u8; 64]) -> u64 {
    let mut words = 0u64;
    for (j, eight) in flags.chunks_exact(8).enumerate() {
        let mut bytes = [0u8; 8];
        bytes.copy_from_slice(eight);
        words |= (u64::from_le_bytes(bytes).wrapping_mul(0x0102_0408_1020_4080) >> 56) << (8 * j);
    }
    words
}

/// The word starts in `from..to`, left to right: word bytes ([`is_word_byte`]) after one that is not
/// (the byte before `from` is looked at). 64 bytes at a time, as a bit mask: the loops that walk a
/// whole text word by word (known values, context keywords) spent most of their time stepping over
/// the bytes of words one load at a time, and then (eight bytes at a time) deciding for each eight
/// whether it held a word start; a block of 64 holds some ten.
pub fn word_starts(b: &[u8], from: usize, to: usize) -> WordStarts<'_> {
    WordStarts {
        b,
        next: from,
        to: to.min(b.len()),
        base: from,
        starts: 0,
        previous: from > 0 && is_word_byte(b[from - 1]),
        digits: true,
    }
}

/// [`word_starts`] without the words that start with an ASCII digit (for a search whose patterns all
/// begin otherwise: in a text dense with numbers, half its word starts are digits).
pub fn word_starts_but_digits(b: &[u8], from: usize, to: usize) -> WordStarts<'_> {
    WordStarts {
        digits: false,
        ..word_starts(b, from, to)
    }
}

pub struct WordStarts<'b> {
    b: &'b [u8],
    /// The next byte not yet looked at.
    next: usize,
    to: usize,
    /// The word starts found in the block at `base`, not yet answered (bit k for byte `base + k`).
    base: usize,
    starts: u64,
    /// Whether the byte before `next` continues a word.
    previous: bool,
    /// Whether a word starting with an ASCII digit is answered.
    digits: bool,
}

impl Iterator for WordStarts<'_> {
    type Item = usize;

    #[inline(always)]
    fn next(&mut self) -> Option<usize> {
        loop {
            if self.starts != 0 {
                let at = self.base + self.starts.trailing_zeros() as usize;
                self.starts &= self.starts - 1;
                return Some(at);
            }
            if self.next + 64 <= self.to {
                let block = &self.b[self.next..self.next + 64];
                let words = word_mask(block);
                self.starts = words & !((words << 1) | u64::from(self.previous));
                if !self.digits {
                    self.starts &= !digit_mask(block);
                }
                self.previous = words >> 63 != 0;
                self.base = self.next;
                self.next += 64;
                continue;
            }
            while self.next < self.to {
                let at = self.next;
                let word = is_word_byte(self.b[at]);
                let start = word && !self.previous && (self.digits || !self.b[at].is_ascii_digit());
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

/// The two-byte Latin letters U+00C0..U+017F (lead bytes 0xC3..0xC5, Latin-1's and Latin
/// Extended-A's: Turkish, Nordic, Polish, Czech, French, Spanish...): each one's ASCII base letter (0
/// for the few that have none: `×`, `÷`, `Æ`, `Þ`, `Œ`, `Ĳ`), with 0x80 set for a capital.
static LATIN: [u8; 192] = latin_table();

const fn latin_table() -> [u8; 192] {
    let mut table = [0u8; 192];
    let mut k = 0;
    while k < 192 {
        let cp = 0xC0 + k as u32;
        let base = match cp {
            0xC0..=0xC5 | 0xE0..=0xE5 | 0x100..=0x105 => b'a',
            0xC7 | 0xE7 | 0x106..=0x10D => b'c',
            0xD0 | 0xF0 | 0x10E..=0x111 => b'd',
            0xC8..=0xCB | 0xE8..=0xEB | 0x112..=0x11B => b'e',
            0x11C..=0x123 => b'g',
            0x124..=0x127 => b'h',
            0xCC..=0xCF | 0xEC..=0xEF | 0x128..=0x131 => b'i',
            0x134..=0x135 => b'j',
            0x136..=0x138 => b'k',
            0x139..=0x142 => b'l',
            0xD1 | 0xF1 | 0x143..=0x14B => b'n',
            0xD2..=0xD6 | 0xD8 | 0xF2..=0xF6 | 0xF8 | 0x14C..=0x151 => b'o',
            0x154..=0x159 => b'r',
            0xDF | 0x15A..=0x161 | 0x17F => b's',
            0x162..=0x167 => b't',
            0xD9..=0xDC | 0xF9..=0xFC | 0x168..=0x173 => b'u',
            0x174..=0x175 => b'w',
            0xDD | 0xFD | 0xFF | 0x176..=0x178 => b'y',
            0x179..=0x17E => b'z',
            _ => 0,
        };
        let upper = match cp {
            0xC0..=0xDE => cp != 0xD7,
            0x100..=0x137 | 0x14A..=0x177 => cp % 2 == 0,
            0x139..=0x148 | 0x179..=0x17E => cp % 2 == 1,
            0x178 => true,
            _ => false,
        };
        table[k] = base | if upper { 0x80 } else { 0 };
        k += 1;
    }
    table
}

/// The [`LATIN`] entry of the two bytes `lead`, `next`: 0 when they are no two-byte Latin letter.
#[inline(always)]
fn latin(lead: u8, next: u8) -> u8 {
    if (0xC3..=0xC5).contains(&lead) && (0x80..=0xBF).contains(&next) {
        LATIN[(usize::from(lead - 0xC3) << 6) | usize::from(next & 0x3F)]
    } else if lead == 0xC8 {
        // Romanian's comma-below letters of Latin Extended-B: Ș ș Ț ț (U+0218..U+021B).
        match next {
            0x98 => b's' | 0x80,
            0x99 => b's',
            0x9A => b't' | 0x80,
            0x9B => b't',
            _ => 0,
        }
    } else {
        0
    }
}

/// Length of the capital letter at `i` when it is a two-byte Latin one: Latin-1's (`À`..`Þ`: `Ç`, `Ö`,
/// `Ü`, `É`, `Ø`, `Å`) and Latin Extended-A's (`Ğ`, `İ`, `Ş`, `Ł`, `Ś`, `Ž`, `Č`), 0 otherwise.
#[inline]
pub fn latin_upper_at(b: &[u8], i: usize) -> usize {
    match (b.get(i), b.get(i + 1)) {
        (Some(&lead), Some(&next)) if latin(lead, next) & 0x80 != 0 => 2,
        _ => 0,
    }
}

/// Length of the letter at `i` (ASCII letter, or a two-byte Latin, Greek or Cyrillic letter), 0 when
/// it is not one.
#[inline]
pub fn letter_at(b: &[u8], i: usize) -> usize {
    match b.get(i) {
        Some(c) if c.is_ascii_alphabetic() => 1,
        Some(0xC3..=0xC5) if b.get(i + 1).is_some_and(|n| (0x80..=0xBF).contains(n)) => 2,
        Some(0xC8) if b.get(i + 1).is_some_and(|n| (0x98..=0x9B).contains(n)) => 2,
        Some(&lead @ 0xCE..=0xD1) => {
            usize::from(
                b.get(i + 1)
                    .is_some_and(|&next| greek_cyrillic(lead, next).is_some()),
            ) * 2
        }
        _ => 0,
    }
}

/// A Greek or Cyrillic letter as two UTF-8 bytes (Greek U+0386..U+03CE, the Cyrillic of Bulgarian and
/// the other Slavic languages U+0400..U+045F): whether it is a capital; `None` for anything else.
#[inline]
fn greek_cyrillic(lead: u8, next: u8) -> Option<bool> {
    match (lead, next) {
        // Ά, Έ..Ώ (not the ano teleia U+0387), Α..Ω (U+03A2 is unassigned).
        (0xCE, 0x86 | 0x88..=0x8A | 0x8C | 0x8E | 0x8F | 0x91..=0xA1 | 0xA3..=0xAB) => Some(true),
        (0xCE, 0x90 | 0xAC..=0xBF) | (0xCF, 0x80..=0x8E) => Some(false),
        (0xD0, 0x80..=0xAF) => Some(true),
        (0xD0, 0xB0..=0xBF) | (0xD1, 0x80..=0x9F) => Some(false),
        _ => None,
    }
}

/// Is the letter at `i` upper-case (ASCII, a two-byte Latin capital: Turkish, Nordic, Polish...; or a
/// Greek or Cyrillic capital)?
#[inline]
pub fn upper_at(b: &[u8], i: usize) -> bool {
    match b.get(i) {
        Some(c) if c.is_ascii() => c.is_ascii_uppercase(),
        Some(&lead @ (0xCE | 0xD0)) => b
            .get(i + 1)
            .is_some_and(|&next| greek_cyrillic(lead, next) == Some(true)),
        _ => latin_upper_at(b, i) > 0,
    }
}

/// Appends `src` folded for keyword matching: ASCII lower case, the letters of Latin-1 and Latin
/// Extended-A reduced to their ASCII base ([`LATIN`]: İ, I, ı and i all become `i`, Ł `l`, ñ `n`),
/// the combining dot dropped, no-break spaces (U+00A0, U+202F) made plain spaces ("Ad Soyad:" typed
/// with one is still a label). Other bytes are copied.
pub fn fold_into(src: &[u8], out: &mut Vec<u8>) {
    // Folding never lengthens the text: one reservation, and each run of ASCII bytes lower-cased in
    // one extension (the scanner folds every capitalised word and every label before a colon; a push
    // per byte, with its capacity check, was most of that cost, and a `memcpy` call for these short
    // runs more than the copy itself).
    if src.is_ascii() {
        // The usual word: its lower case, in one extension.
        out.extend(src.iter().map(u8::to_ascii_lowercase));
        return;
    }
    out.reserve(src.len());
    let mut i = 0;
    while i < src.len() {
        let ascii_end = src[i..]
            .iter()
            .position(|&c| c >= 0x80)
            .map_or(src.len(), |p| i + p);
        if ascii_end > i {
            out.extend(src[i..ascii_end].iter().map(u8::to_ascii_lowercase));
            i = ascii_end;
            continue;
        }
        let (folded, len) = fold_non_ascii(src, i);
        if let Some(letter) = folded {
            out.push(letter);
        }
        i += len;
    }
}

/// The fold of the non-ASCII byte at `src[i]` and what follows it: the byte it becomes (none for a
/// combining dot) and how many bytes it takes.
#[inline(always)]
fn fold_non_ascii(src: &[u8], i: usize) -> (Option<u8>, usize) {
    let c = src[i];
    let next = src.get(i + 1).copied().unwrap_or(0);
    let base = latin(c, next) & 0x7F;
    if base != 0 {
        return (Some(base), 2);
    }
    match (c, next) {
        (0xC2, 0xA0) => (Some(b' '), 2),
        (0xE2, 0x80) if src.get(i + 2) == Some(&0xAF) => (Some(b' '), 3),
        (0xCC, 0x87) => (None, 2), // combining dot above (from a lower-cased İ): dropped
        _ => (Some(c), 1),
    }
}

/// [`fold_into`] for a word of at most 40 bytes, into a buffer on the stack (see [`fold_short`]): the
/// length of its fold. One plain loop, where `fold_into` is made for long runs of ASCII and costs more
/// per short word.
fn fold_word(word: &[u8], out: &mut [u8; 40]) -> usize {
    if word.is_ascii() {
        // Most capitalised words: lower-cased in a loop the compiler vectorises.
        for (to, from) in out.iter_mut().zip(word) {
            *to = from.to_ascii_lowercase();
        }
        return word.len().min(out.len());
    }
    let mut n = 0;
    let mut i = 0;
    while i < word.len() && n < out.len() {
        let c = word[i];
        if c < 0x80 {
            out[n] = c.to_ascii_lowercase();
            n += 1;
            i += 1;
            continue;
        }
        let (folded, len) = fold_non_ascii(word, i);
        if let Some(letter) = folded {
            out[n] = letter;
            n += 1;
        }
        i += len;
    }
    n
}

/// The fold of `word`: by [`fold_word`] on `stack` when it has at most 40 bytes, else by [`fold_into`]
/// into `spill` (the same bytes either way). For the words looked up one by one.
pub fn fold_short<'a>(word: &[u8], stack: &'a mut [u8; 40], spill: &'a mut Vec<u8>) -> &'a [u8] {
    if word.len() <= stack.len() {
        let length = fold_word(word, stack);
        return &stack[..length];
    }
    spill.clear();
    fold_into(word, spill);
    spill
}

/// The most bytes of a field's key that [`key_words`] reads ("customer.person.family_name" has 27).
pub const KEY_MAX: usize = 48;

/// Whether `c` may stand in a field's key: an ASCII letter or digit, '_', '.', '-', or a byte of a
/// multi-byte letter ("doğum_tarihi").
#[inline]
pub fn key_byte(c: u8) -> bool {
    c.is_ascii_alphanumeric() || matches!(c, b'_' | b'.' | b'-') || c >= 0x80
}

/// The words of a field's key, folded as a label is ([`fold_into`]), into `out`: the key of a JSON
/// object, a YAML or INI line, a CSV header or a flattened path, written in snake, kebab, camel or
/// dotted case. `customer.person.first_name`, `firstName`, `date-of-birth`, `DOGUM_TARIHI` and
/// `TCKimlikNo` become "customer person first name", "first name", "date of birth", "dogum tarihi"
/// and "tc kimlik no": '_', '.' and '-' part words, and so does a capital after a lower-case letter
/// or a digit, a capital followed by a lower-case letter after another capital, and a digit after a
/// letter. Whether the key was written as one (with such a part) is returned.
pub fn key_words(key: &[u8], out: &mut Vec<u8>) -> bool {
    out.clear();
    out.reserve(2 * key.len());
    let mut parted = false;
    // The kind of the previous character: 0 none (a start or a separator), 1 a lower-case letter, 2 a
    // capital, 3 a digit.
    let mut previous = 0u8;
    let mut i = 0;
    while i < key.len() {
        let c = key[i];
        let (folded, len, kind) = if c.is_ascii_lowercase() {
            (Some(c), 1, 1)
        } else if c.is_ascii_uppercase() {
            (Some(c | 0x20), 1, 2)
        } else if c.is_ascii_digit() {
            (Some(c), 1, 3)
        } else if c >= 0x80 {
            let upper = latin_upper_at(key, i) > 0;
            let (folded, len) = fold_non_ascii(key, i);
            (folded, len, 1 + u8::from(upper))
        } else {
            if out.last().is_some_and(|&last| last != b' ') {
                out.push(b' ');
            }
            parted = true;
            previous = 0;
            i += 1;
            continue;
        };
        let boundary = match (previous, kind) {
            // "firstName", "address2Line"
            (1 | 3, 2) => true,
            // "TCKimlik": the last capital of a run begins the next word
            (2, 2) => key.get(i + len).is_some_and(|&n| {
                n.is_ascii_lowercase() || (n >= 0x80 && latin_upper_at(key, i + len) == 0)
            }),
            // "address1"
            (1 | 2, 3) => true,
            _ => false,
        };
        if boundary && out.last().is_some_and(|&last| last != b' ') {
            out.push(b' ');
            parted = true;
        }
        if let Some(letter) = folded {
            out.push(letter);
        }
        previous = kind;
        i += len;
    }
    while out.last() == Some(&b' ') {
        out.pop();
    }
    parted
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
mod tests;
