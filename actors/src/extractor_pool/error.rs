//! Why a document could not be extracted. Each variant has a stable code for API errors and jobs.

use crate::error_code::ErrorCode;

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
    /// The code of the table a preview answers with and a job records.
    pub fn error_code(&self) -> ErrorCode {
        match self {
            ExtractError::Empty => ErrorCode::EmptyDocument,
            ExtractError::UnsupportedFormat(_) => ErrorCode::UnsupportedFormat,
            ExtractError::EncryptedDocument => ErrorCode::EncryptedDocument,
            ExtractError::Malformed(_) => ErrorCode::MalformedDocument,
            ExtractError::NoText => ErrorCode::NoText,
            ExtractError::FormatNotAvailable(_) => ErrorCode::FormatNotAvailable,
            ExtractError::LegacyFormat(_) => ErrorCode::LegacyFormat,
            ExtractError::LimitExceeded(_) | ExtractError::TimedOut(_) => ErrorCode::LimitExceeded,
            ExtractError::EngineFailure(_) => ErrorCode::ExtractorFailed,
            ExtractError::Crashed(_) => ErrorCode::ExtractionCrashed,
            ExtractError::ResultTooLarge(_) => ErrorCode::ResultTooLarge,
        }
    }

    pub fn code(&self) -> &'static str {
        self.error_code().as_str()
    }
}

impl From<&ExtractError> for ErrorCode {
    fn from(error: &ExtractError) -> ErrorCode {
        error.error_code()
    }
}
