//! Load benchmark: starts a release `docsieve serve` on a temporary SQLite data dir, creates an account,
//! then
//! 1. uploads `--docs` small text documents at `--concurrency` concurrent clients (batches of
//!    `--batch` files per request) and waits until every job is completed: documents/s end to end and
//!    upload latency percentiles;
//! 2. sends `--preview-requests` previews of a DOCX from `--concurrency-preview` clients: latency
//!    percentiles, and the server's CPU time per preview (all its threads and its extraction worker
//!    processes, from `/proc`: steadier than
//!    requests/s on a noisy machine). The DOCX is the corpus' `tr/tr_ik_yazisi.docx` (39 KB) grown to
//!    `--preview-kb` KB (default 50) with further paragraphs of varied Turkish business text, or
//!    `--preview-file PATH` (`--save-preview PATH` only writes that DOCX and exits);
//!    `--previews-during N` also sends N of them from 4 clients while the uploads of 1. run (with
//!    `--docs 0`: alone), and prints their latencies apart;
//! 3. with `--soak-seconds N`, keeps uploading for N seconds and prints the server's RSS every 30 s.
//!
//! `--fairness` replaces all that: tenant A queues `--docs` small documents as fast as it can while tenant
//! B uploads one every 100 ms until A's are done; B's upload-to-completed latencies are printed. With
//! `--large-pdf-mb N`, tenant A also uploads, two seconds in, a PDF of about N MB of text (at most 2,000
//! pages, the extractor's page limit), and its upload-to-completed time is printed (`--docs 0` times it
//! alone).
//!
//! With `--processes N` it starts N servers on one database and one data folder, spreads the uploads
//! and previews over them, and prints each one's completed jobs and CPU time; `--database-url URL`
//! (a PostgreSQL server: a fresh database is created on it for the run and dropped after) and
//! `--redis-url URL` (wake-ups across processes) make that the deployment the README describes, and
//! `--pin` pins process i to core i (modulo the cores there are) with `taskset`. The servers log at
//! warn level, or by the filter in `LOAD_LOG` (`LOAD_LOG=sqlx::query=debug` logs every statement).
//!
//! ```sh
//! cargo build --release && cargo run --release --example load -- --docs 2000 --concurrency 16
//! cargo run --release --example load -- --processes 2 --pin \
//!     --database-url postgres://postgres@127.0.0.1:5432/test --redis-url redis://127.0.0.1:6379
//! ```

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::Arc;
use std::time::{Duration, Instant};

use reqwest::multipart::{Form, Part};
use serde_json::{json, Value};

struct Args {
    docs: usize,
    concurrency: usize,
    batch: usize,
    preview_requests: usize,
    preview_concurrency: usize,
    soak_seconds: u64,
    preview_kb: usize,
    preview_file: Option<PathBuf>,
    save_preview: Option<PathBuf>,
    binary: PathBuf,
    processes: usize,
    pin: bool,
    database_url: Option<String>,
    redis_url: Option<String>,
    fairness: bool,
    large_pdf_mb: usize,
    previews_during: usize,
}

