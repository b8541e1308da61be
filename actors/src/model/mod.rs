//! The document model: one serde type for every format. Extraction fills it; masking, datasets and the
//! API read it.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

mod rows;
pub use rows::{Row, Rows};

/// What a document is made of, in reading order.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, utoipa::ToSchema)]
#[schema(as = ExtractedDocument)]
pub struct Document {
    /// All text in reading order (elements joined by blank lines).
    pub text: String,
    pub elements: Vec<Element>,
    pub tables: Vec<Table>,
    /// Key-values: document metadata, e-mail headers, e-invoice fields.
    pub fields: BTreeMap<String, serde_json::Value>,
    pub metadata: Metadata,
    pub attachments: Vec<Attachment>,
    /// Main language (ISO 639-1) with its confidence.
    #[serde(default)]
    pub language: Language,
    /// Grade A-F and the signals it was computed from.
    #[serde(default)]
    pub quality: Quality,
}

impl Document {
    /// The text with the text of every readable attachment appended (attachments marked by name);
    /// the text itself, borrowed, when no attachment was read.
    pub fn full_text(&self) -> std::borrow::Cow<'_, str> {
        if self.attachments.iter().all(|a| a.document.is_none()) {
            return self.text.as_str().into();
        }
        let mut text = self.text.clone();
        for attachment in &self.attachments {
            if let Some(document) = &attachment.document {
                text.push_str(&format!(
                    "\n\n--- attachment: {} ---\n",
                    attachment.filename
                ));
                text.push_str(&document.full_text());
            }
        }
        text.into()
    }

    /// Personal values the document itself declares, as (type name, value): its author, e-mail senders
    /// and recipients, the persons, tax numbers, phones, e-mails and IBAN of an e-invoice. The masker
    /// masks them wherever they appear.
    pub fn pii_hints(&self) -> Vec<(&'static str, String)> {
        let mut hints: Vec<(&'static str, String)> = self
            .metadata
            .author
            .iter()
            .map(|a| ("person_name", a.clone()))
            .collect();
        for key in ["email.from", "email.to", "email.cc"] {
            if let Some(list) = self.fields.get(key).and_then(|v| v.as_str()) {
                for entry in list.split(", ") {
                    if let Some((name, _)) = entry.split_once(" <") {
                        hints.push(("person_name", name.trim().trim_matches('"').to_string()));
                    }
                }
            }
        }
        for party in ["supplier", "customer"] {
            let get = |key: &str| {
                self.fields
                    .get(&format!("{party}.{key}"))
                    .and_then(|v| v.as_str())
                    .map(str::to_string)
            };
            if let (Some(first), Some(family)) =
                (get("person.first_name"), get("person.family_name"))
            {
                hints.push(("person_name", format!("{first} {family}")));
            }
            for (key, ty) in [
                ("vkn", "tax_id_tr"),
                ("tckn", "national_id_tr"),
                ("contact.email", "email"),
                ("contact.telephone", "phone_tr"),
                ("address.street", "address"),
                ("address.building", "address"),
                ("address.postal_code", "address"),
            ] {
                if let Some(value) = get(key) {
                    hints.push((ty, value));
                }
            }
        }
        if let Some(iban) = self.fields.get("payment.iban").and_then(|v| v.as_str()) {
            hints.push(("iban_tr", iban.to_string()));
        }
        for attachment in &self.attachments {
            if let Some(document) = &attachment.document {
                hints.extend(document.pii_hints());
            }
        }
        // A value that is only masking's own tokens (a document masked before: `[MASKED_EMAIL]`,
        // `[MASKED_PERSON_NAME] [MASKED_PERSON_NAME]`) declares nothing.
        hints.retain(|(_, value)| !only_mask_tokens(value));
        hints.sort();
        hints.dedup();
        hints
    }
}

