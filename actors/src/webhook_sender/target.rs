//! The webhook side of the egress guard ([`crate::egress`]): a webhook URL must be http(s), carry no
//! credentials, and (unless private targets are allowed) resolve only to public addresses. Checked at
//! registration and before every delivery; the delivery client's resolver checks the address it
//! connects to, and it follows no redirect.

/// The whole check: form, then every resolved address public (unless `allow_private`).
pub async fn check_target(raw: &str, allow_private: bool) -> Result<url::Url, String> {
    crate::egress::check_target(raw, allow_private).await
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn metadata_loopback_and_private_addresses_are_refused() {
        for url in [
            "http://169.254.169.254/",
            "http://127.0.0.1/",
            "http://10.0.0.5:8080/hook",
            "http://192.168.1.1/",
            "http://[::1]/",
            "http://[fe80::1]/",
            "http://[::ffff:127.0.0.1]/",
            "http://localhost:9000/",
            "http://100.64.0.1/",
            "http://0.0.0.0/",
        ] {
            assert!(check_target(url, false).await.is_err(), "{url}");
            assert!(
                check_target(url, true).await.is_ok(),
                "{url} allowed by config"
            );
        }
        assert!(check_target("http://93.184.215.14/hook", false)
            .await
            .is_ok());
    }

    #[tokio::test]
    async fn the_form_is_checked_whatever_the_config() {
        for url in [
            "ftp://example.com/",
            "http://user:pw@93.184.215.14/",
            "not a url",
            "file:///etc/passwd",
        ] {
            assert!(check_target(url, true).await.is_err(), "{url}");
        }
    }
}
