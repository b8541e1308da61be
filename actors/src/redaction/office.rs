//! DOCX, XLSX and PPTX written back as themselves: each kind of part has a [`Profile`] (what is text,
//! what is removed), each format a table of parts to profiles. A part no row names is read for the
//! check only ([`GENERIC`]: its texts are scanned, nothing of it changes); an embedded object is
//! refused; images are kept as they are and the answer says so; a thumbnail becomes a blank image.

use super::package::{self, PartFate};
use super::xml_text::{self, Profile};
use super::{Masker, RedactError, Redacted};
use crate::extractor_pool::Limits;

const NONE: &[&[u8]] = &[];

/// Read, never changed: its texts go to the check.
const GENERIC: Profile = Profile {
    containers: NONE,
    texts: NONE,
    separators: &[],
    own_text: NONE,
    cleared: NONE,
    masked_attributes: &[],
    cleared_attributes: &[],
    skip_container: None,
    inline_text: false,
    retype: None,
};

/// A package's relationships: an external target (`mailto:`, a link naming a person) is masked.
const RELATIONSHIPS: Profile = Profile {
    masked_attributes: &[(Some(b"Relationship"), b"Target")],
    ..GENERIC
};

/// Core properties: the creator and the last editor removed; title, subject, keywords masked.
const CORE: Profile = Profile {
    cleared: &[b"creator", b"lastModifiedBy"],
    own_text: &[
        b"title",
        b"subject",
        b"description",
        b"keywords",
        b"category",
        b"contentStatus",
        b"identifier",
    ],
    ..GENERIC
};

/// Application properties: the manager removed, the company (and the parts' titles) masked.
const APP: Profile = Profile {
    cleared: &[b"Manager"],
    own_text: &[b"Company", b"lpstr", b"lpwstr"],
    ..GENERIC
};

/// Custom properties: every value removed (a property's meaning is the tenant's own).
const CUSTOM: Profile = Profile {
    cleared: &[b"lpwstr", b"lpstr", b"bstr"],
    ..GENERIC
};

/// Who edited, commented or is mentioned: removed wherever an element carries it.
const AUTHORS: &[xml_text::Attr] = &[
    (None, b"author"),
    (None, b"initials"),
    (Some(b"presenceInfo"), b"userId"),
    (Some(b"person"), b"displayName"),
    (Some(b"person"), b"userId"),
    (Some(b"cmAuthor"), b"name"),
];

/// Word's body, headers, footers, notes, comments, text boxes and charts. A tracked deletion's text
/// is masked on its own: it is not read beside the text that replaced it.
const WORD: Profile = Profile {
    containers: &[b"p"],
    texts: &[b"t", b"instrText"],
    own_text: &[b"delText"],
    separators: &[(b"tab", "\t"), (b"br", "\n"), (b"cr", "\n")],
    masked_attributes: &[
        (Some(b"docPr"), b"descr"),
        (Some(b"docPr"), b"title"),
        (Some(b"cNvPr"), b"descr"),
        (Some(b"cNvPr"), b"title"),
        (Some(b"hyperlink"), b"tooltip"),
    ],
    cleared_attributes: AUTHORS,
    ..GENERIC
};

/// Slides, notes, layouts, masters, charts and diagrams: DrawingML paragraphs; comments' text.
const DRAWING: Profile = Profile {
    containers: &[b"p"],
    texts: &[b"t"],
    separators: &[(b"br", "\n")],
    own_text: &[b"text"],
    masked_attributes: &[
        (Some(b"cNvPr"), b"descr"),
        (Some(b"cNvPr"), b"title"),
        (Some(b"hlinkClick"), b"tooltip"),
    ],
    cleared_attributes: &[
        (None, b"author"),
        (None, b"initials"),
        (Some(b"cmAuthor"), b"name"),
        (Some(b"author"), b"name"),
        (Some(b"author"), b"userId"),
    ],
    ..GENERIC
};

/// The shared strings: each string (its rich-text runs) masked whole.
const SHARED_STRINGS: Profile = Profile {
    containers: &[b"si"],
    texts: &[b"t"],
    ..GENERIC
};

