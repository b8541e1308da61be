//! Limits against hostile input. Exceeding one fails that document with `limit_exceeded`.

use std::time::Instant;

use serde::{Deserialize, Serialize};

use super::error::ExtractError;

/// Pages read before the time they took says how long the rest will take (the first pages also carry
/// the engines' start).
const PAGES_BEFORE_PROJECTING: usize = 4;

#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct Limits {
    /// Largest input accepted, in bytes.
    pub max_bytes: u64,
    /// Most pages (PDF pages, slides, sheets) read from one document.
    pub max_pages: u32,
    /// Most pages of one document read by OCR (scanned PDF pages, TIFF pages). A page costs about a
    /// second of OCR, so more would not fit in `max_seconds` anyway; a file of thousands of tiny
    /// blank pages, cheap to send, is refused before the first.
    #[serde(default = "default_max_ocr_pages")]
    pub max_ocr_pages: u32,
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
    /// When the engine began this document (not configuration: set by [`Limits::started_now`]).
    #[serde(skip)]
    pub started: Option<Instant>,
}

fn default_max_ocr_pages() -> u32 {
    500
}

impl Limits {
    /// `limit_exceeded` when `pages` must be read by OCR and that is more than `max_ocr_pages`.
    pub fn check_ocr_pages(&self, pages: usize) -> Result<(), ExtractError> {
        match pages > self.max_ocr_pages as usize {
            true => Err(ExtractError::LimitExceeded(format!(
                "more than {} pages to read by OCR, the most allowed for one document \
                 (extraction.limits.max_ocr_pages): send it in smaller files",
                self.max_ocr_pages
            ))),
            false => Ok(()),
        }
    }

    /// These limits with the document's clock started now; a clock already running is kept (an
    /// attachment counts against its message's time).
    pub fn started_now(&self) -> Limits {
        Limits {
            started: Some(self.started.unwrap_or_else(Instant::now)),
            ..self.clone()
        }
    }

    /// Checked between pages, `done` of `pages` `verb` ("recognised", "read"): `limit_exceeded`
    /// naming the pages once the document's time is up, or as soon as the pages so far say the rest
    /// cannot be done in it (a document of many cheap pages fails in seconds, not at the limit).
    pub fn check_pages(&self, done: usize, pages: usize, verb: &str) -> Result<(), ExtractError> {
        let Some(started) = self.started else {
            return Ok(());
        };
        if done >= pages {
            return Ok(());
        }
        let elapsed = started.elapsed().as_secs_f64();
        let allowed = self.max_seconds as f64;
        if elapsed >= allowed {
            return Err(ExtractError::LimitExceeded(format!(
                "{pages} pages, of which {done} were {verb} in the {} s allowed for one document: \
                 send it in smaller files",
                self.max_seconds
            )));
        }
        if done >= PAGES_BEFORE_PROJECTING {
            let each = elapsed / done as f64;
            let needed = each * pages as f64;
            if needed > allowed * 1.25 {
                return Err(ExtractError::LimitExceeded(format!(
                    "{pages} pages at about {each:.2} s each need about {needed:.0} s, more than the \
                     {} s allowed for one document ({done} were {verb}): send it in smaller files",
                    self.max_seconds
                )));
            }
        }
        Ok(())
    }
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            max_bytes: 100 * 1024 * 1024,
            max_pages: 2000,
            max_ocr_pages: default_max_ocr_pages(),
            max_decompressed_bytes: 512 * 1024 * 1024,
            max_xml_depth: 256,
            max_rows: 1_000_000,
            max_attachment_depth: 3,
            max_seconds: 300,
            max_text_bytes: None,
            started: None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    fn begun(seconds_ago: u64, max_seconds: u64) -> Limits {
        Limits {
            max_seconds,
            started: Instant::now().checked_sub(Duration::from_secs(seconds_ago)),
            ..Limits::default()
        }
    }

    #[test]
    fn the_first_pages_say_whether_the_rest_fits_in_the_time() {
        // Four pages in 2 s: 2,000 would need 1,000 s of the 60 allowed.
        let error = begun(2, 60).check_pages(4, 2000, "recognised").unwrap_err();
        assert_eq!(error.code(), "limit_exceeded");
        assert!(error.to_string().contains("2000 pages"), "{error}");
        // Forty would need 20 s: go on. Three pages are too few to tell.
        assert!(begun(2, 60).check_pages(4, 40, "recognised").is_ok());
        assert!(begun(2, 60).check_pages(3, 2000, "recognised").is_ok());
        // Past the time, whatever the pace; an unstarted clock checks nothing.
        assert!(begun(61, 60).check_pages(1, 2, "read").is_err());
        assert!(Limits::default().check_pages(4, 1_000_000, "read").is_ok());
    }

    #[test]
    fn more_pages_than_ocr_may_read_are_refused_naming_the_bound() {
        let limits = Limits::default();
        assert!(limits.check_ocr_pages(500).is_ok());
        let error = limits.check_ocr_pages(501).unwrap_err();
        assert!(error.to_string().contains("max_ocr_pages"), "{error}");
    }
}
