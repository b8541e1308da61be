//! Masking a whole extracted document: text, elements, table cells, fields, metadata and attachments,
//! with the values the document itself declares (author, e-mail parties, e-invoice parties) as known
//! personal data. Findings and the summary come from the document's text.

use std::collections::BTreeMap;

use super::engine::{self, Finding, Known, LeakError, PiiType, Policy};
use crate::model::{Attachment, Document, Element, Rows, Table};

#[derive(Clone, Debug)]
pub struct MaskedDocument {
    pub document: Document,
    pub findings: Vec<Finding>,
    pub summary: BTreeMap<String, u64>,
    /// Each finding's value in its normal form ([`normal_form`](super::normal_form)), in the order of
    /// `findings`: what the subject index hashes under the tenant's key. Never stored or sent.
    pub normal_forms: Vec<String>,
}

/// The normal forms of `findings`, whose offsets are into `full_text`.
pub fn normal_forms(full_text: &str, findings: &[Finding]) -> Vec<String> {
    findings
        .iter()
        .map(|f| {
            let value = full_text.get(f.start..f.end).unwrap_or_default();
            super::normal_form(f.pii_type, value)
        })
        .collect()
}

/// The tenant's policy and what is known about the document, for each of its parts.
#[derive(Clone, Copy)]
struct Scope<'a> {
    policy: &'a Policy,
    known: &'a Known,
}

fn mask_text(text: &str, scope: Scope<'_>) -> Result<String, LeakError> {
    if text.trim().is_empty() {
        return Ok(text.to_string());
    }
    Ok(engine::mask_known(text, scope.policy, scope.known)?.text)
}

/// Masks a table through its tab-separated rendering, so that headers give context to their column;
/// placeholders hold no tabs or newlines, so the cells split back exactly. `masked_text` is that
/// rendering already masked (as the table's element), when there is one.
fn mask_table(
    table: &Table,
    masked_text: Option<&str>,
    scope: Scope<'_>,
) -> Result<Table, LeakError> {
    let masked: std::borrow::Cow<'_, str> = match masked_text {
        Some(masked) => masked.into(),
        None => mask_text(&table.to_text(), scope)?.into(),
    };
    let widths = || {
        let header = table.header.as_ref().map(Vec::len);
        header
            .into_iter()
            .chain(table.rows.iter().map(|row| row.len()))
    };
    let same_shape = masked.split('\n').count() == widths().count()
        && widths()
            .zip(masked.split('\n'))
            .all(|(width, line)| line.split('\t').count() == width);
    if same_shape {
        // Cut straight from the masked rendering into the compact rows.
        let mut lines = masked.split('\n');
        let header = match table.header {
            Some(_) => lines
                .next()
                .map(|line| line.split('\t').map(str::to_string).collect()),
            None => None,
        };
        let mut rows = Rows::new();
        for line in lines {
            rows.push(line.split('\t'));
        }
        return Ok(Table {
            name: table.name.clone(),
            header,
            rows,
            page: table.page,
        });
    }
    // Cells with line breaks change the shape: mask cell by cell instead.
    let header = match &table.header {
        Some(header) => Some(
            header
                .iter()
                .map(|cell| mask_text(cell, scope))
                .collect::<Result<Vec<_>, _>>()?,
        ),
        None => None,
    };
    let mut rows = Rows::new();
    for row in table.rows.iter() {
        rows.push(
            row.iter()
                .map(|cell| mask_text(cell, scope))
                .collect::<Result<Vec<_>, _>>()?,
        );
    }
    Ok(Table {
        name: table.name.clone(),
        header,
        rows,
        page: table.page,
    })
}

/// A field value with its key as context ("supplier.vkn: 1234567890").
fn mask_value(
    key: &str,
    value: &serde_json::Value,
    scope: Scope<'_>,
) -> Result<serde_json::Value, LeakError> {
    Ok(match value {
        serde_json::Value::String(text) => {
            let prefix = format!("{key}: ");
            let masked = mask_text(&format!("{prefix}{text}"), scope)?;
            serde_json::Value::String(
                masked
                    .strip_prefix(&prefix)
                    .map(str::to_string)
                    .unwrap_or(masked),
            )
        }
        serde_json::Value::Array(items) => serde_json::Value::Array(
            items
                .iter()
                .map(|item| mask_value(key, item, scope))
                .collect::<Result<_, _>>()?,
        ),
        serde_json::Value::Object(map) => serde_json::Value::Object(
            map.iter()
                .map(|(k, v)| mask_value(k, v, scope).map(|masked| (k.clone(), masked)))
                .collect::<Result<_, _>>()?,
        ),
        other => other.clone(),
    })
}

