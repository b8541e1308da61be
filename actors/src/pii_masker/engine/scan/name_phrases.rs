//! Names found by the words around them: honorifics, person nouns, closings and greetings.

use super::*;

impl<'t> Scanner<'t> {
    /// A name after an honorific written in lower case ("de heer Jansen", "mevrouw De Vries",
    /// "monsieur Dupont": up to four capitalised words): the end of the name when there is one.
    #[inline(always)]
    pub(super) fn honorific_name(&mut self, i: usize) -> Option<usize> {
        // Most capitalised words are turned away here, inline, by the bytes before them: how the
        // honorifics end ("heer", "mevr", "dhr", "monsieur", "signor", "mevrouw", "madame",
        // "mademoiselle", "signora", "signorina") and the space after them.
        let b = self.b;
        // Also a noun for a person with "our" or "my" ("-ımız", "-imiz", "-ım": "müvekkilimiz
        // Lezize Korutürk"), "named", "called" ("a customer named Weining Li"), and "by" ("signed by
        // Hiroshi Tanaka").
        let promising = i >= 4
            && b[i - 1] == b' '
            && match (b[i - 3], b[i - 2]) {
                (b'e' | b'v' | b'h' | b'u' | b'o', b'r')
                | (b'u', b'w')
                | (b'm' | b'l', b'e')
                | (b'r' | b'n', b'a')
                | (b'i' | b'u' | 0xB1 | 0xBC, b'z' | b'm')
                | (b'b', b'y') => true,
                (b'e', b'd') => matches!(b[i - 4], b'm' | b'l'),
                _ => false,
            };
        if promising {
            self.honorific_name_after(i)
        } else {
            None
        }
    }

    #[inline(never)]
    pub(super) fn honorific_name_after(&mut self, i: usize) -> Option<usize> {
        if self.lower_case_honorific_before(i - 1) {
            return self.named_after_honorific(i);
        }
        if matches!(self.b[i - 2], b'z' | b'm' | b'd' | b'y') {
            self.named_after_noun(i)
        } else {
            None
        }
    }

    /// The name after a noun for a person with "our" or "my" ([`lexicon::person_noun_ours`]:
    /// "Müvekkilimiz Lezize Korutürk", "çalışanımız Can Dündar", two or three words), or after a
    /// noun for a person and "named" or "called" ("a customer named Weining Li", "the patient called
    /// Oluwaseun", one word or more), or after a participle and "by" ([`lexicon::by_verb`]: "signed
    /// by Hiroshi Tanaka", two words or more), from `i`: the end of the name.
    pub(super) fn named_after_noun(&mut self, i: usize) -> Option<usize> {
        let b = self.b;
        let before = i - 1;
        let word = letters_start(b, before, 24);
        if word == before || (word > 0 && text::is_word_byte(b[word - 1])) {
            return None;
        }
        let by = &b[word..before] == b"by";
        let least = if by {
            // "signed by Hiroshi Tanaka": two words or more after a participle.
            let verb_end = text::before_spaces(b, word);
            let verb = letters_start(b, verb_end, 16);
            if verb_end == word || !lexicon::by_verb(&b[verb..verb_end]) {
                return None;
            }
            2
        } else if matches!(&b[word..before], b"named" | b"called") {
            let noun_end = text::before_spaces(b, word);
            let noun = letters_start(b, noun_end, 12);
            if noun_end == word
                || noun == noun_end
                || (noun > 0 && text::is_word_byte(b[noun - 1]))
                || !self.folded_is(noun, noun_end, lexicon::person_noun_en)
            {
                return None;
            }
            1
        } else if self.folded_is(word, before, lexicon::person_noun_ours) {
            2
        } else {
            return None;
        };
        let (start, stop) = self.name_words(i, 3)?;
        // "approved by Board Resolution 12": a name is no numbered thing.
        if by && digit_at(b, text::after_spaces(b, stop)).is_some() {
            return None;
        }
        let (mut words, mut k) = (1, start);
        while k < stop {
            let space = text::space_at(b, k);
            words += usize::from(space > 0);
            k += space.max(1);
        }
        if words < least
            || self.folded_is(
                self.last_word_start(start, stop),
                stop,
                lexicon::compound_head,
            )
        {
            return None;
        }
        self.hit(
            start,
            stop,
            PiiType::PersonName,
            D_GAZETTEER,
            "person_name_after_noun",
        );
        Some(stop)
    }

    /// The start of the last word of the name at `start..stop`.
    pub(super) fn last_word_start(&self, start: usize, stop: usize) -> usize {
        letters_start(self.b, stop, stop - start).max(start)
    }

