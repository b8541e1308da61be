//! Masked documents in their own format: the writers beside the readers. A document's bytes, its
//! detected format and a [`Masker`] (the tenant's policy with everything the whole document revealed)
//! go in; the same document comes out with each found value replaced where it stands, in a DOCX's
//! runs, a sheet's cells, a slide's paragraphs or a text file's lines, and its metadata scrubbed.
//!
//! Which formats have a writer is one table, [`WRITERS`]: a new format is a row there and a file here.
//! Writers are plain synchronous functions over bytes, like the readers; they never leave a value in
//! clear on purpose, and the caller checks that they did not by accident: the output is read again
//! with docsieve's own readers and scanned ([`Check`]), and every text the writer left in the file is
//! scanned too ([`Redacted::left`]), before anything leaves.

mod compound;
mod distribute;
mod doc;
mod eml;
mod html;
mod image;
mod msg;
mod office;
mod package;
mod pdf;
mod pdf_burn;
mod plain;
mod ppt;
mod xml;
mod xml_text;

use crate::extractor_pool::Format;
use crate::extractor_pool::Limits;

pub use distribute::{apply, distribute};
pub use html::unescape;

/// One found value in a text, and what replaces it there.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Replace {
    pub start: usize,
    pub end: usize,
    pub with: String,
}

/// The indexes (glyphs, words) whose text the replacements cover, each once, in order: `owner` gives
/// the index each byte of the masked text comes from.
pub(crate) fn covered(replaces: &[Replace], owner: &[Option<usize>]) -> Vec<usize> {
    let mut covered: Vec<usize> = replaces
        .iter()
        .flat_map(|r| owner[r.start..r.end].iter().flatten().copied())
        .collect();
    covered.sort_unstable();
    covered.dedup();
    covered
}

/// What the writers ask of the masking engine.
pub trait Masker {
    /// The replacements of the personal data in `text`, in order and disjoint; an empty list when
    /// there is none. A text whose masking the engine refuses is an error.
    fn replacements(&mut self, text: &str) -> Result<Vec<Replace>, RedactError>;
}

/// Why a document was not redacted.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum RedactError {
    /// No writer for this format, or a feature of the document that cannot be rewritten safely (an
    /// encrypted part, an embedded object): nothing is answered rather than something unsafe.
    #[error("{0}")]
    Unsupported(String),
    /// The container or its markup does not read.
    #[error("{0}")]
    Malformed(String),
    /// Past a limit of the extraction limits (a zip bomb, markup nested too deep).
    #[error("{0}")]
    Limit(String),
    /// The masked output would still hold personal data.
    #[error("masked output still contains detectable personal data ({0}); refused")]
    Refused(String),
}

/// A redacted document.
#[derive(Clone, Debug, Default)]
pub struct Redacted {
    pub bytes: Vec<u8>,
    /// What the answer tells beside the file: parts removed, parts kept as they are without being
    /// read (`word/media/image1.png: kept, images are not read in office files`).
    pub notes: Vec<String>,
    /// Every text the writer left in the file's markup (text nodes, the attributes it masks), joined
    /// by line breaks: scanned again before the file leaves, for what the readers do not read.
    pub left: String,
    /// Every replacement written, once each: a value found again inside one is the engine's own
    /// writing (a surrogate passes its checksum by design; an `X` fill read as a name by its column's
    /// label), not a leak. A writer adds what it wrote instead of a replacement; the engine adds the
    /// replacements.
    pub written: Vec<String>,
}

impl Redacted {
    /// What the writer of a part inside this document wrote: its texts left and its notes (each after
    /// `what`) taken in; its bytes given back.
    pub(crate) fn absorb(&mut self, inner: Redacted, what: &str) -> Vec<u8> {
        self.left.push_str(&inner.left);
        self.notes.extend(
            inner
                .notes
                .into_iter()
                .map(|note| format!("{what}: {note}")),
        );
        inner.bytes
    }
}

/// `text` masked as the value of `key` (`Telephone: ...`), or alone: the text written, and whether it
/// changed. Replacements that reach into the key are cut to the text.
pub(crate) fn masked_with_key(
    key: Option<&str>,
    text: &str,
    masker: &mut dyn Masker,
) -> Result<(String, bool), RedactError> {
    if text.trim().is_empty() {
        return Ok((text.to_string(), false));
    }
    let labelled = match key {
        Some(key) => format!("{key}: {text}"),
        None => text.to_string(),
    };
    let skip = labelled.len() - text.len();
    let replaces: Vec<Replace> = masker
        .replacements(&labelled)?
        .into_iter()
        .filter(|r| r.end > skip)
        .map(|r| Replace {
            start: r.start.max(skip) - skip,
            end: r.end - skip,
            with: r.with,
        })
        .collect();
    Ok((apply(text, &replaces), !replaces.is_empty()))
}

