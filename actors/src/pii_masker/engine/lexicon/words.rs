//! Everything the large lists know of one folded word, behind one look-up: its place among each
//! language's ordinary words, whether it is one of a language's proper nouns, a known given name, a
//! known surname, a place, a Turkish given name that is a word too. The person detector asks all of
//! it for every capitalised word; one table answers in one hash look-up what thirteen rank tables
//! and five sets answered in as many. Built once, on first use (at start, by [`super::warm`]).

use std::sync::OnceLock;

use rustc_hash::FxHashMap;

use super::super::text;
use super::languages::{Language, LANGUAGES};
use super::names::{data_lines, given_folded, PLACES, SURNAMES};
use super::people::WORD_LIKE_GIVEN_NAMES;

/// The rank of a word that is none of a language's ordinary words.
const NO_RANK: u16 = u16::MAX;

/// What the lists know of one folded word.
#[derive(Clone, Copy, Debug)]
pub struct Facts {
    /// The word's place among each language's ordinary words ([`LANGUAGES`]' order), 0 the most
    /// frequent; [`NO_RANK`] where it is none of them.
    ranks: [u16; LANGUAGES.len()],
    /// The languages (bits in [`LANGUAGES`]' order) whose proper nouns hold the word.
    proper_in: u16,
    pub given: bool,
    pub surname: bool,
    /// The name of a place (of one word or more: "rotterdam", "hong kong").
    pub place: bool,
    /// A Turkish given name that is a common word too ("nehir", "kuzey").
    pub word_like_given: bool,
}

/// The facts of a word no list holds.
static NOTHING: Facts = Facts {
    ranks: [NO_RANK; LANGUAGES.len()],
    proper_in: 0,
    given: false,
    surname: false,
    place: false,
    word_like_given: false,
};

impl Facts {
    /// The word's place among `language`'s ordinary words ([`Language::rank`]).
    pub fn rank(&self, language: &Language) -> Option<u32> {
        let rank = self.ranks[language.index()];
        (rank != NO_RANK).then_some(u32::from(rank))
    }

    /// The word's best place among the ordinary words of any language.
    pub fn least_rank(&self) -> Option<u32> {
        let rank = *self.ranks.iter().min().unwrap_or(&NO_RANK);
        (rank != NO_RANK).then_some(u32::from(rank))
    }

    /// The languages among whose `under` most frequent words the word is (bits in [`LANGUAGES`]' order).
    pub fn ordinary_in(&self, under: usize) -> u16 {
        self.ranks
            .iter()
            .enumerate()
            .filter(|(_, &rank)| usize::from(rank) < under)
            .fold(0, |bits, (n, _)| bits | 1 << n)
    }

    /// Whether the word is one of `language`'s proper nouns.
    pub fn proper_in(&self, language: &Language) -> bool {
        self.proper_in & language.bit() != 0
    }
}

/// The facts of a folded word.
pub fn facts(folded: &[u8]) -> &'static Facts {
    static TABLE: OnceLock<FxHashMap<Box<[u8]>, Facts>> = OnceLock::new();
    TABLE
        .get_or_init(|| {
            // Sized for every line at once: a table grown from empty moves its entries at each
            // doubling, most of the cost of a start (the warm-up thread waits for it).
            let lines: usize = LANGUAGES
                .iter()
                .map(|l| (l.common.len() + l.proper.len()) / 9)
                .sum::<usize>()
                + SURNAMES.len() / 7
                + PLACES.len() / 10;
            let mut table: FxHashMap<Box<[u8]>, Facts> =
                FxHashMap::with_capacity_and_hasher(lines, Default::default());
            let (mut stack, mut spill) = ([0u8; 40], Vec::new());
            let mut folded = |word: &str| -> Box<[u8]> {
                text::fold_short(word.as_bytes(), &mut stack, &mut spill).into()
            };
            for (n, language) in LANGUAGES.iter().enumerate() {
                for (rank, word) in data_lines(language.common).enumerate() {
                    let rank = u16::try_from(rank)
                        .ok()
                        .filter(|&r| r != NO_RANK)
                        .expect("a language's list of ordinary words has fewer than 65,535 lines");
                    let facts = table.entry(folded(word)).or_insert(NOTHING);
                    facts.ranks[n] = facts.ranks[n].min(rank);
                }
                for word in data_lines(language.proper) {
                    table.entry(folded(word)).or_insert(NOTHING).proper_in |= 1 << n;
                }
            }
            for word in given_folded() {
                table.entry(word).or_insert(NOTHING).given = true;
            }
            for word in data_lines(SURNAMES) {
                table.entry(folded(word)).or_insert(NOTHING).surname = true;
            }
            for word in data_lines(PLACES) {
                table.entry(folded(word)).or_insert(NOTHING).place = true;
            }
            for word in WORD_LIKE_GIVEN_NAMES.iter() {
                table
                    .entry(word.as_bytes().into())
                    .or_insert(NOTHING)
                    .word_like_given = true;
            }
            table.shrink_to_fit();
            table
        })
        .get(folded)
        .unwrap_or(&NOTHING)
}
