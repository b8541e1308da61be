//! The propagation stage: a name found once (behind a label, in a name column) is a name everywhere
//! in the text, and a value the document declares or revealed ([`Known`]) is masked wherever it occurs.

use super::known::{matchable, Known, KnownMatcher};
use super::{scan, text, PiiType};

/// Up to this many values to propagate are each searched for on their own.
const FEW_VALUES: usize = 8;

/// Every further occurrence of a found person name, and of each known value, is personal data too.
pub(super) fn propagate(text: &str, known: &Known, hits: &mut Vec<scan::Hit>) {
    let b = text.as_bytes();
    let letter = text::is_word_byte;
    // In the order resolution sorts them by (which keeps the order of equals, so sorting here changes
    // nothing), so that a propagated hit the scan already made can be told in a binary search.
    hits.sort_by(super::resolve::order);
    let scanned: &[scan::Hit] = hits;
    let mut found: Vec<scan::Hit> = Vec::new();
    let mut push = |start: usize, end: usize, ty: PiiType| {
        if (start > 0 && letter(b[start - 1])) || b.get(end).is_some_and(|&c| letter(c)) {
            return;
        }
        let hit = scan::Hit {
            start,
            end,
            ty,
            confidence: PROPAGATED,
            detector: "propagated",
            priority: ty.priority(),
            shortcut: None,
        };
        if !made_already(scanned, &hit) {
            found.push(hit);
        }
    };
    let names = scanned
        .iter()
        .filter(|h| h.ty == PiiType::PersonName)
        .map(|h| (PiiType::PersonName, text[h.start..h.end].trim()))
        .filter(|(_, name)| name.contains(' ') && !name.contains('\n'));
    let values = match known.prepared() {
        Some(prepared) => {
            prepared.find(text, &mut push);
            // Names the prepared automaton already matches (a document's names, found in its full
            // text) need no second search.
            let mut names = matchable(names);
            names.retain(|(ty, name)| !prepared.contains(*ty, name));
            names
        }
        None => matchable(
            names.chain(
                known
                    .values()
                    .iter()
                    .map(|(ty, value)| (*ty, value.as_str())),
            ),
        ),
    };
    // The names found in this text are few: a direct search each. Otherwise an automaton costs some
    // 16,000 instructions per value to build and then searches fast (its prefilter skips to the values'
    // first bytes); the word-start look-up costs next to nothing to build and some ten instructions per
    // byte of text. Measured (callgrind): the automaton wins on long texts with few values (the
    // 10 MB benchmark, 64 names), the look-up on a document (40 KB, ~80 names: 3.1 M -> 0.6 M
    // instructions).
    if text.len().saturating_mul(values.len()) <= 64 * 1024 || values.len() <= FEW_VALUES {
        // A vectorised search per value: an automaton's prefilter over a few Turkish names ("İhsan
        // Tarhan", "Nirgül Sezer") picks bytes that are common in Turkish text and stops at most of
        // its lines (two names over 200 KB of an e-mail: 118 M instructions against 2 M).
        for (ty, value) in &values {
            for start in memchr::memmem::find_iter(b, value.as_bytes()) {
                push(start, start + value.len(), *ty);
            }
        }
    } else if text.len() > 4096 * values.len() {
        if let Ok(automaton) = aho_corasick::AhoCorasickBuilder::new()
            .match_kind(aho_corasick::MatchKind::LeftmostLongest)
            .kind(Some(aho_corasick::AhoCorasickKind::NoncontiguousNFA))
            .build(values.iter().map(|(_, v)| v))
        {
            for hit in automaton.find_iter(text) {
                push(hit.start(), hit.end(), values[hit.pattern().as_usize()].0);
            }
        }
    } else {
        let values = values
            .into_iter()
            .map(|(ty, value)| (ty, value.to_string()))
            .collect();
        KnownMatcher::new(values).find(text, &mut push);
    }
    let mentions = super::mentions::later_mentions(text, scanned);
    found.extend(
        mentions
            .into_iter()
            .map(|(hit, _)| hit)
            .filter(|hit| !made_already(scanned, hit)),
    );
    // Exactly what is added: the vector's doubling held some 200 MB of a 64 MB table's masking.
    hits.reserve_exact(found.len());
    hits.extend(found);
}

/// The confidence of a propagated hit.
const PROPAGATED: f32 = 0.6;

/// Whether the scan made a hit that `hit`, a propagated one, can never beat nor change the outcome
/// of: the same span and type, at least as confident, at least as high a priority. Resolution keeps
/// the first of equals, which is that one, so leaving `hit` out changes no finding; on a customer list
/// it leaves out nearly all of them (each value found by its form is also a known value). `scanned`
/// is sorted by [`super::resolve::order`].
fn made_already(scanned: &[scan::Hit], hit: &scan::Hit) -> bool {
    let first = scanned.partition_point(|h| h.start < hit.start);
    scanned[first..]
        .iter()
        .take_while(|h| h.start == hit.start)
        .any(|h| {
            h.end == hit.end
                && h.ty == hit.ty
                && h.confidence >= hit.confidence
                && h.priority <= hit.priority
        })
}
