//! Cross-validation against a local OpenAI-compatible stand-in whose answers the test scripts
//! (agreeing, disagreeing beyond 20 %, garbage, 500, too slow): the delta and the flag, the flagged
//! list, the errors that leave the execution unchanged, the health report, and that only masked text
//! ever reaches the model.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use reqwest::Method;
use serde_json::{json, Value};

use crate::fine_tune::stand_in;
use crate::jobs::{corpus, planted, tenant};
use crate::support::{json_of, ServerOptions, TestServer};

/// What the stand-in answers to the next chat completions.
#[derive(Clone)]
enum Script {
    Content(String),
    Status(u16),
    Slow,
}

#[derive(Default)]
struct Seen {
    bodies: Vec<String>,
    completions: usize,
}

struct StandIn {
    url: String,
    script: Arc<Mutex<Script>>,
    seen: Arc<Mutex<Seen>>,
}

impl StandIn {
    async fn start() -> StandIn {
        let script = Arc::new(Mutex::new(Script::Status(500)));
        let seen = Arc::new(Mutex::new(Seen::default()));
        let (shared_script, shared_seen) = (script.clone(), seen.clone());
        let base = stand_in(move |request| {
            if request.path.starts_with("/v1/models") {
                return Some((200, json!({"object": "list", "data": [{"id": "stand-in"}]}).to_string()));
            }
            let mut seen = shared_seen.lock().expect("seen");
            seen.completions += 1;
            seen.bodies
                .push(String::from_utf8_lossy(&request.body).to_string());
            match shared_script.lock().expect("script").clone() {
                Script::Content(content) => Some((
                    200,
                    json!({"id": "c1", "object": "chat.completion",
                        "choices": [{"index": 0, "message": {"role": "assistant", "content": content}}]})
                    .to_string(),
                )),
                Script::Status(status) => Some((status, "{\"error\": {\"message\": \"scripted\"}}".into())),
                Script::Slow => None,
            }
        })
        .await;
        StandIn {
            url: format!("{base}/v1"),
            script,
            seen,
        }
    }

    fn set(&self, script: Script) {
        *self.script.lock().expect("script") = script;
    }

    fn completions(&self) -> usize {
        self.seen.lock().expect("seen").completions
    }
}

async fn cross_validate(server: &TestServer, body: Value) -> (u16, Value) {
    json_of(
        server
            .internal(Method::POST, "/system/admin/quality/cross-validate")
            .json(&body)
            .send()
            .await
            .expect("POST"),
    )
    .await
}

/// The fields and columns the deterministic extractors found, as the LLM would list them.
fn agreeing_answer(document: &Value) -> Value {
    let fields: Vec<Value> = document["fields"]
        .as_object()
        .map(|fields| {
            fields
                .iter()
                .map(|(name, value)| {
                    let value = value
                        .as_str()
                        .map_or_else(|| value.to_string(), str::to_string);
                    json!({"name": name, "value": value})
                })
                .collect()
        })
        .unwrap_or_default();
    let columns: Vec<Value> = document["tables"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|table| table["header"].as_array())
        .flatten()
        .cloned()
        .collect();
    json!({"fields": fields, "columns": columns})
}

