//! Byte-level shape helpers: separators, brackets, runs, extensions, dates' digit shapes. Imported by
//! every other room of the scanner; imports none of them.

use crate::pii_masker::detectors::generic;
use crate::pii_masker::engine::lexicon;
use crate::pii_masker::engine::text::{self, letter_at, upper_at};
use crate::pii_masker::engine::types::PiiType;

pub(super) const SEP_SPACE: u8 = 1;
pub(super) const SEP_DOT: u8 = 2;
pub(super) const SEP_DASH: u8 = 4;
pub(super) const SEP_SLASH: u8 = 8;
pub(super) const SEP_PAREN: u8 = 16;

pub(super) fn sep_kind(byte: u8) -> u8 {
    match byte {
        b' ' | 0xC2 => SEP_SPACE,
        b'.' => SEP_DOT,
        b'-' | 0xE2 => SEP_DASH,
        b'/' => SEP_SLASH,
        b'(' | b')' => SEP_PAREN,
        _ => 0,
    }
}

/// Moves `at` back over the spaces, tabs and line breaks before it.
pub(super) fn skip_spaces_back(b: &[u8], at: &mut usize) {
    while *at > 0 && matches!(b[*at - 1], b' ' | b'\t' | b'\n' | b'\r') {
        *at -= 1;
    }
}

/// The opening `open` ('{' or '[') before `at` that no bracket between them closes, no further back
/// than `floor`.
pub(super) fn unmatched_open(b: &[u8], mut at: usize, floor: usize, open: u8) -> Option<usize> {
    let mut depth = 0usize;
    while at > floor {
        at -= 1;
        match b[at] {
            b'}' | b']' => depth += 1,
            c if c == open && depth == 0 => return Some(at),
            b'{' | b'[' => depth = depth.saturating_sub(1),
            _ => {}
        }
    }
    None
}

/// `(word)` or `[word]` at `open`, for one of `words` (ASCII, any case): the position after the closing
/// bracket.
pub(super) fn bracketed(b: &[u8], open: usize, words: &[&[u8]]) -> Option<usize> {
    let close = match b.get(open)? {
        b'(' => b')',
        b'[' => b']',
        _ => return None,
    };
    words.iter().find_map(|word| {
        let inner = b.get(open + 1..open + 1 + word.len())?;
        (inner.eq_ignore_ascii_case(word) && b.get(open + 1 + word.len()) == Some(&close))
            .then_some(open + 2 + word.len())
    })
}

/// Bytes a mask token is looked for in (the longest placeholder has 30).
pub(super) const MASK_TOKEN_MAX: usize = 48;

/// A mask token at `i`, its name one of the 46 types' (upper case): its end. The tokens are the
/// masking operators': `[MASKED_<NAME>]` (placeholder), `[MASKED_<NAME>_<n>]` (numbered, n of at most
/// six digits, or `#` and twelve lower-case hex digits: numbered across a dataset) and
/// `[<NAME>_<12 lower-case hex digits, one a letter>]` (hash). A text's own
/// "[MASKED_10000000146]" is no placeholder, and its number is found; nor is "[PHONE_TR_905321234567]"
/// a hash token (no letter), nor a longer number behind a type's name.
pub(super) fn mask_token_end(b: &[u8], i: usize) -> Option<usize> {
    if b.get(i) != Some(&b'[') {
        return None;
    }
    let rest = &b[i + 1..b.len().min(i + MASK_TOKEN_MAX)];
    let close = memchr::memchr(b']', rest)?;
    let inner = &rest[..close];
    let end = i + 1 + close + 1;
    let a_type = |name: &[u8]| {
        PiiType::ALL.iter().any(|ty| {
            let own = ty.name().as_bytes();
            own.len() == name.len()
                && own
                    .iter()
                    .zip(name)
                    .all(|(own, c)| own.to_ascii_uppercase() == *c)
        })
    };
    let split = |name: &'_ [u8]| -> Option<(usize, usize)> {
        let at = name.iter().rposition(|&c| c == b'_')?;
        Some((at, name.len() - at - 1))
    };
    if let Some(name) = inner.strip_prefix(b"MASKED_") {
        if a_type(name) {
            return Some(end);
        }
        let (at, digits) = split(name)?;
        let number = &name[at + 1..];
        // A number to be given when a dataset is built: `#` and twelve lower-case hex digits.
        if let Some(hex) = number.strip_prefix(b"#") {
            return (hex.len() == 12
                && hex.iter().all(|c| matches!(c, b'0'..=b'9' | b'a'..=b'f'))
                && a_type(&name[..at]))
            .then_some(end);
        }
        return ((1..=6).contains(&digits)
            && number.iter().all(u8::is_ascii_digit)
            && a_type(&name[..at]))
        .then_some(end);
    }
    let (at, digits) = split(inner)?;
    let hex = &inner[at + 1..];
    (digits == 12
        && hex.iter().all(|c| matches!(c, b'0'..=b'9' | b'a'..=b'f'))
        && hex.iter().any(u8::is_ascii_lowercase)
        && a_type(&inner[..at]))
    .then_some(end)
}

