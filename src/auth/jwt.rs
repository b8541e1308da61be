//! Access tokens: JWT HS256 signed with `auth.jwt_secret`. Expiry is checked against the service
//! clock (not the library's), so tests can move time.

use chrono::{DateTime, Utc};
use jsonwebtoken::{Algorithm, DecodingKey, EncodingKey, Header, Validation};
use serde::{Deserialize, Serialize};

#[derive(Debug, Serialize, Deserialize)]
pub struct Claims {
    /// User id.
    pub sub: String,
    /// Tenant id the token acts in.
    pub tid: i64,
    pub iat: i64,
    pub exp: i64,
    /// Always `access`.
    pub typ: String,
}

#[derive(Debug, PartialEq, Eq)]
pub enum TokenError {
    Invalid,
    Expired,
}

pub fn issue(
    secret: &str,
    user_id: i64,
    tenant_id: i64,
    now: DateTime<Utc>,
    ttl_seconds: u64,
) -> Result<String, jsonwebtoken::errors::Error> {
    let claims = Claims {
        sub: user_id.to_string(),
        tid: tenant_id,
        iat: now.timestamp(),
        exp: now.timestamp() + ttl_seconds as i64,
        typ: "access".to_string(),
    };
    jsonwebtoken::encode(
        &Header::new(Algorithm::HS256),
        &claims,
        &EncodingKey::from_secret(secret.as_bytes()),
    )
}

/// `(user_id, tenant_id)` of a valid, unexpired access token.
pub fn verify(secret: &str, token: &str, now: DateTime<Utc>) -> Result<(i64, i64), TokenError> {
    let mut validation = Validation::new(Algorithm::HS256);
    validation.validate_exp = false;
    validation.required_spec_claims.clear();
    let data = jsonwebtoken::decode::<Claims>(
        token,
        &DecodingKey::from_secret(secret.as_bytes()),
        &validation,
    )
    .map_err(|_| TokenError::Invalid)?;
    let claims = data.claims;
    if claims.typ != "access" {
        return Err(TokenError::Invalid);
    }
    if claims.exp <= now.timestamp() {
        return Err(TokenError::Expired);
    }
    let user_id = claims.sub.parse().map_err(|_| TokenError::Invalid)?;
    Ok((user_id, claims.tid))
}

#[cfg(test)]
mod tests {
    use super::*;

    const SECRET: &str = "0123456789abcdef0123456789abcdef";

    #[test]
    fn issues_verifies_and_expires() {
        let now = Utc::now();
        let token = issue(SECRET, 7, 3, now, 900).expect("issue");
        assert_eq!(verify(SECRET, &token, now), Ok((7, 3)));
        assert_eq!(
            verify(SECRET, &token, now + chrono::Duration::seconds(901)),
            Err(TokenError::Expired)
        );
        assert_eq!(
            verify("another-secret-another-secret-xx", &token, now),
            Err(TokenError::Invalid)
        );
        assert_eq!(verify(SECRET, "garbage", now), Err(TokenError::Invalid));
    }
}
