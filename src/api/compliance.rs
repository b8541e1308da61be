//! GET /v1/compliance/processing-record: the caller's record of processing (GDPR Art. 30, KVKK's VERBİS
//! inventory): the categories of personal data its documents held (by type, with counts and first and
//! last seen), purposes, recipients (webhook hosts, connectors, the fine-tune provider, the LLM) marked
//! when outside Turkey and the EU/EEA by configured country, retention per kind of data, and the security
//! measures in force. As JSON or Markdown.

use std::collections::BTreeMap;

use actix_web::{get, web, HttpResponse};
use docsieve_actors::settings::Plan;
use docsieve_actors::store::{Destinations, PiiCategory};
use serde_json::{json, Value};
use utoipa_actix_web::service_config::ServiceConfig;

use crate::api::common::rfc3339;
use crate::auth::Authenticated;
use crate::error::ApiError;
use crate::state::AppState;
use crate::validation::{Query, Violations};

/// EU member states and the other EEA countries (adequate by law), and Turkey: recipients elsewhere
/// are transfers abroad under both KVKK and GDPR.
const HOME: &[&str] = &[
    "TR", "AT", "BE", "BG", "HR", "CY", "CZ", "DK", "EE", "FI", "FR", "DE", "GR", "HU", "IE", "IT",
    "LV", "LT", "LU", "MT", "NL", "PL", "PT", "RO", "SK", "SI", "ES", "SE", "IS", "LI", "NO",
];

/// The kind of personal data a type is, for the record's categories.
fn kind_of(pii_type: &str) -> &'static str {
    let has = |parts: &[&str]| parts.iter().any(|p| pii_type.contains(p));
    if has(&["nhs", "npi", "health"]) {
        "health data (special category: GDPR Art. 9, KVKK Art. 6)"
    } else if has(&["iban", "credit_card", "aba", "tax", "vat", "ein", "crypto"]) {
        "financial"
    } else if has(&["email", "phone", "address"]) {
        "contact"
    } else if has(&["ip_", "mac", "imei", "ipv"]) {
        "online identifier"
    } else if has(&["plate", "vin"]) {
        "vehicle"
    } else if has(&["birth", "date"]) {
        "demographic"
    } else if has(&["name", "person"]) {
        "identity"
    } else {
        "official identifier"
    }
}

fn host_of(url: &str) -> Option<String> {
    url::Url::parse(url)
        .ok()
        .and_then(|u| u.host_str().map(str::to_string))
}

/// A recipient, with its country (configured, or read from an AWS region) and whether data going to
/// it leaves Turkey and the EU/EEA.
fn recipient(
    state: &AppState,
    kind: &str,
    name: String,
    host: Option<String>,
    region_country: Option<String>,
) -> Value {
    let configured = host
        .as_ref()
        .and_then(|h| state.settings.compliance.recipient_countries.get(h))
        .cloned();
    let country = configured.or(region_country);
    let transfer = match &country {
        Some(code) => Value::Bool(!HOME.contains(&code.to_ascii_uppercase().as_str())),
        None => Value::String("unknown: set compliance.recipient_countries".into()),
    };
    json!({"kind": kind, "name": name, "host": host, "country": country, "outside_tr_eu": transfer})
}

/// The country of an AWS region (`eu-central-1` → DE), when it is in the EU or plainly elsewhere.
fn aws_region_country(region: &str) -> Option<String> {
    let table = [
        ("eu-central-1", "DE"),
        ("eu-central-2", "CH"),
        ("eu-west-1", "IE"),
        ("eu-west-2", "GB"),
        ("eu-west-3", "FR"),
        ("eu-north-1", "SE"),
        ("eu-south-1", "IT"),
        ("eu-south-2", "ES"),
        ("us-", "US"),
        ("ca-", "CA"),
        ("ap-", "APAC"),
        ("sa-", "BR"),
        ("me-", "ME"),
        ("af-", "ZA"),
        ("il-", "IL"),
    ];
    table
        .iter()
        .find(|(prefix, _)| {
            region == *prefix || (prefix.ends_with('-') && region.starts_with(prefix))
        })
        .map(|(_, country)| country.to_string())
}

