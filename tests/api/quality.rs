//! Cross-validation and PII precision against a local OpenAI-compatible stand-in whose answers the
//! test scripts (agreeing, disagreeing beyond 20 %, judging placeholders by their surroundings,
//! garbage, 500, too slow): the delta and the flag, the flagged list, the over-masking ratio per
//! detector and its report, the errors that leave the execution unchanged, the health report, and
//! that only masked text ever reaches the model.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use reqwest::Method;
use serde_json::{json, Value};

use crate::jobs::{corpus, planted, tenant};
use crate::stand_in::stand_in;
use crate::support::{json_of, ServerOptions, TestServer};

/// What the stand-in answers to the next chat completions.
#[derive(Clone)]
enum Script {
    Content(String),
    Status(u16),
    Slow,
    /// Judges each placeholder of a precision request: not personal data where its surroundings
    /// speak of a product (`Ürün`), personal elsewhere; `skip` leaves the last item unanswered.
    Judge {
        skip: bool,
    },
}

/// The stand-in's judgements of the items in a chat completions request.
fn judge(body: &[u8], skip: bool) -> String {
    let request: Value = serde_json::from_slice(body).expect("request JSON");
    let content = request["messages"][1]["content"]
        .as_str()
        .expect("user message");
    let items: Value = serde_json::from_str(content).expect("items JSON");
    let mut judgements: Vec<Value> = items["items"]
        .as_array()
        .expect("items")
        .iter()
        .map(|item| {
            let context = item["context"].as_str().expect("context");
            let marked = context.find("<<").expect("a marked placeholder");
            let line_start = context[..marked].rfind('\n').map_or(0, |at| at + 1);
            let product = context[line_start..marked].contains("Ürün");
            json!({"id": item["id"], "personal": !product})
        })
        .collect();
    if skip {
        judgements.pop();
    }
    json!({ "judgements": judgements }).to_string()
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
                Script::Judge { skip } => Some((
                    200,
                    json!({"id": "c1", "object": "chat.completion",
                        "choices": [{"index": 0, "message": {"role": "assistant",
                            "content": judge(&request.body, skip)}}]})
                    .to_string(),
                )),
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

/// A stand-in LLM and a server using it (one retry, short timeouts).
async fn with_stand_in() -> (StandIn, TestServer) {
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
    (llm, server)
}

async fn cross_validate(server: &TestServer, body: Value) -> (u16, Value) {
    audit(server, "cross-validate", body).await
}

async fn audit(server: &TestServer, route: &str, body: Value) -> (u16, Value) {
    json_of(
        server
            .internal(Method::POST, &format!("/system/admin/quality/{route}"))
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
    let (llm, server) = with_stand_in().await;
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

/// A customer record whose names are personal data, and a catalogue whose "names" are brands the
/// masker takes for persons: its person-name detector is over-masking.
const OVER_MASKED: &str = "Müşteri kaydı\nMüşteri: Ayşe Yılmaz\nT.C. Kimlik No: 10000000146\n\
IBAN: TR33 0006 1005 1978 6457 8413 26\n\nÜrün kataloğu\nÜrün: Mehmet Kaya marka çay bardağı\n\
Ürün: Fatma Şahin marka kahve fincanı\nÜrün: Ali Çelik marka su ısıtıcısı\n\
Ürün: Zeynep Arslan marka tost makinesi\n";

const OVER_MASKED_RAW: [&str; 7] = [
    "Ayşe Yılmaz",
    "10000000146",
    "TR33 0006 1005 1978 6457 8413 26",
    "Mehmet Kaya",
    "Fatma Şahin",
    "Ali Çelik",
    "Zeynep Arslan",
];

fn detector<'v>(outcome: &'v Value, name: &str) -> &'v Value {
    outcome["detectors"]
        .as_array()
        .expect("detectors")
        .iter()
        .find(|d| d["detector"] == name)
        .unwrap_or_else(|| panic!("no {name} in {outcome}"))
}

async fn report(server: &TestServer, query: &str) -> (u16, Value) {
    json_of(
        server
            .internal(
                Method::GET,
                &format!("/system/admin/quality/pii-precision/report{query}"),
            )
            .send()
            .await
            .expect("GET"),
    )
    .await
}

#[tokio::test]
async fn pii_precision_flags_an_over_masking_detector_and_the_report_aggregates_both_audits() {
    let (llm, server) = with_stand_in().await;
    let alice = tenant(&server, "alice-precision@example.com").await;
    let bob = tenant(&server, "bob-precision@example.com").await;
    let jobs = alice
        .queue(
            &server,
            vec![
                ("katalog.txt", OVER_MASKED.as_bytes().to_vec()),
                ("ik.docx", corpus("tr/tr_ik_yazisi.docx")),
            ],
        )
        .await;
    let views = alice
        .wait_for(&server, &jobs, Duration::from_secs(60))
        .await;
    let bob_jobs = bob
        .queue(
            &server,
            vec![(
                "bob.txt",
                b"Sayin Ahmet Demir, IBAN TR33 0006 1005 1978 6457 8413 26".to_vec(),
            )],
        )
        .await;
    let bob_views = bob
        .wait_for(&server, &bob_jobs, Duration::from_secs(60))
        .await;
    let ids: Vec<i64> = views
        .iter()
        .chain(&bob_views)
        .map(|v| v["execution_id"].as_i64().unwrap_or_else(|| panic!("{v}")))
        .collect();
    let (catalogue, letter, bobs) = (ids[0], ids[1], ids[2]);

    // The catalogue: four of its five names are brands, so the person-name detector over-masks
    // (4 of 5 not expected: 0.8); its national id and IBAN pass their checks.
    llm.set(Script::Judge { skip: false });
    let (status, body) = audit(&server, "pii-precision", json!({"execution_id": catalogue})).await;
    assert_eq!(status, 200, "{body}");
    let outcome = &body["data"]["pii_precision"];
    let names = detector(outcome, "person_name");
    assert_eq!(names["method"], "llm", "{outcome}");
    assert_eq!(
        (names["masked"].as_u64(), names["judged"].as_u64()),
        (Some(5), Some(5)),
        "{outcome}"
    );
    assert_eq!(
        (names["expected"].as_u64(), names["confirmed"].as_u64()),
        (Some(1), Some(1))
    );
    assert_eq!(names["over_masking_ratio"], 0.8);
    assert_eq!(names["flag"], true);
    for checked in ["national_id_tr", "iban_tr"] {
        let line = detector(outcome, checked);
        assert_eq!(line["method"], "checksum", "{line}");
        assert_eq!(line["expected"], line["masked"], "{line}");
        assert_eq!(line["over_masking_ratio"], 0.0);
        assert_eq!(line["flag"], false);
    }
    assert_eq!(outcome["flagged"], json!(["person_name"]));
    assert_eq!(outcome["source"], "original");
    assert_eq!(outcome["model"], "stand-in-model");
    let (_, shown) = alice
        .get(&server, &format!("/v1/executions/{catalogue}"))
        .await;
    assert_eq!(
        shown["data"]["result_meta"]["pii_precision"], *outcome,
        "kept with the execution"
    );

    // The letter: its names are persons; nothing is flagged. Then it is cross-validated (flagged
    // by a disagreeing reading) and both audits stay in its result_meta.
    let (status, body) = audit(&server, "pii-precision", json!({"execution_id": letter})).await;
    assert_eq!(status, 200, "{body}");
    let letter_outcome = body["data"]["pii_precision"].clone();
    assert_eq!(letter_outcome["flagged"], json!([]), "{letter_outcome}");
    assert!(letter_outcome["detectors"]
        .as_array()
        .expect("lines")
        .iter()
        .all(|d| d["over_masking_ratio"] == 0.0));
    llm.set(Script::Content(
        json!({"fields": [{"name": "konu", "value": "başka"}], "columns": ["x"]}).to_string(),
    ));
    let (status, body) = cross_validate(&server, json!({"execution_id": letter})).await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["data"]["cross_validation"]["flag"], true, "{body}");
    let (_, shown) = alice
        .get(&server, &format!("/v1/executions/{letter}"))
        .await;
    let meta = &shown["data"]["result_meta"];
    assert_eq!(
        meta["pii_precision"], letter_outcome,
        "the cross-validation kept the precision run"
    );
    assert_eq!(meta["cross_validation"]["flag"], true);

    // The report over alice's executions: the person-name detector over both, flagged once; the
    // checksummed ones never; one cross-validation, flagged.
    let (status, body) = report(&server, &format!("?tenant_id={}", alice.tenant_id)).await;
    assert_eq!(status, 200, "{body}");
    let data = &body["data"];
    assert_eq!(
        (data["executions"].as_u64(), data["analysed"].as_u64()),
        (Some(2), Some(2)),
        "{data}"
    );
    assert_eq!(data["limit"], 500);
    let names = detector(data, "person_name");
    let letter_names = detector(&letter_outcome, "person_name")["masked"]
        .as_u64()
        .expect("names");
    assert_eq!(names["executions"], 2, "{data}");
    assert_eq!(names["masked"].as_u64(), Some(5 + letter_names));
    assert_eq!(names["expected"].as_u64(), Some(1 + letter_names));
    assert_eq!(names["flagged"], 1);
    assert_eq!(
        data["detectors"][0]["detector"], "person_name",
        "worst first: {data}"
    );
    assert_eq!(detector(data, "national_id_tr")["flagged"], 0);
    assert_eq!(
        data["cross_validation"],
        json!({"executions": 1, "flagged": 1, "mean_delta": meta["cross_validation"]["delta"]})
    );
    // limit=1: the newest execution only (the two jobs finish in either order); bob's executions
    // are not alice's.
    let (_, body) = report(&server, &format!("?tenant_id={}&limit=1", alice.tenant_id)).await;
    assert_eq!(body["data"]["executions"], 1, "{body}");
    let newest_is_the_catalogue = catalogue > letter;
    assert_eq!(
        detector(&body["data"], "person_name")["flagged"],
        u64::from(newest_is_the_catalogue),
        "{body}"
    );
    let (_, body) = report(&server, "").await;
    assert_eq!(body["data"]["executions"], 3, "every tenant's: {body}");
    assert_eq!(body["data"]["analysed"], 2);
    // An execution no precision run has seen still shows what it masked, per detector, with
    // nothing expected.
    let (_, body) = report(&server, &format!("?tenant_id={}", bob.tenant_id)).await;
    let data = &body["data"];
    assert_eq!(
        (data["executions"].as_u64(), data["analysed"].as_u64()),
        (Some(1), Some(0)),
        "{data}"
    );
    let lines = data["detectors"].as_array().expect("detectors");
    assert!(!lines.is_empty(), "{data}");
    for line in lines {
        assert!(
            line["masked"].as_u64() > Some(0) && line["executions"] == 1,
            "{line}"
        );
        assert!(
            line["expected"].is_null() && line["analysed"] == 0,
            "{line}"
        );
    }
    for query in ["?limit=0", "?limit=2001", "?tenant_id=x"] {
        let (status, body) = report(&server, query).await;
        assert_eq!(status, 422, "{query}: {body}");
    }

    // Errors leave the execution as it was: an item left unjudged, garbage, a failing LLM.
    let before = shown["data"]["result_meta"].clone();
    let (_, shown) = bob.get(&server, &format!("/v1/executions/{bobs}")).await;
    let bob_before = shown["data"]["result_meta"].clone();
    llm.set(Script::Judge { skip: true });
    let (status, body) = audit(&server, "pii-precision", json!({"execution_id": bobs})).await;
    assert_eq!(status, 502, "{body}");
    assert_eq!(body["code"], "llm_bad_response");
    assert!(
        body["detail"]
            .as_str()
            .expect("detail")
            .contains("not judged"),
        "{body}"
    );
    llm.set(Script::Content("no idea".into()));
    let (status, body) = audit(&server, "pii-precision", json!({"execution_id": letter})).await;
    assert_eq!(
        (status, body["code"].as_str()),
        (502, Some("llm_bad_response")),
        "{body}"
    );
    llm.set(Script::Status(500));
    let (status, body) = audit(&server, "pii-precision", json!({"execution_id": letter})).await;
    assert_eq!(
        (status, body["code"].as_str()),
        (503, Some("llm_unavailable")),
        "{body}"
    );
    let (_, shown) = alice
        .get(&server, &format!("/v1/executions/{letter}"))
        .await;
    assert_eq!(shown["data"]["result_meta"], before);
    let (_, shown) = bob.get(&server, &format!("/v1/executions/{bobs}")).await;
    assert_eq!(shown["data"]["result_meta"], bob_before);

    // Bob's original gone: his stored masked result is read; the name is judged, the IBAN (a
    // checksummed type) cannot be checked and stays unverified.
    let uploads = std::fs::read_dir(server.data_dir.path())
        .expect("data dir")
        .map(|entry| {
            entry
                .expect("entry")
                .path()
                .join(format!("tenants/{}/uploads", bob.tenant_id))
        })
        .find(|path| path.is_dir())
        .expect("bob's uploads");
    std::fs::remove_dir_all(&uploads).expect("remove the originals");
    llm.set(Script::Judge { skip: false });
    let (status, body) = audit(&server, "pii-precision", json!({"execution_id": bobs})).await;
    assert_eq!(status, 200, "{body}");
    let outcome = &body["data"]["pii_precision"];
    assert_eq!(outcome["source"], "stored_result", "{outcome}");
    assert_eq!(detector(outcome, "person_name")["expected"], 1);
    let iban = detector(outcome, "iban_tr");
    assert!(
        iban["expected"].is_null() && iban["flag"] == false,
        "{iban}"
    );
    let (_, body) = report(&server, &format!("?tenant_id={}", bob.tenant_id)).await;
    assert_eq!(
        detector(&body["data"], "iban_tr")["unverified"],
        1,
        "{body}"
    );

    // Bad requests.
    let (status, body) = audit(&server, "pii-precision", json!({"execution_id": 999_999})).await;
    assert_eq!(
        (status, body["code"].as_str()),
        (404, Some("execution_not_found")),
        "{body}"
    );
    for bad in [
        json!({}),
        json!({"execution_id": "1"}),
        json!({"execution_id": 0}),
    ] {
        let (status, body) = audit(&server, "pii-precision", bad.clone()).await;
        assert_eq!(status, 422, "{bad}: {body}");
    }

    // Only masked surroundings went to the model.
    let seen = llm.seen.lock().expect("seen");
    assert!(seen
        .bodies
        .iter()
        .any(|b| b.contains("<<[MASKED_PERSON_NAME]>>")));
    let planted_values = planted("tr/tr_ik_yazisi.docx");
    for value in OVER_MASKED_RAW
        .iter()
        .copied()
        .chain(planted_values.iter().map(String::as_str))
    {
        for body in &seen.bodies {
            assert!(!body.contains(value), "raw {value} reached the LLM");
        }
    }
}

