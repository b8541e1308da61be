//! Labels: the value a label announces ("Ad Soyad: ...", "Adres: ...") and where it ends.

use super::*;

impl<'t> Scanner<'t> {
    /// A name behind its label at `start..end`: where the scan goes on.
    pub(super) fn labelled_name(&mut self, start: usize, end: usize) -> Option<usize> {
        self.hit(
            start,
            end,
            PiiType::PersonName,
            D_LABEL,
            "person_name_label",
        );
        Some(end)
    }

    /// Where the value after the colon at `colon` starts: after its spaces and tabs.
    pub(super) fn value_start(&self, colon: usize) -> usize {
        let mut start = colon + 1;
        while matches!(self.b.get(start), Some(b' ' | b'\t')) {
            start += 1;
        }
        start
    }

    /// The value starting at `start` when it is quoted (`"Ayşe Yılmaz"`, `'1990-07-04'`) and its quote
    /// closes on its line: where it starts after the quote, and the closing quote.
    pub(super) fn quoted_value(&self, start: usize) -> Option<(usize, usize)> {
        let b = self.b;
        let &quote = b.get(start).filter(|&&c| c == b'"' || c == b'\'')?;
        let from = start + 1;
        let limit = (from + 256).min(b.len());
        memchr::memchr2(quote, b'\n', &b[from..limit])
            .map(|p| from + p)
            .filter(|&p| b[p] == quote)
            .map(|close| (from, close))
    }

    /// Where the value after the colon at `colon` starts and ends, and its closing quote when it is
    /// quoted ([`Self::quoted_value`]); unquoted, it ends at the end of its line, cell or item (a tab,
    /// ',', ';', '|', '}' or ']', and after an equals sign at a '&'), at most 64 bytes on.
    pub(super) fn field_value(&self, colon: usize) -> (usize, usize, Option<usize>) {
        let start = self.value_start(colon);
        if let Some((from, close)) = self.quoted_value(start) {
            return (from, close, Some(close));
        }
        let limit = (start + 64).min(self.b.len());
        // A query string's next pair ends a value after '='.
        let stops = if self.b[colon] == b'=' {
            FIELD_END | FIELD_END_AMP
        } else {
            FIELD_END
        };
        let end = self.b[start..limit]
            .iter()
            .position(|&c| FIELD_ENDS[usize::from(c)] & stops != 0)
            .map_or(limit, |p| start + p);
        (start, end, None)
    }

    /// The name or the address behind a label of `kind`, its value starting at `value` (after a quote
    /// when it is quoted, closed at `close`): where the scan goes on when one was found. Behind a label
    /// that names a part of a person's name (`person`: "first name", "soyadı"), a name written in
    /// lower case counts too.
    pub(super) fn labelled_value(
        &mut self,
        kind: lexicon::Label,
        person: bool,
        value: usize,
        close: Option<usize>,
    ) -> Option<usize> {
        let b = self.b;
        match kind {
            lexicon::Label::Name => {
                let found = self.name_words(value, 4);
                let (start, end) = match found {
                    None if person => self.lower_case_name(value, close)?,
                    found => found?,
                };
                if close.is_some_and(|close| end > close) {
                    return None;
                }
                self.labelled_name(start, end)
            }
            lexicon::Label::Address => {
                let mut start = value;
                loop {
                    let space =
                        text::space_at(b, start).max(usize::from(b.get(start) == Some(&b'\t')));
                    if space == 0 {
                        break;
                    }
                    start += space;
                }
                // A quote that opens it and closes nowhere is not its own ("Adres: \"+1-808-617-6467
                // abc"): kept out, the placeholders after it start the value in the masked text too,
                // which is then passed over, not read as an address beginning with the quote.
                if matches!(b.get(start), Some(b'"' | b'\'')) {
                    start += 1;
                }
                // "IP adresi: 192.0.2.1", "Hardware address: 00:1A:...": a network address, found as
                // what it is; the label names no postal address.
                if network_address_at(b, start) {
                    return None;
                }
                let mut end = start;
                // To the end of its line or of its field (a tab, ';' or '|', which no address holds),
                // at most 200 bytes; a quoted one to its closing quote.
                let stop = close.unwrap_or(b.len());
                while end < stop
                    && end - start < 200
                    && !matches!(b[end], b'\n' | b'\r' | b'\t' | b';' | b'|')
                {
                    end += 1;
                }
                // Nor does it run into a placeholder: in the masked text, "Adres: x
                // [MASKED_NATIONAL_ID_TR] y" holds no address, where the input's "x 10000000146 y"
                // lost to the TCKN and left no word of its own.
                if let Some(token) = memchr::memmem::find(&b[start..end], b"[MASKED_") {
                    if mask_token_end(b, start + token).is_some() {
                        end = start + token;
                    }
                }
                // The next field's label ends it before that: ", Tel: ...", "Ankara Telefon: ...",
                // ", Vergi No: ...", ", E-posta: ..." (those values are then found, and masked, as
                // what they are, not as part of an address); "No: 12", "D:3", "Kat: 2" are its own.
                let next_label = memchr::memchr_iter(b':', &b[start..end])
                    .find_map(|colon| self.next_label_start(start, start + colon));
                let (trimmed, cut) = match next_label {
                    Some(label) => (before_label(self.text, start, label), false),
                    None => {
                        let end = run_end(b, text::floor_boundary(self.text, end));
                        (
                            start + self.text[start..end].trim_end().len(),
                            end - start >= 200,
                        )
                    }
                };
                if trimmed > start + 3 && !b[start..].starts_with(b"[MASKED_") {
                    self.hit(start, trimmed, PiiType::Address, D_LABEL, "address_label");
                    // One cut at its limit may end before a street address inside it does.
                    if !cut {
                        self.address_reach = trimmed;
                    }
                    // The scan goes on inside it: the line may hold other values, and one the limit
                    // cuts through (an IBAN) must be found whole, to win over the address.
                    return Some(start);
                }
                None
            }
        }
    }

