//! "Hi Priya,", "Merhaba Nilay,": a capitalised word after a greeting and before a comma.

use super::*;

impl<'t> Scanner<'t> {
    /// A capitalised word no list knows, at `i..end`, greeted and followed by a comma: "Hi Priya,",
    /// "Merhaba Nilay," (not "Hi All,", "Hello World,", "Dear Customer,"). The end of the name.
    #[inline(always)]
    pub(in crate::pii_masker::engine::scan) fn greeted_name(
        &mut self,
        i: usize,
        end: usize,
    ) -> Option<usize> {
        if self.b.get(end) == Some(&b',') && self.greeting_before(i) {
            self.greeted_word(i, end)
        } else {
            None
        }
    }

    #[inline(never)]
    pub(in crate::pii_masker::engine::scan) fn greeted_word(
        &mut self,
        i: usize,
        end: usize,
    ) -> Option<usize> {
        if end - i < 2 || self.behind_label(i, end, true) != lexicon::Behind::Word {
            return None;
        }
        self.hit(i, end, PiiType::PersonName, D_GIVEN, "person_name_greeting");
        Some(end)
    }

    /// Whether the word before the one at `i`, on its line, is a greeting ([`lexicon::greeting`]).
    pub(in crate::pii_masker::engine::scan) fn greeting_before(&self, i: usize) -> bool {
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
