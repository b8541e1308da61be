//! `billing_periods`.

use sea_orm::entity::prelude::*;

#[derive(Clone, Debug, PartialEq, Eq, DeriveEntityModel)]
#[sea_orm(table_name = "billing_periods")]
pub struct Model {
    #[sea_orm(primary_key)]
    pub id: i64,
    pub tenant_id: i64,
    pub plan: String,
    pub status: String,
    pub starts_at: DateTimeUtc,
    pub ends_at: DateTimeUtc,
    pub credits_granted: i64,
    /// The sum of the period's ledger entries, kept with each of them.
    pub balance: i64,
    pub closed_at: Option<DateTimeUtc>,
    pub created_at: DateTimeUtc,
}

#[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)]
pub enum Relation {}

impl ActiveModelBehavior for ActiveModel {}
