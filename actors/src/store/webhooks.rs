//! Webhooks, their outbox (`webhook_deliveries`) and the attempt log. Deliveries are claimed like jobs:
//! one `UPDATE ... WHERE id = (SELECT ... FOR UPDATE SKIP LOCKED)` that marks the row `sending` until a
//! deadline; a sender that dies leaves the row due again once the deadline passes.

use chrono::{DateTime, Utc};
use sea_orm::{
    ActiveModelTrait, ColumnTrait, ConnectionTrait, EntityTrait, PaginatorTrait, QueryFilter,
    QueryOrder, QuerySelect, Set, TransactionTrait,
};

use super::entities::{webhook, webhook_attempt, webhook_delivery};
use super::processing::PageRequest;
use super::{Backend, Store, StoreError};

/// A delivery this sender now holds, with what it needs to send it.
#[derive(Clone, Debug)]
pub struct ClaimedDelivery {
    pub id: i64,
    pub tenant_id: i64,
    pub webhook_id: i64,
    pub event: String,
    pub payload: String,
    /// This attempt's number (1 for the first).
    pub attempt: i32,
    pub url: String,
    pub secret_encrypted: String,
    /// The webhook's `auto_export` (JSON), if it has one.
    pub auto_export: Option<String>,
}

/// How an attempt ended.
#[derive(Clone, Debug)]
pub struct AttemptRecord {
    pub status_code: Option<i32>,
    pub error: Option<String>,
    pub duration_ms: i64,
    /// `delivered`, `failed`, or `pending` again (with the time of the next try).
    pub next: AttemptNext,
}

#[derive(Clone, Debug)]
pub enum AttemptNext {
    Delivered,
    Failed,
    RetryAt(DateTime<Utc>),
}

/// A delivery with its attempts, for the log.
#[derive(Clone, Debug)]
pub struct DeliveryRecord {
    pub delivery: webhook_delivery::Model,
    pub attempts: Vec<webhook_attempt::Model>,
}

impl Store {
    pub async fn create_webhook(
        &self,
        tenant_id: i64,
        url: &str,
        events: &[String],
        secret_encrypted: &str,
        auto_export: Option<serde_json::Value>,
        now: DateTime<Utc>,
    ) -> Result<webhook::Model, StoreError> {
        Ok(webhook::ActiveModel {
            tenant_id: Set(tenant_id),
            url: Set(url.to_string()),
            events: Set(serde_json::to_string(events).unwrap_or_default()),
            secret_encrypted: Set(secret_encrypted.to_string()),
            auto_export: Set(auto_export.map(|v| v.to_string())),
            active: Set(true),
            created_at: Set(now),
            ..Default::default()
        }
        .insert(self.connection())
        .await?)
    }

    pub async fn webhooks_page(
        &self,
        tenant_id: i64,
        page: PageRequest,
    ) -> Result<(Vec<webhook::Model>, u64), StoreError> {
        let query = webhook::Entity::find().filter(webhook::Column::TenantId.eq(tenant_id));
        let total = query.clone().count(self.connection()).await?;
        let items = query
            .order_by_desc(webhook::Column::Id)
            .offset(page.offset)
            .limit(page.limit)
            .all(self.connection())
            .await?;
        Ok((items, total))
    }

    pub async fn webhook(
        &self,
        tenant_id: i64,
        webhook_id: i64,
    ) -> Result<Option<webhook::Model>, StoreError> {
        Ok(webhook::Entity::find_by_id(webhook_id)
            .filter(webhook::Column::TenantId.eq(tenant_id))
            .one(self.connection())
            .await?)
    }

    /// Deletes the webhook with its outbox rows and log; false when it does not exist.
    pub async fn delete_webhook(
        &self,
        tenant_id: i64,
        webhook_id: i64,
    ) -> Result<bool, StoreError> {
        let deleted = webhook::Entity::delete_many()
            .filter(webhook::Column::Id.eq(webhook_id))
            .filter(webhook::Column::TenantId.eq(tenant_id))
            .exec(self.connection())
            .await?;
        Ok(deleted.rows_affected == 1)
    }

