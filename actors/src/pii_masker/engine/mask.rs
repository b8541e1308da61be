//! The masking stage: each finding replaced by its type's placeholder or the policy's replacement.

use super::{Finding, Replacer};

/// `text[from..to]` with each finding (all inside that range, in order) replaced by its placeholder,
/// or by its place in `written` (aligned with `findings`) when that holds a replacement.
pub fn with_replacements(
    text: &str,
    from: usize,
    to: usize,
    findings: &[Finding],
    written: Option<&[Option<String>]>,
) -> String {
    let replacement = |index: usize, finding: &Finding| -> &str {
        written
            .and_then(|written| written.get(index))
            .and_then(|w| w.as_deref())
            .unwrap_or_else(|| finding.pii_type.placeholder())
    };
    // Sized exactly: a placeholder is usually longer than its value, and a string grown past its
    // first guess copies everything written so far.
    let longer: usize = findings
        .iter()
        .enumerate()
        .map(|(index, f)| replacement(index, f).len().saturating_sub(f.end - f.start))
        .sum();
    let mut out = String::with_capacity(to - from + longer);
    let mut cursor = from;
    for (index, finding) in findings.iter().enumerate() {
        out.push_str(&text[cursor..finding.start]);
        out.push_str(replacement(index, finding));
        cursor = finding.end;
    }
    out.push_str(&text[cursor..to]);
    out
}

/// The policy's replacement of each finding (None: the placeholder), none of which is itself a value
/// found in the text: such a replacement is drawn again, and after a few draws the placeholder stands.
pub(super) fn replacements(
    text: &str,
    findings: &[Finding],
    replacer: &dyn Replacer,
) -> Vec<Option<String>> {
    // The text's values by a hash of their letters and digits in lower case (a hash that two values
    // share by chance only costs a draw more); made only when some type's replacement is a value.
    let folded = |value: &str| -> u64 {
        use std::hash::Hasher;
        let mut hasher = rustc_hash::FxHasher::default();
        for c in value.chars().filter(|c| c.is_alphanumeric()) {
            for lower in c.to_lowercase() {
                hasher.write_u32(u32::from(lower));
            }
        }
        hasher.finish()
    };
    let found: Option<rustc_hash::FxHashSet<u64>> = findings
        .iter()
        .any(|f| replacer.writes_values(f.pii_type))
        .then(|| {
            findings
                .iter()
                .map(|f| folded(&text[f.start..f.end]))
                .collect()
        });
    let people = super::mentions::people(text, findings);
    findings
        .iter()
        .zip(people)
        .map(|(finding, person)| {
            // A later mention of a person is replaced as the person's full name is ("Castro" as
            // "John Castro": one number), by the word of the replacement in the mention's place.
            let (value, word) = match person {
                Some((name, word)) => (&text[name.0..name.1], Some(word)),
                None => (&text[finding.start..finding.end], None),
            };
            let written = match found
                .as_ref()
                .filter(|_| replacer.writes_values(finding.pii_type))
            {
                None => replacer.replace(finding.pii_type, value, 0),
                Some(found) => (0..8).find_map(|round| {
                    match replacer.replace(finding.pii_type, value, round) {
                        Some(written) if found.contains(&folded(&written)) => None,
                        other => Some(other),
                    }
                })?,
            };
            match (written, word) {
                (Some(written), Some(word)) => {
                    Some(super::mentions::word_of(value, &written, word))
                }
                (written, _) => written,
            }
        })
        .collect()
}
