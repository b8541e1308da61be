//! /v1/data-process/*: synchronous preview of one uploaded file through the extractor pool and the
//! masker (under their bounds: a full pool answers 503 with Retry-After). Nothing is stored; the
//! preview is audited without content.

use actix_multipart::Multipart;
use actix_web::{post, web, HttpRequest, HttpResponse};
use docsieve_actors::extractor_pool::ExtractError;
use docsieve_actors::extractor_pool::Limits;
use docsieve_actors::pii_masker::MaskedDocument;
use docsieve_actors::pii_masker::{Operator, PiiType};
use docsieve_actors::pipeline::ProcessError;
use docsieve_actors::privacy::Narrowing;
use docsieve_actors::redaction::RedactError;
use docsieve_actors::store::CreditError;
use futures_util::TryStreamExt;
use utoipa_actix_web::service_config::ServiceConfig;

use crate::accounts;
use crate::auth::Authenticated;
use crate::error::{ApiError, ErrorCode, ErrorKind, ValidationDetail};
use crate::state::AppState;
use crate::validation::{Query, Violations};

pub(crate) fn missing_file() -> ApiError {
    ApiError::validation(vec![ValidationDetail::new(
        "body",
        "file",
        "field required: send the document as multipart form field 'file'",
        "missing",
    )])
}

/// The `file` field of a multipart body: its name and bytes.
/// The request's declared length, as a hint: the file's buffer is sized for it once instead of grown
/// by doubling, which held one and a half times a large file at the last growth (never more than
/// the limit; a length that lies only costs the doubling again).
pub(crate) fn declared_length(request: &HttpRequest) -> u64 {
    request
        .headers()
        .get(actix_web::http::header::CONTENT_LENGTH)
        .and_then(|value| value.to_str().ok())
        .and_then(|value| value.parse().ok())
        .unwrap_or(0)
}

pub(crate) async fn read_file(
    mut payload: Multipart,
    limit: u64,
    declared: u64,
) -> Result<(String, Vec<u8>), ApiError> {
    let failure = |error| super::common::multipart_failure("file", &error);
    while let Some(mut field) = payload.try_next().await.map_err(failure)? {
        let is_file = field.name() == Some("file");
        let filename = super::common::clean_filename(
            field
                .content_disposition()
                .and_then(|cd| cd.get_filename())
                .unwrap_or("upload"),
        );
        let mut bytes = if is_file {
            Vec::with_capacity(declared.min(limit) as usize)
        } else {
            Vec::new()
        };
        while let Some(chunk) = field.try_next().await.map_err(failure)? {
            if is_file {
                if (bytes.len() + chunk.len()) as u64 > limit {
                    return Err(ApiError::payload_too_large(limit as usize));
                }
                bytes.extend_from_slice(&chunk);
            }
        }
        if is_file {
            return Ok((filename, bytes));
        }
    }
    Err(missing_file())
}

/// 413 `result_too_large`, pointing at the path whose results have no such bound.
fn result_too_large(detail: &str) -> ApiError {
    ApiError::new(
        ErrorKind::PayloadTooLarge,
        ErrorCode::ResultTooLarge,
        format!(
            "the result is too large for a synchronous answer ({detail}); process the file with \
             POST /v1/data-process/async and read the execution's result instead"
        ),
    )
}

pub fn extract_error(error: ExtractError) -> ApiError {
    match &error {
        ExtractError::ResultTooLarge(detail) => return result_too_large(detail),
        ExtractError::Crashed(reason) => {
            tracing::warn!(reason, "a document crashed its extraction worker")
        }
        _ => {}
    }
    let kind = match &error {
        ExtractError::UnsupportedFormat(_) | ExtractError::LegacyFormat(_) => {
            ErrorKind::UnsupportedMediaType
        }
        ExtractError::LimitExceeded(_) | ExtractError::TimedOut(_) => ErrorKind::PayloadTooLarge,
        _ => ErrorKind::Validation,
    };
    let code = ErrorCode::from(&error);
    if kind == ErrorKind::Validation {
        return ApiError::validation(vec![ValidationDetail::new(
            "body",
            "file",
            error.to_string(),
            code.as_str(),
        )]);
    }
    ApiError::new(kind, code, error.to_string())
}

/// The tenant's privacy policy as this request narrows it, its engine policy, and the journal of the
/// pseudonyms it writes (when re-identification is on).
pub(crate) async fn tenant_engine(
    state: &AppState,
    tenant_id: i64,
    narrowing: &Narrowing,
) -> Result<
    (
        std::sync::Arc<docsieve_actors::privacy::TenantPolicy>,
        docsieve_actors::pii_masker::Policy,
        Option<docsieve_actors::pii_masker::Journal>,
    ),
    ApiError,
