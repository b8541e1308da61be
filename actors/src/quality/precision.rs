//! PII precision of an execution: how much of what it masked was personal data, per detector (a
//! detector is a type: `result_meta.pii_type_summary` counts by type).
//!
//! `masked` is the execution's own count. `expected` comes from a second opinion on the document read
//! and masked again from its original:
//! - a type whose every form carries a check (`engine::checksum::has_checksum`: national and tax ids,
//!   IBANs, cards, ...): each value masked as that type is compacted and its check recomputed, in this
//!   process; a value whose check holds is expected;
//! - every other type (names, addresses, dates of birth, phones, e-mail addresses, ...): the LLM judges
//!   each placeholder from its masked surroundings only (`CONTEXT_CHARS` characters either side), in
//!   batches of `BATCH`, at most `SAMPLE_PER_TYPE` placeholders per type spread evenly over the document.
//!
//! `expected` = `masked` x (values confirmed / values judged), rounded; `over_masking_ratio` =
//! (`masked` - `expected`) / `masked`; above [`FLAG_ABOVE`] the detector is flagged. A type with
//! nothing to judge (the original is gone and the type is checksummed, or the reading found none)
//! has `expected: null` and is not flagged. The raw values never leave the process.

use std::collections::BTreeMap;

use serde_json::{json, Value};

use super::{original_bytes, stored_masked_document, AuditError, Audits};
use crate::llm::LlmError;
use crate::pii_masker::{checksum_holds, compact_written, has_checksum, Finding, PiiType};
use crate::store::ExecutionRecord;

/// Above this share of masked values that were not personal data, a detector is flagged.
pub const FLAG_ABOVE: f64 = 0.15;
/// At most this many placeholders of one type go to the LLM.
pub const SAMPLE_PER_TYPE: usize = 60;
/// Placeholders judged in one LLM call.
pub const BATCH: usize = 20;
/// Characters of masked text shown on either side of a placeholder.
pub const CONTEXT_CHARS: usize = 120;

/// Values of one type judged and confirmed.
#[derive(Default)]
struct Verdicts {
    judged: u64,
    confirmed: u64,
}

/// What the second opinion reads: the masked full text, and the raw full text with the findings over
/// it when the original is still kept.
struct Reading {
    masked_text: String,
    raw: Option<(String, Vec<Finding>)>,
}

async fn reading(audits: &Audits<'_>, execution: &ExecutionRecord) -> Result<Reading, AuditError> {
    if let Some(bytes) = original_bytes(audits, execution).await? {
        let (raw, masked) = audits
            .actors
            .read_and_mask(execution.tenant_id, bytes.clone(), audits.limits.clone())
            .await
            .map_err(AuditError::Process)?;
        return Ok(Reading {
            masked_text: masked.document.full_text().into_owned(),
            raw: Some((raw.full_text().into_owned(), masked.findings)),
        });
    }
    let document = stored_masked_document(audits, execution).await?;
    Ok(Reading {
        masked_text: document.full_text().into_owned(),
        raw: None,
    })
}

/// Each value masked as a checksummed type, its check recomputed.
fn checksum_verdicts(reading: &Reading, verdicts: &mut BTreeMap<PiiType, Verdicts>) {
    let Some((raw, findings)) = &reading.raw else {
        return;
    };
    for finding in findings.iter().filter(|f| has_checksum(f.pii_type)) {
        let Some(written) = raw.get(finding.start..finding.end) else {
            continue;
        };
        let holds = checksum_holds(
            finding.pii_type,
            &compact_written(finding.pii_type, written),
        );
        let entry = verdicts.entry(finding.pii_type).or_default();
        entry.judged += 1;
        entry.confirmed += u64::from(holds);
    }
}

/// A placeholder in the masked text: its type and byte range.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Placeholder {
    pub ty: PiiType,
    pub start: usize,
    pub end: usize,
}

