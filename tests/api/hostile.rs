//! Hostile documents over HTTP: none takes the server down. Deep HTML is refused at its bound (preview
//! 413, job failed with its code); a document that kills its extraction worker fails alone with
//! `extraction_crashed` (a job after one retry in a worker of its own); a preview whose text is too
//! large for a synchronous answer is refused without the server holding it several times over.

use std::time::Duration;

use reqwest::multipart::{Form, Part};
use reqwest::Method;
use serde_json::Value;

use crate::jobs::{tenant, Tenant};
use crate::support::{json_of, ServerOptions, TestServer};

/// `levels` nested `<div>` around a word: 2,000 passed and 5,000 aborted the whole process before.
fn deep_html(levels: usize) -> Vec<u8> {
    format!(
        "<!DOCTYPE html><html><body>{}derin{}</body></html>",
        "<div>".repeat(levels),
        "</div>".repeat(levels)
    )
    .into_bytes()
}

async fn preview(server: &TestServer, who: &Tenant, name: &str, bytes: Vec<u8>) -> (u16, Value) {
    let form = Form::new().part("file", Part::bytes(bytes).file_name(name.to_string()));
    json_of(
        server
            .bearer(Method::POST, "/v1/data-process/preview", &who.token)
            .header("X-Request-Id", format!("preview-{name}"))
            .multipart(form)
            .send()
            .await
            .expect("POST"),
    )
    .await
}

/// The error code of an error body (a 422's first detail, or the body's own code).
fn code(body: &Value) -> &str {
    body["detail"][0]["type"]
        .as_str()
        .or_else(|| body["error"]["code"].as_str())
        .or_else(|| body["code"].as_str())
        .unwrap_or("")
}

/// Twenty ordinary text documents, each with a planted phone number.
fn ordinary(prefix: &str) -> Vec<(String, Vec<u8>)> {
    (0..20)
        .map(|i| {
            (
                format!("{prefix}-{i}.txt"),
                format!("Sipariş {prefix}-{i}: müşteri 0532 123 45 67 numarasından arandı.\n")
                    .into_bytes(),
            )
        })
        .collect()
}

/// The server is the one that started, alive and answering.
async fn still_up(server: &TestServer, pid: u32) {
    assert_eq!(server.pid(), pid);
    let (status, body) = server.get_json("/system/health").await;
    assert_eq!(status, 200, "{body}");
    assert!(
        !server.stderr().contains("overflowed its stack"),
        "{}",
        server.stderr()
    );
}

fn view_of<'a>(views: &'a [Value], id: &str) -> &'a Value {
    views
        .iter()
        .find(|v| v["job_id"] == id || v["id"] == id)
        .expect("job view")
}

#[tokio::test]
async fn deep_html_is_refused_by_preview_and_fails_its_job_while_the_server_stays_up() {
    let server = TestServer::start().await;
    let pid = server.pid();
    let who = tenant(&server, "deep-html@example.com").await;
    let levels = [2_000, 5_000, 20_000, 200_000];
    for &n in &levels {
        for name in ["deep.html", "deep.txt"] {
            let (status, body) = preview(&server, &who, name, deep_html(n)).await;
            assert_eq!(status, 413, "{n} levels as {name}: {body}");
            assert_eq!(code(&body), "limit_exceeded", "{body}");
            assert!(body.to_string().contains("nested deeper"), "{body}");
        }
    }
    still_up(&server, pid).await;

    // Through the async path, among twenty ordinary documents.
    let mut items: Vec<(String, Vec<u8>)> = ordinary("plain");
    for &n in &levels {
        items.push((format!("deep-{n}.html"), deep_html(n)));
        items.push((format!("deep-{n}.txt"), deep_html(n)));
    }
    let ids = who
        .queue(
            &server,
            items.iter().map(|(n, b)| (n.as_str(), b.clone())).collect(),
        )
        .await;
    assert_eq!(ids.len(), 28);
    let views = who.wait_for(&server, &ids, Duration::from_secs(120)).await;
    for (id, (name, _)) in ids.iter().zip(&items) {
        let view = view_of(&views, id);
        if name.starts_with("deep-") {
            assert_eq!(view["status"], "failed", "{name}: {view}");
            assert_eq!(view["error"]["code"], "limit_exceeded", "{name}: {view}");
        } else {
            assert_eq!(view["status"], "completed", "{name}: {view}");
        }
    }
    still_up(&server, pid).await;
}

