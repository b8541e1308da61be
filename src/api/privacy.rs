//! /v1/settings/privacy: the tenant's masking policy (which types are masked, from what confidence,
//! and per type the operator), versioned; and the rotation of the tenant's pseudonym key.

use std::collections::BTreeMap;

use actix_web::{get, post, put, web};
use chrono::{DateTime, Utc};
use docsieve_actors::pii_masker::{Operator, PiiType};
use docsieve_actors::privacy::{NumberedScope, PrivacyError, PrivacySettings};
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;
use utoipa_actix_web::service_config::ServiceConfig;

use super::{envelope, Envelope};
use crate::accounts;
use crate::auth::Authenticated;
use crate::error::{ApiError, ErrorCode, ErrorKind, ValidationDetail};
use crate::state::AppState;
use crate::validation::ValidJson;

/// The roles that may change the policy or rotate the key.
const MANAGERS: &[&str] = &["owner", "admin"];

/// The tenant's privacy policy in force.
#[derive(Serialize, ToSchema)]
pub struct PrivacyPolicy {
    /// The policy's version: each change makes a new one; 0 is the default policy of a tenant that
    /// never set one. Every execution records the version it was masked under
    /// (`result_meta.policy_version`), and a preview answers with it.
    pub version: i64,
    /// Types neither detected nor masked: their values stay as written.
    pub disabled_types: Vec<PiiType>,
    /// Findings below this confidence are left as written.
    pub min_confidence: f32,
    /// The operator of every type not named in `operators`.
    pub default_operator: Operator,
    /// The operators that differ from `default_operator`, by type name.
    #[schema(value_type = BTreeMap<String, Operator>)]
    pub operators: BTreeMap<PiiType, Operator>,
    /// The operator in force for each detected type (every type not disabled), by type name.
    pub effective: BTreeMap<String, Operator>,
    /// What `numbered` counts within: `document`, or `dataset` (numbers given when a dataset is built).
    pub numbered_scope: NumberedScope,
    /// Whether the pseudonyms of the keyed operators are kept for `POST /v1/pseudonyms/resolve`.
    pub reidentification: bool,
    /// How many pseudonyms the re-identification vault holds (0 while re-identification is off).
    pub vault_entries: i64,
    /// The tenant's pseudonym key, which `surrogate` and `hash` derive from (never shown itself).
    pub key: PseudonymKey,
    /// When this version was set, and by which user (null for the default policy).
    pub updated_at: Option<DateTime<Utc>>,
    pub updated_by: Option<i64>,
}

/// What can be said of a tenant's pseudonym key.
#[derive(Serialize, ToSchema)]
pub struct PseudonymKey {
    /// 1 for the first key (made with the tenant), one more per rotation; 0 while the tenant has none
    /// (an older tenant, until its first use of a keyed operator).
    pub version: i64,
    pub created_at: Option<DateTime<Utc>>,
}

pub(crate) fn privacy_error(error: PrivacyError) -> ApiError {
    match error {
        PrivacyError::Store(error) => error.into(),
        PrivacyError::ReidentificationOff => ApiError::new(
            ErrorKind::Conflict,
            ErrorCode::ReidentificationDisabled,
            PrivacyError::ReidentificationOff.to_string(),
        ),
        other => ApiError::new(
            ErrorKind::Internal,
            ErrorCode::PseudonymKeyUnavailable,
            other.to_string(),
        ),
    }
}

