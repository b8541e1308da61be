//! A person named in running text with no label, no title and no list entry for the name itself:
//! "Laut Torben Römer ist die Lieferung …", "Raport przygotował Aniela Dzwonnik w marcu." A run of
//! capitalised words is read the way a reader reads it, from the words themselves and their company:
//!
//! - each word of the run: a known given name ([`lexicon::given_name`], some 48,000 of 54 countries), a
//!   known surname ([`lexicon::known_surname`], some 89,000), and how ordinary a word of the text's
//!   language it is ([`lexicon::Language::rank`]: "Lieferung", "Quarterly", "Yesterday" are; "Römer",
//!   "Dzwonnik" are not);
//! - the run's company: a title or a word of people right before it ("according to", "laut",
//!   "selon", "przygotował", [`lexicon::Language::before`]) or right after it ("said", "sagte",
//!   [`lexicon::Language::after`]), and whether it stands inside a sentence (where a capital marks a name in
//!   every language of the list but German);
//! - what no person is: a legal form or an organisation's word in or right after the run ("Deutsche
//!   Bank", "Nordwind Handel GmbH"), a month, an article before it ("the Rose Garden"), a heading's
//!   line of capitalised words, a run of more than four words.
//!
//! Ordinary words at the run's ends are passed over ("Yesterday Torben Römer called"), and the rest
//! (two to four words) is a person when its first word reads as a given name, its last as a surname,
//! and the evidence adds up to [`ENOUGH`]; see [`score`](Scanner::prose_name).

use super::*;

/// The most words of a run that is looked at.
const MAX_RUN: usize = 6;

/// A word ranked under this among its language's ordinary words is one, also when it is a name too
/// ("Will", "Mark", "Young"): it counts as half a name.
const FREQUENT: u32 = 2000;

/// A word ranked under this is one of the language's most frequent: at the start of a run of three
/// words or more, it is the sentence's.
const VERY_FREQUENT: u32 = 500;

/// A word ranked under this is a function word ("and", "und", "y"): capitalised after a run's first
/// word, it makes the run a Title Case heading.
const TITLE_CASE: u32 = 100;

/// A word ranked under this, and no known name, is an ordinary word: not a name at all.
const ORDINARY: u32 = 15_000;

/// The evidence a run needs (see [`Scanner::prose_name`]).
const ENOUGH: u8 = 3;

/// Whether the lists written for Turkish (compounds' heads, given names that are words) apply: the
/// text is Turkish, or its language unknown.
fn turkish(language: Option<&'static lexicon::Language>) -> bool {
    language.is_none_or(|l| l.code == "tr")
}

/// Whether a folded Turkish word is another word of the language with the possessive ending of a
/// compound's head ("Kenarı", "Toplantısı": "Nehir Kenarı", "Veli Toplantısı" are things).
fn possessive_of_a_word(folded: &[u8], language: Option<&'static lexicon::Language>) -> bool {
    let Some(language) = language.filter(|l| l.names_are_words) else {
        return false;
    };
    [&b"si"[..], b"su", b"i", b"u"].iter().any(|ending| {
        folded.len() > ending.len() + 2
            && folded.ends_with(ending)
            && language
                .rank(&folded[..folded.len() - ending.len()])
                .is_some_and(|r| r < ORDINARY)
    })
}

/// What a run's words are found to be.
enum Judged {
    /// A person's name, at this span.
    Person(usize, usize),
    /// No person for sure: an organisation, a heading, a thing.
    NoPerson,
    /// Not enough evidence either way.
    Unsure,
}

/// What one word of a run is.
#[derive(Clone, Copy, Debug)]
struct Evidence {
    start: usize,
    end: usize,
    given: bool,
    surname: bool,
    rank: Option<u32>,
    /// A title ("Dr", "Herr"): passed over at the run's start, and it counts for a person.
    title: bool,
    /// A title or a word that introduces a person: passed over at the run's start.
    introduces: bool,
    /// A legal form or an organisation's word: no person is named.
    no_person: bool,
    /// No word of the text's language but an ordinary word of another supported one ("Société",
    /// "Banco" in English text).
    elsewhere: bool,
    /// An initial with its dot.
    initial: bool,
    /// The name of a place ("Rotterdam"), and no known name of a person.
    place: bool,
    /// Two to four capitals and no known name: an acronym ("IMEI", "PPUH", "HB").
    acronym: bool,
}