/// The DOCX with paragraphs of varied business text (names, dates, amounts, order numbers, now and then a
/// phone number or e-mail address) added before the section properties until the file has at least
/// `target` bytes.
fn grown_docx(base: &[u8], target: usize) -> Vec<u8> {
    use std::io::{Cursor, Read, Write};
    const NAMES: &[&str] = &[
        "Ayşe", "Mehmet", "Zeynep", "Mustafa", "Elif", "Emre", "Fatma", "Burak", "Selin", "Hakan",
    ];
    const SURNAMES: &[&str] = &[
        "Yılmaz", "Kaya", "Demir", "Şahin", "Çelik", "Yıldız", "Aydın", "Öztürk", "Arslan", "Doğan",
    ];
    const TOPICS: &[&str] = &[
        "yıllık izin talebi",
        "bordro düzeltmesi",
        "eğitim katılımı",
        "performans görüşmesi",
        "masraf iadesi",
        "vardiya değişikliği",
        "sözleşme yenilemesi",
        "yan hak başvurusu",
    ];
    const UNITS: &[&str] = &[
        "İnsan Kaynakları",
        "Muhasebe",
        "Satın Alma",
        "Bilgi İşlem",
        "Lojistik",
        "Satış",
    ];
    let mut archive = zip::ZipArchive::new(Cursor::new(base)).expect("corpus docx is a zip");
    let mut parts = Vec::new();
    for index in 0..archive.len() {
        let mut file = archive.by_index(index).expect("part");
        let mut bytes = Vec::new();
        file.read_to_end(&mut bytes).expect("part bytes");
        parts.push((file.name().to_string(), bytes));
    }
    let write = |extra: &str| {
        let mut out = zip::ZipWriter::new(Cursor::new(Vec::new()));
        let options = zip::write::SimpleFileOptions::default()
            .compression_method(zip::CompressionMethod::Deflated);
        for (name, bytes) in &parts {
            out.start_file(name.as_str(), options).expect("zip entry");
            if name == "word/document.xml" {
                let xml = String::from_utf8_lossy(bytes);
                let at = xml.rfind("<w:sectPr").unwrap_or(xml.len());
                out.write_all(format!("{}{extra}{}", &xml[..at], &xml[at..]).as_bytes())
                    .expect("zip write");
            } else {
                out.write_all(bytes).expect("zip write");
            }
        }
        out.finish().expect("zip finish").into_inner()
    };
    let mut seed: u64 = 0x5eed;
    let mut pick = |n: usize| {
        seed = seed
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        (seed >> 33) as usize % n
    };
    let mut extra = String::new();
    let mut docx = write(&extra);
    while docx.len() < target {
        for _ in 0..5 {
            let (name, surname) = (NAMES[pick(NAMES.len())], SURNAMES[pick(SURNAMES.len())]);
            let mut sentence = format!(
                "{name} {surname} ({}) tarafından {:02}.{:02}.2026 tarihinde iletilen {} konulu {} numaralı talep {} birimine aktarılmış olup {},{:02} TL tutarındaki kalem {} sipariş numarasıyla eşleştirilmiştir.",
                UNITS[pick(UNITS.len())],
                1 + pick(28),
                1 + pick(12),
                TOPICS[pick(TOPICS.len())],
                10_000 + pick(90_000),
                UNITS[pick(UNITS.len())],
                100 + pick(9_900),
                pick(100),
                format_args!("SP-{}", 100_000 + pick(900_000)),
            );
            if pick(4) == 0 {
                sentence.push_str(&format!(
                    " İletişim: 0532 {:03} {:02} {:02}.",
                    pick(1000),
                    pick(100),
                    pick(100)
                ));
            }
            if pick(5) == 0 {
                sentence.push_str(&format!(
                    " E-posta: {}.{}@ornek.com.tr",
                    name.to_lowercase(),
                    pick(1000)
                ));
            }
            // Paragraphs as Word writes them: revision ids, paragraph and run properties, the text
            // split over several runs.
            let mut rsid = || format!("00{:06X}", pick(0xFF_FFFF));
            extra.push_str(&format!(
                "<w:p w:rsidR=\"{}\" w:rsidRDefault=\"{}\" w:rsidP=\"{}\"><w:pPr><w:spacing w:after=\"120\" w:line=\"276\" w:lineRule=\"auto\"/><w:jc w:val=\"both\"/><w:rPr><w:rFonts w:ascii=\"Calibri\" w:hAnsi=\"Calibri\" w:cs=\"Calibri\"/><w:lang w:val=\"tr-TR\"/></w:rPr></w:pPr>",
                rsid(), rsid(), rsid()
            ));
            let words: Vec<&str> = sentence.split(' ').collect();
            for run in words.chunks(words.len().div_ceil(3).max(1)) {
                extra.push_str(&format!(
                    "<w:r w:rsidRPr=\"{}\"><w:rPr><w:rFonts w:ascii=\"Calibri\" w:hAnsi=\"Calibri\" w:cs=\"Calibri\"/><w:sz w:val=\"22\"/><w:szCs w:val=\"22\"/><w:lang w:val=\"tr-TR\"/></w:rPr><w:t xml:space=\"preserve\">{} </w:t></w:r>",
                    rsid(),
                    run.join(" ")
                ));
            }
            extra.push_str("</w:p>");
        }
        docx = write(&extra);
    }
    docx
}

fn args() -> Args {
    let mut args = Args {
        docs: 2000,
        concurrency: 16,
        batch: 10,
        preview_requests: 2000,
        preview_concurrency: 32,
        soak_seconds: 0,
        preview_kb: 50,
        preview_file: None,
        save_preview: None,
        binary: PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("target/release/docsieve"),
        processes: 1,
        pin: false,
        database_url: None,
        redis_url: None,
        fairness: false,
        large_pdf_mb: 0,
        previews_during: 0,
    };
    if let Ok(dir) = std::env::var("CARGO_TARGET_DIR") {
        args.binary = PathBuf::from(dir).join("release/docsieve");
    }
    let raw: Vec<String> = std::env::args().skip(1).collect();
    let mut i = 0;
    while i < raw.len() {
        if raw[i] == "--pin" || raw[i] == "--fairness" {
            args.pin |= raw[i] == "--pin";
            args.fairness |= raw[i] == "--fairness";
            i += 1;
            continue;
        }
        let value = raw.get(i + 1).cloned().expect("a value after each option");
        match raw[i].as_str() {
            "--docs" => args.docs = value.parse().expect("--docs N"),
            "--concurrency" => args.concurrency = value.parse().expect("--concurrency N"),
            "--batch" => args.batch = value.parse().expect("--batch N"),
            "--preview-requests" => args.preview_requests = value.parse().expect("N"),
            "--concurrency-preview" => args.preview_concurrency = value.parse().expect("N"),
            "--soak-seconds" => args.soak_seconds = value.parse().expect("N"),
            "--preview-kb" => args.preview_kb = value.parse().expect("--preview-kb N"),
            "--preview-file" => args.preview_file = Some(PathBuf::from(value)),
            "--save-preview" => args.save_preview = Some(PathBuf::from(value)),
            "--binary" => args.binary = PathBuf::from(value),
            "--processes" => args.processes = value.parse().expect("--processes N"),
            "--database-url" => args.database_url = Some(value),
            "--redis-url" => args.redis_url = Some(value),
            "--previews-during" => args.previews_during = value.parse().expect("N"),
            "--large-pdf-mb" => args.large_pdf_mb = value.parse().expect("--large-pdf-mb N"),
            other => panic!("unknown argument {other}"),
        }
        i += 2;
    }
    args
}

fn percentile(sorted: &[Duration], p: f64) -> f64 {
    if sorted.is_empty() {
        return 0.0;
    }
    let index = ((sorted.len() as f64 - 1.0) * p).round() as usize;
    sorted[index].as_secs_f64() * 1000.0
}

