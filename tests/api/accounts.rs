//! Signup, verification, login, refresh rotation, logout, password reset, usage (API keys: `api_keys.rs`).

use std::time::Duration;

use reqwest::Method;
use serde_json::json;

use crate::mail::{token_in_mail, SmtpSink};
use crate::support::{json_of, ServerOptions, TestServer};

#[tokio::test]
async fn the_whole_account_flow_works_over_http() {
    let server = TestServer::start().await;
    let email = "ayse.yilmaz@example.com.tr";

    let (status, body) = server
        .post_json(
            "/v1/auth/signup",
            json!({"email": "Ayse.Yilmaz@Example.com.tr", "password": "ilk-sifre-1"}),
        )
        .await;
    assert_eq!(status, 201, "{body}");
    assert_eq!(body["data"]["email"], email);
    assert_eq!(body["data"]["status"], "pending_verification");
    assert!(body["data"]["tenant_id"].is_i64() && body["data"]["user_id"].is_i64());

    // Not verified yet: right password, but 403.
    let (status, body) = server
        .post_json(
            "/v1/auth/login",
            json!({"email": email, "password": "ilk-sifre-1"}),
        )
        .await;
    assert_eq!(
        (status, body["code"].as_str()),
        (403, Some("email_not_verified"))
    );

    let mail = server
        .outbox("verify_email")
        .pop()
        .expect("verification mail in the outbox");
    assert!(mail.contains("To: ayse.yilmaz@example.com.tr"), "{mail}");
    assert!(mail.contains("verify-email?token"), "{mail}");
    let token = token_in_mail(&mail).expect("token");
    let (status, body) = server
        .post_json("/v1/auth/verify-email", json!({"token": token}))
        .await;
    assert_eq!(status, 200, "{body}");
    let (status, body) = server
        .post_json("/v1/auth/verify-email", json!({"token": token}))
        .await;
    assert_eq!((status, body["code"].as_str()), (400, Some("token_used")));

    let (status, login) = server
        .post_json(
            "/v1/auth/login",
            json!({"email": email, "password": "ilk-sifre-1"}),
        )
        .await;
    assert_eq!(status, 200, "{login}");
    let data = &login["data"];
    assert_eq!(data["token_type"], "bearer");
    assert_eq!(data["expires_in"], 900);
    let first_refresh = data["refresh_token"].as_str().expect("refresh").to_string();
    let access = data["access_token"].as_str().expect("access").to_string();
    let (status, me) = json_of(
        server
            .bearer(Method::GET, "/v1/me", &access)
            .send()
            .await
            .expect("me"),
    )
    .await;
    assert_eq!(status, 200, "{me}");
    assert_eq!(me["data"]["role"], "owner");

    // Refresh rotates: a new pair, and the old refresh token is dead.
    let (status, rotated) = server
        .post_json("/v1/auth/refresh", json!({"refresh_token": first_refresh}))
        .await;
    assert_eq!(status, 200, "{rotated}");
    let second_refresh = rotated["data"]["refresh_token"]
        .as_str()
        .expect("refresh")
        .to_string();
    assert_ne!(second_refresh, first_refresh);
    // Reusing the old token is theft: 401, and the whole family (the new token too) is revoked.
    let (status, body) = server
        .post_json("/v1/auth/refresh", json!({"refresh_token": first_refresh}))
        .await;
    assert_eq!(
        (status, body["code"].as_str()),
        (401, Some("refresh_token_reused"))
    );
    let (status, _) = server
        .post_json("/v1/auth/refresh", json!({"refresh_token": second_refresh}))
        .await;
    assert_eq!(status, 401);

    // A fresh login, then logout revokes that refresh token (idempotently).
    let (_, login) = server
        .post_json(
            "/v1/auth/login",
            json!({"email": email, "password": "ilk-sifre-1"}),
        )
        .await;
    let refresh = login["data"]["refresh_token"]
        .as_str()
        .expect("refresh")
        .to_string();
    for _ in 0..2 {
        let (status, _) = server
            .post_json("/v1/auth/logout", json!({"refresh_token": refresh}))
            .await;
        assert_eq!(status, 200);
    }
    let (status, _) = server
        .post_json("/v1/auth/refresh", json!({"refresh_token": refresh}))
        .await;
    assert_eq!(status, 401);

    // Forgot / reset; the reset token works once; the old password stops working.
    let (_, login) = server
        .post_json(
            "/v1/auth/login",
            json!({"email": email, "password": "ilk-sifre-1"}),
        )
        .await;
    let session_before_reset = login["data"]["refresh_token"]
        .as_str()
        .expect("refresh")
        .to_string();
    let (status, _) = server
        .post_json("/v1/auth/forgot-password", json!({"email": email}))
        .await;
    assert_eq!(status, 200);
    let (status, _) = server
        .post_json(
            "/v1/auth/forgot-password",
            json!({"email": "nobody@example.com"}),
        )
        .await;
    assert_eq!(status, 200);
    let reset = server.mailed_token("reset_password", 1).await;
    assert_eq!(
        server.outbox("reset_password").len(),
        1,
        "no mail for an unknown address"
    );
    let (status, body) = server
        .post_json(
            "/v1/auth/reset-password",
            json!({"token": reset, "new_password": "short"}),
        )
        .await;
    assert_eq!(status, 422, "{body}");
    assert_eq!(body["detail"][0]["loc"], json!(["body", "new_password"]));
    let (status, body) = server
        .post_json(
            "/v1/auth/reset-password",
            json!({"token": reset, "new_password": "yeni-sifre-2"}),
        )
        .await;
    assert_eq!(status, 200, "{body}");
    let (status, body) = server
        .post_json(
            "/v1/auth/reset-password",
            json!({"token": reset, "new_password": "baska-sifre-3"}),
        )
        .await;
    assert_eq!((status, body["code"].as_str()), (400, Some("token_used")));
    let (status, _) = server
        .post_json(
            "/v1/auth/refresh",
            json!({"refresh_token": session_before_reset}),
        )
        .await;
    assert_eq!(status, 401, "a reset revokes every session");
    let (status, body) = server
        .post_json(
            "/v1/auth/login",
            json!({"email": email, "password": "ilk-sifre-1"}),
        )
        .await;
    assert_eq!(
        (status, body["code"].as_str()),
        (401, Some("invalid_credentials"))
    );
    let (status, _) = server
        .post_json(
            "/v1/auth/login",
            json!({"email": email, "password": "yeni-sifre-2"}),
        )
        .await;
    assert_eq!(status, 200);

    // The audit trail has the security events and none of the secrets.
    let actions = server
        .query_strings("SELECT action FROM audit_entries ORDER BY id")
        .await;
    for action in [
        "signup",
        "email_verified",
        "login_succeeded",
        "refresh_token_reused",
        "logout",
        "password_reset",
        "login_failed",
    ] {
        assert!(
            actions.iter().any(|a| a == action),
            "{action} missing from {actions:?}"
        );
    }
    let details = server
        .query_strings("SELECT COALESCE(details, '') || ' ' || COALESCE(ip, '') FROM audit_entries")
        .await
        .join("\n");
    for secret in [
        token.as_str(),
        reset.as_str(),
        first_refresh.as_str(),
        "ilk-sifre-1",
        "yeni-sifre-2",
    ] {
        assert!(!details.contains(secret), "audit leaks a secret");
    }
    let stored = server
        .query_strings("SELECT token_hash FROM refresh_tokens")
        .await;
    assert!(
        !stored.contains(&first_refresh),
        "refresh tokens are stored only as hashes"
    );
}