> {
    let mut policy = state
        .privacy
        .policy(tenant_id)
        .await
        .map_err(super::privacy::privacy_error)?;
    if !narrowing.is_empty() {
        policy = std::sync::Arc::new(policy.narrowed(narrowing));
    }
    let (engine, journal) = policy.recorded();
    Ok((policy, engine, journal))
}

/// The processing pipeline (extraction, then detection and masking when asked, by the tenant's
/// privacy policy) for one upload named `filename`; with the version of that policy, and the name as
/// the outputs show it (masked by the same engine and policy when the document is).
pub async fn extract_and_mask(
    state: &AppState,
    tenant_id: i64,
    (filename, bytes): (&str, Vec<u8>),
    limits: Limits,
    masked: bool,
    narrowing: &Narrowing,
) -> Result<(Box<MaskedDocument>, i64, String), ApiError> {
    let (policy, engine, journal) = tenant_engine(state, tenant_id, narrowing).await?;
    let name_engine = engine.clone();
    let result = state
        .actors
        .process(tenant_id, bytes.into(), limits, engine, masked)
        .await
        .map_err(process_error)?;
    let name = match masked {
        true => docsieve_actors::pii_masker::mask_file_name(filename, &name_engine),
        false => filename.to_string(),
    };
    // Re-identification on: the pseudonyms written go to the vault before the answer shows them.
    if let Some(journal) = journal {
        state
            .privacy
            .remember(tenant_id, &policy, &journal)
            .await
            .map_err(super::privacy::privacy_error)?;
    }
    Ok((result, policy.version, name))
}

/// An uploaded file after extraction and detection (and masking when asked).
struct Processed {
    /// The file's name as the outputs show it: masked when the document is.
    filename: String,
    size: usize,
    masked: bool,
    result: Box<MaskedDocument>,
    /// The tenant's privacy policy version it was processed under.
    policy_version: i64,
    /// How the request narrowed that policy, if it did.
    narrowed: Option<Narrowing>,
}

/// The query's narrowing of the tenant's policy: `types_off` (type names, comma-separated) and
/// `policy` (`tenant`, the default, or an operator that keeps no pseudonym: `placeholder`, `redact`).
pub(crate) fn narrowing(query: &Query, violations: &mut Violations) -> Narrowing {
    let mut narrowing = Narrowing::default();
    if let Some(list) = query.get("types_off") {
        for name in list
            .split(',')
            .map(str::trim)
            .filter(|name| !name.is_empty())
        {
            match PiiType::from_name(name) {
                Some(ty) => narrowing.types_off.push(ty),
                None => violations.push(ValidationDetail::new(
                    "query",
                    "types_off",
                    format!("unknown personal-data type {name:?} (see GET /v1/settings/privacy, `effective`)"),
                    "value_error.pii_type",
                )),
            }
        }
    }
    let choices: Vec<&str> = std::iter::once("tenant")
        .chain(Narrowing::OPERATORS.map(Operator::name))
        .collect();
    let chosen = query.choice("policy", "tenant", &choices, violations);
    narrowing.operator = Operator::from_name(chosen);
    narrowing
}

/// A preview's credit, reserved when it is accepted and settled when it ends: the pages it read
/// (at least one) once it succeeded, nothing when it failed or its client went away (the guard is
/// dropped then). The settlement runs on a task of its own, after the answer: it can only use credits
/// the reservation holds or give them back, so nobody waits for it.
pub(crate) struct PreviewCredit {
    state: web::Data<AppState>,
    tenant_id: i64,
    reference: Option<String>,
}

impl PreviewCredit {
    pub(crate) async fn reserve(
        state: &web::Data<AppState>,
        tenant_id: i64,
    ) -> Result<PreviewCredit, ApiError> {
        let reference = format!("preview:{}", docsieve_actors::store::new_id("pv"));
        state
            .store
            .reserve_credit(tenant_id, &reference, state.clock.now())
            .await
            .map_err(|error| match error {
                CreditError::Insufficient(short) => super::billing::insufficient_credits(&short),
                CreditError::Store(error) => error.into(),
            })?;
        Ok(PreviewCredit {
            state: state.clone(),
            tenant_id,
            reference: Some(reference),
        })
    }

    pub(crate) fn settle(mut self, credits: i64) {
        self.settle_later(credits);
    }

