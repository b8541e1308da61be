//! The web console: its files served under a strict policy, and browser sessions
//! (`/v1/auth/session`): the refresh token in an HttpOnly, SameSite=Strict cookie scoped to the
//! session routes, the access token in the answer, the CSRF header required, rotation and reuse
//! detection as for `/v1/auth/refresh`, and sign-out that revokes and clears the cookie.

use reqwest::{Method, Response};
use serde_json::{json, Value};

use crate::support::{json_of, ServerOptions, TestServer};

const HEADER: &str = "X-Docsieve-Browser";

/// A session route called as a browser would: the guard header, and `cookie` when given.
async fn call(
    server: &TestServer,
    method: Method,
    path: &str,
    cookie: Option<&str>,
    body: Option<Value>,
) -> Response {
    let mut request = reqwest::Client::new()
        .request(method, server.url(path))
        .header(HEADER, "1");
    if let Some(cookie) = cookie {
        request = request.header("Cookie", format!("docsieve_session={cookie}"));
    }
    if let Some(body) = body {
        request = request.json(&body);
    }
    request.send().await.expect("session call")
}

/// The `docsieve_session` cookie an answer sets: its value and its attributes.
fn set_cookie(response: &Response) -> (String, String) {
    let line = response
        .headers()
        .get("set-cookie")
        .expect("a Set-Cookie header")
        .to_str()
        .expect("ascii")
        .to_string();
    let (pair, attributes) = line.split_once(';').expect("attributes");
    let value = pair
        .strip_prefix("docsieve_session=")
        .expect("the session cookie")
        .to_string();
    (value, attributes.to_string())
}

#[tokio::test]
async fn a_browser_session_keeps_its_refresh_token_in_a_cookie_scripts_cannot_read() {
    let server = TestServer::start().await;
    let email = "tarayici@example.com";
    let password = "uzun-bir-parola";
    server.verified_account(email, password).await;
    let credentials = json!({"email": email, "password": password});

    // Without the guard header: refused, and no session opened.
    let (status, body) = json_of(
        reqwest::Client::new()
            .post(server.url("/v1/auth/session"))
            .json(&credentials)
            .send()
            .await
            .expect("POST"),
    )
    .await;
    assert_eq!(status, 403, "{body}");
    assert_eq!(body["code"], "browser_header_missing", "{body}");

    let wrong = call(
        &server,
        Method::POST,
        "/v1/auth/session",
        None,
        Some(json!({"email": email, "password": "yanlis-parola"})),
    )
    .await;
    assert!(wrong.headers().get("set-cookie").is_none());
    let (status, body) = json_of(wrong).await;
    assert_eq!(
        (status, body["code"].clone()),
        (401, json!("invalid_credentials"))
    );

    let opened = call(
        &server,
        Method::POST,
        "/v1/auth/session",
        None,
        Some(credentials),
    )
    .await;
    let (first, attributes) = set_cookie(&opened);
    for attribute in [
        "HttpOnly",
        "SameSite=Strict",
        "Path=/v1/auth/session",
        "Max-Age=",
    ] {
        assert!(attributes.contains(attribute), "{attributes}");
    }
    assert!(!attributes.contains("Secure"), "plain HTTP: {attributes}");
    assert_eq!(opened.headers()["cache-control"], "no-store");
    let (status, session) = json_of(opened).await;
    assert_eq!(status, 200, "{session}");
    assert!(session["data"].get("refresh_token").is_none(), "{session}");
    assert_eq!(session["data"]["token_type"], "bearer");
    let access = session["data"]["access_token"]
        .as_str()
        .expect("access token");
    let (status, me) = json_of(
        server
            .bearer(Method::GET, "/v1/me", access)
            .send()
            .await
            .expect("me"),
    )
    .await;
    assert_eq!(status, 200, "{me}");
    assert_eq!(me["data"]["email"], email, "{me}");

    // Renewal rotates the cookie; the old value presented again revokes the family.
    let (status, body) = json_of(
        call(
            &server,
            Method::POST,
            "/v1/auth/session/refresh",
            None,
            None,
        )
        .await,
    )
    .await;
    assert_eq!(
        (status, body["code"].clone()),
        (401, json!("no_browser_session"))
    );
    let renewed = call(
        &server,
        Method::POST,
        "/v1/auth/session/refresh",
        Some(&first),
        None,
    )
    .await;
    let (second, _) = set_cookie(&renewed);
    assert_ne!(second, first);
    let (status, body) = json_of(renewed).await;
    assert_eq!(status, 200, "{body}");
    assert!(body["data"]["access_token"].is_string());
    let (status, body) = json_of(
        call(
            &server,
            Method::POST,
            "/v1/auth/session/refresh",
            Some(&first),
            None,
        )
        .await,
    )
    .await;
    assert_eq!(
        (status, body["code"].clone()),
        (401, json!("refresh_token_reused"))
    );
    let (status, _) = json_of(
        call(
            &server,
            Method::POST,
            "/v1/auth/session/refresh",
            Some(&second),
            None,
        )
        .await,
    )
    .await;
    assert_eq!(status, 401, "the whole family is revoked");

    // Sign-out revokes the cookie's token and clears the cookie; it is idempotent.
    let opened = call(
        &server,
        Method::POST,
        "/v1/auth/session",
        None,
        Some(json!({"email": email, "password": password})),
    )
    .await;
    let (third, _) = set_cookie(&opened);
    let ended = call(
        &server,
        Method::DELETE,
        "/v1/auth/session",
        Some(&third),
        None,
    )
    .await;
    let (cleared, attributes) = set_cookie(&ended);
    assert_eq!(cleared, "");
    assert!(attributes.contains("Max-Age=0"), "{attributes}");
    assert_eq!(ended.status(), 200);
    let (status, body) = json_of(
        call(
            &server,
            Method::POST,
            "/v1/auth/session/refresh",
            Some(&third),
            None,
        )
        .await,
    )
    .await;
    assert_eq!(status, 401, "{body}");
    let again = call(&server, Method::DELETE, "/v1/auth/session", None, None).await;
    assert_eq!(again.status(), 200);
}