/// The document's text masked once, from which every part that is a piece of that text (elements, the
/// text of tables) is cut instead of being masked again: `text` is the elements joined by blank lines,
/// so a second pass over each element doubled the work of a long document.
///
/// A cut piece is a verbatim stretch of the masked text, which the leak re-scan has already passed
/// (`engine::mask` refuses a text with anything detectable left in it). The pieces used to be
/// re-scanned one by one as well, in case a value hid in the text but showed alone; over the corpus,
/// generated text with a paragraph per line and every test, no piece ever did, and those re-scans
/// were an eighth of a preview's instructions.
struct MaskedText<'d> {
    original: &'d str,
    findings: Vec<Finding>,
    /// What replaced each finding, when not its placeholder ([`engine::Masked::written`]).
    written: Option<Vec<Option<String>>>,
    /// Where the next part is expected in `original` (parts come in order).
    cursor: usize,
}

impl<'d> MaskedText<'d> {
    /// `part` masked with the text's findings, when it is the next piece of the text and no finding
    /// crosses its edges; otherwise `None`, and the caller masks that part by itself (with its own
    /// leak re-scan).
    fn cut(&mut self, part: &str) -> Option<String> {
        let rest = &self.original[self.cursor..];
        let skipped = rest.len() - rest.trim_start().len();
        let start = self.cursor + skipped;
        if part.is_empty() || !self.original[start..].starts_with(part) {
            return None;
        }
        let end = start + part.len();
        let first = self.findings.partition_point(|f| f.end <= start);
        let touching = self.findings[first..]
            .iter()
            .take_while(|f| f.start < end)
            .count();
        let inside = &self.findings[first..first + touching];
        if inside.iter().any(|f| f.start < start || f.end > end) {
            return None;
        }
        self.cursor = end;
        Some(engine::with_replacements(
            self.original,
            start,
            end,
            inside,
            self.written.as_deref().map(|w| &w[first..first + touching]),
        ))
    }
}

/// `scanned` is the scanner's work on `document.text`, when it was done already.
fn mask_parts(
    document: &Document,
    scope: Scope<'_>,
    scanned: Option<engine::Scanned>,
) -> Result<Document, LeakError> {
    // Built part by part rather than cloned and overwritten: every text of the clone would have been
    // copied only to be replaced.
    let mut masked_text = String::new();
    let mut pieces = if document.text.trim().is_empty() {
        masked_text.clone_from(&document.text);
        None
    } else {
        let result = match scanned {
            Some(scanned) => {
                engine::mask_scanned(&document.text, scope.policy, scope.known, scanned)?
            }
            None => engine::mask_known(&document.text, scope.policy, scope.known)?,
        };
        masked_text = result.text;
        Some(MaskedText {
            original: &document.text,
            findings: result.findings,
            written: result.written,
            cursor: 0,
        })
    };
    // The elements that render a table exactly, by table index: their masked texts are the tables'.
    let mut table_texts: BTreeMap<usize, usize> = BTreeMap::new();
    let mut elements = Vec::with_capacity(document.elements.len());
    for element in &document.elements {
        let cut = pieces.as_mut().and_then(|pieces| pieces.cut(&element.text));
        let text = match cut {
            Some(text) => text,
            None => mask_text(&element.text, scope)?,
        };
        let table = element
            .table
            .and_then(|i| document.tables.get(i).map(|t| (i, t)));
        if let Some((index, table)) = table {
            if table.renders_as(&element.text) {
                table_texts.insert(index, elements.len());
            }
        }
        elements.push(Element {
            kind: element.kind,
            text,
            page: element.page,
            level: element.level,
            table: element.table,
        });
    }
    // The text's findings go before the tables are built: a long table's are some 200 MB.
    drop(pieces);
    let tables = document
        .tables
        .iter()
        .enumerate()
        .map(|(index, table)| {
            let masked = table_texts
                .get(&index)
                .map(|&element| elements[element].text.as_str());
            mask_table(table, masked, scope)
        })
        .collect::<Result<_, _>>()?;
    let fields = document
        .fields
        .iter()
        .map(|(k, v)| mask_value(k, v, scope).map(|masked| (k.clone(), masked)))
        .collect::<Result<_, _>>()?;
    let mut metadata = document.metadata.clone();
    for value in [&mut metadata.title, &mut metadata.author] {
        if let Some(text) = value.as_mut() {
            *text = mask_text(text, scope)?;
        }
    }
    let attachments = document
        .attachments
        .iter()
        .map(|attachment| {
            Ok(Attachment {
                filename: mask_text(&attachment.filename, scope)?,
                mime: attachment.mime.clone(),
                bytes: attachment.bytes,
                document: match &attachment.document {
                    Some(child) => Some(Box::new(mask_parts(child, scope, None)?)),
                    None => None,
                },
                error: attachment.error.clone(),
            })
        })
        .collect::<Result<_, LeakError>>()?;
    Ok(Document {
        text: masked_text,
        elements,
        tables,
        fields,
        metadata,
        attachments,
        language: document.language.clone(),
        quality: document.quality.clone(),
    })
}

