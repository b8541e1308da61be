//! A stand-in for the fine-tuning provider (the OpenAI files and fine_tuning jobs endpoints): a
//! scripted status progression, a failing mode, a 5xx mode, a rejecting mode and a create whose answer
//! is lost; it checks every request for the documents' planted personal values.

use std::sync::{Arc, Mutex};

use serde_json::{json, Value};
use tokio::io::AsyncWriteExt;

use crate::stand_in::{read_request, Request};
use crate::support::ServerOptions;

pub(crate) const API_KEY: &str = "sk-test-standin";

/// How the stand-in behaves.
#[derive(Clone, Debug, Default)]
pub(crate) struct Script {
    /// Each job fails at its third poll instead of succeeding.
    pub(crate) fail_jobs: bool,
    /// Answer this many more requests with 503 (then serve normally).
    pub(crate) unavailable: u32,
    /// Refuse job creation with 400 and this message.
    pub(crate) reject_create: Option<String>,
    /// Create the next job but answer 500 (the answer is lost).
    pub(crate) lose_create: bool,
    /// Jobs stay `running` while set.
    pub(crate) hold: bool,
}

#[derive(Clone, Debug)]
pub(crate) struct StandInJob {
    pub(crate) id: String,
    pub(crate) training_file: String,
    pub(crate) model: String,
    pub(crate) suffix: Option<String>,
    pub(crate) polls: u32,
}

#[derive(Default)]
pub(crate) struct State {
    pub(crate) script: Script,
    pub(crate) files: Vec<(String, String, Vec<u8>)>,
    pub(crate) jobs: Vec<StandInJob>,
    pub(crate) creates: u32,
    pub(crate) unavailable_answers: u32,
    /// Planted values found in requests (must stay empty).
    pub(crate) leaks: Vec<String>,
    pub(crate) unauthorized: u32,
}

#[derive(Clone)]
pub(crate) struct Provider {
    pub(crate) url: String,
    pub(crate) state: Arc<Mutex<State>>,
}

/// The file part of a multipart body: its filename and content.
pub(crate) fn file_part(body: &[u8], content_type: &str) -> Option<(String, Vec<u8>)> {
    let boundary = content_type.split("boundary=").nth(1)?.trim_matches('"');
    let marker = format!("--{boundary}");
    let text = body;
    let mut start = 0;
    let positions: Vec<usize> = (0..text.len().saturating_sub(marker.len()))
        .filter(|&i| text[i..].starts_with(marker.as_bytes()))
        .collect();
    for pair in positions.windows(2) {
        let part = &text[pair[0] + marker.len()..pair[1]];
        let head_end = part.windows(4).position(|w| w == b"\r\n\r\n")?;
        let head = String::from_utf8_lossy(&part[..head_end]).to_string();
        if head.contains("name=\"file\"") {
            let filename = head
                .split("filename=\"")
                .nth(1)?
                .split('"')
                .next()?
                .to_string();
            let content = part[head_end + 4..part.len() - 2].to_vec();
            return Some((filename, content));
        }
        start += 1;
    }
    let _ = start;
    None
}

pub(crate) fn job_json(job: &StandInJob, script: &Script) -> Value {
    let (status, model, error) = match job.polls {
        0 => ("validating_files", Value::Null, Value::Null),
        1 => ("queued", Value::Null, Value::Null),
        _ if script.hold => ("running", Value::Null, Value::Null),
        2 => ("running", Value::Null, Value::Null),
        _ if script.fail_jobs => (
            "failed",
            Value::Null,
            json!({"code": "invalid_training_file", "message": "training loss diverged"}),
        ),
        _ => (
            "succeeded",
            json!(format!(
                "ft:{}:docsieve:{}:{}",
                job.model,
                job.suffix.clone().unwrap_or_default(),
                job.id
            )),
            Value::Null,
        ),
    };
    json!({"object": "fine_tuning.job", "id": job.id, "status": status, "model": job.model,
        "training_file": job.training_file, "fine_tuned_model": model, "error": error})
}

impl Provider {
    pub(crate) async fn start(planted: Vec<String>) -> Provider {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
            .await
            .expect("bind");
        let url = format!("http://{}/v1", listener.local_addr().expect("address"));
        let state = Arc::new(Mutex::new(State::default()));
        let shared = state.clone();
        tokio::spawn(async move {
            loop {
                let Ok((mut socket, _)) = listener.accept().await else {
                    return;
                };
                let (state, planted) = (shared.clone(), planted.clone());
                tokio::spawn(async move {
                    let Some(request) = read_request(&mut socket).await else {
                        return;
                    };
                    let (status, body) = Provider::answer(&state, &planted, request);
                    let body = body.to_string();
                    let response = format!(
                        "HTTP/1.1 {status} X\r\ncontent-type: application/json\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{body}",
                        body.len()
                    );
                    let _ = socket.write_all(response.as_bytes()).await;
                    let _ = socket.shutdown().await;
                });
            }
        });
        Provider { url, state }
    }

