//! Export files of datasets: one row per (dataset, format) written to blob storage, with the time the
//! retention cleanup may delete it.

use sea_orm_migration::prelude::*;

use crate::columns::*;

pub struct Migration;

impl MigrationName for Migration {
    fn name(&self) -> &str {
        "m20261122_000003_dataset_exports"
    }
}

#[async_trait::async_trait]
impl MigrationTrait for Migration {
    async fn up(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        manager
            .create_table(
                table_with_id("dataset_exports")
                    .col(big("tenant_id"))
                    .col(
                        ColumnDef::new(name("dataset_id"))
                            .string_len(64)
                            .not_null()
                            .to_owned(),
                    )
                    .col(string("format"))
                    .col(text("blob_key"))
                    .col(big("size_bytes"))
                    .col(timestamp("created_at"))
                    .col(timestamp("expires_at"))
                    .foreign_key(&mut cascade("dataset_exports", "tenant_id", "tenants"))
                    .foreign_key(&mut cascade("dataset_exports", "dataset_id", "datasets"))
                    .to_owned(),
            )
            .await?;
        manager
            .create_index(index("dataset_exports", &["dataset_id", "format"], true))
            .await?;
        manager
            .create_index(index("dataset_exports", &["expires_at"], false))
            .await
    }

    async fn down(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        manager
            .drop_table(
                Table::drop()
                    .table(name("dataset_exports"))
                    .if_exists()
                    .to_owned(),
            )
            .await
    }
}
