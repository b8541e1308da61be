//! The walks over a name's words that the rules share: the capitalised words behind a title or a
//! label, and what each of them is there.

use super::*;

impl<'t> Scanner<'t> {
    /// Up to `max` capitalised words starting after spaces at `from`: the span of the words.
    pub(in crate::pii_masker::engine::scan) fn name_words(
        &self,
        from: usize,
        max: usize,
    ) -> Option<(usize, usize)> {
        let b = self.b;
        let mut i = text::after_spaces(b, from);
        let mut start = i;
        let mut end = None;
        let mut words = 0;
        while words < max && upper_at(b, i) {
            let mut j = self.word_end(i);
            while matches!(b.get(j), Some(b'-' | b'\'')) && upper_at(b, j + 1)
                || (b.get(j) == Some(&b'-') && letter_at(b, j + 1) > 0)
            {
                j = self.word_end(j + 1);
            }
            // An initial, with its dot, inside the name ("Ad Soyad: Ayşe K. Yılmaz", "M. Ali Yılmaz"):
            // the name goes on after it (it ended there, and left the surname unmasked).
            if letter_at(b, i) == j - i && b.get(j) == Some(&b'.') {
                let next = text::after_spaces(b, j + 1);
                if next > j + 1 && upper_at(b, next) && words + 1 < max {
                    end = Some(j + 1);
                    words += 1;
                    i = next;
                    continue;
                }
                break;
            }
            // A word that goes on in digits is an id, not a name ("Sayın Ayşe Yılmaz TR59 1787
            // ..."): the name would take its letters, overlap the IBAN and lose to it whole. A word
            // before a colon after the first is the next field's label ("Soyadı: Korutürk İletişim:
            // 0531 ...").
            if j - i < 2
                || digit_at(b, j).is_some()
                || (words > 0 && matches!(b.get(text::after_spaces(b, j)), Some(b':' | b'=')))
            {
                break;
            }
            // A company's name behind a name label or a title ("Alıcı: Yaman Gıda Ltd. Şti.",
            // "Sayın Akdeniz Yapı Sanayi A.Ş."): the words run into a legal form. An organisation
            // ("Türkiye İş Bankası", "Muhasebe Departmanı", "Support Team") or a salutation ("Sayın
            // Yetkili", "Sayın Müşterimiz") is no person either. Titles at the start belong to no
            // name ("Sorumlu: Op. Dr. Ali Çelik").
            match self.behind_label(i, j, words == 0) {
                lexicon::Behind::NoPerson => return None,
                lexicon::Behind::Title => {
                    let after = j + usize::from(b.get(j) == Some(&b'.'));
                    let next = text::after_spaces(b, after);
                    if next == after {
                        break;
                    }
                    i = next;
                    start = next;
                    continue;
                }
                lexicon::Behind::Word => {}
            }
            end = Some(j);
            words += 1;
            let space = text::space_at(b, j);
            if space == 0 {
                break;
            }
            let next = particles_end(b, j + space);
            if upper_at(b, next) {
                i = next;
            } else {
                break;
            }
        }
        // The legal form may stand after the words taken ("Akdeniz Yapı Malzemeleri Pazarlama Ltd.").
        // Not when that word ends in a colon: it is the next field's label ("Soyadı: Korutürk
        // İletişim: 0531 ...").
        if let Some(stop) = end {
            let next = text::after_spaces(b, stop);
            let next_end = self.word_end(next);
            if next > stop
                && upper_at(b, next)
                && b.get(text::after_spaces(b, next_end)) != Some(&b':')
                && self.behind_label(next, next_end, false) == lexicon::Behind::NoPerson
            {
                return None;
            }
        }
        end.map(|end| (start, end))
    }

    /// What the word at `start..end` (with "A.Ş."'s dotted letters and the dot after it) is among the
    /// words behind a title or a name label ([`lexicon::behind_label`]).
    pub(in crate::pii_masker::engine::scan) fn behind_label(
        &self,
        start: usize,
        end: usize,
        first: bool,
    ) -> lexicon::Behind {
        let b = self.b;
        // "A.Ş.", "S.A.", "Ltd.Şti.": letters joined by dots read as one word.
        let mut stop = end;
        while b.get(stop) == Some(&b'.') && letter_at(b, stop + 1) > 0 {
            stop = self.word_end(stop + 1);
        }
        stop += usize::from(b.get(stop) == Some(&b'.'));
        if stop - start > 40 {
            return lexicon::Behind::Word;
        }
        let (mut stack, mut spill) = ([0u8; 40], Vec::new());
        lexicon::behind_label(
            text::fold_short(&b[start..stop], &mut stack, &mut spill),
            first,
        )
    }

    /// The start of the last word of the name at `start..stop`.
    pub(in crate::pii_masker::engine::scan) fn last_word_start(
        &self,
        start: usize,
        stop: usize,
    ) -> usize {
        letters_start(self.b, stop, stop - start).max(start)
    }
}
