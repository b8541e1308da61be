//! Names after a title: "Sayın Ayşe Yılmaz", "Prof. Dr. Ali Çelik", "de heer Jansen", "monsieur
//! Dupont".

use super::*;

impl<'t> Scanner<'t> {
    /// A name after an honorific written in lower case ("de heer Jansen", "mevrouw De Vries",
    /// "monsieur Dupont": up to four capitalised words): the end of the name when there is one.
    #[inline(always)]
    pub(in crate::pii_masker::engine::scan) fn honorific_name(
        &mut self,
        i: usize,
    ) -> Option<usize> {
        // Most capitalised words are turned away here, inline, by the two bytes before their space:
        // how a lower-case honorific ("heer", "mevrouw", "monsieur", "signora"), "named", "called",
        // "by" or a noun for a person with "our" or "my" ("müvekkilimiz", "-ımız", "-ım") may end
        // ([`lexicon::before_name`], built from those lists).
        let b = self.b;
        let promising =
            i >= 4 && b[i - 1] == b' ' && lexicon::before_name().may_end(b[i - 3], b[i - 2]);
        if promising {
            self.honorific_name_after(i)
        } else {
            None
        }
    }

    #[inline(never)]
    pub(in crate::pii_masker::engine::scan) fn honorific_name_after(
        &mut self,
        i: usize,
    ) -> Option<usize> {
        if self.lower_case_honorific_before(i - 1) {
            return self.named_after_honorific(i);
        }
        if lexicon::before_name().may_introduce(self.b[i - 2]) {
            self.named_after_noun(i)
        } else {
            None
        }
    }

    /// The name (up to four capitalised words) after an honorific, from `from`: its end when there is
    /// one.
    pub(in crate::pii_masker::engine::scan) fn named_after_honorific(
        &mut self,
        from: usize,
    ) -> Option<usize> {
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

    /// Whether the word ending at `end` (a space follows it) is an honorific in lower case, a word of
    /// its own ([`lexicon::lower_case_honorific`]).
    pub(in crate::pii_masker::engine::scan) fn lower_case_honorific_before(
        &self,
        end: usize,
    ) -> bool {
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

    /// Whether the word after the spaces at `from` is a title ("Dr", "Sayın").
    pub(in crate::pii_masker::engine::scan) fn honorific_follows(&mut self, from: usize) -> bool {
        let b = self.b;
        let i = text::after_spaces(b, from);
        if i == from || !upper_at(b, i) {
            return false;
        }
        let end = self.word_end(i);
        let mut stack = [0u8; 40];
        let folded = text::fold_short(&b[i..end], &mut stack, &mut self.scratch);
        end - i >= 2 && lexicon::lookup(folded) == Some(Word::Honorific)
    }
}
