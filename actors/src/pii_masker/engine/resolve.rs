//! The resolution stage: overlapping candidates become non-overlapping findings, and what a name, an
//! address or an e-mail address keeps outside a value that beat it.

use super::types::Trait;
use super::{scan, text, PiiType, Policy};

/// Non-overlapping hits: the longest validated span wins, then the hit's priority (its type's, or
/// its rank by nearest keyword among the hits of one value that rest on no checksum). `hits` is left
/// filtered by the policy and sorted, for a second round. A name or an address that lost to an
/// overlapping value keeps its words outside the winner ([`remainders`]).
pub(super) fn resolve(text: &str, hits: &mut Vec<scan::Hit>, policy: &Policy) -> Vec<scan::Hit> {
    hits.retain(|h| {
        policy.enabled.contains(h.ty) && h.confidence >= policy.min_confidence && h.end > h.start
    });
    hits.sort_by(order);
    // This round resolves the uncrossed ones; `hits` is made whole again for a second round (see
    // `resolved`).
    let crossed = uncross(hits);
    let kept = resolve_uncrossed(text, hits);
    if !crossed.is_empty() {
        hits.extend(crossed);
        hits.sort_by(order);
    }
    kept
}

/// [`resolve`]'s round over `hits` once uncrossed.
fn resolve_uncrossed(text: &str, hits: &[scan::Hit]) -> Vec<scan::Hit> {
    let mut kept = settle(hits, greedy(hits));
    // A remainder may overlap another name or address, which then keeps its own part outside it
    // ("Atatürk Cad. No: 12 - Adres: Hürriyet Mah. ... Kimlik: 10000000146": the label's address loses
    // to the TCKN its 200 bytes end in, and its remainder overlaps the street address before it). A
    // few rounds settle every case met; a part left over is found by the re-scan, which refuses it.
    for _ in 0..4 {
        let mut rest = remainders(text, hits, &kept);
        rest.retain(|part| {
            let first = kept.partition_point(|k| k.start < part.start);
            !kept[first..]
                .iter()
                .take_while(|k| k.start == part.start)
                .any(|k| k.end == part.end && k.ty == part.ty)
        });
        if rest.is_empty() {
            break;
        }
        rest.extend_from_slice(&kept);
        rest.sort_by(order);
        kept = settle(hits, greedy(&rest));
    }
    kept
}

/// By start, the longest first, then by priority.
pub(super) fn order(a: &scan::Hit, b: &scan::Hit) -> std::cmp::Ordering {
    a.start
        .cmp(&b.start)
        .then(b.end.cmp(&a.end))
        .then(a.priority.cmp(&b.priority))
}

/// Whether a hit is written in words that can be cut ([`Trait::Words`]: a name, an address, an e-mail
/// address).
fn cuttable(hit: &scan::Hit) -> bool {
    hit.ty.is(Trait::Words)
}

/// Whether `candidate` beats `current`, which it overlaps: the longer span, then the better priority.
/// But of two spans that cross (each holds a part of the other's text):
/// - a name, an address or an e-mail address loses to a value of another kind, and keeps its words
///   outside it (see [`remainders`]): "Date of birth: March 12, 1985 Atatürk Cad. No: 12" (the street
///   address walked back onto the year), "4111 1111 1111 1111.mehmet@ornek.com.tr" (the e-mail's local
///   part takes the card's last group), an address behind its label whose 200 bytes end inside an IBAN;
/// - otherwise one validated by a checksum or a distinctive form wins over one that rests on a keyword
///   or a label alone: in "Tel: 0532 123 45 67 0212 345 67 89" (one chain) the label makes a phone
///   number of "45 67 0212 345 67", which would beat the two numbers it cuts through by its length.
///
/// And a value validated by a checksum or a distinctive form written inside an address wins over the
/// address, which keeps its words on either side (see [`remainders`]): in "Adres: Hürriyet Mah. Akasya
/// Sok. 0532 123 45 67 Kadıköy" the phone number is a phone number, masked and counted as one, not a
/// part of the address.
fn better(candidate: &scan::Hit, current: &scan::Hit) -> bool {
    if holds_value(current, candidate) {
        return true;
    }
    if holds_value(candidate, current) {
        return false;
    }
    let crossing = (candidate.start < current.start && candidate.end < current.end)
        || (candidate.start > current.start && candidate.end > current.end);
    if crossing {
        if cuttable(candidate) != cuttable(current) {
            return !cuttable(candidate);
        }
        if validated(candidate) != validated(current) {
            return validated(candidate);
        }
    }
    let (cl, ul) = (candidate.end - candidate.start, current.end - current.start);
    cl > ul || (cl == ul && candidate.priority < current.priority)
}

