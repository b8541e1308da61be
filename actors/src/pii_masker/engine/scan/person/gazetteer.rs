//! A known given name and the capitalised words after it: a known surname, a title after the name,
//! one unknown word that ends the run ("Mehmet Karadağlı katıldı").

use super::*;

impl<'t> Scanner<'t> {
    /// A known given name at `i..first_end` and the capitalised words after it: a name when a known
    /// surname follows ("Ayşe K. Yılmaz"), when a title follows ("Ahmet Bey", "Elif Hanım'a"), when
    /// one word no gazetteer knows ends the run ("Mehmet Karadağlı katıldı", "John Whitfield and"),
    /// and alone after a greeting, a lower-case honorific or a letter's closing.
    pub(in crate::pii_masker::engine::scan) fn gazetteer_name(
        &mut self,
        i: usize,
        first_end: usize,
    ) -> usize {
        let b = self.b;
        // A saint's name is a place's: "San Luis Potosí", "Santa Maria", "São Paulo", "Saint Louis".
        if i >= 4 && b[i - 1] == b' ' && self.saint_before(i - 1) {
            return first_end;
        }
        let mut end = first_end;
        let (mut found_surname, mut titled) = (false, false);
        let mut cursor = first_end;
        let (mut words, mut initial) = (0, false);
        while words < 2 {
            let space = text::space_at(b, cursor);
            if space == 0 || !upper_at(b, cursor + space) {
                break;
            }
            let ws = cursor + space;
            let we = self.word_end(ws);
            // One middle initial between the names: "John M. Smith", "Ayşe K. Yılmaz".
            if !initial && we > ws && letter_at(b, ws) == we - ws && b.get(we) == Some(&b'.') {
                initial = true;
                cursor = we + 1;
                continue;
            }
            words += 1;
            if we - ws < 2 {
                break;
            }
            let (mut stack, mut spill) = ([0u8; 40], Vec::new());
            let folded = text::fold_short(&b[ws..we], &mut stack, &mut spill);
            match lexicon::lookup(folded) {
                Some(Word::Surname | Word::Either) => {
                    found_surname = true;
                    end = we;
                }
                Some(Word::FirstName) => end = we,
                Some(_) => break,
                None if lexicon::post_title(folded) => {
                    // Not when the title begins a place's name: "Selim Bey Apartmanı".
                    let next = text::after_spaces(b, we);
                    titled = next == we || !upper_at(b, next);
                    break;
                }
                None => {
                    // "Omar AB": a company's legal form, no surname.
                    if !found_surname && !initial && !lexicon::legal_form_in_capitals(&b[ws..we]) {
                        if let Some(stop) = self.unknown_surname(i, first_end, we, folded) {
                            self.hit(i, stop, PiiType::PersonName, D_GIVEN, "person_name_given");
                            return stop;
                        }
                    }
                    break;
                }
            }
            cursor = we;
        }
        if found_surname {
            self.hit(
                i,
                end,
                PiiType::PersonName,
                D_GAZETTEER,
                "person_name_gazetteer",
            );
        } else if titled {
            // "Ahmet Bey", "Elif Hanım'a": the names before the title.
            self.hit(
                i,
                end,
                PiiType::PersonName,
                D_GAZETTEER,
                "person_name_title_after",
            );
        } else if self.greeting_before(i) {
            // "Merhaba Mehmet,", "Dear Emma,": a given name alone, greeted.
            self.hit(
                i,
                end,
                PiiType::PersonName,
                D_GAZETTEER,
                "person_name_greeting",
            );
        } else if let Some(stop) = self.honorific_name(i) {
            return stop;
        }
        end
    }

    /// Whether the word ending at `end` is "San", "Santa", "Santo", "São", "Saint", "Sainte", "Sankt"
    /// or "St." (a place named after a saint follows).
    pub(in crate::pii_masker::engine::scan) fn saint_before(&self, end: usize) -> bool {
        let b = self.b;
        let start = letters_start(b, end - usize::from(b[end - 1] == b'.'), 8);
        (start == 0 || !text::is_word_byte(b[start - 1]))
            && matches!(
                &b[start..end],
                b"San"
                    | b"Santa"
                    | b"Santo"
                    | b"S\xC3\xA3o"
                    | b"Saint"
                    | b"Sainte"
                    | b"Sankt"
                    | b"St."
            )
    }

    /// The end of the surname ending at `we` (`folded`), a capitalised word no gazetteer knows, after the
    /// known given name at `i..given_end` ("Mehmet Karadağlı", "Sarah Connolly-Hughes"): when the
    /// given name is no common word ([`lexicon::word_like_given_name`]: "Ege Üniversitesi"), the word
    /// may be a surname ([`lexicon::may_be_surname`]), and it ends the run of capitalised words
    /// (or a title follows it, "Mehmet Karadağlı Bey", or a known surname ends it, "Mehmet Karadağlı
    /// Yılmaz"). A run that goes on is a heading or a place's
    /// name ("Thomas Cook Holidays", "Fatih Camii Avlusu"), left alone.
    pub(in crate::pii_masker::engine::scan) fn unknown_surname(
        &self,
        i: usize,
        given_end: usize,
        mut we: usize,
        folded: &[u8],
    ) -> Option<usize> {
        let b = self.b;
        // A digit right after the word makes it an id ("Ahmet AB12"), unless it is one footnote mark
        // after a word in lower case, as in a paper's author line ("Jacob Carlson3,").
        let footnote = b.get(we).is_some_and(u8::is_ascii_digit)
            && !b.get(we + 1).is_some_and(u8::is_ascii_alphanumeric)
            && b[we - 1].is_ascii_lowercase();
        if !lexicon::may_be_surname(folded) || (digit_at(b, we).is_some() && !footnote) {
            return None;
        }
        // "A.Ş.", "St.Louis": letters joined by a dot are no surname.
        if b.get(we) == Some(&b'.') && letter_at(b, we + 1) > 0 {
            return None;
        }
        // A double surname: "Connolly-Hughes", "Karadağlı-Öz".
        if b.get(we) == Some(&b'-') && upper_at(b, we + 1) {
            we = self.word_end(we + 1);
        }
        if self.folded_is(i, given_end, lexicon::word_like_given_name) {
            return None;
        }
        let next = text::after_spaces(b, we);
        if next > we && upper_at(b, next) {
            let next_end = self.word_end(next);
            let (mut stack, mut spill) = ([0u8; 40], Vec::new());
            let folded = text::fold_short(&b[next..next_end], &mut stack, &mut spill);
            if matches!(lexicon::lookup(folded), Some(Word::Surname | Word::Either))
                && !upper_at(b, text::after_spaces(b, next_end))
            {
                // A second surname, known: "Mehmet Karadağlı Yılmaz".
                return Some(next_end);
            }
            if !lexicon::post_title(folded) {
                return None;
            }
        }
        Some(we)
    }
}
