//! Running usage totals per tenant (documents, pages, bytes processed).

use sea_orm_migration::prelude::*;

use crate::columns::*;

pub struct Migration;

impl MigrationName for Migration {
    fn name(&self) -> &str {
        "m20261122_000002_tenant_usage"
    }
}

#[async_trait::async_trait]
impl MigrationTrait for Migration {
    async fn up(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        manager
            .create_table(
                Table::create()
                    .table(name("tenant_usage"))
                    .if_not_exists()
                    .col(big("tenant_id").primary_key().to_owned())
                    .col(big_default("documents_processed", 0))
                    .col(big_default("pages_processed", 0))
                    .col(big_default("bytes_processed", 0))
                    .col(timestamp("updated_at"))
                    .foreign_key(&mut cascade("tenant_usage", "tenant_id", "tenants"))
                    .to_owned(),
            )
            .await
    }

    async fn down(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        manager
            .drop_table(
                Table::drop()
                    .table(name("tenant_usage"))
                    .if_exists()
                    .to_owned(),
            )
            .await
    }
}
