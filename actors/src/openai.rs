//! The one client of OpenAI-compatible APIs. The LLM of quality audits (`/models`,
//! `/chat/completions`, [`crate::llm`]) and the fine-tune provider (`/files`, `/fine_tuning/jobs`,
//! the fine_tuner) both talk through it: a base URL with `/v1` as OpenAI's clients take it, an
//! optional bearer key, docsieve's User-Agent, one time limit per call, and the egress guard's
//! client with private addresses allowed (the operator's own endpoint) and no redirects, so that
//! what is sent goes to the configured URL and nowhere else.

use std::time::Duration;

/// A client of one OpenAI-compatible endpoint.
#[derive(Clone)]
pub struct OpenAiClient {
    base: String,
    api_key: String,
    client: reqwest::Client,
}

impl OpenAiClient {
    /// A client of `base` (trailing `/` dropped) sending `api_key` as a bearer token (none when
    /// empty), each call limited to `timeout`.
    pub fn new(
        base: &str,
        api_key: &str,
        timeout: Duration,
    ) -> Result<OpenAiClient, reqwest::Error> {
        Ok(OpenAiClient {
            base: base.trim_end_matches('/').to_string(),
            api_key: api_key.to_string(),
            client: crate::egress::client_builder(true)
                .timeout(timeout)
                .build()?,
        })
    }

    /// False when no base URL is configured (the feature is off).
    pub fn is_configured(&self) -> bool {
        !self.base.is_empty()
    }

    /// A request to `{base}{path}` with the User-Agent and the key.
    pub fn request(&self, method: reqwest::Method, path: &str) -> reqwest::RequestBuilder {
        let request = self
            .client
            .request(method, format!("{}{path}", self.base))
            .header(
                "User-Agent",
                concat!("docsieve/", env!("CARGO_PKG_VERSION")),
            );
        if self.api_key.is_empty() {
            request
        } else {
            request.bearer_auth(&self.api_key)
        }
    }
}

/// The message of an OpenAI-style error body (`{"error": {"message"}}`), else the body's start.
pub fn error_message(body: &str) -> String {
    let parsed: Option<serde_json::Value> = serde_json::from_str(body).ok();
    parsed
        .as_ref()
        .and_then(|value| {
            value["error"]["message"]
                .as_str()
                .or_else(|| value["error"].as_str())
                .or_else(|| value["message"].as_str())
        })
        .map(str::to_string)
        .unwrap_or_else(|| body.chars().take(300).collect())
}
