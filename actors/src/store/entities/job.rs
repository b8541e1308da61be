//! `jobs`: the durable queue. A row is claimed with a lease by one worker at a time.

use sea_orm::entity::prelude::*;

#[derive(Clone, Debug, PartialEq, Eq, DeriveEntityModel)]
#[sea_orm(table_name = "jobs")]
pub struct Model {
    #[sea_orm(primary_key, auto_increment = false)]
    pub id: String,
    pub tenant_id: i64,
    /// `data_process` or `dataset_build`.
    pub job_type: String,
    /// `queued`, `running`, `completed` or `failed`.
    pub status: String,
    pub document_id: Option<i64>,
    pub dataset_id: Option<String>,
    pub execution_id: Option<i64>,
    /// JSON text: the job's options (`masked`, the requesting principal).
    pub payload: String,
    pub attempts: i32,
    pub max_attempts: i32,
    pub lease_owner: Option<String>,
    pub lease_expires_at: Option<DateTimeUtc>,
    pub error_code: Option<String>,
    pub error_message: Option<String>,
    pub created_at: DateTimeUtc,
    pub started_at: Option<DateTimeUtc>,
    pub finished_at: Option<DateTimeUtc>,
    pub updated_at: DateTimeUtc,
    /// `small` (a document claimed with others in a batch) or `large` (one job per slot).
    pub lane: String,
    /// When this job, the oldest waiting large one, began to hold a process's memory budget (the
    /// process claims nothing else until it fits); None: it never had to.
    pub reserved_at: Option<DateTimeUtc>,
}

#[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)]
pub enum Relation {}

impl ActiveModelBehavior for ActiveModel {}
