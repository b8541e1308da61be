//! The large lists of people's and places' names (`data/`, written by `scripts/lexicons.py`, sources
//! and licences in `docs/pii.md`): given names with the gender they are given to, surnames, and the
//! places a name is not. Read and folded once, on first use.

use std::sync::OnceLock;

use rustc_hash::{FxHashMap, FxHashSet};

use super::fold;

/// Whom a given name is given to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Gender {
    Male,
    Female,
    Either,
}

static GIVEN_NAMES: &str = include_str!("data/given_names.tsv");

static SURNAMES: &str = include_str!("data/surnames.txt");

static PLACES: &str = include_str!("data/places.txt");

/// The entries of a data file: its lines but the `#` header.
pub(super) fn data_lines(data: &'static str) -> impl Iterator<Item = &'static str> {
    data.lines()
        .map(|line| line.strip_suffix('\r').unwrap_or(line))
        .filter(|line| !line.is_empty() && !line.starts_with('#'))
}

fn given_names() -> &'static FxHashMap<Box<[u8]>, Gender> {
    static TABLE: OnceLock<FxHashMap<Box<[u8]>, Gender>> = OnceLock::new();
    TABLE.get_or_init(|| {
        let mut table = FxHashMap::default();
        for line in data_lines(GIVEN_NAMES) {
            let mut fields = line.split('\t');
            let (Some(name), Some(gender)) = (fields.next(), fields.next()) else {
                continue;
            };
            let gender = match gender {
                "m" => Gender::Male,
                "f" => Gender::Female,
                _ => Gender::Either,
            };
            // Two spellings that fold alike ("René", "Rene") may be given to either.
            table
                .entry(fold(name).into_boxed_slice())
                .and_modify(|was: &mut Gender| {
                    if *was != gender {
                        *was = Gender::Either;
                    }
                })
                .or_insert(gender);
        }
        table
    })
}

/// The folded entries of a data file.
pub(super) fn folded_set(data: &'static str) -> FxHashSet<Box<[u8]>> {
    data_lines(data)
        .map(|name| fold(name).into_boxed_slice())
        .collect()
}

fn surnames() -> &'static FxHashSet<Box<[u8]>> {
    static TABLE: OnceLock<FxHashSet<Box<[u8]>>> = OnceLock::new();
    TABLE.get_or_init(|| folded_set(SURNAMES))
}

fn places() -> &'static FxHashSet<Box<[u8]>> {
    static TABLE: OnceLock<FxHashSet<Box<[u8]>>> = OnceLock::new();
    TABLE.get_or_init(|| folded_set(PLACES))
}

/// Whether folded words (one space between them) are the name of a place: a city of 15,000 people
/// or more, a country, a US state ("rotterdam", "hong kong").
pub fn place(folded: &[u8]) -> bool {
    places().contains(folded)
}

/// The gender a folded word is given to as a given name, if it is one.
pub fn given_name(folded: &[u8]) -> Option<Gender> {
    given_names().get(folded).copied()
}

/// Whether a folded word is a known surname.
pub fn known_surname(folded: &[u8]) -> bool {
    surnames().contains(folded)
}
