//! Format detection from content (magic bytes and structure), never from the file name alone.

use std::io::Cursor;

use super::super::error::ExtractError;
use super::compound::{names_somewhere, same_name, Compound};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    Pdf,
    Docx,
    Pptx,
    Xlsx,
    Xls,
    Ods,
    Odt,
    Odp,
    Epub,
    Rtf,
    Doc,
    Ppt,
    Msg,
    Csv,
    Txt,
    Html,
    Xml,
    Eml,
    Png,
    Jpeg,
    Tiff,
}

impl Format {
    /// Every format docsieve reads.
    pub const ALL: [Format; 21] = [
        Format::Pdf,
        Format::Docx,
        Format::Pptx,
        Format::Xlsx,
        Format::Xls,
        Format::Ods,
        Format::Odt,
        Format::Odp,
        Format::Epub,
        Format::Rtf,
        Format::Doc,
        Format::Ppt,
        Format::Msg,
        Format::Csv,
        Format::Txt,
        Format::Html,
        Format::Xml,
        Format::Eml,
        Format::Png,
        Format::Jpeg,
        Format::Tiff,
    ];

    /// The format whose [`name`](Format::name) is `name`.
    pub fn named(name: &str) -> Option<Format> {
        Format::ALL.into_iter().find(|format| format.name() == name)
    }

    pub fn name(self) -> &'static str {
        match self {
            Format::Pdf => "pdf",
            Format::Docx => "docx",
            Format::Pptx => "pptx",
            Format::Xlsx => "xlsx",
            Format::Xls => "xls",
            Format::Ods => "ods",
            Format::Odt => "odt",
            Format::Odp => "odp",
            Format::Epub => "epub",
            Format::Rtf => "rtf",
            Format::Doc => "doc",
            Format::Ppt => "ppt",
            Format::Msg => "msg",
            Format::Csv => "csv",
            Format::Txt => "txt",
            Format::Html => "html",
            Format::Xml => "xml",
            Format::Eml => "eml",
            Format::Png => "png",
            Format::Jpeg => "jpeg",
            Format::Tiff => "tiff",
        }
    }

    pub fn mime(self) -> &'static str {
        match self {
            Format::Pdf => "application/pdf",
            Format::Docx => {
                "application/vnd.openxmlformats-officedocument.wordprocessingml.document"
            }
            Format::Pptx => {
                "application/vnd.openxmlformats-officedocument.presentationml.presentation"
            }
            Format::Xlsx => "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
            Format::Xls => "application/vnd.ms-excel",
            Format::Ods => "application/vnd.oasis.opendocument.spreadsheet",
            Format::Odt => "application/vnd.oasis.opendocument.text",
            Format::Odp => "application/vnd.oasis.opendocument.presentation",
            Format::Epub => "application/epub+zip",
            Format::Rtf => "application/rtf",
            Format::Doc => "application/msword",
            Format::Ppt => "application/vnd.ms-powerpoint",
            Format::Msg => "application/vnd.ms-outlook",
            Format::Csv => "text/csv",
            Format::Txt => "text/plain",
            Format::Html => "text/html",
            Format::Xml => "application/xml",
            Format::Eml => "message/rfc822",
            Format::Png => "image/png",
            Format::Jpeg => "image/jpeg",
            Format::Tiff => "image/tiff",
        }
    }
}

const CFB_MAGIC: &[u8] = &[0xD0, 0xCF, 0x11, 0xE0, 0xA1, 0xB1, 0x1A, 0xE1];

/// What an OLE2 compound file holds, by its streams (their names in any letter case, as the format
/// allows), whatever the file is called: a password-protected OOXML package (`EncryptionInfo` +
/// `EncryptedPackage`: a `.docx`, `.xlsx` or `.pptx` with a password), a legacy Excel, Word or
/// PowerPoint file (`encrypted_document` when its own encryption flag is set), an Outlook message. A
/// container too damaged to open that still
/// names `EncryptionInfo` or `EncryptedPackage` is `encrypted_document`.
fn cfb_format(bytes: &[u8]) -> Result<(Format, Compound<'_>), ExtractError> {
    let file = match Compound::open(bytes) {
        Ok(file) => file,
        Err(_)
            if names_somewhere(bytes, "EncryptionInfo")
                || names_somewhere(bytes, "EncryptedPackage") =>
        {
            return Err(ExtractError::EncryptedDocument)
        }
        Err(error) => return Err(error),
    };
    compound_format(&file).map(|format| (format, file))
}