    /// A name written in lower case behind a label of a part of a person's name (`"first_name":
    /// "mehmet"`, `soyad=yılmaz`, `Adı: ayşe nur Soyadı: ...`): one to four words of letters that
    /// fill the value up to its closing quote, or up to the end of its line, cell or item or the next
    /// field's label; right after an equals sign and unquoted, as a query string or logfmt writes it,
    /// one word followed by a space will do (`GET /kayit?soyad=korutürk 200`). What fills a name field
    /// without naming anyone (`null`, `test`, `yok`) is not taken, nor a word that goes on in digits
    /// (`user123`).
    #[cold]
    #[inline(never)]
    pub(super) fn lower_case_name(
        &mut self,
        value: usize,
        close: Option<usize>,
    ) -> Option<(usize, usize)> {
        let b = self.b;
        let start = text::after_spaces(b, value);
        if upper_at(b, start) {
            return None;
        }
        let spaceless = close.is_none() && start > 0 && b[start - 1] == b'=';
        let (end, words) = self.lower_case_words(start, close, 4, false).or_else(|| {
            spaceless
                .then(|| self.lower_case_words(start, close, 1, true))
                .flatten()
        })?;
        if words == 1 && no_name_value(&b[start..end], &mut self.scratch) {
            return None;
        }
        Some((start, end))
    }

    /// Up to `max` words of letters from `start` (see [`Self::lower_case_name`]) that end the value:
    /// their end and count. `space_ends`: a space after them ends the value too.
    pub(super) fn lower_case_words(
        &self,
        start: usize,
        close: Option<usize>,
        max: usize,
        space_ends: bool,
    ) -> Option<(usize, usize)> {
        let b = self.b;
        let limit = close.unwrap_or(b.len()).min(start + 64);
        let next_label = |at: usize| {
            let label_end = self.word_end(at);
            label_end > at && matches!(b.get(text::after_spaces(b, label_end)), Some(b':' | b'='))
        };
        let mut end = start;
        let mut words = 0;
        loop {
            let word_end = self.word_end(end);
            if word_end - end < 2 || word_end > limit {
                return None;
            }
            words += 1;
            end = word_end;
            // The next word belongs to the name unless it is the next field's label.
            let next = end + usize::from(b.get(end) == Some(&b' '));
            let next_end = self.word_end(next);
            if words == max
                || next == end
                || next_end == next
                || next_end > limit
                || next_label(next)
            {
                break;
            }
            end = next;
        }
        let ends = match close {
            Some(close) => end == close,
            None => {
                let after = text::after_spaces(b, end);
                (space_ends && after > end)
                    || after >= b.len()
                    || matches!(
                        b[after],
                        b'\n' | b'\r' | b'\t' | b',' | b';' | b'&' | b'|' | b'}' | b']'
                    )
                    || (after > end && next_label(after))
            }
        };
        ends.then_some((end, words))
    }