#[tokio::test]
async fn mail_goes_through_a_real_smtp_server() {
    let Some(sink) = SmtpSink::start() else {
        return;
    };
    let server = TestServer::start_with(ServerOptions::default().env(
        "DOCSIEVE__MAIL__SMTP_URL",
        &format!("smtp://127.0.0.1:{}", sink.port),
    ))
    .await;
    let (status, _) = server
        .post_json(
            "/v1/auth/signup",
            json!({"email": "smtp.user@example.org", "password": "secret-123"}),
        )
        .await;
    assert_eq!(status, 201);
    let arrived = server
        .eventually(Duration::from_secs(20), || async {
            !sink.messages().is_empty()
        })
        .await;
    assert!(
        arrived,
        "no message reached the SMTP sink; server log:\n{}",
        server.stderr()
    );
    let message = sink.messages().pop().expect("message");
    assert!(message.contains("smtp.user@example.org"));
    assert!(message.contains("Subject: Confirm your docsieve account"));
    let token = token_in_mail(&message).expect("token in the SMTP message");
    let (status, body) = server
        .post_json("/v1/auth/verify-email", json!({"token": token}))
        .await;
    assert_eq!(status, 200, "{body}");
    assert!(
        server.outbox("verify_email").is_empty(),
        "with SMTP configured nothing goes to the outbox"
    );
}

