//! The PII engine: finds the 46 personal-data types of `shared/spec/pii-types.md` in one pass over
//! the text, resolves overlaps, masks each value as `[MASKED_<TYPE>]`, and re-scans the output so
//! that a masked result can never carry a detectable value. Pure and synchronous; never panics on
//! any input; findings never contain the raw value.

mod context;
mod lexicon;
mod scanner;
pub mod synthetic;
pub mod text;
mod types;

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

pub use types::{PiiType, TypeSet};

/// What to detect and mask.
#[derive(Clone, Debug)]
pub struct Policy {
    /// Types that are detected (default: all 46).
    pub enabled: TypeSet,
    /// Findings below this confidence are ignored (default 0: everything).
    pub min_confidence: f32,
    /// Bytes before a candidate searched for context keywords (default 64).
    pub context_before: usize,
    /// Bytes after a candidate searched for context keywords (default 24).
    pub context_after: usize,
    /// Values known from outside the text (a document's author, e-mail display names, the VKN of an
    /// e-invoice party): masked as that type wherever they occur.
    pub known_values: Vec<(PiiType, String)>,
}

impl Default for Policy {
    fn default() -> Self {
        Policy {
            enabled: TypeSet::all(),
            min_confidence: 0.0,
            context_before: 64,
            context_after: 24,
            known_values: Vec::new(),
        }
    }
}

impl Policy {
    /// Only these types.
    pub fn only(types: &[PiiType]) -> Policy {
        Policy {
            enabled: types.iter().fold(TypeSet::default(), |set, t| set.with(*t)),
            ..Policy::default()
        }
    }
}

/// One detected value. Offsets refer to the input text; the value itself is never stored.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Finding {
    #[serde(rename = "type")]
    pub pii_type: PiiType,
    pub start: usize,
    pub end: usize,
    pub char_start: usize,
    pub char_end: usize,
    pub confidence: f32,
    pub detector: String,
}

/// The result of [`mask`].
#[derive(Clone, Debug, Serialize)]
pub struct Masked {
    pub text: String,
    pub findings: Vec<Finding>,
    /// `pii_type_summary`: type name -> count.
    pub summary: BTreeMap<String, u64>,
}

/// Masking was refused: the output would still contain detectable values.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("masked output still contains detectable personal data ({remaining:?}); result refused")]
pub struct LeakError {
    pub remaining: BTreeMap<String, u64>,
}

fn better(candidate: &scanner::Hit, current: &scanner::Hit) -> bool {
    let (cl, ul) = (candidate.end - candidate.start, current.end - current.start);
    cl > ul || (cl == ul && candidate.ty.priority() < current.ty.priority())
}

/// Non-overlapping hits: the longest validated span wins, then the type priority.
fn resolve(mut hits: Vec<scanner::Hit>, policy: &Policy) -> Vec<scanner::Hit> {
    hits.retain(|h| {
        policy.enabled.contains(h.ty) && h.confidence >= policy.min_confidence && h.end > h.start
    });
    hits.sort_by(|a, b| {
        a.start
            .cmp(&b.start)
            .then(b.end.cmp(&a.end))
            .then(a.ty.priority().cmp(&b.ty.priority()))
    });
    let mut kept: Vec<scanner::Hit> = Vec::with_capacity(hits.len());
    for hit in hits {
        match kept.last_mut() {
            Some(last) if hit.start < last.end => {
                if better(&hit, last) {
                    *last = hit;
                    // The replacement may now overlap its predecessor; keep the better of the two.
                    while kept.len() >= 2 {
                        let n = kept.len();
                        if kept[n - 1].start < kept[n - 2].end {
                            if better(&kept[n - 1], &kept[n - 2]) {
                                kept.swap(n - 1, n - 2);
                            }
                            kept.pop();
                        } else {
                            break;
                        }
                    }
                }
            }
            _ => kept.push(hit),
        }
    }
    kept
}