/// A cell cut of its spaces and of the quotes or brackets around a column name (`"Doğum Tarihi"`,
/// `` `first_name` ``, `[Telefon]`).
pub(super) fn unquoted_name(cell: &str) -> &str {
    cell.trim_matches(|c| matches!(c, ' ' | '"' | '`' | '[' | ']' | '\n' | '\r' | '\t'))
}

/// Where the word ending at `last` (before a colon) starts, when it is written as a data file's key:
/// in snake, kebab, dotted or camel case ("first_name", "customer.vkn", "dateOfBirth"), beginning
/// with a letter. Most colons in prose end a plain word ("Tarih:"), which this turns away in one walk back.
#[inline(always)]
pub(super) fn key_shaped_before(b: &[u8], last: usize) -> Option<usize> {
    let floor = last.saturating_sub(text::KEY_MAX);
    let mut at = last;
    let mut shaped = false;
    while at > floor {
        let c = b[at - 1];
        if c.is_ascii_alphanumeric() || c >= 0x80 {
            shaped |= c.is_ascii_uppercase() && at >= 2 && b[at - 2].is_ascii_lowercase();
        } else if matches!(c, b'_' | b'.' | b'-') {
            shaped = true;
        } else {
            break;
        }
        at -= 1;
    }
    (shaped && at < last && (b[at].is_ascii_alphabetic() || b[at] >= 0x80)).then_some(at)
}

/// Where a phone number ending at `end` ends with its extension, if one is written after it: "x321",
/// " x 321", " ext. 12", ", ext 12", " extension 12", " dahili 12", " Durchwahl 12", " #12" (one to six
/// digits that no letter or digit continues).
pub(super) fn extension_end(b: &[u8], end: usize) -> usize {
    const MARKERS: &[&[u8]] = &[
        b"extension",
        b"ext.",
        b"ext",
        b"dahili",
        b"dah.",
        b"durchwahl",
        b"poste",
        b"x",
        b"#",
    ];
    let mut at = end;
    if b.get(at) == Some(&b',') {
        at += 1;
    }
    if b.get(at) == Some(&b' ') {
        at += 1;
    }
    let Some(marker) = MARKERS.iter().find(|marker| {
        b.get(at..at + marker.len())
            .is_some_and(|word| word.eq_ignore_ascii_case(marker))
    }) else {
        return end;
    };
    // A bare 'x' counts only right after the number or a space ("617-6467x12", "555-0132 x 12").
    if *marker == b"x" && b[at] != b'x' {
        return end;
    }
    at += marker.len();
    if b.get(at) == Some(&b':') {
        at += 1;
    }
    if b.get(at) == Some(&b' ') {
        at += 1;
    }
    let digits = b[at.min(b.len())..]
        .iter()
        .take(7)
        .take_while(|c| c.is_ascii_digit())
        .count();
    if (1..=6).contains(&digits) && !b.get(at + digits).is_some_and(u8::is_ascii_alphanumeric) {
        at + digits
    } else {
        end
    }
}

/// Where a group of ASCII digits and letters ("6467x12895") reads as digits, a lower-case 'x' and the
/// digits of an extension: the 'x''s offset.
pub(super) fn extension_at(group: &[u8]) -> Option<usize> {
    let x = group.iter().position(|&c| !c.is_ascii_digit())?;
    (x > 0
        && group[x] == b'x'
        && group.len() > x + 1
        && group[x + 1..].iter().all(u8::is_ascii_digit))
    .then_some(x)
}

/// An address that reaches its limit inside a word or a number ("... FTR|000000000") ends with it
/// instead, up to 100 bytes further: its tail would read as a value of its own in the masked text
/// ("[MASKED_ADDRESS]000000000" behind an SGK label), where the scan of the whole token saw none.
pub(super) fn run_end(b: &[u8], mut end: usize) -> usize {
    if !text::word_before(b, end) {
        return end;
    }
    let cap = end + 100;
    while end < b.len() && end < cap {
        let l = if b[end].is_ascii_alphanumeric() {
            1
        } else {
            letter_at(b, end)
        };
        if l == 0 {
            break;
        }
        end += l;
    }
    end
}

