//! A dataset's canonical rows as the provider's chat JSONL, re-scanned for personal data on the way.
//!
//! Each line of the training file is `{"messages": [{"role", "content"}, ...]}`. A row that carries
//! `messages` (at its top level, or among its extracted `fields`: a document that was itself a chat
//! transcript) passes as it is; any other row is mapped by the configured templates (see
//! [`Template`]). Every message's content is scanned again by the detectors before the file may
//! leave: a row of an unmasked execution, or any value the detectors still find, refuses the whole
//! file (the counts by type are reported, never the values).

use std::collections::BTreeMap;
use std::io::{BufRead, Write};
use std::path::Path;

use serde_json::{json, Value};

use crate::error_code::RecordCode;
use crate::pii_masker::{detect, PiiType, Policy, TypeSet};
use crate::settings::FineTuneSettings;

/// The three message templates of a row without `messages`; `{column}` stands for the row's column.
/// `plain`: the templates of a row these make nothing of (a plain document), if any.
#[derive(Clone, Debug)]
pub struct Template {
    pub system: String,
    pub user: String,
    pub assistant: String,
    pub plain: Option<Box<Template>>,
}

/// The templates a job uses: its own (`templates`, JSON with any of `system`, `user`, `assistant`;
/// the configured ones fill the rest, and plain documents get no fallback), or the configured
/// ones with the plain-document fallback.
pub fn templates(settings: &FineTuneSettings, own: Option<&str>) -> Result<Template, String> {
    let configured = Template {
        system: settings.system_template.clone(),
        user: settings.user_template.clone(),
        assistant: settings.assistant_template.clone(),
        plain: None,
    };
    let Some(own) = own else {
        let plain = Template {
            system: settings.plain_system_template.clone(),
            user: settings.plain_user_template.clone(),
            assistant: settings.plain_assistant_template.clone(),
            plain: None,
        };
        let usable = !plain.user.trim().is_empty() && !plain.assistant.trim().is_empty();
        return Ok(Template {
            plain: usable.then(|| Box::new(plain)),
            ..configured
        });
    };
    let given: serde_json::Value =
        serde_json::from_str(own).map_err(|error| format!("templates: {error}"))?;
    let pick = |key: &str, default: &String| -> Result<String, String> {
        match &given[key] {
            serde_json::Value::Null => Ok(default.clone()),
            serde_json::Value::String(text) => Ok(text.clone()),
            _ => Err(format!("templates.{key} must be a string")),
        }
    };
    Ok(Template {
        system: pick("system", &configured.system)?,
        user: pick("user", &configured.user)?,
        assistant: pick("assistant", &configured.assistant)?,
        plain: None,
    })
}

/// What one dataset row gives the training file, before the re-scan.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RowUse {
    /// A row of an unmasked execution: the whole file is refused.
    Unmasked,
    /// A chat example.
    Example,
    /// Nothing: every templated message came out empty; the row is left out.
    Nothing,
}

/// What `row` gives the training file under `template`.
pub fn row_use(row: &Value, template: &Template) -> RowUse {
    if row["masked"] == Value::Bool(false) {
        RowUse::Unmasked
    } else if messages(row, template).is_some() {
        RowUse::Example
    } else {
        RowUse::Nothing
    }
}

/// What was written.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Written {
    pub rows: i64,
    /// Rows left out because a templated message came out empty.
    pub skipped: i64,
}

#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum TrainingError {
    #[error("the dataset holds {rows} row(s) of executions that were not masked; fine-tuning takes masked datasets only")]
    Unmasked { rows: i64 },
    #[error("the re-scan found personal data in {rows} row(s) of the training file ({}); nothing was sent", describe(.types))]
    Refused {
        rows: i64,
        types: BTreeMap<String, u64>,
    },
    #[error(
        "no row of the dataset makes a training example (every templated message came out empty): give templates that use the rows' columns (text, filename, format, language, quality_grade, fields, tables)"
    )]
    Empty,
    #[error("a dataset row is not valid JSON: {0}")]
    BadRow(String),
    #[error("the training file could not be written: {0}")]
    Io(String),
}

impl TrainingError {
    /// The job's error code.
    pub fn code(&self) -> &'static str {
        match self {
            TrainingError::Unmasked { .. } => RecordCode::DatasetNotMasked.as_str(),
            TrainingError::Refused { .. } => RecordCode::TrainingDataRefused.as_str(),
            TrainingError::Empty => RecordCode::EmptyTrainingFile.as_str(),
            TrainingError::BadRow(_) | TrainingError::Io(_) => {
                RecordCode::TrainingFileFailed.as_str()
            }
        }
    }
}

fn describe(types: &BTreeMap<String, u64>) -> String {
    types
        .iter()
        .map(|(name, n)| format!("{name}: {n}"))
        .collect::<Vec<_>>()
        .join(", ")
}

/// A column of the row as template text: strings as they are, other values as compact JSON.
fn column(row: &Value, name: &str) -> Option<String> {
    match row.get(name)? {
        Value::String(text) => Some(text.clone()),
        Value::Null => Some(String::new()),
        other => Some(other.to_string()),
    }
}

