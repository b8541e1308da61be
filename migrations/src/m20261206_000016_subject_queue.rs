//! The subject index's queue (issue 66): what each completed job found, as one row per job written with
//! its execution, until the index's own writer spreads it into `subject_index` rows (one per value)
//! and deletes it. Keeps those rows' random-keyed index updates out of the jobs' group commits, and
//! loses nothing across a crash: a row still queued is indexed at the next start.

use sea_orm_migration::prelude::*;

use crate::columns::*;

pub struct Migration;

impl MigrationName for Migration {
    fn name(&self) -> &str {
        "m20261206_000016_subject_queue"
    }
}

#[async_trait::async_trait]
impl MigrationTrait for Migration {
    async fn up(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        manager
            .create_table(
                table_with_id("subject_queue")
                    .col(big("tenant_id"))
                    .col(big("document_id"))
                    .col(string("job_id"))
                    .col(text("entries"))
                    .col(timestamp("created_at"))
                    .foreign_key(&mut cascade("subject_queue", "tenant_id", "tenants"))
                    .foreign_key(&mut cascade("subject_queue", "document_id", "documents"))
                    .to_owned(),
            )
            .await?;
        manager
            .create_index(index("subject_queue", &["document_id"], false))
            .await
    }

    async fn down(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        manager
            .drop_table(
                Table::drop()
                    .table(name("subject_queue"))
                    .if_exists()
                    .to_owned(),
            )
            .await
    }
}
