//! E-mail addresses, their display names, and the obfuscated and grouped forms.

use super::*;

impl<'t> Scanner<'t> {
    // Out of `run`'s loop (see `tables`).
    #[inline(never)]
    pub(super) fn email(&mut self, at: usize) -> usize {
        let b = self.b;
        let start = email_local_start(b, at);
        let mut end = at + 1;
        while end < b.len() && end - at < 254 && generic::email_domain_char(b[end]) {
            end += 1;
        }
        let mut end = text::floor_boundary(self.text, end);
        while end > at + 1 && matches!(b[end - 1], b'.' | b'-') {
            end -= 1;
        }
        // Non-ASCII bytes at the very end are punctuation more often than an IDN label.
        while end > at + 1
            && b[end - 1] >= 0x80
            && !self.text[at + 1..end]
                .rsplit('.')
                .next()
                .is_some_and(|tld| tld.is_ascii())
        {
            end = text::floor_boundary(self.text, end - 1);
        }
        if start < at && generic::email(&b[start..at], &b[at + 1..end]) {
            if start > 0 && b[start - 1] == b'<' {
                self.display_name(start - 1);
            }
            self.hit(start, end, PiiType::Email, A, "email");
            return end;
        }
        if start == at && at > 0 && b[at - 1] == b'}' {
            if let Some(open) = email_group_start(b, at - 1, &b[at + 1..end]) {
                self.hit(open, end, PiiType::Email, A, "email");
                return end;
            }
        }
        at + 1
    }

    /// The display name before an address in angle brackets, whose '<' is at `lt`: `"Lezize Korutürk"
    /// <lezize@ornek.com>`, `Lezize Korutürk <...>`, `"Korutürk, Lezize" <...>`. Two to four
    /// capitalised words that [`Self::name_words`] takes whole, on the line of the address; not a
    /// team's or a company's name (`"Acme Support" <support@acme.com>`), nor one word alone.
    #[inline(never)]
    pub(super) fn display_name(&mut self, lt: usize) {
        let b = self.b;
        let close = text::before_spaces(b, lt);
        if close == 0 {
            return;
        }
        let whole = |scanner: &Self, from: usize, to: usize| {
            scanner.name_words(from, 4).filter(|&(_, end)| end == to)
        };
        let span = if b[close - 1] == b'"' {
            let inner_end = close - 1;
            let Some(open) = b[inner_end.saturating_sub(80)..inner_end]
                .iter()
                .rposition(|&c| c == b'"' || c == b'\n')
                .map(|k| k + inner_end.saturating_sub(80))
                .filter(|&k| b[k] == b'"')
            else {
                return;
            };
            let inner_start = text::after_spaces(b, open + 1);
            let inner_stop = text::before_spaces(b, inner_end);
            // Quotes around nothing but spaces: `" " <a@b.com>`.
            if inner_start >= inner_stop {
                return;
            }
            match b[inner_start..inner_stop].iter().position(|&c| c == b',') {
                // "Surname, Given".
                Some(comma) => {
                    let comma = inner_start + comma;
                    let first = whole(self, inner_start, comma);
                    let second = whole(self, comma + 1, inner_stop);
                    first.zip(second).map(|(first, second)| (first.0, second.1))
                }
                None => whole(self, inner_start, inner_stop),
            }
        } else {
            // Back over the capitalised words before the address, on its line.
            let mut start = close;
            let mut words = 0;
            while words < 4 {
                let word = letters_start(b, start, 40);
                if word == start || !upper_at(b, word) {
                    break;
                }
                start = word;
                words += 1;
                let space = text::space_before(b, start);
                let before = start - space;
                if space == 0
                    || before == 0
                    || !(b[before - 1].is_ascii_alphabetic() || b[before - 1] >= 0x80)
                {
                    break;
                }
                start = before;
            }
            let start = text::after_spaces(b, start);
            if start >= close {
                return;
            }
            whole(self, start, close)
        };
        let Some((start, end)) = span else { return };
        if !b[start..end]
            .iter()
            .any(|&c| c == b' ' || c == b',' || c == 0xA0)
        {
            return;
        }
        self.hit(
            start,
            end,
            PiiType::PersonName,
            D_GAZETTEER,
            "person_name_display",
        );
    }

