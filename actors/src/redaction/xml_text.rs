//! One XML part rewritten in place: the text of each container element (a paragraph, a cell, a shared
//! string) is masked whole and put back into the text elements (runs) that held it; listed attributes
//! are masked or cleared, listed elements cleared. Only the bytes of changed text and attribute values
//! are replaced: every other byte of the part is the original's.

use std::ops::Range;

use quick_xml::events::{BytesStart, Event};
use quick_xml::Reader;

use super::distribute::{apply, distribute};
use super::{Masker, RedactError};

/// A local name.
pub type Name = &'static [u8];

/// An (element, attribute) pair by local names (`None`: any element).
pub type Attr = (Option<Name>, Name);

/// An element, one of its attributes, and values of it.
pub type WithAttribute = (Name, Name, &'static [Name]);

/// What of a kind of part is text, and what is removed.
pub struct Profile {
    /// Elements whose text is masked together (paragraphs, shared strings, cells).
    pub containers: &'static [&'static [u8]],
    /// Elements whose character content is a piece of their container's text (runs' text).
    pub texts: &'static [&'static [u8]],
    /// Empty elements that stand for a character of the text (a tab, a line break).
    pub separators: &'static [(&'static [u8], &'static str)],
    /// Elements that are containers and text at once, masked on their own (a title, a property).
    pub own_text: &'static [&'static [u8]],
    /// Elements whose text is removed (the creator, the last editor, a comment's author).
    pub cleared: &'static [&'static [u8]],
    /// Attributes masked as a text of their own (alt text, a hyperlink's target).
    pub masked_attributes: &'static [Attr],
    /// Attributes removed to an empty value (authors, initials, user ids).
    pub cleared_attributes: &'static [Attr],
    /// A container that is skipped (its attribute `.1` has one of the values `.2`: a cell whose value
    /// is an index into the shared strings).
    pub skip_container: Option<WithAttribute>,
    /// Whether character content anywhere inside an open container is a piece of its text (ODF's
    /// mixed content: a paragraph's text and its spans'), not only inside `texts`.
    pub inline_text: bool,
    /// A container whose text changed gets this attribute set to this value (a numeric cell becomes a
    /// string cell).
    pub retype: Option<(Name, Name, Name)>,
}

/// A part after rewriting: its bytes (None: unchanged) and every text left in it.
pub struct Rewritten {
    pub bytes: Option<Vec<u8>>,
    pub left: String,
}

/// Bytes of the part replaced by others.
pub(super) type Splices = Vec<(Range<usize>, Vec<u8>)>;

/// A piece of a container's text: where its escaped bytes are, and its text.
struct Piece {
    range: Range<usize>,
    text: String,
    writable: bool,
}

struct Open {
    /// The element's start tag, for a retype.
    tag: Range<usize>,
    own: bool,
    changed: bool,
    pieces: Vec<Piece>,
}

fn is(list: &[&[u8]], name: &[u8]) -> bool {
    list.contains(&name)
}

fn matches(list: &[Attr], element: &[u8], attribute: &[u8]) -> bool {
    list.iter()
        .any(|&(e, a)| a == attribute && e.is_none_or(|e| e == element))
}

fn malformed(name: &str, error: impl std::fmt::Display) -> RedactError {
    RedactError::Malformed(format!("{name}: {error}"))
}

/// Where `inner` (a slice of `outer`) starts in it.
fn offset_in(outer: &[u8], inner: &[u8]) -> Option<usize> {
    let start = (inner.as_ptr() as usize).checked_sub(outer.as_ptr() as usize)?;
    (start + inner.len() <= outer.len()).then_some(start)
}