/// Every `[MASKED_<TYPE>]` of a known type in `text`, in order.
pub fn placeholders(text: &str) -> Vec<Placeholder> {
    const OPEN: &str = "[MASKED_";
    let mut found = Vec::new();
    let mut from = 0;
    while let Some(at) = text[from..].find(OPEN) {
        let start = from + at;
        let name_start = start + OPEN.len();
        let name_len = text[name_start..]
            .bytes()
            .take_while(|b| b.is_ascii_uppercase() || b.is_ascii_digit() || *b == b'_')
            .count();
        let close = name_start + name_len;
        from = name_start;
        if text.as_bytes().get(close) != Some(&b']') {
            continue;
        }
        if let Some(ty) = PiiType::from_name(&text[name_start..close].to_ascii_lowercase()) {
            found.push(Placeholder {
                ty,
                start,
                end: close + 1,
            });
            from = close + 1;
        }
    }
    found
}

/// At most `n` of `items`, spread evenly (all of them when there are no more than `n`).
pub fn spread<T: Copy>(items: &[T], n: usize) -> Vec<T> {
    if items.len() <= n {
        return items.to_vec();
    }
    (0..n).map(|i| items[i * items.len() / n]).collect()
}

/// The placeholder marked `<<...>>` with up to `CONTEXT_CHARS` characters of masked text either side.
pub fn context(text: &str, placeholder: &Placeholder) -> String {
    let before = &text[..placeholder.start];
    let left = before
        .char_indices()
        .rev()
        .nth(CONTEXT_CHARS - 1)
        .map_or(0, |(at, _)| at);
    let after = &text[placeholder.end..];
    let right = after
        .char_indices()
        .nth(CONTEXT_CHARS)
        .map_or(after.len(), |(at, _)| at);
    format!(
        "{}<<{}>>{}",
        &before[left..],
        &text[placeholder.start..placeholder.end],
        &after[..right]
    )
}

const SYSTEM: &str = "You audit a personal-data masker. Each item is a placeholder [MASKED_<TYPE>], marked \
<<like this>>, in the text around it; other personal data in that text is masked as well. Judge from the \
surroundings alone whether the marked placeholder most likely replaced personal data of its type (a \
person's name, not a product, company, place or heading; an address of a person or household; a date \
of birth, not another date; a phone number, e-mail address or identifier of a person). Answer every \
item by its id with personal true or false.";

fn answer_schema() -> Value {
    json!({
        "type": "object",
        "additionalProperties": false,
        "required": ["judgements"],
        "properties": {"judgements": {"type": "array", "items": {
            "type": "object", "additionalProperties": false, "required": ["id", "personal"],
            "properties": {"id": {"type": "integer"}, "personal": {"type": "boolean"}}}}},
    })
}

/// The LLM's judgement of each item of one batch, by id; every item must be answered.
fn judgements(answer: &Value, ids: &[usize]) -> Result<BTreeMap<usize, bool>, String> {
    let listed = answer["judgements"]
        .as_array()
        .ok_or("no `judgements` list in the answer")?;
    let mut judged = BTreeMap::new();
    for item in listed {
        let id = item["id"]
            .as_u64()
            .ok_or("a judgement without an integer id")?;
        let personal = item["personal"]
            .as_bool()
            .ok_or("a judgement without a boolean `personal`")?;
        judged.insert(id as usize, personal);
    }
    match ids.iter().find(|id| !judged.contains_key(id)) {
        Some(id) => Err(format!("item {id} was not judged")),
        None => Ok(judged),
    }
}

/// The LLM's verdicts on a sample of the placeholders of the types without a check; whether it was
/// asked.
async fn context_verdicts(
    audits: &Audits<'_>,
    reading: &Reading,
    types: &[PiiType],
    verdicts: &mut BTreeMap<PiiType, Verdicts>,
) -> Result<bool, AuditError> {
    let all = placeholders(&reading.masked_text);
    let mut items = Vec::new();
    for ty in types {
        let of_type: Vec<Placeholder> = all.iter().filter(|p| p.ty == *ty).copied().collect();
        items.extend(spread(&of_type, SAMPLE_PER_TYPE));
    }
    if items.is_empty() {
        return Ok(false);
    }
    if !audits.llm.is_configured() {
        return Err(AuditError::Llm(LlmError::Disabled));
    }
    for (batch_number, batch) in items.chunks(BATCH).enumerate() {
        let ids: Vec<usize> = (0..batch.len()).map(|i| batch_number * BATCH + i).collect();
        let listed: Vec<Value> = batch
            .iter()
            .zip(&ids)
            .map(|(placeholder, id)| {
                json!({"id": id, "type": placeholder.ty.name(),
                    "context": context(&reading.masked_text, placeholder)})
            })
            .collect();
        let answer = audits
            .llm
            .chat_json(
                "placeholder_judgements",
                SYSTEM,
                &json!({ "items": listed }).to_string(),
                &answer_schema(),
            )
            .await
            .map_err(AuditError::Llm)?;
        let judged = judgements(&answer, &ids)
            .map_err(|reason| AuditError::Llm(LlmError::BadResponse(reason)))?;
        for (placeholder, id) in batch.iter().zip(&ids) {
            let entry = verdicts.entry(placeholder.ty).or_default();
            entry.judged += 1;
            entry.confirmed += u64::from(judged[id]);
        }
    }
    Ok(true)
}