/// A worksheet: cells' values (not indexes into the shared strings, booleans or errors), inline
/// strings, a formula's cached value, headers and footers; a cell whose value changed holds a string.
const SHEET: Profile = Profile {
    containers: &[b"c"],
    texts: &[b"v", b"t"],
    own_text: &[
        b"oddHeader",
        b"oddFooter",
        b"evenHeader",
        b"evenFooter",
        b"firstHeader",
        b"firstFooter",
    ],
    masked_attributes: &[
        (Some(b"hyperlink"), b"display"),
        (Some(b"hyperlink"), b"tooltip"),
        (Some(b"cNvPr"), b"descr"),
        (Some(b"cNvPr"), b"title"),
    ],
    skip_container: Some((b"c", b"t", &[b"s", b"b", b"e"])),
    retype: Some((b"c", b"t", b"str")),
    ..GENERIC
};

/// A sheet's comments: the text masked, the authors removed.
const SHEET_COMMENTS: Profile = Profile {
    containers: &[b"text"],
    texts: &[b"t"],
    cleared: &[b"author"],
    ..GENERIC
};

/// Threaded comments and the people who wrote them.
const THREADED_COMMENTS: Profile = Profile {
    own_text: &[b"text"],
    cleared_attributes: AUTHORS,
    ..GENERIC
};

/// OpenDocument text and presentations (`content.xml`, and `styles.xml` with the pages' headers and
/// footers): paragraphs and headings with their spans' text, notes, annotations (their authors
/// removed), tracked deletions, frames' titles and descriptions, link targets.
const ODF_TEXT: Profile = Profile {
    containers: &[b"p", b"h"],
    own_text: &[b"title", b"desc"],
    separators: &[(b"s", " "), (b"tab", "\t"), (b"line-break", "\n")],
    cleared: &[b"creator"],
    masked_attributes: &[(Some(b"a"), b"href"), (Some(b"a"), b"title")],
    inline_text: true,
    ..GENERIC
};

/// OpenDocument spreadsheets (`content.xml`): each cell's text masked whole (its paragraphs and
/// spans); a cell whose text changed becomes a string cell, and its typed value (`office:value`,
/// `office:date-value`, `office:string-value`) is masked too, so that no number stays behind the text.
const ODF_SHEET: Profile = Profile {
    containers: &[b"table-cell", b"covered-table-cell"],
    masked_attributes: &[
        (Some(b"a"), b"href"),
        (Some(b"a"), b"title"),
        (Some(b"table-cell"), b"value"),
        (Some(b"table-cell"), b"date-value"),
        (Some(b"table-cell"), b"string-value"),
    ],
    retype: Some((b"table-cell", b"value-type", b"string")),
    ..ODF_TEXT
};

/// OpenDocument properties: the creators removed, title, subject, description and keywords masked,
/// user-defined values removed; the generating software is kept (and scanned, as every text left).
const ODF_META: Profile = Profile {
    cleared: &[
        b"creator",
        b"initial-creator",
        b"user-defined",
        b"printed-by",
    ],
    own_text: &[b"title", b"subject", b"description", b"keyword"],
    ..GENERIC
};

/// A part name pattern: a prefix and a suffix.
pub type Rows = &'static [(&'static str, &'static str, &'static Profile)];

const PROPERTIES: Rows = &[
    ("docProps/core.xml", "", &CORE),
    ("docProps/app.xml", "", &APP),
    ("docProps/custom.xml", "", &CUSTOM),
    ("", ".rels", &RELATIONSHIPS),
];

pub const DOCX_PARTS: Rows = &[("word/", ".xml", &WORD)];

pub const XLSX_PARTS: Rows = &[
    ("xl/sharedStrings.xml", "", &SHARED_STRINGS),
    ("xl/worksheets/", ".xml", &SHEET),
    ("xl/comments", ".xml", &SHEET_COMMENTS),
    ("xl/threadedComments/", ".xml", &THREADED_COMMENTS),
    ("xl/persons/", ".xml", &THREADED_COMMENTS),
    ("xl/drawings/", ".xml", &DRAWING),
    ("xl/charts/", ".xml", &DRAWING),
];

pub const PPTX_PARTS: Rows = &[("ppt/", ".xml", &DRAWING)];

