//! `jobs.reserved_at`: when the oldest waiting large job, whose memory estimate did not fit what the
//! running jobs left of a process's budget, began to hold that budget (issue 84): from then on that
//! process claims nothing else until the job fits, so small jobs cannot keep it waiting forever. Its
//! status shows the time and the latest start that follows from it.

use sea_orm_migration::prelude::*;

use crate::columns::*;

pub struct Migration;

impl MigrationName for Migration {
    fn name(&self) -> &str {
        "m20261207_000018_job_reservation"
    }
}

#[async_trait::async_trait]
impl MigrationTrait for Migration {
    async fn up(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        add_column(manager, "jobs", timestamp_null("reserved_at")).await?;
        // The oldest queued large job over every tenant, looked up on each claim round: one seek.
        manager
            .create_index(index("jobs", &["status", "lane", "created_at"], false))
            .await
    }

    async fn down(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        manager
            .drop_index(
                Index::drop()
                    .name("ix_jobs_status_lane_created_at")
                    .table(name("jobs"))
                    .to_owned(),
            )
            .await?;
        drop_column(manager, "jobs", "reserved_at").await
    }
}