impl Evidence {
    /// Neither name nor title, and an ordinary word of the language.
    fn ordinary(&self) -> bool {
        !self.given && !self.surname && self.rank.is_some_and(|r| r < ORDINARY)
    }

    /// An ordinary word of the text's language or of another supported one, name or not.
    fn common(&self) -> bool {
        self.rank.is_some_and(|r| r < ORDINARY) || self.elsewhere
    }

    /// How much the word reads as a given name: 2 a known one that is no frequent word; 1 a known
    /// one that is ("Will", "Dün"), or a word that is no ordinary word of any supported language (a
    /// name the lists lack: "Özbay"); 0 an ordinary word ("Quarterly", "Société" in English text).
    fn as_given(&self) -> u8 {
        match (self.place, self.given, self.rank) {
            (true, _, _) => 0,
            (_, true, Some(r)) if r < TITLE_CASE => 0,
            (_, true, Some(r)) if r < FREQUENT => 1,
            (_, true, _) => 2,
            // A known surname that is no word of the text's language ("Dogan Hethur").
            (_, false, None) if self.surname => 1,
            (_, false, _) => u8::from(!self.common()),
        }
    }

    /// How much the word reads as a surname: 2 a known one that is no frequent word, or a word of
    /// no supported language ("Dzwonnik", "Ergül"); 1 a known one that is frequent ("Smith",
    /// "Demir"), or an ordinary word that is not among the most frequent ("Spanjaard", "Römer"); 0
    /// a frequent word, a place.
    fn as_surname(&self) -> u8 {
        match (self.place, self.surname, self.rank) {
            (true, _, _) => 0,
            (_, surname, Some(r)) if r < FREQUENT => u8::from(surname),
            (_, true, _) => 2,
            (_, false, _) if self.common() => 1,
            (_, false, _) => 2,
        }
    }
}

impl<'t> Scanner<'t> {
    /// A person's name in the run of capitalised words starting at `i` (where no other rule found
    /// one): the end of the run when the run is judged (a person, or no person for sure), `None` to
    /// leave the words to the other rules.
    pub(in crate::pii_masker::engine::scan) fn prose_name(&mut self, i: usize) -> Option<usize> {
        let b = self.b;
        // One look a run: from its first word.
        if self.capitalised_word_before(i) {
            return None;
        }
        let mut run = [None::<Evidence>; MAX_RUN];
        let mut count = 0;
        let mut at = i;
        let language = self.language_at(i);
        loop {
            let mut end = self.word_end(at);
            // "O'Brien", "Connolly-Hughes": one word.
            while matches!(b.get(end), Some(b'-' | b'\'')) && upper_at(b, end + 1) {
                end = self.word_end(end + 1);
            }
            if end == at || digit_at(b, end).is_some() || end - at > 40 {
                return None;
            }
            let word = self.evidence(at, end, language);
            run[count] = Some(word);
            count += 1;
            if word.no_person {
                // An organisation's name, an address: the other rules' (from the next word on).
                return None;
            }
            let dotted = end + usize::from(b.get(end) == Some(&b'.'));
            let after = if word.initial || (word.title && dotted > end) {
                dotted
            } else {
                end
            };
            let space = text::space_at(b, after);
            if space == 0 || count == MAX_RUN {
                break;
            }
            let next = particles_end(b, after + space);
            if !upper_at(b, next) {
                break;
            }
            at = next;
        }
        let run: Vec<Evidence> = run[..count].iter().flatten().copied().collect();
        if !self.running_text(run[0].start, run[run.len() - 1].end) {
            return None;
        }
        // The words that name someone: the run less the words at its start that are the sentence's
        // (ordinary and frequent words: "Yesterday", "Laut", a surname too but a frequent word) or
        // that introduce a person (titles, greetings, "our client"), each passed over in turn until
        // the rest reads as a name.
        // A title after the name ("Ahmet Bey", "Elif Hanım") is none of its words, but tells of one.
        let mut last = run.len();
        let mut introduced = false;
        while last > 1
            && self.folded_is(run[last - 1].start, run[last - 1].end, lexicon::post_title)
        {
            last -= 1;
            introduced = true;
        }
        for first in 0..last {
            let word = &run[first];
            if word.introduces {
                introduced = true;
                continue;
            }
            // A very frequent word before two more is the sentence's ("Dün Ağahbey Kırçiçekoğlu"),
            // and a frequent one before a given name that is none ("Hi Priya").
            let frequent = word.rank.is_some_and(|r| r < FREQUENT);
            // So is a sentence's first word that no list knows as a name, before a known given
            // name and one word more ("Talebinizi Mehmet Demir onayladı"), or before any two when
            // it is a word of the language, however rare its form ("Duruşmada Ümmahan Bilir").
            let sentence_first = first == 0
                && last >= 3
                && !word.given
                && !word.surname
                && (run[1].given || word.rank.is_some())
                && !self.words_before(word.start).1;
            if last - first >= 3
                && (word.rank.is_some_and(|r| r < VERY_FREQUENT)
                    || sentence_first
                    || (frequent && run[first + 1].as_given() == 2))
            {
                continue;
            }
            match self.judge(&run, &run[first..last], introduced, language) {
                Judged::Person(start, end) => {
                    self.hit(
                        start,
                        end,
                        PiiType::PersonName,
                        D_GIVEN,
                        "person_name_prose",
                    );
                    return Some(end);
                }
                // Left to the other rules, word by word.
                Judged::NoPerson => return None,
                Judged::Unsure => {}
            }
            if !(word.ordinary() || frequent) {
                break;
            }
        }
        None
    }