fn recipients(state: &AppState, destinations: &Destinations) -> Vec<Value> {
    let mut list = Vec::new();
    let hosts: std::collections::BTreeSet<String> = destinations
        .webhook_urls
        .iter()
        .filter_map(|u| host_of(u))
        .collect();
    for host in hosts {
        list.push(recipient(
            state,
            "webhook",
            format!("webhook receiver {host}"),
            Some(host),
            None,
        ));
    }
    for (kind, config) in &destinations.connectors {
        let endpoint = config["endpoint"].as_str().and_then(host_of);
        let (bucket, host, region) = match kind.as_str() {
            "s3" => (
                config["bucket"].as_str().unwrap_or_default().to_string(),
                endpoint.or_else(|| Some("s3.amazonaws.com".into())),
                config["region"].as_str().map(str::to_string),
            ),
            "azure_blob" => (
                config["container_name"]
                    .as_str()
                    .unwrap_or_default()
                    .to_string(),
                endpoint.or_else(|| {
                    config["account_name"]
                        .as_str()
                        .map(|a| format!("{a}.blob.core.windows.net"))
                }),
                None,
            ),
            _ => (
                config["bucket"].as_str().unwrap_or_default().to_string(),
                endpoint.or_else(|| Some("storage.googleapis.com".into())),
                None,
            ),
        };
        let region_country = region.as_deref().and_then(aws_region_country);
        list.push(recipient(
            state,
            "connector",
            format!("{kind} {bucket}"),
            host,
            region_country,
        ));
    }
    if destinations.fine_tune_jobs > 0 {
        let host = host_of(&state.settings.fine_tune.provider_url);
        list.push(recipient(
            state,
            "fine_tune_provider",
            "model provider (fine-tuning: masked training rows)".into(),
            host,
            None,
        ));
    }
    if !state.settings.llm.url.is_empty() {
        let host = host_of(&state.settings.llm.url);
        list.push(recipient(
            state,
            "llm",
            "LLM (quality cross-validation: masked text only)".into(),
            host,
            None,
        ));
    }
    list
}

/// A retention period as the record says it.
fn period(days: Option<i64>, since: &str) -> String {
    match days {
        Some(days) => format!(
            "{days} days after {since}, then destroyed by the scheduled destruction run and logged (GET /v1/compliance/destruction-log)"
        ),
        None => "until the tenant deletes the document or the account".to_string(),
    }
}

fn record(
    state: &AppState,
    auth: &Authenticated,
    retention: docsieve_actors::retention::RetentionInForce,
    plan: Plan,
    categories: &[PiiCategory],
    destinations: &Destinations,
) -> Value {
    let retention_days = state.settings.plans.get(plan).export_retention_days;
    let mut purposes = vec![
        "detecting and masking personal data in documents the tenant submits",
        "building masked datasets and exporting them to the tenant",
    ];
    if destinations.fine_tune_jobs > 0 {
        purposes.push("handing masked training data to a model provider for fine-tuning, on the tenant's request");
    }
    if !state.settings.llm.url.is_empty() {
        purposes.push("quality control: comparing extraction results with an LLM's reading of the masked text");
    }
    let mut by_kind: BTreeMap<&str, Vec<&PiiCategory>> = BTreeMap::new();
    for category in categories {
        by_kind
            .entry(kind_of(&category.pii_type))
            .or_default()
            .push(category);
    }
    json!({
        "tenant_id": auth.tenant_id,
        "plan": plan.as_str(),
        "generated_at": rfc3339(state.clock.now()),
        "controller": "the tenant (it decides which documents are processed and why)",
        "processor": format!("docsieve {} (this service), operated in {}", env!("CARGO_PKG_VERSION"), state.settings.compliance.service_country),
        "data_subjects": "people named in the documents the tenant submits (customers, employees, correspondents)",
        "categories": categories.iter().map(|c| json!({
            "type": c.pii_type, "kind": kind_of(&c.pii_type), "count": c.count,
            "executions": c.executions, "first_seen": rfc3339(c.first_seen), "last_seen": rfc3339(c.last_seen),
        })).collect::<Vec<_>>(),
        "kinds": by_kind.iter().map(|(kind, list)| json!({
            "kind": kind, "types": list.iter().map(|c| c.pii_type.clone()).collect::<Vec<_>>(),
            "count": list.iter().map(|c| c.count).sum::<u64>(),
        })).collect::<Vec<_>>(),
        "purposes": purposes,
        "recipients": recipients(state, destinations),
        "retention": [
            {"data": "uploaded and fetched originals", "period": period(retention.originals_days, "the document was received")},
            {"data": "processing results (extracted, masked text)", "period": period(retention.results_days, "the document was processed")},
            {"data": "copies of connector objects", "period": "until the document is processed (the connector keeps the original)"},
            {"data": "dataset export files", "period": format!("{retention_days} days ({} plan), written again on request", plan.as_str())},
            {"data": "webhook deliveries and the audit log", "period": "until the account is deleted"},
        ],
        "security_measures": [
            "personal data is masked fail-closed: a value whose checksum holds is masked whatever else is odd about it; a document that cannot be masked safely is refused",
            "only masked text is sent to an LLM or a fine-tuning provider",
            "originals, results and exports sealed at rest with AES-256-GCM under a data key per tenant, wrapped by the server's master key",
            "connector and webhook secrets sealed at rest with AES-256-GCM; passwords hashed with argon2id; API keys and refresh tokens stored as SHA-256 digests",
            "tenant isolation on every query; roles (owner, admin, member) on every route",
            "documents read in isolated worker processes with resource limits",
            "an append-only audit log of account, data and configuration changes",
        ],
    })
}

