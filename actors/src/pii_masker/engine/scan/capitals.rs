//! Words starting with a capital letter: what each one starts (a person's name by one of the rules
//! of [`person`](super::person), an address from its street word, an alphanumeric id, a BIC, a date
//! written with its month's name), and the walks over such words that the rules share.

use super::*;

impl<'t> Scanner<'t> {
    // Out of `run`'s loop (see `tables`).
    #[inline(never)]
    pub(super) fn word(&mut self, i: usize) -> usize {
        let b = self.b;
        if text::word_before(b, i) {
            // Mid-word capital ("McDonald", "iPhone"): skip the rest of the word.
            return self.word_end(i);
        }
        let (end, ascii, ascii_caps) = self.word_shape(i);
        // A MAC address with hyphens that starts with a letter: "CF-EA-A5-98-3D-33".
        if end - i == 2 && b.get(end) == Some(&b'-') {
            if let Some(end) = self.mac_around(i, 2) {
                return end;
            }
        }
        // Letters followed by digits: an alphanumeric token (IBAN, passport, NINO, VIN...).
        if ascii && digit_at(b, end).is_some() {
            return self.token(i);
        }
        // Short capital prefixes of grouped ids: "AB 12 34 56 C", "TR33 ...", "ATU 1358...".
        if ascii_caps && end - i <= 4 {
            let sep = separator_at(b, end);
            if sep > 0 && digit_at(b, end + sep).is_some() {
                // Unless the next word is an id read as a whole word, which a chain from the prefix
                // would swallow: "BTC 1A1zP1eP5QGefi2DMPTfTL5SLmv7DivfNa", "MAC 001a.2b3c.4d5e".
                if whole_word_id_at(b, end + sep) {
                    return end;
                }
                return self.token(i);
            }
        }
        if ascii_caps && (end - i == 8 || end - i == 11) && generic::bic(&b[i..end]) {
            if self.context(i, end).contains(PiiType::BicSwift) {
                self.hit(i, end, PiiType::BicSwift, B_CONTEXT, "bic_swift");
            }
            return end;
        }
        // A word of one letter is looked up only as a title, with its dot and a space after it
        // ("M. Jean Dupont": French "Monsieur"; not "M.Ö.").
        let one_letter_title =
            end - i == 1 && b.get(end) == Some(&b'.') && b.get(end + 1) == Some(&b' ');
        if end - i == 1 && b[i] == b'O' {
            if let Some(stop) = self.irish_surname(i) {
                return stop;
            }
        }
        if (end - i < 2 && !one_letter_title) || end - i > 40 {
            return end;
        }
        // "March 12, 1985" behind a birth-date label.
        let space = end + usize::from(b.get(end) == Some(&b'.'));
        if b.get(space) == Some(&b' ') && digit_at(b, space + 1).is_some() {
            if let Some(stop) = self.month_date(i, end, true) {
                return stop;
            }
        }
        // Folded on the stack (the word has at most 40 bytes here), not through the scratch vector.
        let mut stack = [0u8; 40];
        let folded = text::fold_short(&b[i..end], &mut stack, &mut self.scratch);
        let found = lexicon::lookup(folded);
        let compound = found.is_none() && lexicon::street_compound(folded);
        let before = self.hits.len();
        let stop = match found {
            Some(Word::Honorific) => {
                let mut after = end;
                if b.get(after) == Some(&b'.') {
                    after += 1;
                }
                // "Prof. Dr. Ali Çelik": the last title introduces the name; the walk goes on to it.
                if self.honorific_follows(after) {
                    return after;
                }
                self.named_after_honorific(after).unwrap_or(end)
            }
            Some(Word::FirstName | Word::Either) => self.gazetteer_name(i, end),
            Some(Word::Street) => self.address_from_street(i, end, false),
            None if compound => self.address_from_street(i, end, false),
            Some(Word::Closing) => self.signed_closing(i, end),
            Some(Word::Surname) if lexicon::distinctive_surname(folded) => {
                let first = lexicon::surname_first(folded);
                self.given_before_surname(i, end)
                    .or_else(|| self.honorific_name(i))
                    .or_else(|| first.then(|| self.given_after_surname(i, end)).flatten())
                    .unwrap_or(end)
            }
            _ => self
                .honorific_name(i)
                .or_else(|| self.marked_name(i, end))
                .or_else(|| self.greeted_name(i, end))
                .unwrap_or(end),
        };
        // No rule named a person here: the words may still read as a name in a sentence.
        if self.hits.len() == before
            && !compound
            && matches!(
                found,
                None | Some(Word::FirstName | Word::Either | Word::Surname)
            )
        {
            if let Some(stop) = self.prose_name(i) {
                return stop;
            }
        }
        stop
    }

    pub(super) fn word_end(&self, mut i: usize) -> usize {
        loop {
            let l = letter_at(self.b, i);
            if l == 0 {
                return i;
            }
            i += l;
        }
    }

    /// [`Self::word_end`], and whether the word's letters are all ASCII, and all ASCII capitals, found
    /// in the same walk.
    #[inline(always)]
    pub(super) fn word_shape(&self, mut i: usize) -> (usize, bool, bool) {
        let b = self.b;
        let (mut ascii, mut caps) = (true, true);
        loop {
            match b.get(i) {
                Some(&c) if c.is_ascii_alphabetic() => {
                    caps &= c.is_ascii_uppercase();
                    i += 1;
                }
                // A two-byte Latin letter (`text::letter_at`'s).
                Some(_) if letter_at(b, i) == 2 => {
                    (ascii, caps) = (false, false);
                    i += 2;
                }
                _ => return (i, ascii, caps),
            }
        }
    }

    /// Whether the fold of the word at `start..end` passes `test`.
    pub(super) fn folded_is(&self, start: usize, end: usize, test: impl Fn(&[u8]) -> bool) -> bool {
        let (mut stack, mut spill) = ([0u8; 40], Vec::new());
        test(text::fold_short(
            &self.b[start..end],
            &mut stack,
            &mut spill,
        ))
    }
}
