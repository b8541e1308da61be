//! Connector syncs: the ETag of a document fetched from a connector, the firing a schedule last ran
//! for (claimed with a compare-and-set, so one process of many runs it), each sync's record, and the
//! objects syncs have taken (one row per connector, key and ETag: a second sync skips them, a changed
//! object is taken again).

use sea_orm_migration::prelude::*;

use crate::columns::*;

pub struct Migration;

impl MigrationName for Migration {
    fn name(&self) -> &str {
        "m20261127_000007_connectors"
    }
}

#[async_trait::async_trait]
impl MigrationTrait for Migration {
    async fn up(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        manager
            .alter_table(
                Table::alter()
                    .table(name("documents"))
                    .add_column(string_null("source_etag"))
                    .to_owned(),
            )
            .await?;
        manager
            .alter_table(
                Table::alter()
                    .table(name("schedules"))
                    .add_column(timestamp_null("last_due_at"))
                    .to_owned(),
            )
            .await?;
        manager
            .create_table(
                table_with_id("sync_runs")
                    .col(big("tenant_id"))
                    .col(big("connector_id"))
                    .col(big_null("schedule_id"))
                    .col(string("trigger"))
                    .col(string("status"))
                    .col(text_null("prefix"))
                    .col(big_default("listed", 0))
                    .col(big_default("queued", 0))
                    .col(big_default("skipped", 0))
                    .col(big_default("rejected", 0))
                    .col(text("job_ids"))
                    .col(string_null("error_code"))
                    .col(text_null("error_message"))
                    .col(timestamp("started_at"))
                    .col(timestamp_null("finished_at"))
                    .foreign_key(&mut cascade("sync_runs", "tenant_id", "tenants"))
                    .foreign_key(&mut cascade("sync_runs", "connector_id", "connectors"))
                    .foreign_key(&mut cascade("sync_runs", "schedule_id", "schedules"))
                    .to_owned(),
            )
            .await?;
        manager
            .create_index(index("sync_runs", &["schedule_id", "started_at"], false))
            .await?;
        manager
            .create_table(
                table_with_id("connector_objects")
                    .col(big("tenant_id"))
                    .col(big("connector_id"))
                    .col(text("object_key"))
                    .col(string("etag"))
                    .col(big("size_bytes"))
                    .col(string("status"))
                    .col(big_null("document_id"))
                    .col(string_null("job_id"))
                    .col(big_null("sync_run_id"))
                    .col(timestamp("created_at"))
                    .foreign_key(&mut cascade("connector_objects", "tenant_id", "tenants"))
                    .foreign_key(&mut cascade(
                        "connector_objects",
                        "connector_id",
                        "connectors",
                    ))
                    .to_owned(),
            )
            .await?;
        manager
            .create_index(index(
                "connector_objects",
                &["connector_id", "object_key", "etag"],
                true,
            ))
            .await
    }

    async fn down(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        for table in ["connector_objects", "sync_runs"] {
            manager
                .drop_table(Table::drop().table(name(table)).if_exists().to_owned())
                .await?;
        }
        Ok(())
    }
}
