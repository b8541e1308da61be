//! Open-source metric snapshots: one row per source and fetch (a failed fetch keeps its error).

use sea_orm_migration::prelude::*;

use crate::columns::*;

pub struct Migration;

impl MigrationName for Migration {
    fn name(&self) -> &str {
        "m20261127_000008_oss_metrics"
    }
}

#[async_trait::async_trait]
impl MigrationTrait for Migration {
    async fn up(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        manager
            .create_table(
                table_with_id("oss_metric_snapshots")
                    .col(string("kind"))
                    .col(string("name"))
                    .col(big_null("downloads"))
                    .col(big_null("stars"))
                    .col(big_null("forks"))
                    .col(big_null("open_issues"))
                    .col(string_null("latest_version"))
                    .col(text_null("error"))
                    .col(timestamp("fetched_at"))
                    .to_owned(),
            )
            .await?;
        manager
            .create_index(index(
                "oss_metric_snapshots",
                &["kind", "name", "fetched_at"],
                false,
            ))
            .await
    }

    async fn down(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        manager
            .drop_table(
                Table::drop()
                    .table(name("oss_metric_snapshots"))
                    .if_exists()
                    .to_owned(),
            )
            .await
    }
}
