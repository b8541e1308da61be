//! The PII engine: finds the 46 personal-data types of `shared/spec/pii-types.md` in one pass over
//! the text, resolves overlaps, masks each value as `[MASKED_<TYPE>]`, and re-scans the output so
//! that a masked result can never carry a detectable value. Pure and synchronous; never panics on
//! any input; findings never contain the raw value.

mod automaton;
pub(crate) mod checksum;
mod context;
mod file_name;
mod known;
pub(crate) mod lexicon;
mod mask;
// Test support: generators of values, layouts and business text, and the planted corpora built from
// them. Compiled for the unit tests, and for benches and integration tests through the crate's
// `test-support` feature (its own dev-dependency turns it on); never into the service.
mod mentions;
#[cfg(any(test, feature = "test-support"))]
pub mod planted;
mod propagate;
mod rescan;
mod resolve;
mod scan;
#[cfg(any(test, feature = "test-support"))]
pub mod synthetic;
pub(crate) mod text;
mod types;

use std::collections::BTreeMap;

use serde::Serialize;

pub use file_name::mask_file_name;
pub use known::Known;
pub use mask::with_replacements;
pub use types::{PiiType, Trait, TypeSet};

/// What to detect and mask: the tenant's choice, the same for every document (what one document
/// reveals about itself is its [`Known`]).
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
    /// What replaces a found value when it is not its type's `[MASKED_<TYPE>]` (the tenant's masking
    /// operators); None: placeholders.
    pub replacer: Option<std::sync::Arc<dyn Replacer>>,
}

/// What a found value becomes in the masked output, when not its type's placeholder.
pub trait Replacer: Send + Sync + std::fmt::Debug {
    /// The replacement of `value`, of type `ty` as written in the text; None: the type's placeholder.
    /// `round` counts the replacements of this value already turned down because each was itself a
    /// value of the text: another is drawn.
    fn replace(&self, ty: PiiType, value: &str, round: u32) -> Option<String>;

    /// Whether what it writes for `ty` may read as a value (a surrogate), which must then not be one
    /// of the text's own values; tokens, placeholders and nothing never are.
    fn writes_values(&self, ty: PiiType) -> bool;
}

impl Default for Policy {
    fn default() -> Self {
        Policy {
            enabled: TypeSet::all(),
            min_confidence: 0.0,
            context_before: 64,
            context_after: 24,
            replacer: None,
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

/// One detected value. Offsets refer to the input text; the value itself is never stored. Written out
/// (JSON), never read back: the detector's name is the engine's own (no allocation per finding).
#[derive(Clone, Debug, PartialEq, Serialize, utoipa::ToSchema)]
pub struct Finding {
    #[serde(rename = "type")]
    pub pii_type: PiiType,
    pub start: usize,
    pub end: usize,
    pub char_start: usize,
    pub char_end: usize,
    pub confidence: f32,
    /// The detector that found it (`checksum`, `regex`, `label`, `gazetteer`, ...).
    #[schema(value_type = String)]
    pub detector: &'static str,
}

/// The result of [`mask`].
#[derive(Clone, Debug, Serialize)]
pub struct Masked {
    pub text: String,
    pub findings: Vec<Finding>,
    /// `pii_type_summary`: type name -> count.
    pub summary: BTreeMap<String, u64>,
    /// What replaced each finding, in order, when the policy has a replacer (None in a place: the
    /// type's placeholder); None: placeholders throughout.
    #[serde(skip)]
    pub written: Option<Vec<Option<String>>>,
}

/// Masking was refused: the output would still contain detectable values.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("masked output still contains detectable personal data ({remaining:?}); result refused")]
pub struct LeakError {
    pub remaining: BTreeMap<String, u64>,
}

/// The scanner's candidates for one text. They depend on the text, the context windows and the types
/// the policy keeps, not on the known values, so a document's text scanned for its findings can be
/// masked with the values those findings revealed without being scanned a second time.
pub struct Scanned {
    /// The scanned text's length and hash: candidates are only reused for that text.
    text: (usize, u64),
    windows: (usize, usize),
    /// The policy's types and least confidence (its bits), which the scanner skips moot spans by.
    keep: (TypeSet, u32),
    candidates: Vec<scan::Hit>,
}

fn fingerprint(text: &str) -> (usize, u64) {
    use std::hash::BuildHasher;
    (text.len(), rustc_hash::FxBuildHasher.hash_one(text))
}

/// A scanner that takes no shortcut (see [`scan::Scanner::skipping_nothing`]).
fn scanner_skipping_nothing<'t>(text: &'t str, policy: &Policy) -> scan::Scanner<'t> {
    scan::Scanner::new(text, policy.context_before, policy.context_after).skipping_nothing()
}

fn candidates(text: &str, policy: &Policy) -> Vec<scan::Hit> {
    scan::Scanner::new(text, policy.context_before, policy.context_after)
        .keeping(policy.enabled, policy.min_confidence)
        .run()
}

/// The stages after the scan: propagation ([`propagate`]), offsets snapped to char boundaries, and
/// resolution ([`resolve`]), again over every span of a grouped number whose shortcut lost.
fn resolved(
    text: &str,
    policy: &Policy,
    known: &Known,
    mut hits: Vec<scan::Hit>,
) -> Vec<scan::Hit> {
    propagate::propagate(text, known, &mut hits);
    // Offsets must fall on char boundaries: snap inwards defensively.
    let snap = |mut h: scan::Hit| {
        h.start = text::ceil_boundary(text, h.start);
        h.end = text::floor_boundary(text, h.end);
        h
    };
    let mut hits: Vec<scan::Hit> = hits.into_iter().map(snap).collect();
    let kept = resolve::resolve(text, &mut hits, policy);
    // A whole grouped number whose shorter spans the scanner skipped, beaten after all by a longer hit
    // around it: none of its hits survived, and a span of it outside the winner may be a value. Those
    // tokens are evaluated again, every span, and everything resolved once more.
    let survived = |start: usize, end: usize| {
        let first = kept.partition_point(|k| k.start < start);
        kept[first..]
            .iter()
            .take_while(|k| k.start == start)
            .any(|k| k.end == end)
    };
    let mut lost: Vec<usize> = hits
        .iter()
        .filter_map(|h| h.shortcut.filter(|_| !survived(h.start, h.end)))
        .map(|token| token as usize)
        .collect();
    if lost.is_empty() {
        return kept;
    }
    lost.sort_unstable();
    lost.dedup();
    let every_span = scanner_skipping_nothing(text, policy).tokens(&lost);
    hits.extend(every_span.into_iter().map(snap));
    resolve::resolve(text, &mut hits, policy)
}

/// The scan and the stages after it: the resolved hits of `text`.
fn raw_hits(text: &str, policy: &Policy, known: &Known) -> Vec<scan::Hit> {
    resolved(text, policy, known, candidates(text, policy))
}

fn findings_of(text: &str, hits: &[scan::Hit]) -> Vec<Finding> {
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
            detector: hit.detector,
        });
    }
    findings
}