fn validated(hit: &scan::Hit) -> bool {
    hit.confidence >= scan::VALIDATED
}

/// Whether `address`, an address, holds `value`, a validated value of another kind, inside its span.
fn holds_value(address: &scan::Hit, value: &scan::Hit) -> bool {
    address.ty == PiiType::Address
        && !cuttable(value)
        && validated(value)
        && address.start <= value.start
        && value.end <= address.end
        && (address.start, address.end) != (value.start, value.end)
}

/// Drops each value that two others, as strong and clear of each other, cross from either side: in
/// "İletişim: 0540 395 80 59 0212 345 67 89" (one chain) the digits "395 80 59 0212" pass the TCKN
/// check, and as long as either phone number they would beat both by their priority, leaving "0540"
/// and "345 67 89"; in "DE89 3704 0044 0532 0130 00 1000 0212 345 67 89" 26 digits across the IBAN
/// and the phone number pass the SGK workplace check. What lies between the two alone is left (here
/// "1000"), rather than a part of each. `hits` is sorted by [`order`] and stays so; the values dropped
/// are taken out of it and answered (crossings are few: a table's millions of hits are neither copied
/// nor given a bound each).
fn uncross(hits: &mut Vec<scan::Hit>) -> Vec<scan::Hit> {
    // For each value crossed from the left by one as strong: the least end of those; from the right:
    // the greatest start (by index; those not here are crossed by none).
    let mut bounds: rustc_hash::FxHashMap<usize, (usize, usize)> = Default::default();
    for (i, h) in hits.iter().enumerate() {
        if cuttable(h) {
            continue;
        }
        for (j, g) in hits.iter().enumerate().skip(i + 1) {
            if g.start >= h.end {
                break;
            }
            if g.start == h.start || g.end <= h.end || cuttable(g) {
                continue;
            }
            // `h` crosses `g` from the left.
            if validated(h) >= validated(g) {
                let bound = bounds.entry(j).or_insert((usize::MAX, 0));
                bound.0 = bound.0.min(h.end);
            }
            if validated(g) >= validated(h) {
                let bound = bounds.entry(i).or_insert((usize::MAX, 0));
                bound.1 = bound.1.max(g.start);
            }
        }
    }
    let mut dropped = Vec::new();
    if bounds.is_empty() {
        return dropped;
    }
    let mut index = 0;
    hits.retain(|hit| {
        let keep = bounds
            .get(&index)
            .is_none_or(|&(left_end, right_start)| left_end > right_start);
        index += 1;
        if !keep {
            dropped.push(*hit);
        }
        keep
    });
    dropped
}

/// `kept`, resolved from `hits` (sorted by [`order`]), and every hit that lost to one that lost in turn
/// to another that leaves it clear: in "Doğum Tarihi: 12.03.1985 0212 345 67 89" (one chain) the
/// digits "1985 0212 345" pass the PESEL check and beat the date they cross, then lose to the phone
/// number. Such a hit, overlapping no winner, is resolved again with them (it would otherwise stay in
/// the output, and the re-scan find it).
fn settle(hits: &[scan::Hit], mut kept: Vec<scan::Hit>) -> Vec<scan::Hit> {
    loop {
        // Both are sorted by start, and the winners do not overlap: one walk over the two.
        let mut winner = 0;
        let mut clear: Vec<scan::Hit> = Vec::new();
        for hit in hits {
            while winner < kept.len() && kept[winner].end <= hit.start {
                winner += 1;
            }
            if kept.get(winner).is_none_or(|k| k.start >= hit.end) {
                clear.push(*hit);
            }
        }
        if clear.is_empty() {
            return kept;
        }
        // The winners overlap none of these: they all stay, and at least one of these joins them.
        clear.extend_from_slice(&kept);
        clear.sort_by(order);
        kept = greedy(&clear);
    }
}

