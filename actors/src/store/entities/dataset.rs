//! `datasets`: a set of executions turned into rows, exported on demand.

use sea_orm::entity::prelude::*;

#[derive(Clone, Debug, PartialEq, Eq, DeriveEntityModel)]
#[sea_orm(table_name = "datasets")]
pub struct Model {
    #[sea_orm(primary_key, auto_increment = false)]
    pub id: String,
    pub tenant_id: i64,
    pub name: String,
    /// `queued`, `building`, `ready` or `failed`.
    pub status: String,
    pub job_id: Option<String>,
    /// JSON array of execution ids, in the order given.
    pub execution_ids: String,
    pub row_count: i64,
    /// JSON: the row schema and the canonical rows' blob key once built.
    pub schema_json: Option<String>,
    pub error_message: Option<String>,
    pub created_at: DateTimeUtc,
    pub finished_at: Option<DateTimeUtc>,
    /// 1 when created; one more each time a data-subject erasure rebuilt it without erased rows.
    pub version: i64,
}

#[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)]
pub enum Relation {}

impl ActiveModelBehavior for ActiveModel {}
