//! Word 97-2003 (`.doc`) written back as itself. The format keeps every character of the text at a
//! fixed place in the WordDocument stream (the piece table and every formatting run point at those
//! places), so each value is overwritten where it stands, at the same length: the policy's replacement
//! when it fits (padded with spaces), else an `X` in every place ([`super::compound::in_place`]).
//! Every story is rewritten: body, footnotes, headers and footers, comments, endnotes, text boxes, and
//! field instructions (a `HYPERLINK "mailto:..."`). Each value overwritten is also searched for in
//! every other stream (a hyperlink's object, a form field's default) and overwritten there.
//!
//! Removed or blanked: the document properties (the summary information streams: author, last saved
//! by, company...), comment and revision authors, the users who saved it and the file paths it names
//! (their strings in the table stream, overwritten with `X`), and embedded objects (the `ObjectPool`
//! storage; a note says so). Refused: a fast-saved document (deleted text may still be in the stream
//! outside its pieces), a document with macros, an encrypted one (as its reader refuses it).

use super::compound::{in_windows_1252, mask_fixed, scrub, Editable, Fixed};
use super::{Masker, RedactError, Redacted};
use crate::extractor_pool::{word_text, Compound, ExtractError, Limits};

/// Where the table stream keeps strings that name people or their files: the file information
/// block's pair index, and how its strings are laid out.
const NAMING: &[(usize, Strings, &str)] = &[
    (32, Strings::Sttb, "associated strings (template, author)"),
    (35, Strings::Xstz, "the autosave source"),
    (36, Strings::Xsts, "comment authors"),
    (51, Strings::Sttb, "revision authors"),
    (71, Strings::Sttb, "the users who saved it"),
    (72, Strings::Sttb, "the file names it links"),
];

/// The routing slip (pair 70): recipients, which no place here can blank safely.
const ROUTE_SLIP: usize = 70;

#[derive(Clone, Copy)]
enum Strings {
    /// A string table: `0xFFFF` (UTF-16) or not (8-bit), a count, extra bytes per string, then each
    /// string with its length before it.
    Sttb,
    /// An array of UTF-16 strings, each with its length before it.
    Xsts,
    /// One UTF-16 string with its length before it and a null after it.
    Xstz,
}

fn refusal(error: ExtractError) -> RedactError {
    match error {
        ExtractError::EncryptedDocument => {
            RedactError::Unsupported("the Word document is encrypted".to_string())
        }
        ExtractError::LimitExceeded(why) => RedactError::Limit(why),
        other => RedactError::Malformed(other.to_string()),
    }
}

/// The 16-bit number at `at`, as a length.
fn u16_at(bytes: &[u8], at: usize) -> Option<usize> {
    crate::extractor_pool::u16_at(bytes, at).map(usize::from)
}

/// Every character of the strings in `range` of `table` overwritten with `X`; how many strings.
fn blank(table: &mut [u8], range: std::ops::Range<usize>, layout: Strings) -> usize {
    let end = range.end.min(table.len());
    let mut at = range.start;
    let mut count = 0;
    let fill = |table: &mut [u8], from: usize, chars: usize, wide: bool| {
        let width = if wide { 2 } else { 1 };
        let stop = (from + chars * width).min(end);
        let mut i = from;
        while i + width <= stop {
            table[i] = b'X';
            if wide {
                table[i + 1] = 0;
            }
            i += width;
        }
    };
    match layout {
        Strings::Xstz | Strings::Xsts => {
            while let Some(cch) = u16_at(table, at).filter(|_| at + 2 <= end) {
                fill(table, at + 2, cch, true);
                at += 2
                    + 2 * cch
                    + if matches!(layout, Strings::Xstz) {
                        2
                    } else {
                        0
                    };
                count += 1;
                if matches!(layout, Strings::Xstz) {
                    break;
                }
            }
        }
        Strings::Sttb => {
            let wide = u16_at(table, at) == Some(0xFFFF);
            if wide {
                at += 2;
            }
            let (Some(strings), Some(extra)) = (u16_at(table, at), u16_at(table, at + 2)) else {
                return 0;
            };
            at += 4;
            for _ in 0..strings {
                let (cch, head) = match wide {
                    true => (u16_at(table, at), 2),
                    false => (table.get(at).map(|&b| b as usize), 1),
                };
                let Some(cch) = cch.filter(|_| at < end) else {
                    break;
                };
                fill(table, at + head, cch, wide);
                at += head + cch * if wide { 2 } else { 1 } + extra;
                count += 1;
            }
        }
    }
    count
}

