//! `docsieve keys`: the master key's rotation and a check that every stored blob opens; and
//! `docsieve receipts verify`, the offline check of a signed erasure receipt.
//!
//! `docsieve keys rotate` re-wraps every tenant's data key under a new master key; no blob is
//! rewritten. With the key in a file (`storage.master_key_file`, or the generated
//! `<data_dir>/master_key`) a new key is generated and written there, the old one kept beside it
//! until every data key is re-wrapped (a crash in between loses nothing). With the key in
//! `DOCSIEVE_MASTER_KEY`, `--new-key-file` names a file holding the new key (64 hex digits, for
//! example from `openssl rand -hex 32`); set the variable to it afterwards.
//!
//! `docsieve keys verify` opens every object under `tenants/` and prints, as JSON, how many opened,
//! how many are sealed, and which failed (a shredded tenant's objects fail by design).

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Context;
use docsieve_actors::blob::{self, MasterKeys, MasterSource};
use docsieve_actors::store::Store;

use crate::config::Settings;
use crate::startup::{master_keys, open_blobs, store_settings};

#[derive(clap::Subcommand)]
pub enum KeysCommand {
    /// Re-wrap every tenant's data key under a new master key (no blob is rewritten).
    Rotate(RotateArgs),
    /// Open every stored blob; print what opened and what did not, as JSON.
    Verify,
}

#[derive(clap::Args)]
pub struct RotateArgs {
    /// A file holding the new master key (64 hex digits); generated when the key lives in a file.
    #[arg(long, value_name = "FILE")]
    new_key_file: Option<PathBuf>,
}

pub fn run(settings: &Settings, command: KeysCommand) -> ExitCode {
    let outcome = actix_web::rt::System::new().block_on(async {
        let store_settings = store_settings(settings);
        Store::migrate(&store_settings).await?;
        let store = Store::connect(&store_settings).await?;
        match command {
            KeysCommand::Rotate(args) => rotate(settings, &store, args).await,
            KeysCommand::Verify => verify(settings, &store).await,
        }
    });
    match outcome {
        Ok((report, success)) => {
            println!("{report}");
            if success {
                ExitCode::SUCCESS
            } else {
                ExitCode::FAILURE
            }
        }
        Err(error) => {
            eprintln!("docsieve keys: {error:#}");
            ExitCode::FAILURE
        }
    }
}

async fn rotate(
    settings: &Settings,
    store: &Store,
    args: RotateArgs,
) -> anyhow::Result<(serde_json::Value, bool)> {
    let old = master_keys(settings)?;
    if let Some(path) = args.new_key_file {
        let text = std::fs::read_to_string(&path)
            .with_context(|| format!("reading the new master key from {}", path.display()))?;
        let new = MasterKeys::parse(&text, MasterSource::File(path))?;
        let rotation = blob::rewrap_all(store, &old, &new).await?;
        let mut report = serde_json::to_value(&rotation)?;
        report["next"] =
            "point storage.master_key_file (or DOCSIEVE_MASTER_KEY) at the new key".into();
        return Ok((report, true));
    }
    let MasterSource::File(path) = old.source.clone() else {
        anyhow::bail!(
            "the master key comes from {}: give --new-key-file (a file with the new key, for \
             example from `openssl rand -hex 32`), then set the variable to the new key",
            blob::MASTER_KEY_ENV
        );
    };
    let fresh = blob::generate_master_key()?;
    // The new key first, the old ones after it: whatever happens next, every data key opens.
    let mut both = vec![fresh.clone()];
    both.extend(old.to_hex());
    blob::write_key_file(&path, &both)?;
    let new = MasterKeys::parse(&both.join("\n"), MasterSource::File(path.clone()))?;
    let mut rotation = blob::rewrap_all(store, &old, &new).await?;
    // A key a running server made meanwhile under the old key is re-wrapped by a second pass.
    rotation.rewrapped += blob::rewrap_all(store, &old, &new).await?.rewrapped;
    blob::write_key_file(&path, &[fresh])?;
    let mut report = serde_json::to_value(&rotation)?;
    report["key_file"] = path.display().to_string().into();
    Ok((report, true))
}