/// A format's writer: the document's bytes, the limits its reading had, the masker.
pub type Writer = fn(&[u8], &Limits, &mut dyn Masker) -> Result<Redacted, RedactError>;

/// How a format is written: an office package by its rows of parts and profiles, or a writer of its
/// own.
#[derive(Clone, Copy)]
pub enum Write {
    Office(office::Rows),
    Own(Writer),
}

/// The formats docsieve writes back in their own form: format, writer, content type, extension.
pub const WRITERS: &[(Format, Write, &str, &str)] = &[
    (
        Format::Docx,
        Write::Office(office::DOCX_PARTS),
        "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
        "docx",
    ),
    (
        Format::Xlsx,
        Write::Office(office::XLSX_PARTS),
        "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
        "xlsx",
    ),
    (
        Format::Pptx,
        Write::Office(office::PPTX_PARTS),
        "application/vnd.openxmlformats-officedocument.presentationml.presentation",
        "pptx",
    ),
    (
        Format::Odt,
        Write::Office(office::ODF_PARTS),
        "application/vnd.oasis.opendocument.text",
        "odt",
    ),
    (
        Format::Ods,
        Write::Office(office::ODS_PARTS),
        "application/vnd.oasis.opendocument.spreadsheet",
        "ods",
    ),
    (
        Format::Odp,
        Write::Office(office::ODF_PARTS),
        "application/vnd.oasis.opendocument.presentation",
        "odp",
    ),
    (
        Format::Doc,
        Write::Own(doc::doc),
        "application/msword",
        "doc",
    ),
    (
        Format::Ppt,
        Write::Own(ppt::ppt),
        "application/vnd.ms-powerpoint",
        "ppt",
    ),
    (Format::Pdf, Write::Own(pdf::pdf), "application/pdf", "pdf"),
    (Format::Png, Write::Own(image::png), "image/png", "png"),
    (Format::Jpeg, Write::Own(image::jpeg), "image/jpeg", "jpg"),
    (Format::Tiff, Write::Own(image::tiff), "image/tiff", "tiff"),
    (
        Format::Html,
        Write::Own(html::html),
        "text/html; charset=utf-8",
        "html",
    ),
    (Format::Eml, Write::Own(eml::eml), "message/rfc822", "eml"),
    (Format::Msg, Write::Own(msg::msg), "message/rfc822", "eml"),
    (
        Format::Xml,
        Write::Own(xml::xml),
        "application/xml; charset=utf-8",
        "xml",
    ),
    (
        Format::Txt,
        Write::Own(plain::txt),
        "text/plain; charset=utf-8",
        "txt",
    ),
    (
        Format::Csv,
        Write::Own(plain::csv),
        "text/csv; charset=utf-8",
        "csv",
    ),
];

/// The writer row of `format`.
pub fn writer_of(format: Format) -> Option<&'static (Format, Write, &'static str, &'static str)> {
    WRITERS.iter().find(|(f, ..)| *f == format)
}

/// The names of the formats with a writer, for messages and the docs.
pub fn written_formats() -> Vec<&'static str> {
    WRITERS.iter().map(|(format, ..)| format.name()).collect()
}

/// `bytes`, of `format`, redacted by `masker`; `redaction_unsupported` for a format without a writer.
/// The writer runs inside `catch_unwind`: a bug fails this document, never the caller.
pub fn redact(
    bytes: &[u8],
    format: Format,
    limits: &Limits,
    masker: &mut dyn Masker,
) -> Result<Redacted, RedactError> {
    let Some(&(_, write, ..)) = writer_of(format) else {
        return Err(unsupported_format(format));
    };
    std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| match write {
        Write::Office(rows) => office::office(bytes, limits, masker, rows),
        Write::Own(writer) => writer(bytes, limits, masker),
    }))
    .unwrap_or_else(|_| {
        Err(RedactError::Malformed(format!(
            "the {} writer failed on this document",
            format.name()
        )))
    })
}

/// The refusal of a format without a writer, naming those with one.
pub fn unsupported_format(format: Format) -> RedactError {
    RedactError::Unsupported(format!(
        "{} files cannot be given back in their own format yet (formats that can: {}); use \
         POST /v1/data-process/preview?masked=true for the masked text",
        format.name(),
        written_formats().join(", ")
    ))
}

#[cfg(test)]
mod tests;
