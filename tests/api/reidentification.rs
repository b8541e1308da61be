//! Re-identification over HTTP: off by default; once on, the pseudonyms a preview and a job write
//! resolve for owners only, with a reason, audited without values; turning it off or rotating the
//! key deletes the vault. A request narrows the policy (`policy=`, `types_off=`) and never widens it.

use reqwest::multipart::{Form, Part};
use reqwest::Method;
use serde_json::{json, Value};

use crate::jobs::{tenant, Tenant};
use crate::privacy::{
    audited_actions, dataset_rows, joined, masked_executions, preview, put_policy, rotate,
};
use crate::support::{json_of, TestServer};

async fn resolve(server: &TestServer, token: &str, body: Value) -> (u16, Value) {
    json_of(
        server
            .bearer(Method::POST, "/v1/pseudonyms/resolve", token)
            .json(&body)
            .send()
            .await
            .expect("POST"),
    )
    .await
}

async fn vault_entries(server: &TestServer, who: &Tenant) -> i64 {
    let (status, body) = who.get(server, "/v1/settings/privacy").await;
    assert_eq!(status, 200, "{body}");
    body["data"]["vault_entries"].as_i64().expect("a count")
}

/// The text after `label` on its line.
fn after<'a>(text: &'a str, label: &str) -> &'a str {
    let start = text
        .find(label)
        .unwrap_or_else(|| panic!("{label} in {text}"))
        + label.len();
    text[start..].lines().next().expect("a line").trim()
}

const LETTER: &str =
    "Müşteri: Ayşe Yılmaz\nTC Kimlik No: 10000000146\nE-posta: ayse.yilmaz@firma.com.tr\n";

