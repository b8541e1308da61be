//! RTF: control words, groups and destinations read by a small state machine of our own. Text comes
//! from the body and from fields' results; font, colour, style and list tables, pictures, objects'
//! data, fields' instructions and every `{\*\...}` destination it does not know are skipped. Bytes
//! (`\'hh` and 8-bit text) are decoded with the code page of the font in use (`\fcharset162`: Turkish,
//! windows-1254) or of the document (`\ansicpg`), `\uN` as Unicode with its `\ucN` fallback skipped.
//! Paragraphs in tables (`\intbl`) become cells (`\cell`) of rows (`\row`); a paragraph whose style is
//! a heading (`heading 1`..., by the style sheet's names) or that has an outline level is a heading.

use std::collections::HashMap;

use encoding_rs::Encoding;

use super::super::error::ExtractError;
use super::super::limits::Limits;
use crate::model::{Builder, Element, ElementKind};

/// The encoding of a Windows code page (`\ansicpg`, `\cpg`), windows-1252 for the unknown ones.
pub(crate) fn code_page(number: i32) -> &'static Encoding {
    match number {
        874 => encoding_rs::WINDOWS_874,
        932 => encoding_rs::SHIFT_JIS,
        936 => encoding_rs::GBK,
        949 => encoding_rs::EUC_KR,
        950 => encoding_rs::BIG5,
        1250 => encoding_rs::WINDOWS_1250,
        1251 => encoding_rs::WINDOWS_1251,
        1253 => encoding_rs::WINDOWS_1253,
        1254 => encoding_rs::WINDOWS_1254,
        1255 => encoding_rs::WINDOWS_1255,
        1256 => encoding_rs::WINDOWS_1256,
        1257 => encoding_rs::WINDOWS_1257,
        1258 => encoding_rs::WINDOWS_1258,
        10000 => encoding_rs::MACINTOSH,
        65001 => encoding_rs::UTF_8,
        _ => encoding_rs::WINDOWS_1252,
    }
}

/// The code page of a font's `\fcharset`, when it implies one.
fn charset_code_page(charset: i32) -> Option<i32> {
    Some(match charset {
        128 => 932,
        129 => 949,
        134 => 936,
        136 => 950,
        161 => 1253,
        162 => 1254,
        163 => 1258,
        177 => 1255,
        178 => 1256,
        186 => 1257,
        204 => 1251,
        222 => 874,
        238 => 1250,
        77 => 10000,
        _ => return None,
    })
}

/// Destinations whose text is not the document's.
const SKIPPED: &[&str] = &[
    "fonttbl",
    "colortbl",
    "stylesheet",
    "info",
    "pict",
    "objdata",
    "themedata",
    "colorschememapping",
    "datastore",
    "latentstyles",
    "listtable",
    "listoverridetable",
    "rsidtbl",
    "generator",
    "xmlnstbl",
    "mmathPr",
    "fldinst",
    "filetbl",
    "revtbl",
    "pgdsctbl",
    "bkmkstart",
    "bkmkend",
    "xe",
    "tc",
    "txe",
    "template",
    "nonshppict",
    "shpinst",
    "listtext",
    "pntext",
    "pntxta",
    "pntxtb",
    "defchp",
    "defpap",
    "wgrffmtfilter",
    "passwordhash",
    "protusertbl",
];

/// Where the text of the current group goes.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Sink {
    Body,
    Skip,
    FontTable,
    StyleSheet,
    Info(InfoField),
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum InfoField {
    None,
    Title,
    Author,
    Subject,
}

#[derive(Clone, Copy)]
struct Group {
    sink: Sink,
    uc: usize,
    encoding: &'static Encoding,
    font: i32,
    style: i32,
    heading: Option<u8>,
    in_table: bool,
    /// Whether the paragraph is a list's item (`\ls` names its list), and its level (`\ilvl`).
    list: bool,
    list_level: u8,
}

struct Reader<'b> {
    builder: &'b mut Builder,
    stack: Vec<Group>,
    group: Group,
    pending: Vec<u8>,
    paragraph: String,
    cell: String,
    row: Vec<String>,
    rows: Vec<Vec<String>>,
    document_code_page: i32,
    default_font: i32,
    /// Font number -> code page (from `\fcharset` or `\cpg`).
    fonts: HashMap<i32, i32>,
    font_being_defined: i32,
    /// Style number -> heading level (0: title).
    styles: HashMap<i32, u8>,
    style_being_defined: i32,
    style_name: String,
    info: Vec<(InfoField, String)>,
    skip_fallback: usize,
    /// The first half of a UTF-16 surrogate pair written as two `\u`.
    high_surrogate: Option<u16>,
}

