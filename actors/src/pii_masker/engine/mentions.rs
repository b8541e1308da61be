//! Every later mention of a person found once: once a document names "Aniela Dzwonnik", "Pani
//! Dzwonnik", "Dzwonnika", "DZWONNIK" and "Aniela" are her too. The parts of each person's name
//! (each word but titles, initials and particles) are searched for as whole words, in the case they
//! were written in and in capitals, with the endings the supported languages inflect a name with:
//! English and Turkish after an apostrophe ("Castro's", "Yılmaz'ın"), German genitive "-s"
//! ("Römers"), Polish and Czech case endings ("Dzwonnika", "Kowalskiego", "Novákové": a final
//! vowel of the name may give way to the ending). Each mention is tied to the name it belongs to, so
//! that `numbered` and `surrogate` give every mention of one person the same token.

use super::lexicon;
use super::scan::Hit;
use super::text;
use super::Finding;
use super::PiiType;

/// The endings a name takes in the supported languages, after its stem (the name less a final vowel):
/// German, Dutch and the Nordic genitive "-s", Polish and Czech case endings ("Dzwonnika",
/// "Kowalskiego", "Kowalskiej", "Nováka", "Novákové", "Černého"), and the final vowel itself.
const ENDINGS: &[&str] = &[
    "s", "es", "a", "e", "i", "o", "u", "y", "á", "é", "í", "ó", "ý", "ą", "ę", "ě", "ou", "em",
    "ie", "im", "ej", "ym", "ým", "ów", "om", "ovi", "owi", "ego", "emu", "ého", "ému", "iego",
    "iemu", "ami", "ach", "ové", "ovou", "ová", "ův",
];

/// The fewest letters of a part of a name searched for alone: shorter ones ("Li", "Ng") are too
/// often something else.
const MIN_PART: usize = 3;

/// The fewest bytes of a stem that takes an ending: a short name ("Kaya", "Berg") is matched as
/// written only.
const MIN_STEM: usize = 4;

/// One part of a found name: what is searched for, and the name it belongs to.
struct Part {
    /// The part as written ("Dzwonnik", "Kowalska").
    written: String,
    /// The bytes an inflected mention starts with: the part less a final vowel ("Kowalsk").
    stem: usize,
    /// The whole name's span in the text (the first full mention).
    name: (usize, usize),
    /// The particles the part follows in the name, with the space after each ("van ", "van der "):
    /// a later mention written with them ("Daarna vroeg van Asten") is masked with them.
    particles: String,
}

fn is_vowel_end(part: &str) -> Option<usize> {
    let last = part.chars().last()?;
    matches!(
        last,
        'a' | 'e' | 'i' | 'o' | 'u' | 'y' | 'á' | 'é' | 'í' | 'ó' | 'ú' | 'ý' | 'ą' | 'ę' | 'ě'
    )
    .then(|| part.len() - last.len_utf8())
}

/// The parts of the person names among `hits` worth searching for.
fn parts(text: &str, hits: &[Hit]) -> Vec<Part> {
    let mut parts: Vec<Part> = Vec::new();
    for hit in hits.iter().filter(|h| h.ty == PiiType::PersonName) {
        let name = &text[hit.start..hit.end];
        if name.contains('\n') || name.len() > 80 {
            continue;
        }
        let mut particles = String::new();
        for word in name.split([' ', '\u{a0}']) {
            // "Connolly-Hughes": the whole and each half.
            let word = word.trim_matches(|c: char| !c.is_alphanumeric());
            if lexicon::NAME_PARTICLES.contains(&word.as_bytes()) {
                particles.push_str(word);
                particles.push(' ');
                continue;
            }
            let lead = std::mem::take(&mut particles);
            let halves = word.split('-').filter(|h| h.len() < word.len());
            for part in std::iter::once(word).chain(halves) {
                if part.chars().count() < MIN_PART
                    || !part.chars().next().is_some_and(char::is_uppercase)
                    || part
                        .chars()
                        .any(|c| !c.is_alphabetic() && c != '\'' && c != '-')
                    || parts.iter().any(|p| p.written == part)
                {
                    continue;
                }
                let stem = is_vowel_end(part)
                    .filter(|&s| s >= MIN_STEM)
                    .unwrap_or(part.len());
                parts.push(Part {
                    written: part.to_string(),
                    stem,
                    name: (hit.start, hit.end),
                    particles: if part.len() == word.len() {
                        lead.clone()
                    } else {
                        String::new()
                    },
                });
            }
        }
    }
    parts
}

