//! A tenant's closure, once its grace period is over: its data key is destroyed first
//! (crypto-shredding: every copy of its blobs, backups included, becomes unreadable), then its
//! blobs and its rows are deleted, and a receipt signed with the server's key is kept for whoever
//! holds the closure's token. The destruction log and the shredded key's record stay.

use chrono::{DateTime, Utc};
use serde_json::json;

use crate::blob::Blobs;
use crate::receipts::ReceiptSigner;
use crate::store::Store;

/// Purges every tenant whose closure is due at `now`; how many.
pub async fn purge_due(
    store: &Store,
    blobs: &Blobs,
    signer: &ReceiptSigner,
    now: DateTime<Utc>,
) -> Result<u64, String> {
    let due = store.closures_due(now).await.map_err(|e| e.to_string())?;
    let mut purged = 0;
    for (tenant_id, receipt_id) in due {
        purge(store, blobs, signer, tenant_id, &receipt_id, now).await?;
        purged += 1;
        store.scrub_freed().await.map_err(|e| e.to_string())?;
        tracing::warn!(
            tenant_id,
            receipt_id,
            "tenant closed: key shredded, blobs and rows deleted"
        );
    }
    Ok(purged)
}

async fn purge(
    store: &Store,
    blobs: &Blobs,
    signer: &ReceiptSigner,
    tenant_id: i64,
    receipt_id: &str,
    now: DateTime<Utc>,
) -> Result<(), String> {
    let counts = store
        .tenant_counts(tenant_id)
        .await
        .map_err(|e| e.to_string())?;
    // The key first: whatever happens next, nothing of the tenant opens any more.
    match blobs.key_ring() {
        Some(ring) => ring.shred(tenant_id).await.map_err(|e| e.to_string())?,
        None => store
            .shred_data_key(tenant_id, now)
            .await
            .map_err(|e| e.to_string())?,
    }
    let objects = blobs
        .list(&format!("tenants/{tenant_id}"))
        .await
        .map_err(|e| e.to_string())?;
    let bytes: u64 = objects.iter().map(|(_, size)| size).sum();
    for (key, _) in &objects {
        blobs.delete(key).await.map_err(|e| e.to_string())?;
    }
    let payload = json!({
        "receipt_id": receipt_id,
        "kind": "tenant_closure",
        "tenant_id": tenant_id,
        "issued_at": crate::clock::rfc3339(now),
        "erased": counts,
        "blobs_deleted": objects.len(),
        "blob_bytes_deleted": bytes,
        "data_key": "destroyed before anything else (crypto-shredding): copies of the tenant's blobs, backups included, cannot be opened",
        "kept": "the destruction log (KVKK's record, at least three years) and the record that the data key was destroyed",
    });
    let receipt = signer.sign(&payload);
    let text = serde_json::to_string(&receipt).map_err(|e| e.to_string())?;
    store
        .purge_tenant(tenant_id, receipt_id, &text, now)
        .await
        .map_err(|e| e.to_string())
}
