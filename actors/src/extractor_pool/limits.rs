//! Limits against hostile input. Exceeding one fails that document with `limit_exceeded`.

use serde::{Deserialize, Serialize};

#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct Limits {
    /// Largest input accepted, in bytes.
    pub max_bytes: u64,
    /// Most pages (PDF pages, slides, sheets) read from one document.
    pub max_pages: u32,
    /// Largest total decompressed size of a ZIP container (DOCX, PPTX, XLSX): zip bombs stop here.
    pub max_decompressed_bytes: u64,
    /// Deepest XML or HTML nesting accepted.
    pub max_xml_depth: usize,
    /// Most rows read from one table or sheet.
    pub max_rows: usize,
    /// How deep attachments inside attachments are followed.
    pub max_attachment_depth: u32,
    /// Time allowed for one document (all pages, OCR included), in seconds.
    pub max_seconds: u64,
    /// Most text (bytes of UTF-8) the caller takes from one document; more fails it with
    /// `result_too_large`. None: no bound beyond the others (async jobs); previews set one.
    #[serde(default)]
    pub max_text_bytes: Option<u64>,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            max_bytes: 100 * 1024 * 1024,
            max_pages: 2000,
            max_decompressed_bytes: 512 * 1024 * 1024,
            max_xml_depth: 256,
            max_rows: 1_000_000,
            max_attachment_depth: 3,
            max_seconds: 300,
            max_text_bytes: None,
        }
    }
}