    /// Whether a colon follows `end`, after an abbreviation in brackets if any: the words before are
    /// a label ("Medicare Beneficiary Identifier (MBI):").
    fn label_after(&self, end: usize) -> bool {
        let b = self.b;
        let mut at = text::after_spaces(b, end);
        if b.get(at) == Some(&b'(') {
            match b[at..].iter().take(16).position(|&c| c == b')') {
                Some(close) => at = text::after_spaces(b, at + close + 1),
                None => return false,
            }
        }
        b.get(at) == Some(&b':')
    }

    /// Whether the run at `start..end` stands in running text: a word of three letters or more that
    /// starts in lower case stands beside it in the same stretch of text (not across a line break,
    /// a tab, quotes or brackets: a table's cell, a JSON value, a heading are no sentence).
    fn running_text(&self, start: usize, end: usize) -> bool {
        let b = self.b;
        let stop = |c: u8| {
            matches!(
                c,
                b'\n' | b'\r' | b'\t' | b'"' | b'[' | b']' | b'{' | b'}' | b'|' | b'<' | b'>'
            )
        };
        let from = b[..start]
            .iter()
            .rposition(|&c| stop(c))
            .map_or(0, |p| p + 1);
        let to = b[end..]
            .iter()
            .position(|&c| stop(c))
            .map_or(b.len(), |p| end + p);
        self.lower_case_word(from, start) || self.lower_case_word(end, to)
    }

    /// Whether a word of three letters or more starting in lower case is in `from..to`.
    fn lower_case_word(&self, from: usize, to: usize) -> bool {
        let b = self.b;
        let mut at = from;
        while at < to {
            if letter_at(b, at) == 0 {
                at += 1;
                continue;
            }
            let word_start = at;
            let mut letters = 0;
            while at < to && letter_at(b, at) > 0 {
                at += letter_at(b, at);
                letters += 1;
            }
            if letters >= 3 && !upper_at(b, word_start) {
                return true;
            }
        }
        false
    }

