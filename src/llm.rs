//! Reachability of the configured model provider / LLM, for the health report.
//!
//! The answer is cached briefly so that frequent health probes do not turn into a stream of calls to a
//! paid service.

use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use serde::Serialize;

#[derive(Clone, Debug, Serialize, utoipa::ToSchema)]
pub struct LlmStatus {
    /// `disabled` (no `llm.url`), `ok` or `error`.
    pub status: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}

#[derive(Clone)]
pub struct LlmProbe {
    url: String,
    client: reqwest::Client,
    cached: Arc<Mutex<Option<(Instant, LlmStatus)>>>,
}

const CACHE_FOR: Duration = Duration::from_secs(10);

impl LlmProbe {
    pub fn new(url: &str, timeout: Duration) -> Result<LlmProbe, reqwest::Error> {
        Ok(LlmProbe {
            url: url.to_string(),
            client: reqwest::Client::builder().timeout(timeout).build()?,
            cached: Arc::new(Mutex::new(None)),
        })
    }

    pub async fn status(&self) -> LlmStatus {
        if self.url.is_empty() {
            return LlmStatus {
                status: "disabled",
                error: None,
            };
        }
        if let Ok(cached) = self.cached.lock() {
            if let Some((at, status)) = cached.as_ref() {
                if at.elapsed() < CACHE_FOR {
                    return status.clone();
                }
            }
        }
        let status = match self.client.get(&self.url).send().await {
            Ok(response) if !response.status().is_server_error() => LlmStatus {
                status: "ok",
                error: None,
            },
            Ok(response) => LlmStatus {
                status: "error",
                error: Some(format!("answered HTTP {}", response.status().as_u16())),
            },
            Err(error) => LlmStatus {
                status: "error",
                error: Some(if error.is_timeout() {
                    "timed out".to_string()
                } else {
                    "unreachable".to_string()
                }),
            },
        };
        if let Ok(mut cached) = self.cached.lock() {
            *cached = Some((Instant::now(), status.clone()));
        }
        status
    }
}