/// One detector's line: `expected` and the ratio from its verdicts, `null` without any.
pub fn detector_line(ty: PiiType, masked: u64, verdicts: Option<(u64, u64)>) -> Value {
    let method = if has_checksum(ty) { "checksum" } else { "llm" };
    let Some((judged, confirmed)) = verdicts.filter(|(judged, _)| *judged > 0) else {
        return json!({"detector": ty.name(), "method": method, "masked": masked,
            "expected": null, "over_masking_ratio": null, "flag": false, "judged": 0, "confirmed": 0});
    };
    let expected = ((masked as f64) * (confirmed as f64) / (judged as f64)).round() as u64;
    let ratio = if masked == 0 {
        0.0
    } else {
        (masked - expected.min(masked)) as f64 / masked as f64
    };
    json!({"detector": ty.name(), "method": method, "masked": masked, "expected": expected,
        "over_masking_ratio": (ratio * 10_000.0).round() / 10_000.0, "flag": ratio > FLAG_ABOVE,
        "judged": judged, "confirmed": confirmed})
}

/// Runs the precision analysis of `execution_id` and keeps it in `result_meta.pii_precision`.
pub async fn pii_precision(audits: &Audits<'_>, execution_id: i64) -> Result<Value, AuditError> {
    let execution = super::execution(audits, execution_id).await?;
    let meta: Value = serde_json::from_str(&execution.result_meta).unwrap_or(Value::Null);
    let Some(summary) = meta["pii_type_summary"].as_object() else {
        return Err(AuditError::NotCompleted(format!(
            "execution {} has no pii_type_summary: it did not complete",
            execution.id
        )));
    };
    let masked: BTreeMap<PiiType, u64> = summary
        .iter()
        .filter_map(|(name, count)| Some((PiiType::from_name(name)?, count.as_u64()?)))
        .filter(|(_, count)| *count > 0)
        .collect();
    let reading = reading(audits, &execution).await?;
    let mut verdicts = BTreeMap::new();
    checksum_verdicts(&reading, &mut verdicts);
    let judged_by_llm: Vec<PiiType> = masked
        .keys()
        .copied()
        .filter(|ty| !has_checksum(*ty))
        .collect();
    let asked = context_verdicts(audits, &reading, &judged_by_llm, &mut verdicts).await?;
    let detectors: Vec<Value> = masked
        .iter()
        .map(|(ty, count)| {
            detector_line(
                *ty,
                *count,
                verdicts.get(ty).map(|v| (v.judged, v.confirmed)),
            )
        })
        .collect();
    let flagged: Vec<&Value> = detectors
        .iter()
        .filter(|d| d["flag"] == true)
        .map(|d| &d["detector"])
        .collect();
    let outcome = json!({
        "detectors": detectors,
        "flagged": flagged,
        "threshold": FLAG_ABOVE,
        "source": if reading.raw.is_some() { "original" } else { "stored_result" },
        "model": if asked { audits.llm.model().into() } else { Value::Null },
        "at": crate::clock::rfc3339(audits.clock.now()),
    });
    audits
        .store
        .record_quality(execution.id, "pii_precision", &outcome, None)
        .await?;
    Ok(
        json!({"execution_id": execution.id, "tenant_id": execution.tenant_id, "pii_precision": outcome}),
    )
}

