//! POST /v1/data-process/redact: the uploaded document given back in its own format, masked (see
//! docs/redaction.md); and the answer `GET /v1/executions/{id}/file` shares with it.

use actix_multipart::Multipart;
use actix_web::{post, web, HttpRequest, HttpResponse};
use docsieve_actors::extractor_pool::Limits;
use docsieve_actors::privacy::Narrowing;
use utoipa_actix_web::service_config::ServiceConfig;

use super::process::{
    declared_length, download_name, narrowing, process_error, read_file, tenant_engine,
    PreviewCredit,
};
use crate::accounts;
use crate::auth::Authenticated;
use crate::error::ApiError;
use crate::state::AppState;
use crate::validation::{Query, Violations};

/// A header value of `text` kept to visible ASCII (anything else becomes `?`).
fn header_text(text: &str) -> String {
    text.chars()
        .map(|c| {
            if c.is_ascii_graphic() || c == ' ' {
                c
            } else {
                '?'
            }
        })
        .collect()
}

/// Gives the uploaded document back in its own format, masked: a DOCX as a DOCX with each value
/// replaced in the runs that held it, a sheet's cells, a slide's paragraphs, a text file's lines.
#[utoipa::path(post, path = "/v1/data-process/redact", operation_id = "redact_document", tag = "processing",
    params(("types_off" = Option<String>, Query, description = "Narrows the tenant's privacy policy for this request: personal-data types (comma-separated names) left as written; a type the tenant disabled stays disabled, and nothing widens the policy. Unknown names are a 422"),
        ("policy" = Option<String>, Query, description = "`tenant` (default): the tenant's operators; `placeholder` or `redact`: every type with that operator for this request (operators that keep no pseudonym; any other value is a 422)")),
    request_body(content_type = "multipart/form-data", content = super::openapi::FileUpload, description = "Form field `file`: the document (DOCX, XLSX, PPTX, DOC, PPT, ODT, ODS, ODP, PDF, PNG, JPEG, TIFF, HTML, XML, EML, MSG (answered as EML), CSV or TXT; docs/redaction.md says what is rewritten, removed and refused per format)"),
    responses(
        (status = 200, content_type = "application/octet-stream", description = "The masked document in its own format and media type (or `application/octet-stream` when the request's Accept asks for that), as an attachment named after the upload with the name itself masked. Before it leaves, the file is read again by docsieve's readers and scanned, and every text left in its markup is scanned too: a value found there refuses it (422 `masking_refused`)"),
        (status = 401, body = crate::error::ErrorBody),
        (status = 402, description = "Too few credits left (`insufficient_credits`, with `balance` and `required`)", body = crate::error::InsufficientCreditsBody),
        (status = 413, body = crate::error::ErrorBody),
        (status = 415, description = "`unsupported_format`, or `redaction_unsupported`: a format without a writer (the message names those with one), an encrypted part or an embedded object", body = crate::error::ErrorBody),
        (status = 422, body = crate::error::ValidationErrorBody),
        (status = 503, body = crate::error::ErrorBody)
    ),
    security(("api_key" = []), ("bearer" = [])))]
#[post("/v1/data-process/redact")]
pub async fn redact(
    state: web::Data<AppState>,
    auth: Authenticated,
    query: Query,
    request: HttpRequest,
    payload: Multipart,
) -> Result<HttpResponse, ApiError> {
    let mut violations = Violations::default();
    let narrowing = narrowing(&query, &mut violations);
    violations.finish()?;
    let limits = state
        .settings
        .extraction
        .preview_limits(state.settings.actors.call_timeout_ms);
    let (filename, bytes) = read_file(payload, limits.max_bytes, declared_length(&request)).await?;
    let credit = PreviewCredit::reserve(&state, auth.tenant_id).await?;
    let redaction = Redaction {
        filename: &filename,
        masked_name: None,
        narrowing: &narrowing,
        credit: Some(credit),
        audit: ("redact", None),
    };
    redacted_answer(&state, &auth, &request, bytes, limits, redaction).await
}

/// What a redaction answer is made of beside the file.
pub(crate) struct Redaction<'a> {
    pub filename: &'a str,
    /// The name as a masked run already showed it, if there was one; else masked here.
    pub masked_name: Option<String>,
    pub narrowing: &'a Narrowing,
    /// The preview credit to settle with the pages read (None: already paid, as an execution was).
    pub credit: Option<PreviewCredit>,
    /// The audit action and what it is about.
    pub audit: (&'static str, Option<(&'static str, String)>),
}

/// `bytes` given back in their own format, masked by the tenant's policy as `redaction` narrows it:
/// the answer of `POST /v1/data-process/redact` and `GET /v1/executions/{id}/file`.
pub(crate) async fn redacted_answer(
    state: &web::Data<AppState>,
    auth: &Authenticated,
    request: &HttpRequest,
    bytes: Vec<u8>,
    limits: Limits,
    redaction: Redaction<'_>,
) -> Result<HttpResponse, ApiError> {
    let size = bytes.len();
    let (policy, engine, journal) =
        tenant_engine(state, auth.tenant_id, redaction.narrowing).await?;
    let masked_name = redaction.masked_name.unwrap_or_else(|| {
        docsieve_actors::pii_masker::mask_file_name(redaction.filename, &engine)
    });
    let result = state
        .actors
        .redact(auth.tenant_id, bytes.into(), limits, engine)
        .await
        .map_err(process_error);
    if let Some(credit) = redaction.credit {
        credit.settle(match &result {
            Ok(redacted) => i64::from(redacted.pages.unwrap_or(1)).max(1),
            Err(_) => 0,
        });
    }
    let mut redacted = result?;
    if let Some(journal) = journal {
        state
            .privacy
            .remember(auth.tenant_id, &policy, &journal)
            .await
            .map_err(super::privacy::privacy_error)?;
    }
    let (_, _, content_type, extension) = docsieve_actors::redaction::writer_of(redacted.format)
        .ok_or_else(|| ApiError::internal(&std::io::Error::other("a format without a writer")))?;
    let pii_count: u64 = redacted.summary.values().sum();
    let types: Vec<String> = redacted
        .summary
        .iter()
        .map(|(ty, count)| format!("{ty}={count}"))
        .collect();
    let details = serde_json::json!({
        "format": redacted.format.name(),
        "bytes": size,
        "masked": true,
        "policy_version": policy.version,
        "narrowed": (!redaction.narrowing.is_empty()).then_some(redaction.narrowing),
        "pii_count": pii_count,
        "redacted_bytes": redacted.redacted.bytes.len(),
    });
    let (action, about) = redaction.audit;
    accounts::audit(state, auth.audit(action, about, details)).await;
    let mut answer = HttpResponse::Ok();
    answer
        .content_type(super::common::download_type(request, content_type))
        .insert_header(("X-Docsieve-Policy-Version", policy.version.to_string()))
        .insert_header(("X-Docsieve-Pii-Count", pii_count.to_string()))
        .insert_header(("X-Docsieve-Pii-Types", types.join(",")))
        .insert_header((
            "Content-Disposition",
            format!(
                "attachment; filename=\"{}\"",
                download_name(&masked_name, extension)
            ),
        ));
    if !redacted.redacted.notes.is_empty() {
        answer.insert_header((
            "X-Docsieve-Redaction-Notes",
            header_text(&redacted.redacted.notes.join("; ")),
        ));
    }
    Ok(answer.body(std::mem::take(&mut redacted.redacted.bytes)))
}

/// This resource's routes.
pub fn configure(cfg: &mut ServiceConfig) {
    cfg.service(redact);
}