/// The overlap resolution proper over `hits` sorted by [`order`].
fn greedy(hits: &[scan::Hit]) -> Vec<scan::Hit> {
    let mut kept: Vec<scan::Hit> = Vec::with_capacity(hits.len());
    for &hit in hits {
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
    // Sized for every hit, holding those that won: what stays is held through the later stages.
    kept.shrink_to_fit();
    kept
}

/// The parts of each name, address and e-mail address of `hits` that lost to an overlapping value in
/// `kept` and lie outside every kept hit, trimmed to their words: "Sayın Ayşe Yılmaz Hürriyet Mah.
/// Akasya Sok. No:5" holds a name that runs into the address after it, and whichever of the two loses
/// would otherwise be lost whole, to be found in the masked text by its re-scan (which then refuses
/// it); in "TR59 ... 2221 71/mehmet@ornek.com.tr" the e-mail's local part takes the IBAN's last group
/// ('/' and digits are allowed there). A part needs a word of two letters, a name's a capital first
/// and an e-mail's its '@'.
fn remainders(text: &str, hits: &[scan::Hit], kept: &[scan::Hit]) -> Vec<scan::Hit> {
    let mut found = Vec::new();
    // Both are sorted by start, and the winners do not overlap (their ends rise too): the first
    // winner that may overlap a hit only moves forward, one walk over the two instead of two binary
    // searches per name (a customer list holds a name on every line).
    let mut first = 0;
    for hit in hits {
        if !cuttable(hit) {
            continue;
        }
        while kept.get(first).is_some_and(|k| k.end <= hit.start) {
            first += 1;
        }
        let overlapping = &kept[first..];
        let overlapping =
            &overlapping[..overlapping.iter().take_while(|k| k.start < hit.end).count()];
        if overlapping.is_empty()
            || overlapping
                .iter()
                .any(|k| (k.start, k.end, k.ty) == (hit.start, hit.end, hit.ty))
        {
            continue;
        }
        // The part is cut only by the winners that beat the hit: those it crosses, that hold it, or
        // that are validated values inside an address. Another shorter one inside it it would beat,
        // and does again as a part (one placeholder, as when the hit wins whole).
        let beaten_by = |k: &&scan::Hit| {
            k.start < hit.start
                || k.end > hit.end
                || k.end - k.start >= hit.end - hit.start
                || holds_value(hit, k)
        };
        found.extend(parts(
            text,
            hit,
            overlapping
                .iter()
                .filter(beaten_by)
                .map(|k| (k.start, k.end)),
        ));
    }
    found
}

/// The parts of `hit` (a name, an address, an e-mail address) outside the spans `cuts` (in order).
fn parts(
    text: &str,
    hit: &scan::Hit,
    cuts: impl Iterator<Item = (usize, usize)>,
) -> Vec<scan::Hit> {
    let mut parts = Vec::new();
    let mut cursor = hit.start;
    for (start, end) in cuts.chain([(hit.end, hit.end)]) {
        let (from, to) = (cursor, start.min(hit.end));
        cursor = cursor.max(end);
        if from < to {
            parts.extend(part(text, hit, from, to));
        }
    }
    parts
}

/// `text[from..to]` as a part of `hit`, trimmed of punctuation: a word of two letters, a name's with a
/// capital first, an e-mail's with its '@'.
fn part(text: &str, hit: &scan::Hit, from: usize, to: usize) -> Option<scan::Hit> {
    let b = text.as_bytes();
    // Hits start and end on char boundaries (`resolved` snaps them), and so do the spans cut out.
    let punctuation = |c: char| c.is_ascii() && !c.is_ascii_alphanumeric();
    let part = text.get(from..to)?.trim_end_matches(punctuation);
    let mut end = from + part.len();
    // An address keeps the dot of the abbreviation it ends with ("Hürriyet Mah. Akasya Sok."), as it
    // does when it is masked whole.
    if hit.ty == PiiType::Address
        && end < to
        && b[end] == b'.'
        && part.ends_with(char::is_alphabetic)
    {
        end += 1;
    }
    let part = &text[from..end];
    let start = end - part.trim_start_matches(punctuation).len();
    let fails = start >= end
        || (hit.ty == PiiType::PersonName && !text::upper_at(b, start))
        || (hit.ty == PiiType::Email && !b[start..end].contains(&b'@'))
        || !has_word(b, start, end);
    (!fails).then_some(scan::Hit {
        start,
        end,
        shortcut: None,
        ..*hit
    })
}

/// Whether `b[start..end]` holds a run of two letters.
fn has_word(b: &[u8], start: usize, end: usize) -> bool {
    let mut i = start;
    let mut run = 0;
    while i < end {
        let l = text::letter_at(b, i);
        if l == 0 {
            run = 0;
            i += 1;
        } else {
            run += 1;
            if run >= 2 {
                return true;
            }
            i += l;
        }
    }
    false
}