fn report(name: &str, mut latencies: Vec<Duration>) {
    latencies.sort();
    println!(
        "{name}: n={} p50={:.1} ms p90={:.1} ms p99={:.1} ms max={:.1} ms",
        latencies.len(),
        percentile(&latencies, 0.5),
        percentile(&latencies, 0.9),
        percentile(&latencies, 0.99),
        percentile(&latencies, 1.0)
    );
}

fn rss_kib(pid: u32) -> u64 {
    docsieve_actors::procfs::status_kib(pid, "VmRSS")
}

/// CPU time the server has used so far, its extraction worker processes included (the live ones and
/// those it has retired and reaped), in seconds.
fn cpu_seconds(pid: u32) -> f64 {
    use docsieve_actors::procfs::{children, stat_seconds};
    stat_seconds(pid, &[11, 12, 13, 14])
        + children(pid)
            .into_iter()
            .map(|child| stat_seconds(child, &[11, 12]))
            .sum::<f64>()
}

struct Server {
    child: Child,
    base: String,
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// What every server of a run shares: the data folder, and the database and Redis when given.
struct Deployment {
    data_dir: PathBuf,
    env: Vec<(&'static str, String)>,
}

/// Starts one server; `core`: pinned to that core with `taskset`.
fn start(binary: &Path, deployment: &Deployment, core: Option<usize>) -> Server {
    use std::io::{BufRead, BufReader};
    let mut command = match core {
        Some(core) => {
            let mut taskset = Command::new("taskset");
            taskset.arg("-c").arg(core.to_string()).arg(binary);
            taskset
        }
        None => Command::new(binary),
    };
    let mut child = command
        .arg("serve")
        .env("DOCSIEVE__SERVER__BIND", "127.0.0.1:0")
        .env("DOCSIEVE__STORAGE__DATA_DIR", &deployment.data_dir)
        // LOAD_LOG: the servers' log filter instead (`sqlx::query=debug` logs every statement).
        .env(
            "DOCSIEVE__LOG__LEVEL",
            std::env::var("LOAD_LOG").unwrap_or_else(|_| "warn".to_string()),
        )
        .env("DOCSIEVE__JOBS__MAX_QUEUED_PER_TENANT", "1000000")
        // Every upload and preview spends a credit: the load tenant's trial period grants plenty.
        .env("DOCSIEVE__PLANS__TRIAL__CREDITS_PER_PERIOD", "1000000000")
        .envs(deployment.env.iter().map(|(key, value)| (key, value)))
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .unwrap_or_else(|e| {
            panic!(
                "cannot start {}: {e} (cargo build --release first)",
                binary.display()
            )
        });
    let stdout = child.stdout.take().expect("stdout");
    let mut lines = BufReader::new(stdout).lines();
    let base = loop {
        let line = lines.next().expect("server output").expect("line");
        if let Some(address) = line.strip_prefix("docsieve listening on ") {
            break address.trim().to_string();
        }
    };
    std::thread::spawn(move || for _ in lines {});
    Server { child, base }
}

/// A PostgreSQL database made for one run on the server of `admin_url`, dropped with this value.
struct RunDatabase {
    admin_url: String,
    name: String,
    url: String,
}

impl RunDatabase {
    async fn create(admin_url: &str) -> RunDatabase {
        use sea_orm::{ConnectionTrait, Database, Statement};
        let name = format!(
            "docsieve_load_{}_{}",
            std::process::id(),
            chrono::Utc::now().timestamp_millis()
        );
        let admin = Database::connect(admin_url)
            .await
            .expect("--database-url: PostgreSQL reachable");
        admin
            .execute(Statement::from_string(
                admin.get_database_backend(),
                format!("CREATE DATABASE \"{name}\""),
            ))
            .await
            .expect("create the run's database");
        let _ = admin.close().await;
        let mut url = url::Url::parse(admin_url).expect("--database-url is a URL");
        url.set_path(&format!("/{name}"));
        RunDatabase {
            admin_url: admin_url.to_string(),
            name,
            url: url.to_string(),
        }
    }