/// Whether `value` holds no letter or digit outside `[MASKED_<TYPE>]` tokens (an empty value too).
fn only_mask_tokens(value: &str) -> bool {
    let mut rest = value;
    loop {
        let Some(at) = rest.find("[MASKED_") else {
            return !rest.chars().any(char::is_alphanumeric);
        };
        if rest[..at].chars().any(char::is_alphanumeric) {
            return false;
        }
        let Some(end) = rest[at..].find(']') else {
            return false;
        };
        rest = &rest[at + end + 1..];
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum ElementKind {
    Title,
    Heading,
    Paragraph,
    ListItem,
    Table,
    KeyValue,
    Header,
    Footer,
    PageBreak,
    EmailHeader,
    ImageText,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, utoipa::ToSchema)]
pub struct Element {
    #[serde(rename = "type")]
    pub kind: ElementKind,
    pub text: String,
    /// 1-based page (or slide, or sheet) number, when known.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub page: Option<u32>,
    /// Heading or list nesting level, when known.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub level: Option<u8>,
    /// For `table` elements: index into `tables`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub table: Option<usize>,
}

impl Element {
    pub fn new(kind: ElementKind, text: impl Into<String>) -> Element {
        Element {
            kind,
            text: text.into(),
            page: None,
            level: None,
            table: None,
        }
    }
}

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, utoipa::ToSchema)]
pub struct Table {
    /// Sheet or table name, when there is one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// The header row, when known.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub header: Option<Vec<String>>,
    #[schema(value_type = Vec<Vec<String>>)]
    pub rows: Rows,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub page: Option<u32>,
}

impl Table {
    /// Takes the first row as the header when it is a row of labels: at least `min_width` cells, all
    /// non-empty and none a number.
    pub fn take_header(rows: &mut Rows, min_width: usize) -> Option<Vec<String>> {
        let is_header = rows.get(0).is_some_and(|row| {
            row.len() >= min_width
                && row
                    .iter()
                    .all(|c| !c.is_empty() && c.parse::<f64>().is_err())
        });
        is_header.then(|| rows.remove_first()).flatten()
    }

    /// The table as tab-separated lines (for `text`), written once into one string.
    pub fn to_text(&self) -> String {
        let mut text = String::new();
        self.write_text(|piece| text.push_str(piece));
        text
    }

    /// Whether [`Table::to_text`] would give `text`, without writing it.
    pub fn renders_as(&self, text: &str) -> bool {
        let mut rest = Some(text);
        self.write_text(|piece| {
            rest = rest.and_then(|r| r.strip_prefix(piece));
        });
        rest == Some("")
    }

    /// The pieces of [`Table::to_text`] in order.
    fn write_text(&self, mut write: impl FnMut(&str)) {
        let header = self.header.iter().map(|h| h.iter().map(String::as_str));
        let mut first_line = true;
        let mut line = |cells: &mut dyn Iterator<Item = &str>| {
            if !std::mem::take(&mut first_line) {
                write("\n");
            }
            for (index, cell) in cells.enumerate() {
                if index > 0 {
                    write("\t");
                }
                write(cell);
            }
        };
        for mut cells in header {
            line(&mut cells);
        }
        for row in self.rows.iter() {
            line(&mut row.iter());
        }
    }
}

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, utoipa::ToSchema)]
#[schema(as = DocumentMetadata)]
pub struct Metadata {
    pub format: String,
    pub mime: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub pages: Option<u32>,
    pub bytes: u64,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub encoding: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub author: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub producer: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub created: Option<String>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, utoipa::ToSchema)]
pub struct Attachment {
    pub filename: String,
    pub mime: String,
    pub bytes: u64,
    /// The extracted attachment, when it could be read.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(no_recursion)]
    pub document: Option<Box<Document>>,
    /// Why it could not be read (e.g. `encrypted_document`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}

/// Builds a document element by element, keeping `text` in step.
#[derive(Default)]
pub struct Builder {
    pub document: Document,
    /// Parts of the file a tolerant reader skipped or cut short (`part: what is wrong`), for the
    /// quality signals.
    pub damaged_parts: Vec<String>,
}

impl Builder {
    pub fn push(&mut self, element: Element) {
        let trimmed = element.text.trim();
        if trimmed.is_empty() && element.kind != ElementKind::PageBreak {
            return;
        }
        if !trimmed.is_empty() {
            if !self.document.text.is_empty() {
                self.document.text.push_str("\n\n");
            }
            self.document.text.push_str(trimmed);
        }
        self.document.elements.push(Element {
            text: trimmed.to_string(),
            ..element
        });
    }