pub fn rewrite(
    name: &str,
    part: &[u8],
    profile: &Profile,
    max_depth: usize,
    masker: &mut dyn Masker,
) -> Result<Rewritten, RedactError> {
    let part_of = Part {
        name,
        bytes: part,
        profile,
    };
    let mut reader = Reader::from_reader(part);
    reader.config_mut().check_end_names = true;
    let mut splices: Splices = Vec::new();
    let mut left = String::new();
    let mut stack: Vec<Open> = Vec::new();
    // Depth of text elements open (text read inside them is a piece), of cleared elements, of skipped
    // containers, and of all elements.
    let (mut in_text, mut in_cleared, mut skipping, mut depth) = (0usize, 0usize, 0usize, 0usize);
    loop {
        let start = reader.buffer_position() as usize;
        let event = reader.read_event().map_err(|e| malformed(name, e))?;
        let end = reader.buffer_position() as usize;
        match event {
            Event::Start(element) => {
                depth += 1;
                if depth > max_depth {
                    return Err(RedactError::Limit(format!(
                        "{name}: markup nested deeper than {max_depth}"
                    )));
                }
                let local = element.local_name().into_inner().to_vec();
                attributes(&part_of, &element, masker, (&mut splices, &mut left))?;
                if skipping > 0 {
                    skipping += 1;
                    continue;
                }
                if skipped(&element, profile) {
                    skipping = 1;
                    continue;
                }
                let own = is(profile.own_text, &local);
                if own || is(profile.containers, &local) {
                    stack.push(Open {
                        tag: start..end,
                        own,
                        changed: false,
                        pieces: Vec::new(),
                    });
                }
                if own || is(profile.texts, &local) {
                    in_text += 1;
                }
                if is(profile.cleared, &local) {
                    in_cleared += 1;
                }
            }
            Event::Empty(element) => {
                attributes(&part_of, &element, masker, (&mut splices, &mut left))?;
                let local = element.local_name();
                if let (Some((_, character)), Some(open)) = (
                    profile
                        .separators
                        .iter()
                        .find(|(n, _)| *n == local.into_inner()),
                    stack.last_mut(),
                ) {
                    if skipping == 0 {
                        open.pieces.push(Piece {
                            range: end..end,
                            text: (*character).to_string(),
                            writable: false,
                        });
                    }
                }
            }
            Event::End(element) => {
                depth = depth.saturating_sub(1);
                if skipping > 0 {
                    skipping -= 1;
                    continue;
                }
                let local = element.local_name().into_inner().to_vec();
                if is(profile.cleared, &local) {
                    in_cleared = in_cleared.saturating_sub(1);
                }
                let own = is(profile.own_text, &local);
                if own || is(profile.texts, &local) {
                    in_text = in_text.saturating_sub(1);
                }
                if own || is(profile.containers, &local) {
                    if let Some(open) = stack.pop() {
                        close(part, open, profile, masker, &mut splices, &mut left)?;
                    }
                }
            }
            Event::Text(_) | Event::CData(_) if in_cleared > 0 && start < end => {
                splices.push((start..end, Vec::new()));
            }
            Event::Text(_) | Event::CData(_) if in_cleared > 0 => {}
            Event::Text(_) | Event::CData(_) => {
                let content = match &event {
                    Event::Text(text) => text.unescape().map_err(|e| malformed(name, e))?,
                    Event::CData(data) => String::from_utf8_lossy(data),
                    _ => continue,
                };
                text_piece(
                    &mut stack,
                    (in_text > 0 || profile.inline_text) && skipping == 0,
                    start..end,
                    &content,
                    &mut left,
                );
            }
            Event::Eof => break,
            _ => {}
        }
    }
    Ok(Rewritten {
        bytes: spliced(part, splices, name)?,
        left,
    })
}

/// `part` with the splices made (None when there are none); overlapping splices are an error.
pub(super) fn spliced(
    part: &[u8],
    mut splices: Splices,
    name: &str,
) -> Result<Option<Vec<u8>>, RedactError> {
    if splices.is_empty() {
        return Ok(None);
    }
    splices.sort_by_key(|(range, _)| (range.start, range.end));
    let mut out = Vec::with_capacity(part.len() + 64 * splices.len());
    let mut cursor = 0;
    for (range, with) in splices {
        if range.start < cursor {
            return Err(malformed(name, "overlapping rewrites"));
        }
        out.extend_from_slice(&part[cursor..range.start]);
        out.extend_from_slice(&with);
        cursor = range.end;
    }
    out.extend_from_slice(&part[cursor..]);
    Ok(Some(out))
}

/// Whether `element` is a container the profile skips.
fn skipped(element: &BytesStart<'_>, profile: &Profile) -> bool {
    let Some((container, attribute, values)) = profile.skip_container else {
        return false;
    };
    element.local_name().into_inner() == container
        && element.attributes().flatten().any(|a| {
            a.key.local_name().into_inner() == attribute && values.contains(&a.value.as_ref())
        })
}

/// Text read inside a text element joins its container's pieces; text elsewhere is only noted.
fn text_piece(
    stack: &mut [Open],
    piece: bool,
    range: Range<usize>,
    content: &str,
    left: &mut String,
) {
    match stack.last_mut() {
        Some(open) if piece => open.pieces.push(Piece {
            range,
            text: content.to_string(),
            writable: true,
        }),
        _ => {
            if !content.trim().is_empty() {
                left.push_str(content);
                left.push('\n');
            }
        }
    }
}

