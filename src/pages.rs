//! The addresses the account mails link to: `/verify-email`, `/reset-password` and
//! `/accept-invitation`, each with `?token=...`. Each sends the browser on to the console's page of
//! the same name (`/console#/verify-email?token=...`), which does the mail's job through the public
//! API when the person asks: a GET uses nothing up, so a mail scanner that opens the link does no
//! harm. Only the token goes on, and in the address's fragment, which browsers never send to a server.

use actix_web::{web, HttpRequest, HttpResponse};

/// The pages' paths, for the route table (405 on other methods).
pub const PATHS: [&str; 3] = ["/verify-email", "/reset-password", "/accept-invitation"];

/// Where a mail's link leads: the console's page of the same name, with the link's token.
fn console_address(path: &str, query: &str) -> String {
    let token = url::form_urlencoded::parse(query.as_bytes())
        .find(|(name, _)| name == "token")
        .map(|(_, value)| value.into_owned())
        .unwrap_or_default();
    let query: String = url::form_urlencoded::Serializer::new(String::new())
        .append_pair("token", &token)
        .finish();
    format!("/console#/{}?{query}", path.trim_start_matches('/'))
}

async fn to_console(request: HttpRequest) -> HttpResponse {
    HttpResponse::Found()
        .insert_header((
            "Location",
            console_address(request.path(), request.query_string()),
        ))
        .insert_header(("Cache-Control", "no-store"))
        .insert_header(("Referrer-Policy", "no-referrer"))
        .finish()
}

/// Mounts the pages.
pub fn configure(cfg: &mut web::ServiceConfig) {
    for path in PATHS {
        cfg.route(path, web::get().to(to_console));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_the_token_goes_on_to_the_console() {
        assert_eq!(
            console_address("/verify-email", "token=abc123&x=%0d%0aSet-Cookie:1"),
            "/console#/verify-email?token=abc123"
        );
        assert_eq!(
            console_address("/accept-invitation", "token=a%20b%26c"),
            "/console#/accept-invitation?token=a+b%26c"
        );
        assert_eq!(
            console_address("/reset-password", ""),
            "/console#/reset-password?token="
        );
    }
}
