//! Request validation that reports every problem at once, in FastAPI's 422 shape.
//!
//! Handlers read raw query pairs and path segments through these helpers instead of letting serde
//! fail on the first bad field, so that each problem carries its exact location.

use std::collections::HashMap;

use actix_web::dev::Payload;
use actix_web::{FromRequest, HttpRequest};
use futures_util::future::{ready, Ready};

use crate::error::{ApiError, ErrorCode, ValidationDetail};

/// Collects validation problems; [`Violations::finish`] turns them into one 422.
#[derive(Default)]
pub struct Violations(Vec<ValidationDetail>);

impl Violations {
    pub fn push(&mut self, detail: ValidationDetail) {
        self.0.push(detail);
    }

    pub fn finish(self) -> Result<(), ApiError> {
        if self.0.is_empty() {
            Ok(())
        } else {
            Err(ApiError::validation(self.0))
        }
    }
}

/// The raw query string as name -> value (the last value wins, as in FastAPI for scalars).
pub struct Query(HashMap<String, String>);

impl FromRequest for Query {
    type Error = ApiError;
    type Future = Ready<Result<Query, ApiError>>;

    fn from_request(request: &HttpRequest, _payload: &mut Payload) -> Self::Future {
        let pairs = url::form_urlencoded::parse(request.query_string().as_bytes())
            .map(|(name, value)| (name.into_owned(), value.into_owned()))
            .collect();
        ready(Ok(Query(pairs)))
    }
}

impl Query {
    /// The raw value of a parameter, if given.
    pub fn get(&self, name: &str) -> Option<&str> {
        self.0.get(name).map(String::as_str)
    }

    /// An integer in `min..=max`, `default` when absent.
    pub fn int(
        &self,
        name: &str,
        default: i64,
        min: i64,
        max: i64,
        violations: &mut Violations,
    ) -> i64 {
        self.optional_int(name, min, max, violations)
            .unwrap_or(default)
    }

    /// A required integer in `min..=max`.
    pub fn required_int(
        &self,
        name: &str,
        min: i64,
        max: i64,
        violations: &mut Violations,
    ) -> Option<i64> {
        if !self.0.contains_key(name) {
            violations.push(ValidationDetail::new(
                "query",
                name,
                "field required",
                "missing",
            ));
            return None;
        }
        self.optional_int(name, min, max, violations)
    }

    /// An optional integer in `min..=max`.
    pub fn optional_int(
        &self,
        name: &str,
        min: i64,
        max: i64,
        violations: &mut Violations,
    ) -> Option<i64> {
        let raw = self.0.get(name)?;
        match raw.trim().parse::<i64>() {
            Ok(value) if (min..=max).contains(&value) => Some(value),
            Ok(_) => {
                violations.push(ValidationDetail::new(
                    "query",
                    name,
                    format!("must be between {min} and {max}"),
                    "value_error.number.out_of_range",
                ));
                None
            }
            Err(_) => {
                violations.push(ValidationDetail::new(
                    "query",
                    name,
                    "value is not a valid integer",
                    "type_error.integer",
                ));
                None
            }
        }
    }

    /// A boolean (`true`/`false`/`1`/`0`), `default` when absent.
    pub fn boolean(&self, name: &str, default: bool, violations: &mut Violations) -> bool {
        self.optional_boolean(name, violations).unwrap_or(default)
    }

    /// A boolean (`true`/`false`/`1`/`0`), or `None` when absent (or invalid, with a violation).
    pub fn optional_boolean(&self, name: &str, violations: &mut Violations) -> Option<bool> {
        match self.0.get(name).map(|v| v.to_ascii_lowercase()) {
            None => None,
            Some(value) if matches!(value.as_str(), "true" | "1" | "yes") => Some(true),
            Some(value) if matches!(value.as_str(), "false" | "0" | "no") => Some(false),
            Some(_) => {
                violations.push(ValidationDetail::new(
                    "query",
                    name,
                    "value could not be parsed to a boolean",
                    "type_error.bool",
                ));
                None
            }
        }
    }

