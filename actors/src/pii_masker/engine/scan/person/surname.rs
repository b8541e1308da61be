//! Names told by their surname: an Irish "O'" surname, a distinctive surname after one unknown
//! capitalised word, a Chinese or Vietnamese surname before the given names.

use super::*;

impl<'t> Scanner<'t> {
    /// An Irish surname, "O'" at `i` and a capitalised word ("O'Sullivan", "O’Brien",
    /// "O'Neill-Byrne"), ending its run of capitalised words, with the capitalised word before it as
    /// its given name ("Siobhan O'Sullivan") unless that word names no person or is a title: the end of
    /// the name. "O'nun" (Turkish "his") is none.
    #[inline(never)]
    pub(in crate::pii_masker::engine::scan) fn irish_surname(&mut self, i: usize) -> Option<usize> {
        let b = self.b;
        let apostrophe = match b.get(i + 1) {
            Some(b'\'') => 1,
            Some(0xE2) if b.get(i + 2..i + 4) == Some(&[0x80, 0x99]) => 3,
            _ => return None,
        };
        let rest = i + 1 + apostrophe;
        if !upper_at(b, rest) {
            return None;
        }
        let mut stop = self.word_end(rest);
        if stop - rest < 2 || digit_at(b, stop).is_some() {
            return None;
        }
        if b.get(stop) == Some(&b'-') && upper_at(b, stop + 1) {
            stop = self.word_end(stop + 1);
        }
        let next = text::after_spaces(b, stop);
        if next > stop && upper_at(b, next) {
            return None;
        }
        let mut start = i;
        let space = text::space_before(b, i);
        if space > 0 {
            let given_end = i - space;
            let given = letters_start(b, given_end, 40);
            if given_end - given >= 2
                && upper_at(b, given)
                && !(given > 0 && text::is_word_byte(b[given - 1]))
                && self.behind_label(given, given_end, true) == lexicon::Behind::Word
            {
                start = given;
            }
        }
        self.hit(
            start,
            stop,
            PiiType::PersonName,
            D_GIVEN,
            "person_name_surname",
        );
        Some(stop)
    }

    /// A distinctive surname at `i..end` ([`lexicon::distinctive_surname`]: "Chen", "Schmidt") after
    /// one capitalised word that no list knows, taken for its given name ("Danqi Chen", "Ruochen
    /// Zhang"): the two words alone make the run of capitalised words, and the word is no firm's or
    /// organisation's. The end of the name.
    #[inline(never)]
    pub(in crate::pii_masker::engine::scan) fn given_before_surname(
        &mut self,
        i: usize,
        end: usize,
    ) -> Option<usize> {
        let b = self.b;
        if i < 3 || b[i - 1] != b' ' {
            return None;
        }
        let given_end = i - 1;
        let given = letters_start(b, given_end, 31);
        if given_end - given < 2
            || !upper_at(b, given)
            || (given > 0 && text::is_word_byte(b[given - 1]))
        {
            return None;
        }
        if !self.folded_is(given, given_end, lexicon::may_be_surname) {
            return None;
        }
        // No capitalised word before it on its line, nor after the surname.
        if capitalised_before(b, given) {
            return None;
        }
        let next = text::after_spaces(b, end);
        if next > end && upper_at(b, next) {
            return None;
        }
        self.hit(
            given,
            end,
            PiiType::PersonName,
            D_GIVEN,
            "person_name_surname",
        );
        Some(end)
    }

    /// A Chinese or Vietnamese surname at `i..end` ([`lexicon::surname_first`]) before one or two
    /// capitalised words that no list knows, which end the run of capitalised words and follow no
    /// capitalised word: "Zhang Wei", "Nguyen Van An". The end of the name.
    #[inline(never)]
    pub(in crate::pii_masker::engine::scan) fn given_after_surname(
        &mut self,
        i: usize,
        end: usize,
    ) -> Option<usize> {
        let b = self.b;
        if capitalised_before(b, i) {
            return None;
        }
        let mut stop = end;
        for _ in 0..2 {
            let next = text::after_spaces(b, stop);
            if next == stop || !upper_at(b, next) {
                break;
            }
            let next_end = self.word_end(next);
            if next_end - next < 2
                || digit_at(b, next_end).is_some()
                || !self.folded_is(next, next_end, lexicon::may_be_surname)
            {
                return None;
            }
            stop = next_end;
        }
        let after = text::after_spaces(b, stop);
        if stop == end || (after > stop && upper_at(b, after)) {
            return None;
        }
        self.hit(
            i,
            stop,
            PiiType::PersonName,
            D_GIVEN,
            "person_name_surname_first",
        );
        Some(stop)
    }
}