    /// Drops the database (the servers must be stopped first).
    async fn drop_now(self) {
        use sea_orm::{ConnectionTrait, Database, Statement};
        if let Ok(admin) = Database::connect(&self.admin_url).await {
            let _ = admin
                .execute(Statement::from_string(
                    admin.get_database_backend(),
                    format!("DROP DATABASE IF EXISTS \"{}\" WITH (FORCE)", self.name),
                ))
                .await;
            let _ = admin.close().await;
        }
    }
}

/// Statements all servers sent so far (reads, writes), from `docsieve_db_statements_total`.
async fn statements(client: &reqwest::Client, bases: &[String]) -> (f64, f64) {
    let mut total = (0.0, 0.0);
    for base in bases {
        let name = "docsieve_db_statements_total";
        total.0 += metric(client, base, name, "{kind=\"read\"}").await;
        total.1 += metric(client, base, name, "{kind=\"write\"}").await;
    }
    total
}

/// The completer's and the claims' counters, summed over the servers.
#[derive(Default)]
struct Groups {
    count: f64,
    outcomes: f64,
    held_seconds: f64,
    claims: f64,
    claimed: f64,
}

async fn groups(client: &reqwest::Client, bases: &[String]) -> Groups {
    let mut total = Groups::default();
    for base in bases {
        total.count += metric(client, base, "docsieve_store_groups_total", "").await;
        total.outcomes += metric(client, base, "docsieve_store_group_outcomes_sum", "").await;
        total.held_seconds +=
            metric(client, base, "docsieve_store_group_hold_seconds_sum", "").await;
        total.claims += metric(client, base, "docsieve_job_batch_size_count", "").await;
        total.claimed += metric(client, base, "docsieve_job_batch_size_sum", "").await;
    }
    total
}

/// The PostgreSQL server's own readings for the run's database (`--database-url`).
#[derive(Clone, Copy, Default)]
struct Postgres {
    commits: f64,
    wal_bytes: f64,
    jobs_dead_tuples: f64,
    jobs_updates: f64,
    /// CPU seconds of every `postgres` process on this machine (the postmaster's waited-for children,
    /// that is backends that have exited, included).
    cpu: f64,
}

impl Postgres {
    async fn read(url: &str) -> Postgres {
        use sea_orm::{ConnectionTrait, Database, Statement};
        let db = Database::connect(url).await.expect("the run's database");
        let row = db
            .query_one(Statement::from_string(
                db.get_database_backend(),
                "SELECT d.xact_commit::float8 AS commits, \
                        (pg_current_wal_lsn() - '0/0'::pg_lsn)::float8 AS wal, \
                        coalesce(t.n_dead_tup, 0)::float8 AS dead, coalesce(t.n_tup_upd, 0)::float8 AS upd \
                 FROM pg_stat_database d LEFT JOIN pg_stat_user_tables t ON t.relname = 'jobs' \
                 WHERE d.datname = current_database()",
            ))
            .await
            .expect("pg_stat_database")
            .expect("a row");
        let _ = db.close().await;
        Postgres {
            commits: row.try_get("", "commits").unwrap_or(0.0),
            wal_bytes: row.try_get("", "wal").unwrap_or(0.0),
            jobs_dead_tuples: row.try_get("", "dead").unwrap_or(0.0),
            jobs_updates: row.try_get("", "upd").unwrap_or(0.0),
            cpu: Postgres::cpu(),
        }
    }

