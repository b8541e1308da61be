//! A document's text as the person may see it: their own values in clear, everyone else's masked.

use std::collections::BTreeSet;

use crate::blob::DataKey;
use crate::pii_masker::MaskedDocument;

/// `full_text` (the document as read) with every finding of `masked` (whose offsets are into it)
/// replaced by its type's placeholder, except those whose digest is one of `subject`'s.
pub fn subject_text(
    full_text: &str,
    masked: &MaskedDocument,
    key: &DataKey,
    subject: &BTreeSet<String>,
) -> String {
    let mut out = String::with_capacity(full_text.len());
    let mut at = 0;
    let mut order: Vec<usize> = (0..masked.findings.len()).collect();
    order.sort_by_key(|&i| (masked.findings[i].start, masked.findings[i].end));
    for i in order {
        let finding = &masked.findings[i];
        if finding.start < at || finding.end > full_text.len() {
            continue;
        }
        out.push_str(&full_text[at..finding.start]);
        let normal = masked.normal_forms.get(i).map(String::as_str).unwrap_or("");
        let digest = key.subject_digest(finding.pii_type.name(), normal);
        if subject.contains(&digest) {
            out.push_str(&full_text[finding.start..finding.end]);
        } else {
            out.push_str(finding.pii_type.placeholder());
        }
        at = finding.end;
    }
    out.push_str(&full_text[at..]);
    out
}
