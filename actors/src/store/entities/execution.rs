//! `executions`: one processing run of one document.

use sea_orm::entity::prelude::*;

#[derive(Clone, Debug, PartialEq, Eq, DeriveEntityModel)]
#[sea_orm(table_name = "executions")]
pub struct Model {
    #[sea_orm(primary_key)]
    pub id: i64,
    pub tenant_id: i64,
    pub document_id: i64,
    pub job_id: Option<String>,
    pub status: String,
    pub masked: bool,
    pub started_at: DateTimeUtc,
    pub finished_at: Option<DateTimeUtc>,
    pub duration_ms: Option<i64>,
    pub result_blob_key: Option<String>,
    /// JSON text: `pii_type_summary`, `pii_count`, `quality`, `cross_validation`, engine versions.
    pub result_meta: String,
    /// What the run read from its document beyond counts (`filename`, `fields`): sealed JSON (see
    /// `store::Sealed`); null once the result is destroyed.
    pub sealed_meta: Option<String>,
    pub cross_validation_flag: bool,
    pub created_at: DateTimeUtc,
    /// When the destruction run deleted the stored result (its retention ended); the record stays.
    pub result_destroyed_at: Option<DateTimeUtc>,
}

#[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)]
pub enum Relation {}

impl ActiveModelBehavior for ActiveModel {}
