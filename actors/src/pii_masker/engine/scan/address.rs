//! Postal addresses that start at a street word.

use super::*;

impl<'t> Scanner<'t> {
    /// An address around a street word: capitalised words before it, numbers and address words after.
    pub(super) fn address_from_street(&mut self, ws: usize, we: usize, numbered: bool) -> usize {
        let b = self.b;
        if ws < self.address_reach {
            return we;
        }
        // Back over up to two capitalised words or numbers on the same line ("Atatürk", "75."). A
        // house number there is the English order ("10 Downing Street", "221B Baker Street").
        let mut start = ws;
        let (mut number_before, mut name_before) = (false, false);
        for _ in 0..2 {
            let k = text::before_spaces(b, start);
            if k == start || k == 0 {
                break;
            }
            let mut w = k;
            while w > 0
                && (b[w - 1].is_ascii_alphanumeric() || b[w - 1] >= 0x80 || b[w - 1] == b'.')
            {
                w -= 1;
            }
            if w == k || !(upper_at(b, w) || b[w].is_ascii_digit()) {
                break;
            }
            // Not the last group of a number written in groups ("TR64 ... 1234 56 Hürriyet Mah."): the
            // address would overlap that value and lose to it whole, and be found only in the
            // re-scan of the masked text, which refuses it.
            let before = text::before_spaces(b, w);
            if b[w].is_ascii_digit() && before < w && before > 0 && b[before - 1].is_ascii_digit() {
                break;
            }
            number_before |= b[w].is_ascii_digit();
            name_before |= upper_at(b, w);
            start = w;
        }
        // Forward through the rest of the address on this line.
        let limit = (we + 160).min(b.len());
        let mut i = we;
        let mut end = we;
        let mut has_digit = false;
        let mut street_words = 1;
        let mut named = false;
        let mut judged_colon = usize::MAX;
        while i < limit {
            let c = b[i];
            if c == b'\n' || c == b'\r' || c == b';' {
                break;
            }
            // A sentence's end: a full stop after a word that is no abbreviation ("... 10115 Berlin.
            // Danach ..."), then a capital; not "Mah. Zambak Sok.", "St. Louis", "No. 5".
            if c == b'.' && self.sentence_ends_at(i) {
                break;
            }
            if matches!(c, b' ' | b',' | b'/' | b'-' | b':' | b'.' | b'(' | b')') {
                i += 1;
                continue;
            }
            let space = text::space_at(b, i);
            if space > 0 {
                i += space;
                continue;
            }
            if c.is_ascii_digit() {
                while i < limit && b[i].is_ascii_digit() {
                    i += 1;
                }
                has_digit = true;
                end = i;
                continue;
            }
            let l = letter_at(b, i);
            if l == 0 {
                break;
            }
            let w_end = self.word_end(i);
            // The next field's label ends the address ("... Selçuklu/Konya. E-posta: ...", "...
            // Kadıköy Tel: ..."): a colon a few words on may close one that begins here or after.
            // Each colon is judged once, not again from every capitalised word before it.
            if upper_at(b, i) {
                // On this line and in this cell: the walk ends at a break or a tab, and a label on the
                // next line ("Ankara\nCep Telefonu:") or in the next cell ("Daire 3\tDoğum Tarihi:")
                // would otherwise end the address after it, inside that label.
                let reach = &b[i..(i + 40).min(limit)];
                let reach =
                    &reach[..memchr::memchr3(b'\n', b'\r', b'\t', reach).unwrap_or(reach.len())];
                if let Some(colon) = memchr::memchr(b':', reach).map(|colon| i + colon) {
                    if colon != judged_colon {
                        judged_colon = colon;
                        let label = self
                            .next_label_start(start, colon)
                            .filter(|&label| label >= we);
                        if let Some(label) = label {
                            end = before_label(self.text, start, label);
                            break;
                        }
                    }
                }
            }
            let mut stack = [0u8; 40];
            let folded = text::fold_short(&b[i..w_end], &mut stack, &mut self.scratch);
            let is_street = lexicon::lookup(folded) == Some(Word::Street);
            if upper_at(b, i) || is_street || lexicon::ADDRESS_WORDS.contains(&folded) {
                street_words += usize::from(is_street);
                named |= upper_at(b, i);
                end = w_end;
                i = w_end;
            } else if lexicon::ADDRESS_PARTICLES.contains(&folded) {
                i = w_end;
            } else {
                break;
            }
        }
        let end = run_end(b, end);
        // A lower-case street word after a house number ("12 rue de la Paix") needs a name after it,
        // and the English order a capitalised name and street word after it: "12 place settings" is
        // no address.
        let english = number_before && name_before && upper_at(b, ws);
        if has_digit || english || street_words >= 2 || (numbered && named) {
            self.hit(start, end, PiiType::Address, D_GAZETTEER, "address_street");
            if i < limit {
                self.address_reach = end;
            }
        }
        // The scan goes on after the street word, inside the address: its digits and capitalised words
        // may be values of their own (an IBAN, a phone number), to be found whole. One the address
        // contains is masked with it; one it runs into wins over it (see `engine::better`).
        we
    }

    /// Whether the full stop at `dot` ends a sentence: it follows a word of four letters or more that
    /// is no street word's abbreviation, and a space and a capital follow it.
    fn sentence_ends_at(&self, dot: usize) -> bool {
        let b = self.b;
        let word = letters_start(b, dot, 40);
        let next = text::after_spaces(b, dot + 1);
        if next == dot + 1 || !upper_at(b, next) || dot - word < 4 {
            return false;
        }
        let mut stack = [0u8; 40];
        let mut spill = Vec::new();
        let folded = text::fold_short(&b[word..dot], &mut stack, &mut spill);
        lexicon::lookup(folded) != Some(Word::Street)
    }
}