pub const ODF_PARTS: Rows = &[
    ("", "content.xml", &ODF_TEXT),
    ("", "styles.xml", &ODF_TEXT),
    ("meta.xml", "", &ODF_META),
];

pub const ODS_PARTS: Rows = &[
    ("", "content.xml", &ODF_SHEET),
    ("", "styles.xml", &ODF_TEXT),
    ("meta.xml", "", &ODF_META),
];

/// The profile of a part: the format's rows, then the properties'; None for a part that is not XML.
fn profile_of(name: &str, rows: Rows) -> Option<&'static Profile> {
    let row = rows
        .iter()
        .chain(PROPERTIES)
        .find(|(prefix, suffix, _)| name.starts_with(prefix) && name.ends_with(suffix));
    match row {
        Some((.., profile)) => Some(profile),
        None if name.ends_with(".xml") || name.ends_with(".rels") => Some(&GENERIC),
        None => None,
    }
}

/// A 1x1 white PNG: what a thumbnail (a picture of the first page, values and all) becomes.
const BLANK_PNG: &[u8] = &[
    0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0x00, 0x00, 0x00, 0x0D, 0x49, 0x48, 0x44, 0x52,
    0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x01, 0x08, 0x02, 0x00, 0x00, 0x00, 0x90, 0x77, 0x53,
    0xDE, 0x00, 0x00, 0x00, 0x0C, 0x49, 0x44, 0x41, 0x54, 0x78, 0x9C, 0x63, 0xF8, 0xFF, 0xFF, 0x3F,
    0x00, 0x05, 0xFE, 0x02, 0xFE, 0x0D, 0xEF, 0x46, 0xB8, 0x00, 0x00, 0x00, 0x00, 0x49, 0x45, 0x4E,
    0x44, 0xAE, 0x42, 0x60, 0x82,
];

/// What becomes of a part that is not XML.
fn binary_part(name: &str) -> Result<PartFate, RedactError> {
    let lower = name.to_ascii_lowercase();
    let file = lower.rsplit('/').next().unwrap_or(&lower);
    if file.starts_with("thumbnail") {
        return Ok(PartFate::Write(BLANK_PNG.to_vec()));
    }
    if lower.contains("/embeddings/")
        || lower.contains("/activex/")
        || file.starts_with("vbaproject")
    {
        return Err(RedactError::Unsupported(format!(
            "the document embeds an object ({name}) that cannot be read, so it cannot be masked: \
             remove it, or ask for the masked text"
        )));
    }
    Ok(PartFate::Keep)
}

/// An OOXML package rewritten part by part by the profiles of `rows`.
pub fn office(
    bytes: &[u8],
    limits: &Limits,
    masker: &mut dyn Masker,
    rows: Rows,
) -> Result<Redacted, RedactError> {
    let max_depth = limits.max_xml_depth;
    // Pictures: OOXML's media folders, OpenDocument's pictures and objects' replacement images.
    let media = |name: &str| {
        let lower = name.to_ascii_lowercase();
        lower.contains("/media/")
            || lower.starts_with("pictures/")
            || lower.starts_with("objectreplacements/")
    };
    let (mut images, mut thumbnails) = (0usize, 0usize);
    let mut redacted = package::rewrite(
        bytes,
        limits,
        |name| !media(name),
        |name, content, redacted| {
            let Some(profile) = profile_of(name, rows) else {
                if media(name) {
                    images += 1;
                    return Ok(PartFate::Keep);
                }
                let fate = binary_part(name)?;
                thumbnails += usize::from(matches!(fate, PartFate::Write(_)));
                return Ok(fate);
            };
            let rewritten = xml_text::rewrite(name, content, profile, max_depth, masker)?;
            redacted.left.push_str(&rewritten.left);
            Ok(match rewritten.bytes {
                Some(bytes) => PartFate::Write(bytes),
                None => PartFate::Keep,
            })
        },
    )?;
    // Counted, not named: a part's name may itself name someone.
    if images > 0 {
        redacted.notes.push(format!(
            "{images} image(s) kept as they are: images inside office files are not read"
        ));
    }
    if thumbnails > 0 {
        redacted.notes.push(
            "the thumbnail (a picture of the first page) was replaced by a blank image".to_string(),
        );
    }
    Ok(redacted)
}