#[tokio::test]
async fn the_console_is_served_from_the_binary_under_a_strict_policy() {
    let server = TestServer::start().await;
    let page = server.get("/console").await;
    assert_eq!(page.status(), 200);
    let policy = crate::support::policy_holding(
        &page,
        &[
            "script-src 'self'",
            "style-src 'self'",
            "frame-ancestors 'none'",
        ],
    );
    assert!(!policy.contains("unsafe-inline"), "{policy}");
    assert!(page.headers()["content-type"]
        .to_str()
        .expect("ascii")
        .starts_with("text/html"));
    let html = page.text().await.expect("html");
    // Every file the page loads is served, with its type; nothing is loaded from elsewhere.
    for (name, kind) in [
        ("app.js", "text/javascript"),
        ("try.js", "text/javascript"),
        ("texts.js", "text/javascript"),
        ("work.js", "text/javascript"),
        ("admin.js", "text/javascript"),
        ("app.css", "text/css"),
    ] {
        let response = server.get(&format!("/console/assets/{name}")).await;
        assert_eq!(response.status(), 200, "{name}");
        assert!(response.headers()["content-type"]
            .to_str()
            .expect("ascii")
            .starts_with(kind));
        assert_eq!(response.headers()["x-content-type-options"], "nosniff");
        let body = response.text().await.expect("body");
        assert!(
            !body.contains("http://") && !body.contains("https://"),
            "{name} loads nothing from elsewhere"
        );
    }
    assert!(html.contains("/console/assets/app.js") && !html.contains("<script>"));
    let (status, body) = crate::support::json_of(server.get("/console/assets/nope.js").await).await;
    assert_eq!(
        (status, body["code"].as_str()),
        (404, Some("route_not_found"))
    );
    let (status, _) = json_of(
        reqwest::Client::new()
            .post(server.url("/console"))
            .send()
            .await
            .expect("POST"),
    )
    .await;
    assert_eq!(status, 405);
}

/// The cookie is `Secure` when a configured proxy says the browser came over HTTPS, not when any
/// peer says so: a header anyone can write decides nothing.
#[tokio::test]
async fn the_session_cookie_is_secure_on_a_trusted_proxys_word_only() {
    let opened_via_https = |server: &TestServer| {
        let url = server.url("/v1/auth/session");
        async move {
            let response = reqwest::Client::new()
                .post(url)
                .header(HEADER, "1")
                .header("X-Forwarded-Proto", "https")
                .json(&json!({"email": "guvenli@example.com", "password": "guvenli-parola-1"}))
                .send()
                .await
                .expect("POST");
            assert_eq!(response.status(), 200);
            set_cookie(&response).1
        }
    };
    let untrusted = TestServer::start().await;
    untrusted
        .verified_account("guvenli@example.com", "guvenli-parola-1")
        .await;
    let attributes = opened_via_https(&untrusted).await;
    assert!(!attributes.contains("Secure"), "{attributes}");

    let behind_proxy = TestServer::start_with(
        ServerOptions::default().env("DOCSIEVE__SERVER__TRUSTED_PROXIES", "[\"127.0.0.1\"]"),
    )
    .await;
    behind_proxy
        .verified_account("guvenli@example.com", "guvenli-parola-1")
        .await;
    let attributes = opened_via_https(&behind_proxy).await;
    assert!(attributes.contains("Secure"), "{attributes}");
}