    pub fn push_table(&mut self, table: Table, page: Option<u32>) {
        if table.rows.is_empty() && table.header.is_none() {
            return;
        }
        let index = self.document.tables.len();
        let text = table.to_text();
        self.document.tables.push(table);
        self.push(Element {
            table: Some(index),
            page,
            ..Element::new(ElementKind::Table, text)
        });
    }

    /// A table of `rows` with no name, its first row its header when it is a row of labels at least
    /// `header_width` wide; nothing when there are no rows.
    pub fn push_rows(&mut self, rows: impl Into<Rows>, header_width: usize, page: Option<u32>) {
        let mut rows = rows.into();
        let header = Table::take_header(&mut rows, header_width);
        self.push_table(
            Table {
                name: None,
                header,
                rows,
                page,
            },
            page,
        );
    }

    pub fn field(&mut self, key: &str, value: impl Into<serde_json::Value>) {
        self.document.fields.insert(key.to_string(), value.into());
    }

    pub fn finish(self) -> Document {
        self.document
    }
}

/// How well a document was read: a grade from measured signals (computed by the extractor).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, utoipa::ToSchema)]
#[schema(as = QualitySignals)]
pub struct Signals {
    pub characters: usize,
    pub pages: u32,
    pub characters_per_page: f64,
    pub empty_pages: u32,
    pub replacement_characters: usize,
    pub decoding_errors: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ocr_confidence: Option<f64>,
    /// Parts skipped or cut short, each `part: what is wrong` (absent when none).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub damaged_parts: Vec<String>,
    /// Share of table rows as wide as their table's usual width (1.0 without tables).
    pub table_consistency: f64,
}

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, utoipa::ToSchema)]
pub struct Quality {
    pub grade: String,
    pub score: f64,
    pub signals: Signals,
}

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, utoipa::ToSchema)]
pub struct Language {
    /// ISO 639-1 code, or `und` when it cannot be told.
    pub code: String,
    pub confidence: f64,
    /// False for short or mixed text: the code is a guess.
    pub reliable: bool,
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The rendering is the header and rows, cells joined by tabs and lines by newlines, and
    /// `renders_as` agrees with it exactly (a prefix, a longer text or one changed cell does not).
    #[test]
    fn a_table_renders_as_its_tab_separated_lines() {
        let table = Table {
            header: Some(vec!["Ad".into(), "Şehir".into()]),
            rows: vec![
                vec!["Ayşe".to_string(), "Ankara".to_string()],
                vec![],
                vec!["Ali".to_string()],
            ]
            .into(),
            ..Table::default()
        };
        let text = table.to_text();
        assert_eq!(text, "Ad\tŞehir\nAyşe\tAnkara\n\nAli");
        assert!(table.renders_as(&text));
        for other in [
            "Ad\tŞehir\nAyşe\tAnkara\n",
            "Ad\tŞehir\nAyşe\tAnkara\n\nAli\n",
            "Ad\tŞehir\nAyşe\tAnkara\n\nAlı",
        ] {
            assert!(!table.renders_as(other), "{other:?}");
        }
        assert_eq!(Table::default().to_text(), "");
        assert!(Table::default().renders_as(""));
    }

    /// A first row of labels becomes the header; a row with an empty cell or a number does not.
    #[test]
    fn a_header_is_taken_only_from_a_row_of_labels() {
        let mut rows: Rows = vec![
            vec!["Ad".to_string(), "Tutar".to_string()],
            vec!["Ayşe".to_string(), "12".to_string()],
        ]
        .into();
        assert_eq!(
            Table::take_header(&mut rows, 2),
            Some(vec!["Ad".to_string(), "Tutar".to_string()])
        );
        assert_eq!(rows, [["Ayşe", "12"]]);
        assert_eq!(Table::take_header(&mut rows, 2), None);
        assert_eq!(rows.len(), 1);
    }

    #[test]
    fn values_made_of_mask_tokens_declare_nothing() {
        for value in [
            "",
            " ",
            "[MASKED_EMAIL]",
            "[MASKED_PERSON_NAME] [MASKED_PERSON_NAME]",
        ] {
            assert!(only_mask_tokens(value), "{value:?}");
        }
        for value in [
            "Ayşe [MASKED_PERSON_NAME]",
            "[MASKED_PERSON_NAME] Y",
            "[MASKED_X",
            "a@b.c",
        ] {
            assert!(!only_mask_tokens(value), "{value:?}");
        }
    }
}