/// What an opened compound file (or an object embedded in one) is, by its streams: first by the
/// entries at its root (an Outlook item holding a Word document as an OLE object is an Outlook item),
/// then, when a broken directory tree hides them, by any entry of the file.
pub fn compound_format(file: &Compound<'_>) -> Result<Format, ExtractError> {
    let root = file.root_names();
    let at_root = |name: &str| root.iter().any(|n| same_name(n, name));
    let anywhere = |name: &str| file.has(name);
    let message_at_root = root
        .iter()
        .any(|n| n.to_ascii_lowercase().starts_with("__substg1.0_"));
    let message_anywhere = file
        .entries
        .iter()
        .any(|e| e.name.to_ascii_lowercase().starts_with("__substg1.0_"));
    if let Some(kind) = kind_of(file, &at_root, message_at_root) {
        return kind;
    }
    if let Some(kind) = kind_of(file, &anywhere, message_anywhere) {
        return kind;
    }
    Err(ExtractError::UnsupportedFormat(format!(
        "OLE2 compound file of an unknown kind (streams: {})",
        root.join(", ")
    )))
}

/// The kind a compound file's streams (as `has` finds them) give it, if they give one.
fn kind_of(
    file: &Compound<'_>,
    has: &dyn Fn(&str) -> bool,
    message: bool,
) -> Option<Result<Format, ExtractError>> {
    if has("EncryptionInfo") || has("EncryptedPackage") {
        return Some(Err(ExtractError::EncryptedDocument));
    }
    if has("Workbook") || has("Book") {
        let workbook = file
            .stream("Workbook")
            .or_else(|| file.stream("Book"))
            .unwrap_or_default();
        return Some(if has_filepass(&workbook) {
            Err(ExtractError::EncryptedDocument)
        } else {
            Ok(Format::Xls)
        });
    }
    if has("WordDocument") {
        // FibBase.fEncrypted (bit 8) or fObfuscated (bit 15) of the flags at offset 10.
        let fib = file.stream("WordDocument").unwrap_or_default();
        let encrypted = fib.len() >= 12 && u16::from_le_bytes([fib[10], fib[11]]) & 0x8100 != 0;
        return Some(if encrypted {
            Err(ExtractError::EncryptedDocument)
        } else {
            Ok(Format::Doc)
        });
    }
    if has("PowerPoint Document") {
        return Some(if has("EncryptedSummary") {
            Err(ExtractError::EncryptedDocument)
        } else {
            Ok(Format::Ppt)
        });
    }
    message.then_some(Ok(Format::Msg))
}

/// Whether a BIFF workbook stream is encrypted: a FILEPASS record (0x002F: RC4, CryptoAPI RC4 or
/// XOR obfuscation, whatever the password) among the records of its globals, which it follows the BOF
/// of; the records before the first sheet's BOF are looked at.
fn has_filepass(workbook: &[u8]) -> bool {
    let mut at = 0;
    for index in 0..4096 {
        let (Some(kind), Some(length)) = (
            super::compound::u16_at(workbook, at),
            super::compound::u16_at(workbook, at + 2),
        ) else {
            return false;
        };
        match kind {
            0x002F => return true,
            // A BOF (BIFF2-8) after the globals' own: the first sheet's substream.
            0x0009 | 0x0209 | 0x0409 | 0x0809 if index > 0 => return false,
            _ => {}
        }
        at += 4 + length as usize;
    }
    false
}

/// An OLE2 compound file holding `streams` (name, bytes; a name with `/` in it is a stream inside
/// storages): what legacy Office files, Outlook items and encrypted OOXML packages are made of, for
/// tests that need one.
#[cfg(any(test, feature = "test-support"))]
pub fn compound_file(streams: &[(&str, &[u8])]) -> std::io::Result<Vec<u8>> {
    use std::io::Write;
    let mut file = cfb::CompoundFile::create(Cursor::new(Vec::new()))?;
    for (name, bytes) in streams {
        if let Some((storage, _)) = name.rsplit_once('/') {
            file.create_storage_all(format!("/{storage}"))?;
        }
        file.create_stream(format!("/{name}"))?.write_all(bytes)?;
    }
    file.flush()?;
    Ok(file.into_inner().into_inner())
}

