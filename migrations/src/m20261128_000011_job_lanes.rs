//! The job engine in batches: each job belongs to a lane (`small`: a document of at most
//! `jobs.small_max_bytes` in a format that is never read by OCR, claimed by the batch; `large`: everything else, one job at a time), the
//! claim index covers the lane, and an execution names its job at most once (a second completion of
//! one job is impossible at the database level, whatever a worker believes about its lease).

use sea_orm_migration::prelude::*;

use crate::columns::*;

pub struct Migration;

impl MigrationName for Migration {
    fn name(&self) -> &str {
        "m20261128_000011_job_lanes"
    }
}

/// The size up to which a queued document job already waiting is put in the small lane (the
/// default of `jobs.small_max_bytes`; new jobs are sorted by the setting in force).
const SMALL_MAX_BYTES: i64 = 64 * 1024;

#[async_trait::async_trait]
impl MigrationTrait for Migration {
    async fn up(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        manager
            .alter_table(
                Table::alter()
                    .table(name("jobs"))
                    .add_column(string("lane").default("large"))
                    .to_owned(),
            )
            .await?;
        manager
            .get_connection()
            .execute_unprepared(&format!(
                "UPDATE jobs SET lane = 'small' WHERE status = 'queued' AND job_type = 'data_process' \
                 AND document_id IN (SELECT id FROM documents WHERE size_bytes <= {SMALL_MAX_BYTES} \
                 AND format NOT IN ('pdf', 'tiff', 'png', 'jpeg'))"
            ))
            .await?;
        manager
            .create_index(index(
                "jobs",
                &["status", "tenant_id", "lane", "created_at", "id"],
                false,
            ))
            .await?;
        manager
            .create_index(index("executions", &["job_id"], true))
            .await
    }

    async fn down(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        for (table, index) in [
            ("executions", "ix_executions_job_id"),
            ("jobs", "ix_jobs_status_tenant_id_lane_created_at_id"),
        ] {
            manager
                .drop_index(
                    Index::drop()
                        .name(index)
                        .table(name(table))
                        .if_exists()
                        .to_owned(),
                )
                .await?;
        }
        manager
            .alter_table(
                Table::alter()
                    .table(name("jobs"))
                    .drop_column(name("lane"))
                    .to_owned(),
            )
            .await
    }
}
