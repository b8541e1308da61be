//! Open-source metrics: each source of `oss_metrics.sources` (`crates_io`, `pypi`, `npm`, `github`)
//! read from its public API at the base URL configured for its kind (tests point them at a local
//! stand-in), stored as one snapshot per source and fetch; a failing source is stored with its error
//! and the others still are.
//!
//! What each kind gives: crates.io — total downloads and the newest version; PyPI — the latest
//! version (its JSON API has no download counts); npm — the latest version and last month's downloads
//! (`npm_downloads_url`); GitHub — stars, forks, open issues and the latest release's tag.

use std::collections::BTreeMap;
use std::time::Duration;

use serde_json::{json, Value};

use chrono::{DateTime, Utc};

use crate::settings::{OssMetricsSettings, OssSource};
use crate::store::{Store, StoreError};

/// One source's figures at one fetch.
#[derive(Clone, Debug, Default, serde::Serialize)]
pub struct Snapshot {
    pub kind: String,
    pub name: String,
    pub downloads: Option<i64>,
    pub stars: Option<i64>,
    pub forks: Option<i64>,
    pub open_issues: Option<i64>,
    pub latest_version: Option<String>,
    pub error: Option<String>,
}

async fn get_json(client: &reqwest::Client, url: &str) -> Result<Option<Value>, String> {
    let response = client
        .get(url)
        .header(
            "User-Agent",
            concat!("docsieve/", env!("CARGO_PKG_VERSION")),
        )
        .header("Accept", "application/json")
        .send()
        .await
        .map_err(|e| format!("GET {url}: {}", e.without_url()))?;
    if response.status() == reqwest::StatusCode::NOT_FOUND {
        return Ok(None);
    }
    if !response.status().is_success() {
        return Err(format!("GET {url}: HTTP {}", response.status().as_u16()));
    }
    response
        .json()
        .await
        .map(Some)
        .map_err(|e| format!("GET {url}: the body is not JSON ({e})"))
}

async fn required(client: &reqwest::Client, url: &str) -> Result<Value, String> {
    get_json(client, url)
        .await?
        .ok_or_else(|| format!("GET {url}: not found"))
}

fn base(url: &str) -> &str {
    url.trim_end_matches('/')
}

async fn read(
    settings: &OssMetricsSettings,
    client: &reqwest::Client,
    source: &OssSource,
) -> Result<Snapshot, String> {
    let mut snapshot = Snapshot {
        kind: source.kind.clone(),
        name: source.name.clone(),
        ..Snapshot::default()
    };
    let name = &source.name;
    match source.kind.as_str() {
        "crates_io" => {
            let body = required(
                client,
                &format!("{}/api/v1/crates/{name}", base(&settings.crates_io_url)),
            )
            .await?;
            snapshot.downloads = body["crate"]["downloads"].as_i64();
            snapshot.latest_version = body["crate"]["max_stable_version"]
                .as_str()
                .or(body["crate"]["newest_version"].as_str())
                .or(body["crate"]["max_version"].as_str())
                .map(str::to_string);
        }
        "pypi" => {
            let body = required(
                client,
                &format!("{}/pypi/{name}/json", base(&settings.pypi_url)),
            )
            .await?;
            snapshot.latest_version = body["info"]["version"].as_str().map(str::to_string);
        }
        "npm" => {
            let body = required(client, &format!("{}/{name}", base(&settings.npm_url))).await?;
            snapshot.latest_version = body["dist-tags"]["latest"].as_str().map(str::to_string);
            let downloads = required(
                client,
                &format!(
                    "{}/downloads/point/last-month/{name}",
                    base(&settings.npm_downloads_url)
                ),
            )
            .await?;
            snapshot.downloads = downloads["downloads"].as_i64();
        }
        "github" => {
            let body = required(
                client,
                &format!("{}/repos/{name}", base(&settings.github_url)),
            )
            .await?;
            snapshot.stars = body["stargazers_count"].as_i64();
            snapshot.forks = body["forks_count"].as_i64();
            snapshot.open_issues = body["open_issues_count"].as_i64();
            snapshot.latest_version = get_json(
                client,
                &format!(
                    "{}/repos/{name}/releases/latest",
                    base(&settings.github_url)
                ),
            )
            .await?
            .and_then(|release| release["tag_name"].as_str().map(str::to_string));
        }
        other => return Err(format!("unknown source kind {other}")),
    }
    Ok(snapshot)
}

