//! Password hashing with argon2id (OWASP parameters: 19 MiB, t=2, p=1), off the async threads.

use argon2::password_hash::rand_core::OsRng;
use argon2::password_hash::{PasswordHash, PasswordHasher, PasswordVerifier, SaltString};
use argon2::Argon2;

use crate::error::ApiError;

pub const MIN_LENGTH: usize = 8;
/// Hashing cost grows with length; refuse absurd inputs before they reach argon2.
pub const MAX_LENGTH: usize = 256;

fn hash_now(password: &str) -> Result<String, argon2::password_hash::Error> {
    let salt = SaltString::generate(&mut OsRng);
    Ok(Argon2::default()
        .hash_password(password.as_bytes(), &salt)?
        .to_string())
}

fn verify_now(password: &str, hash: &str) -> bool {
    PasswordHash::new(hash)
        .map(|parsed| {
            Argon2::default()
                .verify_password(password.as_bytes(), &parsed)
                .is_ok()
        })
        .unwrap_or(false)
}

pub async fn hash(password: String) -> Result<String, ApiError> {
    tokio::task::spawn_blocking(move || hash_now(&password))
        .await
        .map_err(|error| ApiError::internal(&error))?
        .map_err(|error| ApiError::internal(&std::io::Error::other(error.to_string())))
}

/// Verifies `password` against `hash`; with no hash (unknown account) it verifies against a fixed
/// dummy so that both paths take the same time.
pub async fn verify(password: String, hash: Option<String>) -> Result<bool, ApiError> {
    static DUMMY: std::sync::OnceLock<String> = std::sync::OnceLock::new();
    tokio::task::spawn_blocking(move || match hash {
        Some(hash) => verify_now(&password, &hash),
        None => {
            let dummy =
                DUMMY.get_or_init(|| hash_now("docsieve-dummy-password").unwrap_or_default());
            let _ = verify_now(&password, dummy);
            false
        }
    })
    .await
    .map_err(|error| ApiError::internal(&error))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hashes_are_argon2id_and_verify() {
        let hash = hash_now("correct horse").expect("hash");
        assert!(hash.starts_with("$argon2id$"));
        assert!(verify_now("correct horse", &hash));
        assert!(!verify_now("wrong horse", &hash));
        assert!(!verify_now("correct horse", "not a hash"));
    }
}
