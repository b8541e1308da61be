//! The one egress guard: every request this service sends on a user's behalf (storage connectors,
//! webhooks) or to a configured provider (the LLM, the fine-tune provider) goes through a client
//! built here. Such a client
//!
//! - resolves names through [`Guard`], which refuses a name that resolves to any address that is
//!   not on the public internet (unless private targets are allowed), at the moment of each
//!   connection: a name that resolved to a public address when the URL was checked and to
//!   127.0.0.1 later (DNS rebinding) is refused then;
//! - follows no redirect: a 302 towards an internal URL is an answer, never a second request;
//! - is only handed URLs that passed [`check_url`] (form) and [`check_literal`] (a host written as an
//!   address, which no resolver sees), both again at use, with the settings in force then.

use std::net::{IpAddr, Ipv4Addr, Ipv6Addr, SocketAddr};
use std::sync::Arc;

/// Prefix of every refusal, so that callers recognise one inside a transport error's chain.
pub const REFUSED: &str = "refused by the egress guard";

fn special_v4(ip: Ipv4Addr) -> bool {
    let [a, b, c, _] = ip.octets();
    ip.is_private()
        || ip.is_loopback()
        || ip.is_link_local()
        || ip.is_unspecified()
        || ip.is_broadcast()
        || ip.is_documentation()
        || a == 0
        || (a == 100 && (64..128).contains(&b)) // shared address space (CGNAT)
        || (a == 192 && b == 0 && c == 0) // IETF protocol assignments
        || (a == 192 && b == 88 && c == 99) // 6to4 relay anycast
        || (a == 198 && (b == 18 || b == 19)) // benchmarking
        || a >= 224 // multicast, reserved, broadcast
}

fn special_v6(ip: Ipv6Addr) -> bool {
    let segments = ip.segments();
    let first = segments[0];
    // Forms that carry an IPv4 address: judged by it.
    let embedded = |high: u16, low: u16| Ipv4Addr::from(((high as u32) << 16) | low as u32);
    if let Some(v4) = ip.to_ipv4_mapped() {
        return special_v4(v4);
    }
    if segments[..6] == [0; 6] {
        // ::/96, IPv4-compatible (deprecated) and ::, ::1: never a public destination.
        return true;
    }
    if segments[..6] == [0x64, 0xff9b, 0, 0, 0, 0] || (first == 0x64 && segments[1] == 0xff9b) {
        // NAT64 (64:ff9b::/96 and the local-use 64:ff9b:1::/48): the translator reaches the IPv4
        // address inside, which is as private as it is; refused outright.
        return true;
    }
    if first == 0x2002 {
        // 6to4: the IPv4 address of the relay is in the next two segments.
        return special_v4(embedded(segments[1], segments[2]));
    }
    ip.is_loopback()
        || ip.is_unspecified()
        || ip.is_multicast()
        || (first & 0xfe00) == 0xfc00 // unique local fc00::/7
        || (first & 0xffc0) == 0xfe80 // link-local fe80::/10
        || (first & 0xffc0) == 0xfec0 // site-local fec0::/10 (deprecated, still routed inside sites)
        || (first == 0x2001 && segments[1] == 0x0db8) // documentation
        || (first == 0x2001 && segments[1] == 0) // Teredo
        || (first == 0x0100 && segments[1..4] == [0, 0, 0]) // discard 100::/64
}

/// Whether an address is anything but a public unicast address: private, loopback, link-local,
/// site-local, shared, documentation, benchmarking, multicast, reserved, or an IPv6 form that carries
/// such an IPv4 address (mapped, compatible, NAT64, 6to4).
pub fn is_special(ip: IpAddr) -> bool {
    match ip {
        IpAddr::V4(v4) => special_v4(v4),
        IpAddr::V6(v6) => special_v6(v6),
    }
}

/// The form of an outbound URL: http or https, a host, no user name or password, no fragment.
pub fn check_url(raw: &str) -> Result<url::Url, String> {
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
    if url.fragment().is_some() {
        return Err("the URL must not carry a fragment (#...)".to_string());
    }
    Ok(url)
}

fn refused(what: impl std::fmt::Display) -> String {
    format!("{REFUSED}: {what} is not a public address")
}

/// The host of `url` when it is written as an address, or is `localhost`: refused unless private
/// targets are allowed. (Names are judged by [`Guard`] when they are resolved.)
pub fn check_literal(url: &url::Url, allow_private: bool) -> Result<(), String> {
    if allow_private {
        return Ok(());
    }
    match url.host() {
        Some(url::Host::Ipv4(ip)) if special_v4(ip) => Err(refused(ip)),
        Some(url::Host::Ipv6(ip)) if special_v6(ip) => Err(refused(ip)),
        Some(url::Host::Domain(name)) => {
            let name = name.trim_end_matches('.').to_ascii_lowercase();
            if name == "localhost" || name.ends_with(".localhost") {
                return Err(refused(name));
            }
            Ok(())
        }
        _ => Ok(()),
    }
}

/// Resolves `name`, every address checked: Err when one of them is special (unless allowed).
pub async fn resolve(name: &str, allow_private: bool) -> Result<Vec<IpAddr>, String> {
    let name = name.trim_end_matches('.');
    let addresses: Vec<IpAddr> = tokio::net::lookup_host((name, 0))
        .await
        .map_err(|e| format!("the host {name} cannot be resolved: {e}"))?
        .map(|address| address.ip())
        .collect();
    if addresses.is_empty() {
        return Err(format!("the host {name} has no address"));
    }
    if !allow_private {
        if let Some(special) = addresses.iter().find(|ip| is_special(**ip)) {
            return Err(refused(format!("{name} ({special})")));
        }
    }
    Ok(addresses)
}

