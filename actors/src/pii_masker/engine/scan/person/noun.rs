//! Names after a noun for a person: "Müvekkilimiz Lezize Korutürk", "a customer named Weining Li",
//! "signed by Hiroshi Tanaka".

use super::*;

impl<'t> Scanner<'t> {
    /// The name after a noun for a person with "our" or "my" ([`lexicon::person_noun_ours`]:
    /// "Müvekkilimiz Lezize Korutürk", "çalışanımız Can Dündar", two or three words), or after a
    /// noun for a person and "named" or "called" ("a customer named Weining Li", "the patient called
    /// Oluwaseun", one word or more), or after a participle and "by" ([`lexicon::by_verb`]: "signed
    /// by Hiroshi Tanaka", two words or more), from `i`: the end of the name.
    pub(in crate::pii_masker::engine::scan) fn named_after_noun(
        &mut self,
        i: usize,
    ) -> Option<usize> {
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
        // "cancelled by Credit Suisse", "reviewed by Quarterly Review": the words must read as a name.
        if words < least
            || (by && !self.reads_as_name(start, stop))
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
}
