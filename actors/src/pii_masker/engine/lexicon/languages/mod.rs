//! The languages of running text, one file each: the language's ordinary words ranked by frequency
//! (`../data/common/<code>.txt`, from wordfreq: see `docs/pii.md`), its articles, and the words that
//! stand right before or after a person's name (prepositions and verbs of people: "according to",
//! "laut", "selon", "said", "tarafından"). A new language is a new file and a row of [`LANGUAGES`].
//!
//! [`guess`] tells the language of the words around a place in a text from the most frequent words
//! of each language; [`Language::rank`] tells how ordinary a word is in it.

use std::sync::OnceLock;

use rustc_hash::FxHashMap;

use super::super::text::{fold_into, is_word_byte, letter_at, upper_at};
use super::fold;
use super::names::{data_lines, folded_set};

mod cs;
mod da;
mod de;
mod el;
mod en;
mod es;
mod fr;
mod it;
mod nl;
mod pl;
mod pt;
mod sv;
mod tr;

/// One language's rows.
pub struct Language {
    pub code: &'static str,
    /// The ordinary words, most frequent first, one a line.
    common: &'static str,
    /// The language's proper nouns (people's and places' names) where a lexicon of them exists,
    /// one a line (`../data/proper/<code>.txt`); empty where none does.
    proper: &'static str,
    /// Titles written before a name ("Herr", "Pani", "Mme"), folded, without their dot.
    pub titles: &'static [&'static str],
    /// Articles and determiners: a capitalised run after one names a thing, not a person.
    pub articles: &'static [&'static str],
    /// Words and phrases right before a person's name.
    pub before: &'static [&'static str],
    /// Words right after a person's name.
    pub after: &'static [&'static str],
    /// Whether the language writes its nouns with a capital (German): a capital inside a sentence
    /// then tells no name.
    pub capitalises_nouns: bool,
    /// Whether the language's names are mostly its words (Turkish given names "Nehir", "Yücel",
    /// "İlim"; surnames "Demir", "Yıldız", "Kaya": iron, star, rock): beside a name, such a word may be
    /// one.
    pub names_are_words: bool,
    ranks: OnceLock<FxHashMap<Box<[u8]>, u32>>,
    propers: OnceLock<rustc_hash::FxHashSet<Box<[u8]>>>,
}

pub static LANGUAGES: [&Language; 13] = [
    &en::LANGUAGE,
    &de::LANGUAGE,
    &fr::LANGUAGE,
    &it::LANGUAGE,
    &es::LANGUAGE,
    &nl::LANGUAGE,
    &pl::LANGUAGE,
    &sv::LANGUAGE,
    &da::LANGUAGE,
    &pt::LANGUAGE,
    &tr::LANGUAGE,
    &cs::LANGUAGE,
    &el::LANGUAGE,
];

/// How many of each language's most frequent words tell the language ([`guess`]).
const TELLING: usize = 3000;

impl Language {
    /// The folded word's place among the language's ordinary words, 0 the most frequent; `None` when
    /// it is none of them.
    pub fn rank(&self, folded: &[u8]) -> Option<u32> {
        self.ranks
            .get_or_init(|| {
                let mut ranks = FxHashMap::default();
                for (rank, word) in data_lines(self.common).enumerate() {
                    ranks
                        .entry(fold(word).into_boxed_slice())
                        .or_insert(rank as u32);
                }
                ranks
            })
            .get(folded)
            .copied()
    }

    /// Whether the folded word is one of the language's proper nouns ([`Self::proper`]).
    pub fn proper_noun(&self, folded: &[u8]) -> bool {
        !self.proper.is_empty()
            && self
                .propers
                .get_or_init(|| folded_set(self.proper))
                .contains(folded)
    }

    /// Whether `words` (folded, spaces between, what stands before a name) end with one of
    /// [`Self::before`].
    pub fn introduces(&self, words: &[u8]) -> bool {
        ends_with_phrase(words, &self.folded().before)
    }

    /// Whether the folded word right after a name is one of [`Self::after`].
    pub fn follows(&self, word: &[u8]) -> bool {
        self.folded().after.iter().any(|w| &**w == word)
    }

    /// Whether `words` (folded) end with one of [`Self::articles`].
    pub fn article_before(&self, words: &[u8]) -> bool {
        ends_with_phrase(words, &self.folded().articles)
    }

    /// The language's phrases, folded once.
    fn folded(&self) -> &'static Folded {
        static TABLE: OnceLock<Vec<Folded>> = OnceLock::new();
        let table = TABLE.get_or_init(|| {
            let folded = |phrases: &[&str]| phrases.iter().map(|p| fold(p).into()).collect();
            LANGUAGES
                .iter()
                .map(|l| Folded {
                    before: folded(l.before),
                    after: folded(l.after),
                    articles: folded(l.articles),
                })
                .collect()
        });
        &table[self.bit().trailing_zeros() as usize]
    }
}

/// A language's phrases before and after a name and its articles, folded.
struct Folded {
    before: Vec<Box<[u8]>>,
    after: Vec<Box<[u8]>>,
    articles: Vec<Box<[u8]>>,
}

