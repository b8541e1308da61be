//! What a tenant's record of processing is made of: the personal data its executions found, and
//! where its data goes (webhooks, connectors, fine-tuning).

use std::collections::BTreeMap;

use chrono::{DateTime, Utc};
use sea_orm::ConnectionTrait;

use super::{Store, StoreError};

/// One type of personal data found in the tenant's documents.
#[derive(Clone, Debug, serde::Serialize)]
pub struct PiiCategory {
    #[serde(rename = "type")]
    pub pii_type: String,
    /// Values found (and masked when the execution was masked).
    pub count: u64,
    /// Executions that found at least one.
    pub executions: u64,
    pub first_seen: DateTime<Utc>,
    pub last_seen: DateTime<Utc>,
}

/// Where the tenant's data goes, as stored.
#[derive(Clone, Debug, Default)]
pub struct Destinations {
    pub webhook_urls: Vec<String>,
    /// (type, public configuration) of each connector.
    pub connectors: Vec<(String, serde_json::Value)>,
    pub fine_tune_jobs: u64,
}

impl Store {
    /// The personal data types the tenant's completed executions found, by type; read a page of rows
    /// at a time, so memory holds one page and the per-type totals.
    pub async fn pii_categories(&self, tenant_id: i64) -> Result<Vec<PiiCategory>, StoreError> {
        const PAGE: u64 = 1000;
        let mut categories: BTreeMap<String, PiiCategory> = BTreeMap::new();
        let mut offset = 0;
        loop {
            let rows = self
                .connection()
                .query_all(self.statement(
                    "SELECT result_meta, created_at FROM executions WHERE tenant_id = ? AND status = 'completed' \
                     ORDER BY id LIMIT ? OFFSET ?",
                    vec![tenant_id.into(), (PAGE as i64).into(), (offset as i64).into()],
                ))
                .await?;
            let count = rows.len() as u64;
            for row in rows {
                let meta: String = row.try_get("", "result_meta")?;
                let at: DateTime<Utc> = row.try_get("", "created_at")?;
                let meta: serde_json::Value = serde_json::from_str(&meta).unwrap_or_default();
                let Some(summary) = meta["pii_type_summary"].as_object() else {
                    continue;
                };
                for (pii_type, count) in summary {
                    let count = count.as_u64().unwrap_or(0);
                    if count == 0 {
                        continue;
                    }
                    let entry = categories
                        .entry(pii_type.clone())
                        .or_insert_with(|| PiiCategory {
                            pii_type: pii_type.clone(),
                            count: 0,
                            executions: 0,
                            first_seen: at,
                            last_seen: at,
                        });
                    entry.count += count;
                    entry.executions += 1;
                    entry.first_seen = entry.first_seen.min(at);
                    entry.last_seen = entry.last_seen.max(at);
                }
            }
            if count < PAGE {
                return Ok(categories.into_values().collect());
            }
            offset += PAGE;
        }
    }

    /// The tenant's webhooks, connectors and fine-tune jobs, for its list of recipients.
    pub async fn destinations(&self, tenant_id: i64) -> Result<Destinations, StoreError> {
        let connection = self.connection();
        let webhook_urls = connection
            .query_all(self.statement(
                "SELECT url FROM webhooks WHERE tenant_id = ? ORDER BY id",
                vec![tenant_id.into()],
            ))
            .await?
            .iter()
            .map(|row| row.try_get::<String>("", "url"))
            .collect::<Result<Vec<_>, _>>()?;
        let connectors = connection
            .query_all(self.statement(
                "SELECT connector_type, config_public FROM connectors WHERE tenant_id = ? ORDER BY id",
                vec![tenant_id.into()],
            ))
            .await?
            .iter()
            .map(|row| {
                let kind: String = row.try_get("", "connector_type")?;
                let config: String = row.try_get("", "config_public")?;
                Ok((kind, serde_json::from_str(&config).unwrap_or_default()))
            })
            .collect::<Result<Vec<_>, sea_orm::DbErr>>()?;
        let fine_tune_jobs: i64 = connection
            .query_one(self.statement(
                "SELECT COUNT(*) AS n FROM fine_tune_jobs WHERE tenant_id = ?",
                vec![tenant_id.into()],
            ))
            .await?
            .map(|row| row.try_get("", "n"))
            .transpose()?
            .unwrap_or(0);
        Ok(Destinations {
            webhook_urls,
            connectors,
            fine_tune_jobs: fine_tune_jobs.max(0) as u64,
        })
    }

    /// One page of a tenant's rows of `table` as JSON objects (every column as the backend types it,
    /// ordered by the first, the id where there is one), `limit` rows from `offset`, without the
    /// columns that hold secrets or their digests. The tenant data export reads each table this way.
    pub async fn tenant_rows(
        &self,
        table: TenantTable,
        tenant_id: i64,
        limit: u64,
        offset: u64,
    ) -> Result<Vec<serde_json::Value>, StoreError> {
        let (name, condition) = table.sql();
        let params = vec![tenant_id.into(); condition.matches('?').count()];
        let mut rows = self
            .rows_json(name, condition, params, limit, offset)
            .await?;
        for row in &mut rows {
            if let Some(object) = row.as_object_mut() {
                for column in HIDDEN {
                    object.remove(*column);
                }
            }
        }
        Ok(rows)
    }