#[tokio::test]
async fn owners_resolve_the_pseudonyms_written_while_reidentification_is_on() {
    let server = TestServer::start().await;
    let owner = tenant(&server, "owner@reident.example").await;
    let admin = joined(&server, &owner, "admin@reident.example", "admin").await;
    let member = joined(&server, &owner, "member@reident.example", "member").await;
    let policy = json!({
        "default_operator": "surrogate",
        "operators": {"email": "hash"},
    });
    let (status, body) = put_policy(&server, &owner.token, policy.clone()).await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["data"]["reidentification"], false);
    // Off: nothing is kept and nothing resolves.
    let (status, _) = preview(&server, &owner, "letter.txt", LETTER.into()).await;
    assert_eq!(status, 200);
    assert_eq!(vault_entries(&server, &owner).await, 0);
    let why = "the data subject's access request #42";
    let (status, body) = resolve(
        &server,
        &owner.token,
        json!({"pseudonyms": ["x1"], "reason": why}),
    )
    .await;
    assert_eq!(
        (status, body["code"].as_str()),
        (409, Some("reidentification_disabled")),
        "{body}"
    );

    // On (an admin may set it): a preview and a job each keep what they wrote.
    let mut on = policy.clone();
    on["reidentification"] = json!(true);
    let (status, body) = put_policy(&server, &admin, on).await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["data"]["reidentification"], true);
    let (status, body) = preview(&server, &owner, "letter.txt", LETTER.into()).await;
    assert_eq!(status, 200, "{body}");
    let text = body["data"]["text"].as_str().expect("text");
    let (name, tckn, email) = (
        after(text, "Müşteri:"),
        after(text, "TC Kimlik No:"),
        after(text, "E-posta:"),
    );
    assert!(email.starts_with("[EMAIL_"), "{text}");
    assert_ne!(tckn, "10000000146");
    assert_eq!(vault_entries(&server, &owner).await, 3);
    let other = "Müşteri: Mehmet Demir\nTC Kimlik No: 10000000146\n";
    let files = vec![("other.txt".to_string(), other.as_bytes().to_vec())];
    let views = crate::fine_tune::processed(&server, &owner, true, files).await;
    assert_eq!(views[0]["status"], "completed", "{}", views[0]);
    // One new pseudonym: the other name (the TCKN's was kept already).
    assert_eq!(vault_entries(&server, &owner).await, 4);

    // Owners only, with a reason, at most a hundred.
    let asked = json!([name.to_uppercase(), tckn, email, "Zeynep Kaya 99"]);
    for token in [&admin, &member] {
        let (status, body) = resolve(
            &server,
            token,
            json!({"pseudonyms": asked.clone(), "reason": why}),
        )
        .await;
        assert_eq!((status, body["code"].as_str()), (403, Some("forbidden")));
    }
    for (bad, field) in [
        (json!({"pseudonyms": asked.clone()}), "reason"),
        (
            json!({"pseudonyms": asked.clone(), "reason": "  "}),
            "reason",
        ),
        (json!({"pseudonyms": [], "reason": why}), "pseudonyms"),
        (
            json!({"pseudonyms": vec!["a1"; 101], "reason": why}),
            "pseudonyms",
        ),
        (json!({"pseudonyms": ["--"], "reason": why}), "pseudonyms"),
    ] {
        let (status, body) = resolve(&server, &owner.token, bad.clone()).await;
        assert_eq!(status, 422, "{bad}: {body}");
        assert!(body["detail"].to_string().contains(field), "{bad}: {body}");
    }
    let (status, body) = resolve(
        &server,
        &owner.token,
        json!({"pseudonyms": asked, "reason": why}),
    )
    .await;
    assert_eq!(status, 200, "{body}");
    let results = &body["data"]["results"];
    assert_eq!(body["data"]["resolved"], 3, "{body}");
    let value = |i: usize| results[i]["values"][0]["value"].as_str().unwrap_or("");
    // The name whatever its case, the TCKN, the e-mail's hash token; an unknown pseudonym not.
    assert_eq!(value(0), "Ayşe Yılmaz", "{body}");
    assert_eq!(results[0]["values"][0]["pii_type"], "person_name");
    assert_eq!(value(1), "10000000146", "{body}");
    assert_eq!(value(2), "ayse.yilmaz@firma.com.tr", "{body}");
    assert_eq!(
        (&results[3]["found"], &results[3]["values"]),
        (&json!(false), &json!([]))
    );

    // Audited: who, why and how many, never a value.
    let entries = audited_actions(&server, &owner).await;
    let resolved: Vec<&Value> = entries
        .iter()
        .filter(|entry| entry["action"] == "pseudonyms_resolved" && entry["outcome"] == "success")
        .collect();
    assert_eq!(resolved.len(), 1, "{entries:?}");
    // The refused attempts too: the admin's and the member's, denied; the owner's four invalid
    // ones that reached the route, failed (a body without a reason is no request of this route's
    // shape, refused before it); each with what refused it and the caller's address.
    let refused = |outcome: &str, code: &str| {
        entries
            .iter()
            .filter(|entry| {
                entry["action"] == "pseudonyms_resolved"
                    && entry["outcome"] == outcome
                    && entry["details"]["code"] == code
                    && entry["ip"] == "127.0.0.1"
            })
            .count()
    };
    assert_eq!(refused("denied", "forbidden"), 2, "{entries:?}");
    assert_eq!(refused("failure", "validation_error"), 4, "{entries:?}");
    assert_eq!(resolved[0]["ip"], "127.0.0.1", "{:?}", resolved[0]);
    let entry = resolved[0];
    assert_eq!(entry["details"]["reason"], why);
    assert_eq!(
        (
            &entry["details"]["requested"],
            &entry["details"]["resolved"]
        ),
        (&json!(4), &json!(3))
    );
    assert!(
        entry["actor_type"] == "user" && entry["actor_id"].is_string(),
        "{entry}"
    );
    let everything = serde_json::to_string(&entries).expect("json");
    for value in ["10000000146", "Yılmaz", "firma.com.tr"] {
        assert!(!everything.contains(value), "{value} in the audit log");
    }

    // A rotation deletes the vault: the old pseudonyms resolve no more.
    let (status, _) = rotate(&server, &owner.token).await;
    assert_eq!(status, 200);
    assert_eq!(vault_entries(&server, &owner).await, 0);
    let (status, body) = resolve(
        &server,
        &owner.token,
        json!({"pseudonyms": [tckn], "reason": why}),
    )
    .await;
    assert_eq!((status, &body["data"]["resolved"]), (200, &json!(0)));
    let (status, _) = preview(&server, &owner, "letter.txt", LETTER.into()).await;
    assert_eq!(status, 200);
    assert_eq!(vault_entries(&server, &owner).await, 3);

    // Turning it off deletes the vault, audited with how many went.
    let (status, body) = put_policy(&server, &owner.token, policy).await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["data"]["vault_entries"], 0);
    let (status, _) = resolve(
        &server,
        &owner.token,
        json!({"pseudonyms": [tckn], "reason": why}),
    )
    .await;
    assert_eq!(status, 409);
    let entries = audited_actions(&server, &owner).await;
    assert!(
        entries
            .iter()
            .any(|entry| entry["action"] == "pseudonyms_resolved"
                && entry["outcome"] == "denied"
                && entry["details"]["code"] == "reidentification_disabled"),
        "{entries:?}"
    );
    let last = entries
        .iter()
        .rfind(|entry| entry["action"] == "privacy_policy_changed")
        .expect("the change");
    assert_eq!(last["details"]["vault_entries_destroyed"], 3, "{last}");
    assert!(entries
        .iter()
        .any(|entry| entry["action"] == "pseudonym_key_rotated"
            && entry["details"]["vault_entries_destroyed"] == 4));

    // Another tenant has a vault of its own.
    let stranger = tenant(&server, "stranger@reident.example").await;
    let (status, _) = resolve(
        &server,
        &stranger.token,
        json!({"pseudonyms": [tckn], "reason": why}),
    )
    .await;
    assert_eq!(status, 409);
}

