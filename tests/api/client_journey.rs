//! A new user's journey through a Python client generated from the live `/openapi.json` by
//! openapi-python-client (PyPI), and nothing else (`tests/interop/client_journey.py`): sign up, the
//! verification mail read with Python's `email` module and its link followed, log in, an API key, a
//! masked preview, a webhook, an async upload polled to its end, documents and executions, a dataset
//! exported as Parquet and JSONL and read by pandas, the webhook's delivery, usage, health (GET and
//! HEAD) and a bad key. The generator must write the client without a warning (none of the
//! document's operations dropped). Skipped outside CI when the generator is not installed.

use std::process::Command;

use crate::support::{tool_present, ServerOptions, TestServer};

#[tokio::test]
async fn a_generated_python_client_walks_the_whole_journey() {
    if !tool_present("openapi-python-client", "pip install openapi-python-client") {
        return;
    }
    let public = "https://docsieve.example.test";
    let server = TestServer::start_with(
        ServerOptions::default()
            .env("DOCSIEVE__MAIL__PUBLIC_BASE_URL", public)
            .env("DOCSIEVE__WEBHOOKS__ALLOW_PRIVATE_TARGETS", "true"),
    )
    .await;
    let document = server
        .get("/openapi.json")
        .await
        .text()
        .await
        .expect("document");
    let work = tempfile::tempdir().expect("temporary folder");
    let spec = work.path().join("openapi.json");
    std::fs::write(&spec, document).expect("write the document");
    let generated = Command::new("openapi-python-client")
        .args(["generate", "--meta", "none", "--path"])
        .arg(&spec)
        .arg("--output-path")
        .arg(work.path().join("docsieve_client"))
        .output()
        .expect("run openapi-python-client");
    let said = format!(
        "{}{}",
        String::from_utf8_lossy(&generated.stdout),
        String::from_utf8_lossy(&generated.stderr)
    );
    assert!(generated.status.success(), "{said}");
    assert!(!said.to_lowercase().contains("warning"), "{said}");

    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let journey = tokio::process::Command::new("python3")
        .arg(root.join("tests/interop/client_journey.py"))
        .arg(server.url(""))
        .arg(server.data_dir.path().join("outbox"))
        .arg(public)
        .arg(root.join("samples/customer-letter.txt"))
        .env("PYTHONPATH", work.path())
        .output()
        .await
        .expect("run the journey");
    let printed = String::from_utf8_lossy(&journey.stdout);
    println!("{printed}");
    assert!(
        journey.status.success() && printed.contains("steps passed through the generated client"),
        "the journey stopped:\n{printed}\n{}\nserver log:\n{}",
        String::from_utf8_lossy(&journey.stderr),
        server.stderr()
    );
}
