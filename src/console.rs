//! The web console at `/console`: a page over the public API (`console/` at the repository's root:
//! HTML, CSS and JavaScript modules, no build step and no third-party code), embedded in the binary.
//! It calls the API like any client, with a browser session (`/v1/auth/session`: the refresh token in
//! an HttpOnly cookie, the access token in the page's memory). Served under a policy that allows only
//! this origin's scripts, styles and calls, and no inline script or style.

use actix_web::{web, HttpResponse};

use crate::error::{ApiError, ErrorCode};

/// The console's files: (name under `/console/assets/`, content type, content).
const ASSETS: [(&str, &str, &str); 6] = [
    (
        "app.js",
        "text/javascript; charset=utf-8",
        include_str!("../console/app.js"),
    ),
    (
        "try.js",
        "text/javascript; charset=utf-8",
        include_str!("../console/try.js"),
    ),
    (
        "texts.js",
        "text/javascript; charset=utf-8",
        include_str!("../console/texts.js"),
    ),
    (
        "work.js",
        "text/javascript; charset=utf-8",
        include_str!("../console/work.js"),
    ),
    (
        "admin.js",
        "text/javascript; charset=utf-8",
        include_str!("../console/admin.js"),
    ),
    (
        "app.css",
        "text/css; charset=utf-8",
        include_str!("../console/app.css"),
    ),
];

const INDEX: &str = include_str!("../console/index.html");

const POLICY: &str = "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; \
                      img-src 'self' data: blob:; form-action 'self'; frame-ancestors 'none'; base-uri 'none'";

/// The console's paths, for the route table (405 on other methods).
pub const PATHS: [&str; 3] = ["/console", "/console/", "/console/assets/{name}"];

fn served(content_type: &str, body: &'static str) -> HttpResponse {
    HttpResponse::Ok()
        .content_type(content_type)
        .insert_header(("Content-Security-Policy", POLICY))
        .insert_header(("X-Content-Type-Options", "nosniff"))
        .insert_header(("Referrer-Policy", "no-referrer"))
        // Small files that change with the binary: revalidated on each load.
        .insert_header(("Cache-Control", "no-cache"))
        .body(body)
}

async fn index() -> HttpResponse {
    served("text/html; charset=utf-8", INDEX)
}

async fn asset(name: web::Path<String>) -> Result<HttpResponse, ApiError> {
    match ASSETS.iter().find(|(file, _, _)| *file == name.as_str()) {
        Some((_, content_type, body)) => Ok(served(content_type, body)),
        None => Err(ApiError::not_found(
            ErrorCode::RouteNotFound,
            format!("the console has no file {}", name.as_str()),
        )),
    }
}

/// Mounts the console.
pub fn configure(cfg: &mut web::ServiceConfig) {
    cfg.route(PATHS[0], web::get().to(index))
        .route(PATHS[1], web::get().to(index))
        .route(PATHS[2], web::get().to(asset));
}

#[cfg(test)]
mod tests {
    use super::*;
    use docsieve_actors::error_code::RecordCode;

    /// The line of `texts.js` that gives the sentences of `code`.
    fn sentences_of<'a>(texts: &'a str, code: &str) -> Option<&'a str> {
        let errors = &texts[texts.find("export const ERRORS")?..];
        errors
            .lines()
            .find(|line| line.trim_start().starts_with(&format!("{code}: {{")))
    }

    #[test]
    fn every_error_code_reads_as_a_sentence_in_english_and_turkish() {
        let texts = ASSETS[2].2;
        for code in ErrorCode::ALL {
            let line = sentences_of(texts, code.as_str()).unwrap_or_else(|| {
                panic!("console/texts.js has no sentence for {}", code.as_str())
            });
            for language in ["en: \"", "tr: \""] {
                assert!(line.contains(language), "{}: no {language}", code.as_str());
            }
        }
    }

    /// The codes a connection test or a sync run answers, shown on the connectors page.
    #[test]
    fn every_connector_record_code_reads_as_a_sentence_in_english_and_turkish() {
        let texts = ASSETS[2].2;
        let records = &texts[texts.find("export const RECORDS").expect("RECORDS")..];
        let shown = RecordCode::ALL.iter().filter(|code| {
            code.records()
                .iter()
                .any(|record| matches!(*record, "connection test" | "sync run" | "sync object"))
        });
        let mut count = 0;
        for code in shown {
            let line = records
                .lines()
                .find(|line| {
                    line.trim_start()
                        .starts_with(&format!("{}: {{", code.as_str()))
                })
                .unwrap_or_else(|| {
                    panic!("texts.js RECORDS has no sentence for {}", code.as_str())
                });
            for language in ["en: \"", "tr: \""] {
                assert!(line.contains(language), "{}: no {language}", code.as_str());
            }
            count += 1;
        }
        assert!(count >= 8, "{count}");
    }

    #[test]
    fn both_languages_have_every_text() {
        let texts = ASSETS[2].2;
        let block = |from: &str, to: &str| -> Vec<String> {
            let start = texts.find(from).expect("block");
            let end = start + texts[start..].find(to).expect("end");
            texts[start..end]
                .lines()
                .filter_map(|line| line.trim().split_once(": \"").map(|(k, _)| k.to_string()))
                .collect()
        };
        let english = block("  en: {", "\n  },");
        let turkish = block("  tr: {", "\n  },");
        assert!(english.len() > 20);
        assert_eq!(english, turkish);
    }

    #[test]
    fn the_console_stays_small() {
        let bytes: usize =
            INDEX.len() + ASSETS.iter().map(|(_, _, body)| body.len()).sum::<usize>();
        assert!(bytes < 1024 * 1024, "{bytes} bytes");
    }
}
