//! The client's IP: the peer address, or X-Forwarded-For when the peer is a configured proxy.

use std::net::IpAddr;

use actix_web::HttpRequest;

pub fn client_ip(request: &HttpRequest, trusted_proxies: &[IpAddr]) -> Option<IpAddr> {
    let peer = request.peer_addr()?.ip();
    if !trusted_proxies.contains(&peer) {
        return Some(peer);
    }
    // Walk the chain from the nearest hop outwards; the first address that is not one of our
    // proxies is the client. Anything further left could have been written by the client itself.
    let forwarded = request
        .headers()
        .get_all("x-forwarded-for")
        .filter_map(|value| value.to_str().ok())
        .flat_map(|value| value.split(','))
        .filter_map(|part| part.trim().parse::<IpAddr>().ok())
        .collect::<Vec<_>>();
    forwarded
        .into_iter()
        .rev()
        .find(|address| !trusted_proxies.contains(address))
        .or(Some(peer))
}

#[cfg(test)]
mod tests {
    use super::*;
    use actix_web::test::TestRequest;

    #[test]
    fn forwarded_header_counts_only_from_trusted_proxies() {
        let proxy: IpAddr = "10.0.0.10".parse().expect("ip");
        let request = TestRequest::default()
            .peer_addr("10.0.0.10:5000".parse().expect("addr"))
            .insert_header(("X-Forwarded-For", "1.2.3.4, 5.6.7.8"))
            .to_http_request();
        assert_eq!(client_ip(&request, &[proxy]), "5.6.7.8".parse().ok());
        assert_eq!(client_ip(&request, &[]), "10.0.0.10".parse().ok());

        let direct = TestRequest::default()
            .peer_addr("9.9.9.9:5000".parse().expect("addr"))
            .insert_header(("X-Forwarded-For", "1.2.3.4"))
            .to_http_request();
        assert_eq!(client_ip(&direct, &[proxy]), "9.9.9.9".parse().ok());
    }
}
