//! Prose with people in it, the check of the person detector on running text (#83): in twelve
//! languages, each document names one person once in full in a sentence and mentions them twice more
//! the way writers do (the surname alone, the given name alone, a title and the surname, the surname
//! inflected), among sentences that name places, firms, banks, months and products. The names come
//! from Faker's person providers (`data/prose_names.tsv`, written by `scripts/lexicons.py`), which
//! none of the engine's word lists is built from; the engine never reads them. A name-free counterpart
//! puts a place, a firm or a product where the person would stand. `cargo bench --bench corpus`
//! prints recall per language and kind of mention, and the share of name-free documents with a false
//! person.

mod languages;

use std::collections::BTreeMap;
use std::sync::OnceLock;

use super::super::synthetic::Rng;
use super::super::{detect, PiiType, Policy};
use super::corpus::{Counts, Document, Planted};
pub use languages::{Prose, LANGUAGES, THINGS};

/// The held-out names of one language.
#[derive(Default)]
struct Names {
    male: Vec<&'static str>,
    female: Vec<&'static str>,
    surnames: Vec<&'static str>,
    male_surnames: Vec<&'static str>,
    female_surnames: Vec<&'static str>,
}

fn names() -> &'static BTreeMap<&'static str, Names> {
    static NAMES: OnceLock<BTreeMap<&'static str, Names>> = OnceLock::new();
    NAMES.get_or_init(|| {
        let mut by_language: BTreeMap<&'static str, Names> = BTreeMap::new();
        for line in include_str!("../data/prose_names.tsv").lines() {
            let mut parts = line.split('\t');
            let (Some(language), Some(kind), Some(name)) =
                (parts.next(), parts.next(), parts.next())
            else {
                continue;
            };
            if language.starts_with('#') {
                continue;
            }
            let names = by_language.entry(language).or_default();
            match kind {
                "m" => names.male.push(name),
                "f" => names.female.push(name),
                "s" => names.surnames.push(name),
                "sm" => names.male_surnames.push(name),
                "sf" => names.female_surnames.push(name),
                _ => {}
            }
        }
        by_language
    })
}

/// A person of the prose check.
#[derive(Clone, Debug)]
pub struct Person {
    pub given: String,
    pub surname: String,
    pub female: bool,
}

/// A person of `language`, drawn from the held-out names.
pub fn person(language: &str, rng: &mut Rng) -> Person {
    let names = &names()[language];
    let female = rng.below(2) == 0 && !names.female.is_empty();
    let given = rng.pick(if female { &names.female } else { &names.male });
    let gendered = if female {
        &names.female_surnames
    } else {
        &names.male_surnames
    };
    let surname = if !gendered.is_empty() && (names.surnames.is_empty() || rng.below(2) == 0) {
        rng.pick(gendered).to_string()
    } else {
        let surname = rng.pick(&names.surnames);
        match (language, female) {
            // Polish surnames in -ski, -cki, -dzki take -ska, -cka, -dzka for a woman.
            ("pl", true) if surname.ends_with("ki") => {
                format!("{}a", &surname[..surname.len() - 1])
            }
            _ => surname.to_string(),
        }
    };
    Person {
        given: given.to_string(),
        surname,
        female,
    }
}

/// The last vowel of a Turkish word's, for its suffix's harmony: the genitive ending after it.
fn turkish_genitive(word: &str) -> String {
    let last_vowel = word.chars().rev().find(|c| "aıoueiöüAIOUEİÖÜ".contains(*c));
    let vowel = match last_vowel {
        Some('a' | 'ı' | 'A' | 'I') => 'ı',
        Some('e' | 'i' | 'E' | 'İ') => 'i',
        Some('o' | 'u' | 'O' | 'U') => 'u',
        _ => 'ü',
    };
    let ends_in_vowel = word.chars().last().is_some_and(|c| "aıoueiöü".contains(c));
    format!("{word}'{}{vowel}n", if ends_in_vowel { "n" } else { "" })
}

/// The surname inflected as `{inflected}` asks in `language`: English and German genitive, Turkish
/// genitive after an apostrophe, Polish and Czech genitive.
pub fn inflected(language: &str, surname: &str, female: bool) -> String {
    let strip = |suffix: &str| surname.strip_suffix(suffix).map(str::to_string);
    match language {
        "en" if surname.ends_with('s') => format!("{surname}'"),
        "en" => format!("{surname}'s"),
        "de" if surname.ends_with(['s', 'ß', 'x', 'z']) => format!("{surname}'"),
        "de" => format!("{surname}s"),
        "tr" => turkish_genitive(surname),
        "pl" if female => strip("ska")
            .map(|stem| format!("{stem}skiej"))
            .or_else(|| strip("cka").map(|stem| format!("{stem}ckiej")))
            .unwrap_or_else(|| surname.to_string()),
        "pl" => strip("ski")
            .map(|stem| format!("{stem}skiego"))
            .or_else(|| strip("cki").map(|stem| format!("{stem}ckiego")))
            .or_else(|| strip("a").map(|stem| format!("{stem}y")))
            .unwrap_or_else(|| format!("{surname}a")),
        "cs" if female => strip("ová")
            .map(|stem| format!("{stem}ové"))
            .or_else(|| strip("á").map(|stem| format!("{stem}é")))
            .unwrap_or_else(|| surname.to_string()),
        "cs" => strip("ý")
            .map(|stem| format!("{stem}ého"))
            .or_else(|| strip("a").map(|stem| format!("{stem}y")))
            .unwrap_or_else(|| format!("{surname}a")),
        _ => surname.to_string(),
    }
}

