//! The re-scan stage: the masked output is scanned again; what it still holds is masked in another
//! round when it is a value of the input, and refuses the result otherwise.

use super::mask::{replacements, with_replacements};
use super::resolve::order;
use super::{
    count_types, findings_of, raw_hits, scan, summarise, Finding, Known, LeakError, Masked, Policy,
};

pub(super) fn masked_by(
    text: &str,
    policy: &Policy,
    known: &Known,
    mut hits: Vec<scan::Hit>,
) -> Result<Masked, LeakError> {
    // A value can become detectable only once its neighbours are masked: a placeholder shorter than
    // the value it replaces brings a keyword within a number's context window ("Sipariş SIP-1234567890
    // ayse.yilmaz@example.com Vergi No: ...": "Vergi" is 25 bytes after the order number, whose
    // digits pass the VKN check, and 16 after `[MASKED_EMAIL]`). What the re-scan finds wholly in the
    // text between replacements is a value of the input too, and is masked in another round; what
    // lies wholly inside a replacement is the engine's own writing (a surrogate passes its checksum by
    // design); what straddles a replacement's edge demotes that replacement to its placeholder for
    // another round, and refuses the result when it is a placeholder already, as does anything still
    // there after the last round.
    let mut rounds = 1;
    // Findings (by start) whose replacement must be the placeholder.
    let mut demoted: Vec<usize> = Vec::new();
    loop {
        let findings = findings_of(text, &hits);
        // Held again from the findings only if another round needs them: a customer list's are some
        // 200 MB, which its re-scan need not hold beside its own.
        let had_hits = !hits.is_empty();
        drop(std::mem::take(&mut hits));
        let mut written = policy
            .replacer
            .as_deref()
            .map(|replacer| replacements(text, &findings, replacer));
        if let Some(written) = written.as_mut() {
            for (finding, place) in findings.iter().zip(written.iter_mut()) {
                if demoted.binary_search(&finding.start).is_ok() {
                    *place = None;
                }
            }
        }
        let out = with_replacements(text, 0, text.len(), &findings, written.as_deref());
        // Without a finding the output is the text itself, whose scan (`hits`, by the same policy)
        // found nothing: a re-scan would find nothing again. A text without personal data is masked
        // at the cost of its detection.
        let remaining = if !had_hits {
            Vec::new()
        } else {
            raw_hits(&out, policy, known)
        };
        let refused = |remaining: &[scan::Hit]| LeakError {
            remaining: count_types(remaining.iter().map(|hit| hit.ty)),
        };
        let placed = if remaining.is_empty() {
            Placed::Input(Vec::new())
        } else {
            in_input(text, &findings, written.as_deref(), &remaining)
        };
        match placed {
            Placed::Input(more) if more.is_empty() => {
                return Ok(Masked {
                    text: out,
                    summary: summarise(&findings),
                    findings,
                    written,
                })
            }
            _ if rounds >= 4 => return Err(refused(&remaining)),
            Placed::Input(more) => {
                hits = hits_of(&findings);
                hits.extend(more);
            }
            Placed::Straddling(_) if written.is_none() => return Err(refused(&remaining)),
            Placed::Straddling(starts) => {
                let fresh: Vec<usize> = starts
                    .into_iter()
                    .filter(|start| demoted.binary_search(start).is_err())
                    .collect();
                if fresh.is_empty() {
                    return Err(refused(&remaining));
                }
                demoted.extend(fresh);
                demoted.sort_unstable();
                hits = hits_of(&findings);
            }
        }
        hits.sort_by(order);
        rounds += 1;
    }
}

/// The resolved hits `findings` were made of, for another round: what a round reads of them is their
/// span, type, confidence and detector (they overlap nothing, so no tie is left to their priority).
fn hits_of(findings: &[Finding]) -> Vec<scan::Hit> {
    findings
        .iter()
        .map(|finding| scan::Hit {
            start: finding.start,
            end: finding.end,
            ty: finding.pii_type,
            confidence: finding.confidence,
            detector: finding.detector,
            priority: finding.pii_type.priority(),
            shortcut: None,
        })
        .collect()
}

/// Where the re-scan's hits in a masked text lie in the input.
enum Placed {
    /// Each wholly between two replacements (at its place in the input) or wholly inside one (left
    /// out: the engine's own writing).
    Input(Vec<scan::Hit>),
    /// Some straddle a replacement's edge: the starts (in the input) of those replacements' findings.
    Straddling(Vec<usize>),
}

/// The hits the re-scan found in the masked text (`remaining`, with `findings` replaced in `text` by
/// `written`, or placeholders) placed in `text` ([`Placed`]).
fn in_input(
    text: &str,
    findings: &[Finding],
    written: Option<&[Option<String>]>,
    remaining: &[scan::Hit],
) -> Placed {
    // The stretches of text the output keeps and the replacements between them: (start in the
    // output, end in the output, start in the input), in order; `kept[i]` precedes `findings[i]`.
    let mut kept = Vec::with_capacity(findings.len() + 1);
    let mut replaced = Vec::with_capacity(findings.len());
    let (mut input, mut output) = (0, 0);
    for (index, finding) in findings.iter().enumerate() {
        kept.push((output, output + finding.start - input, input));
        output += finding.start - input;
        let length = written
            .and_then(|written| written.get(index))
            .and_then(|w| w.as_ref())
            .map_or_else(|| finding.pii_type.placeholder().len(), String::len);
        replaced.push((output, output + length));
        output += length;
        input = finding.end;
    }
    kept.push((output, output + text.len() - input, input));
    let mut placed = Vec::new();
    let mut straddling = Vec::new();
    for hit in remaining {
        let at = kept.partition_point(|stretch| stretch.1 < hit.end);
        if let Some(&(start, end, from)) = kept.get(at) {
            if start <= hit.start && hit.end <= end {
                placed.push(scan::Hit {
                    start: from + hit.start - start,
                    end: from + hit.end - start,
                    ..*hit
                });
                continue;
            }
        }
        // Not within a kept stretch: inside one replacement, or across an edge of some.
        let first = replaced.partition_point(|r| r.1 <= hit.start);
        let inside = replaced
            .get(first)
            .is_some_and(|&(start, end)| start <= hit.start && hit.end <= end);
        if !inside {
            straddling.extend(
                replaced[first..]
                    .iter()
                    .zip(&findings[first..])
                    .take_while(|((start, _), _)| *start < hit.end)
                    .map(|(_, finding)| finding.start),
            );
        }
    }
    if straddling.is_empty() {
        Placed::Input(placed)
    } else {
        straddling.sort_unstable();
        straddling.dedup();
        Placed::Straddling(straddling)
    }
}