async fn current(state: &AppState, tenant_id: i64) -> Result<PrivacyPolicy, ApiError> {
    let (record, settings) = match state
        .privacy
        .stored(tenant_id)
        .await
        .map_err(privacy_error)?
    {
        Some((record, settings)) => (Some(record), settings),
        None => (None, PrivacySettings::default()),
    };
    let vault_entries = state
        .privacy
        .vault_size(tenant_id)
        .await
        .map_err(privacy_error)?;
    let key = state
        .privacy
        .key_version(tenant_id)
        .await
        .map_err(privacy_error)?;
    let effective = PiiType::ALL
        .iter()
        .filter(|ty| !settings.disabled_types.contains(ty))
        .map(|&ty| (ty.name().to_string(), settings.operator(ty)))
        .collect();
    Ok(PrivacyPolicy {
        version: record.as_ref().map_or(0, |record| record.version),
        effective,
        disabled_types: settings.disabled_types,
        min_confidence: settings.min_confidence,
        default_operator: settings.default_operator,
        operators: settings.operators,
        numbered_scope: settings.numbered_scope,
        reidentification: settings.reidentification,
        vault_entries,
        key: PseudonymKey {
            version: key.map_or(0, |(version, _)| version),
            created_at: key.map(|(_, at)| at),
        },
        updated_at: record.as_ref().map(|record| record.created_at),
        updated_by: record.and_then(|record| record.created_by),
    })
}

/// The tenant's privacy policy in force: the types masked, the least confidence, the operator of
/// each type, its version, and its pseudonym key's version. Every role may read it.
#[utoipa::path(get, path = "/v1/settings/privacy", operation_id = "get_privacy_policy", tag = "privacy",
    responses((status = 200, body = Envelope<PrivacyPolicy>), (status = 401, body = crate::error::ErrorBody),
        (status = 500, body = crate::error::ErrorBody, description = "`pseudonym_key_unavailable`: the stored policy cannot be read")),
    security(("api_key" = []), ("bearer" = [])))]
#[get("/v1/settings/privacy")]
pub async fn get_policy(
    state: web::Data<AppState>,
    auth: Authenticated,
) -> Result<web::Json<Envelope<PrivacyPolicy>>, ApiError> {
    Ok(envelope(current(&state, auth.tenant_id).await?))
}

/// Sets the tenant's privacy policy: a new version, in force for every document masked from now on
/// (previews at once; jobs within two seconds in a deployment of several processes). The body is the
/// whole policy: a field left out takes its default (no type disabled, confidence 0, `placeholder`).
/// Operators: `placeholder` (`[MASKED_<TYPE>]`), `numbered` (`[MASKED_<TYPE>_<n>]`, the same value
/// the same number within a document), `surrogate` (a fake value of the type in the same layout,
/// valid by the type's checksum, the same for the same value in every document of the tenant; types
/// without a generator get the `hash` token), `hash` (`[<TYPE>_<12 hex digits>]`, a keyed hash),
/// `redact` (removed). Owners and admins only; audited with the policy before and after (a policy
/// holds no personal data).
#[utoipa::path(put, path = "/v1/settings/privacy", operation_id = "set_privacy_policy", tag = "privacy",
    request_body = PrivacySettings,
    responses((status = 200, body = Envelope<PrivacyPolicy>), (status = 401, body = crate::error::ErrorBody),
        (status = 403, body = crate::error::ErrorBody, description = "`forbidden`: not an owner or admin"),
        (status = 422, body = crate::error::ValidationErrorBody, description = "An unknown type, operator or field, or a confidence outside 0 to 1"),
        (status = 500, body = crate::error::ErrorBody, description = "`pseudonym_key_unavailable`: the tenant's key cannot be opened")),
    security(("api_key" = []), ("bearer" = [])))]
#[put("/v1/settings/privacy")]
pub async fn set_policy(
    state: web::Data<AppState>,
    auth: Authenticated,
    body: ValidJson<PrivacySettings>,
) -> Result<web::Json<Envelope<PrivacyPolicy>>, ApiError> {
    auth.require_role(MANAGERS)?;
    let settings = body.0;
    settings.validate().map_err(|invalid| {
        ApiError::validation(vec![ValidationDetail::new(
            "body",
            invalid.field,
            invalid.message,
            "value_error",
        )])
    })?;
    let before = current(&state, auth.tenant_id).await?;
    let change = state
        .privacy
        .put(auth.tenant_id, settings, Some(auth.user_id))
        .await
        .map_err(privacy_error)?;
    let details = serde_json::json!({
        "version": change.version,
        "before": {
            "version": before.version,
            "disabled_types": before.disabled_types,
            "min_confidence": before.min_confidence,
            "default_operator": before.default_operator,
            "operators": before.operators,
            "numbered_scope": before.numbered_scope,
            "reidentification": before.reidentification,
        },
        "after": change.settings,
        "vault_entries_destroyed": change.vault_destroyed,
    });
    accounts::audit(
        &state,
        auth.audit(
            "privacy_policy_changed",
            Some(("privacy_policy", change.version.to_string())),
            details,
        ),
    )
    .await;
    Ok(envelope(current(&state, auth.tenant_id).await?))
}