/// How a mark reads for the scan: paragraph, cell, line, page and section marks as line breaks (the
/// text is masked paragraph by paragraph), a tab as itself, other marks (field delimiters, object
/// anchors) as spaces; None for text, which the writer may write over.
fn shown(c: char) -> Option<char> {
    match c {
        '\r' | '\u{7}' | '\u{b}' | '\u{c}' | '\u{e}' => Some('\n'),
        '\t' => Some('\t'),
        c if (c as u32) < 0x20 => Some(' '),
        _ => None,
    }
}

pub fn doc(
    bytes: &[u8],
    _limits: &Limits,
    masker: &mut dyn Masker,
) -> Result<Redacted, RedactError> {
    let text = word_text(&Compound::open(bytes).map_err(refusal)?).map_err(refusal)?;
    if text.flags & 0x0004 != 0 {
        return Err(RedactError::Unsupported(
            "a fast-saved Word document can keep deleted text outside its pieces: save it again \
             (without fast save) and send it again"
                .to_string(),
        ));
    }
    if text.pairs.get(ROUTE_SLIP).is_some_and(|&(_, lcb)| lcb > 0) {
        return Err(RedactError::Unsupported(
            "the Word document has a routing slip, whose recipients cannot be removed safely"
                .to_string(),
        ));
    }
    let mut file = Editable::open(bytes)?;
    if file.exists("/Macros") {
        return Err(RedactError::Unsupported(
            "the Word document holds macros (a VBA project)".to_string(),
        ));
    }
    let mut redacted = Redacted::default();
    let mut document = file.read("/WordDocument")?;
    let mut fixed = Fixed::default();
    for &(c, fc, compressed) in &text.characters {
        fixed.push(c, fc as usize, !compressed, shown(c));
    }
    let mut replaced: Vec<String> = Vec::new();
    mask_fixed(
        &fixed,
        &mut document,
        in_windows_1252,
        masker,
        &mut replaced,
        &mut redacted,
    )?;
    file.overwrite("/WordDocument", &document)?;
    // The strings of the table stream that name people or their files.
    let table_path = format!("/{}", text.table_name);
    let mut table = file.read(&table_path)?;
    for &(pair, layout, what) in NAMING {
        let Some(&(fc, lcb)) = text.pairs.get(pair).filter(|&&(_, lcb)| lcb > 0) else {
            continue;
        };
        let (fc, lcb) = (fc as usize, lcb as usize);
        if blank(&mut table, fc..fc.saturating_add(lcb), layout) > 0 {
            redacted.notes.push(format!("{what}: overwritten with X"));
        }
    }
    file.overwrite(&table_path, &table)?;
    scrub(&mut file, &replaced, &mut redacted)?;
    if file.exists("/ObjectPool") && file.streams().iter().any(|p| p.starts_with("/ObjectPool/")) {
        file.remove("/ObjectPool")?;
        redacted.notes.push(
            "embedded objects removed (their pictures stay in the document; images are not read)"
                .to_string(),
        );
    }
    if file.exists("/Data") {
        redacted.notes.push(
            "pictures (the Data stream) kept: images are not read in office files".to_string(),
        );
    }
    redacted.bytes = file.finish()?;
    Ok(redacted)
}