impl Reader<'_> {
    fn encoding_of_font(&self, font: i32) -> &'static Encoding {
        code_page(
            self.fonts
                .get(&font)
                .copied()
                .unwrap_or(self.document_code_page),
        )
    }

    /// The bytes gathered so far, decoded with the group's code page, onto the current text.
    fn flush_bytes(&mut self) {
        if self.pending.is_empty() {
            return;
        }
        let (text, _, _) = self.group.encoding.decode(&self.pending);
        let text = text.into_owned();
        self.pending.clear();
        self.push_str(&text);
    }

    fn push_str(&mut self, text: &str) {
        match self.group.sink {
            Sink::Body => {
                if self.group.in_table {
                    self.cell.push_str(text)
                } else {
                    self.paragraph.push_str(text)
                }
            }
            Sink::StyleSheet => self.style_name.push_str(text),
            Sink::Info(field) if field != InfoField::None => {
                if let Some((_, value)) = self.info.last_mut().filter(|(f, _)| *f == field) {
                    value.push_str(text);
                } else {
                    self.info.push((field, text.to_string()));
                }
            }
            _ => {}
        }
    }

    fn push_char(&mut self, c: char) {
        self.flush_bytes();
        let mut buffer = [0u8; 4];
        self.push_str(c.encode_utf8(&mut buffer));
    }

    fn byte(&mut self, byte: u8) {
        if self.skip_fallback > 0 {
            self.skip_fallback -= 1;
            return;
        }
        if matches!(
            self.group.sink,
            Sink::Body | Sink::StyleSheet | Sink::Info(_)
        ) {
            self.pending.push(byte);
        }
    }

    fn end_paragraph(&mut self) {
        self.flush_bytes();
        if self.group.in_table {
            self.cell.push('\n');
            return;
        }
        let text = std::mem::take(&mut self.paragraph);
        let text = text.trim();
        if !self.rows.is_empty() || !self.row.is_empty() {
            self.finish_table();
        }
        if text.is_empty() {
            return;
        }
        let (kind, level) = match self.group.heading {
            Some(0) => (ElementKind::Title, None),
            Some(level) => (ElementKind::Heading, Some(level)),
            None if self.group.list => (ElementKind::ListItem, Some(self.group.list_level + 1)),
            None => (ElementKind::Paragraph, None),
        };
        self.builder.push(Element {
            level,
            ..Element::new(kind, text)
        });
    }

    fn end_cell(&mut self) {
        self.flush_bytes();
        let cell = std::mem::take(&mut self.cell);
        self.row.push(cell.trim().to_string());
    }

    fn end_row(&mut self) {
        self.flush_bytes();
        if !self.cell.trim().is_empty() {
            self.end_cell();
        }
        self.cell.clear();
        let row = std::mem::take(&mut self.row);
        if row.iter().any(|cell| !cell.is_empty()) {
            self.rows.push(row);
        }
    }

    fn finish_table(&mut self) {
        if !self.row.is_empty() {
            self.end_row();
        }
        let rows = std::mem::take(&mut self.rows);
        self.builder.push_rows(rows, 2, None);
    }

    fn control(&mut self, word: &str, parameter: Option<i32>, ignorable: bool) {
        // A destination: the word that opens a group decides where its text goes.
        if SKIPPED.contains(&word) {
            self.flush_bytes();
            self.group.sink = match word {
                "fonttbl" => Sink::FontTable,
                "stylesheet" => Sink::StyleSheet,
                "info" => Sink::Info(InfoField::None),
                _ => Sink::Skip,
            };
            return;
        }
        if let Sink::Info(_) = self.group.sink {
            let field = match word {
                "title" => Some(InfoField::Title),
                "author" => Some(InfoField::Author),
                "subject" => Some(InfoField::Subject),
                _ => None,
            };
            if let Some(field) = field {
                self.group.sink = Sink::Info(field);
                return;
            }
        }
        if ignorable && !matches!(word, "fldrslt" | "shptxt" | "ud" | "upr") {
            // {\*\unknown ...}: skipped whole, as the specification asks.
            self.flush_bytes();
            self.group.sink = Sink::Skip;
            return;
        }
        match word {
            "ansicpg" => self.document_code_page = parameter.unwrap_or(1252),
            "mac" => self.document_code_page = 10000,
            "deff" => self.default_font = parameter.unwrap_or(0),
            "f" => {
                let font = parameter.unwrap_or(0);
                match self.group.sink {
                    Sink::FontTable => self.font_being_defined = font,
                    _ => {
                        self.flush_bytes();
                        self.group.font = font;
                        self.group.encoding = self.encoding_of_font(font);
                    }
                }
            }
            "fcharset" if self.group.sink == Sink::FontTable => {
                if let Some(page) = parameter.and_then(charset_code_page) {
                    self.fonts.insert(self.font_being_defined, page);
                }
            }
            "cpg" if self.group.sink == Sink::FontTable => {
                if let Some(page) = parameter {
                    self.fonts.insert(self.font_being_defined, page);
                }
            }
            "s" => match self.group.sink {
                Sink::StyleSheet => {
                    self.style_being_defined = parameter.unwrap_or(0);
                    self.style_name.clear();
                }
                _ => {
                    self.group.style = parameter.unwrap_or(0);
                    self.group.heading = self.styles.get(&self.group.style).copied();
                }
            },
            "outlinelevel" => {
                let level = parameter.unwrap_or(9);
                if (0..9).contains(&level) {
                    self.group.heading = Some(level as u8 + 1);
                }
            }
            "ls" if self.group.sink == Sink::Body => self.group.list = parameter.unwrap_or(0) > 0,
            "ilvl" if self.group.sink == Sink::Body => {
                self.group.list_level = parameter.unwrap_or(0).clamp(0, 8) as u8
            }
            "uc" => self.group.uc = parameter.unwrap_or(1).clamp(0, 8) as usize,
            "u" => {
                self.flush_bytes();
                let unit = parameter.unwrap_or(0);
                let unit = if unit < 0 { unit + 65536 } else { unit } as u32;
                self.unicode(unit as u16);
                self.skip_fallback = self.group.uc;
            }
            "par" | "sect" => self.end_paragraph(),
            "page" => {
                self.end_paragraph();
            }
            "pard" => {
                self.flush_bytes();
                self.group.in_table = false;
                self.group.list = false;
                self.group.list_level = 0;
                self.group.style = 0;
                self.group.heading = self.styles.get(&0).copied();
            }
            "plain" => {
                self.flush_bytes();
                let font = self.default_font;
                self.group.font = font;
                self.group.encoding = self.encoding_of_font(font);
            }
            "intbl" => {
                self.flush_bytes();
                // Text already gathered outside the table ends its paragraph first.
                if !self.paragraph.trim().is_empty() {
                    self.end_paragraph();
                }
                self.group.in_table = true;
            }
            "cell" | "nestcell" => self.end_cell(),
            "row" | "nestrow" => self.end_row(),
            "line" => self.push_char('\n'),
            "tab" => self.push_char('\t'),
            "emdash" => self.push_char('—'),
            "endash" => self.push_char('–'),
            "bullet" => self.push_char('•'),
            "lquote" => self.push_char('‘'),
            "rquote" => self.push_char('’'),
            "ldblquote" => self.push_char('“'),
            "rdblquote" => self.push_char('”'),
            "emspace" | "enspace" | "qmspace" => self.push_char(' '),
            _ => {}
        }
    }

    fn unicode(&mut self, unit: u16) {
        if (0xD800..0xDC00).contains(&unit) {
            self.high_surrogate = Some(unit);
            return;
        }
        let c = match self.high_surrogate.take() {
            Some(high) if (0xDC00..0xE000).contains(&unit) => {
                char::decode_utf16([high, unit]).next().and_then(Result::ok)
            }
            _ => char::from_u32(u32::from(unit)),
        };
        self.push_char(c.unwrap_or('\u{FFFD}'));
    }

    fn open_group(&mut self, max_depth: usize) -> Result<(), ExtractError> {
        self.flush_bytes();
        if self.stack.len() >= max_depth {
            return Err(ExtractError::LimitExceeded(format!(
                "RTF groups nested deeper than {max_depth}"
            )));
        }
        self.stack.push(self.group);
        Ok(())
    }

    fn close_group(&mut self) {
        self.flush_bytes();
        let closing = self.group;
        if closing.sink == Sink::StyleSheet
            && self
                .stack
                .last()
                .is_some_and(|g| g.sink == Sink::StyleSheet)
        {
            let name = self
                .style_name
                .trim()
                .trim_end_matches(';')
                .trim()
                .to_lowercase();
            let level = if name == "title" {
                Some(0)
            } else {
                name.strip_prefix("heading ")
                    .and_then(|n| n.trim().parse::<u8>().ok())
                    .filter(|n| (1..=9).contains(n))
            };
            if let Some(level) = level {
                self.styles.insert(self.style_being_defined, level);
            }
            self.style_name.clear();
        }
        if let Some(group) = self.stack.pop() {
            self.group = group;
        }
    }
}

