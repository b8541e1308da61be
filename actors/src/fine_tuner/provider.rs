//! The OpenAI-compatible fine-tuning API, as far as docsieve uses it: upload a training file
//! (`POST /files`, `purpose=fine-tune`), list files, create a job (`POST /fine_tuning/jobs`), list
//! jobs, read one (`GET /fine_tuning/jobs/{id}`).
//!
//! Errors say whether trying again may help: a provider that cannot be reached, times out, answers
//! 5xx or 429 is [`ProviderError::Transient`]; any other 4xx is [`ProviderError::Rejected`] with the
//! provider's own message.

use std::time::Duration;

use serde::Deserialize;

use crate::metric_names as names;
use crate::openai::{error_message, OpenAiClient};

#[derive(Debug, thiserror::Error)]
pub enum ProviderError {
    #[error("the provider is unavailable: {0}")]
    Transient(String),
    #[error("the provider refused the request ({status}): {message}")]
    Rejected { status: u16, message: String },
}

/// A provider's file.
#[derive(Clone, Debug, Deserialize)]
pub struct ProviderFile {
    pub id: String,
    #[serde(default)]
    pub filename: String,
}

/// A provider's fine-tuning job.
#[derive(Clone, Debug, Deserialize)]
pub struct ProviderJob {
    pub id: String,
    pub status: String,
    #[serde(default)]
    pub training_file: Option<String>,
    #[serde(default)]
    pub fine_tuned_model: Option<String>,
    #[serde(default)]
    pub error: Option<ProviderJobError>,
}

#[derive(Clone, Debug, Default, Deserialize)]
pub struct ProviderJobError {
    #[serde(default)]
    pub code: Option<String>,
    #[serde(default)]
    pub message: Option<String>,
}

#[derive(Deserialize)]
struct List<T> {
    data: Vec<T>,
}

/// The client of one provider.
#[derive(Clone)]
pub struct Provider {
    client: OpenAiClient,
}

impl Provider {
    pub fn new(base: &str, api_key: &str, timeout: Duration) -> Result<Provider, reqwest::Error> {
        Ok(Provider {
            client: OpenAiClient::new(base, api_key, timeout)?,
        })
    }

    fn request(&self, method: reqwest::Method, path: &str) -> reqwest::RequestBuilder {
        self.client.request(method, path)
    }

    async fn call<T: serde::de::DeserializeOwned>(
        &self,
        call: &'static str,
        request: reqwest::RequestBuilder,
    ) -> Result<T, ProviderError> {
        let outcome = async {
            let response = request.send().await.map_err(|error| {
                let kind = if error.is_timeout() {
                    "timed out"
                } else {
                    "cannot connect"
                };
                ProviderError::Transient(format!("{kind}: {}", error.without_url()))
            })?;
            let status = response.status().as_u16();
            let body = response.text().await.map_err(|error| {
                ProviderError::Transient(format!("reading the answer: {error}"))
            })?;
            if status >= 500 || status == 429 || status == 408 {
                return Err(ProviderError::Transient(format!(
                    "HTTP {status}: {}",
                    error_message(&body)
                )));
            }
            if status >= 400 {
                return Err(ProviderError::Rejected {
                    status,
                    message: error_message(&body),
                });
            }
            serde_json::from_str(&body).map_err(|error| {
                ProviderError::Transient(format!(
                    "an answer that is not the expected JSON: {error}"
                ))
            })
        }
        .await;
        let label = match &outcome {
            Ok(_) => "ok",
            Err(ProviderError::Transient(_)) => "unavailable",
            Err(ProviderError::Rejected { .. }) => "rejected",
        };
        metrics::counter!(names::FINE_TUNE_PROVIDER_CALLS_TOTAL, "call" => call, "outcome" => label)
            .increment(1);
        outcome
    }

    /// Uploads a training file under `filename`.
    pub async fn upload_file(
        &self,
        filename: &str,
        bytes: Vec<u8>,
    ) -> Result<ProviderFile, ProviderError> {
        let part = reqwest::multipart::Part::bytes(bytes)
            .file_name(filename.to_string())
            .mime_str("application/jsonl")
            .map_err(|error| ProviderError::Transient(error.to_string()))?;
        let form = reqwest::multipart::Form::new()
            .text("purpose", "fine-tune")
            .part("file", part);
        self.call(
            "upload_file",
            self.request(reqwest::Method::POST, "/files")
                .multipart(form),
        )
        .await
    }

    /// The file named `filename`, if the provider has one (a step that uploaded it and died before
    /// recording its id).
    pub async fn find_file(&self, filename: &str) -> Result<Option<ProviderFile>, ProviderError> {
        let files: List<ProviderFile> = self
            .call(
                "list_files",
                self.request(reqwest::Method::GET, "/files?purpose=fine-tune"),
            )
            .await?;
        Ok(files
            .data
            .into_iter()
            .find(|file| file.filename == filename))
    }

    pub async fn create_job(
        &self,
        training_file: &str,
        model: &str,
        suffix: Option<&str>,
    ) -> Result<ProviderJob, ProviderError> {
        let mut body = serde_json::json!({"training_file": training_file, "model": model});
        if let Some(suffix) = suffix {
            body["suffix"] = suffix.into();
        }
        self.call(
            "create_job",
            self.request(reqwest::Method::POST, "/fine_tuning/jobs")
                .json(&body),
        )
        .await
    }

    /// The job training on `training_file`, if the provider has one (a create whose answer was lost).
    pub async fn find_job(
        &self,
        training_file: &str,
    ) -> Result<Option<ProviderJob>, ProviderError> {
        let jobs: List<ProviderJob> = self
            .call(
                "list_jobs",
                self.request(reqwest::Method::GET, "/fine_tuning/jobs?limit=100"),
            )
            .await?;
        Ok(jobs
            .data
            .into_iter()
            .find(|job| job.training_file.as_deref() == Some(training_file)))
    }

    pub async fn job(&self, id: &str) -> Result<ProviderJob, ProviderError> {
        self.call(
            "get_job",
            self.request(reqwest::Method::GET, &format!("/fine_tuning/jobs/{id}")),
        )
        .await
    }
}

/// docsieve's state for a provider's job status.
pub fn our_status(provider_status: &str) -> &'static str {
    match provider_status {
        "succeeded" => "succeeded",
        "failed" => "failed",
        "cancelled" => "cancelled",
        "running" => "running",
        // validating_files, queued (waiting for a training slot), and anything new.
        _ => "validating",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn provider_errors_and_statuses_read_as_documented() {
        assert_eq!(
            error_message(
                r#"{"error": {"message": "model not found", "type": "invalid_request_error"}}"#
            ),
            "model not found"
        );
        assert_eq!(error_message("plain text"), "plain text");
        assert_eq!(our_status("validating_files"), "validating");
        assert_eq!(our_status("queued"), "validating");
        assert_eq!(our_status("running"), "running");
        assert_eq!(our_status("succeeded"), "succeeded");
        assert_eq!(our_status("cancelled"), "cancelled");
    }
}