/// `template` with each `{column}` replaced; an unknown name stays as written.
pub fn render(template: &str, row: &Value) -> String {
    let mut out = String::with_capacity(template.len());
    let mut rest = template;
    while let Some(open) = rest.find('{') {
        out.push_str(&rest[..open]);
        let after = &rest[open + 1..];
        match after.find('}') {
            Some(close)
                if after[..close]
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || c == '_')
                    && close > 0 =>
            {
                match column(row, &after[..close]) {
                    Some(value) => out.push_str(&value),
                    None => out.push_str(&rest[open..open + close + 2]),
                }
                rest = &after[close + 1..];
            }
            _ => {
                out.push('{');
                rest = after;
            }
        }
    }
    out.push_str(rest);
    out
}

fn says_nothing(text: &str) -> bool {
    matches!(text.trim(), "" | "{}" | "[]" | "null")
}

/// The row's messages: its own, or the templates'. None when a templated message says nothing.
fn messages(row: &Value, template: &Template) -> Option<Vec<Value>> {
    for own in [&row["messages"], &row["fields"]["messages"]] {
        if let Some(list) = own.as_array().filter(|list| !list.is_empty()) {
            return Some(list.clone());
        }
    }
    let user = render(&template.user, row);
    let assistant = render(&template.assistant, row);
    if says_nothing(&user) || says_nothing(&assistant) {
        return template
            .plain
            .as_deref()
            .and_then(|plain| messages(row, plain));
    }
    let mut list = Vec::with_capacity(3);
    let system = render(&template.system, row);
    if !system.trim().is_empty() {
        list.push(json!({"role": "system", "content": system}));
    }
    list.push(json!({"role": "user", "content": user}));
    list.push(json!({"role": "assistant", "content": assistant}));
    Some(list)
}

/// Personal data the detectors find in a message's content (text, or the text of its parts).
fn scan(message: &Value, policy: &Policy, found: &mut BTreeMap<String, u64>) -> bool {
    let text = match &message["content"] {
        Value::String(text) => text.clone(),
        other => other.to_string(),
    };
    let findings = detect(&text, policy);
    for finding in &findings {
        *found
            .entry(finding.pii_type.name().to_string())
            .or_default() += 1;
    }
    !findings.is_empty()
}