/// axe-core's script, from the global npm folder (`npm install -g axe-core`), when installed.
fn axe_core() -> Option<std::path::PathBuf> {
    let root = std::process::Command::new("npm")
        .args(["root", "-g"])
        .output()
        .ok()
        .filter(|output| output.status.success())?;
    let path = std::path::PathBuf::from(String::from_utf8_lossy(&root.stdout).trim())
        .join("axe-core/axe.min.js");
    path.exists().then_some(path)
}

/// Whether Selenium, Chromium and its driver are installed (in CI they must be).
fn browser_present() -> bool {
    let selenium = std::process::Command::new("python3")
        .args(["-c", "import selenium"])
        .status()
        .is_ok_and(|status| status.success());
    let chromium = ["/usr/bin/chromium", "/usr/bin/chromium-browser"]
        .iter()
        .any(|path| std::path::Path::new(path).exists());
    let driver = ["/usr/bin/chromedriver", "/usr/lib/chromium/chromedriver"]
        .iter()
        .any(|path| std::path::Path::new(path).exists());
    let present = selenium && chromium && driver;
    if !present {
        assert!(
            !std::env::var("CI").is_ok_and(|value| value == "true"),
            "the console's browser test needs selenium (pip), chromium and chromium-driver (apt); CI must run it"
        );
        eprintln!("skipping the browser test: selenium, chromium or chromium-driver is missing");
    }
    present
}

#[tokio::test]
async fn the_console_works_in_a_real_chromium() {
    if !browser_present() {
        return;
    }
    let Some(axe) = axe_core() else {
        assert!(
            !std::env::var("CI").is_ok_and(|value| value == "true"),
            "axe-core is not installed (npm install -g axe-core); CI must run the browser test"
        );
        eprintln!("skipping the browser test: axe-core is missing");
        return;
    };
    // The trial plan, as a new account has it, with schedules (the connectors page schedules a run).
    let server = TestServer::start_with(
        ServerOptions::default()
            .env("DOCSIEVE__PLANS__TRIAL__MAX_SCHEDULES_PER_CONNECTOR", "5")
            .env("DOCSIEVE__PLANS__TRIAL__MIN_SCHEDULE_INTERVAL_MINUTES", "0"),
    )
    .await;
    let manifest = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let document = manifest.join("../shared/corpus/tr/tr_ik_yazisi.docx");
    // A bucket for the connectors page: moto's S3, holding one document to sync.
    let Some(s3) = crate::emulators::s3() else {
        return;
    };
    s3.create_bucket("konsol").await;
    s3.put(
        "konsol",
        "gelen/dilekce.txt",
        std::fs::read(manifest.join("../shared/corpus/tr/tr_dilekce_cp1254.txt")).expect("corpus"),
    )
    .await;
    let mut command = tokio::process::Command::new("python3");
    command
        .arg(manifest.join("tests/e2e/console.py"))
        .args(["--base", &server.url("")])
        .arg("--outbox")
        .arg(server.data_dir.path().join("outbox"))
        .arg("--document")
        .arg(&document)
        .arg("--more")
        .arg(manifest.join("../shared/corpus/tr/tr_musteri_listesi.csv"))
        .arg("--more")
        .arg(manifest.join("../shared/corpus/tr/tr_dilekce_cp1254.txt"))
        .arg("--axe")
        .arg(&axe)
        .args(["--s3-endpoint", &s3.endpoint(), "--s3-bucket", "konsol"])
        .args(["--s3-secret", crate::emulators::S3_SECRET])
        .env("SE_OFFLINE", "true")
        .current_dir(server.data_dir.path());
    // DOCSIEVE_CONSOLE_SCREENSHOTS=docs/console writes the README's screenshots.
    if let Ok(folder) = std::env::var("DOCSIEVE_CONSOLE_SCREENSHOTS") {
        command.arg("--screenshots").arg(manifest.join(folder));
    }
    let output = command.output().await.expect("run the browser test");
    println!("{}", String::from_utf8_lossy(&output.stdout));
    assert!(
        output.status.success(),
        "the console failed in Chromium:\n{}\nserver log:\n{}",
        String::from_utf8_lossy(&output.stderr),
        server.stderr()
    );
}
