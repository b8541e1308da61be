//! The masking engine behind the redaction writers ([`crate::redaction`]): a document's bytes are
//! rewritten with each text masked by the tenant's policy and everything the whole document revealed
//! (its declared values and every value its full text's scan found), then every text the writer left
//! in the file is scanned again; and the file read back by the readers is scanned by [`check`].

use std::collections::BTreeMap;

use super::document::{declared, learn, normal_forms};
use super::engine::{self, Finding, Known, Policy};
use crate::extractor_pool::{Format, Limits};
use crate::model::Document;
use crate::redaction::{self, Masker, RedactError, Redacted, Replace};

impl From<super::LeakError> for RedactError {
    fn from(leak: super::LeakError) -> Self {
        RedactError::Refused(
            leak.remaining
                .keys()
                .cloned()
                .collect::<Vec<_>>()
                .join(", "),
        )
    }
}

/// What a scan of a redacted file's text found that is not the engine's own writing: None when
/// nothing, else the types left. `findings` are over `text`; `written` are the replacements written.
fn leftover(text: &str, findings: &[Finding], written: &[String]) -> Option<String> {
    // The places of the replacements in the text: a finding wholly inside one is a surrogate.
    let mut own: Vec<(usize, usize)> = Vec::new();
    for replacement in written.iter().filter(|w| !w.is_empty()) {
        own.extend(
            text.match_indices(replacement.as_str())
                .map(|(at, w)| (at, at + w.len())),
        );
    }
    let mut left: Vec<&'static str> = findings
        .iter()
        .filter(|f| !own.iter().any(|&(s, e)| s <= f.start && f.end <= e))
        .map(|f| f.pii_type.name())
        .collect();
    left.sort_unstable();
    left.dedup();
    (!left.is_empty()).then(|| left.join(", "))
}

/// Whether a value the output declares is made of the engine's replacements only (a first and a
/// family name declared apart, each replaced, read back joined), or empty.
fn own_writing(value: &str, written: &[String]) -> bool {
    let mut longest_first: Vec<&String> = written.iter().filter(|w| !w.is_empty()).collect();
    longest_first.sort_by_key(|w| std::cmp::Reverse(w.len()));
    let mut rest = value.to_string();
    for replacement in longest_first {
        rest = rest.replace(replacement.as_str(), " ");
    }
    !rest.chars().any(char::is_alphanumeric)
}

/// A redacted document with what the original's scan found, and what its check needs.
pub struct RedactedDocument {
    pub redacted: Redacted,
    pub format: Format,
    pub findings: Vec<Finding>,
    pub summary: BTreeMap<String, u64>,
    /// Each finding's normal form (see [`super::MaskedDocument::normal_forms`]).
    pub normal_forms: Vec<String>,
    /// The values the document revealed: a value found again in the output is a leak.
    pub known: Known,
    /// The original's pages, when it has pages (what a preview of it would cost).
    pub pages: Option<u32>,
}

/// The engine as the writers ask for it, keeping every replacement it wrote.
struct EngineMasker<'a> {
    policy: &'a Policy,
    known: &'a Known,
    written: rustc_hash::FxHashSet<String>,
}

impl Masker for EngineMasker<'_> {
    fn replacements(&mut self, text: &str) -> Result<Vec<Replace>, RedactError> {
        let masked = engine::mask_known(text, self.policy, self.known)?;
        let written = masked.written.as_deref();
        Ok(masked
            .findings
            .iter()
            .enumerate()
            .map(|(index, finding)| {
                let with = written
                    .and_then(|w| w.get(index))
                    .and_then(|w| w.clone())
                    .unwrap_or_else(|| finding.pii_type.placeholder().to_string());
                if !with.is_empty() {
                    self.written.insert(with.clone());
                }
                Replace {
                    start: finding.start,
                    end: finding.end,
                    with,
                }
            })
            .collect())
    }
}

/// What the whole document reveals: what it declares, and each value (of four characters or more)
/// that its full text's scan found; with those findings and their summary.
fn revealed(document: &Document, policy: &Policy) -> (Known, Vec<Finding>, BTreeMap<String, u64>) {
    let mut known = declared(document);
    let full_text = document.full_text();
    let (findings, summary) = engine::summarize_known(&full_text, policy, &known);
    learn(&mut known, &full_text, &findings);
    (known, findings, summary)
}

/// `bytes` (read as `document`, of `format`) rewritten in their own format by `policy`; refused when
/// a text the writer left in the file still holds personal data.
pub fn redact_document(
    bytes: &[u8],
    format: Format,
    document: &Document,
    policy: &Policy,
    limits: &Limits,
) -> Result<RedactedDocument, RedactError> {
    if redaction::writer_of(format).is_none() {
        return Err(redaction::unsupported_format(format));
    }
    let (known, findings, summary) = revealed(document, policy);
    let mut masker = EngineMasker {
        policy,
        known: &known,
        written: Default::default(),
    };
    let mut redacted = redaction::redact(bytes, format, limits, &mut masker)?;
    // What the writer wrote in place of the replacements (an `X` fill where one did not fit), and
    // the replacements.
    redacted.written.extend(masker.written);
    redacted.written.sort_unstable();
    redacted.written.dedup();
    let left = std::mem::take(&mut redacted.left);
    let found = engine::detect_known(&left, policy, &known);
    if let Some(types) = leftover(&left, &found, &redacted.written) {
        return Err(RedactError::Refused(types));
    }
    let normal_forms = normal_forms(&document.full_text(), &findings);
    Ok(RedactedDocument {
        redacted,
        format,
        findings,
        summary,
        normal_forms,
        known,
        pages: document.metadata.pages,
    })
}

/// The redacted file as its reader read it (`output`) scanned by `policy` with the values the original
/// revealed: anything found that is not the engine's own writing refuses the file, as does a value the
/// output declares about itself (an author a writer missed).
pub fn check(
    output: &Document,
    policy: &Policy,
    redacted: &RedactedDocument,
) -> Result<(), RedactError> {
    let text = output.full_text();
    let found = engine::detect_known(&text, policy, &redacted.known);
    let written = &redacted.redacted.written;
    let mut left: Vec<String> = declared(output)
        .values()
        .iter()
        .filter(|(_, value)| !own_writing(value, written))
        .map(|(ty, _)| ty.name().to_string())
        .collect();
    left.extend(leftover(&text, &found, written));
    match left.is_empty() {
        true => Ok(()),
        false => Err(RedactError::Refused(left.join(", "))),
    }
}

#[cfg(test)]
mod tests;

#[cfg(test)]
mod pdf_tests;
