//! `credit_ledger`.

use sea_orm::entity::prelude::*;

#[derive(Clone, Debug, PartialEq, Eq, DeriveEntityModel)]
#[sea_orm(table_name = "credit_ledger")]
pub struct Model {
    #[sea_orm(primary_key)]
    pub id: i64,
    pub tenant_id: i64,
    pub billing_period_id: Option<i64>,
    /// `grant`, `reserve`, `release`, `debit` or `expire` (see the store's billing module); reserve,
    /// debit and expire amounts are negative.
    pub entry_type: String,
    pub amount: i64,
    pub reference: Option<String>,
    pub created_at: DateTimeUtc,
}

#[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)]
pub enum Relation {}

impl ActiveModelBehavior for ActiveModel {}
