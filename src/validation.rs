//! Request validation that reports every problem at once, in FastAPI's 422 shape.
//!
//! Handlers read raw query pairs and path segments through these helpers instead of letting serde
//! fail on the first bad field, so that each problem carries its exact location.

use std::collections::HashMap;

use actix_web::dev::Payload;
use actix_web::{FromRequest, HttpRequest};
use futures_util::future::{ready, Ready};

use crate::error::{ApiError, ValidationDetail};

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
