//! The languages of running text, one file each: the language's ordinary words ranked by frequency
//! (`../data/common/<code>.txt`, from wordfreq: see `docs/pii.md`), its articles, and the words that
//! stand right before or after a person's name (prepositions and verbs of people: "according to",
//! "laut", "selon", "said", "tarafından"). A new language is a new file and a row of [`LANGUAGES`].
//!
//! [`guess`] tells the language of the words around a place in a text from the most frequent words
//! of each language; [`Language::rank`] tells how ordinary a word is in it.

use std::sync::OnceLock;

use rustc_hash::FxHashMap;

use super::super::text::{fold_short, is_word_byte, letter_at, upper_at};
use super::fold;
use super::names::data_lines;
use super::words::facts;

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
    pub(in crate::pii_masker::engine::lexicon) common: &'static str,
    /// The language's proper nouns (people's and places' names) where a lexicon of them exists,
    /// one a line (`../data/proper/<code>.txt`); empty where none does.
    pub(in crate::pii_masker::engine::lexicon) proper: &'static str,
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
        facts(folded).rank(self)
    }

    /// Whether `words` (folded, spaces between, what stands before a name) end with one of
    /// [`Self::before`].
    pub fn introduces(&self, words: &[u8]) -> bool {
        self.folded().before.ends(words)
    }

    /// Whether the folded word right after a name is one of [`Self::after`].
    pub fn follows(&self, word: &[u8]) -> bool {
        self.folded().after.iter().any(|w| &**w == word)
    }

    /// Whether `words` (folded) end with one of [`Self::articles`].
    pub fn article_before(&self, words: &[u8]) -> bool {
        self.folded().articles.ends(words)
    }

    /// The language's phrases, folded once.
    fn folded(&self) -> &'static Folded {
        static TABLE: OnceLock<Vec<Folded>> = OnceLock::new();
        let table = TABLE.get_or_init(|| {
            let folded = |phrases: &[&str]| phrases.iter().map(|p| fold(p).into()).collect();
            LANGUAGES
                .iter()
                .map(|l| Folded {
                    before: Phrases::new(folded(l.before)),
                    after: folded(l.after),
                    articles: Phrases::new(folded(l.articles)),
                })
                .collect()
        });
        &table[self.index()]
    }

    /// This language's place in [`LANGUAGES`].
    pub fn index(&self) -> usize {
        LANGUAGES
            .iter()
            .position(|l| std::ptr::eq(*l, self))
            .unwrap_or(0)
    }
}

/// A language's phrases before and after a name and its articles, folded.
struct Folded {
    before: Phrases,
    after: Vec<Box<[u8]>>,
    articles: Phrases,
}

/// Folded phrases, and the last words they end in.
struct Phrases {
    phrases: Vec<Box<[u8]>>,
    /// The [`last_word`] of each phrase: words that end in another cannot end in a phrase, which
    /// one look-up tells for most words before comparing any phrase.
    last_words: rustc_hash::FxHashSet<Box<[u8]>>,
}

impl Phrases {
    fn new(phrases: Vec<Box<[u8]>>) -> Phrases {
        let last_words = phrases.iter().map(|p| last_word(p).into()).collect();
        Phrases {
            phrases,
            last_words,
        }
    }

    /// Whether `words` end with one of the phrases, after a byte that is no letter or digit if
    /// anything stands before it. (Then the words' [`last_word`] is the phrase's.)
    fn ends(&self, words: &[u8]) -> bool {
        self.last_words.contains(last_word(words))
            && self.phrases.iter().any(|phrase| {
                words.ends_with(phrase)
                    && (words.len() == phrase.len()
                        || !words[words.len() - phrase.len() - 1].is_ascii_alphanumeric())
            })
    }
}

/// What follows the last byte of `words` that is no ASCII letter or digit.
fn last_word(words: &[u8]) -> &[u8] {
    let start = words
        .iter()
        .rposition(|c| !c.is_ascii_alphanumeric())
        .map_or(0, |p| p + 1);
    &words[start..]
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
    let (line, window) = stretches(text, at);
    guess_within(text, line.0, line.1).or_else(|| guess_within(text, window.0, window.1))
}

/// [`guess`] from the words of `text[start..end]`.
fn guess_within(text: &[u8], start: usize, end: usize) -> Option<&'static Language> {
    let mut counts = [0u16; LANGUAGES.len()];
    telling_words(text, start, end, |_, mask, most| {
        add(&mut counts, mask, most)
    });
    best(&counts)
}

/// Counts a telling word's languages: once among the [`TELLING`], twice more among the
/// [`MOST_TELLING`].
fn add(counts: &mut [u16; LANGUAGES.len()], mask: u16, most: u16) {
    for (n, count) in counts.iter_mut().enumerate() {
        *count += ((mask >> n) & 1) + 2 * ((most >> n) & 1);
    }
}

/// The language counted most, the first of [`LANGUAGES`] among equals; `None` when none was.
fn best(counts: &[u16; LANGUAGES.len()]) -> Option<&'static Language> {
    let (best, &count) = counts
        .iter()
        .enumerate()
        .max_by_key(|(n, c)| (**c, usize::MAX - n))?;
    (count > 0).then(|| LANGUAGES[best])
}