    /// Settles on a task of its own, once (the reference is taken).
    fn settle_later(&mut self, credits: i64) {
        let Some(reference) = self.reference.take() else {
            return;
        };
        let state = self.state.clone();
        let tenant_id = self.tenant_id;
        actix_web::rt::spawn(async move {
            if let Err(error) = state
                .store
                .settle_credit(tenant_id, &reference, credits, state.clock.now())
                .await
            {
                tracing::error!(%error, reference, "a preview's credit could not be settled; it stays reserved until its period closes");
            }
        });
    }
}

impl Drop for PreviewCredit {
    fn drop(&mut self) {
        self.settle_later(0);
    }
}

/// The shared front half of preview and CSV export: `masked` (default false), the `file` field, a
/// credit reserved, then [`extract_and_mask`]; the credit is settled with the pages read.
async fn process_upload(
    state: &web::Data<AppState>,
    tenant_id: i64,
    query: &Query,
    (request, payload): (&HttpRequest, Multipart),
) -> Result<Processed, ApiError> {
    let mut violations = Violations::default();
    let masked = query.boolean("masked", false, &mut violations);
    let narrowing = narrowing(query, &mut violations);
    violations.finish()?;
    let limits = state
        .settings
        .extraction
        .preview_limits(state.settings.actors.call_timeout_ms);
    let (filename, bytes) = read_file(payload, limits.max_bytes, declared_length(request)).await?;
    let size = bytes.len();
    let credit = PreviewCredit::reserve(state, tenant_id).await?;
    let result = extract_and_mask(
        state,
        tenant_id,
        (&filename, bytes),
        limits,
        masked,
        &narrowing,
    )
    .await;
    let credits = match &result {
        Ok((result, _, _)) => i64::from(result.document.metadata.pages.unwrap_or(1)).max(1),
        Err(_) => 0,
    };
    credit.settle(credits);
    let (result, policy_version, filename) = result?;
    Ok(Processed {
        filename,
        size,
        masked,
        result,
        policy_version,
        narrowed: (masked && !narrowing.is_empty()).then_some(narrowing),
    })
}

pub(crate) fn process_error(error: ProcessError) -> ApiError {
    match error {
        ProcessError::ExtractorUnavailable(error) | ProcessError::MaskerUnavailable(error) => {
            error.into()
        }
        ProcessError::Extract(error) => extract_error(error),
        // Like a document that cannot be read: a 422 whose `file` detail says why (it answered a
        // 422 with an empty detail list before).
        refused @ ProcessError::Refused => ApiError::validation(vec![ValidationDetail::new(
            "body",
            "file",
            refused.to_string(),
            ErrorCode::MaskingRefused.as_str(),
        )]),
        ProcessError::Masking(error) => ApiError::internal(&std::io::Error::other(error)),
        ProcessError::Redaction(error) => {
            let code = docsieve_actors::pipeline::redaction_code(&error);
            match error {
                RedactError::Unsupported(message) => {
                    ApiError::new(ErrorKind::UnsupportedMediaType, code, message)
                }
                RedactError::Limit(message) => {
                    ApiError::new(ErrorKind::PayloadTooLarge, code, message)
                }
                RedactError::Malformed(message) => {
                    ApiError::validation(vec![ValidationDetail::new(
                        "body",
                        "file",
                        message,
                        code.as_str(),
                    )])
                }
                RedactError::Refused(types) => ApiError::validation(vec![ValidationDetail::new(
                    "body",
                    "file",
                    format!(
                        "{}: the masked file would still hold {types}",
                        docsieve_actors::pipeline::MASKING_REFUSED
                    ),
                    code.as_str(),
                )]),
            }
        }
    }
}

