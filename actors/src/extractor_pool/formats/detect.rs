//! Format detection from content (magic bytes and structure), never from the file name alone.

use std::io::Cursor;

use super::super::error::ExtractError;
use super::compound::{names_somewhere, Compound};

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
fn cfb_format(bytes: &[u8]) -> Result<Format, ExtractError> {
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
    let has = |name: &str| file.has(name);
    if has("EncryptionInfo") || has("EncryptedPackage") {
        return Err(ExtractError::EncryptedDocument);
    }
    if has("Workbook") || has("Book") {
        return Ok(Format::Xls);
    }
    if has("WordDocument") {
        // FibBase.fEncrypted (bit 8) or fObfuscated (bit 15) of the flags at offset 10.
        let fib = file.stream("WordDocument").unwrap_or_default();
        let encrypted = fib.len() >= 12 && u16::from_le_bytes([fib[10], fib[11]]) & 0x8100 != 0;
        return if encrypted {
            Err(ExtractError::EncryptedDocument)
        } else {
            Ok(Format::Doc)
        };
    }
    if has("PowerPoint Document") {
        return if has("EncryptedSummary") {
            Err(ExtractError::EncryptedDocument)
        } else {
            Ok(Format::Ppt)
        };
    }
    if file
        .entries
        .iter()
        .any(|e| e.name.to_ascii_lowercase().starts_with("__substg1.0_"))
    {
        return Ok(Format::Msg);
    }
    Err(ExtractError::UnsupportedFormat(format!(
        "OLE2 compound file of an unknown kind (streams: {})",
        file.root_names().join(", ")
    )))
}