/// Replaces the tenant's pseudonym key by a new one: from now on every `surrogate` and `hash` differs
/// from those made before (the old mapping cannot be made again). Owners and admins only; audited.
#[utoipa::path(post, path = "/v1/settings/privacy/rotate-key", operation_id = "rotate_pseudonym_key", tag = "privacy",
    responses((status = 200, body = Envelope<PseudonymKey>), (status = 401, body = crate::error::ErrorBody),
        (status = 403, body = crate::error::ErrorBody, description = "`forbidden`: not an owner or admin")),
    security(("api_key" = []), ("bearer" = [])))]
#[post("/v1/settings/privacy/rotate-key")]
pub async fn rotate_key(
    state: web::Data<AppState>,
    auth: Authenticated,
) -> Result<web::Json<Envelope<PseudonymKey>>, ApiError> {
    auth.require_role(MANAGERS)?;
    let (key, destroyed) = state
        .privacy
        .rotate_key(auth.tenant_id)
        .await
        .map_err(privacy_error)?;
    accounts::audit(
        &state,
        auth.audit(
            "pseudonym_key_rotated",
            None,
            serde_json::json!({"key_version": key.version, "vault_entries_destroyed": destroyed}),
        ),
    )
    .await;
    Ok(envelope(PseudonymKey {
        version: key.version,
        created_at: Some(key.created_at),
    }))
}

/// The most pseudonyms one resolve call takes.
const RESOLVE_MAX: usize = 100;

/// Pseudonyms to resolve, and why.
#[derive(Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct ResolveRequest {
    /// Pseudonyms as the output shows them: surrogates (`Fatma Kaya`, `38167243950`) or hash tokens
    /// (`[EMAIL_3f9a1c0b2d4e]`); case and separators do not matter. 1 to 100.
    pub pseudonyms: Vec<String>,
    /// Why they are resolved (a request of the data subject, a court order...): required, kept in
    /// the audit log with who asked and how many. 3 to 500 characters.
    pub reason: String,
}

/// What one pseudonym stands for.
#[derive(Serialize, ToSchema)]
pub struct Resolved {
    pub pseudonym: String,
    /// Whether the vault knows it.
    pub found: bool,
    /// The values it stands for: one, or more in the rare case where two values' pseudonyms met.
    pub values: Vec<ResolvedValue>,
}

#[derive(Serialize, ToSchema)]
pub struct ResolvedValue {
    pub pii_type: PiiType,
    /// The value as the document wrote it.
    pub value: String,
}

/// The answer of a resolve: per pseudonym asked, in order.
#[derive(Serialize, ToSchema)]
pub struct Resolution {
    pub results: Vec<Resolved>,
    /// How many of them were found.
    pub resolved: usize,
}

