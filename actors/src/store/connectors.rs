//! Storage connectors of a tenant: their type, name, public configuration (JSON) and their secrets,
//! sealed by the caller before they get here (the store never sees a secret in clear).

use chrono::{DateTime, Utc};
use sea_orm::{ConnectionTrait, QueryResult};

use super::{PageRequest, Store, StoreError};

/// One connector as stored.
#[derive(Clone, Debug)]
pub struct ConnectorRecord {
    pub id: i64,
    pub tenant_id: i64,
    pub connector_type: String,
    pub name: String,
    /// The configuration without its secrets.
    pub config_public: serde_json::Value,
    /// The secrets, sealed (AES-256-GCM).
    pub config_secret_encrypted: String,
    pub created_at: DateTime<Utc>,
    pub updated_at: DateTime<Utc>,
}

const COLUMNS: &str =
    "id, tenant_id, connector_type, name, config_public, config_secret_encrypted, created_at, updated_at";

fn record_from(row: &QueryResult) -> Result<ConnectorRecord, StoreError> {
    let public: String = row.try_get("", "config_public")?;
    Ok(ConnectorRecord {
        id: row.try_get("", "id")?,
        tenant_id: row.try_get("", "tenant_id")?,
        connector_type: row.try_get("", "connector_type")?,
        name: row.try_get("", "name")?,
        config_public: serde_json::from_str(&public).unwrap_or_default(),
        config_secret_encrypted: row.try_get("", "config_secret_encrypted")?,
        created_at: row.try_get("", "created_at")?,
        updated_at: row.try_get("", "updated_at")?,
    })
}

impl Store {
    pub async fn create_connector(
        &self,
        tenant_id: i64,
        connector_type: &str,
        name: &str,
        config_public: &serde_json::Value,
        config_secret_encrypted: &str,
        now: DateTime<Utc>,
    ) -> Result<ConnectorRecord, StoreError> {
        let row = self
            .connection()
            .query_one(self.statement(
                &format!(
                    "INSERT INTO connectors (tenant_id, connector_type, name, config_public, config_secret_encrypted, \
                     created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?) RETURNING {COLUMNS}"
                ),
                vec![
                    tenant_id.into(),
                    connector_type.into(),
                    name.into(),
                    config_public.to_string().into(),
                    config_secret_encrypted.into(),
                    now.into(),
                    now.into(),
                ],
            ))
            .await?
            .ok_or_else(|| StoreError::Database(sea_orm::DbErr::RecordNotInserted))?;
        record_from(&row)
    }

    pub async fn connector(
        &self,
        tenant_id: i64,
        connector_id: i64,
    ) -> Result<Option<ConnectorRecord>, StoreError> {
        self.connection()
            .query_one(self.statement(
                &format!("SELECT {COLUMNS} FROM connectors WHERE id = ? AND tenant_id = ?"),
                vec![connector_id.into(), tenant_id.into()],
            ))
            .await?
            .as_ref()
            .map(record_from)
            .transpose()
    }

    pub async fn connectors_page(
        &self,
        tenant_id: i64,
        page: PageRequest,
    ) -> Result<(Vec<ConnectorRecord>, u64), StoreError> {
        self.tenant_page(
            ("connectors", COLUMNS, "id DESC"),
            tenant_id,
            page,
            record_from,
        )
        .await
    }

    /// Deletes the connector (its schedules go with it; documents it brought stay, without it); false
    /// when it does not exist.
    pub async fn delete_connector(
        &self,
        tenant_id: i64,
        connector_id: i64,
    ) -> Result<bool, StoreError> {
        let deleted = self
            .connection()
            .execute(self.statement(
                "DELETE FROM connectors WHERE id = ? AND tenant_id = ?",
                vec![connector_id.into(), tenant_id.into()],
            ))
            .await?;
        Ok(deleted.rows_affected() == 1)
    }
}