/// The letter posted as the form's `file` to `path`.
async fn post_letter(server: &TestServer, who: &Tenant, path: &str) -> reqwest::Response {
    server
        .bearer(Method::POST, path, &who.token)
        .multipart(Form::new().part(
            "file",
            Part::bytes(LETTER.as_bytes()).file_name("letter.txt"),
        ))
        .send()
        .await
        .expect("POST")
}

/// A masked preview of the letter with `query` added.
async fn narrowed(server: &TestServer, who: &Tenant, query: &str) -> (u16, Value) {
    let path = format!("/v1/data-process/preview?masked=true&{query}");
    json_of(post_letter(server, who, &path).await).await
}

#[tokio::test]
async fn a_request_narrows_the_policy_and_never_widens_it() {
    let server = TestServer::start().await;
    let who = tenant(&server, "narrow@reident.example").await;
    let (status, body) = put_policy(
        &server,
        &who.token,
        json!({"default_operator": "surrogate", "reidentification": true}),
    )
    .await;
    assert_eq!(status, 200, "{body}");
    // Every type as a placeholder for this request: no pseudonym leaves, none is kept.
    let (status, body) = narrowed(&server, &who, "policy=placeholder").await;
    assert_eq!(status, 200, "{body}");
    let data = &body["data"];
    let text = data["text"].as_str().expect("text");
    assert!(text.contains("[MASKED_NATIONAL_ID_TR]"), "{text}");
    assert!(text.contains("[MASKED_EMAIL]"), "{text}");
    assert_eq!(data["policy_version"], 1);
    assert_eq!(data["narrowed"]["operator"], "placeholder", "{data}");
    assert_eq!(vault_entries(&server, &who).await, 0);
    let (status, body) = narrowed(&server, &who, "policy=redact").await;
    assert_eq!(status, 200, "{body}");
    let text = body["data"]["text"].as_str().expect("text");
    assert!(
        !text.contains("10000000146") && !text.contains("[MASKED"),
        "{text}"
    );
    // A type left as written for this request; the others under the tenant's operators.
    let (status, body) = narrowed(&server, &who, "types_off=email,%20ipv4").await;
    assert_eq!(status, 200, "{body}");
    let data = &body["data"];
    let text = data["text"].as_str().expect("text");
    assert!(text.contains("ayse.yilmaz@firma.com.tr"), "{text}");
    assert!(
        !text.contains("10000000146") && !text.contains("[MASKED"),
        "{text}"
    );
    assert_eq!(data["narrowed"]["types_off"], json!(["email", "ipv4"]));
    assert_eq!(data["pii"]["pii_type_summary"].get("email"), None, "{data}");
    // Without narrowing: the tenant's policy, and `narrowed` null.
    let (status, body) = narrowed(&server, &who, "policy=tenant").await;
    assert_eq!(status, 200, "{body}");
    assert!(body["data"]["narrowed"].is_null(), "{body}");
    assert!(!body["data"]["text"]
        .as_str()
        .expect("text")
        .contains("ayse.yilmaz@"));
    // What would widen it, or does not exist, is refused by name.
    for (query, field) in [
        ("policy=surrogate", "policy"),
        ("policy=hash", "policy"),
        ("types_off=email,no_such_type", "types_off"),
    ] {
        let (status, body) = narrowed(&server, &who, query).await;
        assert_eq!(status, 422, "{query}: {body}");
        assert!(
            body["detail"].to_string().contains(field),
            "{query}: {body}"
        );
    }
    // The CSV export narrows the same way.
    let response = post_letter(
        &server,
        &who,
        "/v1/data-process/export/csv?masked=true&policy=placeholder",
    )
    .await;
    assert_eq!(response.status(), 200);
    let csv = response.text().await.expect("csv");
    assert!(
        csv.contains("[MASKED_NATIONAL_ID_TR]") && !csv.contains("10000000146"),
        "{csv}"
    );
}