    /// A text of 1 to `max` characters, trimmed; `None` when absent or blank.
    pub fn text(&self, name: &str, max: usize, violations: &mut Violations) -> Option<String> {
        let value = self.0.get(name)?.trim();
        if value.is_empty() {
            return None;
        }
        if value.chars().count() > max {
            violations.push(ValidationDetail::new(
                "query",
                name,
                format!("must be at most {max} characters"),
                "value_error.any_str.max_length",
            ));
            return None;
        }
        Some(value.to_string())
    }

    /// One of `allowed`, `default` when absent.
    pub fn choice<'a>(
        &self,
        name: &str,
        default: &'a str,
        allowed: &[&'a str],
        violations: &mut Violations,
    ) -> &'a str {
        match self.0.get(name) {
            None => default,
            Some(raw) => match allowed.iter().find(|candidate| **candidate == raw) {
                Some(found) => found,
                None => {
                    violations.push(ValidationDetail::new(
                        "query",
                        name,
                        format!("must be one of: {}", allowed.join(", ")),
                        "value_error.enum",
                    ));
                    default
                }
            },
        }
    }
}

/// A JSON body read by hand (for bodies whose fields are checked one by one): invalid JSON → 422.
pub fn json_body(bytes: &[u8]) -> Result<serde_json::Value, ApiError> {
    serde_json::from_slice(bytes).map_err(|error| {
        ApiError::validation(vec![ValidationDetail::new(
            "body",
            "body",
            format!("the body is not valid JSON: {error}"),
            "json_invalid",
        )])
    })
}

/// A path segment that must be a positive integer id.
pub fn path_id(raw: &str, name: &str) -> Result<i64, ApiError> {
    match raw.parse::<i64>() {
        Ok(value) if value > 0 => Ok(value),
        _ => Err(ApiError::validation(vec![ValidationDetail::new(
            "path",
            name,
            "value is not a valid positive integer",
            "type_error.integer",
        )])),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn query(pairs: &[(&str, &str)]) -> Query {
        Query(
            pairs
                .iter()
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .collect(),
        )
    }

    #[test]
    fn collects_every_problem() {
        let q = query(&[("limit", "0"), ("tenant_id", "abc"), ("period", "1y")]);
        let mut violations = Violations::default();
        assert_eq!(q.int("limit", 100, 1, 500, &mut violations), 100);
        assert_eq!(
            q.optional_int("tenant_id", 1, i64::MAX, &mut violations),
            None
        );
        assert_eq!(
            q.choice("period", "30d", &["7d", "30d", "90d"], &mut violations),
            "30d"
        );
        assert_eq!(violations.0.len(), 3);
        assert!(violations.finish().is_err());
    }

    #[test]
    fn defaults_apply_when_absent() {
        let q = query(&[]);
        let mut violations = Violations::default();
        assert_eq!(q.int("limit", 100, 1, 500, &mut violations), 100);
        assert!(violations.finish().is_ok());
        assert!(path_id("12", "tenant_id").is_ok());
        assert!(path_id("x", "tenant_id").is_err());
        assert!(path_id("0", "tenant_id").is_err());
    }
}

/// A JSON body whose problems are reported as 422 entries located in the body
/// (`["body", "email"]`), like FastAPI does. An empty body counts as `{}` when `T` allows it.
pub struct ValidJson<T>(pub T);

fn body_error(path: &serde_path_to_error::Path, error: &serde_json::Error) -> ValidationDetail {
    let mut loc: Vec<serde_json::Value> = vec!["body".into()];
    for segment in path.iter() {
        match segment {
            serde_path_to_error::Segment::Seq { index } => loc.push((*index).into()),
            serde_path_to_error::Segment::Map { key } => loc.push(key.clone().into()),
            serde_path_to_error::Segment::Enum { variant } => loc.push(variant.clone().into()),
            serde_path_to_error::Segment::Unknown => {}
        }
    }
    let message = error.to_string();
    // serde reports a missing field at its parent; FastAPI names the field itself.
    if let Some(field) = message
        .strip_prefix("missing field `")
        .and_then(|rest| rest.split('`').next())
    {
        loc.push(field.into());
        return ValidationDetail {
            loc,
            msg: "field required".to_string(),
            kind: "missing".to_string(),
        };
    }
    let kind = match error.classify() {
        serde_json::error::Category::Data => "type_error",
        _ => "value_error.jsondecode",
    };
    let msg = message
        .split(" at line ")
        .next()
        .unwrap_or(&message)
        .to_string();
    ValidationDetail {
        loc,
        msg,
        kind: kind.to_string(),
    }
}

impl<T: serde::de::DeserializeOwned + 'static> FromRequest for ValidJson<T> {
    type Error = actix_web::Error;
    type Future = futures_util::future::LocalBoxFuture<'static, Result<Self, Self::Error>>;

    fn from_request(request: &HttpRequest, payload: &mut Payload) -> Self::Future {
        let content_type = request
            .headers()
            .get(actix_web::http::header::CONTENT_TYPE)
            .and_then(|value| value.to_str().ok())
            .map(|value| value.to_ascii_lowercase());
        let body = actix_web::web::Bytes::from_request(request, payload);
        Box::pin(async move {
            let body = body.await?;
            let body: &[u8] = if body.iter().all(u8::is_ascii_whitespace) {
                b"{}"
            } else {
                &body
            };
            if body != b"{}"
                && !content_type.as_deref().is_some_and(|value| {
                    value.starts_with("application/json") || value.contains("+json")
                })
            {
                return Err(crate::error::ApiError::new(
                    crate::error::ErrorKind::UnsupportedMediaType,
                    ErrorCode::UnsupportedMediaType,
                    "expected Content-Type: application/json",
                )
                .into());
            }
            let mut deserializer = serde_json::Deserializer::from_slice(body);
            match serde_path_to_error::deserialize::<_, T>(&mut deserializer) {
                Ok(value) => Ok(ValidJson(value)),
                Err(error) => {
                    Err(ApiError::validation(vec![body_error(error.path(), error.inner())]).into())
                }
            }
        })
    }
}