#[tokio::test]
async fn five_failed_logins_block_the_address_until_the_window_passes() {
    let server = TestServer::start().await;
    server
        .verified_account("blocked@example.com", "right-password")
        .await;
    for attempt in 1..=5 {
        let (status, body) = server
            .post_json(
                "/v1/auth/login",
                json!({"email": "blocked@example.com", "password": "wrong-password"}),
            )
            .await;
        assert_eq!(
            (status, body["code"].as_str()),
            (401, Some("invalid_credentials")),
            "attempt {attempt}"
        );
    }
    let response = server
        .client
        .post(server.url("/v1/auth/login"))
        .json(&json!({"email": "blocked@example.com", "password": "right-password"}))
        .send()
        .await
        .expect("POST");
    let retry_after: u64 = response
        .headers()
        .get("retry-after")
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.parse().ok())
        .expect("Retry-After");
    assert!((1..=300).contains(&retry_after), "{retry_after}");
    let (status, body) = json_of(response).await;
    assert_eq!(
        (status, body["code"].as_str()),
        (429, Some("too_many_failed_logins"))
    );

    server.advance_clock(301).await;
    let (status, body) = server
        .post_json(
            "/v1/auth/login",
            json!({"email": "blocked@example.com", "password": "right-password"}),
        )
        .await;
    assert_eq!(status, 200, "{body}");
}

#[tokio::test]
async fn a_success_resets_the_failure_count() {
    let server = TestServer::start().await;
    server
        .verified_account("reset-count@example.com", "right-password")
        .await;
    for _ in 0..4 {
        server
            .post_json(
                "/v1/auth/login",
                json!({"email": "reset-count@example.com", "password": "nope-nope"}),
            )
            .await;
    }
    let (status, _) = server
        .post_json(
            "/v1/auth/login",
            json!({"email": "reset-count@example.com", "password": "right-password"}),
        )
        .await;
    assert_eq!(status, 200);
    for _ in 0..4 {
        let (status, _) = server
            .post_json(
                "/v1/auth/login",
                json!({"email": "reset-count@example.com", "password": "nope-nope"}),
            )
            .await;
        assert_eq!(status, 401);
    }
    let (status, _) = server
        .post_json(
            "/v1/auth/login",
            json!({"email": "reset-count@example.com", "password": "right-password"}),
        )
        .await;
    assert_eq!(status, 200, "four failures after a success do not block");
}

#[tokio::test]
async fn resend_is_limited_to_one_a_minute_and_does_not_reveal_accounts() {
    let server = TestServer::start().await;
    let (status, _) = server
        .post_json(
            "/v1/auth/signup",
            json!({"email": "resend@example.com", "password": "password-1"}),
        )
        .await;
    assert_eq!(status, 201);
    let first = server.mailed_token("verify_email", 1).await;
    let (status, _) = server
        .post_json(
            "/v1/auth/resend-verification",
            json!({"email": "resend@example.com"}),
        )
        .await;
    assert_eq!(status, 200);
    let second = server.mailed_token("verify_email", 2).await;
    assert_ne!(first, second);
    let response = server
        .client
        .post(server.url("/v1/auth/resend-verification"))
        .json(&json!({"email": "resend@example.com"}))
        .send()
        .await
        .expect("POST");
    assert!(response.headers().contains_key("retry-after"));
    let (status, body) = json_of(response).await;
    assert_eq!(
        (status, body["code"].as_str()),
        (429, Some("resend_too_soon"))
    );

    // The old token was replaced by the new one.
    let (status, body) = server
        .post_json("/v1/auth/verify-email", json!({"token": first}))
        .await;
    assert_eq!((status, body["code"].as_str()), (400, Some("token_used")));
    let (status, _) = server
        .post_json("/v1/auth/verify-email", json!({"token": second}))
        .await;
    assert_eq!(status, 200);

    // Unknown and verified addresses get the same 200 and no mail.
    server.advance_clock(61).await;
    for email in ["unknown@example.com", "resend@example.com"] {
        let (status, _) = server
            .post_json("/v1/auth/resend-verification", json!({"email": email}))
            .await;
        assert_eq!(status, 200);
    }
    assert_eq!(server.outbox("verify_email").len(), 2);
}