/// A name found once (behind a label, in a name column) is a name everywhere in the document, and a
/// value the document itself declares (see [`Policy::known_values`]) is masked wherever it occurs.
fn propagate(text: &str, known: &[(PiiType, String)], hits: &mut Vec<scanner::Hit>) {
    let mut values: Vec<(PiiType, &str)> = hits
        .iter()
        .filter(|h| h.ty == PiiType::PersonName)
        .map(|h| (PiiType::PersonName, text[h.start..h.end].trim()))
        .filter(|(_, name)| name.chars().count() >= 5 && name.contains(' ') && !name.contains('\n'))
        .chain(
            known
                .iter()
                .map(|(ty, value)| (*ty, value.trim()))
                .filter(|(ty, value)| {
                    value.chars().count() >= if *ty == PiiType::PersonName { 5 } else { 4 }
                }),
        )
        .collect();
    if values.is_empty() {
        return;
    }
    values.sort_unstable();
    values.dedup_by(|a, b| a.1 == b.1);
    let b = text.as_bytes();
    let letter = |c: u8| c.is_ascii_alphanumeric() || c >= 0x80;
    let mut push = |start: usize, end: usize, ty: PiiType| {
        if (start > 0 && letter(b[start - 1])) || b.get(end).is_some_and(|&c| letter(c)) {
            return;
        }
        hits.push(scanner::Hit {
            start,
            end,
            ty,
            confidence: 0.6,
            detector: "propagated",
        });
    };
    // A document masks every element and cell with the same values: for the many short parts a direct
    // search per value is cheaper than building an automaton each time; long texts get one automaton.
    if text.len().saturating_mul(values.len()) <= 64 * 1024 {
        for (ty, value) in &values {
            for (start, found) in text.match_indices(value) {
                push(start, start + found.len(), *ty);
            }
        }
        return;
    }
    let Ok(automaton) = aho_corasick::AhoCorasickBuilder::new()
        .match_kind(aho_corasick::MatchKind::LeftmostLongest)
        .kind(Some(aho_corasick::AhoCorasickKind::NoncontiguousNFA))
        .build(values.iter().map(|(_, v)| v))
    else {
        return;
    };
    for found in automaton.find_iter(text) {
        push(
            found.start(),
            found.end(),
            values[found.pattern().as_usize()].0,
        );
    }
}

fn raw_hits(text: &str, policy: &Policy) -> Vec<scanner::Hit> {
    let mut hits = scanner::Scanner::new(text, policy.context_before, policy.context_after).run();
    propagate(text, &policy.known_values, &mut hits);
    // Offsets must fall on char boundaries: snap inwards defensively.
    resolve(
        hits.into_iter()
            .map(|mut h| {
                h.start = text::ceil_boundary(text, h.start);
                h.end = text::floor_boundary(text, h.end);
                h
            })
            .collect(),
        policy,
    )
}

fn findings_of(text: &str, hits: &[scanner::Hit]) -> Vec<Finding> {
    let mut findings = Vec::with_capacity(hits.len());
    let (mut byte, mut chars) = (0usize, 0usize);
    for hit in hits {
        chars += text[byte..hit.start].chars().count();
        let char_start = chars;
        chars += text[hit.start..hit.end].chars().count();
        byte = hit.end;
        findings.push(Finding {
            pii_type: hit.ty,
            start: hit.start,
            end: hit.end,
            char_start,
            char_end: chars,
            confidence: hit.confidence,
            detector: hit.detector.to_string(),
        });
    }
    findings
}

fn summarise(findings: &[Finding]) -> BTreeMap<String, u64> {
    let mut summary = BTreeMap::new();
    for finding in findings {
        *summary
            .entry(finding.pii_type.name().to_string())
            .or_insert(0) += 1;
    }
    summary
}

/// Finds personal data without changing the text.
pub fn detect(text: &str, policy: &Policy) -> Vec<Finding> {
    findings_of(text, &raw_hits(text, policy))
}

/// Replaces every finding by its placeholder, then re-scans the output; a detectable value left in the
/// output refuses the result.
pub fn mask(text: &str, policy: &Policy) -> Result<Masked, LeakError> {
    let hits = raw_hits(text, policy);
    let findings = findings_of(text, &hits);
    let mut out = String::with_capacity(text.len());
    let mut cursor = 0;
    for hit in &hits {
        out.push_str(&text[cursor..hit.start]);
        out.push_str(hit.ty.placeholder());
        cursor = hit.end;
    }
    out.push_str(&text[cursor..]);
    let remaining = raw_hits(&out, policy);
    if !remaining.is_empty() {
        let mut counts = BTreeMap::new();
        for hit in &remaining {
            *counts.entry(hit.ty.name().to_string()).or_insert(0) += 1;
        }
        return Err(LeakError { remaining: counts });
    }
    Ok(Masked {
        text: out,
        summary: summarise(&findings),
        findings,
    })
}

/// Counts without masking (`--no-mask`): findings and summary.
pub fn summarize(text: &str, policy: &Policy) -> (Vec<Finding>, BTreeMap<String, u64>) {
    let findings = detect(text, policy);
    let summary = summarise(&findings);
    (findings, summary)
}

#[cfg(test)]
mod tests;