    /// Where the label ending at the colon at `colon`, inside an address that starts at `from`, starts,
    /// when it is another field's label; `None` for a part of the address ("No:", "D:3", "Posta
    /// Kodu:") or no label at all. A label counts when it stands alone after a comma, a semicolon or a
    /// sentence's end (", Tel:", ", Doğum Tarihi:", ", Sipariş:"; ", Vergi No:" only when a context
    /// keyword begins it), or when its last word, or the one before, is a label word or a context
    /// keyword ("Ankara Telefon:", "Kadıköy Doğum Tarihi:").
    #[inline(never)]
    pub(super) fn next_label_start(&mut self, from: usize, colon: usize) -> Option<usize> {
        let b = self.b;
        let mut last = colon;
        while last > from && b[last - 1] == b' ' {
            last -= 1;
        }
        if last == from || !(b[last - 1].is_ascii_alphabetic() || b[last - 1] >= 0x80) {
            return None;
        }
        // The phrase back to a comma, a semicolon, a sentence's end or the address's start: "clean"
        // when it holds no digit, at most three words and 40 bytes.
        let mut p = last;
        let mut clean = true;
        while p > from {
            let c = b[p - 1];
            if c == b',' || c == b';' || (c == b' ' && p >= 2 && b[p - 2] == b'.') {
                break;
            }
            if c.is_ascii_digit() || last - p >= 40 {
                clean = false;
                break;
            }
            p -= 1;
        }
        // Cut at 40 bytes, the phrase may start inside a character: its words start at one.
        let p = text::ceil_boundary(self.text, p);
        // The phrase's words, as byte ranges (it has at most 40 bytes).
        let mut words = [(0usize, 0usize); 24];
        let mut count = 0;
        let mut at = p;
        while at < last && count < words.len() {
            at = text::after_spaces(b, at);
            let mut end = at;
            while end < last && text::space_at(b, end) == 0 {
                end += 1;
            }
            if end > at {
                words[count] = (at, end);
                count += 1;
            }
            at = end;
        }
        let words = &words[..count];
        // A label is words of letters ("E-posta", "Doğum Tarihi"): "<cbc:" is a tag, "89:" no label.
        let lettered = |&(from, to): &(usize, usize)| {
            (b[from].is_ascii_alphabetic() || b[from] >= 0x80)
                && b[from..to].iter().all(|&c| {
                    c.is_ascii_alphabetic() || c >= 0x80 || matches!(c, b'-' | b'.' | b'\'')
                })
        };
        let clean = clean && words.len() <= 3 && words.iter().all(lettered);
        let (&first, &last_word) = (words.first()?, words.last()?);
        if !lettered(&last_word) {
            return None;
        }
        let mut stack = [0u8; 40];
        let folded = text::fold_short(&b[last_word.0..last_word.1], &mut stack, &mut self.scratch);
        let before = words.len().checked_sub(2).map(|k| words[k]);
        if lexicon::address_part_word(folded) {
            // "Vergi No:", "Kimlik No:", "SGK No:" after a comma: a keyword starts the phrase.
            if clean && words.len() >= 2 && self.near.keywords.keyword_at(first.0) {
                return Some(first.0);
            }
            // "Kadıköy Fatura No:", "Sipariş No:": another field's number, wherever it stands.
            let number = lexicon::number_word(folded);
            let before = before.filter(|before| number && lettered(before))?;
            let folded = text::fold_short(&b[before.0..before.1], &mut stack, &mut self.scratch);
            return lexicon::field_label_word(folded).then_some(before.0);
        }
        if clean {
            return Some(first.0);
        }
        const LABEL_WORDS: &[&[u8]] = &[
            b"tel",
            b"telefon",
            b"telefonu",
            b"gsm",
            b"cep",
            b"faks",
            b"fax",
            b"e-posta",
            b"eposta",
            b"e-mail",
            b"email",
            b"mail",
            b"phone",
            b"mobile",
            b"iban",
            b"web",
        ];
        if LABEL_WORDS.contains(&folded) || self.near.keywords.keyword_at(last_word.0) {
            return Some(last_word.0);
        }
        if let Some(before) = before.filter(|before| lettered(before)) {
            if self.near.keywords.keyword_at(before.0) {
                return Some(before.0);
            }
        }
        // "Kadıköy Sipariş:", "Kadıköy Tarih:": a field of the document, never a part of an address.
        lexicon::field_label_word(folded).then_some(last_word.0)
    }

