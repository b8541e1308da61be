//! The LLM behind quality cross-validation: an OpenAI-compatible chat completions endpoint at
//! `{llm.url}/chat/completions` (`llm.url` is the base URL with `/v1`, as OpenAI's clients take it),
//! reached through the one [`OpenAiClient`].
//!
//! Answers are asked for as JSON that follows a schema (`response_format: json_schema`); 5xx answers,
//! timeouts and refused connections are retried with backoff (`llm.max_retries`,
//! `llm.retry_backoff_ms`). Callers send masked text only: nothing here sees a document's raw values.
//! Reachability for the health report is a cheap `GET {llm.url}/models`, cached briefly so that
//! frequent health probes do not turn into a stream of calls to a paid service.

use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use serde::Serialize;
use serde_json::{json, Value};

use crate::openai::OpenAiClient;
use crate::settings::LlmSettings;

/// The LLM's reachability, for the health report.
#[derive(Clone, Debug, Serialize)]
pub struct LlmStatus {
    /// `disabled` (no `llm.url`), `ok` or `unreachable`.
    pub status: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}

/// Why a call gave no usable answer.
#[derive(Debug, thiserror::Error)]
pub enum LlmError {
    /// No `llm.url` is configured.
    #[error("no LLM is configured (llm.url is empty)")]
    Disabled,
    /// Not reachable, timing out, refusing the key, or failing (5xx) after the retries.
    #[error("the LLM is unavailable: {0}")]
    Unavailable(String),
    /// It answered, but not with JSON of the asked shape.
    #[error("the LLM's answer is unusable: {0}")]
    BadResponse(String),
}

#[derive(Clone)]
pub struct Llm {
    settings: LlmSettings,
    client: OpenAiClient,
    cached: Arc<Mutex<Option<(Instant, LlmStatus)>>>,
}

const CACHE_FOR: Duration = Duration::from_secs(10);

impl Llm {
    pub fn new(settings: &LlmSettings) -> Result<Llm, reqwest::Error> {
        Ok(Llm {
            settings: settings.clone(),
            client: OpenAiClient::new(
                &settings.url,
                &settings.api_key,
                Duration::from_millis(settings.timeout_ms),
            )?,
            cached: Arc::new(Mutex::new(None)),
        })
    }

    /// False when no `llm.url` is configured (the LLM is off).
    pub fn is_configured(&self) -> bool {
        self.client.is_configured()
    }

    /// The model named in requests and in results.
    pub fn model(&self) -> &str {
        &self.settings.model
    }

    pub async fn status(&self) -> LlmStatus {
        if !self.client.is_configured() {
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
        let request = self.client.request(reqwest::Method::GET, "/models");
        let status = match request.send().await {
            Ok(response) if response.status().is_success() => LlmStatus {
                status: "ok",
                error: None,
            },
            Ok(response) => LlmStatus {
                status: "unreachable",
                error: Some(format!(
                    "GET /models answered HTTP {}",
                    response.status().as_u16()
                )),
            },
            Err(error) => LlmStatus {
                status: "unreachable",
                error: Some(error.without_url().to_string()),
            },
        };
        if let Ok(mut cached) = self.cached.lock() {
            *cached = Some((Instant::now(), status.clone()));
        }
        status
    }

    /// Asks the model and returns its answer parsed as JSON following `schema` (named `name`).
    pub async fn chat_json(
        &self,
        name: &str,
        system: &str,
        user: &str,
        schema: &Value,
    ) -> Result<Value, LlmError> {
        if !self.client.is_configured() {
            return Err(LlmError::Disabled);
        }
        let body = json!({
            "model": self.settings.model,
            "temperature": 0,
            "messages": [
                {"role": "system", "content": system},
                {"role": "user", "content": user},
            ],
            "response_format": {"type": "json_schema",
                "json_schema": {"name": name, "strict": true, "schema": schema}},
        });
        let mut attempt = 0;
        loop {
            attempt += 1;
            let last = attempt > self.settings.max_retries;
            let request = self
                .client
                .request(reqwest::Method::POST, "/chat/completions")
                .json(&body);
            let failure = match request.send().await {
                Ok(response) if response.status().is_success() => {
                    let answer: Value = response.json().await.map_err(|error| {
                        LlmError::BadResponse(format!("the body is not JSON: {error}"))
                    })?;
                    return content_json(&answer);
                }
                Ok(response) if response.status().is_server_error() => {
                    format!("answered HTTP {}", response.status().as_u16())
                }
                Ok(response) => {
                    let status = response.status().as_u16();
                    return Err(match status {
                        401 | 403 => LlmError::Unavailable(format!(
                            "answered HTTP {status}: the key (llm.api_key) is refused"
                        )),
                        _ => LlmError::BadResponse(format!("answered HTTP {status}")),
                    });
                }
                Err(error) if error.is_timeout() => {
                    format!("no answer within {} ms", self.settings.timeout_ms)
                }
                Err(error) => error.without_url().to_string(),
            };
            if last {
                return Err(LlmError::Unavailable(format!(
                    "{failure} (after {attempt} attempts)"
                )));
            }
            let backoff = self.settings.retry_backoff_ms << (attempt - 1).min(6);
            tokio::time::sleep(Duration::from_millis(backoff)).await;
        }
    }
}

/// The JSON inside a chat completion's first message.
fn content_json(answer: &Value) -> Result<Value, LlmError> {
    let content = answer["choices"][0]["message"]["content"]
        .as_str()
        .ok_or_else(|| LlmError::BadResponse("no choices[0].message.content".into()))?;
    let trimmed = content
        .trim()
        .trim_start_matches("```json")
        .trim_start_matches("```")
        .trim_end_matches("```")
        .trim();
    serde_json::from_str(trimmed)
        .map_err(|error| LlmError::BadResponse(format!("the message is not JSON: {error}")))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_message_content_is_read_as_json_even_fenced() {
        let answer = json!({"choices": [{"message": {"content": "```json\n{\"a\": 1}\n```"}}]});
        assert_eq!(content_json(&answer).expect("json"), json!({"a": 1}));
        let garbage = json!({"choices": [{"message": {"content": "I think so"}}]});
        assert!(matches!(
            content_json(&garbage),
            Err(LlmError::BadResponse(_))
        ));
        assert!(matches!(
            content_json(&json!({})),
            Err(LlmError::BadResponse(_))
        ));
    }
}
