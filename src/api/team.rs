//! /v1/team/*: invitations, members, removal. Roles: owner, admin, member.

use actix_web::{delete, get, post, web, HttpResponse};
use chrono::{DateTime, Utc};
use docsieve_actors::store::{AuditRecord, InvitationCheck, MemberRecord, RemoveOutcome};
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;
use utoipa_actix_web::service_config::ServiceConfig;

use super::{envelope, Envelope, Page};
use crate::accounts;
use crate::auth::{tokens, Authenticated};
use crate::error::{ApiError, ErrorCode, ErrorKind, ValidationDetail};
use crate::state::AppState;
use crate::validation::{path_id, Pagination, Query, ValidJson};

#[derive(Deserialize, ToSchema)]
pub struct InviteRequest {
    pub email: String,
    /// `member` or `admin`.
    #[schema(value_type = crate::api::vocab::InviteRole)]
    pub role: String,
}

#[derive(Serialize, ToSchema)]
pub struct Invitation {
    pub id: i64,
    pub tenant_id: i64,
    pub email: String,
    #[schema(value_type = crate::api::vocab::InviteRole)]
    pub role: String,
    pub expires_at: DateTime<Utc>,
}

#[derive(Deserialize, ToSchema)]
pub struct AcceptRequest {
    pub token: String,
}

#[derive(Serialize, ToSchema)]
pub struct Joined {
    pub tenant_id: i64,
    #[schema(value_type = crate::api::vocab::Role)]
    pub role: String,
    /// What to do next.
    pub message: &'static str,
}

#[derive(Serialize, ToSchema)]
pub struct Member {
    pub user_id: i64,
    pub email: String,
    #[schema(value_type = crate::api::vocab::Role)]
    pub role: String,
    pub joined_at: DateTime<Utc>,
}

impl From<MemberRecord> for Member {
    fn from(record: MemberRecord) -> Self {
        Member {
            user_id: record.user_id,
            email: record.email,
            role: record.role,
            joined_at: record.joined_at,
        }
    }
}

#[derive(Serialize, ToSchema)]
pub struct Removed {
    pub user_id: i64,
    pub removed: bool,
}

/// Invites an address to the caller's tenant (owner or admin). The link expires after 7 days.
#[utoipa::path(post, path = "/v1/team/invite", operation_id = "invite_member", tag = "team", request_body = InviteRequest,
    responses((status = 201, body = Envelope<Invitation>), (status = 403, body = crate::error::ErrorBody), (status = 422, body = crate::error::ValidationErrorBody)),
    security(("api_key" = []), ("bearer" = [])))]
#[post("/v1/team/invite")]
pub async fn invite(
    state: web::Data<AppState>,
    auth: Authenticated,
    body: ValidJson<InviteRequest>,
) -> Result<HttpResponse, ApiError> {
    auth.require_role(&["owner", "admin"])?;
    let body = body.0;
    let mut problems = Vec::new();
    let email = accounts::normalize_email(&body.email)
        .map_err(|detail| problems.push(detail))
        .ok();
    if !super::vocab::InviteRole::VALUES.contains(&body.role.as_str()) {
        problems.push(ValidationDetail::new(
            "body",
            "role",
            "must be one of: member, admin",
            "value_error.enum",
        ));
    }
    let (Some(email), true) = (email, problems.is_empty()) else {
        return Err(ApiError::validation(problems));
    };
    let token = tokens::random_token();
    let now = state.clock.now();
    let expires_at = now + chrono::Duration::days(state.settings.auth.invitation_ttl_days as i64);
    let invitation = state
        .store
        .create_invitation(
            auth.tenant_id,
            &email,
            &body.role,
            &tokens::hash_token(&token),
            auth.user_id,
            expires_at,
            now,
        )
        .await?;
    accounts::send_invitation(&state, &email, &body.role, &token);
    accounts::audit(
        &state,
        auth.audit(
            "member_invited",
            Some(("invitation", invitation.id.to_string())),
            serde_json::json!({"role": body.role}),
        ),
    )
    .await;
    Ok(HttpResponse::Created().json(Envelope {
        data: Invitation {
            id: invitation.id,
            tenant_id: invitation.tenant_id,
            email: invitation.email,
            role: invitation.role,
            expires_at: invitation.expires_at,
        },
    }))
}

/// Accepts an invitation for the signed-in user, whose email must be the invited one. The inviting
/// tenant becomes the user's current tenant: refresh the session (POST /v1/auth/refresh) to get an
/// access token for it.
#[utoipa::path(post, path = "/v1/team/accept", operation_id = "accept_invitation", tag = "team", request_body = AcceptRequest,
    responses((status = 200, body = Envelope<Joined>), (status = 400, body = crate::error::ErrorBody), (status = 403, body = crate::error::ErrorBody)),
    security(("api_key" = []), ("bearer" = [])))]