/// The line around `at` and the window of [`guess`] there.
fn stretches(text: &[u8], at: usize) -> ((usize, usize), (usize, usize)) {
    let line_start = memchr::memrchr(b'\n', &text[..at]).map_or(0, |p| p + 1);
    let line_end = memchr::memchr(b'\n', &text[at..]).map_or(text.len(), |p| at + p);
    let (from, to) = (at.saturating_sub(160), (at + 160).min(text.len()));
    ((from.max(line_start), to.min(line_end)), (from, to))
}

/// The telling words of one text, each read once: [`guess`] for any place of the text from them,
/// the same answer without folding and looking up the words of every window again. Read forward
/// in blocks as the places asked about move on, and forgotten behind them.
#[derive(Default)]
pub struct Tellings {
    /// (start, the counts of [`guess`] for each language over the words before it) of each telling
    /// word read, in order: the counts of a stretch are two subtractions.
    words: std::collections::VecDeque<(u32, [u32; LANGUAGES.len()])>,
    /// The counts over every word read.
    total: [u32; LANGUAGES.len()],
    /// The text is read up to here.
    read: usize,
    /// The words starting before here are forgotten.
    forgotten: usize,
}

/// How far [`Tellings`] reads ahead of what it was asked about, and keeps behind it.
const TELLINGS_BLOCK: usize = 4096;

impl Tellings {
    /// [`guess`] at `at` of `text` (the same text at every call).
    pub fn guess(&mut self, text: &[u8], at: usize) -> Option<&'static Language> {
        let (line, window) = stretches(text, at);
        if window.0 < self.forgotten || text.len() > u32::MAX as usize / 4 {
            return guess(text, at);
        }
        if window.1 > self.read {
            let until = (window.1 + TELLINGS_BLOCK).min(text.len());
            let (words, total) = (&mut self.words, &mut self.total);
            telling_words(text, self.read, until, |start, mask, most| {
                words.push_back((start as u32, *total));
                for (n, count) in total.iter_mut().enumerate() {
                    *count += u32::from((mask >> n) & 1) + 2 * u32::from((most >> n) & 1);
                }
            });
            self.read = until;
        }
        // Forget what lies a block behind.
        let keep = window.0.saturating_sub(TELLINGS_BLOCK);
        while self.words.front().is_some_and(|w| (w.0 as usize) < keep) {
            self.words.pop_front();
        }
        self.forgotten = self.forgotten.max(keep);
        self.count(line).or_else(|| self.count(window))
    }

    /// The language most of the telling words starting in `from..to` tell.
    fn count(&self, (from, to): (usize, usize)) -> Option<&'static Language> {
        let before = |at: usize| {
            let index = self.words.partition_point(|w| (w.0 as usize) < at);
            self.words.get(index).map_or(&self.total, |w| &w.1)
        };
        let (first, last) = (before(from), before(to));
        let mut counts = [0u16; LANGUAGES.len()];
        for (n, count) in counts.iter_mut().enumerate() {
            *count = last[n].saturating_sub(first[n]) as u16;
        }
        best(&counts)
    }
}

/// Calls `found` with (start, the languages of [`TELLING`], of [`MOST_TELLING`]) for each lower-case
/// word of `text` that starts in `start..end` and is one of some language's [`TELLING`] words.
fn telling_words(
    text: &[u8],
    mut start: usize,
    end: usize,
    mut found: impl FnMut(usize, u16, u16),
) {
    let table = telling();
    let (mut stack, mut spill) = ([0u8; 40], Vec::new());
    while start < end {
        if !is_word_byte(text[start]) {
            start += 1;
            continue;
        }
        // A run of word bytes (a word, or the rest of one that started before `start`: no byte
        // after the first of a run starts a word), read whole.
        let mut stop = start + 1;
        while stop < text.len() && is_word_byte(text[stop]) {
            stop += 1;
        }
        // A word starting with a lower-case letter: ASCII or a two-byte Latin letter.
        let c = text[start];
        // Not a part of an address, a domain or a path ("max@example.com").
        let starts = (c.is_ascii_lowercase()
            || (c >= 0x80 && letter_at(text, start) == 2 && !upper_at(text, start)))
            && (start == 0
                || !(is_word_byte(text[start - 1])
                    || matches!(text[start - 1], b'@' | b'.' | b'/')));
        let joined = matches!(text.get(stop), Some(b'@'))
            || (text.get(stop) == Some(&b'.')
                && text.get(stop + 1).is_some_and(|&c| is_word_byte(c)));
        if starts && stop - start <= 24 && !joined {
            let word = fold_short(&text[start..stop], &mut stack, &mut spill);
            if let Some(&(mask, most)) = table.get(word) {
                found(start, mask, most);
            }
        }
        start = stop;
    }
}

/// A word ranked under this in some language is an ordinary word of it ([`ordinary_anywhere`]).
pub const ORDINARY: usize = 15_000;

/// The supported languages (bits in [`LANGUAGES`]'s order) among whose [`ORDINARY`] most frequent
/// words the folded word is: "Société", "Banco", "Quarterly" are some language's, whatever language
/// the text around them is in.
pub fn ordinary_in(folded: &[u8]) -> u16 {
    facts(folded).ordinary_in(ORDINARY)
}

impl Language {
    /// This language's bit in [`ordinary_in`]'s answer.
    pub fn bit(&self) -> u16 {
        1 << self.index()
    }
}
