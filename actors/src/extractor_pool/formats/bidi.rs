//! Right-to-left text (Arabic, Hebrew) of a PDF page in logical order.
//!
//! Many PDF producers draw right-to-left text glyph by glyph from left to right, so that the text
//! extractor returns each right-to-left stretch reversed (`ةيجاتنلإا` for `الإنتاجية`) while the Latin
//! words and numbers inside it read correctly. Whether a page is in that visual order is read from the
//! letters themselves: Arabic words begin with the article `ال` and end with `ة` or `ى`, Hebrew words end
//! with the final forms `ך ם ן ף ץ`; a page whose right-to-left words mostly show these at the wrong end
//! is reversed. Reversing turns every right-to-left stretch of a line around (a letter keeps its
//! combining marks, a run of digits or Latin letters inside the stretch keeps its order, brackets are
//! mirrored); a page already in logical order is left as it is.

use std::borrow::Cow;

/// A letter of a right-to-left script (Hebrew, Arabic, Syriac, Thaana, N'Ko, their presentation
/// forms).
fn is_rtl(c: char) -> bool {
    matches!(c as u32,
        0x0590..=0x08FF | 0xFB1D..=0xFDFF | 0xFE70..=0xFEFF | 0x10800..=0x10FFF | 0x1E800..=0x1EFFF)
        && c.is_alphabetic()
}

/// A combining mark (Arabic harakat, Hebrew points): it travels with the letter before it.
fn is_mark(c: char) -> bool {
    matches!(c as u32, 0x0591..=0x05C7 | 0x0610..=0x061A | 0x064B..=0x065F | 0x0670 | 0x06D6..=0x06ED)
}

/// Kept in order inside a reversed stretch: digits and Latin letters (a number, an acronym).
fn is_kept(c: char) -> bool {
    c.is_ascii_alphanumeric() || c.is_numeric()
}

fn mirrored(c: char) -> char {
    match c {
        '(' => ')',
        ')' => '(',
        '[' => ']',
        ']' => '[',
        '{' => '}',
        '}' => '{',
        '<' => '>',
        '>' => '<',
        '«' => '»',
        '»' => '«',
        other => other,
    }
}

const HEBREW_FINALS: [char; 5] = ['ך', 'ם', 'ן', 'ף', 'ץ'];

/// (evidence of logical order, evidence of visual order) in one word of right-to-left letters.
fn evidence(word: &[char]) -> (u32, u32) {
    let (Some(&first), Some(&last)) = (word.first(), word.last()) else {
        return (0, 0);
    };
    if word.len() < 2 {
        return (0, 0);
    }
    let mut logical = 0;
    let mut visual = 0;
    if word.starts_with(&['ا', 'ل']) {
        logical += 1;
    }
    if word.ends_with(&['ل', 'ا']) {
        visual += 1;
    }
    for ending in ['ة', 'ى'] {
        logical += u32::from(last == ending);
        visual += u32::from(first == ending);
    }
    logical += u32::from(HEBREW_FINALS.contains(&last));
    visual += u32::from(HEBREW_FINALS.contains(&first));
    (logical, visual)
}

/// Whether the page's right-to-left words read backwards.
fn is_visual(page: &str) -> bool {
    let (mut logical, mut visual) = (0, 0);
    for word in page.split(|c: char| !is_rtl(c) && !is_mark(c)) {
        let letters: Vec<char> = word.chars().filter(|c| !is_mark(*c)).collect();
        let (l, v) = evidence(&letters);
        logical += l;
        visual += v;
    }
    visual > logical
}

/// One line with each right-to-left stretch turned around.
fn reverse_stretches(line: &str, out: &mut String) {
    let chars: Vec<char> = line.chars().collect();
    let mut at = 0;
    while at < chars.len() {
        if !is_rtl(chars[at]) {
            out.push(chars[at]);
            at += 1;
            continue;
        }
        // The stretch: from this letter to the last right-to-left letter before a Latin letter or the
        // end of the line (spaces, punctuation, digits and marks between its letters belong to it).
        let mut end = at;
        let mut last_rtl = at;
        while end < chars.len() && !chars[end].is_ascii_alphabetic() {
            if is_rtl(chars[end]) {
                last_rtl = end;
            }
            end += 1;
        }
        let stretch = &chars[at..=last_rtl];
        // Units: a letter with the marks after it, a run of kept characters, any other character.
        let mut units: Vec<&[char]> = Vec::new();
        let mut i = 0;
        while i < stretch.len() {
            let start = i;
            if is_kept(stretch[i]) {
                while i < stretch.len() && is_kept(stretch[i]) {
                    i += 1;
                }
            } else {
                i += 1;
                while i < stretch.len() && is_mark(stretch[i]) {
                    i += 1;
                }
            }
            units.push(&stretch[start..i]);
        }
        for unit in units.into_iter().rev() {
            out.extend(unit.iter().map(|c| mirrored(*c)));
        }
        at = last_rtl + 1;
    }
}

/// The page in logical order (unchanged when it has no right-to-left text or already is).
pub fn logical_order(page: &str) -> Cow<'_, str> {
    if !page.chars().any(is_rtl) || !is_visual(page) {
        return Cow::Borrowed(page);
    }
    let mut out = String::with_capacity(page.len());
    for (index, line) in page.split('\n').enumerate() {
        if index > 0 {
            out.push('\n');
        }
        reverse_stretches(line, &mut out);
    }
    Cow::Owned(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// What a left-to-right drawing of `logical` gives the extractor: each right-to-left stretch
    /// reversed, which is the reversal itself (turning a stretch around twice gives it back; the
    /// last test pins the turn down by hand).
    fn drawn(logical: &str) -> String {
        let mut out = String::new();
        reverse_stretches(logical, &mut out);
        out
    }

    const ARABIC: &str =
        "تحسين الإنتاجية وحل المشكلات من خلال البرمجة بلغة R وPython في عام 2024 (مثال)";
    const HEBREW: &str = "שלום לכם, זהו מסמך בעברית עם המספר 1234 ושם החברה ACME בתוכו";

    #[test]
    fn visual_pages_come_back_in_logical_order() {
        for logical in [ARABIC, HEBREW] {
            let page = format!("{}\n{}", drawn(logical), drawn(logical));
            assert_ne!(page.lines().next(), Some(logical));
            assert_eq!(logical_order(&page), format!("{logical}\n{logical}"));
        }
    }

    #[test]
    fn logical_pages_and_latin_pages_are_left_alone() {
        for page in [ARABIC, HEBREW, "Plain English text (with brackets) 12.5"] {
            assert!(matches!(logical_order(page), Cow::Borrowed(_)), "{page}");
        }
    }

    #[test]
    fn reversal_keeps_numbers_latin_words_and_marks_in_order() {
        let mut out = String::new();
        reverse_stretches("ab ج2024د (هو) ز xy", &mut out);
        assert_eq!(out, "ab ز (وه) د2024ج xy");
        let mut out = String::new();
        // A letter with its mark (fatha) after it stays one unit.
        reverse_stretches("بَت", &mut out);
        assert_eq!(out, "تبَ");
    }
}
