//! `webhooks`: a tenant's receiver of events.

use sea_orm::entity::prelude::*;

#[derive(Clone, Debug, PartialEq, Eq, DeriveEntityModel)]
#[sea_orm(table_name = "webhooks")]
pub struct Model {
    #[sea_orm(primary_key)]
    pub id: i64,
    pub tenant_id: i64,
    pub url: String,
    /// JSON array of event names.
    pub events: String,
    /// The signing secret, AES-256-GCM encrypted (never returned after creation).
    pub secret_encrypted: String,
    /// JSON `{connector_id, format, prefix?}` or null.
    pub auto_export: Option<String>,
    pub active: bool,
    pub created_at: DateTimeUtc,
}

#[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)]
pub enum Relation {}

impl ActiveModelBehavior for ActiveModel {}