#[tokio::test]
async fn numbered_across_a_dataset_gives_one_value_one_number_in_every_row() {
    let server = TestServer::start().await;
    let who = tenant(&server, "numbers@reident.example").await;
    let (status, body) = put_policy(
        &server,
        &who.token,
        json!({"default_operator": "numbered", "numbered_scope": "dataset"}),
    )
    .await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["data"]["numbered_scope"], "dataset");
    // Three letters: the same customer and TCKN in each, a different clerk in each.
    let letters: Vec<(String, String)> = ["Mehmet Demir", "Zeynep Kaya", "Ali Çelik"]
        .iter()
        .enumerate()
        .map(|(i, clerk)| {
            (
                format!("letter{i}.txt"),
                format!("Müşteri: Ayşe Yılmaz\nTC Kimlik No: 10000000146\nOnaylayan: {clerk}\n"),
            )
        })
        .collect();
    let mut executions = Vec::new();
    for (id, execution) in masked_executions(&server, &who, &letters).await {
        // An execution's own result names each value by its keyed hash.
        let shown = execution.to_string();
        assert!(shown.contains("[MASKED_PERSON_NAME_#"), "{shown}");
        assert!(
            !shown.contains("10000000146") && !shown.contains("Yılmaz"),
            "{shown}"
        );
        executions.push(id);
    }
    let rows = dataset_rows(&server, &who, &executions).await;
    assert_eq!(rows.len(), 3);
    let mut clerks = Vec::new();
    for row in &rows {
        let text = row["text"].as_str().expect("text");
        assert!(!text.contains("_#"), "{text}");
        let customer = after(text, "Müşteri:");
        let tckn = after(text, "TC Kimlik No:");
        // The customer and the TCKN are one number in every row; each clerk another.
        assert_eq!(tckn, "[MASKED_NATIONAL_ID_TR_1]", "{text}");
        let clerk = after(text, "Onaylayan:").to_string();
        assert!(customer.starts_with("[MASKED_PERSON_NAME_"), "{text}");
        assert_ne!(customer, clerk, "{text}");
        clerks.push((customer.to_string(), clerk));
    }
    assert!(
        clerks.iter().all(|(customer, _)| customer == &clerks[0].0),
        "{clerks:?}"
    );
    let mut numbers: Vec<&String> = clerks.iter().map(|(_, clerk)| clerk).collect();
    numbers.sort();
    numbers.dedup();
    assert_eq!(numbers.len(), 3, "{clerks:?}");
}
