//! Replacements over a text that is held in pieces (a paragraph's runs): the text is masked whole, so
//! that a value split over runs is found, and each replacement goes back into the piece where its
//! value began, the rest of the value taken out of the pieces after it. Every piece keeps its place
//! (and so its run's formatting); a piece that cannot be written (a tab element) keeps its character.

use super::Replace;

/// `text` with `replaces` (in order, disjoint) applied.
pub fn apply(text: &str, replaces: &[Replace]) -> String {
    let mut out = String::with_capacity(text.len() + 16 * replaces.len());
    let mut cursor = 0;
    for replace in replaces {
        out.push_str(&text[cursor..replace.start]);
        out.push_str(&replace.with);
        cursor = replace.end;
    }
    out.push_str(&text[cursor..]);
    out
}

/// The new text of each piece, for pieces whose concatenation is the masked text: `pieces` are the
/// pieces' texts in order, `writable` whether each may change. A replacement lands in the writable
/// piece where its value begins, else the next writable one, else the last writable one before it.
pub fn distribute(pieces: &[&str], writable: &[bool], replaces: &[Replace]) -> Vec<String> {
    let mut bounds = Vec::with_capacity(pieces.len());
    let mut at = 0;
    for piece in pieces {
        bounds.push((at, at + piece.len()));
        at += piece.len();
    }
    // Where each replacement's text goes.
    let home = |start: usize| -> Option<usize> {
        let inside = bounds
            .iter()
            .enumerate()
            .position(|(i, &(s, e))| writable[i] && s <= start && start < e);
        inside
            .or_else(|| (0..pieces.len()).find(|&i| writable[i] && bounds[i].0 >= start))
            .or_else(|| (0..pieces.len()).rev().find(|&i| writable[i]))
    };
    let homes: Vec<Option<usize>> = replaces.iter().map(|r| home(r.start)).collect();
    pieces
        .iter()
        .enumerate()
        .map(|(index, piece)| {
            let (s, e) = bounds[index];
            if !writable[index] {
                return (*piece).to_string();
            }
            let mut out = String::with_capacity(piece.len());
            let mut cursor = s;
            for (replace, home) in replaces.iter().zip(&homes) {
                // The part of this piece before the value, the value's replacement if it lives here,
                // and nothing of the value itself.
                let before = replace.start.clamp(s, e);
                if before > cursor {
                    out.push_str(&piece[cursor - s..before - s]);
                    cursor = before;
                }
                if *home == Some(index) {
                    out.push_str(&replace.with);
                }
                cursor = cursor.max(replace.end.clamp(s, e));
            }
            out.push_str(&piece[cursor - s..]);
            out
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn replace(start: usize, end: usize, with: &str) -> Replace {
        Replace {
            start,
            end,
            with: with.to_string(),
        }
    }

    #[test]
    fn a_value_split_over_runs_goes_to_the_run_it_began_in() {
        // "Ayşe Yıl" | "maz aradı" : the name spans two runs.
        let pieces = ["Sayın Ayşe Yıl", "maz aradı"];
        let text = pieces.concat();
        let start = text.find("Ayşe").unwrap();
        let end = text.find(" aradı").unwrap();
        let out = distribute(&pieces, &[true, true], &[replace(start, end, "[X]")]);
        assert_eq!(out, vec!["Sayın [X]".to_string(), " aradı".to_string()]);
        assert_eq!(out.concat(), apply(&text, &[replace(start, end, "[X]")]));
    }

    #[test]
    fn pieces_outside_every_value_are_unchanged_and_tabs_stay() {
        let pieces = ["Tel:", "\t", "0532 ", "123 45 67", " son"];
        let text = pieces.concat();
        let start = text.find("0532").unwrap();
        let end = text.find(" son").unwrap();
        let out = distribute(
            &pieces,
            &[true, false, true, true, true],
            &[replace(start, end, "[P]")],
        );
        assert_eq!(out, vec!["Tel:", "\t", "[P]", "", " son"]);
    }

    #[test]
    fn several_values_in_one_piece_and_one_at_a_piece_edge() {
        let pieces = ["a 11 b 22", "33 c"];
        let text = pieces.concat();
        let r = [replace(2, 4, "X"), replace(7, 11, "Y")];
        let out = distribute(&pieces, &[true, true], &r);
        assert_eq!(out.concat(), apply(&text, &r));
        assert_eq!(out, vec!["a X b Y", " c"]);
        // A value that starts exactly where a piece starts.
        let out = distribute(&["ab", "cd", "ef"], &[true; 3], &[replace(2, 4, "Z")]);
        assert_eq!(out, vec!["ab", "Z", "ef"]);
    }

    #[test]
    fn generated_splits_always_concatenate_to_the_masked_text() {
        // Every way of cutting a text in three, with values anywhere: the pieces joined are the
        // masked text, and no character of a value is left.
        let text = "0123456789abcdefghij";
        let values = [
            replace(3, 7, "<A>"),
            replace(9, 10, "<B>"),
            replace(15, 19, ""),
        ];
        for cut1 in 0..=text.len() {
            for cut2 in cut1..=text.len() {
                let pieces = [&text[..cut1], &text[cut1..cut2], &text[cut2..]];
                let out = distribute(&pieces, &[true; 3], &values);
                assert_eq!(out.concat(), apply(text, &values), "cuts {cut1} {cut2}");
            }
        }
    }
}