/// Resolves pseudonyms written by the keyed operators (`surrogate`, `hash`) back to the values they
/// stand for, from the tenant's re-identification vault. Owners only; each call is audited with who,
/// the reason and how many were asked and found (never a value). Only pseudonyms written while
/// re-identification was on and under the current key resolve: turning it off or rotating the key
/// deletes the vault. `numbered` tokens are local to their document and `placeholder` and `redact`
/// keep nothing to resolve.
#[utoipa::path(post, path = "/v1/pseudonyms/resolve", operation_id = "resolve_pseudonyms", tag = "privacy",
    request_body = ResolveRequest,
    responses((status = 200, body = Envelope<Resolution>), (status = 401, body = crate::error::ErrorBody),
        (status = 403, body = crate::error::ErrorBody, description = "`forbidden`: not an owner"),
        (status = 409, body = crate::error::ErrorBody, description = "`reidentification_disabled`: the tenant's re-identification is off"),
        (status = 422, body = crate::error::ValidationErrorBody, description = "No pseudonym or more than 100, an empty one, or a reason missing or outside 3 to 500 characters"),
        (status = 500, body = crate::error::ErrorBody, description = "`pseudonym_key_unavailable`: the tenant's key cannot be opened")),
    security(("api_key" = []), ("bearer" = [])))]
#[post("/v1/pseudonyms/resolve")]
pub async fn resolve(
    state: web::Data<AppState>,
    auth: Authenticated,
    body: ValidJson<ResolveRequest>,
) -> Result<web::Json<Envelope<Resolution>>, ApiError> {
    let requested = body.0.pseudonyms.len();
    let reason: String = body.0.reason.trim().chars().take(500).collect();
    let outcome = resolved(&state, &auth, body.0).await;
    // A refused attempt is audited too: who tried, why they said, and what refused it.
    if let Err(error) = &outcome {
        let outcome = match error.kind() {
            ErrorKind::Forbidden | ErrorKind::Conflict => "denied",
            _ => "failure",
        };
        accounts::audit(
            &state,
            auth.audit_outcome(
                "pseudonyms_resolved",
                None,
                outcome,
                serde_json::json!({"reason": reason, "requested": requested, "code": error.code().as_str()}),
            ),
        )
        .await;
    }
    outcome
}

/// [`resolve`]'s work, each refusal an error.
async fn resolved(
    state: &AppState,
    auth: &Authenticated,
    request: ResolveRequest,
) -> Result<web::Json<Envelope<Resolution>>, ApiError> {
    auth.require_role(&["owner"])?;
    let ResolveRequest { pseudonyms, reason } = request;
    let reason = reason.trim().to_string();
    let mut problems = Vec::new();
    if pseudonyms.is_empty() || pseudonyms.len() > RESOLVE_MAX {
        problems.push(ValidationDetail::new(
            "body",
            "pseudonyms",
            format!(
                "give 1 to {RESOLVE_MAX} pseudonyms, not {}",
                pseudonyms.len()
            ),
            "value_error",
        ));
    } else if pseudonyms
        .iter()
        .any(|p| !p.chars().any(char::is_alphanumeric))
    {
        problems.push(ValidationDetail::new(
            "body",
            "pseudonyms",
            "a pseudonym without a letter or digit",
            "value_error",
        ));
    }
    let length = reason.chars().count();
    if !(3..=500).contains(&length) {
        problems.push(ValidationDetail::new(
            "body",
            "reason",
            format!("say why in 3 to 500 characters (got {length})"),
            "value_error",
        ));
    }
    if !problems.is_empty() {
        return Err(ApiError::validation(problems));
    }
    let found = state
        .privacy
        .resolve(auth.tenant_id, &pseudonyms)
        .await
        .map_err(privacy_error)?;
    let results: Vec<Resolved> = pseudonyms
        .into_iter()
        .zip(found)
        .map(|(pseudonym, values)| Resolved {
            pseudonym,
            found: !values.is_empty(),
            values: values
                .into_iter()
                .map(|(pii_type, value)| ResolvedValue { pii_type, value })
                .collect(),
        })
        .collect();
    let resolved = results.iter().filter(|result| result.found).count();
    accounts::audit(
        state,
        auth.audit(
            "pseudonyms_resolved",
            None,
            serde_json::json!({"reason": reason, "requested": results.len(), "resolved": resolved}),
        ),
    )
    .await;
    Ok(envelope(Resolution { results, resolved }))
}

/// This resource's routes.
pub fn configure(cfg: &mut ServiceConfig) {
    cfg.service(get_policy)
        .service(set_policy)
        .service(rotate_key)
        .service(resolve);
}