fn markdown(record: &Value) -> String {
    let mut out = String::new();
    let text = |v: &Value| v.as_str().map_or_else(|| v.to_string(), str::to_string);
    out.push_str("# Record of processing activities\n\n");
    out.push_str(&format!(
        "Tenant {} ({} plan), generated {}.\n\n- Controller: {}\n- Processor: {}\n- Data subjects: {}\n\n",
        record["tenant_id"], text(&record["plan"]), text(&record["generated_at"]),
        text(&record["controller"]), text(&record["processor"]), text(&record["data_subjects"])
    ));
    out.push_str("## Categories of personal data\n\n| type | kind | count | executions | first seen | last seen |\n|---|---|---|---|---|---|\n");
    for c in record["categories"].as_array().into_iter().flatten() {
        out.push_str(&format!(
            "| {} | {} | {} | {} | {} | {} |\n",
            text(&c["type"]),
            text(&c["kind"]),
            c["count"],
            c["executions"],
            text(&c["first_seen"]),
            text(&c["last_seen"])
        ));
    }
    out.push_str("\n## Purposes\n\n");
    for p in record["purposes"].as_array().into_iter().flatten() {
        out.push_str(&format!("- {}\n", text(p)));
    }
    out.push_str("\n## Recipients\n\n| kind | recipient | host | country | outside Turkey and the EU/EEA |\n|---|---|---|---|---|\n");
    for r in record["recipients"].as_array().into_iter().flatten() {
        out.push_str(&format!(
            "| {} | {} | {} | {} | {} |\n",
            text(&r["kind"]),
            text(&r["name"]),
            text(&r["host"]),
            text(&r["country"]),
            text(&r["outside_tr_eu"])
        ));
    }
    out.push_str("\n## Retention\n\n");
    for r in record["retention"].as_array().into_iter().flatten() {
        out.push_str(&format!("- {}: {}\n", text(&r["data"]), text(&r["period"])));
    }
    out.push_str("\n## Security measures\n\n");
    for m in record["security_measures"].as_array().into_iter().flatten() {
        out.push_str(&format!("- {}\n", text(m)));
    }
    out
}

/// The caller's record of processing.
#[utoipa::path(get, path = "/v1/compliance/processing-record", operation_id = "get_processing_record", tag = "compliance",
    params(("format" = Option<super::vocab::RecordFormat>, Query, description = "`json` (default) or `markdown`")),
    responses(
        (status = 200, content((super::ReportEnvelope = "application/json"), (String = "text/markdown")), description = "`{data: {tenant_id, plan, generated_at, controller, processor, data_subjects, categories: [{type, kind, count, executions, first_seen, last_seen}], kinds, purposes, recipients: [{kind, name, host, country, outside_tr_eu}], retention, security_measures}}`, or the same as Markdown (text/markdown)"),
        (status = 401, body = crate::error::ErrorBody),
        (status = 422, body = crate::error::ValidationErrorBody)
    ),
    security(("api_key" = []), ("bearer" = [])))]
#[get("/v1/compliance/processing-record")]
pub async fn processing_record(
    state: web::Data<AppState>,
    auth: Authenticated,
    query: Query,
) -> Result<HttpResponse, ApiError> {
    let mut violations = Violations::default();
    let format = query.choice("format", "json", &["json", "markdown"], &mut violations);
    violations.finish()?;
    let plan = state.store.plan_in_force(auth.tenant_id).await?;
    let categories = state.store.pii_categories(auth.tenant_id).await?;
    let destinations = state.store.destinations(auth.tenant_id).await?;
    let retention = docsieve_actors::retention::retention_of(
        &state.store,
        &state.settings.plans,
        auth.tenant_id,
    )
    .await?;
    let record = record(&state, &auth, retention, plan, &categories, &destinations);
    Ok(if format == "markdown" {
        HttpResponse::Ok()
            .content_type("text/markdown; charset=utf-8")
            .body(markdown(&record))
    } else {
        HttpResponse::Ok().json(json!({ "data": record }))
    })
}

/// This resource's routes.
pub fn configure(cfg: &mut ServiceConfig) {
    cfg.service(processing_record);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn types_have_kinds_and_regions_countries() {
        assert_eq!(kind_of("iban_tr"), "financial");
        assert_eq!(kind_of("phone_tr"), "contact");
        assert_eq!(kind_of("national_id_tr"), "official identifier");
        assert!(kind_of("nhs_number_uk").starts_with("health"));
        assert_eq!(aws_region_country("eu-central-1").as_deref(), Some("DE"));
        assert_eq!(aws_region_country("us-east-1").as_deref(), Some("US"));
        assert_eq!(aws_region_country("xx"), None);
    }
}
