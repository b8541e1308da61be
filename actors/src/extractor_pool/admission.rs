//! Whether a file is a document this service reads, decided before it is queued: by its name (programs
//! and installers are refused outright) and by its bytes (the format they really have). Uploads and
//! connector objects go through the same door.

use crate::error_code::ErrorCode;

use super::{sniff, ExtractError};

/// Extensions of programs and archives: refused by name even before their content is looked at.
const REFUSED_EXTENSIONS: &[&str] = &[
    "exe", "dll", "so", "dylib", "bin", "msi", "com", "bat", "cmd", "sh", "ps1", "apk", "dmg",
    "iso", "jar", "class", "scr", "app", "deb", "rpm",
];

/// Why a file is not queued: a stable code and a sentence.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Refusal {
    pub code: String,
    pub reason: String,
}

impl Refusal {
    pub fn new(code: &str, reason: impl Into<String>) -> Refusal {
        Refusal {
            code: code.to_string(),
            reason: reason.into(),
        }
    }
}

/// The format name and MIME type of a file, or why it is refused.
pub fn admit(name: &str, bytes: &[u8]) -> Result<(&'static str, &'static str), Refusal> {
    let extension = name
        .rsplit_once('.')
        .map(|(_, ext)| ext.to_ascii_lowercase());
    if let Some(extension) = extension.filter(|ext| REFUSED_EXTENSIONS.contains(&ext.as_str())) {
        return Err(Refusal::new(
            ErrorCode::UnsupportedFormat.as_str(),
            format!("files of type .{extension} are not documents this service reads"),
        ));
    }
    match sniff(bytes) {
        Ok((format, _)) => Ok((format.name(), format.mime())),
        // The same code as a preview of an empty file: one name per condition.
        Err(ExtractError::Empty) => Err(Refusal::new(
            ExtractError::Empty.code(),
            "the file is empty",
        )),
        Err(error) => Err(Refusal::new(error.code(), error.to_string())),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn programs_are_refused_by_name_and_text_is_admitted_by_content() {
        assert_eq!(
            admit("setup.EXE", b"hello").unwrap_err().code,
            "unsupported_format"
        );
        assert_eq!(admit("a.txt", b"").unwrap_err().code, "empty_document");
        assert_eq!(admit("notes", b"plain words here").unwrap().0, "txt");
    }
}
