//! "Lezize Korutürk adlı müşteri": capitalised words before a word that introduces what a person is
//! and a noun for a person.

use super::*;

impl<'t> Scanner<'t> {
    /// The name that the capitalised word at `i..end` ends, when "adlı", "isimli" or "adındaki" and a
    /// noun for a person follow it: the end of the name. Most words are turned away here, inline, by
    /// the two bytes after their space.
    #[inline(always)]
    pub(in crate::pii_masker::engine::scan) fn marked_name(
        &mut self,
        i: usize,
        end: usize,
    ) -> Option<usize> {
        let b = self.b;
        if b.get(end) == Some(&b' ') && matches!(b.get(end + 1..end + 3), Some(b"ad" | b"is")) {
            self.name_before_marker(i, end)
        } else {
            None
        }
    }

    /// Two capitalised words on one line, the second at `i..end`, before a word that introduces what
    /// a person is ([`lexicon::name_marker`]) and a noun for a person ([`lexicon::person_noun`]):
    /// "Lezize Korutürk adlı müşteri", "Sevim Tekinalp adında bir hasta". A third word before them
    /// counts when it is a known given name, as for "tarafından". Not a company's or an
    /// organisation's words, nor a place's by its Turkish compound ending ("Ankara Şubesi adlı
    /// personel"); "Kuzey Yıldızı adlı gemi" names no person.
    #[inline(never)]
    pub(in crate::pii_masker::engine::scan) fn name_before_marker(
        &mut self,
        i: usize,
        end: usize,
    ) -> Option<usize> {
        let b = self.b;
        let marker = end + 1;
        let marker_end = self.word_end(marker);
        if marker_end - marker > 12 || !self.folded_is(marker, marker_end, lexicon::name_marker) {
            return None;
        }
        let mut noun = text::after_spaces(b, marker_end);
        if noun == marker_end {
            return None;
        }
        if b[noun..].starts_with(b"bir ") {
            noun = text::after_spaces(b, noun + 3);
        }
        let noun_end = self.word_end(noun);
        if noun_end == noun
            || noun_end - noun > 40
            || !self.folded_is(noun, noun_end, lexicon::person_noun)
        {
            return None;
        }
        let mut words = [(i, end); 3];
        let mut count = 1;
        while count < 3 {
            let start = words[count - 1].0;
            let space = text::space_before(b, start);
            if space == 0 {
                break;
            }
            let word_end = start - space;
            let word = letters_start(b, word_end, 40);
            if word == word_end
                || !upper_at(b, word)
                || (word > 0 && text::is_word_byte(b[word - 1]))
            {
                break;
            }
            words[count] = (word, word_end);
            count += 1;
        }
        if count == 3
            && !self.folded_is(words[2].0, words[2].1, |folded| {
                matches!(
                    lexicon::lookup(folded),
                    Some(Word::FirstName | Word::Either)
                )
            })
        {
            count = 2;
        }
        if count < 2 || self.folded_is(i, end, lexicon::compound_head) {
            return None;
        }
        for (position, &(start, stop)) in words[..count].iter().enumerate() {
            if self.behind_label(start, stop, position == count - 1) != lexicon::Behind::Word {
                return None;
            }
        }
        self.hit(
            words[count - 1].0,
            end,
            PiiType::PersonName,
            D_GAZETTEER,
            "person_name_marked",
        );
        Some(end)
    }
}