#[tokio::test]
async fn verification_tokens_expire_after_a_day() {
    let server = TestServer::start().await;
    server
        .post_json(
            "/v1/auth/signup",
            json!({"email": "late@example.com", "password": "password-1"}),
        )
        .await;
    let token = server.mailed_token("verify_email", 1).await;
    server.advance_clock(24 * 3600 + 1).await;
    let (status, body) = server
        .post_json("/v1/auth/verify-email", json!({"token": token}))
        .await;
    assert_eq!(
        (status, body["code"].as_str()),
        (400, Some("token_expired"))
    );
    let (status, body) = server
        .post_json("/v1/auth/verify-email", json!({"token": "0".repeat(64)}))
        .await;
    assert_eq!(
        (status, body["code"].as_str()),
        (400, Some("invalid_token"))
    );
}

#[tokio::test]
async fn signup_input_is_validated() {
    let server = TestServer::start().await;
    let (status, body) = server
        .post_json(
            "/v1/auth/signup",
            json!({"email": "not-an-email", "password": "short"}),
        )
        .await;
    assert_eq!(status, 422);
    let locations: Vec<_> = body["detail"]
        .as_array()
        .expect("detail")
        .iter()
        .map(|d| d["loc"].clone())
        .collect();
    assert_eq!(
        locations,
        vec![json!(["body", "email"]), json!(["body", "password"])]
    );

    let (status, body) = server
        .post_json("/v1/auth/signup", json!({"email": "a@example.com"}))
        .await;
    assert_eq!(status, 422);
    assert_eq!(body["detail"][0]["loc"], json!(["body", "password"]));
    assert_eq!(body["detail"][0]["type"], "missing");

    let (status, _) = json_of(
        server
            .client
            .post(server.url("/v1/auth/signup"))
            .header("content-type", "application/json")
            .body("{not json")
            .send()
            .await
            .expect("POST"),
    )
    .await;
    assert_eq!(status, 422);

    let (status, _) = server
        .post_json(
            "/v1/auth/signup",
            json!({"email": "dup@example.com", "password": "password-1"}),
        )
        .await;
    assert_eq!(status, 201);
    let (status, body) = server
        .post_json(
            "/v1/auth/signup",
            json!({"email": "DUP@example.com", "password": "password-2"}),
        )
        .await;
    assert_eq!((status, body["code"].as_str()), (409, Some("email_taken")));

    let (status, body) = server
        .post_json(
            "/v1/auth/login",
            json!({"email": "ghost@example.com", "password": "whatever-1"}),
        )
        .await;
    assert_eq!(
        (status, body["code"].as_str()),
        (401, Some("invalid_credentials"))
    );
}

#[tokio::test]
async fn unverified_accounts_cannot_use_the_api() {
    let server = TestServer::start().await;
    let (status, _) = server
        .post_json(
            "/v1/auth/signup",
            json!({"email": "pending@example.com", "password": "password-1"}),
        )
        .await;
    assert_eq!(status, 201);
    // No way to get a token without verifying: login answers 403.
    let (status, body) = server
        .post_json(
            "/v1/auth/login",
            json!({"email": "pending@example.com", "password": "password-1"}),
        )
        .await;
    assert_eq!(
        (status, body["code"].as_str()),
        (403, Some("email_not_verified"))
    );
}

#[tokio::test]
async fn the_links_the_mails_hold_lead_to_the_console_and_act_only_when_asked() {
    let server = TestServer::start().await;
    let token = "a".repeat(64);
    for page in ["verify-email", "reset-password", "accept-invitation"] {
        // The server's client follows no redirect: the answer is the redirect itself.
        let answer = server.get(&format!("/{page}?token={token}&other=x")).await;
        assert_eq!(answer.status(), 302, "{page}");
        let location = answer.headers()["location"].to_str().expect("ascii");
        // Only the token goes on, in the fragment (never sent to a server).
        assert_eq!(location, format!("/console#/{page}?token={token}"));
        assert_eq!(answer.headers()["referrer-policy"], "no-referrer");
        // The console's page exists: the console routes it and its texts name it.
        let console = server.get("/console").await;
        assert_eq!(console.status(), 200);
        let app = server
            .get("/console/assets/app.js")
            .await
            .text()
            .await
            .expect("app.js");
        assert!(app.contains(&format!("page(\"{page}\"")), "{page}");
        // A GET alone uses nothing up: the page is a form, the API call is the person's.
        let (status, body) = server
            .post_json("/v1/auth/verify-email", json!({"token": token}))
            .await;
        assert_eq!(
            (status, body["code"].as_str()),
            (400, Some("invalid_token")),
            "{body}"
        );
        let (status, body) = json_of(
            server
                .client
                .post(server.url(&format!("/{page}")))
                .send()
                .await
                .expect("POST"),
        )
        .await;
        assert_eq!(status, 405, "{page}: {body}");
    }
}