/// The whole check of a URL given at the door: its form, then its host (an address, or every
/// address its name resolves to) public unless `allow_private`.
pub async fn check_target(raw: &str, allow_private: bool) -> Result<url::Url, String> {
    let url = check_url(raw)?;
    check_literal(&url, allow_private)?;
    if let (false, Some(url::Host::Domain(name))) = (allow_private, url.host()) {
        resolve(name, false).await?;
    }
    Ok(url)
}

/// The resolver of every guarded client: names resolved at connection time, refused when any
/// address is special (unless private targets are allowed).
#[derive(Clone, Copy, Debug)]
pub struct Guard {
    pub allow_private: bool,
}

impl reqwest::dns::Resolve for Guard {
    fn resolve(&self, name: reqwest::dns::Name) -> reqwest::dns::Resolving {
        let allow_private = self.allow_private;
        let name = name.as_str().to_string();
        Box::pin(async move {
            let addresses = resolve(&name, allow_private)
                .await
                .map_err(|reason| -> Box<dyn std::error::Error + Send + Sync> { reason.into() })?;
            let addresses: reqwest::dns::Addrs = Box::new(
                addresses
                    .into_iter()
                    .map(|ip| SocketAddr::new(ip, 0))
                    .collect::<Vec<_>>()
                    .into_iter(),
            );
            Ok(addresses)
        })
    }
}

/// A client builder with the guard as resolver and no redirects; callers add their timeouts.
pub fn client_builder(allow_private: bool) -> reqwest::ClientBuilder {
    reqwest::Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .dns_resolver(Arc::new(Guard { allow_private }))
}

/// Whether an error (or anything in its chain) is a refusal of this guard.
pub fn is_refusal(error: &(dyn std::error::Error + 'static)) -> bool {
    let mut current = Some(error);
    while let Some(error) = current {
        if error.to_string().contains(REFUSED) {
            return true;
        }
        current = error.source();
    }
    false
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_special_range_is_special_and_public_addresses_are_not() {
        for address in [
            "127.0.0.1",
            "10.1.2.3",
            "172.16.0.1",
            "192.168.1.1",
            "169.254.169.254",
            "100.64.0.1",
            "0.0.0.0",
            "192.0.0.8",
            "198.18.0.1",
            "203.0.113.5",
            "224.0.0.1",
            "240.0.0.1",
            "255.255.255.255",
            "::1",
            "::",
            "::127.0.0.1",
            "::ffff:127.0.0.1",
            "::ffff:10.0.0.1",
            "64:ff9b::7f00:1",
            "64:ff9b::808:808",
            "64:ff9b:1::1",
            "fec0::1",
            "fe80::1",
            "fd00::1",
            "ff02::1",
            "2001:db8::1",
            "2001::1",
            "2002:7f00:1::1",
            "100::1",
        ] {
            let ip: IpAddr = address.parse().expect(address);
            assert!(is_special(ip), "{address}");
        }
        for address in [
            "93.184.215.14",
            "8.8.8.8",
            "2606:4700::1111",
            "2002:808:808::1",
        ] {
            let ip: IpAddr = address.parse().expect(address);
            assert!(!is_special(ip), "{address}");
        }
    }

    #[tokio::test]
    async fn the_clients_resolver_refuses_a_loopback_name_when_it_connects() {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("bind");
        listener.set_nonblocking(true).expect("nonblocking");
        let port = listener.local_addr().expect("address").port();
        let url = format!("http://localhost:{port}/");
        let guarded = client_builder(false).build().expect("client");
        let error = guarded.get(&url).send().await.expect_err("refused");
        assert!(is_refusal(&error), "{error:?}");
        assert!(listener.accept().is_err(), "nobody connected");
        // Allowed, the same client connects.
        let open = client_builder(true)
            .timeout(std::time::Duration::from_millis(300))
            .build()
            .expect("client");
        let _ = open.get(&url).send().await;
        assert!(listener.accept().is_ok(), "the allowed client connected");
    }

    #[tokio::test]
    async fn urls_are_refused_by_form_and_by_address() {
        for url in [
            "http://[::127.0.0.1]/",
            "http://[64:ff9b::7f00:1]/",
            "http://[fec0::1]:9000/",
            "http://127.1/",
            "http://2130706433/",
            "http://0x7f.1/",
            "http://localhost./",
            "http://a.localhost/",
            "http://169.254.169.254/",
            "http://10.0.0.5:8080/hook",
            "http://192.168.1.1/",
            "http://[::1]/",
            "http://[fe80::1]/",
            "http://[::ffff:127.0.0.1]/",
            "http://100.64.0.1/",
            "http://0.0.0.0/",
        ] {
            let error = check_target(url, false).await.unwrap_err();
            assert!(error.contains(REFUSED), "{url}: {error}");
            assert!(check_target(url, true).await.is_ok(), "{url} allowed");
        }
        for url in [
            "http://user@93.184.215.14/",
            "http://a:b@93.184.215.14/",
            "http://93.184.215.14/#x",
            "gopher://93.184.215.14/",
            "http://93.184.215.14%2f@127.0.0.1/",
            "http://",
            "ftp://example.com/",
            "not a url",
            "file:///etc/passwd",
        ] {
            assert!(check_target(url, true).await.is_err(), "{url}");
        }
        assert!(check_target("http://93.184.215.14/hook", false)
            .await
            .is_ok());
    }
}