/// `page` (>= 1, default 1) and `page_size` (1..=100, default 20) of list endpoints.
#[derive(Clone, Copy, Debug)]
pub struct Pagination {
    pub page: u64,
    pub page_size: u64,
}

impl Pagination {
    pub fn read(query: &Query, violations: &mut Violations) -> Pagination {
        Pagination {
            page: query.int("page", 1, 1, i64::from(i32::MAX), violations) as u64,
            page_size: query.int("page_size", 20, 1, 100, violations) as u64,
        }
    }

    /// `page` and `page_size` of a query that takes nothing else, or the 422 naming them.
    pub fn only(query: &Query) -> Result<Pagination, ApiError> {
        let mut violations = Violations::default();
        let pagination = Pagination::read(query, &mut violations);
        violations.finish()?;
        Ok(pagination)
    }

    pub fn offset(&self) -> u64 {
        (self.page - 1) * self.page_size
    }
}

#[cfg(test)]
mod body_tests {
    use super::*;
    use actix_web::test::TestRequest;

    #[derive(serde::Deserialize, Debug)]
    #[allow(dead_code)]
    struct Signup {
        email: String,
        password: String,
    }

    async fn parse(body: &str) -> Result<ValidJson<Signup>, actix_web::Error> {
        let (request, mut payload) = TestRequest::post()
            .insert_header(("content-type", "application/json"))
            .set_payload(body.to_string())
            .to_http_parts();
        ValidJson::<Signup>::from_request(&request, &mut payload).await
    }

    #[actix_web::test]
    async fn missing_and_mistyped_fields_are_located() {
        let error = parse(r#"{"email": "a@b.co"}"#)
            .await
            .err()
            .expect("missing password");
        let response = error.error_response();
        assert_eq!(response.status(), 422);
        let body = actix_web::body::to_bytes(response.into_body())
            .await
            .expect("body");
        let json: serde_json::Value = serde_json::from_slice(&body).expect("json");
        assert_eq!(
            json["detail"][0]["loc"],
            serde_json::json!(["body", "password"])
        );
        assert_eq!(json["detail"][0]["type"], "missing");

        let error = parse(r#"{"email": 5, "password": "x"}"#)
            .await
            .err()
            .expect("wrong type");
        let body = actix_web::body::to_bytes(error.error_response().into_body())
            .await
            .expect("body");
        let json: serde_json::Value = serde_json::from_slice(&body).expect("json");
        assert_eq!(
            json["detail"][0]["loc"],
            serde_json::json!(["body", "email"])
        );
        assert!(parse(r#"{"email": "a@b.co", "password": "secret12"}"#)
            .await
            .is_ok());
        assert!(parse("not json").await.is_err());
    }
}
