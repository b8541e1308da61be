//! Words starting with a capital letter: person names from the gazetteers, markers and surnames, and
//! the "<name> tarafından" agents.

use super::*;

impl<'t> Scanner<'t> {
    /// "<Ad Soyad> tarafından" (Turkish "by <person>"): two or three capitalised words right before it.
    // Out of `run`'s loop (see `tables`).
    #[inline(never)]
    pub(super) fn agents(&mut self) {
        // One vectorised search for the shared prefix, with a searcher built once: `str::match_indices`
        // walked the whole text byte by byte (some 6 % of a scan of number-dense text), and a searcher
        // built per call cost more than the search in a document's many short elements.
        static PREFIX: std::sync::OnceLock<memchr::memmem::Finder<'static>> =
            std::sync::OnceLock::new();
        let prefix = PREFIX.get_or_init(|| memchr::memmem::Finder::new(b"taraf"));
        let text = self.text;
        let b = self.b;
        for at in prefix.find_iter(b) {
            let rest = &b[at + 5..];
            if !(rest.starts_with("ından".as_bytes()) || rest.starts_with(b"indan")) {
                continue;
            }
            // Up to three words right before, on the same line: a paragraph that starts with the name
            // has a line break, not a space, before it, and a table cell a tab; word processors put
            // no-break spaces between a name's words. Walked back over bytes (every separator is whole
            // characters, so each word's slice is too).
            let separator = |i: usize| {
                if i > 0 && b[i - 1] == b'\t' {
                    1
                } else {
                    text::space_before(b, i)
                }
            };
            let last = separator(at);
            if last == 0 {
                continue;
            }
            let floor = text::floor_boundary(text, at.saturating_sub(80));
            let mut spans = [(0, 0); 3];
            let mut count = 0;
            let mut end = at - last;
            while count < 3 {
                let mut start = end;
                while start > floor
                    && separator(start) == 0
                    && !matches!(b[start - 1], b'\n' | b'\r')
                {
                    start -= 1;
                }
                spans[count] = (start, end);
                count += 1;
                let gap = separator(start);
                if start == floor || gap == 0 {
                    break;
                }
                end = start - gap;
            }
            let mut words = [""; 3];
            for (word, &(start, end)) in words.iter_mut().zip(&spans[..count]) {
                *word = &text[start..end];
            }
            let words = &words[..count];
            let mut capitalised = words
                .iter()
                .take_while(|w| {
                    w.chars().next().is_some_and(char::is_uppercase)
                        && w.chars().all(char::is_alphabetic)
                })
                .count();
            // Two words ("Şenkal Karadeniz"); a third only when it is a known first name
            // ("Ayşe Gül Yılmaz"), so that "Fatura Şenkal Karadeniz" keeps "Fatura".
            if capitalised == 3
                && !matches!(
                    lexicon::lookup(&text::fold(words[2])),
                    Some(Word::FirstName | Word::Either)
                )
            {
                capitalised = 2;
            }
            if capitalised >= 2 {
                self.hit(
                    spans[capitalised - 1].0,
                    at - last,
                    PiiType::PersonName,
                    D_GAZETTEER,
                    "person_name_agent",
                );
            }
        }
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
        match found {
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
        }
    }

    /// The name that the capitalised word at `i..end` ends, when "adlı", "isimli" or "adındaki" and a
    /// noun for a person follow it: the end of the name. Most words are turned away here, inline, by
    /// the two bytes after their space.
    #[inline(always)]
    pub(super) fn marked_name(&mut self, i: usize, end: usize) -> Option<usize> {
        let b = self.b;
        if b.get(end) == Some(&b' ') && matches!(b.get(end + 1..end + 3), Some(b"ad" | b"is")) {
            self.name_before_marker(i, end)
        } else {
            None
        }
    }

    /// A capitalised word no list knows, at `i..end`, greeted and followed by a comma: "Hi Priya,",
    /// "Merhaba Nilay," (not "Hi All,", "Hello World,", "Dear Customer,"). The end of the name.
    #[inline(always)]
    pub(super) fn greeted_name(&mut self, i: usize, end: usize) -> Option<usize> {
        if self.b.get(end) == Some(&b',') && self.greeting_before(i) {
            self.greeted_word(i, end)
        } else {
            None
        }
    }

    #[inline(never)]
    pub(super) fn greeted_word(&mut self, i: usize, end: usize) -> Option<usize> {
        if end - i < 2 || self.behind_label(i, end, true) != lexicon::Behind::Word {
            return None;
        }
        self.hit(i, end, PiiType::PersonName, D_GIVEN, "person_name_greeting");
        Some(end)
    }

    /// Two capitalised words on one line, the second at `i..end`, before a word that introduces what
    /// a person is ([`lexicon::name_marker`]) and a noun for a person ([`lexicon::person_noun`]):
    /// "Lezize Korutürk adlı müşteri", "Sevim Tekinalp adında bir hasta". A third word before them
    /// counts when it is a known given name, as for "tarafından". Not a company's or an
    /// organisation's words, nor a place's by its Turkish compound ending ("Ankara Şubesi adlı
    /// personel"); "Kuzey Yıldızı adlı gemi" names no person.
    #[inline(never)]
    pub(super) fn name_before_marker(&mut self, i: usize, end: usize) -> Option<usize> {
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

    /// Whether the fold of the word at `start..end` passes `test`.
    pub(super) fn folded_is(&self, start: usize, end: usize, test: impl Fn(&[u8]) -> bool) -> bool {
        let (mut stack, mut spill) = ([0u8; 40], Vec::new());
        test(text::fold_short(
            &self.b[start..end],
            &mut stack,
            &mut spill,
        ))
    }

    /// An Irish surname, "O'" at `i` and a capitalised word ("O'Sullivan", "O’Brien",
    /// "O'Neill-Byrne"), ending its run of capitalised words, with the capitalised word before it as
    /// its given name ("Siobhan O'Sullivan") unless that word names no person or is a title: the end of
    /// the name. "O'nun" (Turkish "his") is none.
    #[inline(never)]
    pub(super) fn irish_surname(&mut self, i: usize) -> Option<usize> {
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
    pub(super) fn given_before_surname(&mut self, i: usize, end: usize) -> Option<usize> {
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
    pub(super) fn given_after_surname(&mut self, i: usize, end: usize) -> Option<usize> {
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

    /// Whether the word after the spaces at `from` is a title ("Dr", "Sayın").
    pub(super) fn honorific_follows(&mut self, from: usize) -> bool {
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

    /// Up to `max` capitalised words starting after spaces at `from`: the span of the words.
    pub(super) fn name_words(&self, from: usize, max: usize) -> Option<(usize, usize)> {
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
    pub(super) fn behind_label(&self, start: usize, end: usize, first: bool) -> lexicon::Behind {
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

    /// A known given name at `i..first_end` and the capitalised words after it: a name when a known
    /// surname follows ("Ayşe K. Yılmaz"), when a title follows ("Ahmet Bey", "Elif Hanım'a"), when
    /// one word no gazetteer knows ends the run ("Mehmet Karadağlı katıldı", "John Whitfield and"),
    /// and alone after a greeting, a lower-case honorific or a letter's closing.
    pub(super) fn gazetteer_name(&mut self, i: usize, first_end: usize) -> usize {
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
                    if !found_surname && !initial {
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
    pub(super) fn saint_before(&self, end: usize) -> bool {
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
    pub(super) fn unknown_surname(
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
