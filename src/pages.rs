//! The pages the account mails link to: `/verify-email`, `/reset-password` and `/accept-invitation`,
//! each with `?token=...`. A page does the mail's job in a browser through the public API (the same
//! calls a client makes) and says what happened; it never acts on a plain GET, so a mail scanner that
//! opens the link does not use the token up. Plain HTML with a few lines of script, served by the
//! binary (no assets to fetch), under a policy that allows only its own inline script and calls to
//! this origin.

use actix_web::{web, HttpResponse};

/// One page: its heading, what it asks for, the call it makes.
struct Page {
    title: &'static str,
    intro: &'static str,
    /// Form fields beside the token: (name, label, input type, autocomplete).
    fields: &'static [(&'static str, &'static str, &'static str, &'static str)],
    button: &'static str,
    /// The script that sends the form (`token` and each field are in scope as strings).
    script: &'static str,
}

const VERIFY: Page = Page {
    title: "Confirm your email address",
    intro:
        "Confirm the address this link was sent to, and your docsieve account is ready to sign in.",
    fields: &[],
    button: "Confirm my address",
    script: r#"
      const answer = await call("/v1/auth/verify-email", {token});
      return answer.ok ? "Your address is confirmed. You can now sign in: in the console at /console, or with POST /v1/auth/login." : null;
    "#,
};

const RESET: Page = Page {
    title: "Choose a new password",
    intro: "Choose the new password of your docsieve account (at least 8 characters). Every session signed in with the old one ends.",
    fields: &[("new_password", "New password", "password", "new-password")],
    button: "Set the new password",
    script: r#"
      const answer = await call("/v1/auth/reset-password", {token, new_password: values.new_password});
      return answer.ok ? "Your password is changed. Sign in with the new one (in the console at /console)." : null;
    "#,
};

const ACCEPT: Page = Page {
    title: "Join the team",
    intro: "Sign in with the address the invitation was sent to (sign up first if you have no account), and you join the team.",
    fields: &[
        ("email", "Email", "email", "username"),
        ("password", "Password", "password", "current-password"),
    ],
    button: "Sign in and join",
    script: r#"
      const login = await call("/v1/auth/login", {email: values.email, password: values.password});
      if (!login.ok) return null;
      const access = login.body.data.access_token;
      const answer = await call("/v1/team/accept", {token}, access);
      return answer.ok ? "You joined the team." : null;
    "#,
};

const POLICY: &str = "default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; \
                      connect-src 'self'; form-action 'none'; frame-ancestors 'none'; base-uri 'none'";

fn escape(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

fn render(page: &Page) -> HttpResponse {
    let fields: String = page
        .fields
        .iter()
        .map(|(name, label, kind, autocomplete)| {
            format!(
                r#"<p><label for="{name}">{label}</label><br><input id="{name}" name="{name}" type="{kind}" autocomplete="{autocomplete}" required></p>"#
            )
        })
        .collect();
    let html = format!(
        r#"<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<title>{title} · docsieve</title>
<style>
  body {{ font: 16px/1.5 system-ui, sans-serif; max-width: 32rem; margin: 3rem auto; padding: 0 1rem; color: #1b1b1b; }}
  input {{ font: inherit; padding: .4rem; width: 100%; box-sizing: border-box; }}
  button {{ font: inherit; padding: .5rem 1rem; }}
  [role=status] {{ margin-top: 1rem; font-weight: 600; }}
</style>
</head>
<body>
<main>
<h1>{title}</h1>
<p>{intro}</p>
<form id="form">
{fields}
<button type="submit">{button}</button>
</form>
<p id="outcome" role="status" aria-live="polite"></p>
</main>
<script>
  const token = new URLSearchParams(location.search).get("token") || "";
  const form = document.getElementById("form");
  const outcome = document.getElementById("outcome");
  if (!token) {{
    form.hidden = true;
    outcome.textContent = "This link has no token: open the link from the mail again, or paste the token from the mail into the API call the mail names.";
  }}
  async function call(path, body, bearer) {{
    const headers = {{"Content-Type": "application/json"}};
    if (bearer) headers["Authorization"] = "Bearer " + bearer;
    const response = await fetch(path, {{method: "POST", headers, body: JSON.stringify(body)}});
    let parsed = null;
    try {{ parsed = await response.json(); }} catch (error) {{}}
    if (!response.ok) {{
      const detail = parsed && (typeof parsed.detail === "string" ? parsed.detail : (parsed.detail || []).map(d => d.msg).join("; "));
      outcome.textContent = "That did not work" + (parsed && parsed.code ? " (" + parsed.code + ")" : "") + ": " + (detail || response.statusText);
    }}
    return {{ok: response.ok, body: parsed}};
  }}
  form.addEventListener("submit", async (event) => {{
    event.preventDefault();
    const values = Object.fromEntries(new FormData(form));
    outcome.textContent = "Sending...";
    try {{
      const done = await (async () => {{ {script} }})();
      if (done) {{ outcome.textContent = done; form.hidden = true; }}
    }} catch (error) {{
      outcome.textContent = "docsieve could not be reached: " + error;
    }}
  }});
</script>
</body>
</html>
"#,
        title = escape(page.title),
        intro = escape(page.intro),
        button = escape(page.button),
        script = page.script,
    );
    HttpResponse::Ok()
        .content_type("text/html; charset=utf-8")
        .insert_header(("Content-Security-Policy", POLICY))
        .insert_header(("Cache-Control", "no-store"))
        .insert_header(("Referrer-Policy", "no-referrer"))
        .body(html)
}

async fn verify_email() -> HttpResponse {
    render(&VERIFY)
}

async fn reset_password() -> HttpResponse {
    render(&RESET)
}

async fn accept_invitation() -> HttpResponse {
    render(&ACCEPT)
}

/// The pages' paths, for the route table (405 on other methods).
pub const PATHS: [&str; 3] = ["/verify-email", "/reset-password", "/accept-invitation"];

/// Mounts the pages.
pub fn configure(cfg: &mut web::ServiceConfig) {
    cfg.route(PATHS[0], web::get().to(verify_email))
        .route(PATHS[1], web::get().to(reset_password))
        .route(PATHS[2], web::get().to(accept_invitation));
}