/// A server whose extraction workers may use 512 MiB of address space: a 60 MB text needs more, so
/// its worker dies (an allocation refused, SIGABRT) the way a reader's crash would kill it.
async fn small_workers() -> TestServer {
    TestServer::start_with(
        ServerOptions::default()
            .env("DOCSIEVE__EXTRACTION__WORKER_MEMORY_MB", "512")
            .env("DOCSIEVE__LOG__FORMAT", "json")
            // So that the preview reaches the reader instead of being refused as too large first.
            .env("DOCSIEVE__EXTRACTION__PREVIEW_MAX_BYTES", "1073741824"),
    )
    .await
}

fn sixty_megabytes() -> Vec<u8> {
    "Merhaba dünya, bu bir deneme satırıdır; Ayşe Yılmaz 0532 123 45 67 numarasını verdi.\n"
        .repeat(60_000_000 / 90)
        .into_bytes()
}

#[tokio::test]
async fn a_document_that_kills_its_worker_fails_alone_and_the_pool_replaces_the_worker() {
    let server = small_workers().await;
    let pid = server.pid();
    let who = tenant(&server, "crash-preview@example.com").await;
    let (status, body) = preview(&server, &who, "big.txt", sixty_megabytes()).await;
    assert_eq!(status, 422, "{body}");
    assert_eq!(code(&body), "extraction_crashed", "{body}");
    assert!(body.to_string().contains("SIGABRT"), "{body}");
    // JSON logs, without colour codes, carrying the request's id.
    let logs = server.stderr();
    assert!(logs.contains(r#""request_id":"preview-big.txt""#), "{logs}");
    assert!(!logs.contains('\u{1b}'), "{logs}");
    // The next documents are read by fresh workers.
    for i in 0..4 {
        let (status, body) = preview(
            &server,
            &who,
            "ok.txt",
            format!("Belge {i}: IBAN TR33 0006 1005 1978 6457 8413 26").into_bytes(),
        )
        .await;
        assert_eq!(status, 200, "{body}");
    }
    still_up(&server, pid).await;
    let metrics = server.get("/metrics").await.text().await.expect("metrics");
    assert!(
        metrics.contains("docsieve_extraction_worker_crashes_total 1"),
        "{metrics}"
    );
}

#[tokio::test]
async fn a_poison_job_is_retried_once_alone_then_fails_and_the_others_complete() {
    let server = small_workers().await;
    let pid = server.pid();
    let who = tenant(&server, "crash-jobs@example.com").await;
    let mut items = ordinary("poison");
    items.insert(7, ("poison.txt".to_string(), sixty_megabytes()));
    let ids = who
        .queue(
            &server,
            items.iter().map(|(n, b)| (n.as_str(), b.clone())).collect(),
        )
        .await;
    let views = who.wait_for(&server, &ids, Duration::from_secs(180)).await;
    for (id, (name, _)) in ids.iter().zip(&items) {
        let view = view_of(&views, id);
        if name == "poison.txt" {
            assert_eq!(view["status"], "failed", "{view}");
            assert_eq!(view["error"]["code"], "extraction_crashed", "{view}");
            let message = view["error"]["message"].as_str().unwrap_or("");
            assert!(message.contains("alone after an earlier crash"), "{view}");
            assert_eq!(view["attempts"], 2, "one retry, in isolation: {view}");
            let logs = server.stderr();
            assert!(logs.contains(&format!(r#""job_id":"{id}""#)), "{logs}");
        } else {
            assert_eq!(view["status"], "completed", "{name}: {view}");
        }
    }
    still_up(&server, pid).await;
}

#[tokio::test]
async fn a_preview_too_large_to_answer_is_refused_with_a_pointer_to_the_async_path() {
    let server = TestServer::start().await;
    let who = tenant(&server, "large-preview@example.com").await;
    let input = sixty_megabytes();
    let size = input.len() as u64;
    // The server's base, once warm: a first preview waits for the language tables (the warm-up
    // thread builds them at start), which are the process's, not this request's.
    let small = || b"Ayse Yilmaz, TCKN 10000000146".to_vec();
    let (status, body) = preview(&server, &who, "small.txt", small()).await;
    assert_eq!(status, 200, "{body}");
    let base = docsieve_actors::procfs::status_kib(server.pid(), "VmRSS") * 1024;
    let (status, body) = preview(&server, &who, "big.txt", input).await;
    assert_eq!(status, 413, "{body}");
    assert_eq!(code(&body), "result_too_large", "{body}");
    assert!(
        body.to_string().contains("/v1/data-process/async"),
        "{body}"
    );
    let peak = docsieve_actors::procfs::peak_rss_bytes(server.pid());
    let growth = peak.saturating_sub(base);
    println!(
        "60 MB text preview: server base {:.0} MB, peak RSS {:.0} MB: the request held {:.2}x the input",
        base as f64 / 1e6,
        peak as f64 / 1e6,
        growth as f64 / size as f64
    );
    // The upload is held once (its buffer sized from the declared length, never grown by doubling)
    // and the refusal comes before the text is decoded or answered.
    assert!(
        growth < 2 * size,
        "peak RSS {peak} over a base of {base} for an input of {size}"
    );
    // A preview within the bound still answers in full.
    let (status, body) = preview(&server, &who, "small.txt", small()).await;
    assert_eq!(status, 200, "{body}");
}

#[tokio::test]
async fn a_document_over_its_time_limit_is_stopped_with_its_worker() {
    // One large scanned image: many seconds of OCR in one call to Tesseract on any machine, with no
    // page boundary at which the worker's own clock could stop it first (a multi-page TIFF is
    // checked between pages: a slow machine decoding one past the second answered that way instead
    // of the kill; a small PNG was read within the second on a fast one). Made before the server
    // starts: encoding it takes seconds in a debug build on a busy machine.
    let scan = tiled_png(&crate::jobs::corpus("image/english-and-korean.png"), 3);
    let server = TestServer::start_with(
        ServerOptions::default().env("DOCSIEVE__EXTRACTION__LIMITS__MAX_SECONDS", "1"),
    )
    .await;
    let pid = server.pid();
    let who = tenant(&server, "slow-document@example.com").await;
    let before = docsieve_actors::procfs::children(pid);
    let (status, body) = preview(&server, &who, "scan.png", scan).await;
    assert_eq!(status, 413, "{body}");
    assert_eq!(code(&body), "limit_exceeded", "{body}");
    assert!(body.to_string().contains("longer than 1 s"), "{body}");
    // The worker that read it is gone (killed, not left running), and a fresh one reads the next.
    let killed: Vec<u32> = before
        .iter()
        .copied()
        .filter(|worker| !docsieve_actors::procfs::children(pid).contains(worker))
        .collect();
    assert_eq!(
        killed.len(),
        1,
        "before {before:?}, after {:?}",
        docsieve_actors::procfs::children(pid)
    );
    assert!(!std::path::Path::new(&format!("/proc/{}", killed[0])).exists());
    let (status, body) = preview(&server, &who, "ok.txt", b"Merhaba".to_vec()).await;
    assert_eq!(status, 200, "{body}");
    still_up(&server, pid).await;
    let metrics = server.get("/metrics").await.text().await.expect("metrics");
    assert!(
        metrics.contains("docsieve_extraction_worker_timeouts_total 1"),
        "{metrics}"
    );
}

/// The PNG `source` repeated `n` times across and down, as one RGBA image.
fn tiled_png(source: &[u8], n: usize) -> Vec<u8> {
    let mut decoder = png::Decoder::new(std::io::Cursor::new(source));
    decoder.set_transformations(png::Transformations::EXPAND | png::Transformations::ALPHA);
    let mut reader = decoder.read_info().expect("a PNG");
    let mut pixels = vec![0; reader.output_buffer_size().expect("a size")];
    let frame = reader.next_frame(&mut pixels).expect("its pixels");
    let (width, height) = (frame.width as usize, frame.height as usize);
    let channels = frame.line_size / width;
    let mut tiled = vec![0u8; width * n * height * n * channels];
    for y in 0..height * n {
        let row = &pixels[(y % height) * frame.line_size..][..frame.line_size];
        for x in 0..n {
            let start = (y * width * n + x * width) * channels;
            tiled[start..start + frame.line_size].copy_from_slice(row);
        }
    }
    let mut out = Vec::new();
    let mut encoder = png::Encoder::new(&mut out, (width * n) as u32, (height * n) as u32);
    encoder.set_color(frame.color_type);
    encoder.set_depth(png::BitDepth::Eight);
    encoder.set_compression(png::Compression::Fast);
    let mut writer = encoder.write_header().expect("a header");
    writer.write_image_data(&tiled).expect("the pixels");
    writer.finish().expect("the end");
    out
}

/// A multipart body whose file name holds `name`, raw (reqwest would escape it).
fn named_part(field: &str, name: &[u8]) -> Vec<u8> {
    let mut body = b"------X\r\nContent-Disposition: form-data; name=\"".to_vec();
    body.extend_from_slice(field.as_bytes());
    body.extend_from_slice(b"\"; filename=\"");
    body.extend_from_slice(name);
    body.extend_from_slice(
        b"\"\r\nContent-Type: text/plain\r\n\r\nMerhaba 0532 123 45 67\r\n------X--\r\n",
    );
    body
}

#[tokio::test]
async fn a_control_character_in_a_file_name_is_named_and_invisible_ones_are_dropped() {
    let server = TestServer::start().await;
    let who = tenant(&server, "control-names@example.com").await;
    let send = |path: &'static str, body: Vec<u8>| {
        let request = server
            .bearer(Method::POST, path, &who.token)
            .header("Content-Type", "multipart/form-data; boundary=----X")
            .body(body);
        async move { json_of(request.send().await.expect("POST")).await }
    };
    for name in [
        &b"a\x01b.txt"[..],
        b"a\x00b.txt",
        b"a\x7fb.txt",
        b"a\rb.txt",
    ] {
        for (path, field) in [
            ("/v1/data-process/preview", "file"),
            ("/v1/data-process/async", "files"),
        ] {
            let (status, body) = send(path, named_part(field, name)).await;
            assert_eq!(status, 422, "{name:?} {path}: {body}");
            assert_eq!(body["detail"][0]["loc"][1], field, "{body}");
            assert_eq!(
                body["detail"][0]["type"], "value_error.control_character",
                "{name:?} {path}: {body}"
            );
        }
    }
    // A right-to-left override (which shows `fatura<RLO>fdp.exe` as `faturaexe.pdf`) is dropped from
    // the name, and the name judged as it really ends.
    let (status, body) = send(
        "/v1/data-process/async",
        named_part("files", "fatura\u{202e}fdp.exe".as_bytes()),
    )
    .await;
    assert_eq!(status, 202, "{body}");
    let rejected = &body["data"]["rejected"][0];
    assert_eq!(rejected["filename"], "faturafdp.exe", "{body}");
    assert_eq!(rejected["code"], "unsupported_format", "{body}");
}
