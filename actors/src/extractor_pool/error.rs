//! Why a document could not be extracted. Each variant has a stable code for API errors and jobs.

#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error, serde::Serialize, serde::Deserialize)]
pub enum ExtractError {
    #[error("the file is empty")]
    Empty,
    #[error("unsupported format: {0}")]
    UnsupportedFormat(String),
    #[error("the document is password-protected or encrypted")]
    EncryptedDocument,
    #[error("the document is damaged or not what it claims to be: {0}")]
    Malformed(String),
    #[error("the document has no extractable text")]
    NoText,
    #[error("{0} extraction is not available in this version yet")]
    FormatNotAvailable(String),
    /// An Office 97-2003 file docsieve does not read (the format is named).
    #[error("a legacy {0}, which docsieve does not read: save it in the current format (.docx, .pptx) and send it again")]
    LegacyFormat(String),
    #[error("the document exceeds a limit: {0}")]
    LimitExceeded(String),
    /// The reader did not stop by itself within the document's time: its worker was killed. A job
    /// reads it once more in a worker of its own (the first overrun may have been a crowded machine).
    #[error("the document exceeds a limit: {0}")]
    TimedOut(String),
    #[error("the extractor failed on this document: {0}")]
    EngineFailure(String),
    /// The worker process reading the document died (a crash, an abort, the memory or CPU limit).
    #[error("the extraction worker died while reading this document: {0}")]
    Crashed(String),
    /// The document is readable, but its text is larger than the caller accepts (a preview's bound).
    #[error("the extracted text is too large for this request: {0}")]
    ResultTooLarge(String),
}

impl ExtractError {
    pub fn code(&self) -> &'static str {
        match self {
            ExtractError::Empty => "empty_document",
            ExtractError::UnsupportedFormat(_) => "unsupported_format",
            ExtractError::EncryptedDocument => "encrypted_document",
            ExtractError::Malformed(_) => "malformed_document",
            ExtractError::NoText => "no_text",
            ExtractError::FormatNotAvailable(_) => "format_not_available",
            ExtractError::LegacyFormat(_) => "legacy_format",
            ExtractError::LimitExceeded(_) | ExtractError::TimedOut(_) => "limit_exceeded",
            ExtractError::EngineFailure(_) => "extractor_failed",
            ExtractError::Crashed(_) => "extraction_crashed",
            ExtractError::ResultTooLarge(_) => "result_too_large",
        }
    }
}
