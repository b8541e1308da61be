//! What a connector may send where: every configuration field that becomes part of a URL or a header
//! checked against its provider's rules (at the door, 422 naming the field; and again when a stored
//! connector is opened, `target_refused`), and the HTTP client every provider call goes through: the
//! egress guard's resolver, no redirects ([`crate::egress`]).

use std::time::Duration;

use object_store::client::{HttpClient, HttpConnector};
use object_store::ClientOptions;

/// Keys of a GCS service-account key that would steer requests (object_store reads them from the
/// key): refused in a key given by a user; the `endpoint` field says where an emulator is.
pub const STEERING_KEY_FIELDS: [&str; 2] = ["gcs_base_url", "disable_oauth"];

fn chars_ok(value: &str, allowed: impl Fn(char) -> bool) -> bool {
    value.chars().all(allowed)
}

fn lower_or_digit(c: char) -> bool {
    c.is_ascii_lowercase() || c.is_ascii_digit()
}

fn length(value: &str, min: usize, max: usize) -> Result<(), String> {
    let n = value.chars().count();
    if n < min || n > max {
        return Err(format!("must be {min} to {max} characters long, got {n}"));
    }
    Ok(())
}

/// A bucket or container name: lowercase letters, digits and the `extra` separators, starting and
/// ending with a letter or digit, no two separators in a row.
fn dns_label_name(value: &str, min: usize, max: usize, extra: &[char]) -> Result<(), String> {
    length(value, min, max)?;
    let allowed = |c: char| lower_or_digit(c) || extra.contains(&c);
    let ends_ok = value.starts_with(lower_or_digit) && value.ends_with(lower_or_digit);
    let doubled = extra
        .iter()
        .any(|a| extra.iter().any(|b| value.contains(&format!("{a}{b}"))));
    if !chars_ok(value, allowed) || !ends_ok || doubled {
        let extra: String = extra.iter().map(|c| format!(" '{c}'")).collect();
        return Err(format!(
            "may hold only lowercase letters, digits and{extra}, start and end with a letter or \
             digit, and not repeat a separator"
        ));
    }
    Ok(())
}

/// Checks one field of a connector's configuration against its provider's rules; the message says
/// what is allowed. Fields not named here (secrets, the endpoint: see [`crate::egress`]) pass.
pub fn check_field(connector_type: &str, field: &str, value: &str) -> Result<(), String> {
    match (connector_type, field) {
        // S3: bucket naming rules; the region is a DNS label of AWS's form (or an emulator's word).
        ("s3", "bucket") => dns_label_name(value, 3, 63, &['-', '.']),
        ("s3", "region") => {
            length(value, 1, 32)?;
            if !value.starts_with(|c: char| c.is_ascii_lowercase())
                || !chars_ok(value, |c| lower_or_digit(c) || c == '-')
            {
                return Err(
                    "must be a region name: lowercase letters, digits and '-', starting with a \
                     letter (eu-central-1)"
                        .to_string(),
                );
            }
            Ok(())
        }
        ("s3", "aws_access_key_id") => {
            length(value, 1, 128)?;
            if !chars_ok(value, |c| c.is_ascii_graphic()) {
                return Err("may hold only printable characters without spaces".to_string());
            }
            Ok(())
        }
        // Azure: the account is a host name label; containers are DNS labels with '-'.
        ("azure_blob", "account_name") => {
            length(value, 3, 24)?;
            if !chars_ok(value, lower_or_digit) {
                return Err("may hold only lowercase letters and digits".to_string());
            }
            Ok(())
        }
        ("azure_blob", "container_name") => dns_label_name(value, 3, 63, &['-']),
        // GCS: bucket names up to 63 characters (222 with dots), '-', '_' and '.'.
        ("gcs", "bucket") => {
            let max = if value.contains('.') { 222 } else { 63 };
            dns_label_name(value, 3, max, &['-', '_', '.'])
        }
        (_, "prefix") => {
            length(value, 1, 1024)?;
            if value.chars().any(char::is_control) {
                return Err("must not hold control characters".to_string());
            }
            if value
                .split('/')
                .any(|segment| segment == ".." || segment == ".")
            {
                return Err("must not hold '.' or '..' segments".to_string());
            }
            Ok(())
        }
        _ => Ok(()),
    }
}

/// The HTTP client of a connector's provider calls: object_store's own settings (timeouts), the
/// egress guard's resolver and no redirects.
#[derive(Debug)]
pub struct GuardedConnector {
    pub allow_private: bool,
    pub allow_http: bool,
    pub timeout: Duration,
    pub connect_timeout: Duration,
}

impl HttpConnector for GuardedConnector {
    fn connect(&self, _options: &ClientOptions) -> object_store::Result<HttpClient> {
        let client = crate::egress::client_builder(self.allow_private)
            .timeout(self.timeout)
            .connect_timeout(self.connect_timeout)
            .https_only(!self.allow_http)
            .user_agent(concat!("docsieve/", env!("CARGO_PKG_VERSION")))
            .build()
            .map_err(|error| object_store::Error::Generic {
                store: "connector",
                source: Box::new(error),
            })?;
        Ok(HttpClient::new(client))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn host_smuggling_values_break_the_providers_rules() {
        for (kind, field) in [
            ("s3", "region"),
            ("s3", "bucket"),
            ("azure_blob", "account_name"),
            ("azure_blob", "container_name"),
            ("gcs", "bucket"),
        ] {
            for value in [
                "x.127.0.0.1:1/",
                "a:b",
                "a@b",
                "x#y",
                "a%2fb",
                "evil.com/x",
                "A B",
            ] {
                assert!(
                    check_field(kind, field, value).is_err(),
                    "{kind}.{field} = {value}"
                );
            }
        }
        for (kind, field, value) in [
            ("s3", "region", "eu-central-1"),
            ("s3", "bucket", "faturalar.2026"),
            ("azure_blob", "account_name", "devstoreaccount1"),
            ("azure_blob", "container_name", "gelen-belgeler"),
            ("gcs", "bucket", "docsieve_test-1"),
            ("s3", "prefix", "gelen/2026/"),
        ] {
            assert!(check_field(kind, field, value).is_ok(), "{kind}.{field}");
        }
        assert!(check_field("s3", "prefix", "../etc").is_err());
        assert!(check_field("s3", "aws_access_key_id", "AKIA\r\nX: y").is_err());
    }
}