#[derive(Default, serde::Serialize)]
struct TenantBlobs {
    objects: u64,
    opened: u64,
    sealed: u64,
    failed: Vec<String>,
}

async fn verify(settings: &Settings, store: &Store) -> anyhow::Result<(serde_json::Value, bool)> {
    use futures_util::StreamExt;
    let blobs = open_blobs(settings, store)?;
    let mut tenants: BTreeMap<String, TenantBlobs> = BTreeMap::new();
    for (key, _) in blobs.list("tenants").await? {
        let tenant = key.split('/').nth(1).unwrap_or("?").to_string();
        let entry = tenants.entry(tenant).or_default();
        entry.objects += 1;
        if blobs.sealed_at_rest(&key).await.unwrap_or(false) {
            entry.sealed += 1;
        }
        let opened = async {
            let mut stream = blobs.stream(&key).await?;
            while let Some(chunk) = stream.next().await {
                chunk?;
            }
            Ok::<(), anyhow::Error>(())
        };
        match opened.await {
            Ok(()) => entry.opened += 1,
            Err(error) => entry.failed.push(format!("{key}: {error:#}")),
        }
    }
    let failed = tenants.values().map(|t| t.failed.len()).sum::<usize>();
    let report = serde_json::json!({
        "location": blobs.location(),
        "objects": tenants.values().map(|t| t.objects).sum::<u64>(),
        "opened": tenants.values().map(|t| t.opened).sum::<u64>(),
        "sealed": tenants.values().map(|t| t.sealed).sum::<u64>(),
        "failed": failed,
        "tenants": tenants,
    });
    Ok((report, failed == 0))
}

#[derive(clap::Subcommand)]
pub enum ReceiptsCommand {
    /// Check an erasure or closure receipt's signature offline: exit 0 when it holds.
    Verify(VerifyArgs),
}

#[derive(clap::Args)]
pub struct VerifyArgs {
    /// The receipt: the JSON the erasure answered (`receipt`, or the whole answer), or `-` for stdin.
    file: PathBuf,
    /// The server's public key, hex (`GET /v1/compliance/receipt-key`).
    #[arg(long, value_name = "HEX")]
    public_key: String,
}

/// `docsieve receipts verify`: offline, no configuration or database needed.
pub fn receipts(command: ReceiptsCommand) -> ExitCode {
    let ReceiptsCommand::Verify(args) = command;
    let text = if args.file.as_os_str() == "-" {
        let mut text = String::new();
        let _ = std::io::Read::read_to_string(&mut std::io::stdin(), &mut text);
        text
    } else {
        match std::fs::read_to_string(&args.file) {
            Ok(text) => text,
            Err(error) => {
                eprintln!(
                    "docsieve receipts: cannot read {}: {error}",
                    args.file.display()
                );
                return ExitCode::from(2);
            }
        }
    };
    let value: serde_json::Value = match serde_json::from_str(&text) {
        Ok(value) => value,
        Err(error) => {
            eprintln!("docsieve receipts: not JSON: {error}");
            return ExitCode::from(2);
        }
    };
    // The receipt itself, or an answer holding it (`{data: {receipt}}`, `{receipt}`).
    let candidate = [&value["data"]["receipt"], &value["receipt"], &value]
        .into_iter()
        .find(|v| v["signature"].is_string())
        .cloned()
        .unwrap_or_default();
    let Ok(receipt) = serde_json::from_value::<docsieve_actors::receipts::Receipt>(candidate)
    else {
        eprintln!(
            "docsieve receipts: no receipt ({{payload, signature, algorithm, key_id}}) in the file"
        );
        return ExitCode::from(2);
    };
    let Ok(public) = hex::decode(args.public_key.trim()) else {
        eprintln!("docsieve receipts: --public-key is not hex");
        return ExitCode::from(2);
    };
    if docsieve_actors::receipts::verify(&receipt, &public) {
        println!(
            "valid: signed by key {}",
            docsieve_actors::receipts::key_id(&public)
        );
        println!("{}", receipt.payload);
        ExitCode::SUCCESS
    } else {
        eprintln!("docsieve receipts: the signature does not hold: altered, or another key");
        ExitCode::FAILURE
    }
}