/// Everything the document declares about itself.
pub fn declared(document: &Document) -> Known {
    let mut known = Known::default();
    known.extend(
        document
            .pii_hints()
            .into_iter()
            .filter_map(|(ty, value)| PiiType::from_name(ty).map(|ty| (ty, value))),
    );
    known
}

/// Adds what the whole text revealed to `known` and prepares it. A name from a table header or a
/// VKN behind its label is personal data in every part, even where that part alone gives no
/// context. Each distinct value once: a name on every line of a long text is one value, not a copy
/// per line.
pub(crate) fn learn(known: &mut Known, full_text: &str, findings: &[Finding]) {
    let mut seen = rustc_hash::FxHashSet::default();
    known.extend(
        findings
            .iter()
            .map(|f| (f.pii_type, full_text[f.start..f.end].trim()))
            .filter(|&(ty, value)| value.chars().count() >= 4 && seen.insert((ty, value)))
            .map(|(ty, value)| (ty, value.to_string())),
    );
    known.prepare();
}

/// Findings over the document's full text (attachments included), without changing anything.
pub fn detect_document(
    document: &Document,
    policy: &Policy,
) -> (Vec<Finding>, BTreeMap<String, u64>) {
    engine::summarize_known(&document.full_text(), policy, &declared(document))
}