    /// An address written to dodge harvesters, at its bracketed "at": `ayse(at)firma.com.tr`,
    /// `ahmet.yilmaz [at] ornek [dot] com`, `mehmet[@]ornek.com`. The dots of the domain may be
    /// bracketed too (`[dot]`, `(dot)`, `[.]`); the address read back must be a valid one (a known
    /// top-level domain), so "fiyat (at) indirim" is not one. A spelled-out " at " / " dot " is not
    /// read: in prose it is a word.
    pub(super) fn obfuscated_email(&mut self, open: usize) -> Option<usize> {
        let b = self.b;
        let close = bracketed(b, open, &[b"at", b"@"])?;
        // The local part, right before the bracket or one space before it.
        let mut local_end = open;
        if local_end > 0 && b[local_end - 1] == b' ' {
            local_end -= 1;
        }
        let start = email_local_start(b, local_end);
        if start == local_end {
            return None;
        }
        // The domain, its labels joined by dots written plainly or in brackets.
        let label_char = |c: u8| c.is_ascii_alphanumeric() || c == b'-';
        let mut at = close + usize::from(b.get(close) == Some(&b' '));
        let mut domain = Vec::new();
        let mut end = at;
        while domain.len() < 253 {
            let label = at;
            while at < b.len() && label_char(b[at]) {
                at += 1;
            }
            if at == label {
                break;
            }
            domain.extend_from_slice(&b[label..at]);
            end = at;
            let dot = if b.get(at) == Some(&b'.') && b.get(at + 1).is_some_and(|&c| label_char(c)) {
                Some(at + 1)
            } else {
                let open = at + usize::from(b.get(at) == Some(&b' '));
                bracketed(b, open, &[b"dot", b"."])
                    .map(|after| after + usize::from(b.get(after) == Some(&b' ')))
            };
            match dot {
                Some(next) => {
                    domain.push(b'.');
                    at = next;
                }
                None => break,
            }
        }
        if domain.last() == Some(&b'.') {
            domain.pop();
        }
        if !generic::email(&b[start..local_end], &domain) {
            return None;
        }
        self.hit(start, end, PiiType::Email, B_CONTEXT, "email_obfuscated");
        Some(end)
    }
}

/// Where the local part of an e-mail address ending at `end` starts: at most 64 local characters back,
/// without leading dots (`end` itself when there is none).
pub(super) fn email_local_start(b: &[u8], end: usize) -> usize {
    let mut start = end;
    while start > 0 && end - start < 64 && generic::email_local_char(b[start - 1]) {
        start -= 1;
    }
    while start < end && b[start] == b'.' {
        start += 1;
    }
    start
}

/// Where the group of local parts closed at `close` starts, when it is one: the notation of papers and
/// staff lists for several addresses at one domain, "{vladk, barlaso, plewis}@fb.com" (every address
/// in it is personal data, and no single one is found: the '}' ends each local part). The group, on
/// one line and within 256 bytes, holds local parts separated by commas, semicolons or '|' (spaces
/// allowed: text extraction turns underscores into them, "{melissadell,jacob carlson}@..."), at least
/// one of which makes a valid address with `domain`.
pub(super) fn email_group_start(b: &[u8], close: usize, domain: &[u8]) -> Option<usize> {
    let floor = close.saturating_sub(256);
    let open = floor + memchr::memrchr2(b'{', b'\n', &b[floor..close])?;
    if b[open] != b'{' {
        return None;
    }
    let inside = &b[open + 1..close];
    let allowed = |c: &u8| generic::email_local_char(*c) || matches!(c, b',' | b';' | b'|' | b' ');
    if !inside.iter().all(allowed) {
        return None;
    }
    inside
        .split(|c| matches!(c, b',' | b';' | b'|'))
        .any(|local| generic::email(local.trim_ascii(), domain))
        .then_some(open)
}
