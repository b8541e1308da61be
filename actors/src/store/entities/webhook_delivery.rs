//! `webhook_deliveries`: the outbox. One row per (webhook, event); its attempts are `webhook_attempts`.

use sea_orm::entity::prelude::*;

#[derive(Clone, Debug, PartialEq, Eq, DeriveEntityModel)]
#[sea_orm(table_name = "webhook_deliveries")]
pub struct Model {
    #[sea_orm(primary_key)]
    pub id: i64,
    pub tenant_id: i64,
    pub webhook_id: i64,
    pub event: String,
    /// The exact JSON body sent.
    pub payload: String,
    /// `pending`, `sending`, `delivered` or `failed`.
    pub status: String,
    pub attempts: i32,
    /// When it is due (pending) or when a sender's claim lapses (sending).
    pub next_attempt_at: Option<DateTimeUtc>,
    pub last_status_code: Option<i32>,
    pub last_error: Option<String>,
    pub created_at: DateTimeUtc,
    pub updated_at: DateTimeUtc,
}

#[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)]
pub enum Relation {}

impl ActiveModelBehavior for ActiveModel {}