/// Streams the canonical rows at `rows` into a training file at `out`. `surrogates` holds, per privacy
/// policy version, the types that version masks with checksum-valid surrogates: in a row masked under
/// it, a value of those types is the engine's own writing (the masking's re-scan refused any other
/// value), and the scan here does not count it.
pub fn write_training_file(
    rows: &Path,
    out: &Path,
    template: &Template,
    surrogates: &BTreeMap<i64, TypeSet>,
) -> Result<Written, TrainingError> {
    let io = |error: std::io::Error| TrainingError::Io(error.to_string());
    let reader = std::io::BufReader::new(std::fs::File::open(rows).map_err(io)?);
    let mut writer = std::io::BufWriter::new(std::fs::File::create(out).map_err(io)?);
    let every = Policy::default();
    let policies: BTreeMap<i64, Policy> = surrogates
        .iter()
        .map(|(&version, written)| {
            let enabled = PiiType::ALL
                .iter()
                .filter(|&&ty| !written.contains(ty))
                .fold(TypeSet::default(), |set, &ty| set.with(ty));
            (
                version,
                Policy {
                    enabled,
                    ..Policy::default()
                },
            )
        })
        .collect();
    let mut written = Written {
        rows: 0,
        skipped: 0,
    };
    let mut unmasked = 0;
    let mut refused_rows = 0;
    let mut types = BTreeMap::new();
    for line in reader.lines() {
        let line = line.map_err(io)?;
        if line.trim().is_empty() {
            continue;
        }
        let row: Value = serde_json::from_str(&line)
            .map_err(|error| TrainingError::BadRow(error.to_string()))?;
        if row["masked"] == Value::Bool(false) {
            unmasked += 1;
            continue;
        }
        let Some(messages) = messages(&row, template) else {
            written.skipped += 1;
            continue;
        };
        let version = row["policy_version"].as_i64().unwrap_or(0);
        let policy = policies.get(&version).unwrap_or(&every);
        let mut leaked = false;
        for message in &messages {
            leaked |= scan(message, policy, &mut types);
        }
        if leaked {
            refused_rows += 1;
            continue;
        }
        serde_json::to_writer(&mut writer, &json!({"messages": messages}))
            .map_err(|error| TrainingError::Io(error.to_string()))?;
        writer.write_all(b"\n").map_err(io)?;
        written.rows += 1;
    }
    writer.flush().map_err(io)?;
    if unmasked > 0 {
        return Err(TrainingError::Unmasked { rows: unmasked });
    }
    if refused_rows > 0 {
        return Err(TrainingError::Refused {
            rows: refused_rows,
            types,
        });
    }
    if written.rows == 0 {
        return Err(TrainingError::Empty);
    }
    Ok(written)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn template() -> Template {
        Template {
            system: "Extract the fields.".to_string(),
            user: "{text}".to_string(),
            assistant: "{fields}".to_string(),
            plain: None,
        }
    }

    fn run(lines: &[Value]) -> (Result<Written, TrainingError>, String) {
        run_with(lines, &BTreeMap::new())
    }

    fn run_with(
        lines: &[Value],
        surrogates: &BTreeMap<i64, TypeSet>,
    ) -> (Result<Written, TrainingError>, String) {
        let dir = tempfile::tempdir().expect("dir");
        let rows = dir.path().join("rows.jsonl");
        let out = dir.path().join("train.jsonl");
        let text: String = lines.iter().map(|l| format!("{l}\n")).collect();
        std::fs::write(&rows, text).expect("write");
        let result = write_training_file(&rows, &out, &template(), surrogates);
        (result, std::fs::read_to_string(&out).unwrap_or_default())
    }

    #[test]
    fn rows_become_chat_examples_and_messages_pass_as_they_are() {
        let chat = json!({"role": "user", "content": "Merhaba"});
        let (result, out) = run(&[
            json!({"masked": true, "text": "Fatura no 12, tutar 40 TL", "fields": {"tutar": "40 TL"}}),
            json!({"masked": true, "text": "boş", "fields": {}}),
            json!({"masked": true, "messages": [chat.clone(), {"role": "assistant", "content": "Selam"}]}),
        ]);
        assert_eq!(
            result,
            Ok(Written {
                rows: 2,
                skipped: 1
            })
        );
        let lines: Vec<Value> = out
            .lines()
            .map(|l| serde_json::from_str(l).expect("json"))
            .collect();
        assert_eq!(lines[0]["messages"][0]["role"], "system");
        assert_eq!(
            lines[0]["messages"][1]["content"],
            "Fatura no 12, tutar 40 TL"
        );
        assert_eq!(lines[0]["messages"][2]["content"], r#"{"tutar":"40 TL"}"#);
        assert_eq!(lines[1]["messages"][0], chat);
        assert_eq!(
            render("{unknown} {text} {", &json!({"text": "x"})),
            "{unknown} x {"
        );
    }

    /// A row masked under a policy version that writes TCKN surrogates carries valid TCKNs by design:
    /// they pass; under any other version (or a TCKN where that version writes only IBANs) they refuse.
    #[test]
    fn surrogates_pass_only_in_rows_of_a_version_that_writes_them() {
        let row = |version: i64| {
            json!({"masked": true, "policy_version": version,
                "text": "TC kimlik no 94562304058", "fields": {"a": "b"}})
        };
        let surrogates = BTreeMap::from([
            (2, TypeSet::default().with(PiiType::NationalIdTr)),
            (3, TypeSet::default().with(PiiType::IbanTr)),
        ]);
        let (result, _) = run_with(&[row(2)], &surrogates);
        assert_eq!(
            result,
            Ok(Written {
                rows: 1,
                skipped: 0
            })
        );
        for version in [1, 3] {
            let (result, _) = run_with(&[row(version)], &surrogates);
            assert!(
                matches!(result, Err(TrainingError::Refused { rows: 1, .. })),
                "version {version}: {result:?}"
            );
        }
    }

    #[test]
    fn a_raw_value_or_an_unmasked_row_refuses_the_file() {
        let (result, _) = run(&[
            json!({"masked": true, "text": "IBAN TR33 0006 1005 1978 6457 8413 26", "fields": {"a": "b"}}),
        ]);
        match result {
            Err(error @ TrainingError::Refused { .. }) => {
                assert_eq!(error.code(), "training_data_refused");
                assert!(!error.to_string().contains("TR33"), "{error}");
            }
            other => panic!("not refused: {other:?}"),
        }
        let (result, _) = run(&[json!({"masked": false, "text": "x", "fields": {"a": "b"}})]);
        assert_eq!(result, Err(TrainingError::Unmasked { rows: 1 }));
        let (result, _) = run(&[json!({"masked": true, "text": "", "fields": {}})]);
        assert_eq!(result, Err(TrainingError::Empty));
    }

    #[test]
    fn a_plain_document_trains_through_the_fallback_and_its_use_is_told_up_front() {
        let plain = Template {
            system: String::new(),
            user: "Write the {format} document {filename}.".to_string(),
            assistant: "{text}".to_string(),
            plain: None,
        };
        let with_fallback = Template {
            plain: Some(Box::new(plain)),
            ..template()
        };
        let letter = json!({"masked": true, "text": "Sayın [MASKED_PERSON_NAME],", "fields": {},
            "format": "txt", "filename": "letter.txt"});
        assert_eq!(row_use(&letter, &template()), RowUse::Nothing);
        assert_eq!(row_use(&letter, &with_fallback), RowUse::Example);
        assert_eq!(
            row_use(&json!({"masked": false}), &with_fallback),
            RowUse::Unmasked
        );
        let messages = messages(&letter, &with_fallback).expect("an example");
        assert_eq!(messages.len(), 2, "no system message: {messages:?}");
        assert_eq!(messages[0]["content"], "Write the txt document letter.txt.");
        assert_eq!(messages[1]["content"], "Sayın [MASKED_PERSON_NAME],");
    }
}