    pub(crate) fn answer(
        state: &Mutex<State>,
        planted: &[String],
        request: Request,
    ) -> (u16, Value) {
        let mut state = state.lock().expect("state");
        let raw = String::from_utf8_lossy(&request.body).to_string();
        for value in planted {
            if raw.contains(value.as_str()) {
                state.leaks.push(value.clone());
            }
        }
        if request.headers.get("authorization").map(String::as_str)
            != Some(&format!("Bearer {API_KEY}"))
        {
            state.unauthorized += 1;
            return (401, json!({"error": {"message": "bad key"}}));
        }
        if state.script.unavailable > 0 {
            state.script.unavailable -= 1;
            state.unavailable_answers += 1;
            return (503, json!({"error": {"message": "overloaded"}}));
        }
        let path = request.path.split('?').next().unwrap_or("").to_string();
        match (request.method.as_str(), path.as_str()) {
            ("POST", "/v1/files") => {
                let content_type = request
                    .headers
                    .get("content-type")
                    .cloned()
                    .unwrap_or_default();
                let Some((filename, content)) = file_part(&request.body, &content_type) else {
                    return (400, json!({"error": {"message": "no file part"}}));
                };
                if !raw.contains("fine-tune") {
                    return (
                        400,
                        json!({"error": {"message": "purpose must be fine-tune"}}),
                    );
                }
                let id = format!("file-{}", state.files.len() + 1);
                state
                    .files
                    .push((id.clone(), filename.clone(), content.clone()));
                (
                    200,
                    json!({"id": id, "object": "file", "filename": filename, "purpose": "fine-tune", "bytes": content.len()}),
                )
            }
            ("GET", "/v1/files") => {
                let data: Vec<Value> = state
                    .files
                    .iter()
                    .map(|(id, name, _)| json!({"id": id, "object": "file", "filename": name}))
                    .collect();
                (200, json!({"object": "list", "data": data}))
            }
            ("POST", "/v1/fine_tuning/jobs") => {
                if let Some(message) = state.script.reject_create.clone() {
                    return (
                        400,
                        json!({"error": {"message": message, "type": "invalid_request_error"}}),
                    );
                }
                let body: Value = serde_json::from_slice(&request.body).unwrap_or_default();
                let job = StandInJob {
                    id: format!("ftjob-{}", state.jobs.len() + 1),
                    training_file: body["training_file"]
                        .as_str()
                        .unwrap_or_default()
                        .to_string(),
                    model: body["model"].as_str().unwrap_or_default().to_string(),
                    suffix: body["suffix"].as_str().map(str::to_string),
                    polls: 0,
                };
                state.creates += 1;
                state.jobs.push(job.clone());
                if state.script.lose_create {
                    state.script.lose_create = false;
                    return (500, json!({"error": {"message": "internal error"}}));
                }
                (200, job_json(&job, &state.script))
            }
            ("GET", "/v1/fine_tuning/jobs") => {
                let script = state.script.clone();
                let data: Vec<Value> = state
                    .jobs
                    .iter()
                    .rev()
                    .map(|job| job_json(job, &script))
                    .collect();
                (
                    200,
                    json!({"object": "list", "data": data, "has_more": false}),
                )
            }
            ("GET", job_path) if job_path.starts_with("/v1/fine_tuning/jobs/") => {
                let id = job_path
                    .trim_start_matches("/v1/fine_tuning/jobs/")
                    .to_string();
                let script = state.script.clone();
                match state.jobs.iter_mut().find(|job| job.id == id) {
                    Some(job) => {
                        job.polls += 1;
                        (200, job_json(job, &script))
                    }
                    None => (404, json!({"error": {"message": "no such job"}})),
                }
            }
            _ => (404, json!({"error": {"message": "unknown route"}})),
        }
    }

    pub(crate) fn with<T>(&self, f: impl FnOnce(&mut State) -> T) -> T {
        f(&mut self.state.lock().expect("state"))
    }
}

pub(crate) fn server_options(provider: &Provider) -> ServerOptions {
    ServerOptions::default()
        .env("DOCSIEVE__FINE_TUNE__PROVIDER_URL", &provider.url)
        .env("DOCSIEVE__FINE_TUNE__API_KEY", API_KEY)
        .env("DOCSIEVE__FINE_TUNE__POLL_INTERVAL_SECONDS", "1")
        .env("DOCSIEVE__FINE_TUNE__RETRY_BACKOFF_MS", "100")
        .env("DOCSIEVE__FINE_TUNE__RETRY_MAX_MS", "500")
        .env("DOCSIEVE__FINE_TUNE__MAX_ATTEMPTS", "4")
        .env("DOCSIEVE__FINE_TUNE__REQUEST_TIMEOUT_MS", "5000")
}