fn ends_with_phrase(words: &[u8], phrases: &[Box<[u8]>]) -> bool {
    phrases.iter().any(|phrase| {
        words.ends_with(phrase)
            && (words.len() == phrase.len()
                || !words[words.len() - phrase.len() - 1].is_ascii_alphanumeric())
    })
}

/// How many of each language's most frequent words count three times in [`guess`].
const MOST_TELLING: usize = 300;

/// Folded word -> (the languages of [`TELLING`], of [`MOST_TELLING`]), bits in [`LANGUAGES`]'s order.
type Telling = FxHashMap<Box<[u8]>, (u16, u16)>;

/// Folded word -> the languages (bits in [`LANGUAGES`]'s order) among whose [`TELLING`] most frequent
/// words it is, and among whose [`MOST_TELLING`].
fn telling() -> &'static Telling {
    static TABLE: OnceLock<Telling> = OnceLock::new();
    TABLE.get_or_init(|| {
        let mut table = Telling::default();
        for (n, language) in LANGUAGES.iter().enumerate() {
            for (rank, word) in data_lines(language.common).take(TELLING).enumerate() {
                let entry = table.entry(fold(word).into_boxed_slice()).or_default();
                entry.0 |= 1 << n;
                if rank < MOST_TELLING {
                    entry.1 |= 1 << n;
                }
            }
        }
        table
    })
}

/// The language of the lower-case words of `text` around `at` (some 160 bytes each way, on its line
/// when the line tells): the one whose most frequent words are most of them; `None` when no such word
/// is there.
pub fn guess(text: &[u8], at: usize) -> Option<&'static Language> {
    // The line's words first (a document may hold lines of several languages), then the window's.
    let line_start = text[..at]
        .iter()
        .rposition(|&c| c == b'\n')
        .map_or(0, |p| p + 1);
    let line_end = text[at..]
        .iter()
        .position(|&c| c == b'\n')
        .map_or(text.len(), |p| at + p);
    let (from, to) = (at.saturating_sub(160), (at + 160).min(text.len()));
    guess_within(text, from.max(line_start), to.min(line_end))
        .or_else(|| guess_within(text, from, to))
}

/// [`guess`] from the words of `text[start..end]`.
fn guess_within(text: &[u8], mut start: usize, end: usize) -> Option<&'static Language> {
    let table = telling();
    let mut counts = [0u16; LANGUAGES.len()];
    let mut word = Vec::with_capacity(24);
    while start < end {
        // A word starting with a lower-case letter: ASCII or a two-byte Latin letter.
        let c = text[start];
        // Not a part of an address, a domain or a path ("max@example.com").
        let starts = (c.is_ascii_lowercase()
            || (letter_at(text, start) == 2 && !upper_at(text, start)))
            && (start == 0
                || !(is_word_byte(text[start - 1])
                    || matches!(text[start - 1], b'@' | b'.' | b'/')));
        if !starts {
            start += 1;
            continue;
        }
        let mut stop = start;
        while stop < text.len() && is_word_byte(text[stop]) {
            stop += 1;
        }
        let joined = matches!(text.get(stop), Some(b'@'))
            || (text.get(stop) == Some(&b'.')
                && text.get(stop + 1).is_some_and(|&c| is_word_byte(c)));
        if stop - start <= 24 && !joined {
            word.clear();
            fold_into(&text[start..stop], &mut word);
            if let Some(&(mask, most)) = table.get(word.as_slice()) {
                for (n, count) in counts.iter_mut().enumerate() {
                    *count += ((mask >> n) & 1) + 2 * ((most >> n) & 1);
                }
            }
        }
        start = stop;
    }
    let (best, &count) = counts
        .iter()
        .enumerate()
        .max_by_key(|(n, c)| (**c, usize::MAX - n))?;
    (count > 0).then(|| LANGUAGES[best])
}

/// A word ranked under this in some language is an ordinary word of it ([`ordinary_anywhere`]).
const ORDINARY: usize = 15_000;

/// The supported languages (bits in [`LANGUAGES`]'s order) among whose [`ORDINARY`] most frequent
/// words the folded word is: "Société", "Banco", "Quarterly" are some language's, whatever language
/// the text around them is in.
pub fn ordinary_in(folded: &[u8]) -> u16 {
    static TABLE: OnceLock<FxHashMap<Box<[u8]>, u16>> = OnceLock::new();
    TABLE
        .get_or_init(|| {
            let mut table: FxHashMap<Box<[u8]>, u16> = FxHashMap::default();
            for (n, language) in LANGUAGES.iter().enumerate() {
                for word in data_lines(language.common).take(ORDINARY) {
                    *table.entry(fold(word).into_boxed_slice()).or_default() |= 1 << n;
                }
            }
            table
        })
        .get(folded)
        .copied()
        .unwrap_or(0)
}

impl Language {
    /// This language's bit in [`ordinary_in`]'s answer.
    pub fn bit(&self) -> u16 {
        LANGUAGES
            .iter()
            .position(|l| std::ptr::eq(*l, self))
            .map_or(0, |n| 1 << n)
    }
}