    /// The webhook's deliveries, newest first, each with its attempts.
    pub async fn deliveries_page(
        &self,
        tenant_id: i64,
        webhook_id: i64,
        page: PageRequest,
    ) -> Result<(Vec<DeliveryRecord>, u64), StoreError> {
        let query = webhook_delivery::Entity::find()
            .filter(webhook_delivery::Column::TenantId.eq(tenant_id))
            .filter(webhook_delivery::Column::WebhookId.eq(webhook_id));
        let total = query.clone().count(self.connection()).await?;
        let deliveries = query
            .order_by_desc(webhook_delivery::Column::Id)
            .offset(page.offset)
            .limit(page.limit)
            .all(self.connection())
            .await?;
        let ids: Vec<i64> = deliveries.iter().map(|d| d.id).collect();
        let mut attempts = webhook_attempt::Entity::find()
            .filter(webhook_attempt::Column::DeliveryId.is_in(ids))
            .order_by_asc(webhook_attempt::Column::Id)
            .all(self.connection())
            .await?;
        Ok((
            deliveries
                .into_iter()
                .map(|delivery| {
                    let (mine, rest): (Vec<_>, Vec<_>) = std::mem::take(&mut attempts)
                        .into_iter()
                        .partition(|a| a.delivery_id == delivery.id);
                    attempts = rest;
                    DeliveryRecord {
                        delivery,
                        attempts: mine,
                    }
                })
                .collect(),
            total,
        ))
    }

    /// Queues the delivery's payload again as a new delivery; None when it does not exist.
    pub async fn redeliver(
        &self,
        tenant_id: i64,
        webhook_id: i64,
        delivery_id: i64,
        now: DateTime<Utc>,
    ) -> Result<Option<i64>, StoreError> {
        let Some(original) = webhook_delivery::Entity::find_by_id(delivery_id)
            .filter(webhook_delivery::Column::TenantId.eq(tenant_id))
            .filter(webhook_delivery::Column::WebhookId.eq(webhook_id))
            .one(self.connection())
            .await?
        else {
            return Ok(None);
        };
        let copy = webhook_delivery::ActiveModel {
            tenant_id: Set(tenant_id),
            webhook_id: Set(webhook_id),
            event: Set(original.event),
            payload: Set(original.payload),
            status: Set("pending".to_string()),
            attempts: Set(0),
            next_attempt_at: Set(Some(now)),
            last_status_code: Set(None),
            last_error: Set(None),
            created_at: Set(now),
            updated_at: Set(now),
            ..Default::default()
        }
        .insert(self.connection())
        .await?;
        Ok(Some(copy.id))
    }

    /// Claims the oldest due delivery whose webhook is not in `busy`, until `hold_until`.
    pub async fn claim_delivery(
        &self,
        now: DateTime<Utc>,
        hold_until: DateTime<Utc>,
        busy: &[i64],
    ) -> Result<Option<ClaimedDelivery>, StoreError> {
        let lock = match self.backend {
            Backend::Postgres => " FOR UPDATE SKIP LOCKED",
            Backend::Sqlite => "",
        };
        let busy_clause = if busy.is_empty() {
            String::new()
        } else {
            format!(
                " AND webhook_id NOT IN ({})",
                busy.iter()
                    .map(i64::to_string)
                    .collect::<Vec<_>>()
                    .join(", ")
            )
        };
        let due = format!(
            "FROM webhook_deliveries WHERE status IN ('pending', 'sending') AND next_attempt_at <= ?{busy_clause}"
        );
        // Polled every interval and usually with nothing due: a plain read first, so that an idle poll
        // does not take SQLite's write lock (an UPDATE takes it even when it matches no row) and make
        // the requests writing meanwhile wait on the busy handler.
        let probe = self
            .connection()
            .query_one(self.statement(&format!("SELECT id {due} LIMIT 1"), vec![now.into()]))
            .await?;
        if probe.is_none() {
            return Ok(None);
        }
        let sql = format!(
            "UPDATE webhook_deliveries SET status = 'sending', attempts = attempts + 1, next_attempt_at = ?, \
             updated_at = ? WHERE status IN ('pending', 'sending') AND id = (SELECT id {due} \
             ORDER BY next_attempt_at, id LIMIT 1{lock}) \
             RETURNING id, tenant_id, webhook_id, event, payload, attempts"
        );
        let txn = self.connection().begin().await?;
        let row = txn
            .query_one(self.statement(&sql, vec![hold_until.into(), now.into(), now.into()]))
            .await?;
        let Some(row) = row else {
            txn.commit().await?;
            return Ok(None);
        };
        let webhook_id: i64 = row.try_get("", "webhook_id")?;
        let hook = webhook::Entity::find_by_id(webhook_id).one(&txn).await?;
        txn.commit().await?;
        let Some(hook) = hook else {
            return Ok(None);
        };
        Ok(Some(ClaimedDelivery {
            id: row.try_get("", "id")?,
            tenant_id: row.try_get("", "tenant_id")?,
            webhook_id,
            event: row.try_get("", "event")?,
            payload: row.try_get("", "payload")?,
            attempt: row.try_get("", "attempts")?,
            url: hook.url,
            secret_encrypted: hook.secret_encrypted,
            auto_export: hook.auto_export,
        }))
    }