    fn cpu() -> f64 {
        std::fs::read_dir("/proc")
            .into_iter()
            .flatten()
            .flatten()
            .filter_map(|entry| entry.file_name().to_str()?.parse::<u32>().ok())
            .filter(|pid| {
                std::fs::read_to_string(format!("/proc/{pid}/comm"))
                    .is_ok_and(|comm| comm.trim() == "postgres")
            })
            .map(|pid| docsieve_actors::procfs::stat_seconds(pid, &[11, 12, 13, 14]))
            .sum()
    }
}

/// A counter's value in one server's `/metrics` (`labels` exactly as written there).
async fn metric(client: &reqwest::Client, base: &str, name: &str, labels: &str) -> f64 {
    let text = client
        .get(format!("{base}/metrics"))
        .send()
        .await
        .expect("metrics")
        .text()
        .await
        .expect("metrics text");
    let series = format!("{name}{labels} ");
    text.lines()
        .find_map(|line| line.strip_prefix(&series))
        .and_then(|value| value.trim().parse().ok())
        .unwrap_or(0.0)
}

async fn api_key(client: &reqwest::Client, base: &str, data_dir: &Path, email: &str) -> String {
    let password = "load-password-1";
    let response = client
        .post(format!("{base}/v1/auth/signup"))
        .json(&json!({"email": email, "password": password}))
        .send()
        .await
        .expect("signup");
    assert_eq!(response.status(), 201);
    let token = loop {
        let found = std::fs::read_dir(data_dir.join("outbox"))
            .ok()
            .and_then(|entries| {
                entries.filter_map(Result::ok).find_map(|entry| {
                    let text = std::fs::read_to_string(entry.path()).ok()?;
                    if !text.contains(email) {
                        return None;
                    }
                    let text = text
                        .replace("=\r\n", "")
                        .replace("=\n", "")
                        .replace("=3D", "=");
                    text.lines()
                        .map(str::trim)
                        .find(|l| l.len() == 64 && l.bytes().all(|b| b.is_ascii_hexdigit()))
                        .map(str::to_string)
                })
            });
        if let Some(token) = found {
            break token;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    };
    client
        .post(format!("{base}/v1/auth/verify-email"))
        .json(&json!({"token": token}))
        .send()
        .await
        .expect("verify");
    let login: Value = client
        .post(format!("{base}/v1/auth/login"))
        .json(&json!({"email": email, "password": password}))
        .send()
        .await
        .expect("login")
        .json()
        .await
        .expect("json");
    let access = login["data"]["access_token"].as_str().expect("token");
    let key: Value = client
        .post(format!("{base}/v1/me/api-keys"))
        .bearer_auth(access)
        .json(&json!({"name": "load"}))
        .send()
        .await
        .expect("key")
        .json()
        .await
        .expect("json");
    key["data"]["api_key"]
        .as_str()
        .expect("api key")
        .to_string()
}

fn small_doc(i: usize) -> Vec<u8> {
    format!(
        "Sipariş {i}: müşteri temsilcisi ile görüşüldü. İletişim: destek{i}@ornek.com.tr, \
         telefon 0532 123 45 67. Teslimat {} gün içinde yapılacaktır; tutar {},50 TL.\n",
        i % 30,
        1000 + i
    )
    .into_bytes()
}

async fn upload_batch(
    client: &reqwest::Client,
    base: &str,
    key: &str,
    first: usize,
    n: usize,
) -> usize {
    let mut form = Form::new();
    for i in first..first + n {
        form = form.part(
            "files",
            Part::bytes(small_doc(i)).file_name(format!("d{i}.txt")),
        );
    }
    let response = client
        .post(format!("{base}/v1/data-process/async"))
        .header("X-API-KEY", key)
        .multipart(form)
        .send()
        .await
        .expect("upload");
    assert_eq!(response.status(), 202, "upload refused");
    let body: Value = response.json().await.expect("json");
    body["data"]["job_ids"].as_array().map_or(0, Vec::len)
}

/// A PDF of about `target` bytes of text: pages of 60 lines of business prose in Helvetica (one of the
/// standard fonts, so nothing is embedded), uncompressed, at most 2,000 pages.
fn text_pdf(target: usize) -> Vec<u8> {
    const LINES: usize = 60;
    let pages = (target / 10_000).clamp(1, 2000);
    let mut pdf = b"%PDF-1.4\n".to_vec();
    let mut offsets = Vec::new();
    let mut object = |pdf: &mut Vec<u8>, body: &[u8]| {
        offsets.push(pdf.len());
        pdf.extend_from_slice(format!("{} 0 obj\n", offsets.len()).as_bytes());
        pdf.extend_from_slice(body);
        pdf.extend_from_slice(b"\nendobj\n");
    };
    let kids: Vec<String> = (0..pages).map(|p| format!("{} 0 R", 4 + 2 * p)).collect();
    object(&mut pdf, b"<< /Type /Catalog /Pages 2 0 R >>");
    object(
        &mut pdf,
        format!(
            "<< /Type /Pages /Kids [{}] /Count {pages} >>",
            kids.join(" ")
        )
        .as_bytes(),
    );
    object(
        &mut pdf,
        b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>",
    );
    for page in 0..pages {
        object(
            &mut pdf,
            format!(
                "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 595 842] /Resources << /Font << /F1 3 0 R >> >> /Contents {} 0 R >>",
                5 + 2 * page
            )
            .as_bytes(),
        );
        let mut content = String::from("BT /F1 8 Tf 30 810 Td 12 TL\n");
        for line in 0..LINES {
            let i = page * LINES + line;
            content.push_str(&format!(
                "(Order {i} of customer account {}: delivery within {} days to the warehouse, invoice amount {}.50 TRY, contact support{}@example.com or the sales desk) Tj T*\n",
                100_000 + i * 7,
                i % 30,
                1000 + i,
                i % 97
            ));
        }
        content.push_str("ET");
        let mut body = format!("<< /Length {} >>\nstream\n", content.len()).into_bytes();
        body.extend_from_slice(content.as_bytes());
        body.extend_from_slice(b"\nendstream");
        object(&mut pdf, &body);
    }
    let xref = pdf.len();
    pdf.extend_from_slice(
        format!("xref\n0 {}\n0000000000 65535 f \n", offsets.len() + 1).as_bytes(),
    );
    for offset in &offsets {
        pdf.extend_from_slice(format!("{offset:010} 00000 n \n").as_bytes());
    }
    pdf.extend_from_slice(
        format!(
            "trailer\n<< /Size {} /Root 1 0 R >>\nstartxref\n{xref}\n%%EOF\n",
            offsets.len() + 1
        )
        .as_bytes(),
    );
    pdf
}

/// Uploads `bytes` as one document of tenant `key` and waits (polling its job every `poll`) until the job
/// has ended: the upload-to-ended time and the job's last status.
async fn one_job(
    client: &reqwest::Client,
    (base, key): (&str, &str),
    (name, bytes): (&str, Vec<u8>),
    poll: Duration,
) -> (Duration, String) {
    let sent = Instant::now();
    let form = Form::new().part("files", Part::bytes(bytes).file_name(name.to_string()));
    let body: Value = client
        .post(format!("{base}/v1/data-process/async"))
        .header("X-API-KEY", key)
        .multipart(form)
        .send()
        .await
        .expect("upload")
        .json()
        .await
        .expect("json");
    let job = body["data"]["job_ids"][0]
        .as_str()
        .unwrap_or_else(|| panic!("a job: {body}"))
        .to_string();
    loop {
        let view = get_json(client, &format!("{base}/v1/jobs/{job}"), key).await;
        let status = view["data"]["status"].as_str().unwrap_or("").to_string();
        if status == "completed" || status == "failed" {
            return (sent.elapsed(), status);
        }
        tokio::time::sleep(poll).await;
    }
}

/// `--fairness`: tenant A queues `--docs` small documents as fast as `--concurrency` clients can, while
/// tenant B uploads one document every 100 ms until A's are all done; prints B's upload-to-completed
/// latencies (each job's status polled every 5 ms) and A's documents/s.
async fn fairness(
    client: &reqwest::Client,
    base: &str,
    (key, data_dir): (&str, &Path),
    args: &Args,
) {
    let key_b = api_key(client, base, data_dir, "bystander@example.com").await;
    let started = Instant::now();
    let next = Arc::new(std::sync::atomic::AtomicUsize::new(0));
    for _ in 0..args.concurrency {
        let (client, key, next, base) = (
            client.clone(),
            key.to_string(),
            next.clone(),
            base.to_string(),
        );
        let (docs, batch) = (args.docs, args.batch);
        tokio::spawn(async move {
            loop {
                let first = next.fetch_add(batch, std::sync::atomic::Ordering::SeqCst);
                if first >= docs {
                    return;
                }
                upload_batch(&client, &base, &key, first, batch.min(docs - first)).await;
            }
        });
    }
    let done = Arc::new(std::sync::atomic::AtomicBool::new(false));
    let stream = {
        let (client, base, done) = (client.clone(), base.to_string(), done.clone());
        tokio::spawn(async move {
            let mut waits = Vec::new();
            let mut tick = tokio::time::interval(Duration::from_millis(100));
            let mut i = 1_000_000;
            while !done.load(std::sync::atomic::Ordering::SeqCst) {
                tick.tick().await;
                i += 1;
                let (client, base, key_b) = (client.clone(), base.clone(), key_b.clone());
                waits.push(tokio::spawn(async move {
                    let doc = (format!("b{i}.txt"), small_doc(i));
                    one_job(
                        &client,
                        (&base, &key_b),
                        (&doc.0, doc.1),
                        Duration::from_millis(5),
                    )
                    .await
                    .0
                }));
            }
            let mut latencies = Vec::new();
            for wait in waits {
                latencies.push(wait.await.expect("poller"));
            }
            latencies
        })
    };
    let large = (args.large_pdf_mb > 0).then(|| {
        let (client, base, key) = (client.clone(), base.to_string(), key.to_string());
        let pdf = text_pdf(args.large_pdf_mb << 20);
        tokio::spawn(async move {
            tokio::time::sleep(Duration::from_secs(2)).await;
            let size = pdf.len();
            let poll = Duration::from_millis(50);
            (
                size,
                one_job(&client, (&base, &key), ("large.pdf", pdf), poll).await,
            )
        })
    });
    while completed(client, base, key).await < args.docs as u64 {
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    let elapsed = started.elapsed();
    if let Some(large) = large {
        let (size, (took, status)) = large.await.expect("the large PDF");
        println!(
            "tenant A's PDF of {:.1} MB: {status} {:.2} s after its upload",
            size as f64 / 1_048_576.0,
            took.as_secs_f64()
        );
    }
    done.store(true, std::sync::atomic::Ordering::SeqCst);
    let latencies = stream.await.expect("stream");
    println!(
        "fairness: tenant A's {} small documents done in {:.1} s ({:.0}/s) while tenant B uploaded one every 100 ms",
        args.docs,
        elapsed.as_secs_f64(),
        args.docs as f64 / elapsed.as_secs_f64()
    );
    report("tenant B, upload to completed", latencies);
}

async fn completed(client: &reqwest::Client, base: &str, key: &str) -> u64 {
    let url = format!("{base}/v1/executions?page_size=1");
    get_json(client, &url, key).await["data"]["total"]
        .as_u64()
        .unwrap_or(0)
}

/// A GET of `url` with tenant `key`, its JSON body.
async fn get_json(client: &reqwest::Client, url: &str, key: &str) -> Value {
    client
        .get(url)
        .header("X-API-KEY", key)
        .send()
        .await
        .unwrap_or_else(|e| panic!("GET {url}: {e}"))
        .json()
        .await
        .expect("json")
}

/// `requests` masked previews of `document` (its bytes and name) from `concurrency` clients, client i
/// sending to server i modulo the servers: the answered ones' latencies and how many were not answered
/// 200.
async fn previews(
    client: &reqwest::Client,
    bases: &[String],
    (key, document): (&str, (Arc<Vec<u8>>, Arc<str>)),
    requests: usize,
    concurrency: usize,
) -> (Vec<Duration>, usize) {
    let next = Arc::new(std::sync::atomic::AtomicUsize::new(0));
    let mut tasks = Vec::new();
    for task in 0..concurrency {
        let (client, base, key, next, (bytes, name)) = (
            client.clone(),
            bases[task % bases.len()].clone(),
            key.to_string(),
            next.clone(),
            document.clone(),
        );
        tasks.push(tokio::spawn(async move {
            let mut latencies = Vec::new();
            let mut refused = 0;
            while next.fetch_add(1, std::sync::atomic::Ordering::SeqCst) < requests {
                let form = Form::new().part(
                    "file",
                    Part::bytes(bytes.to_vec()).file_name(name.to_string()),
                );
                let t = Instant::now();
                let response = client
                    .post(format!("{base}/v1/data-process/preview?masked=true"))
                    .header("X-API-KEY", &key)
                    .multipart(form)
                    .send()
                    .await
                    .expect("preview");
                let status = response.status();
                let _ = response.bytes().await;
                if status == 200 {
                    latencies.push(t.elapsed());
                } else {
                    refused += 1;
                }
            }
            (latencies, refused)
        }));
    }
    let mut all = Vec::new();
    let mut refused = 0;
    for task in tasks {
        let (latencies, r) = task.await.expect("preview client");
        all.extend(latencies);
        refused += r;
    }
    (all, refused)
}

#[tokio::main]
async fn main() {
    let args = args();
    let docx = Arc::new(match &args.preview_file {
        Some(path) => std::fs::read(path).expect("--preview-file"),
        None => grown_docx(
            &std::fs::read(
                Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/corpus/tr/tr_ik_yazisi.docx"),
            )
            .expect("corpus docx"),
            args.preview_kb * 1024,
        ),
    });
    // The name the preview is uploaded under: the file's own, or the grown DOCX's.
    let preview_name: Arc<str> = args
        .preview_file
        .as_deref()
        .and_then(|path| path.file_name())
        .map_or("ik.docx".into(), |name| name.to_string_lossy().into());
    if let Some(path) = &args.save_preview {
        // Only write the preview document (for the engine benchmarks) and stop.
        std::fs::write(path, docx.as_slice()).expect("--save-preview");
        println!("wrote {} ({} bytes)", path.display(), docx.len());
        return;
    }
    let data_dir = tempfile::tempdir().expect("temp dir");
    let database = match &args.database_url {
        Some(admin_url) => Some(RunDatabase::create(admin_url).await),
        None => None,
    };
    let mut env = Vec::new();
    if let Some(database) = &database {
        env.push(("DOCSIEVE__DATABASE__URL", database.url.clone()));
    }
    if let Some(redis_url) = &args.redis_url {
        env.push(("DOCSIEVE__REDIS__URL", redis_url.clone()));
        // Keys of this run only: a tenant id of an earlier run's database names another tenant.
        env.push((
            "DOCSIEVE__REDIS__KEY_PREFIX",
            format!(
                "docsieve-load-{}-{}:",
                std::process::id(),
                chrono::Utc::now().timestamp_millis()
            ),
        ));
    }
    let deployment = Deployment {
        data_dir: data_dir.path().to_path_buf(),
        env,
    };
    let cores = docsieve_actors::settings::available_cores();
    let processes = args.processes.max(1);
    // The first server migrates a fresh database; the others start once it has.
    let mut servers = vec![start(&args.binary, &deployment, args.pin.then_some(0))];
    for index in 1..processes {
        servers.push(start(
            &args.binary,
            &deployment,
            args.pin.then_some(index % cores),
        ));
    }
    let pids: Vec<u32> = servers.iter().map(|server| server.child.id()).collect();
    let bases: Arc<Vec<String>> = Arc::new(servers.iter().map(|s| s.base.clone()).collect());
    let base = bases[0].clone();
    let pid = pids[0];
    let client = reqwest::Client::builder()
        .pool_max_idle_per_host(64)
        .timeout(Duration::from_secs(120))
        .build()
        .expect("client");
    let key = api_key(&client, &base, data_dir.path(), "load@example.com").await;
    println!(
        "{} server(s) on {}{}{}, pids {pids:?}, RSS at start {} KiB each",
        servers.len(),
        if database.is_some() {
            "PostgreSQL"
        } else {
            "SQLite"
        },
        if args.redis_url.is_some() {
            " + Redis"
        } else {
            ""
        },
        if args.pin { ", pinned" } else { "" },
        rss_kib(pid)
    );
    let server_cpu = || {
        pids.iter()
            .map(|&pid| cpu_seconds(pid))
            .collect::<Vec<f64>>()
    };

    if args.fairness {
        fairness(&client, &base, (&key, data_dir.path()), &args).await;
        return;
    }

    // 1. Async uploads, end to end; client task i uploads to server i modulo the number of servers.
    let statements_before = statements(&client, &bases).await;
    let postgres_before = match &database {
        Some(database) => Some(Postgres::read(&database.url).await),
        None => None,
    };
    let groups_before = groups(&client, &bases).await;
    let cpu_before = server_cpu();
    let started = Instant::now();
    let during = (args.previews_during > 0).then(|| {
        let (client, bases, key) = (client.clone(), bases.clone(), key.clone());
        let document = (docx.clone(), preview_name.clone());
        let requests = args.previews_during;
        tokio::spawn(async move { previews(&client, &bases, (&key, document), requests, 4).await })
    });
    let next = Arc::new(std::sync::atomic::AtomicUsize::new(0));
    let mut tasks = Vec::new();
    for task in 0..args.concurrency {
        let (client, key, next) = (client.clone(), key.clone(), next.clone());
        let base = bases[task % bases.len()].clone();
        let (docs, batch) = (args.docs, args.batch);
        tasks.push(tokio::spawn(async move {
            let mut latencies = Vec::new();
            loop {
                let first = next.fetch_add(batch, std::sync::atomic::Ordering::SeqCst);
                if first >= docs {
                    return latencies;
                }
                let n = batch.min(docs - first);
                let t = Instant::now();
                upload_batch(&client, &base, &key, first, n).await;
                latencies.push(t.elapsed());
            }
        }));
    }
    let mut upload_latencies = Vec::new();
    for task in tasks {
        upload_latencies.extend(task.await.expect("task"));
    }
    let uploaded_in = started.elapsed();
    while completed(&client, &base, &key).await < args.docs as u64 {
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    let total = started.elapsed();
    if let Some(during) = during {
        let (latencies, refused) = during.await.expect("previews during the run");
        println!(
            "previews sent during the async run from 4 clients ({refused} answered non-200; with --docs 0, alone):"
        );
        report("  preview during the run", latencies);
    }
    let postgres_cpu_after = Postgres::cpu();
    let cpu_used: Vec<f64> = server_cpu()
        .iter()
        .zip(&cpu_before)
        .map(|(after, before)| after - before)
        .collect();
    println!(
        "async: {} small text documents uploaded in {:.2} s, all completed in {:.2} s → {:.0} documents/s end to end",
        args.docs,
        uploaded_in.as_secs_f64(),
        total.as_secs_f64(),
        args.docs as f64 / total.as_secs_f64()
    );
    report(
        &format!("upload request ({} files each)", args.batch),
        upload_latencies,
    );
    for (index, server_base) in bases.iter().enumerate() {
        let jobs = metric(
            &client,
            server_base,
            "docsieve_jobs_finished_total",
            "{job_type=\"data_process\",outcome=\"completed\"}",
        )
        .await;
        let (seconds, runs) = (
            metric(
                &client,
                server_base,
                "docsieve_job_duration_seconds_sum",
                "{job_type=\"data_process\"}",
            )
            .await,
            metric(
                &client,
                server_base,
                "docsieve_job_duration_seconds_count",
                "{job_type=\"data_process\"}",
            )
            .await,
        );
        println!(
            "  process {index}: a job took {:.2} ms on average from its claim to its audit entry",
            seconds * 1000.0 / runs.max(1.0)
        );
        println!(
            "  process {index} (pid {}): {jobs:.0} jobs completed ({:.0} documents/s), CPU {:.2} s ({:.0} % of a core, {:.2} ms per document it ran)",
            pids[index],
            jobs / total.as_secs_f64(),
            cpu_used[index],
            cpu_used[index] * 100.0 / total.as_secs_f64(),
            cpu_used[index] * 1000.0 / jobs.max(1.0)
        );
    }
    let cpu_total: f64 = cpu_used.iter().sum();
    println!(
        "server CPU per document: {:.2} ms (user + system, every process and its threads; {:.0} % of a core on average)",
        cpu_total * 1000.0 / args.docs as f64,
        cpu_total * 100.0 / total.as_secs_f64()
    );
    println!("RSS after the async run: {} KiB", rss_kib(pid));
    let statements_after = statements(&client, &bases).await;
    println!(
        "SQL statements per document (every process, uploads included): {:.1} reads, {:.1} writes",
        (statements_after.0 - statements_before.0) / args.docs as f64,
        (statements_after.1 - statements_before.1) / args.docs as f64
    );
    let groups_after = groups(&client, &bases).await;
    let docs = args.docs as f64;
    println!(
        "job side: {:.3} group commits per document ({:.1} outcomes per group), {:.2} ms of write turn \
         held per group; {:.1} jobs per claim",
        (groups_after.count - groups_before.count) / docs,
        (groups_after.outcomes - groups_before.outcomes)
            / (groups_after.count - groups_before.count).max(1.0),
        (groups_after.held_seconds - groups_before.held_seconds) * 1000.0
            / (groups_after.count - groups_before.count).max(1.0),
        (groups_after.claimed - groups_before.claimed)
            / (groups_after.claims - groups_before.claims).max(1.0),
    );

    if let (Some(before), Some(database)) = (postgres_before, &database) {
        // Backends send their statistics at most once a second while busy and after 10 s when idle.
        tokio::time::sleep(Duration::from_secs(11)).await;
        let after = Postgres::read(&database.url).await;
        println!(
            "PostgreSQL: {:.3} commits, {:.0} WAL bytes and {:.2} ms of its CPU per document (every postgres \
             process, {:.0} % of a core); jobs: {:.1} updates per document, {:.0} dead tuples after the run",
            (after.commits - before.commits) / docs,
            (after.wal_bytes - before.wal_bytes) / docs,
            (postgres_cpu_after - before.cpu) * 1000.0 / docs,
            (postgres_cpu_after - before.cpu) * 100.0 / total.as_secs_f64(),
            (after.jobs_updates - before.jobs_updates) / docs,
            after.jobs_dead_tuples
        );
    }

    // 2. Preview latency (`--preview-requests 0` skips it).
    if args.preview_requests > 0 {
        let cpu_before: f64 = server_cpu().iter().sum();
        let own_cpu = || docsieve_actors::procfs::stat_seconds(std::process::id(), &[11, 12]);
        let own_cpu_before = own_cpu();
        let started = Instant::now();
        let (preview_latencies, refused) = previews(
            &client,
            &bases,
            (&key, (docx.clone(), preview_name.clone())),
            args.preview_requests,
            args.preview_concurrency,
        )
        .await;
        let elapsed = started.elapsed();
        println!(
        "preview: {} requests of a {} KB {} at {} clients in {:.2} s ({:.0}/s), {refused} answered non-200",
        args.preview_requests,
        docx.len() / 1024,
        preview_name
            .rsplit_once('.')
            .map_or(String::new(), |(_, extension)| extension.to_uppercase()),
        args.preview_concurrency,
        elapsed.as_secs_f64(),
        args.preview_requests as f64 / elapsed.as_secs_f64()
    );
        report("preview", preview_latencies);
        println!(
            "server CPU per preview: {:.2} ms (user + system, all threads)",
            (server_cpu().iter().sum::<f64>() - cpu_before) * 1000.0 / args.preview_requests as f64
        );
        // The clients share the server's two cores: what they take is not the server's to use.
        println!(
            "load generator CPU per preview: {:.2} ms (this process, on the same machine)",
            (own_cpu() - own_cpu_before) * 1000.0 / args.preview_requests as f64
        );
        let workers: Vec<u64> = docsieve_actors::procfs::children(pid)
            .into_iter()
            .map(rss_kib)
            .collect();
        println!(
            "RSS after the preview run: {} KiB (server), extraction workers {workers:?} KiB",
            rss_kib(pid)
        );
    }

    // 3. Soak: steady uploads, RSS sampled.
    if args.soak_seconds > 0 {
        let started = Instant::now();
        let mut last_print = Instant::now();
        let mut sent = args.docs;
        while started.elapsed() < Duration::from_secs(args.soak_seconds) {
            sent += upload_batch(&client, &base, &key, sent, args.batch).await;
            // Counting the executions is a COUNT over a table that grows all through the soak: polled a
            // few times a second, not fifty, so that the client does not become the load.
            while completed(&client, &base, &key).await + 200 < sent as u64 {
                tokio::time::sleep(Duration::from_millis(250)).await;
            }
            if last_print.elapsed() >= Duration::from_secs(30) {
                println!(
                    "soak t={:>4} s documents={sent} RSS={} KiB",
                    started.elapsed().as_secs(),
                    rss_kib(pid)
                );
                last_print = Instant::now();
            }
        }
        println!("soak done: RSS {} KiB", rss_kib(pid));
    }
    drop(servers);
    if let Some(database) = database {
        database.drop_now().await;
    }
}