/// Past up to two name particles, each followed by a space, from `at`; `at` when there are none.
/// Where the run of letters (ASCII letters and the bytes of non-ASCII characters) that ends at `end`
/// starts, looking back at most `max` bytes.
/// Whether a capitalised word stands right before `at`, past spaces, on its line.
pub(super) fn capitalised_before(b: &[u8], at: usize) -> bool {
    let before = text::before_spaces(b, at);
    if before == at || before == 0 {
        return false;
    }
    let word = letters_start(b, before, usize::MAX);
    word < before && upper_at(b, word)
}

pub(super) fn letters_start(b: &[u8], end: usize, max: usize) -> usize {
    let mut start = end;
    while start > 0
        && end - start < max
        && (b[start - 1].is_ascii_alphabetic() || b[start - 1] >= 0x80)
    {
        start -= 1;
    }
    start
}

pub(super) fn particles_end(b: &[u8], at: usize) -> usize {
    let mut i = at;
    for _ in 0..2 {
        let word = b[i.min(b.len())..]
            .iter()
            .position(|c| !c.is_ascii_lowercase())
            .unwrap_or(b.len() - i.min(b.len()));
        if word == 0 || !lexicon::NAME_PARTICLES.contains(&&b[i..i + word]) {
            break;
        }
        let space = text::space_at(b, i + word);
        if space == 0 {
            break;
        }
        i += word + space;
    }
    i
}

/// Whether the word at `at` has the shape of an id that [`Scanner::token`] checks as a whole word
/// (a wallet address, a Cisco MAC, the start of an MRZ line) rather than as a chain of groups.
pub(super) fn whole_word_id_at(b: &[u8], at: usize) -> bool {
    let rest = &b[at.min(b.len())..];
    let word = rest
        .iter()
        .position(|c| !c.is_ascii_alphanumeric())
        .unwrap_or(rest.len());
    word >= 26
        || rest.get(word) == Some(&b'<')
        || (word == 4 && rest.get(4) == Some(&b'.') && generic::mac(&rest[..rest.len().min(14)]))
}

/// Where the line `start..newline` ends before its carriage returns.
pub(super) fn end_before_crs(b: &[u8], start: usize, newline: usize) -> usize {
    let mut end = newline;
    while end > start && b[end - 1] == b'\r' {
        end -= 1;
    }
    end
}

pub(super) fn trim_cr(line: &[u8]) -> &[u8] {
    line.strip_suffix(b"\r").unwrap_or(line)
}

/// TCKK serial `A12B34567` or old booklet `U21123456`.
pub(super) fn id_card_shape(s: &[u8]) -> bool {
    s.len() == 9
        && s[0].is_ascii_uppercase()
        && s[1].is_ascii_digit()
        && s[2].is_ascii_digit()
        && (s[3].is_ascii_uppercase() || s[3].is_ascii_digit())
        && s[4..].iter().all(u8::is_ascii_digit)
}

/// The value of a short run of ASCII digits.
pub(super) fn decimal(digits: &[u8]) -> u32 {
    digits
        .iter()
        .fold(0u32, |n, &c| n * 10 + u32::from(c - b'0'))
}

/// Where an address ending at `end` ends with its prefix length ("/24" up to `max`), if one follows:
/// a network's prefix is part of the address written.
pub(super) fn prefix_length_end(b: &[u8], end: usize, max: u32) -> usize {
    if b.get(end) != Some(&b'/') {
        return end;
    }
    let mut k = end + 1;
    while k < b.len() && k - end <= 3 && b[k].is_ascii_digit() {
        k += 1;
    }
    let digits = &b[end + 1..k];
    let value = digits
        .iter()
        .fold(0u32, |acc, &c| acc * 10 + u32::from(c - b'0'));
    // Not a path or a fraction going on ("/24/7", "/24.5"); a sentence's full stop may follow.
    let whole = !b.get(k).is_some_and(|&c| {
        c.is_ascii_alphanumeric()
            || c == b'/'
            || (c == b'.' && b.get(k + 1).is_some_and(u8::is_ascii_alphanumeric))
    });
    if (1..=3).contains(&digits.len()) && value <= max && whole {
        k
    } else {
        end
    }
}

/// Whether a network address (IPv4, IPv6, MAC) starts at `start`: the value of "IP adresi:", "MAC
/// address:", "Hardware address:", labels that name no postal address.
pub(super) fn network_address_at(b: &[u8], start: usize) -> bool {
    let mut end = start;
    while end < b.len()
        && end - start < 64
        && (b[end].is_ascii_hexdigit() || matches!(b[end], b'.' | b':' | b'-' | b'%'))
    {
        end += 1;
    }
    while end > start && matches!(b[end - 1], b'.' | b':' | b'-') && !b[..end].ends_with(b"::") {
        end -= 1;
    }
    let run = &b[start..end];
    run.len() >= 7 && (generic::ipv4(run) || generic::ipv6(run) || generic::mac(run))
}
