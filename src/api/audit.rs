//! GET /v1/audit/export: the tenant's audit entries as JSON Lines or CSV, streamed page by page so a
//! long history never sits in memory. Entries never hold raw personal data or file content.

use actix_web::{get, web, HttpResponse};
use chrono::{DateTime, NaiveDate, Utc};
use docsieve_actors::store::AuditEntryRecord;
use futures_util::stream;
use serde_json::{json, Value};
use utoipa_actix_web::service_config::ServiceConfig;

use crate::accounts;
use crate::api::common::rfc3339;
use crate::auth::Authenticated;
use crate::error::{ApiError, ValidationDetail};
use crate::state::AppState;
use crate::validation::{Query, Violations};

const BATCH: u64 = 1000;
const CSV_COLUMNS: &[&str] = &[
    "id",
    "created_at",
    "actor_type",
    "actor_id",
    "action",
    "target_type",
    "target_id",
    "outcome",
    "ip",
    "details",
];

/// An RFC 3339 time or a `YYYY-MM-DD` date (midnight UTC).
fn parse_time(query: &Query, name: &str, violations: &mut Violations) -> Option<DateTime<Utc>> {
    let raw = query.get(name)?;
    if let Ok(time) = DateTime::parse_from_rfc3339(raw.trim()) {
        return Some(time.with_timezone(&Utc));
    }
    if let Some(midnight) = NaiveDate::parse_from_str(raw.trim(), "%Y-%m-%d")
        .ok()
        .and_then(|date| date.and_hms_opt(0, 0, 0))
    {
        return Some(midnight.and_utc());
    }
    violations.push(ValidationDetail::new(
        "query",
        name,
        "must be an RFC 3339 time (2026-11-22T10:00:00Z) or a date (2026-11-22)",
        "datetime_parsing",
    ));
    None
}

fn entry_json(entry: &AuditEntryRecord) -> Value {
    json!({
        "id": entry.id,
        "created_at": rfc3339(entry.created_at),
        "tenant_id": entry.tenant_id,
        "actor_type": entry.actor_type,
        "actor_id": entry.actor_id,
        "action": entry.action,
        "target_type": entry.target_type,
        "target_id": entry.target_id,
        "outcome": entry.outcome,
        "ip": entry.ip,
        "details": serde_json::from_str::<Value>(&entry.details).unwrap_or(Value::Null),
    })
}

fn csv_bytes(entries: &[AuditEntryRecord], header: bool) -> Result<Vec<u8>, csv::Error> {
    let mut writer = csv::WriterBuilder::new()
        .terminator(csv::Terminator::CRLF)
        .from_writer(Vec::new());
    if header {
        writer.write_record(CSV_COLUMNS)?;
    }
    for entry in entries {
        writer.write_record([
            entry.id.to_string(),
            rfc3339(entry.created_at),
            entry.actor_type.clone(),
            entry.actor_id.clone().unwrap_or_default(),
            entry.action.clone(),
            entry.target_type.clone().unwrap_or_default(),
            entry.target_id.clone().unwrap_or_default(),
            entry.outcome.clone(),
            entry.ip.clone().unwrap_or_default(),
            entry.details.clone(),
        ])?;
    }
    writer
        .into_inner()
        .map_err(|error| csv::Error::from(error.into_error()))
}

/// Downloads the tenant's audit log (owners and admins).
#[utoipa::path(get, path = "/v1/audit/export", operation_id = "export_audit_log", tag = "audit",
    params(
        ("format" = Option<super::vocab::AuditFormat>, Query, description = "`jsonl` (default) or `csv`"),
        ("from" = Option<String>, Query, description = "Entries at or after this time (RFC 3339 or YYYY-MM-DD)"),
        ("to" = Option<String>, Query, description = "Entries before this time (RFC 3339 or YYYY-MM-DD)")
    ),
    responses(
        (status = 200, content((String = "application/x-ndjson"), (String = "text/csv")), description = "application/x-ndjson or text/csv attachment; fields id, created_at, tenant_id, actor_type, actor_id, action, target_type, target_id, outcome, ip, details"),
        (status = 401, body = crate::error::ErrorBody),
        (status = 403, body = crate::error::ErrorBody),
        (status = 422, body = crate::error::ValidationErrorBody)
    ),
    security(("api_key" = []), ("bearer" = [])))]
#[get("/v1/audit/export")]
pub async fn export(
    state: web::Data<AppState>,
    auth: Authenticated,
    query: Query,
) -> Result<HttpResponse, ApiError> {
    let mut violations = Violations::default();
    let format = query.choice("format", "jsonl", &["jsonl", "csv"], &mut violations);
    let from = parse_time(&query, "from", &mut violations);
    let to = parse_time(&query, "to", &mut violations);
    if let (Some(from), Some(to)) = (from, to) {
        if from >= to {
            violations.push(ValidationDetail::new(
                "query",
                "to",
                "`to` must be later than `from`",
                "value_error",
            ));
        }
    }
    violations.finish()?;
    auth.require_role(&["owner", "admin"])?;
    accounts::audit(
        &state,
        auth.audit(
            "audit_export",
            None,
            json!({"format": format, "from": from.map(rfc3339), "to": to.map(rfc3339)}),
        ),
    )
    .await;
    let tenant_id = auth.tenant_id;
    let csv = format == "csv";
    let store = state.store.clone();
    // State: (last id sent, first batch?, finished?).
    let body = stream::unfold((0_i64, true, false), move |(after, first, done)| {
        let store = store.clone();
        async move {
            if done {
                return None;
            }
            let entries = match store.audit_entries(tenant_id, from, to, after, BATCH).await {
                Ok(entries) => entries,
                Err(error) => {
                    tracing::error!(%error, "audit export stopped");
                    return Some((
                        Err(actix_web::error::ErrorInternalServerError(
                            "audit export failed",
                        )),
                        (after, false, true),
                    ));
                }
            };
            let finished = (entries.len() as u64) < BATCH;
            let last = entries.last().map_or(after, |entry| entry.id);
            if entries.is_empty() && !(first && csv) {
                return None;
            }
            let chunk = if csv {
                csv_bytes(&entries, first).unwrap_or_default()
            } else {
                let mut out = Vec::new();
                for entry in &entries {
                    out.extend_from_slice(entry_json(entry).to_string().as_bytes());
                    out.push(b'\n');
                }
                out
            };
            Some((
                Ok::<_, actix_web::Error>(web::Bytes::from(chunk)),
                (last, false, finished),
            ))
        }
    });
    let (content_type, extension) = if csv {
        ("text/csv; charset=utf-8", "csv")
    } else {
        ("application/x-ndjson", "jsonl")
    };
    Ok(HttpResponse::Ok()
        .content_type(content_type)
        .insert_header((
            "Content-Disposition",
            format!("attachment; filename=\"audit-{tenant_id}.{extension}\""),
        ))
        .streaming(body))
}

/// This resource's routes.
pub fn configure(cfg: &mut ServiceConfig) {
    cfg.service(export);
}