/// What a placeholder of a template is filled with: the text, the personal part of it (a name without
/// the title before it or the suffix after it) as a range, and the kind of mention it is planted as
/// (empty: not planted).
struct Fill {
    key: &'static str,
    value: String,
    personal: std::ops::Range<usize>,
    kind: &'static str,
}

impl Fill {
    fn whole(key: &'static str, value: String, kind: &'static str) -> Fill {
        let personal = 0..value.len();
        Fill {
            key,
            value,
            personal,
            kind,
        }
    }
}

/// `template` written into `text` with its placeholders filled, each mention planted.
fn write(
    text: &mut String,
    planted: &mut Vec<Planted>,
    template: &str,
    fill: &[Fill],
    group: &'static str,
) {
    let mut rest = template;
    while let Some(open) = rest.find('{') {
        text.push_str(&rest[..open]);
        let close = rest[open..].find('}').map_or(rest.len(), |c| open + c + 1);
        let key = &rest[open..close];
        match fill.iter().find(|f| f.key == key) {
            Some(f) => {
                let start = text.len();
                text.push_str(&f.value);
                if !f.kind.is_empty() {
                    planted.push(Planted {
                        start: start + f.personal.start,
                        end: start + f.personal.end,
                        ty: PiiType::PersonName,
                        layout: f.kind,
                        group,
                    });
                }
            }
            None => text.push_str(key),
        }
        rest = &rest[close..];
    }
    text.push_str(rest);
}

/// The personal part of an inflected surname: before an apostrophe's suffix ("Castro's",
/// "Yılmaz'ın"), else the letters it shares with the surname ("Dzwonnik" of "Dzwonnika", "Kowalski"
/// of "Kowalskiego"), three at least.
fn stem(surname: &str, inflected: &str) -> usize {
    if let Some(at) = inflected.find('\'') {
        return at;
    }
    let shared = surname
        .char_indices()
        .zip(inflected.chars())
        .take_while(|((_, a), b)| a == b)
        .last()
        .map_or(0, |((at, c), _)| at + c.len_utf8());
    let mut least = inflected.len().min(3);
    while !inflected.is_char_boundary(least) {
        least += 1;
    }
    shared.max(least)
}

/// A document of `language`: the sentences, filled and planted, one after the other.
fn document(language: &Prose, fill: &[Fill], sentences: &[&str]) -> Document {
    let mut text = String::new();
    let mut planted = Vec::new();
    for sentence in sentences {
        if !text.is_empty() {
            text.push(' ');
        }
        write(&mut text, &mut planted, sentence, fill, language.code);
    }
    Document {
        language: language.code,
        text,
        planted,
    }
}

/// `per_language` documents of each language with a person in them.
pub fn corpus(seed: u64, per_language: usize) -> Vec<Document> {
    let mut rng = Rng::new(seed ^ 0x9e05e);
    let mut documents = Vec::new();
    for language in LANGUAGES {
        for _ in 0..per_language {
            let person = person(language.code, &mut rng);
            let full = format!("{} {}", person.given, person.surname);
            let title = if person.female {
                language.titles.1
            } else {
                language.titles.0
            };
            let titled = format!("{title} {}", person.surname);
            let inflected = inflected(language.code, &person.surname, person.female);
            let fill = [
                Fill::whole("{name}", full, "first"),
                Fill::whole("{surname}", person.surname.clone(), "surname"),
                Fill::whole("{given}", person.given.clone(), "given name"),
                Fill {
                    key: "{titled}",
                    personal: title.len() + 1..titled.len(),
                    value: titled,
                    kind: "title + surname",
                },
                Fill {
                    key: "{inflected}",
                    personal: 0..stem(&person.surname, &inflected),
                    value: inflected,
                    kind: "inflected",
                },
                Fill::whole("{thing}", rng.pick(THINGS).to_string(), ""),
            ];
            let mut sentences = vec![rng.pick(language.first)];
            let mut later: Vec<&str> = language.later.to_vec();
            for _ in 0..2 {
                if rng.below(2) == 0 {
                    sentences.push(rng.pick(language.filler));
                }
                let pick = rng.below(later.len() as u64) as usize;
                sentences.push(later.swap_remove(pick));
            }
            documents.push(document(language, &fill, &sentences));
        }
    }
    documents
}

