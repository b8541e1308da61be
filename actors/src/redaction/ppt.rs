//! PowerPoint 97-2003 (`.ppt`) written back as itself. Its text lives in records of the
//! `PowerPoint Document` stream whose offsets the persist directory holds, so each value is
//! overwritten where it stands, at the same length ([`super::compound::in_place`]): in every text
//! atom (slides, notes, masters, tables' cells) and every string atom (comments' text, hyperlinks'
//! names and targets, slides' names), old superseded versions of a record (an incremental save keeps
//! them) as much as the current ones. Each value overwritten is also searched for in every other
//! stream and overwritten there.
//!
//! Blanked or removed: comment authors and initials and the last user's name (`Current User`),
//! overwritten with `X`; the document properties (the summary information streams); the data of
//! embedded objects and of a macro project (`ExOleObjStg` records, overwritten with zeros at their
//! length: the objects' pictures stay). An encrypted file is refused as its reader refuses it.

use super::compound::{mask_fixed, scrub, Editable, Fixed};
use super::{Masker, RedactError, Redacted};
use crate::extractor_pool::{slides, Limits};

const DOCUMENT: &str = "/PowerPoint Document";
/// A comment (PowerPoint 2002 and later): its string atoms are its author (instance 0), its text (1)
/// and its initials (2).
const COMMENT: u16 = 0x2EE0;
/// An embedded object's storage (or a macro project's), compressed or not.
const OBJECT_STORAGE: u16 = 0x1011;

/// How a mark reads for the scan: paragraph and line breaks as line breaks (the text is masked
/// paragraph by paragraph), a tab as itself, other marks as spaces; None for text.
fn shown(c: char) -> Option<char> {
    match c {
        '\r' | '\u{b}' | '\n' => Some('\n'),
        '\t' => Some('\t'),
        c if (c as u32) < 0x20 => Some(' '),
        _ => None,
    }
}

/// A byte of a text-bytes atom: the low byte of a UTF-16 unit whose high byte is zero.
fn latin1(c: char) -> Option<u8> {
    u8::try_from(c as u32).ok()
}

/// The text of a record's body (`wide`: UTF-16, else bytes) with each character's place in `stream`.
fn fixed(stream: &[u8], body: std::ops::Range<usize>, wide: bool) -> Fixed {
    let mut fixed = Fixed::default();
    let bytes = &stream[body.clone()];
    match wide {
        true => {
            let mut at = body.start;
            let units = bytes
                .chunks_exact(2)
                .map(|p| u16::from_le_bytes([p[0], p[1]]));
            for c in char::decode_utf16(units) {
                let c = c.unwrap_or('\u{FFFD}');
                fixed.push(c, at, true, shown(c));
                at += 2 * c.len_utf16();
            }
        }
        false => {
            for (i, &b) in bytes.iter().enumerate() {
                let c = b as char;
                fixed.push(c, body.start + i, false, shown(c));
            }
        }
    }
    fixed
}

/// `X` over every character of a body of `wide` or byte units.
fn x_fill(body: &mut [u8], wide: bool) {
    match wide {
        true => body
            .chunks_exact_mut(2)
            .for_each(|unit| unit.copy_from_slice(&u16::from(b'X').to_le_bytes())),
        false => body.fill(b'X'),
    }
}

/// The last user's name in the `Current User` stream (8-bit, then after the release version in
/// UTF-16 when it is there) overwritten with `X`.
fn blank_current_user(stream: &mut [u8]) -> bool {
    let Some(length) = crate::extractor_pool::u16_at(stream, 20).map(usize::from) else {
        return false;
    };
    let ansi = 28..28 + length;
    let unicode = ansi.end + 4..ansi.end + 4 + 2 * length;
    let mut blanked = false;
    if let Some(body) = stream.get_mut(ansi) {
        x_fill(body, false);
        blanked = length > 0;
    }
    if let Some(body) = stream.get_mut(unicode) {
        x_fill(body, true);
    }
    blanked
}

pub fn ppt(
    bytes: &[u8],
    _limits: &Limits,
    masker: &mut dyn Masker,
) -> Result<Redacted, RedactError> {
    let mut file = Editable::open(bytes)?;
    if file.exists("/EncryptedSummary") {
        return Err(RedactError::Unsupported(
            "the presentation is encrypted".to_string(),
        ));
    }
    let mut stream = file.read(DOCUMENT)?;
    let mut redacted = Redacted::default();
    let mut replaced = Vec::new();
    let mut authors = 0;
    for record in slides::text_records(&stream) {
        let wide = record.kind != slides::TEXT_BYTES_ATOM;
        if record.kind == slides::CSTRING && record.parent == COMMENT && record.instance != 1 {
            x_fill(&mut stream[record.body.clone()], wide);
            authors += 1;
            continue;
        }
        let text = fixed(&stream, record.body, wide);
        mask_fixed(
            &text,
            &mut stream,
            latin1,
            masker,
            &mut replaced,
            &mut redacted,
        )?;
    }
    if authors > 0 {
        redacted
            .notes
            .push("comment authors and initials: overwritten with X".to_string());
    }
    let objects = slides::records_of(&stream, OBJECT_STORAGE);
    for body in &objects {
        stream[body.clone()].fill(0);
    }
    if !objects.is_empty() {
        redacted.notes.push(format!(
            "{} embedded objects' (or a macro project's) data overwritten with zeros; their \
             pictures stay (images are not read)",
            objects.len()
        ));
    }
    file.overwrite(DOCUMENT, &stream)?;
    if file.exists("/Current User") {
        let mut user = file.read("/Current User")?;
        if blank_current_user(&mut user) {
            file.overwrite("/Current User", &user)?;
            redacted
                .notes
                .push("the last user's name (Current User): overwritten with X".to_string());
        }
    }
    scrub(&mut file, &replaced, &mut redacted)?;
    if file.exists("/Pictures") {
        redacted
            .notes
            .push("pictures kept: images are not read in office files".to_string());
    }
    redacted.bytes = file.finish()?;
    Ok(redacted)
}
