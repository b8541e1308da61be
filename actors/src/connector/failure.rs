//! What went wrong talking to a storage provider: an `object_store` error, or a refusal of the egress
//! guard, sorted into a few codes a user can act on, with a message that names the operation (never a
//! secret).

use std::error::Error as _;

use object_store::client::{HttpError, HttpErrorKind};

use crate::error_code::RecordCode;
use crate::metric_names as names;

/// What went wrong talking to a provider, as the API reports it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FailureCode {
    BadCredentials,
    BucketNotFound,
    PermissionDenied,
    ObjectNotFound,
    Unreachable,
    Timeout,
    ProviderError,
    /// The egress guard refused the connector's destination: a field against its provider's rules,
    /// a private address, a redirect's target.
    Refused,
}

impl FailureCode {
    /// The code records and connection tests show.
    pub const fn record_code(self) -> RecordCode {
        match self {
            FailureCode::BadCredentials => RecordCode::BadCredentials,
            FailureCode::BucketNotFound => RecordCode::BucketNotFound,
            FailureCode::PermissionDenied => RecordCode::PermissionDenied,
            FailureCode::ObjectNotFound => RecordCode::ObjectNotFound,
            FailureCode::Unreachable => RecordCode::Unreachable,
            FailureCode::Timeout => RecordCode::ProviderTimeout,
            FailureCode::ProviderError => RecordCode::ProviderError,
            FailureCode::Refused => RecordCode::TargetRefused,
        }
    }

    pub const fn as_str(self) -> &'static str {
        self.record_code().as_str()
    }
}

/// A provider failure: its code and a message that names the operation (never a secret).
#[derive(Clone, Debug, thiserror::Error)]
#[error("{message}")]
pub struct ConnectorError {
    pub code: FailureCode,
    pub message: String,
}

impl ConnectorError {
    pub(super) fn new(code: FailureCode, message: impl Into<String>) -> ConnectorError {
        metrics::counter!(names::CONNECTOR_ERRORS_TOTAL, "code" => code.as_str()).increment(1);
        ConnectorError {
            code,
            message: message.into(),
        }
    }
}

/// The operation that failed, to tell a missing bucket from a missing object and to name what a
/// permission refused.
#[derive(Clone, Copy, Debug)]
pub(super) enum Operation<'a> {
    List,
    Read(&'a str),
    Write(&'a str),
}

impl Operation<'_> {
    fn describe(&self) -> String {
        match self {
            Operation::List => "listing objects".to_string(),
            Operation::Read(key) => format!("reading {key}"),
            Operation::Write(key) => format!("writing {key}"),
        }
    }
}

/// Error texts of providers that mean the credentials themselves are wrong (not merely short of a
/// permission): S3's, Azure's and Google's.
const CREDENTIAL_MARKERS: &[&str] = &[
    "InvalidAccessKeyId",
    "SignatureDoesNotMatch",
    "AuthenticationFailed",
    "InvalidAuthenticationInfo",
    "invalid_grant",
    "InvalidClientTokenId",
    "AuthorizationHeaderMalformed",
    "failed to authenticate",
];

const BUCKET_MARKERS: &[&str] = &["NoSuchBucket", "ContainerNotFound", "bucket does not exist"];

