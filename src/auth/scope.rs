//! API key scopes: what a key may do, whatever its user's role allows. A user's own session (a bearer
//! token) is not scoped; a key is one of
//!
//! - `read_only`: every `GET`;
//! - `processing`: that, and the routes that process documents and build on them (previews, uploads,
//!   reprocessing, CSV exports, datasets, fine-tuning, a connector's test and a schedule's trigger);
//! - `admin`: everything else too (connectors, schedules, webhooks, API keys, the team), within the
//!   user's role.
//!
//! The scope a route needs follows from its method and path ([`needed`]): the same function checks
//! every request and writes each operation's `api_key` requirement in the OpenAPI document.

use serde::{Deserialize, Serialize};

#[derive(
    Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize, utoipa::ToSchema,
)]
#[serde(rename_all = "snake_case")]
pub enum Scope {
    ReadOnly,
    Processing,
    Admin,
}

impl Scope {
    pub const ALL: [Scope; 3] = [Scope::ReadOnly, Scope::Processing, Scope::Admin];

    pub fn as_str(self) -> &'static str {
        match self {
            Scope::ReadOnly => "read_only",
            Scope::Processing => "processing",
            Scope::Admin => "admin",
        }
    }

    pub fn parse(text: &str) -> Option<Scope> {
        Scope::ALL.into_iter().find(|scope| scope.as_str() == text)
    }
}

/// Paths (prefixes, `*` standing for one segment) whose writes need `processing` only.
const PROCESSING: &[&str] = &[
    "/v1/data-process/",
    "/v1/documents/*/reprocess",
    "/v1/datasets",
    "/v1/fine-tune",
    "/v1/connectors/*/test",
    "/v1/connectors/*/schedules/*/trigger",
];

fn matches(pattern: &str, path: &str) -> bool {
    let mut rest = path;
    for (index, part) in pattern.split('*').enumerate() {
        if index == 0 {
            match rest.strip_prefix(part) {
                Some(after) => rest = after,
                None => return false,
            }
            continue;
        }
        // A `*` takes one segment: up to the next '/'.
        let segment_end = rest.find('/').unwrap_or(rest.len());
        if segment_end == 0 {
            return false;
        }
        match rest[segment_end..].strip_prefix(part) {
            Some(after) => rest = after,
            None => return false,
        }
    }
    true
}

/// The scope a key needs for `method` on `path` (a request's path, or an OpenAPI template).
pub fn needed(method: &str, path: &str) -> Scope {
    if method.eq_ignore_ascii_case("GET") || method.eq_ignore_ascii_case("HEAD") {
        return Scope::ReadOnly;
    }
    if PROCESSING.iter().any(|pattern| matches(pattern, path)) {
        return Scope::Processing;
    }
    Scope::Admin
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_writes_and_administration_need_rising_scopes() {
        for (method, path, scope) in [
            ("GET", "/v1/documents", Scope::ReadOnly),
            ("GET", "/v1/datasets/ds_1/export", Scope::ReadOnly),
            ("POST", "/v1/data-process/preview", Scope::Processing),
            ("POST", "/v1/data-process/async", Scope::Processing),
            ("POST", "/v1/documents/4/reprocess", Scope::Processing),
            (
                "POST",
                "/v1/documents/{document_id}/reprocess",
                Scope::Processing,
            ),
            ("DELETE", "/v1/datasets/ds_1", Scope::Processing),
            ("POST", "/v1/connectors/3/test", Scope::Processing),
            (
                "POST",
                "/v1/connectors/3/schedules/9/trigger",
                Scope::Processing,
            ),
            ("POST", "/v1/connectors", Scope::Admin),
            ("DELETE", "/v1/connectors/3", Scope::Admin),
            ("POST", "/v1/connectors/3/schedules", Scope::Admin),
            ("POST", "/v1/connectors/3/x/test", Scope::Admin),
            ("POST", "/v1/me/api-keys", Scope::Admin),
            ("POST", "/v1/webhooks", Scope::Admin),
            ("POST", "/v1/team/invite", Scope::Admin),
        ] {
            assert_eq!(needed(method, path), scope, "{method} {path}");
        }
        assert!(Scope::ReadOnly < Scope::Processing && Scope::Processing < Scope::Admin);
        assert_eq!(Scope::parse("processing"), Some(Scope::Processing));
        assert_eq!(Scope::parse("all"), None);
    }
}
