//! `dataset_exports`: one written export file per (dataset, format).

use sea_orm::entity::prelude::*;

#[derive(Clone, Debug, PartialEq, Eq, DeriveEntityModel)]
#[sea_orm(table_name = "dataset_exports")]
pub struct Model {
    #[sea_orm(primary_key)]
    pub id: i64,
    pub tenant_id: i64,
    pub dataset_id: String,
    pub format: String,
    pub blob_key: String,
    pub size_bytes: i64,
    pub created_at: DateTimeUtc,
    /// When the retention cleanup may delete the file (plan-dependent).
    pub expires_at: DateTimeUtc,
}

#[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)]
pub enum Relation {}

impl ActiveModelBehavior for ActiveModel {}