/// The content of a package's `mimetype` part when it is stored uncompressed at the start, as the
/// OpenDocument and EPUB specifications ask.
fn package_mimetype(bytes: &[u8]) -> Option<String> {
    let name_length = u16::from_le_bytes(bytes.get(26..28)?.try_into().ok()?) as usize;
    let extra_length = u16::from_le_bytes(bytes.get(28..30)?.try_into().ok()?) as usize;
    if bytes.get(30..30 + name_length)? != b"mimetype" {
        return None;
    }
    let size = u32::from_le_bytes(bytes.get(18..22)?.try_into().ok()?) as usize;
    let start = 30 + name_length + extra_length;
    let content = bytes.get(start..start + size.min(128))?;
    Some(String::from_utf8_lossy(content).trim().to_string())
}

fn zip_format(bytes: &[u8]) -> Result<Format, ExtractError> {
    let archive = zip::ZipArchive::new(Cursor::new(bytes))
        .map_err(|error| ExtractError::Malformed(format!("broken ZIP container: {error}")))?;
    let names: Vec<&str> = archive.file_names().collect();
    if names.iter().any(|n| n.starts_with("word/")) {
        return Ok(Format::Docx);
    }
    if names.iter().any(|n| n.starts_with("ppt/")) {
        return Ok(Format::Pptx);
    }
    if names.iter().any(|n| n.starts_with("xl/")) {
        return Ok(Format::Xlsx);
    }
    // OpenDocument and EPUB packages name their kind in a `mimetype` part, stored first.
    let declared = package_mimetype(bytes);
    if names.contains(&"content.xml") {
        match declared.as_deref() {
            Some(kind) if kind.starts_with("application/vnd.oasis.opendocument.spreadsheet") => {
                return Ok(Format::Ods)
            }
            Some(kind) if kind.starts_with("application/vnd.oasis.opendocument.text") => {
                return Ok(Format::Odt)
            }
            Some(kind) if kind.starts_with("application/vnd.oasis.opendocument.presentation") => {
                return Ok(Format::Odp)
            }
            _ => {}
        }
    }
    if declared.as_deref() == Some("application/epub+zip")
        || names.contains(&"META-INF/container.xml") && names.iter().any(|n| n.ends_with(".opf"))
    {
        return Ok(Format::Epub);
    }
    Err(ExtractError::UnsupportedFormat(
        "ZIP archive that is not an Office document".to_string(),
    ))
}

/// Is this mostly text (after decoding)?
fn looks_textual(text: &str) -> bool {
    let sample: Vec<char> = text.chars().take(4096).collect();
    if sample.is_empty() {
        return false;
    }
    let control = sample
        .iter()
        .filter(|c| c.is_control() && !matches!(c, '\n' | '\r' | '\t' | '\u{c}'))
        .count();
    control * 50 < sample.len()
}

/// Whether `line` is an mbox separator (`From sender@example.com Mon Jan  1 00:00:00 2024`): `From`,
/// a space, and no colon right after the word (which a `From:` header has).
pub fn is_mbox_separator(line: &str) -> bool {
    line.starts_with("From ")
}

fn looks_like_email(text: &str) -> bool {
    let mut headers = 0;
    // A message saved in mbox form opens with its separator line, then its headers.
    let text = text.trim_start_matches('\u{feff}');
    let text = match text.split_once('\n') {
        Some((first, rest)) if is_mbox_separator(first) => rest,
        _ => text,
    };
    for line in text.lines().take(40) {
        if line.is_empty() {
            break;
        }
        if line.starts_with(' ') || line.starts_with('\t') {
            continue;
        }
        let Some((name, _)) = line.split_once(':') else {
            return false;
        };
        let name = name.to_ascii_lowercase();
        if matches!(
            name.as_str(),
            "from"
                | "to"
                | "subject"
                | "date"
                | "received"
                | "mime-version"
                | "message-id"
                | "return-path"
                | "content-type"
        ) {
            headers += 1;
        } else if name.is_empty() || name.contains(' ') {
            return false;
        }
    }
    headers >= 2
}

/// Whether the text is JSON or JSON Lines: it opens with a brace or bracket and closes with one.
fn looks_like_json(text: &str) -> bool {
    let text = text.trim_start_matches('\u{feff}').trim();
    text.starts_with(['{', '[']) && text.ends_with(['}', ']'])
}

