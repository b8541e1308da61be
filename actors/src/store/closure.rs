//! A tenant's closure: requested by its owner, due after a grace period (cancellable until then),
//! then purged; the signed receipt of the purge is kept (no foreign key: it outlives the tenant) for
//! whoever holds its token.

use chrono::{DateTime, Utc};
use sea_orm::{ConnectionTrait, TransactionTrait};

use super::{Store, StoreError};

/// A closure's receipt as kept: due, then issued.
#[derive(Clone, Debug)]
pub struct ClosureRecord {
    pub id: String,
    pub tenant_id: i64,
    pub token_digest: String,
    pub due_at: DateTime<Utc>,
    pub issued_at: Option<DateTime<Utc>>,
    pub receipt: Option<String>,
}

/// How much a tenant held when it was purged.
#[derive(Clone, Debug, Default, serde::Serialize)]
pub struct TenantCounts {
    pub users: i64,
    pub documents: i64,
    pub executions: i64,
    pub datasets: i64,
    pub fine_tune_jobs: i64,
    pub webhooks: i64,
    pub connectors: i64,
}

impl Store {
    /// Schedules the tenant's closure at `due_at` (a new request replaces a pending one).
    pub async fn request_closure(
        &self,
        tenant_id: i64,
        receipt_id: &str,
        token_digest: &str,
        due_at: DateTime<Utc>,
        now: DateTime<Utc>,
    ) -> Result<(), StoreError> {
        let transaction = self.connection().begin().await?;
        transaction
            .execute(self.statement(
                "UPDATE tenants SET closure_due_at = ? WHERE id = ?",
                vec![due_at.into(), tenant_id.into()],
            ))
            .await?;
        self.drop_pending_receipt(&transaction, tenant_id).await?;
        transaction
            .execute(self.statement(
                "INSERT INTO closure_receipts (id, tenant_id, token_digest, due_at, created_at) \
                 VALUES (?, ?, ?, ?, ?)",
                vec![
                    receipt_id.into(),
                    tenant_id.into(),
                    token_digest.into(),
                    due_at.into(),
                    now.into(),
                ],
            ))
            .await?;
        transaction.commit().await?;
        Ok(())
    }

    async fn drop_pending_receipt<C: ConnectionTrait>(
        &self,
        connection: &C,
        tenant_id: i64,
    ) -> Result<(), StoreError> {
        connection
            .execute(self.statement(
                "DELETE FROM closure_receipts WHERE tenant_id = ? AND issued_at IS NULL",
                vec![tenant_id.into()],
            ))
            .await?;
        Ok(())
    }

    /// Cancels a pending closure; false when none was pending.
    pub async fn cancel_closure(&self, tenant_id: i64) -> Result<bool, StoreError> {
        let transaction = self.connection().begin().await?;
        let updated = transaction
            .execute(self.statement(
                "UPDATE tenants SET closure_due_at = NULL WHERE id = ? AND closure_due_at IS NOT NULL",
                vec![tenant_id.into()],
            ))
            .await?;
        self.drop_pending_receipt(&transaction, tenant_id).await?;
        transaction.commit().await?;
        Ok(updated.rows_affected() == 1)
    }

    /// When the tenant's pending closure is due (None: none pending).
    pub async fn closure_due(&self, tenant_id: i64) -> Result<Option<DateTime<Utc>>, StoreError> {
        let row = self
            .connection()
            .query_one(self.statement(
                "SELECT closure_due_at FROM tenants WHERE id = ?",
                vec![tenant_id.into()],
            ))
            .await?;
        Ok(match row {
            Some(row) => row.try_get("", "closure_due_at")?,
            None => None,
        })
    }

    /// The tenants whose closure is due at `now`, with their pending receipt's id.
    pub async fn closures_due(&self, now: DateTime<Utc>) -> Result<Vec<(i64, String)>, StoreError> {
        let rows = self
            .connection()
            .query_all(self.statement(
                "SELECT t.id AS tenant_id, r.id AS receipt_id FROM tenants t \
                 JOIN closure_receipts r ON r.tenant_id = t.id AND r.issued_at IS NULL \
                 WHERE t.closure_due_at IS NOT NULL AND t.closure_due_at <= ? ORDER BY t.id",
                vec![now.into()],
            ))
            .await?;
        rows.into_iter()
            .map(|row| {
                Ok((
                    row.try_get("", "tenant_id")?,
                    row.try_get("", "receipt_id")?,
                ))
            })
            .collect()
    }

    /// What the tenant holds, counted.
    pub async fn tenant_counts(&self, tenant_id: i64) -> Result<TenantCounts, StoreError> {
        let mut counts = TenantCounts::default();
        for (table, slot) in [
            ("users", &mut counts.users),
            ("documents", &mut counts.documents),
            ("executions", &mut counts.executions),
            ("datasets", &mut counts.datasets),
            ("fine_tune_jobs", &mut counts.fine_tune_jobs),
            ("webhooks", &mut counts.webhooks),
            ("connectors", &mut counts.connectors),
        ] {
            let row = self
                .connection()
                .query_one(self.statement(
                    &format!("SELECT COUNT(*) AS n FROM {table} WHERE tenant_id = ?"),
                    vec![tenant_id.into()],
                ))
                .await?;
            *slot = row
                .map(|row| row.try_get::<i64>("", "n"))
                .transpose()?
                .unwrap_or(0);
        }
        Ok(counts)
    }

    /// Deletes the tenant and every row that belongs to it (their foreign keys cascade), and keeps
    /// the signed receipt of it.
    pub async fn purge_tenant(
        &self,
        tenant_id: i64,
        receipt_id: &str,
        receipt: &str,
        now: DateTime<Utc>,
    ) -> Result<(), StoreError> {
        let transaction = self.connection().begin().await?;
        transaction
            .execute(self.statement(
                "UPDATE closure_receipts SET issued_at = ?, receipt = ? WHERE id = ?",
                vec![now.into(), receipt.into(), receipt_id.into()],
            ))
            .await?;
        transaction
            .execute(self.statement("DELETE FROM tenants WHERE id = ?", vec![tenant_id.into()]))
            .await?;
        transaction.commit().await?;
        Ok(())
    }

    /// A closure's receipt record.
    pub async fn closure_receipt(&self, id: &str) -> Result<Option<ClosureRecord>, StoreError> {
        let row = self
            .connection()
            .query_one(self.statement(
                "SELECT id, tenant_id, token_digest, due_at, issued_at, receipt FROM closure_receipts WHERE id = ?",
                vec![id.into()],
            ))
            .await?;
        row.map(|row| {
            Ok(ClosureRecord {
                id: row.try_get("", "id")?,
                tenant_id: row.try_get("", "tenant_id")?,
                token_digest: row.try_get("", "token_digest")?,
                due_at: row.try_get("", "due_at")?,
                issued_at: row.try_get("", "issued_at")?,
                receipt: row.try_get("", "receipt")?,
            })
        })
        .transpose()
    }
}