    /// What the words `core` of `run_words` (after `titled`, a title before them) are.
    fn judge(
        &self,
        run_words: &[Evidence],
        core: &[Evidence],
        titled: bool,
        language: Option<&'static lexicon::Language>,
    ) -> Judged {
        let b = self.b;
        if core.len() < 2 || core.len() > 4 || core[0].initial || core[core.len() - 1].initial {
            return Judged::Unsure;
        }
        if core[1..core.len() - 1]
            .iter()
            .any(|w| w.title || (!w.given && !w.surname && w.common()))
        {
            return Judged::Unsure;
        }
        let (start, end) = (core[0].start, core[core.len() - 1].end);
        // An acronym names a thing or a company ("Cihaz IMEI", "PPUH Łyczak", "Rosengren HB"), and so
        // does a legal form written with dots after the run ("Beránková Fišer v.o.s.", "e.V.").
        if core.iter().any(|w| w.acronym) || self.dotted_legal_form_at(text::after_spaces(b, end)) {
            return Judged::NoPerson;
        }
        let capitals_mark_names = language.is_none_or(|l| !l.capitalises_nouns);
        let (mut given, mut surname) = (core[0].as_given(), core[core.len() - 1].as_surname());
        // A place's name before a known surname is a given name too ("Ise Hofman").
        if core[0].place && core[core.len() - 1].surname {
            given = 1;
        }
        // Where every noun is capitalised, a word no list has is as likely a compound noun
        // ("Kundenkonto") as a surname.
        let last = &core[core.len() - 1];
        if !capitals_mark_names && !last.surname && !last.common() {
            surname = surname.min(1);
        }
        // A given name vouches for the word after it where that word may be a surname: one that is
        // a word too ("Anna Rose", "Emre Yıldız" where surnames are words), none of the language's
        // function words.
        let names_are_words = language.is_some_and(|l| l.names_are_words);
        if surname == 0
            && if last.place {
                // A place's name is a surname too ("Finn Oosterhout"), unless a well-known place
                // where surnames are seldom words ("Emre Sakarya" is a name, "Jordan London" none).
                core.len() == 2 && (names_are_words || last.rank.is_none_or(|r| r >= FREQUENT))
            } else {
                last.rank.is_some_and(|r| r >= TITLE_CASE)
            }
            && (given == 2
                || (given == 1 && names_are_words && core[0].rank.is_none_or(|r| r >= FREQUENT)))
        {
            surname = 1;
        }
        // And a surname vouches for the word before it inside a sentence, where capitals mark names:
        // a surname of no language for a given name that is a word of another language but no
        // ordinary one of this one ("przygotował Roza Dzwonnik"); where names are words, any surname
        // for a word of the language (and of no other) that is no frequent one ("şubede İlim
        // Şensoy", "günü Divan Zorlu").
        if given == 0
            && capitals_mark_names
            && !core[0].place
            && ((surname == 2 && core[0].rank.is_none_or(|r| r >= ORDINARY))
                || (names_are_words
                    && !core[0].elsewhere
                    && core[0].rank.is_some_and(|r| r >= FREQUENT)))
            && self.words_before(start).1
        {
            given = 1;
        }
        if given == 0 || surname == 0 {
            return Judged::Unsure;
        }
        // A heading's words run on ("Sales And Margins", "Umsatz Und Marge"), or a label's end in a
        // colon ("Quarterly Review:", "Spanish ID (DNI):").
        // (A name's first word after a greeting or a title may be frequent: "Dear Will Smith".)
        let greeting_first = run_words[0].introduces;
        // (A surname may be one of the language's most frequent words, last: "Nasuf Türk".)
        if run_words[1..].iter().any(|w| {
            w.rank.is_some_and(|r| r < TITLE_CASE)
                && !(greeting_first && w.start == start)
                && !(w.surname && w.end == end)
        }) || self.label_after(end)
        {
            return Judged::NoPerson;
        }
        // "Nehir Kenarı", "Ahmet Lisesinde": a Turkish compound's head, not a surname; "Santa Maria Novella":
        // a place named after a saint.
        let last_word = &core[core.len() - 1];
        if (turkish(language)
            && self.folded_is(last_word.start, last_word.end, |w| {
                lexicon::compound_head(w) || possessive_of_a_word(w, language)
            }))
            || (start >= 4 && b[start - 1] == b' ' && self.saint_before(start - 1))
            || self.folded_is(core[0].start, core[0].end, |w| {
                matches!(
                    w,
                    b"san" | b"santa" | b"santo" | b"sao" | b"saint" | b"sainte" | b"sankt"
                )
            })
        {
            return Judged::NoPerson;
        }
        // A place of more words: "Hong Kong", "Tel Aviv".
        let mut folded = Vec::new();
        text::fold_into(&b[start..end], &mut folded);
        if lexicon::place(&folded) {
            return Judged::NoPerson;
        }
        // The company of the words.
        let (before, inside) = self.words_before(start);
        if language.is_some_and(|l| l.article_before(&before)) {
            return Judged::NoPerson;
        }
        let next = text::after_spaces(b, end);
        let next_word = {
            let stop = self.word_end(next);
            let mut folded = Vec::new();
            text::fold_into(&b[next..stop], &mut folded);
            folded
        };
        // Behind a colon label: one that names another field ("Subject:", "Betrag:") tells no person,
        // any other counts for one ("Insured person:", "Prepared for:").
        let labelled = match before.strip_suffix(b":") {
            Some(label) if lexicon::other_field(label) => return Judged::NoPerson,
            Some(_) => true,
            None => false,
        };
        let greeted = before
            .rsplit(|&c| c == b' ')
            .next()
            .is_some_and(lexicon::greeting);
        let introduced = titled
            || labelled
            || greeted
            || language.is_some_and(|l| l.introduces(&before) || l.follows(&next_word));
        // A sentence's first word is capitalised whatever it is: unknown there, it is a name only
        // before a surname that no language has ("Özbay Ergül", not "Představenstvo Société").
        if !inside && !titled && !core[0].given && surname < 2 {
            return Judged::Unsure;
        }
        // Where capitals mark names, the words after the first are capitalised inside a sentence:
        // the run is a proper name; what kind, the words tell.
        let evidence = given
            + surname
            + u8::from(introduced)
            + u8::from(capitals_mark_names)
            + u8::from(inside && capitals_mark_names);
        if evidence < ENOUGH {
            return Judged::Unsure;
        }
        Judged::Person(start, end)
    }