    /// Whether the text before the colon at `i` (its last letter at `last - 1`) may be a label: its
    /// last word, folded, ends some label ([`lexicon::ends_some_label`]), or the 32 bytes before the
    /// colon hold two d's in any case (as a folded text holding "address" must: that word may mark an
    /// address label followed by other words, see [`lexicon::colon_label`]). Exact: when neither
    /// holds, the look-up in `colon` finds no label either, and the colon is passed at a fraction of
    /// the cost.
    pub(super) fn may_end_label(&mut self, i: usize, last: usize) -> bool {
        let b = self.b;
        let floor = i.saturating_sub(32);
        // The last word as `colon` reads it: back to a space, a separator or the window's edge (a
        // no-break space inside it folds to a space, and the part after it is the word).
        let mut start = last;
        while start > floor && b[start - 1] != b' ' && !ends_label_window(b[start - 1]) {
            start -= 1;
        }
        let start = text::ceil_boundary(self.text, start);
        let raw = &b[start..last];
        if raw.is_empty() {
            // Only spaces in reach: the full look-up decides.
            return true;
        }
        let ends_label = if raw.is_ascii() {
            // Folds to its lower case: no folding, and mostly no hashing either.
            lexicon::ascii_ends_some_label(raw)
        } else {
            let mut stack = [0u8; 40];
            let folded = text::fold_short(raw, &mut stack, &mut self.scratch).trim_ascii_end();
            if folded.is_empty() {
                // Only no-break spaces: the label's last word is further back.
                return true;
            }
            let word = folded
                .iter()
                .rposition(|&c| c == b' ')
                .map_or(folded, |space| &folded[space + 1..]);
            lexicon::ends_some_label(word)
        };
        // "address" folded has two d's, which only ASCII d's fold to (combining dots, which folding
        // drops, may stand between them).
        ends_label || b[floor..i].iter().filter(|&&c| c | 0x20 == b'd').count() >= 2
    }
}

/// A byte before which the text read back from a colon as its label stops (a line break, a cell or
/// field separator, another colon): `colon` and its filter `may_end_label` must stop at the same ones.
pub(super) fn ends_label_window(c: u8) -> bool {
    matches!(c, b'\n' | b':' | b';' | b'\t' | b'|' | b'>')
}

/// The end of an address that starts at `start` and is ended by the next field's label at `label`:
/// what separates the two stays outside it (", Tel:", ". E-posta:").
pub(super) fn before_label(text: &str, start: usize, label: usize) -> usize {
    start
        + text[start..label]
            .trim_end_matches(|c: char| c.is_whitespace() || matches!(c, ',' | ';' | '.'))
            .len()
}

/// What a data file's key announces: the label of its words ("first name", "home address") and the
/// types of its keywords ("date of birth", "vkn"). Labels end a key ("customer person first name"):
/// its last word is looked at first, and most keys ("id", "created at", "invoice number") end there.
/// Whether a table cell holds a name written in lower case (under a header of a part of a person's
/// name): one to four words of letters, each of two or more, not a value that fills a name field
/// without naming anyone (`null`, `test`, `yok`).
#[cold]
pub(super) fn lower_case_name_cell(cell: &str, scratch: &mut Vec<u8>) -> bool {
    // Most cells that come here are placeholders of the masked text's re-scan.
    cell.chars().next().is_some_and(char::is_lowercase) && names_someone(cell, scratch)
}

/// Whether a value that stands alone in a name's place (a table cell) can name
/// someone: one to four words of letters, each of two or more, and not a value that fills a name
/// field without naming anyone ([`no_name_value`]).
pub(super) fn names_someone(value: &str, scratch: &mut Vec<u8>) -> bool {
    let mut words = 0;
    for word in value.split(' ') {
        words += 1;
        if words > 4 || word.chars().count() < 2 || !word.chars().all(char::is_alphabetic) {
            return false;
        }
    }
    words > 1 || !no_name_value(value.as_bytes(), scratch)
}

/// Whether one word fills a name field without naming anyone (`null`, `test`, `yok`), folded first.
pub(super) fn no_name_value(word: &[u8], scratch: &mut Vec<u8>) -> bool {
    scratch.clear();
    text::fold_into(word, scratch);
    lexicon::no_name_value(scratch)
}