/// The code of an `object_store` error raised by `operation`.
pub(super) fn classify(error: &object_store::Error, operation: Operation<'_>) -> ConnectorError {
    let text = error.to_string();
    let has = |markers: &[&str]| markers.iter().any(|m| text.contains(m));
    let what = operation.describe();
    // A transport failure anywhere in the chain: refused, unresolvable or timed out.
    let timeout = || {
        ConnectorError::new(
            FailureCode::Timeout,
            format!("{what}: the provider did not answer in time"),
        )
    };
    let unreachable = |cause: &dyn std::fmt::Display| {
        ConnectorError::new(
            FailureCode::Unreachable,
            format!("{what}: the provider cannot be reached ({cause})"),
        )
    };
    if crate::egress::is_refusal(error) {
        return ConnectorError::new(
            FailureCode::Refused,
            format!(
                "{what}: the provider's address is not a public one ({})",
                crate::egress::REFUSED
            ),
        );
    }
    let mut source = error.source();
    while let Some(cause) = source {
        if let Some(http) = cause.downcast_ref::<HttpError>() {
            match http.kind() {
                HttpErrorKind::Timeout => return timeout(),
                HttpErrorKind::Connect | HttpErrorKind::Request => return unreachable(http),
                _ => {}
            }
        }
        // object_store's request errors pass their source through: the HTTP client's error.
        if let Some(http) = cause.downcast_ref::<reqwest::Error>() {
            if http.is_timeout() {
                return timeout();
            }
            if http.is_connect() || http.is_request() {
                return unreachable(&"the connection failed");
            }
        }
        source = cause.source();
    }
    if text.contains("HTTP error:") {
        return if text.contains("timed out") {
            timeout()
        } else {
            unreachable(&"the request could not be sent")
        };
    }
    let code = match error {
        object_store::Error::Unauthenticated { .. } => FailureCode::BadCredentials,
        _ if has(CREDENTIAL_MARKERS) => FailureCode::BadCredentials,
        _ if has(BUCKET_MARKERS) => FailureCode::BucketNotFound,
        object_store::Error::PermissionDenied { .. } => FailureCode::PermissionDenied,
        object_store::Error::NotFound { .. } => match operation {
            Operation::Read(_) => FailureCode::ObjectNotFound,
            Operation::List | Operation::Write(_) => FailureCode::BucketNotFound,
        },
        _ if text.contains("status code: 401") => FailureCode::BadCredentials,
        _ if text.contains("status code: 403") => FailureCode::PermissionDenied,
        _ if text.contains("status code: 404") => match operation {
            Operation::Read(_) => FailureCode::ObjectNotFound,
            Operation::List | Operation::Write(_) => FailureCode::BucketNotFound,
        },
        _ if text.contains("timed out") || text.contains("deadline") => FailureCode::Timeout,
        _ => FailureCode::ProviderError,
    };
    let message = match code {
        FailureCode::BadCredentials => format!("{what}: the provider refused the credentials"),
        FailureCode::BucketNotFound => {
            format!("{what}: the bucket or container does not exist")
        }
        FailureCode::PermissionDenied => {
            format!("{what}: the credentials are valid but not allowed to do this")
        }
        FailureCode::ObjectNotFound => format!("{what}: no such object"),
        FailureCode::Timeout => format!("{what}: the provider did not answer in time"),
        _ => format!("{what}: {}", first_line(&text)),
    };
    ConnectorError::new(code, message)
}

pub(super) fn first_line(text: &str) -> String {
    text.lines()
        .next()
        .unwrap_or_default()
        .chars()
        .take(300)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn not_found() -> object_store::Error {
        object_store::Error::NotFound {
            path: "k".into(),
            source: "404".into(),
        }
    }

    #[test]
    fn a_missing_thing_is_the_bucket_when_listing_and_the_object_when_reading() {
        assert_eq!(
            classify(&not_found(), Operation::List).code,
            FailureCode::BucketNotFound
        );
        assert_eq!(
            classify(&not_found(), Operation::Read("a")).code,
            FailureCode::ObjectNotFound
        );
    }

    #[test]
    fn a_refusal_naming_the_key_is_bad_credentials_and_otherwise_a_permission() {
        let refused = |body: &str| object_store::Error::PermissionDenied {
            path: "k".into(),
            source: body.to_string().into(),
        };
        assert_eq!(
            classify(&refused("<Code>InvalidAccessKeyId</Code>"), Operation::List).code,
            FailureCode::BadCredentials
        );
        let denied = classify(
            &refused("<Code>AccessDenied</Code>"),
            Operation::Read("a/b"),
        );
        assert_eq!(denied.code, FailureCode::PermissionDenied);
        assert!(denied.message.contains("reading a/b"), "{}", denied.message);
    }
}