/// `per_language` documents of each language that name no one: the filler sentences, and a sentence
/// of the first mentions with a place, a firm or a product where the person would stand.
pub fn name_free(seed: u64, per_language: usize) -> Vec<Document> {
    let mut rng = Rng::new(seed ^ 0x0f1ee);
    let mut documents = Vec::new();
    for language in LANGUAGES {
        for _ in 0..per_language {
            let thing = rng.pick(THINGS).to_string();
            let fill = [
                Fill::whole("{name}", thing.clone(), ""),
                Fill::whole("{thing}", thing, ""),
            ];
            let mut sentences = vec![rng.pick(language.first)];
            for _ in 0..3 {
                sentences.push(rng.pick(language.filler));
            }
            documents.push(document(language, &fill, &sentences));
        }
    }
    documents
}

/// The prose check's figures: recall per language and kind of mention, and per language the
/// name-free documents with a false person.
#[derive(Debug, Default)]
pub struct Report {
    /// (language, kind of mention) -> counts.
    pub mentions: BTreeMap<(&'static str, &'static str), Counts>,
    /// Language -> (name-free documents, those with a person found in them).
    pub false_people: BTreeMap<&'static str, (usize, usize)>,
    /// What was missed: (language, kind, the mention).
    pub missed: Vec<(&'static str, &'static str, String)>,
    /// What was found in name-free documents: (language, the text found).
    pub false_ones: Vec<(&'static str, String)>,
}

/// Scores the engine under `policy` on `with_people` and `name_free`.
pub fn report(with_people: &[Document], name_free: &[Document], policy: &Policy) -> Report {
    let mut report = Report::default();
    for document in with_people {
        let findings = detect(&document.text, policy);
        for planted in &document.planted {
            let masked = (planted.start..planted.end)
                .all(|at| findings.iter().any(|f| f.start <= at && at < f.end));
            let counts = report
                .mentions
                .entry((document.language, planted.layout))
                .or_default();
            counts.planted += 1;
            counts.masked += usize::from(masked);
            if !masked {
                report.missed.push((
                    document.language,
                    planted.layout,
                    document.text[planted.start..planted.end].to_string(),
                ));
            }
        }
    }
    for document in name_free {
        let people: Vec<_> = detect(&document.text, policy)
            .into_iter()
            .filter(|f| f.pii_type == PiiType::PersonName)
            .collect();
        let entry = report.false_people.entry(document.language).or_default();
        entry.0 += 1;
        entry.1 += usize::from(!people.is_empty());
        for finding in people {
            report.false_ones.push((
                document.language,
                format!(
                    "{} ({})",
                    &document.text[finding.start..finding.end],
                    finding.detector
                ),
            ));
        }
    }
    report
}

/// The kinds of mention, in the order the table shows them.
pub const KINDS: [&str; 5] = [
    "first",
    "surname",
    "given name",
    "title + surname",
    "inflected",
];

impl Report {
    /// Recall of `kind` in `language` (`None`: all languages); `None` when none was planted.
    pub fn recall(&self, language: Option<&str>, kind: &str) -> Option<f64> {
        let (planted, masked) = self
            .mentions
            .iter()
            .filter(|((l, k), _)| *k == kind && language.is_none_or(|language| *l == language))
            .fold((0, 0), |(p, m), (_, c)| (p + c.planted, m + c.masked));
        (planted > 0).then(|| masked as f64 / planted as f64)
    }

    /// The share of name-free documents of `language` (`None`: all) with a person found in them.
    pub fn false_rate(&self, language: Option<&str>) -> f64 {
        let (docs, false_docs) = self
            .false_people
            .iter()
            .filter(|(l, _)| language.is_none_or(|language| **l == language))
            .fold((0, 0), |(a, b), (_, (c, d))| (a + c, b + d));
        false_docs as f64 / docs.max(1) as f64
    }

    /// The figures as a table, a language a line; with `show`, what was missed and found falsely.
    pub fn table(&self, show: bool) -> String {
        use std::fmt::Write;
        let mut out = format!("  {:<8}", "language");
        for kind in KINDS {
            let _ = write!(out, " {kind:>15}");
        }
        let _ = writeln!(out, " {:>15}", "false person");
        let codes = LANGUAGES.iter().map(|l| Some(l.code)).chain([None]);
        for code in codes {
            let _ = write!(out, "  {:<8}", code.unwrap_or("all"));
            for kind in KINDS {
                match self.recall(code, kind) {
                    Some(recall) => {
                        let _ = write!(out, " {recall:>15.3}");
                    }
                    None => {
                        let _ = write!(out, " {:>15}", "-");
                    }
                }
            }
            let _ = writeln!(out, " {:>15.3}", self.false_rate(code));
        }
        if show {
            for (language, kind, mention) in self.missed.iter().take(200) {
                let _ = writeln!(out, "  missed {language} {kind}: {mention}");
            }
            for (language, found) in self.false_ones.iter().take(300) {
                let _ = writeln!(out, "  false {language}: {found}");
            }
        }
        out
    }
}
