//! The SSRF guard: a webhook URL must be http(s), carry no credentials, and (unless private targets
//! are allowed) resolve only to public addresses. Checked at registration and before every delivery,
//! so a name that later resolves to a private address is refused then too.

use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};

fn private_v4(ip: Ipv4Addr) -> bool {
    let [a, b, ..] = ip.octets();
    ip.is_private()
        || ip.is_loopback()
        || ip.is_link_local()
        || ip.is_unspecified()
        || ip.is_broadcast()
        || ip.is_documentation()
        || a == 0
        || (a == 100 && (64..128).contains(&b))
        || (a == 198 && (b == 18 || b == 19))
        || a >= 224
}

fn private_v6(ip: Ipv6Addr) -> bool {
    if let Some(v4) = ip.to_ipv4_mapped() {
        return private_v4(v4);
    }
    let first = ip.segments()[0];
    ip.is_loopback()
        || ip.is_unspecified()
        || ip.is_multicast()
        || (first & 0xfe00) == 0xfc00
        || (first & 0xffc0) == 0xfe80
}

/// Whether an address is private, loopback, link-local or otherwise not on the public internet.
pub fn is_private(ip: IpAddr) -> bool {
    match ip {
        IpAddr::V4(v4) => private_v4(v4),
        IpAddr::V6(v6) => private_v6(v6),
    }
}

/// Checks the URL's form; Ok carries (host, port) to resolve.
pub fn check_form(raw: &str) -> Result<url::Url, String> {
    let url = url::Url::parse(raw.trim()).map_err(|e| format!("not a valid URL: {e}"))?;
    if !matches!(url.scheme(), "http" | "https") {
        return Err("the URL must start with http:// or https://".to_string());
    }
    if !url.username().is_empty() || url.password().is_some() {
        return Err("the URL must not carry a user name or password".to_string());
    }
    if url.host_str().is_none_or(str::is_empty) {
        return Err("the URL has no host".to_string());
    }
    Ok(url)
}

/// The whole check: form, then every resolved address public (unless `allow_private`).
pub async fn check_target(raw: &str, allow_private: bool) -> Result<url::Url, String> {
    let url = check_form(raw)?;
    if allow_private {
        return Ok(url);
    }
    let refused = || {
        "the URL points at a private, loopback or link-local address; webhooks go to public hosts"
            .to_string()
    };
    match url.host() {
        Some(url::Host::Ipv4(ip)) if private_v4(ip) => return Err(refused()),
        Some(url::Host::Ipv6(ip)) if private_v6(ip) => return Err(refused()),
        Some(url::Host::Domain(name)) => {
            let name = name.trim_end_matches('.').to_ascii_lowercase();
            if name == "localhost" || name.ends_with(".localhost") {
                return Err(refused());
            }
            let port = url.port_or_known_default().unwrap_or(443);
            let addresses = tokio::net::lookup_host((name.as_str(), port))
                .await
                .map_err(|e| format!("the host {name} cannot be resolved: {e}"))?;
            let mut any = false;
            for address in addresses {
                any = true;
                if is_private(address.ip()) {
                    return Err(refused());
                }
            }
            if !any {
                return Err(format!("the host {name} has no address"));
            }
        }
        _ => {}
    }
    Ok(url)
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
