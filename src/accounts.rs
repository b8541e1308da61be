//! Account rules shared by the auth, me and team handlers: input checks, sessions, mails, audit.

use chrono::Duration;
use docsieve_actors::store::AuditRecord;
use serde::Serialize;
use utoipa::ToSchema;

use crate::auth::{jwt, tokens};
use crate::error::{ApiError, ValidationDetail};
use crate::mail::Mail;
use crate::state::AppState;

/// Trims and lower-cases an email address and checks its shape (local@domain.tld, RFC 5321 sizes).
pub fn normalize_email(raw: &str) -> Result<String, ValidationDetail> {
    let email = raw.trim().to_lowercase();
    let invalid = || {
        ValidationDetail::new(
            "body",
            "email",
            "value is not a valid email address",
            "value_error.email",
        )
    };
    let (local, domain) = email.rsplit_once('@').ok_or_else(invalid)?;
    let domain_ok = domain.len() <= 253
        && domain.contains('.')
        && !domain.starts_with('.')
        && !domain.ends_with('.')
        && domain.split('.').all(|label| {
            !label.is_empty()
                && label.len() <= 63
                && !label.starts_with('-')
                && !label.ends_with('-')
                && label.chars().all(|c| c.is_alphanumeric() || c == '-')
        });
    let local_ok = !local.is_empty()
        && local.len() <= 64
        && !local.starts_with('.')
        && !local.ends_with('.')
        && !local.contains("..")
        && local
            .chars()
            .all(|c| c.is_alphanumeric() || "!#$%&'*+-/=?^_`{|}~.".contains(c));
    if email.len() <= 254 && local_ok && domain_ok {
        Ok(email)
    } else {
        Err(invalid())
    }
}

pub fn check_password(password: &str, field: &str) -> Result<(), ValidationDetail> {
    let length = password.chars().count();
    if length < crate::auth::password::MIN_LENGTH {
        return Err(ValidationDetail::new(
            "body",
            field,
            format!(
                "must be at least {} characters",
                crate::auth::password::MIN_LENGTH
            ),
            "value_error.any_str.min_length",
        ));
    }
    if length > crate::auth::password::MAX_LENGTH {
        return Err(ValidationDetail::new(
            "body",
            field,
            format!(
                "must be at most {} characters",
                crate::auth::password::MAX_LENGTH
            ),
            "value_error.any_str.max_length",
        ));
    }
    Ok(())
}

/// A link into the web app: `{mail.public_base_url}/<purpose>?token=<token>`.
fn link(state: &AppState, purpose: &str, token: &str) -> String {
    format!(
        "{}/{purpose}?token={token}",
        state.settings.mail.public_base_url.trim_end_matches('/')
    )
}

fn queue(state: &AppState, mail: Mail) {
    // A full queue is logged by the mailer; the user can ask for the mail again.
    let _ = state.mailer.send(mail);
}

pub fn send_verification(state: &AppState, email: &str, token: &str) {
    let hours = state.settings.auth.verification_token_ttl_hours;
    queue(
        state,
        Mail {
            to: email.to_string(),
            subject: "Confirm your docsieve account".to_string(),
            text: format!(
                "Welcome to docsieve.\n\nConfirm your email address by opening this link:\n{}\n\nor by sending this token to POST /v1/auth/verify-email:\n{token}\n\nThe token is valid for {hours} hours. If you did not sign up, ignore this mail.\n",
                link(state, "verify-email", token)
            ),
            kind: "verify_email",
        },
    );
}

pub fn send_reset(state: &AppState, email: &str, token: &str) {
    let minutes = state.settings.auth.reset_token_ttl_minutes;
    queue(
        state,
        Mail {
            to: email.to_string(),
            subject: "Reset your docsieve password".to_string(),
            text: format!(
                "Someone asked to reset the password of your docsieve account.\n\nChoose a new password here:\n{}\n\nor send this token with the new password to POST /v1/auth/reset-password:\n{token}\n\nThe token is valid for {minutes} minutes and works once. If it was not you, ignore this mail.\n",
                link(state, "reset-password", token)
            ),
            kind: "reset_password",
        },
    );
}

pub fn send_invitation(state: &AppState, email: &str, role: &str, token: &str) {
    let days = state.settings.auth.invitation_ttl_days;
    queue(
        state,
        Mail {
            to: email.to_string(),
            subject: "You are invited to a docsieve team".to_string(),
            text: format!(
                "You were invited to join a docsieve team as {role}.\n\nAccept here (sign up with this email address first if you have no account):\n{}\n\nor send this token, signed in, to POST /v1/team/accept:\n{token}\n\nThe invitation expires in {days} days.\n",
                link(state, "accept-invitation", token)
            ),
            kind: "invitation",
        },
    );
}

/// Writes an audit entry; a failure is logged and does not fail the request.
pub async fn audit(state: &AppState, record: AuditRecord) {
    let action = record.action;
    if let Err(error) = state
        .store
        .record_audit_gathered(record, state.clock.now())
        .await
    {
        tracing::error!(action, %error, "audit entry could not be written");
    }
}

/// The body of login and refresh.
#[derive(Serialize, ToSchema)]
pub struct TokenPair {
    pub access_token: String,
    pub refresh_token: String,
    /// Always `bearer`.
    pub token_type: &'static str,
    /// Lifetime of the access token in seconds.
    pub expires_in: u64,
}

pub fn access_token(state: &AppState, user_id: i64, tenant_id: i64) -> Result<String, ApiError> {
    jwt::issue(
        &state.settings.auth.jwt_secret,
        user_id,
        tenant_id,
        state.clock.now(),
        state.settings.auth.access_token_ttl_seconds,
    )
    .map_err(|error| ApiError::internal(&error))
}

pub fn refresh_expiry(state: &AppState) -> chrono::DateTime<chrono::Utc> {
    state.clock.now() + Duration::days(state.settings.auth.refresh_token_ttl_days as i64)
}

/// Starts a new refresh-token family and returns the pair.
pub async fn new_session(
    state: &AppState,
    user_id: i64,
    tenant_id: i64,
) -> Result<TokenPair, ApiError> {
    let refresh_token = tokens::random_token();
    state
        .store
        .insert_refresh_token(
            user_id,
            tenant_id,
            &tokens::random_hex(16),
            &tokens::hash_token(&refresh_token),
            refresh_expiry(state),
            state.clock.now(),
        )
        .await?;
    Ok(TokenPair {
        access_token: access_token(state, user_id, tenant_id)?,
        refresh_token,
        token_type: "bearer",
        expires_in: state.settings.auth.access_token_ttl_seconds,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn emails_are_normalised_and_checked() {
        assert_eq!(
            normalize_email("  Ayse.Yilmaz@Example.COM ")
                .ok()
                .as_deref(),
            Some("ayse.yilmaz@example.com")
        );
        assert!(normalize_email("kullanıcı@örnek.com.tr").is_ok());
        for bad in [
            "",
            "no-at",
            "@example.com",
            "a@",
            "a@b",
            "a b@c.com",
            "a@-b.com",
            "a..b@c.com",
        ] {
            assert!(normalize_email(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn passwords_need_eight_characters() {
        assert!(check_password("1234567", "password").is_err());
        assert!(check_password("şifre123", "password").is_ok());
        assert!(check_password(&"x".repeat(300), "password").is_err());
    }
}