    /// The name (up to four capitalised words) after an honorific, from `from`: its end when there is
    /// one.
    pub(super) fn named_after_honorific(&mut self, from: usize) -> Option<usize> {
        let (start, stop) = self.name_words(from, 4)?;
        self.hit(
            start,
            stop,
            PiiType::PersonName,
            D_LABEL,
            "person_name_honorific",
        );
        Some(stop)
    }

    /// A letter's closing that begins with the word at `i..end` ([`Word::Closing`]) at the start of
    /// its line ("Best regards,", "Saygılarımla,", "Mit freundlichen Grüßen"), and the name that signs
    /// it: alone on the next line (past one blank line), or after the closing's comma on its own line
    /// ("Thanks, John."). One word signs only when it is a known name: "Best,\nMarketing" is no one,
    /// nor is a team or a company ("Regards,\nThe Support Team"). Where the scan goes on.
    #[inline(never)]
    pub(super) fn signed_closing(&mut self, i: usize, end: usize) -> usize {
        let b = self.b;
        let lead = text::before_spaces(b, i);
        if lead > 0 && b[lead - 1] != b'\n' {
            return end;
        }
        // The closing's line: 40 bytes at most.
        let limit = (i + 40).min(b.len());
        let line_end = memchr::memchr(b'\n', &b[i..limit]).map_or(limit, |p| i + p);
        if line_end == limit && limit < b.len() {
            return end;
        }
        let comma = memchr::memchr(b',', &b[i..line_end]).map(|p| i + p);
        let after_comma = comma.map(|c| text::after_spaces(b, c + 1));
        let same_line = after_comma.filter(|&a| a < line_end && !matches!(b[a], b'\r'));
        let mut closing_end = comma.unwrap_or(line_end);
        while closing_end > i && matches!(b[closing_end - 1], b' ' | b'\r' | b'.' | b'!') {
            closing_end -= 1;
        }
        let (mut stack, mut spill) = ([0u8; 40], Vec::new());
        if !lexicon::closing(text::fold_short(&b[i..closing_end], &mut stack, &mut spill)) {
            return end;
        }
        let from = match same_line {
            Some(from) => from,
            None => {
                // The next line, or the one after a blank line.
                let mut next = line_end + 1;
                let blank_end = text::after_spaces(b, next);
                let blank_end = blank_end + usize::from(b.get(blank_end) == Some(&b'\r'));
                if b.get(blank_end) == Some(&b'\n') {
                    next = blank_end + 1;
                }
                text::after_spaces(b, next)
            }
        };
        if !upper_at(b, from) {
            return end;
        }
        let Some((start, stop)) = self.name_words(from, 3) else {
            return end;
        };
        // The name ends its line (a comma or a full stop may close it).
        let mut after = text::after_spaces(b, stop);
        if matches!(b.get(after), Some(b',' | b'.')) {
            after = text::after_spaces(b, after + 1);
        }
        if !matches!(b.get(after), None | Some(b'\n' | b'\r')) {
            return end;
        }
        if !b[start..stop].contains(&b' ') {
            let (mut stack, mut spill) = ([0u8; 40], Vec::new());
            let known = matches!(
                lexicon::lookup(text::fold_short(&b[start..stop], &mut stack, &mut spill)),
                Some(Word::FirstName | Word::Surname | Word::Either)
            );
            if !known {
                return end;
            }
        }
        self.hit(
            start,
            stop,
            PiiType::PersonName,
            D_GAZETTEER,
            "person_name_signoff",
        );
        stop
    }

    /// Whether the word ending at `end` (a space follows it) is an honorific in lower case, a word of
    /// its own ([`lexicon::lower_case_honorific`]).
    pub(super) fn lower_case_honorific_before(&self, end: usize) -> bool {
        let b = self.b;
        let mut start = end;
        while start > 0 && end - start <= 12 && b[start - 1].is_ascii_lowercase() {
            start -= 1;
        }
        end - start >= 3
            && end - start <= 12
            && !(start > 0 && text::is_word_byte(b[start - 1]))
            && lexicon::lower_case_honorific(&b[start..end])
    }

    /// Whether the word before the one at `i`, on its line, is a greeting ([`lexicon::greeting`]).
    pub(super) fn greeting_before(&self, i: usize) -> bool {
        let b = self.b;
        let mut end = i;
        while end > 0 && b[end - 1] == b' ' {
            end -= 1;
        }
        if end == i || end == 0 {
            return false;
        }
        let mut start = end;
        while start > 0 && end - start <= 12 && b[start - 1].is_ascii_alphabetic() {
            start -= 1;
        }
        // A greeting is an ASCII word of at most 8 letters, standing at its start.
        if start == end || end - start > 8 || (start > 0 && text::is_word_byte(b[start - 1])) {
            return false;
        }
        lexicon::greeting(&b[start..end])
    }
}
