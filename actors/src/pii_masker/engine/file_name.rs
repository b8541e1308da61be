//! A file name masked like a document's text (issue 84): a name is personal data as often as a body is
//! (`Huseyin_Altiparmak_basvuru.txt`, `zeynep-karaosmanoglu-cv.pdf`). The name is read three ways and
//! what any reading finds is masked in the name as written, its separators kept:
//! - as written, and without its extension (an e-mail address or an IBAN keeps its dots and dashes);
//! - with its separators (`_`, `-`, `.`, `+`, `~`) read as spaces, so that the words they join are
//!   read as words;
//! - as a name in running text would be written: a word in lower case that the name lists know as a
//!   given name or a surname is capitalised, and so is the word after a given name (its surname).
//!
//! Each reading keeps the name's byte offsets (only ASCII letters change case; a letter whose capital
//! is longer stays as it is), so findings carry over. Fails closed: when the name masked so would
//! still read as holding a value (or the engine refuses it), it is replaced whole by `document` and
//! its extension.

use super::lexicon::{given_name, known_surname};
use super::mask::with_replacements;
use super::text::fold;
use super::{mask, summarize, Finding, LeakError, Policy};

/// What stands between words in a file name.
fn separator(byte: u8) -> bool {
    matches!(byte, b'_' | b'-' | b'.' | b'+' | b'~')
}

fn spaced(name: &str) -> String {
    name.chars()
        .map(|c| {
            if c.is_ascii() && separator(c as u8) {
                ' '
            } else {
                c
            }
        })
        .collect()
}

/// `spaced` with the words the name lists know capitalised (ASCII first letters only).
fn cased(spaced: &str) -> String {
    let mut out = String::with_capacity(spaced.len());
    let mut after_given = false;
    for (index, word) in spaced.split(' ').enumerate() {
        if index > 0 {
            out.push(' ');
        }
        let lower = word.chars().all(|c| c.is_alphabetic() && !c.is_uppercase());
        let folded = fold(word);
        let given = lower && given_name(&folded).is_some();
        let capitalise = lower
            && word.len() > 1
            && word.as_bytes()[0].is_ascii_lowercase()
            && (given || after_given || known_surname(&folded));
        if capitalise {
            out.push(word.as_bytes()[0].to_ascii_uppercase() as char);
            out.push_str(&word[1..]);
        } else {
            out.push_str(word);
        }
        after_given = given;
    }
    out
}

/// The name's extension (`.pdf`), kept by the fallback.
fn extension(name: &str) -> &str {
    match name.rfind('.') {
        Some(dot)
            if (2..=6).contains(&(name.len() - dot))
                && name[dot + 1..].bytes().all(|b| b.is_ascii_alphanumeric()) =>
        {
            &name[dot..]
        }
        _ => "",
    }
}

/// `name` with what the policy finds in it masked (see the module's documentation); `document` and
/// the extension when it cannot be masked safely.
pub fn mask_file_name(name: &str, policy: &Policy) -> String {
    masked_name(name, policy).unwrap_or_else(|_| format!("document{}", extension(name)))
}

fn masked_name(name: &str, policy: &Policy) -> Result<String, LeakError> {
    if name.trim().is_empty() {
        return Ok(name.to_string());
    }
    let words = spaced(name);
    let cased = cased(&words);
    // Every reading's findings with what replaced them, the longer first where two overlap.
    let mut found: Vec<(Finding, Option<String>)> = Vec::new();
    // The stem alone too: a value the extension runs into (`ali.veli@ornek.com.tr.eml`) ends there.
    let stem = &name[..name.len() - extension(name).len()];
    for reading in [name, stem, words.as_str(), cased.as_str()] {
        let masked = mask(reading, policy)?;
        let written = masked.written.unwrap_or_default();
        for (index, finding) in masked.findings.into_iter().enumerate() {
            found.push((finding, written.get(index).cloned().flatten()));
        }
    }
    found.sort_by_key(|(f, _)| (f.start, std::cmp::Reverse(f.end)));
    let mut kept: Vec<(Finding, Option<String>)> = Vec::new();
    for (finding, written) in found {
        match kept.last_mut() {
            Some((last, _)) if finding.start < last.end => {
                // Overlapping: one span over both, under the type of the one that starts first.
                last.end = last.end.max(finding.end);
            }
            _ => kept.push((finding, written)),
        }
    }
    let (findings, written): (Vec<Finding>, Vec<Option<String>>) = kept.into_iter().unzip();
    let placeholders = with_replacements(name, 0, name.len(), &findings, None);
    let left = [placeholders.clone(), spaced(&placeholders)]
        .iter()
        .any(|reading| !summarize(reading, policy).0.is_empty());
    if left {
        return Ok(format!("document{}", extension(name)));
    }
    Ok(with_replacements(
        name,
        0,
        name.len(),
        &findings,
        Some(&written),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn masked(name: &str) -> String {
        mask_file_name(name, &Policy::default())
    }

    #[test]
    fn names_of_people_are_masked_in_file_names_and_the_rest_is_kept() {
        assert_eq!(
            masked("Huseyin_Altiparmak_basvuru.txt"),
            "[MASKED_PERSON_NAME]_basvuru.txt"
        );
        for name in [
            "zeynep-karaosmanoglu-cv.pdf",
            "cv_Ayse_Yilmaz_2026.pdf",
            "maas.bordrosu.ahmet.kaya.xlsx",
            "Huseyin_Altiparmak_musteri.csv",
            "Hüseyin Altıparmak başvuru.docx",
        ] {
            let out = masked(name);
            assert!(out.contains("[MASKED_PERSON_NAME]"), "{name}: {out}");
            assert_eq!(extension(&out), extension(name), "{name}: {out}");
        }
        assert_eq!(masked("ali.veli@ornek.com.tr.eml"), "[MASKED_EMAIL].eml");
        assert!(masked("kimlik_10000000146.pdf").contains("[MASKED_NATIONAL_ID_TR]"));
        for plain in [
            "fatura-2026-11.pdf",
            "rapor_ekim_final.docx",
            "meeting notes q3.docx",
        ] {
            assert_eq!(masked(plain), plain);
        }
    }
}