    /// The language of the text around `i` ([`lexicon::guess_language`]), guessed once for each line
    /// of 320 bytes or fewer (the window of a guess holds it whole), and once for each stretch of 256
    /// bytes of a longer one, from the words around its middle.
    fn language_at(&mut self, i: usize) -> Option<&'static lexicon::Language> {
        let b = self.b;
        let line_start = memchr::memrchr(b'\n', &b[..i]).map_or(0, |p| p + 1);
        let line_end = memchr::memchr(b'\n', &b[i..]).map_or(b.len(), |p| i + p);
        let (key, at) = if line_end - line_start <= 320 {
            (2 * line_start + 1, i)
        } else {
            (2 * (i / 256), (i / 256 * 256 + 128).min(b.len()))
        };
        if self.language.0 != key {
            self.language = (key, self.tellings.guess(b, at));
        }
        self.language.1
    }

    /// Whether a legal form written in small letters with its dots starts at `at` ("v.o.s.", "e.V.",
    /// "s.r.o.").
    fn dotted_legal_form_at(&self, at: usize) -> bool {
        let b = self.b;
        let mut end = at;
        while end < b.len() && end - at < 12 && (b[end].is_ascii_alphabetic() || b[end] == b'.') {
            end += 1;
        }
        let form = &b[at..end];
        form.first().is_some_and(u8::is_ascii_lowercase) && form.contains(&b'.') && {
            let mut folded = Vec::with_capacity(form.len());
            text::fold_into(form, &mut folded);
            while folded.last() == Some(&b'.') {
                folded.pop();
            }
            lexicon::organisation_with_dot(&folded, form)
        }
    }

    /// What the word at `at..end` is, in a text of `language`.
    fn evidence(
        &self,
        at: usize,
        end: usize,
        language: Option<&'static lexicon::Language>,
    ) -> Evidence {
        let b = self.b;
        let initial = letter_at(b, at) == end - at && b.get(end) == Some(&b'.');
        let (mut stack, mut spill) = ([0u8; 40], Vec::new());
        let folded = text::fold_short(&b[at..end], &mut stack, &mut spill);
        let old = lexicon::lookup(folded);
        let dotted = end + usize::from(b.get(end) == Some(&b'.'));
        // A legal form, an organisation's word, an address's street word ("Ave", "Mah.").
        // "Sp. z o.o.", "Sp.j.": a legal form with its dot, more of it after the dot.
        let abbreviated = dotted > end && {
            let after = b.get(dotted).copied().unwrap_or(b' ');
            after.is_ascii_lowercase()
                || (after == b' ' && b.get(dotted + 1).is_some_and(u8::is_ascii_lowercase))
        };
        let no_person = lexicon::organisation_in_text(folded, &b[at..end])
            || (abbreviated && lexicon::organisation_with_dot(folded, &b[at..end]))
            || (dotted > end && self.behind_label(at, end, false) == lexicon::Behind::NoPerson)
            || old == Some(Word::Street);
        // A title, a greeting, a noun for a person ("Müvekkilimiz", "Hi"), a word of people.
        let introduces = old == Some(Word::Honorific)
            || lexicon::greeting(folded)
            || lexicon::person_noun_ours(folded)
            || language.is_some_and(|l| l.introduces(folded));
        // A month is a sentence's word like the most frequent ones ("im März von ..."; "August" is a
        // given name too), and so is a single letter that is no initial ("Ventas Y Márgenes").
        // What the large lists know of the word, in one look-up.
        let facts = lexicon::facts(folded);
        let rank = if initial {
            None
        } else if end - at == 1 || (!facts.given && dates::month_number(folded).is_some()) {
            Some(0)
        } else {
            match language {
                Some(language) => facts.rank(language),
                None => facts.least_rank(),
            }
        };
        let given = facts.given || matches!(old, Some(Word::FirstName | Word::Either));
        let surname = facts.surname || matches!(old, Some(Word::Surname | Word::Either));
        let place = !given && !surname && facts.place;
        let ordinary_in = facts.ordinary_in(lexicon::ORDINARY_UNDER);
        let elsewhere = ordinary_in & !language.map_or(0, |l| l.bit()) != 0;
        // The language's own proper nouns are people's names unless they are places' or ordinary
        // words of another language ("Galaxy", "Suisse" are Turkish proper nouns too).
        let proper = !place && !elsewhere && language.is_some_and(|l| facts.proper_in(l));
        // A Turkish given name that is a common word too ("Nehir", "Kuzey") counts as the word it is.
        let word_like = turkish(language) && facts.word_like_given;
        Evidence {
            start: at,
            end,
            given: (given || proper) && !word_like,
            surname: surname || proper,
            place,
            elsewhere: ordinary_in != 0,
            rank,
            title: old == Some(Word::Honorific),
            introduces,
            no_person,
            initial,
            acronym: !given
                && !surname
                && (2..=4).contains(&(end - at))
                && b[at..end].iter().all(u8::is_ascii_uppercase),
        }
    }

    /// Whether the words at `start..stop` (found by another rule: "signed by Credit Suisse") read as
    /// a person's name: the first as a given name, the last as a surname.
    pub(in crate::pii_masker::engine::scan) fn reads_as_name(
        &self,
        start: usize,
        stop: usize,
    ) -> bool {
        let language = lexicon::guess_language(self.b, start);
        let first = self.evidence(start, self.word_end(start), language);
        let last_start = self.last_word_start(start, stop);
        let last = self.evidence(last_start, stop, language);
        !first.no_person && !last.no_person && first.as_given() > 0 && last.as_surname() > 0
    }

    /// Whether a capitalised word stands one space before `i`, in the same run.
    fn capitalised_word_before(&self, i: usize) -> bool {
        let b = self.b;
        if i < 2 || b[i - 1] != b' ' {
            return false;
        }
        // "de la", "van der": the particles belong to the run.
        let mut j = i - 1;
        loop {
            let start = letters_start(b, j, 40);
            if start == j {
                return false;
            }
            if upper_at(b, start) {
                return true;
            }
            if !lexicon::NAME_PARTICLES.contains(&&b[start..j]) || start < 2 || b[start - 1] != b' '
            {
                return false;
            }
            j = start - 1;
        }
    }

    /// The folded words of the sentence before `start` (at most some 40 bytes of them), and whether
    /// `start` stands inside a sentence: after a lower-case word or a comma on its line.
    fn words_before(&self, start: usize) -> (Vec<u8>, bool) {
        let b = self.b;
        let mut from = start;
        while from > 0 && start - from < 40 && !matches!(b[from - 1], b'.' | b'!' | b'?' | b'\n') {
            from -= 1;
        }
        while from < start && b[from] & 0xC0 == 0x80 {
            from += 1;
        }
        let mut folded = Vec::with_capacity(start - from);
        text::fold_into(&b[from..start], &mut folded);
        while folded.last() == Some(&b' ') {
            folded.pop();
        }
        let inside = {
            let mut last = start;
            skip_spaces_back(b, &mut last);
            last > 0 && {
                let c = b[last - 1];
                c == b','
                    || c.is_ascii_lowercase()
                    || (c >= 0x80 && !upper_at(b, letters_start(b, last, 40)))
            }
        };
        (folded, inside)
    }
}