/// The delimiter of a CSV, if the lines agree on one.
pub fn csv_delimiter(text: &str) -> Option<u8> {
    // A table needs two records, so two lines: a one-line text (most short messages) is not one, and
    // building readers to find that out cost more than reading it.
    if !text.trim().contains(['\n', '\r']) {
        return None;
    }
    let mut best: Option<(u8, usize)> = None;
    for delimiter in [b',', b';', b'\t', b'|'] {
        // A delimiter the text never uses splits no line: skip building a reader for it (a CSV reader
        // costs more to build than a short text costs to read).
        if memchr::memchr(delimiter, text.as_bytes()).is_none() {
            continue;
        }
        let mut reader = csv::ReaderBuilder::new()
            .delimiter(delimiter)
            .has_headers(false)
            .flexible(true)
            .from_reader(text.as_bytes());
        let mut counts = Vec::new();
        // Lines that read as prose cut at a comma: one ending in the delimiter ("Sehr geehrter Herr
        // Müller,", "Best regards,"), or going on after it with a space and a small letter ("Hi Sarah,
        // thanks for the update.") or with a space and a sentence to its full stop ("Lors de
        // l'audience, Léon Neveu a décrit le retard.").
        let mut prose = 0;
        for record in reader.records().take(30) {
            match record {
                Ok(record) if record.len() > 1 || !record.iter().all(str::is_empty) => {
                    let second = record.get(1).unwrap_or_default();
                    let last = record.get(record.len() - 1).unwrap_or_default();
                    let mut after = second.chars();
                    let spaced = after.next() == Some(' ');
                    let sentence = last.trim_end().ends_with(['.', '!', '?'])
                        && last.trim().matches(' ').count() >= 3;
                    prose += usize::from(
                        record.len() > 1
                            && (last.is_empty()
                                || (spaced
                                    && (sentence || after.next().is_some_and(char::is_lowercase)))),
                    );
                    counts.push(record.len());
                }
                Ok(_) => {}
                Err(_) => break,
            }
        }
        if counts.len() < 2 {
            continue;
        }
        let mut sorted = counts.clone();
        sorted.sort_unstable();
        let typical = sorted[sorted.len() / 2];
        let agreeing = counts.iter().filter(|&&c| c == typical).count();
        // Two "columns" on lines that mostly read as prose are a letter's, not a table's.
        if typical == 2 && prose * 10 >= counts.len() * 6 {
            continue;
        }
        if typical >= 2 && agreeing * 10 >= counts.len() * 6 {
            let score = typical * agreeing;
            if best.is_none_or(|(_, s)| score > s) {
                best = Some((delimiter, score));
            }
        }
    }
    best.map(|(delimiter, _)| delimiter)
}

/// Whether the bytes open as RTF (`{\rtf`, after a byte-order mark or white space).
pub fn is_rtf(bytes: &[u8]) -> bool {
    let bytes = bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(bytes);
    let start = bytes
        .iter()
        .position(|b| !b.is_ascii_whitespace())
        .unwrap_or(bytes.len());
    bytes[start..].starts_with(b"{\\rtf")
}

/// Detects the format of `bytes` (`text` is their decoded form for text formats), with the compound
/// file it opened to tell a legacy Office file or an Outlook item apart, for their readers to go on
/// with rather than parse it again.
pub fn detect_parsed<'a>(
    bytes: &'a [u8],
    text: Option<&str>,
) -> Result<(Format, Option<Compound<'a>>), ExtractError> {
    if bytes.is_empty() || bytes.iter().all(u8::is_ascii_whitespace) {
        return Err(ExtractError::Empty);
    }
    if bytes.starts_with(b"%PDF-")
        || bytes[..bytes.len().min(1024)]
            .windows(5)
            .any(|w| w == b"%PDF-")
    {
        return Ok((Format::Pdf, None));
    }
    if bytes.starts_with(CFB_MAGIC) {
        return cfb_format(bytes).map(|(format, file)| (format, Some(file)));
    }
    detect_uncompound(bytes, text).map(|format| (format, None))
}