/// Extracts the uploaded file and returns the document model with its personal-data findings;
/// `masked=true` masks every text-bearing part.
#[utoipa::path(post, path = "/v1/data-process/preview", operation_id = "preview_document", tag = "processing",
    params(("masked" = Option<bool>, Query, description = "Mask personal data in every part (default false)"),
        ("types_off" = Option<String>, Query, description = "Narrows the tenant's privacy policy for this request: personal-data types (comma-separated names) left as written; a type the tenant disabled stays disabled, and nothing widens the policy. Unknown names are a 422"),
        ("policy" = Option<String>, Query, description = "`tenant` (default): the tenant's operators; `placeholder` or `redact`: every type with that operator for this request (operators that keep no pseudonym; any other value is a 422)")),
    request_body(content_type = "multipart/form-data", content = super::openapi::FileUpload, description = "Form field `file`: the document"),
    responses(
        (status = 200, body = super::Envelope<PreviewBody>, description = "The document model plus `pii` {findings, pii_type_summary, pii_count}, `detected_language`, `quality`. Generic XML's leaf elements and attributes come as `key_value` elements `name: value`; keys (before ':' or '=', in any case) label the values after them; URL-encoded values are decoded and read as `key: value`; a key that says nothing (`value`, `text`) is labelled by its record; a PostgreSQL dump's COPY column list heads its rows, an SQL INSERT's values are read under its column list or its table's CREATE TABLE, and a JSON array of rows under its object's `columns` (names, or objects with a `name`) or its first row of names; a table whose cells ';' or '|' separate inside prose (an e-mail body's pasted list, a Markdown table) is read under its header line; JSON, JSON Lines and SQL files are text, never CSV. Privacy fails closed: a value whose checksum holds is masked even when its layout is odd (an IBAN length its country does not use, a Turkish reserve digit other than 0, a card issuer the table lacks), with its confidence lowered one step; a value right behind its own label that validates as the label's type takes that type (`PESEL: 02122401358` is a `national_id_pl`)"),
        (status = 401, body = crate::error::ErrorBody),
        (status = 402, description = "Too few credits left (`insufficient_credits`, with `balance` and `required`)", body = crate::error::InsufficientCreditsBody),
        (status = 413, body = crate::error::ErrorBody),
        (status = 415, body = crate::error::ErrorBody),
        (status = 422, body = crate::error::ValidationErrorBody),
        (status = 503, body = crate::error::ErrorBody)
    ),
    security(("api_key" = []), ("bearer" = [])))]
#[post("/v1/data-process/preview")]
pub async fn preview(
    state: web::Data<AppState>,
    auth: Authenticated,
    query: Query,
    request: HttpRequest,
    payload: Multipart,
) -> Result<HttpResponse, ApiError> {
    let Processed {
        filename,
        size,
        masked,
        result,
        policy_version,
        narrowed,
    } = process_upload(&state, auth.tenant_id, &query, (&request, payload)).await?;
    let pii_count: u64 = result.summary.values().sum();
    // Serialized straight from the model (no intermediate JSON tree: a long document's answer is large).
    let body = super::Envelope {
        data: PreviewBody {
            document: &result.document,
            masked,
            policy_version,
            narrowed: narrowed.as_ref(),
            detected_language: &result.document.language.code,
            pii: PreviewPii {
                findings: &result.findings,
                pii_type_summary: &result.summary,
                pii_count,
            },
        },
    };
    let details = serde_json::json!({
        "format": result.document.metadata.format,
        "bytes": size,
        "masked": masked,
        "policy_version": policy_version,
        "narrowed": narrowed,
        "pii_count": pii_count,
        "file_extension": filename.rsplit('.').next().filter(|e| e.len() <= 5),
    });
    accounts::audit(&state, auth.audit("preview", None, details)).await;
    // Written into a buffer sized for the body up front (the text twice, once whole and once in its
    // elements, plus a finding's worth of keys per finding), not grown by doubling.
    let estimate = 2 * result.document.text.len()
        + 64 * result.document.elements.len()
        + 160 * result.findings.len()
        + 1024;
    let mut json = Vec::with_capacity(estimate);
    serde_json::to_writer(&mut json, &body).map_err(|error| ApiError::internal(&error))?;
    let bound = state.settings.extraction.preview_max_bytes;
    if json.len() as u64 > bound {
        return Err(result_too_large(&format!(
            "{} bytes of JSON, more than extraction.preview_max_bytes = {bound}",
            json.len()
        )));
    }
    Ok(HttpResponse::Ok()
        .content_type(actix_web::http::header::ContentType::json())
        .body(json))
}

/// The document model with the preview's own keys beside its fields.
#[derive(serde::Serialize, utoipa::ToSchema)]
#[schema(as = PreviewResult)]
pub struct PreviewBody<'a> {
    #[serde(flatten)]
    #[schema(value_type = docsieve_actors::model::Document)]
    document: &'a docsieve_actors::model::Document,
    /// Whether every text-bearing part was masked.
    masked: bool,
    /// The version of the tenant's privacy policy the document was processed under (0: the default
    /// policy of a tenant that never set one; see `GET /v1/settings/privacy`).
    policy_version: i64,
    /// How the request narrowed the policy (`types_off`, `policy`); null when it did not.
    narrowed: Option<&'a Narrowing>,
    /// ISO 639-1 code, or `und`.
    #[schema(value_type = String)]
    detected_language: &'a str,
    pii: PreviewPii<'a>,
}