/// A container's text masked and put back into its pieces.
fn close(
    part: &[u8],
    mut open: Open,
    profile: &Profile,
    masker: &mut dyn Masker,
    splices: &mut Splices,
    left: &mut String,
) -> Result<(), RedactError> {
    let texts: Vec<&str> = open.pieces.iter().map(|p| p.text.as_str()).collect();
    let whole = texts.concat();
    let replaces = if whole.trim().is_empty() {
        Vec::new()
    } else {
        masker.replacements(&whole)?
    };
    if replaces.is_empty() {
        if !whole.trim().is_empty() {
            left.push_str(&whole);
            left.push('\n');
        }
        return Ok(());
    }
    left.push_str(&apply(&whole, &replaces));
    left.push('\n');
    let writable: Vec<bool> = open.pieces.iter().map(|p| p.writable).collect();
    let new = distribute(&texts, &writable, &replaces);
    for (piece, text) in open.pieces.iter().zip(new) {
        if piece.writable && piece.text != text {
            splices.push((
                piece.range.clone(),
                quick_xml::escape::partial_escape(text.as_str())
                    .as_bytes()
                    .to_vec(),
            ));
            open.changed = true;
        }
    }
    if let (true, false, Some((element, attribute, value))) =
        (open.changed, open.own, profile.retype)
    {
        retype(part, open.tag, (element, attribute, value), splices);
    }
    Ok(())
}

/// Sets `attribute` to `value` on the start tag at `tag` (an `element`), replacing its value when it
/// has one.
fn retype(
    part: &[u8],
    tag: Range<usize>,
    (element, attribute, value): (&[u8], &[u8], &[u8]),
    splices: &mut Splices,
) {
    let bytes = &part[tag.clone()];
    let inner = &bytes[1..bytes.len().saturating_sub(1)];
    let start = BytesStart::from_content(
        std::str::from_utf8(inner).unwrap_or_default(),
        inner
            .iter()
            .position(|b| b.is_ascii_whitespace())
            .unwrap_or(inner.len()),
    );
    if start.local_name().into_inner() != element {
        return;
    }
    for attr in start.attributes().flatten() {
        if attr.key.local_name().into_inner() == attribute {
            // An inline string stays one; a string is one already.
            if matches!(attr.value.as_ref(), b"inlineStr") || attr.value.as_ref() == value {
                return;
            }
            if let Some(at) = offset_in(part, &attr.value) {
                splices.push((at..at + attr.value.len(), value.to_vec()));
            }
            return;
        }
    }
    // No such attribute: added before the tag's end.
    let at = tag.end - 1;
    let mut added = b" ".to_vec();
    added.extend_from_slice(attribute);
    added.extend_from_slice(b"=\"");
    added.extend_from_slice(value);
    added.push(b'"');
    splices.push((at..at, added));
}

/// The part being rewritten: its name, bytes and profile.
struct Part<'a> {
    name: &'a str,
    bytes: &'a [u8],
    profile: &'a Profile,
}

/// The profile's attributes of `element` masked or cleared, into the splices and the texts left.
fn attributes(
    part: &Part<'_>,
    element: &BytesStart<'_>,
    masker: &mut dyn Masker,
    (splices, left): (&mut Splices, &mut String),
) -> Result<(), RedactError> {
    let (name, profile) = (part.name, part.profile);
    let part = part.bytes;
    if profile.masked_attributes.is_empty() && profile.cleared_attributes.is_empty() {
        return Ok(());
    }
    let local = element.local_name().into_inner();
    for attribute in element.attributes() {
        let attribute = attribute.map_err(|e| malformed(name, e))?;
        let key = attribute.key.local_name().into_inner();
        let cleared = matches(profile.cleared_attributes, local, key);
        let masked = matches(profile.masked_attributes, local, key);
        if !cleared && !masked {
            continue;
        }
        let Some(at) = offset_in(part, &attribute.value) else {
            return Err(malformed(name, "an attribute could not be placed"));
        };
        let range = at..at + attribute.value.len();
        if cleared {
            if !range.is_empty() {
                splices.push((range, Vec::new()));
            }
            continue;
        }
        let value = attribute.unescape_value().map_err(|e| malformed(name, e))?;
        let replaces = if value.trim().is_empty() {
            Vec::new()
        } else {
            masker.replacements(&value)?
        };
        let written = apply(&value, &replaces);
        left.push_str(&written);
        left.push('\n');
        if !replaces.is_empty() {
            splices.push((
                range,
                quick_xml::escape::escape(written.as_str())
                    .as_bytes()
                    .to_vec(),
            ));
        }
    }
    Ok(())
}