#[post("/v1/team/accept")]
pub async fn accept(
    state: web::Data<AppState>,
    auth: Authenticated,
    body: ValidJson<AcceptRequest>,
) -> Result<web::Json<Envelope<Joined>>, ApiError> {
    let user = state
        .store
        .user_by_id(auth.user_id)
        .await?
        .ok_or_else(|| ApiError::not_found(ErrorCode::UserNotFound, "user not found"))?;
    let check = state
        .store
        .accept_invitation(
            &tokens::hash_token(body.0.token.trim()),
            user.id,
            &user.email,
            state.clock.now(),
        )
        .await?;
    match check {
        InvitationCheck::Accepted { tenant_id, role } => {
            let record = auth.audit(
                "invitation_accepted",
                Some(("user", user.id.to_string())),
                serde_json::json!({"role": role}),
            );
            // Recorded in the tenant joined, where the team's owners look.
            accounts::audit(
                &state,
                AuditRecord {
                    tenant_id: Some(tenant_id),
                    ..record
                },
            )
            .await;
            Ok(envelope(Joined {
                tenant_id,
                role,
                message: "joined; refresh your session to act in this tenant",
            }))
        }
        InvitationCheck::Expired => Err(ApiError::new(
            ErrorKind::BadRequest,
            ErrorCode::InvitationExpired,
            "this invitation has expired; ask for a new one",
        )),
        InvitationCheck::AlreadyAccepted => Err(ApiError::new(
            ErrorKind::BadRequest,
            ErrorCode::InvitationUsed,
            "this invitation has already been accepted",
        )),
        InvitationCheck::EmailMismatch => Err(ApiError::new(
            ErrorKind::Forbidden,
            ErrorCode::InvitationEmailMismatch,
            "this invitation is for another email address",
        )),
        InvitationCheck::Unknown => Err(ApiError::new(
            ErrorKind::BadRequest,
            ErrorCode::InvalidToken,
            "this invitation token is not valid",
        )),
    }
}

/// Members of the caller's tenant.
#[utoipa::path(get, path = "/v1/team/members", operation_id = "list_members", tag = "team",
    params(("page" = Option<u64>, Query), ("page_size" = Option<u64>, Query)),
    responses((status = 200, body = Envelope<Page<Member>>)),
    security(("api_key" = []), ("bearer" = [])))]
#[get("/v1/team/members")]
pub async fn members(
    state: web::Data<AppState>,
    auth: Authenticated,
    query: Query,
) -> Result<web::Json<Envelope<Page<Member>>>, ApiError> {
    let pagination = Pagination::only(&query)?;
    let members = state.store.list_members(auth.tenant_id).await?;
    Ok(envelope(Page::slice(
        members.into_iter().map(Member::from).collect(),
        pagination,
    )))
}

/// Removes a member (owner or admin; only an owner removes an owner; the last owner stays).
#[utoipa::path(delete, path = "/v1/team/members/{user_id}", operation_id = "remove_member", tag = "team",
    params(("user_id" = i64, Path)),
    responses((status = 200, body = Envelope<Removed>), (status = 403, body = crate::error::ErrorBody), (status = 404, body = crate::error::ErrorBody), (status = 409, body = crate::error::ErrorBody)),
    security(("api_key" = []), ("bearer" = [])))]
#[delete("/v1/team/members/{user_id}")]
pub async fn remove_member(
    state: web::Data<AppState>,
    auth: Authenticated,
    user_id: web::Path<String>,
) -> Result<web::Json<Envelope<Removed>>, ApiError> {
    let user_id = path_id(&user_id, "user_id")?;
    auth.require_role(&["owner", "admin"])?;
    let not_found = || {
        ApiError::not_found(
            ErrorCode::MemberNotFound,
            "no member with this user id in your team",
        )
    };
    let target_role = state
        .store
        .role_of(auth.tenant_id, user_id)
        .await?
        .ok_or_else(not_found)?;
    if target_role == "owner" && auth.role != "owner" {
        return Err(ApiError::new(
            ErrorKind::Forbidden,
            ErrorCode::Forbidden,
            "only an owner can remove an owner",
        ));
    }
    match state
        .store
        .remove_member(auth.tenant_id, user_id, state.clock.now())
        .await?
    {
        RemoveOutcome::Removed => {
            accounts::audit(
                &state,
                auth.audit(
                    "member_removed",
                    Some(("user", user_id.to_string())),
                    serde_json::json!({"role": target_role}),
                ),
            )
            .await;
            Ok(envelope(Removed {
                user_id,
                removed: true,
            }))
        }
        RemoveOutcome::NotFound => Err(not_found()),
        RemoveOutcome::LastOwner => Err(ApiError::new(
            ErrorKind::Conflict,
            ErrorCode::LastOwner,
            "the last owner of a team cannot be removed",
        )),
    }
}

/// This resource's routes.
pub fn configure(cfg: &mut ServiceConfig) {
    cfg.service(invite)
        .service(accept)
        .service(members)
        .service(remove_member);
}