/// Reads every configured source; a failing one comes back with its `error`.
pub async fn fetch_all(settings: &OssMetricsSettings) -> Vec<Snapshot> {
    let client = match reqwest::Client::builder()
        .timeout(Duration::from_millis(settings.timeout_ms))
        .build()
    {
        Ok(client) => client,
        Err(error) => {
            return settings
                .sources
                .iter()
                .map(|source| Snapshot {
                    kind: source.kind.clone(),
                    name: source.name.clone(),
                    error: Some(error.to_string()),
                    ..Snapshot::default()
                })
                .collect()
        }
    };
    let mut snapshots = Vec::new();
    for source in &settings.sources {
        snapshots.push(match read(settings, &client, source).await {
            Ok(snapshot) => snapshot,
            Err(error) => Snapshot {
                kind: source.kind.clone(),
                name: source.name.clone(),
                error: Some(error),
                ..Snapshot::default()
            },
        });
    }
    snapshots
}

/// Reads every configured source and stores a snapshot of each, fetched at `now`.
pub async fn fetch_and_store(
    store: &Store,
    settings: &OssMetricsSettings,
    now: DateTime<Utc>,
) -> Result<Vec<Snapshot>, StoreError> {
    let snapshots = fetch_all(settings).await;
    for snapshot in &snapshots {
        store
            .record_oss_snapshot(
                (&snapshot.kind, &snapshot.name),
                (
                    snapshot.downloads,
                    snapshot.stars,
                    snapshot.forks,
                    snapshot.open_issues,
                ),
                snapshot.latest_version.as_deref(),
                snapshot.error.as_deref(),
                now,
            )
            .await?;
    }
    Ok(snapshots)
}

/// The trend of every source from the snapshots stored since `since`: one [`trend`] each, with its
/// `kind` and `name`, in the order of kind and name.
pub async fn report(store: &Store, since: DateTime<Utc>) -> Result<Vec<Value>, StoreError> {
    const PAGE: u64 = 1000;
    let mut rows: Vec<Value> = Vec::new();
    let mut offset = 0;
    loop {
        let page = store.oss_snapshots_since(since, PAGE, offset).await?;
        let count = page.len() as u64;
        rows.extend(page);
        if count < PAGE {
            break;
        }
        offset += PAGE;
    }
    let mut by_source: BTreeMap<(String, String), Vec<Value>> = BTreeMap::new();
    for row in rows {
        let key = (
            row["kind"].as_str().unwrap_or_default().to_string(),
            row["name"].as_str().unwrap_or_default().to_string(),
        );
        by_source.entry(key).or_default().push(row);
    }
    Ok(by_source
        .into_iter()
        .map(|((kind, name), rows)| {
            let mut trend = trend(&rows);
            trend["kind"] = kind.into();
            trend["name"] = name.into();
            trend
        })
        .collect())
}

/// The trend of stored snapshots (oldest first) of one source: the latest, the change of each figure
/// between the first and the last successful snapshot, and one point per day (the day's last).
fn trend(rows: &[Value]) -> Value {
    let ok: Vec<&Value> = rows.iter().filter(|r| r["error"].is_null()).collect();
    let change = |field: &str| match (ok.first(), ok.last()) {
        (Some(first), Some(last)) => match (first[field].as_i64(), last[field].as_i64()) {
            (Some(a), Some(b)) => json!(b - a),
            _ => Value::Null,
        },
        _ => Value::Null,
    };
    let mut daily: Vec<Value> = Vec::new();
    for row in &ok {
        let day: String = row["fetched_at"]
            .as_str()
            .unwrap_or_default()
            .chars()
            .take(10)
            .collect();
        let point = json!({"day": day, "downloads": row["downloads"], "stars": row["stars"],
            "forks": row["forks"], "open_issues": row["open_issues"]});
        match daily.last_mut() {
            Some(last) if last["day"] == point["day"] => *last = point,
            _ => daily.push(point),
        }
    }
    json!({
        "latest": rows.last(),
        "change": {"downloads": change("downloads"), "stars": change("stars"),
            "forks": change("forks"), "open_issues": change("open_issues")},
        "daily": daily,
    })
}