/// What is neither a PDF nor a compound file.
fn detect_uncompound(bytes: &[u8], text: Option<&str>) -> Result<Format, ExtractError> {
    if bytes.starts_with(b"PK\x03\x04") {
        return zip_format(bytes);
    }
    if is_rtf(bytes) {
        return Ok(Format::Rtf);
    }
    if bytes.starts_with(b"\x89PNG\r\n\x1a\n") {
        return Ok(Format::Png);
    }
    if bytes.starts_with(&[0xFF, 0xD8, 0xFF]) {
        return Ok(Format::Jpeg);
    }
    if bytes.starts_with(b"II*\0") || bytes.starts_with(b"MM\0*") {
        return Ok(Format::Tiff);
    }
    if bytes.starts_with(&[0x1F, 0x8B]) {
        return Err(ExtractError::UnsupportedFormat(
            "gzip-compressed data".to_string(),
        ));
    }
    let Some(text) = text.filter(|t| looks_textual(t)) else {
        return Err(ExtractError::UnsupportedFormat(
            "binary data of an unknown kind".to_string(),
        ));
    };
    let head: String = text
        .trim_start_matches('\u{feff}')
        .trim_start()
        .chars()
        .take(2048)
        .collect::<String>()
        .to_ascii_lowercase();
    if head.starts_with("<!doctype html")
        || head.starts_with("<html")
        || (head.starts_with('<')
            && (head.contains("<html")
                || head.contains("<body")
                || head.contains("<head>")
                || head.contains("<table")
                || head.contains("<div")
                || head.contains("<p>")))
            && !head.starts_with("<?xml")
    {
        return Ok(Format::Html);
    }
    if head.starts_with("<?xml") || head.starts_with('<') {
        if head.contains("<html") && !head.contains("<invoice") {
            return Ok(Format::Html);
        }
        return Ok(Format::Xml);
    }
    if looks_like_email(text) {
        return Ok(Format::Eml);
    }
    // The commas of SQL and JSON separate values inside statements and records, not a table's
    // columns: read as a CSV, a dump's statements or a JSON Lines file's records came out cut into
    // cells, their commas turned to tabs.
    if !starts_as_sql(text) && !looks_like_json(text) && csv_delimiter(text).is_some() {
        return Ok(Format::Csv);
    }
    Ok(Format::Txt)
}

/// Whether the text is SQL (a dump, a migration): its first statement, after comments, begins with
/// a statement's keyword.
pub fn starts_as_sql(text: &str) -> bool {
    const KEYWORDS: [&str; 16] = [
        "alter", "begin", "copy", "create", "delete", "drop", "grant", "insert", "lock", "pragma",
        "replace", "select", "set", "start", "update", "use",
    ];
    let mut rest = text.trim_start_matches('\u{feff}');
    loop {
        rest = rest.trim_start();
        if rest.starts_with("--") || rest.starts_with('#') {
            rest = rest.split_once('\n').map_or("", |(_, after)| after);
        } else if rest.starts_with("/*") && !rest.starts_with("/*!") {
            rest = rest.split_once("*/").map_or("", |(_, after)| after);
        } else {
            break;
        }
    }
    // MySQL's versioned comments (`/*!40101 SET NAMES utf8mb4 */;`) are statements.
    if let Some(versioned) = rest.strip_prefix("/*!") {
        rest = versioned
            .trim_start_matches(|c: char| c.is_ascii_digit())
            .trim_start();
    }
    // The words after the keyword that make a statement of it, where its line does not end as one
    // (`CREATE TABLE t (` over several lines): a CSV's header may begin "Start Date,End Date" or
    // "Create Date,Amount".
    const SECOND: [&str; 16] = [
        "table",
        "into",
        "index",
        "view",
        "schema",
        "database",
        "sequence",
        "type",
        "function",
        "extension",
        "unique",
        "or",
        "temp",
        "temporary",
        "ignore",
        "if",
    ];
    let first_word = |text: &str| -> (usize, bool) {
        let end = text
            .find(|c: char| !c.is_ascii_alphabetic())
            .unwrap_or(text.len());
        (end, text[end..].starts_with(char::is_whitespace))
    };
    let (word_end, spaced) = first_word(rest);
    let word = &rest[..word_end];
    if !spaced || !KEYWORDS.iter().any(|k| word.eq_ignore_ascii_case(k)) {
        return false;
    }
    let line = rest.split('\n').next().unwrap_or_default().trim_end();
    let after = rest[word_end..].trim_start();
    let second = &after[..first_word(after).0];
    line.ends_with(';') || SECOND.iter().any(|k| second.eq_ignore_ascii_case(k))
}

#[cfg(test)]
mod tests;
