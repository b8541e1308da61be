//! The large lists of people's and places' names (`data/`, written by `scripts/lexicons.py`, sources
//! and licences in `docs/pii.md`): given names with the gender they are given to, surnames, and the
//! places a name is not. Read and folded once, on first use.

use std::sync::OnceLock;

use rustc_hash::FxHashMap;

use super::fold;
use super::words::facts;

/// Whom a given name is given to.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Gender {
    Male,
    Female,
    Either,
}

static GIVEN_NAMES: &str = include_str!("data/given_names.tsv");

pub(super) static SURNAMES: &str = include_str!("data/surnames.txt");

pub(super) static PLACES: &str = include_str!("data/places.txt");

/// The entries of a data file: its lines but the `#` header.
pub(super) fn data_lines(data: &'static str) -> impl Iterator<Item = &'static str> {
    data.lines()
        .map(|line| line.strip_suffix('\r').unwrap_or(line))
        .filter(|line| !line.is_empty() && !line.starts_with('#'))
}

/// Whether folded words (one space between them) are the name of a place: a city of 15,000 people
/// or more, a country, a US state ("rotterdam", "hong kong").
pub fn place(folded: &[u8]) -> bool {
    facts(folded).place
}

/// The gender a folded word is given to as a given name, if it is one.
pub fn given_name(folded: &[u8]) -> Option<Gender> {
    given_entries().get(folded).map(|&(gender, _)| gender)
}

/// Whether a folded word is a known surname.
pub fn known_surname(folded: &[u8]) -> bool {
    facts(folded).surname
}

/// The given names, folded (a name of two spellings that fold alike, twice).
pub(super) fn given_folded() -> impl Iterator<Item = Box<[u8]>> {
    given_lines().map(|(name, _, _)| fold(name).into_boxed_slice())
}

/// Folded given name -> its gender and the countries (ISO 3166 codes, spaces between) that give it.
type GivenEntries = FxHashMap<Box<[u8]>, (Gender, &'static str)>;

/// A given name's entry: its gender and the countries that give it.
fn given_entries() -> &'static GivenEntries {
    static TABLE: OnceLock<GivenEntries> = OnceLock::new();
    TABLE.get_or_init(|| {
        let mut table = FxHashMap::default();
        for (name, gender, countries) in given_lines() {
            // Two spellings that fold alike ("René", "Rene") may be given to either.
            table
                .entry(fold(name).into_boxed_slice())
                .and_modify(|(was, _): &mut (Gender, &'static str)| {
                    if *was != gender {
                        *was = Gender::Either;
                    }
                })
                .or_insert((gender, countries));
        }
        table
    })
}

/// The data file's given names: (name as written, gender, countries).
fn given_lines() -> impl Iterator<Item = (&'static str, Gender, &'static str)> {
    data_lines(GIVEN_NAMES).filter_map(|line| {
        let mut fields = line.split('\t');
        let name = fields.next()?;
        let gender = match fields.next()? {
            "m" => Gender::Male,
            "f" => Gender::Female,
            _ => Gender::Either,
        };
        Some((name, gender, fields.next().unwrap_or("")))
    })
}

/// The gender of a folded given name and the first country that gives it ("ayse" -> female, "tr").
pub fn given_name_origin(folded: &[u8]) -> Option<(Gender, &'static str)> {
    let &(gender, countries) = given_entries().get(folded)?;
    Some((gender, countries.split(' ').next().unwrap_or("")))
}

/// The given names, as written in their language's letters ("Gökçe", "Łucja"), that `country` gives
/// to people of `gender` (names given to either are in both lists).
pub fn given_names_of(country: &str, gender: Gender) -> &'static [&'static str] {
    // Country -> the names it gives to men, to women, to either.
    type ByOrigin = FxHashMap<&'static str, [Vec<&'static str>; 3]>;
    static TABLE: OnceLock<ByOrigin> = OnceLock::new();
    let slot = |gender: Gender| match gender {
        Gender::Male => 0,
        Gender::Female => 1,
        Gender::Either => 2,
    };
    let table = TABLE.get_or_init(|| {
        let mut table = ByOrigin::default();
        for (name, gender, countries) in given_lines() {
            if !name.chars().all(char::is_alphabetic) {
                continue;
            }
            for country in countries.split(' ').filter(|c| !c.is_empty()) {
                let lists = table.entry(country).or_default();
                match gender {
                    Gender::Either => lists.iter_mut().for_each(|list| list.push(name)),
                    one => {
                        lists[slot(one)].push(name);
                        lists[2].push(name);
                    }
                }
            }
        }
        table
    });
    table
        .get(country)
        .map_or(&[], |lists| lists[slot(gender)].as_slice())
}