#[tokio::test]
async fn cross_validation_flags_disagreement_and_leaves_executions_alone_on_errors() {
    let llm = StandIn::start().await;
    let server = TestServer::start_with(
        ServerOptions::default()
            .env("DOCSIEVE__LLM__URL", &llm.url)
            .env("DOCSIEVE__LLM__MODEL", "stand-in-model")
            .env("DOCSIEVE__LLM__TIMEOUT_MS", "1500")
            .env("DOCSIEVE__LLM__MAX_RETRIES", "1")
            .env("DOCSIEVE__LLM__RETRY_BACKOFF_MS", "50"),
    )
    .await;
    let (_, health) = server.get_json("/system/health").await;
    assert_eq!(health["data"]["llm"]["status"], "ok", "{health}");

    let alice = tenant(&server, "alice-quality@example.com").await;
    let jobs = alice
        .queue(&server, vec![("efatura.xml", corpus("tr/tr_efatura.xml"))])
        .await;
    let views = alice
        .wait_for(&server, &jobs, Duration::from_secs(60))
        .await;
    assert_eq!(views[0]["status"], "completed", "{:?}", views[0]);
    let execution_id = views[0]["execution_id"].as_i64().expect("execution");
    let (_, execution) = alice
        .get(&server, &format!("/v1/executions/{execution_id}"))
        .await;
    let document = &execution["data"]["result"]["document"];
    let agreeing = agreeing_answer(document);
    let field_count = agreeing["fields"].as_array().map_or(0, Vec::len);
    assert!(field_count >= 3, "the e-invoice has fields: {document}");

    // Agreeing: delta 0, not flagged.
    llm.set(Script::Content(agreeing.to_string()));
    let (status, body) = cross_validate(&server, json!({"execution_id": execution_id})).await;
    assert_eq!(status, 200, "{body}");
    let outcome = &body["data"]["cross_validation"];
    assert_eq!(outcome["delta"], 0.0, "{outcome}");
    assert_eq!(outcome["flag"], false);
    assert_eq!(outcome["model"], "stand-in-model");
    assert_eq!(outcome["counts"]["key_value"], field_count);

    // Every value read otherwise: far beyond 20 %, flagged, and listed.
    let mut disagreeing = agreeing.clone();
    for field in disagreeing["fields"].as_array_mut().expect("fields") {
        field["value"] = json!("baska bir deger");
    }
    llm.set(Script::Content(disagreeing.to_string()));
    let (status, body) = cross_validate(&server, json!({"execution_id": execution_id})).await;
    assert_eq!(status, 200, "{body}");
    let outcome = body["data"]["cross_validation"].clone();
    assert_eq!(outcome["flag"], true, "{outcome}");
    assert!(outcome["delta"].as_f64().expect("delta") > 0.2);
    assert!(!outcome["disagreements"]
        .as_array()
        .expect("list")
        .is_empty());
    let (status, flagged) = json_of(
        server
            .internal(Method::GET, "/system/admin/quality/flagged")
            .send()
            .await
            .expect("GET"),
    )
    .await;
    assert_eq!(status, 200, "{flagged}");
    let item = &flagged["data"]["items"][0];
    assert_eq!(item["execution_id"], execution_id);
    assert_eq!(item["cross_validation"]["delta"], outcome["delta"]);
    let (_, shown) = alice
        .get(&server, &format!("/v1/executions/{execution_id}"))
        .await;
    assert_eq!(shown["data"]["cross_validation_flag"], true, "{shown}");

    // Errors leave the execution as it was.
    let unchanged = |shown: &Value| shown["data"]["result_meta"]["cross_validation"].clone();
    let before = unchanged(&shown);
    llm.set(Script::Content(
        "I could not find any fields, sorry.".into(),
    ));
    let (status, body) = cross_validate(&server, json!({"execution_id": execution_id})).await;
    assert_eq!(status, 502, "{body}");
    assert_eq!(body["code"], "llm_bad_response");
    llm.set(Script::Status(500));
    let calls = llm.completions();
    let (status, body) = cross_validate(&server, json!({"execution_id": execution_id})).await;
    assert_eq!(status, 503, "{body}");
    assert_eq!(body["code"], "llm_unavailable");
    assert_eq!(llm.completions() - calls, 2, "one call and one retry");
    llm.set(Script::Slow);
    let (status, body) = cross_validate(&server, json!({"execution_id": execution_id})).await;
    assert_eq!(status, 503, "{body}");
    assert_eq!(body["code"], "llm_unavailable");
    let (_, shown) = alice
        .get(&server, &format!("/v1/executions/{execution_id}"))
        .await;
    assert_eq!(unchanged(&shown), before);
    assert_eq!(shown["data"]["cross_validation_flag"], true);

    // Bad requests.
    let (status, body) = cross_validate(&server, json!({"execution_id": 999999})).await;
    assert_eq!(status, 404, "{body}");
    assert_eq!(body["code"], "execution_not_found");
    let (status, body) = cross_validate(&server, json!({"execution": 1})).await;
    assert_eq!(status, 422, "{body}");

    // Only masked text went to the model.
    let seen = llm.seen.lock().expect("seen");
    assert!(
        seen.bodies.iter().any(|b| b.contains("[MASKED_")),
        "masked text was sent"
    );
    for value in planted("tr/tr_efatura.xml") {
        for body in &seen.bodies {
            assert!(
                !body.contains(value.as_str()),
                "raw {value} reached the LLM"
            );
        }
    }
}

#[tokio::test]
async fn without_an_llm_cross_validation_is_unavailable() {
    let server = TestServer::start().await;
    let (_, health) = server.get_json("/system/health").await;
    assert_eq!(health["data"]["llm"]["status"], "disabled");
    let (status, body) = cross_validate(&server, json!({"execution_id": 1})).await;
    assert_eq!(status, 404, "an unknown execution is named first: {body}");
    let alice = tenant(&server, "alice-nollm@example.com").await;
    let jobs = alice
        .queue(
            &server,
            vec![("a.txt", b"Fatura No: 12\nTarih: 01.01.2026\n".to_vec())],
        )
        .await;
    let views = alice
        .wait_for(&server, &jobs, Duration::from_secs(60))
        .await;
    let (status, body) =
        cross_validate(&server, json!({"execution_id": views[0]["execution_id"]})).await;
    assert_eq!(status, 503, "{body}");
    assert_eq!(body["code"], "llm_unavailable");
}