pub fn extract(bytes: &[u8], limits: &Limits, builder: &mut Builder) -> Result<(), ExtractError> {
    let mut reader = Reader {
        builder,
        stack: Vec::new(),
        group: Group {
            sink: Sink::Body,
            uc: 1,
            encoding: encoding_rs::WINDOWS_1252,
            font: 0,
            style: 0,
            heading: None,
            in_table: false,
            list: false,
            list_level: 0,
        },
        pending: Vec::new(),
        paragraph: String::new(),
        cell: String::new(),
        row: Vec::new(),
        rows: Vec::new(),
        document_code_page: 1252,
        default_font: 0,
        fonts: HashMap::new(),
        font_being_defined: 0,
        styles: HashMap::new(),
        style_being_defined: 0,
        style_name: String::new(),
        info: Vec::new(),
        skip_fallback: 0,
        high_surrogate: None,
    };
    let mut at = 0;
    let mut ignorable = false;
    while at < bytes.len() {
        let byte = bytes[at];
        match byte {
            b'{' => {
                reader.skip_fallback = 0;
                reader.open_group(limits.max_xml_depth)?;
                at += 1;
            }
            b'}' => {
                reader.skip_fallback = 0;
                reader.close_group();
                at += 1;
            }
            b'\r' | b'\n' => at += 1,
            b'\\' => {
                let next = bytes.get(at + 1).copied().unwrap_or(b' ');
                if next.is_ascii_alphabetic() {
                    let start = at + 1;
                    let mut end = start;
                    while end < bytes.len() && end - start < 32 && bytes[end].is_ascii_alphabetic()
                    {
                        end += 1;
                    }
                    let word = std::str::from_utf8(&bytes[start..end]).unwrap_or_default();
                    let mut parameter_end = end;
                    if bytes.get(parameter_end) == Some(&b'-') {
                        parameter_end += 1;
                    }
                    while parameter_end < bytes.len()
                        && parameter_end - end < 11
                        && bytes[parameter_end].is_ascii_digit()
                    {
                        parameter_end += 1;
                    }
                    let parameter = std::str::from_utf8(&bytes[end..parameter_end])
                        .ok()
                        .and_then(|p| p.parse::<i64>().ok())
                        .map(|p| p.clamp(i64::from(i32::MIN), i64::from(i32::MAX)) as i32);
                    at = parameter_end;
                    // One space after a control word belongs to it.
                    if bytes.get(at) == Some(&b' ') {
                        at += 1;
                    }
                    if word == "bin" {
                        let skip = parameter.unwrap_or(0).max(0) as usize;
                        at = at.saturating_add(skip).min(bytes.len());
                        continue;
                    }
                    if reader.skip_fallback > 0 && word != "u" {
                        // A control word in \u's fallback counts as one character.
                        reader.skip_fallback -= 1;
                        continue;
                    }
                    reader.control(word, parameter, ignorable);
                    ignorable = false;
                } else {
                    at += 2;
                    match next {
                        b'\'' => {
                            let hex = bytes
                                .get(at..at + 2)
                                .and_then(|h| std::str::from_utf8(h).ok());
                            if let Some(value) = hex.and_then(|h| u8::from_str_radix(h, 16).ok()) {
                                reader.byte(value);
                                at += 2;
                            }
                        }
                        b'*' => ignorable = true,
                        b'~' => reader.push_char('\u{a0}'),
                        b'_' => reader.push_char('-'),
                        b'-' => {}
                        b'\r' | b'\n' => reader.control("par", None, false),
                        b'{' | b'}' | b'\\' => reader.byte(next),
                        _ => {}
                    }
                }
            }
            _ => {
                // Plain text runs up to the next special character.
                let end = bytes[at..]
                    .iter()
                    .position(|b| matches!(b, b'{' | b'}' | b'\\' | b'\r' | b'\n'))
                    .map_or(bytes.len(), |p| at + p);
                for &b in &bytes[at..end] {
                    reader.byte(b);
                }
                at = end;
            }
        }
    }
    reader.flush_bytes();
    reader.group.in_table = false;
    reader.end_paragraph();
    reader.finish_table();
    for (field, value) in std::mem::take(&mut reader.info) {
        let value = value.trim().to_string();
        if value.is_empty() {
            continue;
        }
        match field {
            InfoField::Title => reader.builder.document.metadata.title = Some(value.clone()),
            InfoField::Author => reader.builder.document.metadata.author = Some(value.clone()),
            _ => {}
        }
        let key = match field {
            InfoField::Title => "rtf.title",
            InfoField::Author => "rtf.author",
            InfoField::Subject => "rtf.subject",
            InfoField::None => continue,
        };
        reader.builder.field(key, value);
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(rtf: &str) -> crate::model::Document {
        let mut builder = Builder::default();
        extract(rtf.as_bytes(), &Limits::default(), &mut builder).expect("read");
        builder.finish()
    }

    #[test]
    fn turkish_text_by_code_page_unicode_and_fallbacks() {
        let document = read(concat!(
            r"{\rtf1\ansi\ansicpg1252\deff0{\fonttbl{\f0\fswiss Arial;}{\f1\fnil\fcharset162 Tahoma;}}",
            r"{\colortbl;\red0\green0\blue0;}{\info{\title Dilek\'e7e}{\author Ay\u351?e}}",
            r"\pard\f1 Say\'fdn \'deirket, T.C. kimlik no 10000000146.\par",
            r"\pard\f0\uc1 G\u252?le g\u252?le \u-10179?\u-8694?\'e9t\'e9\par",
            r"{\*\generator Msftedit;}{\field{\*\fldinst HYPERLINK x}{\fldrslt baglanti}}\par}",
        ));
        assert!(
            document
                .text
                .contains("Sayın Şirket, T.C. kimlik no 10000000146."),
            "{}",
            document.text
        );
        assert!(
            document.text.contains("Güle güle 😊été"),
            "{}",
            document.text
        );
        assert!(document.text.contains("baglanti") && !document.text.contains("HYPERLINK"));
        assert!(!document.text.contains("Arial") && !document.text.contains("Msftedit"));
        assert_eq!(document.metadata.title.as_deref(), Some("Dilekçe"));
        assert_eq!(document.metadata.author.as_deref(), Some("Ayşe"));
    }

    #[test]
    fn tables_headings_and_hostile_input() {
        let document = read(concat!(
            r"{\rtf1\ansi{\stylesheet{\s0 Normal;}{\s1\sbasedon0 heading 1;}}",
            r"{\pard\s1 Bordro\par}",
            r"\trowd\cellx1000\cellx2000\pard\intbl Ad\cell IBAN\cell\row",
            r"\trowd\pard\intbl Ay\'fee\cell TR33 0006 1005 1978 6457 8413 26\cell\row",
            r"\pard Son.\par}",
        ));
        assert_eq!(document.tables.len(), 1, "{:?}", document.elements);
        assert_eq!(
            document.tables[0]
                .rows
                .get(0)
                .and_then(|row| row.get(1))
                .unwrap_or_default(),
            "TR33 0006 1005 1978 6457 8413 26"
        );
        assert_eq!(document.elements[0].kind, ElementKind::Heading);
        assert!(
            document.text.trim_end().ends_with("Son."),
            "{}",
            document.text
        );
        for hostile in [
            r"{\rtf1 {{{{",
            r"}}}}\'",
            r"{\rtf1\bin99999999 x}",
            r"{\rtf1\u-99999999999999999?}",
            "{\\rtf1\\",
        ] {
            let mut builder = Builder::default();
            let _ = extract(hostile.as_bytes(), &Limits::default(), &mut builder);
        }
        let deep = "{".repeat(100_000);
        let mut builder = Builder::default();
        assert!(matches!(
            extract(deep.as_bytes(), &Limits::default(), &mut builder),
            Err(ExtractError::LimitExceeded(_))
        ));
    }
}