/// The report over executions' `result_meta` (newest first): per detector, over the executions whose
/// precision was analysed and judged it, `executions`, `masked`, `expected`, `over_masking_ratio` and
/// `flagged` (executions where it was flagged), worst ratio first; and the cross-validations among
/// the same executions (`executions`, `flagged`, `mean_delta`).
pub fn report(metas: &[Value]) -> Value {
    #[derive(Default)]
    struct Sum {
        /// Executions in range that masked at least one value of the type, and how many in all.
        executions: u64,
        masked: u64,
        /// Of those, the executions whose precision run verified the detector, their masked
        /// values and what the second opinion expected.
        analysed: u64,
        analysed_masked: u64,
        expected: u64,
        flagged: u64,
        unverified: u64,
    }
    let mut sums: BTreeMap<String, Sum> = BTreeMap::new();
    let (mut analysed, mut validated, mut validation_flags, mut deltas) = (0, 0, 0, 0.0);
    for meta in metas {
        // Every execution counts what it masked, analysed or not: its summary, or where that lacks a
        // detector its precision run's own count.
        let mut masked: BTreeMap<String, u64> = meta["pii_type_summary"]
            .as_object()
            .map(|summary| {
                summary
                    .iter()
                    .map(|(name, count)| (name.clone(), count.as_u64().unwrap_or(0)))
                    .collect()
            })
            .unwrap_or_default();
        for line in meta["pii_precision"]["detectors"]
            .as_array()
            .into_iter()
            .flatten()
        {
            if let (Some(name), Some(count)) = (line["detector"].as_str(), line["masked"].as_u64())
            {
                masked.entry(name.to_string()).or_insert(count);
            }
        }
        for (name, count) in masked.into_iter().filter(|(_, count)| *count > 0) {
            let sum = sums.entry(name).or_default();
            sum.executions += 1;
            sum.masked += count;
        }
        if let Some(detectors) = meta["pii_precision"]["detectors"].as_array() {
            analysed += 1;
            for line in detectors {
                let Some(name) = line["detector"].as_str() else {
                    continue;
                };
                let sum = sums.entry(name.to_string()).or_default();
                match (line["masked"].as_u64(), line["expected"].as_u64()) {
                    (Some(masked), Some(expected)) => {
                        sum.analysed += 1;
                        sum.analysed_masked += masked;
                        sum.expected += expected.min(masked);
                        sum.flagged += u64::from(line["flag"] == true);
                    }
                    _ => sum.unverified += 1,
                }
            }
        }
        if let Some(delta) = meta["cross_validation"]["delta"].as_f64() {
            validated += 1;
            deltas += delta;
            validation_flags += u64::from(meta["cross_validation"]["flag"] == true);
        }
    }
    let mut detectors: Vec<Value> = sums
        .into_iter()
        .map(|(name, sum)| {
            let ratio = (sum.analysed_masked > 0)
                .then(|| (sum.analysed_masked - sum.expected) as f64 / sum.analysed_masked as f64)
                .map(|ratio| (ratio * 10_000.0).round() / 10_000.0);
            json!({"detector": name, "executions": sum.executions, "masked": sum.masked,
                "analysed": sum.analysed, "analysed_masked": sum.analysed_masked,
                "expected": (sum.analysed > 0).then_some(sum.expected),
                "over_masking_ratio": ratio, "flagged": sum.flagged, "unverified": sum.unverified})
        })
        .collect();
    detectors.sort_by(|a, b| {
        let ratio = |v: &Value| v["over_masking_ratio"].as_f64().unwrap_or(-1.0);
        ratio(b)
            .total_cmp(&ratio(a))
            .then_with(|| b["masked"].as_u64().cmp(&a["masked"].as_u64()))
    });
    json!({
        "executions": metas.len(),
        "analysed": analysed,
        "threshold": FLAG_ABOVE,
        "detectors": detectors,
        "cross_validation": {
            "executions": validated,
            "flagged": validation_flags,
            "mean_delta": (validated > 0).then(|| ((deltas / validated as f64) * 10_000.0).round() / 10_000.0),
        },
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn placeholders_are_found_with_their_types_and_unknown_names_skipped() {
        let text = "Sayın [MASKED_PERSON_NAME], [MASKED_NOPE] [MASKED_IBAN_TR]. [MASKED_EMAIL";
        let found = placeholders(text);
        assert_eq!(
            found.iter().map(|p| p.ty).collect::<Vec<_>>(),
            vec![PiiType::PersonName, PiiType::IbanTr]
        );
        assert_eq!(&text[found[1].start..found[1].end], "[MASKED_IBAN_TR]");
    }

    #[test]
    fn the_context_marks_its_placeholder_and_cuts_on_characters() {
        let text = format!(
            "{}Ad: [MASKED_PERSON_NAME] ğ{}",
            "ş".repeat(300),
            "ü".repeat(300)
        );
        let found = placeholders(&text);
        let shown = context(&text, &found[0]);
        assert!(shown.contains("Ad: <<[MASKED_PERSON_NAME]>> ğ"), "{shown}");
        assert_eq!(
            shown.chars().count(),
            2 * CONTEXT_CHARS + "<<[MASKED_PERSON_NAME]>>".len()
        );
    }

    #[test]
    fn a_sample_is_spread_over_the_whole_list() {
        let items: Vec<usize> = (0..100).collect();
        assert_eq!(spread(&items, 4), vec![0, 25, 50, 75]);
        assert_eq!(spread(&items[..3], 4), vec![0, 1, 2]);
    }

    #[test]
    fn expected_scales_the_confirmed_share_and_flags_above_fifteen_percent() {
        let line = detector_line(PiiType::PersonName, 10, Some((5, 3)));
        assert_eq!(line["expected"], 6);
        assert_eq!(line["over_masking_ratio"], 0.4);
        assert_eq!(line["flag"], true);
        assert_eq!(line["method"], "llm");
        let fine = detector_line(PiiType::IbanTr, 20, Some((20, 18)));
        assert_eq!(fine["over_masking_ratio"], 0.1);
        assert_eq!(fine["flag"], false);
        assert_eq!(fine["method"], "checksum");
        let none = detector_line(PiiType::IbanTr, 3, None);
        assert!(none["expected"].is_null() && none["flag"] == false);
    }

    #[test]
    fn every_item_of_a_batch_must_be_judged() {
        let answer =
            json!({"judgements": [{"id": 4, "personal": true}, {"id": 5, "personal": false}]});
        assert!(!judgements(&answer, &[4, 5]).expect("all")[&5]);
        assert!(judgements(&answer, &[4, 5, 6]).is_err());
        assert!(judgements(&json!({"items": []}), &[1]).is_err());
    }

    #[test]
    fn the_report_sums_detectors_and_cross_validations() {
        let metas = vec![
            json!({"pii_precision": {"detectors": [
                detector_line(PiiType::PersonName, 10, Some((10, 4))),
                detector_line(PiiType::IbanTr, 2, Some((2, 2))),
            ]}, "cross_validation": {"delta": 0.5, "flag": true}}),
            json!({"pii_precision": {"detectors": [
                detector_line(PiiType::PersonName, 10, Some((10, 10))),
                detector_line(PiiType::IbanTr, 1, None),
            ]}, "cross_validation": {"delta": 0.1, "flag": false}}),
            json!({"pii_type_summary": {"email": 1}}),
        ];
        let report = report(&metas);
        assert_eq!(report["executions"], 3);
        assert_eq!(report["analysed"], 2);
        let names = &report["detectors"][0];
        assert_eq!(names["detector"], "person_name");
        assert_eq!(
            (names["masked"].as_u64(), names["expected"].as_u64()),
            (Some(20), Some(14))
        );
        assert_eq!(names["over_masking_ratio"], 0.3);
        assert_eq!(names["flagged"], 1);
        let iban = &report["detectors"][1];
        assert_eq!(
            (
                iban["executions"].as_u64(),
                iban["analysed"].as_u64(),
                iban["unverified"].as_u64()
            ),
            (Some(2), Some(1), Some(1))
        );
        assert_eq!(report["cross_validation"]["flagged"], 1);
        assert_eq!(report["cross_validation"]["mean_delta"], 0.3);
        // The execution no precision run saw still counts what it masked; nothing is expected of it.
        let email = report["detectors"]
            .as_array()
            .and_then(|lines| lines.iter().find(|line| line["detector"] == "email"))
            .expect("the unanalysed execution's detector");
        assert_eq!(
            (email["executions"].as_u64(), email["masked"].as_u64()),
            (Some(1), Some(1))
        );
        assert!(
            email["expected"].is_null() && email["analysed"] == 0,
            "{email}"
        );
    }
}