/// The end of the mention whose stem ends at `stem_end`: the stem alone, with one of [`ENDINGS`], or
/// with the part's own last letter (`vowel`, the letter the stem left out) before one ("Kennedys");
/// `None` when the word goes on otherwise (another word: "Kayapınar" is no mention of "Kaya").
fn mention_end(b: &[u8], stem_end: usize, vowel: &[u8]) -> Option<usize> {
    let mut end = stem_end;
    while text::letter_at(b, end) > 0 {
        end += text::letter_at(b, end);
    }
    if b.get(end).is_some_and(|&c| text::is_word_byte(c)) {
        return None;
    }
    // In the case the mention is written in ("KOWALSKIEGO").
    let lower = |e: &[u8]| {
        std::str::from_utf8(e)
            .map(str::to_lowercase)
            .unwrap_or_default()
    };
    let ending = &b[stem_end..end];
    let is_ending =
        |e: &[u8]| e.is_empty() || ENDINGS.iter().any(|x| x.as_bytes() == lower(e).as_bytes());
    (is_ending(ending) || ending.strip_prefix(vowel).is_some_and(is_ending)).then_some(end)
}

/// The later mentions of the people named in `hits`, each with the span of the name it belongs to.
pub(super) fn later_mentions(text: &str, hits: &[Hit]) -> Vec<(Hit, (usize, usize))> {
    let b = text.as_bytes();
    let parts = parts(text, hits);
    let mut found = Vec::new();
    for part in &parts {
        let upper = part.written.to_uppercase();
        let written = part.written.as_bytes();
        let stems: [&[u8]; 2] = [
            &written[..part.stem],
            &upper.as_bytes()[..part.stem.min(upper.len())],
        ];
        for (n, stem) in stems.iter().enumerate() {
            if n == 1 && upper == part.written {
                break;
            }
            for start in memchr::memmem::find_iter(b, stem) {
                if start > 0 && text::is_word_byte(b[start - 1]) {
                    continue;
                }
                let vowel = match n {
                    0 => &written[part.stem..],
                    _ => &upper.as_bytes()[part.stem.min(upper.len())..],
                };
                let Some(end) = mention_end(b, start + stem.len(), vowel) else {
                    continue;
                };
                let lead = part.particles.len();
                let start = if lead > 0
                    && start >= lead
                    && b[start - lead..start].eq_ignore_ascii_case(part.particles.as_bytes())
                    && (start == lead || !text::is_word_byte(b[start - lead - 1]))
                {
                    start - lead
                } else {
                    start
                };
                found.push((
                    Hit {
                        start,
                        end,
                        ty: PiiType::PersonName,
                        confidence: 0.6,
                        detector: "person_mention",
                        priority: PiiType::PersonName.priority(),
                        shortcut: None,
                    },
                    part.name,
                ));
            }
        }
    }
    found
}

/// The words of a name, as [`parts`] reads them.
fn words(name: &str) -> impl Iterator<Item = &str> {
    name.split([' ', '\u{a0}'])
        .map(|word| word.trim_matches(|c: char| !c.is_alphanumeric()))
}

/// Whether `mention` is `part` as written, in capitals, or inflected from its stem.
fn mentions(mention: &str, part: &str) -> bool {
    if part.chars().count() < MIN_PART {
        return false;
    }
    let stem = is_vowel_end(part)
        .filter(|&s| s >= MIN_STEM)
        .unwrap_or(part.len());
    let (mention, part) = (mention.to_lowercase(), part.to_lowercase());
    mention == part
        || (mention.len() > stem
            && part.is_char_boundary(stem)
            && mention.starts_with(&part[..stem]))
}

/// For each finding, the person it mentions again when it is one word of a name found in full
/// elsewhere in `text` (a person finding of more words): the full name's span and the word's place
/// in it.
pub(super) fn people(text: &str, findings: &[Finding]) -> Vec<Option<((usize, usize), usize)>> {
    let full: Vec<&Finding> = findings
        .iter()
        .filter(|f| {
            f.pii_type == PiiType::PersonName && words(&text[f.start..f.end]).nth(1).is_some()
        })
        .collect();
    findings
        .iter()
        .map(|finding| {
            if finding.pii_type != PiiType::PersonName || full.is_empty() {
                return None;
            }
            let mention = &text[finding.start..finding.end];
            if words(mention).nth(1).is_some() {
                return None;
            }
            full.iter().find_map(|name| {
                let written = &text[name.start..name.end];
                words(written)
                    .position(|part| mentions(mention, part))
                    .map(|word| ((name.start, name.end), word))
            })
        })
        .collect()
}

/// The word of `written` (a name's replacement) in the place of the name's `word`-th word: a
/// surrogate "Jan Kowalski" for "Aniela Dzwonnik" gives "Kowalski" for "Dzwonnik". A replacement of
/// other words (a token, "[MASKED_PERSON_NAME_1]") stands whole.
pub(super) fn word_of(name: &str, written: &str, word: usize) -> String {
    let replaced: Vec<&str> = written.split(' ').collect();
    match replaced.get(word) {
        Some(part) if words(name).count() == replaced.len() && !written.starts_with('[') => {
            part.to_string()
        }
        _ => written.to_string(),
    }
}