fn summarise(findings: &[Finding]) -> BTreeMap<String, u64> {
    count_types(findings.iter().map(|finding| finding.pii_type))
}

/// Type name -> count. Counted by the types' numbers first: each name is allocated once, not once per
/// finding (a customer list has several on every line).
fn count_types(types: impl Iterator<Item = PiiType>) -> BTreeMap<String, u64> {
    let mut by_type = [0u64; PiiType::ALL.len()];
    for ty in types {
        by_type[ty as usize] += 1;
    }
    PiiType::ALL
        .iter()
        .zip(by_type)
        .filter(|&(_, count)| count > 0)
        .map(|(ty, count)| (ty.name().to_string(), count))
        .collect()
}

/// Loads the engine's tables and builds its automata, so that the first document a process masks
/// does not wait for them; a process calls it once at start, on a thread of its own.
pub fn warm() {
    lexicon::warm();
    let _ = detect(
        "Laut Torben Römer ist die Lieferung da. Sayın Ayşe Yılmaz, 0532 123 45 67.",
        &Policy::default(),
    );
}

/// Finds personal data without changing the text.
pub fn detect(text: &str, policy: &Policy) -> Vec<Finding> {
    findings_of(text, &raw_hits(text, policy, &Known::default()))
}

/// [`detect`], with what is known about the document the text is a part of.
pub fn detect_known(text: &str, policy: &Policy, known: &Known) -> Vec<Finding> {
    findings_of(text, &raw_hits(text, policy, known))
}

/// Replaces every finding by its placeholder, then re-scans the output; a detectable value left in the
/// output refuses the result.
pub fn mask(text: &str, policy: &Policy) -> Result<Masked, LeakError> {
    mask_known(text, policy, &Known::default())
}

/// [`mask`], with what is known about the document the text is a part of.
pub fn mask_known(text: &str, policy: &Policy, known: &Known) -> Result<Masked, LeakError> {
    rescan::masked_by(text, policy, known, raw_hits(text, policy, known))
}

/// [`mask_known`] for a text already scanned by [`summarize_scanned`] (`known` may hold more values).
/// The candidates are reused only for the same text, context windows, types and least confidence;
/// otherwise the text is scanned again.
pub fn mask_scanned(
    text: &str,
    policy: &Policy,
    known: &Known,
    scanned: Scanned,
) -> Result<Masked, LeakError> {
    let same = scanned.text == fingerprint(text)
        && scanned.windows == (policy.context_before, policy.context_after)
        && scanned.keep == (policy.enabled, policy.min_confidence.to_bits());
    let candidates = if same {
        scanned.candidates
    } else {
        candidates(text, policy)
    };
    rescan::masked_by(
        text,
        policy,
        known,
        resolved(text, policy, known, candidates),
    )
}

/// Counts without masking (`--no-mask`): findings and summary.
pub fn summarize(text: &str, policy: &Policy) -> (Vec<Finding>, BTreeMap<String, u64>) {
    summarize_known(text, policy, &Known::default())
}

/// [`summarize`], with what is known about the document the text is a part of.
pub fn summarize_known(
    text: &str,
    policy: &Policy,
    known: &Known,
) -> (Vec<Finding>, BTreeMap<String, u64>) {
    let findings = findings_of(text, &raw_hits(text, policy, known));
    let summary = summarise(&findings);
    (findings, summary)
}

/// [`summarize_known`], keeping the scanner's candidates for [`mask_scanned`].
pub fn summarize_scanned(
    text: &str,
    policy: &Policy,
    known: &Known,
) -> (Vec<Finding>, BTreeMap<String, u64>, Scanned) {
    let candidates = candidates(text, policy);
    let findings = findings_of(text, &resolved(text, policy, known, candidates.clone()));
    let summary = summarise(&findings);
    let scanned = Scanned {
        text: fingerprint(text),
        windows: (policy.context_before, policy.context_after),
        keep: (policy.enabled, policy.min_confidence.to_bits()),
        candidates,
    };
    (findings, summary, scanned)
}

#[cfg(test)]
mod tests;