pub fn mask_document(document: &Document, policy: &Policy) -> Result<MaskedDocument, LeakError> {
    let mut known = declared(document);
    let full_text = document.full_text();
    let (findings, summary, scanned) = engine::summarize_scanned(&full_text, policy, &known);
    learn(&mut known, &full_text, &findings);
    // Without attachments the full text is the document's text, and its scan is reused for masking it
    // (`mask_scanned` checks that it is the same text).
    let masked = mask_parts(
        document,
        Scope {
            policy,
            known: &known,
        },
        Some(scanned),
    )?;
    // The matcher over every value found goes before the normal forms come.
    drop(known);
    let normal_forms = normal_forms(&full_text, &findings);
    Ok(MaskedDocument {
        document: masked,
        findings,
        summary,
        normal_forms,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::extractor_pool::extract_document as extract;
    use crate::extractor_pool::Limits;

    #[test]
    fn no_planted_value_survives_anywhere_in_the_masked_model() {
        let root =
            std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../shared/corpus/tr");
        for name in [
            "tr_musteri_listesi.xlsx",
            "tr_efatura.xml",
            "tr_eposta.eml",
            "tr_ik_yazisi.docx",
        ] {
            let document = extract(
                &std::fs::read(root.join(name)).expect("file"),
                &Limits::default(),
            )
            .expect("extract");
            let masked = mask_document(&document, &Policy::default()).expect("masked");
            let json = serde_json::to_string(&masked.document).expect("json");
            let sidecar: serde_json::Value = serde_json::from_str(
                &std::fs::read_to_string(root.join(format!("{name}.pii.json"))).expect("sidecar"),
            )
            .expect("json");
            for item in sidecar["pii"].as_array().expect("pii") {
                let value = item["value"].as_str().expect("value");
                assert!(
                    !json.contains(value),
                    "{name}: a {} value is left in the model",
                    item["type"]
                );
            }
            assert!(!masked.findings.is_empty());
        }
    }

    #[test]
    fn elements_are_cut_from_the_masked_text_and_agree_with_it() {
        let root =
            std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../shared/corpus/tr");
        let document = extract(
            &std::fs::read(root.join("tr_ik_yazisi.docx")).expect("file"),
            &Limits::default(),
        )
        .expect("extract");
        let masked = mask_document(&document, &Policy::default()).expect("masked");
        let joined: Vec<&str> = masked
            .document
            .elements
            .iter()
            .map(|e| e.text.as_str())
            .filter(|t| !t.is_empty())
            .collect();
        assert_eq!(joined.join("\n\n"), masked.document.text);
        assert!(masked.document.text.contains("[MASKED_"));
    }

    /// Where the text is the elements joined by blank lines, the masked text is the masked elements
    /// joined: an element the text's masking left a value in (one it had to mask on its own) would
    /// leave that value in the masked `text`; and each masked element, scanned alone, is clean. Over
    /// every corpus document that extracts without OCR, a text whose paragraph starts with a name only
    /// its own line reveals, and generated business texts with a sentence per paragraph.
    #[test]
    fn the_masked_text_and_the_masked_elements_agree_across_the_corpus() {
        let root = std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../shared/corpus");
        // (name, bytes, whether the text must be the elements joined)
        let mut inputs = vec![(
            "a paragraph starting with a name".to_string(),
            "Rapor ektedir.\n\nKemal Sunal tarafından hazırlanmıştır.\n"
                .as_bytes()
                .to_vec(),
            true,
        )];
        for seed in 1..=3 {
            let text = engine::synthetic::text(20_000, true, seed).replace('\n', "\n\n");
            inputs.push((
                format!("generated text, seed {seed}"),
                text.into_bytes(),
                true,
            ));
        }
        for folder in std::fs::read_dir(&root).expect("corpus") {
            let folder = folder.expect("entry").path();
            if !folder.is_dir() || folder.ends_with("broken") || folder.ends_with("image") {
                continue;
            }
            for file in std::fs::read_dir(&folder).expect("folder") {
                let path = file.expect("entry").path();
                let name = path.display().to_string();
                if !name.ends_with(".json") && !name.ends_with(".png") {
                    inputs.push((name, std::fs::read(&path).expect("file"), false));
                }
            }
        }
        let joined = |elements: &[Element]| {
            elements
                .iter()
                .map(|e| e.text.as_str())
                .filter(|t| !t.is_empty())
                .collect::<Vec<_>>()
                .join("\n\n")
        };
        let mut checked = 0;
        for (name, bytes, required) in inputs {
            let Ok(document) = extract(&bytes, &Limits::default()) else {
                assert!(!required, "{name}: not extracted");
                continue;
            };
            if joined(&document.elements) != document.text {
                assert!(!required, "{name}: the text is not the elements joined");
                continue;
            }
            let masked = mask_document(&document, &Policy::default()).expect("masked");
            let elements = joined(&masked.document.elements);
            if elements != masked.document.text {
                let at = elements
                    .bytes()
                    .zip(masked.document.text.bytes())
                    .position(|(a, b)| a != b)
                    .unwrap_or(0);
                let from = elements.floor_char_boundary(at.saturating_sub(60));
                panic!(
                    "{name}: the masked text and elements differ from byte {at}: elements {:?}",
                    &elements[from..elements.floor_char_boundary(at + 60)]
                );
            }
            // The second opinion the masking no longer asks for at run time: no element, read alone,
            // shows anything detectable that its place in the text hid.
            for element in &masked.document.elements {
                let found = engine::detect(&element.text, &Policy::default());
                assert!(
                    found.is_empty(),
                    "{name}: an element alone still shows {:?}: {:?}",
                    found
                        .iter()
                        .map(|f| (f.pii_type, &element.text[f.start..f.end]))
                        .collect::<Vec<_>>(),
                    element.text
                );
            }
            checked += 1;
        }
        assert!(checked >= 20, "only {checked} documents checked");
    }

    #[test]
    fn a_part_that_is_not_the_next_piece_of_the_text_is_masked_on_its_own() {
        let policy = Policy::default();
        let original = "Ödeme IBAN: TR33 0006 1005 1978 6457 8413 26\n\nTC kimlik no 10000000146";
        let result = engine::mask(original, &policy).expect("masked");
        let mut pieces = MaskedText {
            original,
            findings: result.findings,
            written: result.written,
            cursor: 0,
        };
        assert_eq!(pieces.cut("başka bir metin"), None);
        assert_eq!(
            pieces
                .cut("Ödeme IBAN: TR33 0006 1005 1978 6457 8413 26")
                .as_deref(),
            Some("Ödeme IBAN: [MASKED_IBAN_TR]")
        );
        // A finding that crosses the part's edge: not cut.
        assert_eq!(pieces.cut("TC kimlik no 1000000"), None);
        assert_eq!(
            pieces.cut("TC kimlik no 10000000146").as_deref(),
            Some("TC kimlik no [MASKED_NATIONAL_ID_TR]")
        );
    }
}