    /// One page of the open-source metric snapshots fetched since `since`, oldest id first.
    pub async fn oss_snapshots_since(
        &self,
        since: DateTime<Utc>,
        limit: u64,
        offset: u64,
    ) -> Result<Vec<serde_json::Value>, StoreError> {
        self.rows_json(
            "oss_metric_snapshots",
            "fetched_at >= ?",
            vec![since.into()],
            limit,
            offset,
        )
        .await
    }

    /// `SELECT * FROM {table} WHERE {condition} ORDER BY 1 LIMIT ? OFFSET ?` with `params`.
    async fn rows_json(
        &self,
        table: &str,
        condition: &str,
        params: Vec<sea_orm::Value>,
        limit: u64,
        offset: u64,
    ) -> Result<Vec<serde_json::Value>, StoreError> {
        use sea_orm::FromQueryResult;
        let mut values = params;
        values.push((limit as i64).into());
        values.push((offset as i64).into());
        Ok(sea_orm::JsonValue::find_by_statement(self.statement(
            &format!("SELECT * FROM {table} WHERE {condition} ORDER BY 1 LIMIT ? OFFSET ?"),
            values,
        ))
        .all(self.connection())
        .await?)
    }

    /// Stores one open-source metric snapshot.
    pub async fn record_oss_snapshot(
        &self,
        (kind, name): (&str, &str),
        (downloads, stars, forks, open_issues): (
            Option<i64>,
            Option<i64>,
            Option<i64>,
            Option<i64>,
        ),
        latest_version: Option<&str>,
        error: Option<&str>,
        fetched_at: DateTime<Utc>,
    ) -> Result<(), StoreError> {
        self.connection()
            .execute(self.statement(
                "INSERT INTO oss_metric_snapshots (kind, name, downloads, stars, forks, open_issues, \
                 latest_version, error, fetched_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                vec![
                    kind.into(),
                    name.into(),
                    downloads.into(),
                    stars.into(),
                    forks.into(),
                    open_issues.into(),
                    latest_version.map(str::to_string).into(),
                    error.map(str::to_string).into(),
                    fetched_at.into(),
                ],
            ))
            .await?;
        Ok(())
    }
}

/// Columns never handed out with a tenant's rows: secrets and their digests.
const HIDDEN: &[&str] = &[
    "password_hash",
    "key_hash",
    "token_hash",
    "secret_encrypted",
    "config_secret_encrypted",
];

/// The tables of a tenant's data export.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TenantTable {
    Tenant,
    /// The tenant's own users and those who are members of it.
    Users,
    Memberships,
    Workspaces,
    Invitations,
    ApiKeys,
    Documents,
    Executions,
    Datasets,
    Webhooks,
    WebhookDeliveries,
    Connectors,
    Schedules,
    BillingPeriods,
    CreditLedger,
    TenantUsage,
    AuditEntries,
    /// Every version of the privacy policy (the pseudonym key is never exported).
    PrivacyPolicies,
}

impl TenantTable {
    /// The table's name, and the condition (each `?` the tenant's id) that finds the tenant's rows.
    fn sql(self) -> (&'static str, &'static str) {
        const OWN: &str = "tenant_id = ?";
        match self {
            TenantTable::Tenant => ("tenants", "id = ?"),
            TenantTable::Users => (
                "users",
                "tenant_id = ? OR id IN (SELECT user_id FROM memberships WHERE tenant_id = ?)",
            ),
            TenantTable::Memberships => ("memberships", OWN),
            TenantTable::Workspaces => ("workspaces", OWN),
            TenantTable::Invitations => ("invitations", OWN),
            TenantTable::ApiKeys => ("api_keys", OWN),
            TenantTable::Documents => ("documents", OWN),
            TenantTable::Executions => ("executions", OWN),
            TenantTable::Datasets => ("datasets", OWN),
            TenantTable::Webhooks => ("webhooks", OWN),
            TenantTable::WebhookDeliveries => ("webhook_deliveries", OWN),
            TenantTable::Connectors => ("connectors", OWN),
            TenantTable::Schedules => ("schedules", OWN),
            TenantTable::BillingPeriods => ("billing_periods", OWN),
            TenantTable::CreditLedger => ("credit_ledger", OWN),
            TenantTable::TenantUsage => ("tenant_usage", OWN),
            TenantTable::AuditEntries => ("audit_entries", OWN),
            TenantTable::PrivacyPolicies => ("privacy_policies", OWN),
        }
    }

    /// The table's name, for messages.
    pub fn name(self) -> &'static str {
        self.sql().0
    }
}