/// An OLE2 compound file holding `streams` (name, bytes): what legacy Office files and encrypted
/// OOXML packages are made of, for tests that need one.
#[cfg(any(test, feature = "test-support"))]
pub fn compound_file(streams: &[(&str, &[u8])]) -> std::io::Result<Vec<u8>> {
    use std::io::Write;
    let mut file = cfb::CompoundFile::create(Cursor::new(Vec::new()))?;
    for (name, bytes) in streams {
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
        // Müller,", "Best regards,") or going on after it with a space and a small letter ("Hi Sarah,
        // thanks for the update.").
        let mut prose = 0;
        for record in reader.records().take(30) {
            match record {
                Ok(record) if record.len() > 1 || !record.iter().all(str::is_empty) => {
                    let second = record.get(1).unwrap_or_default();
                    let mut after = second.chars();
                    prose += usize::from(
                        record.len() > 1
                            && (record.get(record.len() - 1).is_some_and(str::is_empty)
                                || (after.next() == Some(' ')
                                    && after.next().is_some_and(char::is_lowercase))),
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

/// Detects the format of `bytes`; `text` is their decoded form for text formats.
pub fn detect(bytes: &[u8], text: Option<&str>) -> Result<Format, ExtractError> {
    if bytes.is_empty() || bytes.iter().all(u8::is_ascii_whitespace) {
        return Err(ExtractError::Empty);
    }
    if bytes.starts_with(b"%PDF-")
        || bytes[..bytes.len().min(1024)]
            .windows(5)
            .any(|w| w == b"%PDF-")
    {
        return Ok(Format::Pdf);
    }
    if bytes.starts_with(b"PK\x03\x04") {
        return zip_format(bytes);
    }
    if is_rtf(bytes) {
        return Ok(Format::Rtf);
    }
    if bytes.starts_with(CFB_MAGIC) {
        return cfb_format(bytes);
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
mod tests {
    use super::*;

    fn format_of(text: &str) -> Format {
        detect(text.as_bytes(), Some(text)).expect("a format")
    }

    /// A table needs two records: one line (with or without its line break) is never one, whatever
    /// its delimiters; two lines of the same columns are, with `\n`, `\r\n` or a bare `\r`.
    #[test]
    fn one_line_is_never_a_table() {
        for one in [
            "a,b,c",
            "a;b;c\n",
            "  a|b|c\r\n\n",
            "Sipariş 1: tutar 1000,50 TL; teslimat 3 gün.\n",
        ] {
            assert_eq!(csv_delimiter(one), None, "{one:?}");
        }
        for two in ["a,b,c\n1,2,3\n", "a;b;c\r\n1;2;3", "a|b|c\r1|2|3\r"] {
            assert!(csv_delimiter(two).is_some(), "{two:?}");
        }
    }

    /// SQL statements and JSON are text: their commas separate values, not columns.
    #[test]
    fn sql_statements_and_json_are_text() {
        for sql in [
            "CREATE TABLE musteri (tc TEXT, ad TEXT, soyad TEXT);\nINSERT INTO musteri VALUES('1','Ayşe','Kaya');\nINSERT INTO musteri VALUES('2','Ali','Veli');\n",
            "-- dump\n\ninsert into t (a, b, c) values (1, 2, 3);\ninsert into t (a, b, c) values (4, 5, 6);\n",
            "/*!40101 SET NAMES utf8mb4 */;\nINSERT INTO `t` VALUES (1,'a','b'),(2,'c','d');\nINSERT INTO `t` VALUES (3,'e','f');\n",
        ] {
            assert_eq!(format_of(sql), Format::Txt, "{sql}");
        }
        // JSON Lines and pretty-printed JSON are text too.
        for json in [
            "{\"id\": 1, \"name\": \"Ayşe\", \"city\": \"Ankara\"}\n{\"id\": 2, \"name\": \"Ali\", \"city\": \"İzmir\"}\n",
            "{\n  \"values\": [\n    [\"a\", \"b\", \"c\"],\n    [\"d\", \"e\", \"f\"],\n    [\"g\", \"h\", \"i\"]\n  ]\n}\n",
        ] {
            assert_eq!(format_of(json), Format::Txt, "{json}");
        }
        // A CSV whose first column happens to hold such a word is still a CSV.
        assert_eq!(format_of("update,count,total\nA,1,2\nB,3,4\n"), Format::Csv);
        for csv in [
            "Start Date,End Date,Amount\n2024-01-01,2024-02-01,10\n2024-03-01,2024-04-01,20\n",
            "Create Date,Customer,Amount\n2024-01-01,Ayşe,10\n2024-03-01,Ali,20\n",
            "Set Name;Count;Owner\nA;1;x\nB;2;y\n",
        ] {
            assert_eq!(format_of(csv), Format::Csv, "{csv}");
        }
    }

    /// A letter whose lines end with a comma, or go on after one, is text: read as a two-column CSV,
    /// its commas came out as tabs (`docsieve mask letter.txt` changed the letter's punctuation).
    #[test]
    fn a_letter_with_commas_is_text() {
        let letter = "Sehr geehrter Herr Müller,\nSehr geehrte Frau Schneider,\nGeachte heer Jansen,\n\
                      Hi Sarah, thanks for the update.\nThanks, John\nBest regards,\nMehmet Yılmaz\n\
                      Saygılarımla,\nAyşe Kaya\n";
        assert_eq!(format_of(letter), Format::Txt);
    }

    /// Tables stay tables, two columns included, with or without a space after the delimiter.
    #[test]
    fn tables_of_two_columns_and_more_stay_csv() {
        for table in [
            "name,phone\nAyşe,0532 123 45 67\nMehmet,0533 765 43 21\n",
            "Ad, Telefon\nAyşe, 0532 123 45 67\nMehmet, 0533 765 43 21\n",
            "id;name;amount\n1;Kalem;12,50\n2;Defter;30,00\n",
            "a\tb\n1\t2\n3\t4\n",
        ] {
            assert_eq!(format_of(table), Format::Csv, "{table}");
        }
    }
}

#[cfg(test)]
mod cfb_tests {
    use super::*;

    fn compound(streams: &[(&str, &[u8])]) -> Vec<u8> {
        compound_file(streams).expect("compound file")
    }

    /// A Word FIB's first bytes with `flags` at offset 10.
    fn fib(flags: u16) -> Vec<u8> {
        let mut fib = vec![0xEC, 0xA5, 0xC1, 0x00];
        fib.resize(10, 0);
        fib.extend(flags.to_le_bytes());
        fib.resize(512, 0);
        fib
    }

    #[test]
    fn compound_files_are_told_apart_by_their_streams() {
        let encrypted_ooxml = compound(&[
            ("EncryptionInfo", &[4, 0, 4, 0, 0x40, 0, 0, 0]),
            ("EncryptedPackage", &[0; 600]),
        ]);
        assert_eq!(
            detect(&encrypted_ooxml, None),
            Err(ExtractError::EncryptedDocument)
        );
        let word = compound(&[("WordDocument", &fib(0)), ("1Table", &[0; 64])]);
        assert_eq!(detect(&word, None), Ok(Format::Doc));
        let locked_word = compound(&[("WordDocument", &fib(0x0100)), ("1Table", &[0; 64])]);
        assert_eq!(
            detect(&locked_word, None),
            Err(ExtractError::EncryptedDocument)
        );
        let slides = compound(&[
            ("PowerPoint Document", &[0; 64]),
            ("Current User", &[0; 16]),
        ]);
        assert_eq!(detect(&slides, None), Ok(Format::Ppt));
        let obfuscated_word = compound(&[("WordDocument", &fib(0x8000)), ("1Table", &[0; 64])]);
        assert_eq!(
            detect(&obfuscated_word, None),
            Err(ExtractError::EncryptedDocument)
        );
        assert_eq!(
            detect(&compound(&[("__substg1.0_0037001F", &[0x41, 0])]), None),
            Ok(Format::Msg)
        );
        // Stream names in another letter case are the same streams.
        let lower = compound(&[("encryptioninfo", &[4, 0]), ("encryptedpackage", &[0; 600])]);
        assert_eq!(detect(&lower, None), Err(ExtractError::EncryptedDocument));
        let locked_slides = compound(&[
            ("PowerPoint Document", &[0; 64]),
            ("EncryptedSummary", &[0; 16]),
        ]);
        assert_eq!(
            detect(&locked_slides, None),
            Err(ExtractError::EncryptedDocument)
        );
        assert_eq!(
            detect(&compound(&[("Workbook", &[0; 64])]), None),
            Ok(Format::Xls)
        );
        assert!(matches!(
            detect(&compound(&[("Something", &[1; 8])]), None),
            Err(ExtractError::UnsupportedFormat(_))
        ));
        // A header that does not parse (an impossible sector size): the stream names still show.
        let mut damaged = encrypted_ooxml.clone();
        damaged[30] = 0x7F;
        assert_eq!(
            detect(&damaged, None),
            Err(ExtractError::EncryptedDocument),
            "named in a damaged file"
        );
        damaged = word.clone();
        damaged.truncate(600);
        assert!(matches!(
            detect(&damaged, None),
            Err(ExtractError::Malformed(_))
        ));
    }
}