    /// Replaces a delivery's payload (with the outcome of its auto_export).
    pub async fn set_delivery_payload(
        &self,
        delivery_id: i64,
        payload: &str,
    ) -> Result<(), StoreError> {
        self.connection()
            .execute(self.statement(
                "UPDATE webhook_deliveries SET payload = ? WHERE id = ?",
                vec![payload.into(), delivery_id.into()],
            ))
            .await?;
        Ok(())
    }

    /// Logs the attempt and moves the delivery on (delivered, failed, or due again later).
    pub async fn record_attempt(
        &self,
        delivery: &ClaimedDelivery,
        record: AttemptRecord,
        now: DateTime<Utc>,
    ) -> Result<(), StoreError> {
        let txn = self.connection().begin().await?;
        webhook_attempt::ActiveModel {
            tenant_id: Set(delivery.tenant_id),
            delivery_id: Set(delivery.id),
            attempt: Set(delivery.attempt),
            status_code: Set(record.status_code),
            error: Set(record.error.clone()),
            duration_ms: Set(record.duration_ms),
            created_at: Set(now),
            ..Default::default()
        }
        .insert(&txn)
        .await?;
        let (status, next_at) = match record.next {
            AttemptNext::Delivered => ("delivered", None),
            AttemptNext::Failed => ("failed", None),
            AttemptNext::RetryAt(at) => ("pending", Some(at)),
        };
        txn.execute(self.statement(
            "UPDATE webhook_deliveries SET status = ?, next_attempt_at = ?, last_status_code = ?, \
             last_error = ?, updated_at = ? WHERE id = ?",
            vec![
                status.into(),
                next_at.into(),
                record.status_code.into(),
                record.error.into(),
                now.into(),
                delivery.id.into(),
            ],
        ))
        .await?;
        txn.commit().await?;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use sea_orm::ConnectionTrait;

    use crate::store::{Store, StoreSettings};

    async fn open(dir: &std::path::Path, connections: u32) -> Store {
        let settings = StoreSettings {
            max_connections: connections,
            busy_timeout: std::time::Duration::from_millis(300),
            ..StoreSettings::sqlite_in(dir)
        };
        Store::migrate(&settings).await.expect("migrate");
        Store::connect(&settings).await.expect("connect")
    }

    /// The job router's lease reaper and the webhook sender poll every second. With nothing to do they
    /// only read, so they neither wait for SQLite's write lock nor hold it: with another connection
    /// holding it, both answer at once instead of failing with "database is locked" after the busy
    /// timeout. (They used to open a write transaction on every poll, and each request writing at
    /// that moment waited on SQLite's busy handler.)
    #[tokio::test]
    async fn idle_polls_do_not_take_the_write_lock() {
        let dir = tempfile::tempdir().expect("temp dir");
        let store = open(dir.path(), 2).await;
        let writer = open(dir.path(), 1).await;
        writer
            .connection()
            .execute_unprepared("BEGIN IMMEDIATE")
            .await
            .expect("the other connection takes the write lock");
        let now = chrono::Utc::now();
        let reaped = store
            .reap_expired_leases(now, |_| None)
            .await
            .expect("an idle reap does not need the write lock");
        assert_eq!(reaped.requeued, 0);
        assert!(reaped.exhausted.is_empty());
        let claimed = store
            .claim_delivery(now, now + chrono::Duration::seconds(60), &[])
            .await
            .expect("an idle delivery poll does not need the write lock");
        assert!(claimed.is_none());
        // A write does wait for the lock, and fails once the busy timeout passes: the lock was held.
        let blocked = store
            .connection()
            .execute_unprepared("UPDATE jobs SET updated_at = updated_at")
            .await;
        assert!(blocked.is_err(), "the write lock was not held");
        writer
            .connection()
            .execute_unprepared("ROLLBACK")
            .await
            .expect("rollback");
    }
}