#[tokio::test]
async fn without_an_llm_precision_checks_what_has_a_checksum_and_refuses_the_rest() {
    let server = TestServer::start().await;
    let alice = tenant(&server, "alice-precision-nollm@example.com").await;
    let jobs = alice
        .queue(
            &server,
            vec![
                (
                    "iban.txt",
                    b"Odeme hesabi IBAN: TR33 0006 1005 1978 6457 8413 26\n".to_vec(),
                ),
                ("names.txt", OVER_MASKED.as_bytes().to_vec()),
            ],
        )
        .await;
    let views = alice
        .wait_for(&server, &jobs, Duration::from_secs(60))
        .await;
    let (status, body) = audit(
        &server,
        "pii-precision",
        json!({"execution_id": views[0]["execution_id"]}),
    )
    .await;
    assert_eq!(status, 200, "{body}");
    let outcome = &body["data"]["pii_precision"];
    assert_eq!(detector(outcome, "iban_tr")["expected"], 1, "{outcome}");
    assert!(outcome["model"].is_null(), "no LLM was asked: {outcome}");
    let (status, body) = audit(
        &server,
        "pii-precision",
        json!({"execution_id": views[1]["execution_id"]}),
    )
    .await;
    assert_eq!(
        (status, body["code"].as_str()),
        (503, Some("llm_unavailable")),
        "{body}"
    );
}
