//! Audit entries: who did what, when, from where. Never raw personal data, file content or secrets.

use chrono::{DateTime, Utc};
use sea_orm::{EntityTrait, Set};

use super::entities::audit_entry;
use super::{Store, StoreError};

/// One audit entry to write.
#[derive(Clone, Debug)]
pub struct AuditRecord {
    pub tenant_id: Option<i64>,
    /// `user`, `api_key`, `anonymous` or `system`.
    pub actor_type: &'static str,
    pub actor_id: Option<String>,
    pub action: &'static str,
    pub target_type: Option<&'static str>,
    pub target_id: Option<String>,
    /// `success`, `failure` or `denied`.
    pub outcome: &'static str,
    pub ip: Option<String>,
    pub details: serde_json::Value,
}

impl Store {
    pub async fn record_audit(
        &self,
        record: AuditRecord,
        now: DateTime<Utc>,
    ) -> Result<(), StoreError> {
        // Written without reading the row back: on SQLite, sea-orm's `insert` follows the INSERT with a
        // SELECT of the new row, a second statement for an id nobody uses.
        audit_entry::Entity::insert(audit_entry::ActiveModel {
            tenant_id: Set(record.tenant_id),
            actor_type: Set(record.actor_type.to_string()),
            actor_id: Set(record.actor_id),
            action: Set(record.action.to_string()),
            target_type: Set(record.target_type.map(str::to_string)),
            target_id: Set(record.target_id),
            outcome: Set(record.outcome.to_string()),
            ip: Set(record.ip),
            details: Set(record.details.to_string()),
            created_at: Set(now),
            ..Default::default()
        })
        .exec_without_returning(self.connection())
        .await?;
        Ok(())
    }
}