/// The personal data found.
#[derive(serde::Serialize, utoipa::ToSchema)]
#[schema(as = PiiReport)]
pub struct PreviewPii<'a> {
    #[schema(value_type = Vec<docsieve_actors::pii_masker::Finding>)]
    findings: &'a [docsieve_actors::pii_masker::Finding],
    /// Personal-data type -> count.
    #[schema(value_type = std::collections::BTreeMap<String, u64>)]
    pii_type_summary: &'a std::collections::BTreeMap<String, u64>,
    pii_count: u64,
}

/// The stem of an uploaded file name, safe for a `Content-Disposition` header.
pub(crate) fn download_name(filename: &str, extension: &str) -> String {
    let base = filename.rsplit(['/', '\\']).next().unwrap_or(filename);
    let stem = base.rsplit_once('.').map_or(base, |(stem, _)| stem);
    let safe: String = stem
        .chars()
        .filter(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.' | ' '))
        .take(100)
        .collect();
    let safe = safe.trim();
    format!(
        "{}.{extension}",
        if safe.is_empty() { "document" } else { safe }
    )
}

/// Extracts the uploaded file and returns it as CSV: table rows for tabular input (with a `sheet`
/// column when there are several sheets), otherwise one row per element (`index, page, type, text`).
#[utoipa::path(post, path = "/v1/data-process/export/csv", operation_id = "export_csv", tag = "processing",
    params(("masked" = Option<bool>, Query, description = "Mask personal data (default false)"),
        ("types_off" = Option<String>, Query, description = "Narrows the tenant's privacy policy for this request: personal-data types (comma-separated names) left as written; a type the tenant disabled stays disabled, and nothing widens the policy. Unknown names are a 422"),
        ("policy" = Option<String>, Query, description = "`tenant` (default): the tenant's operators; `placeholder` or `redact`: every type with that operator for this request (operators that keep no pseudonym; any other value is a 422)")),
    request_body(content_type = "multipart/form-data", content = super::openapi::FileUpload, description = "Form field `file`: the document"),
    responses(
        (status = 200, content_type = "text/csv", body = String, description = "RFC 4180 CSV, UTF-8, as an attachment named after the upload (its name masked too when `masked=true`); masked by the tenant's privacy policy, whose version the `X-Docsieve-Policy-Version` header gives",
            headers(("X-Docsieve-Policy-Version" = i64, description = "The version of the tenant's privacy policy the document was processed under (0: the default)"))),
        (status = 401, body = crate::error::ErrorBody),
        (status = 402, description = "Too few credits left (`insufficient_credits`, with `balance` and `required`)", body = crate::error::InsufficientCreditsBody),
        (status = 413, body = crate::error::ErrorBody),
        (status = 415, body = crate::error::ErrorBody),
        (status = 422, body = crate::error::ValidationErrorBody),
        (status = 503, body = crate::error::ErrorBody)
    ),
    security(("api_key" = []), ("bearer" = [])))]
#[post("/v1/data-process/export/csv")]
pub async fn export_csv(
    state: web::Data<AppState>,
    auth: Authenticated,
    query: Query,
    request: HttpRequest,
    payload: Multipart,
) -> Result<HttpResponse, ApiError> {
    let Processed {
        filename,
        size,
        masked,
        result,
        policy_version,
        narrowed,
    } = process_upload(&state, auth.tenant_id, &query, (&request, payload)).await?;
    let document = result.document;
    let csv = web::block(move || {
        docsieve_actors::dataset_exporter::document_csv(&document)
            .map(|csv| (csv, document.metadata.format))
    })
    .await
    .map_err(|e| ApiError::internal(&e))?
    .map_err(|e| ApiError::internal(&e))?;
    let (csv, format) = csv;
    let pii_count: u64 = result.summary.values().sum();
    let details = serde_json::json!({
        "format": format,
        "bytes": size,
        "masked": masked,
        "policy_version": policy_version,
        "narrowed": narrowed,
        "pii_count": pii_count,
        "csv_bytes": csv.len(),
    });
    accounts::audit(&state, auth.audit("export_csv", None, details)).await;
    Ok(HttpResponse::Ok()
        .content_type("text/csv; charset=utf-8")
        .insert_header(("X-Docsieve-Policy-Version", policy_version.to_string()))
        .insert_header((
            "Content-Disposition",
            format!(
                "attachment; filename=\"{}\"",
                download_name(&filename, "csv")
            ),
        ))
        .body(csv))
}

/// This resource's routes.
pub fn configure(cfg: &mut ServiceConfig) {
    cfg.service(preview).service(export_csv);
}
