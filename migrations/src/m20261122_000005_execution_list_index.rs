//! Executions are listed newest id first for a tenant: an index on (tenant_id, id) answers a page
//! from the index instead of fetching and sorting every execution of the tenant (a cost that grew
//! with the table: a 10-minute load run slowed down as executions accumulated).

use sea_orm_migration::prelude::*;

use crate::columns::*;

pub struct Migration;

impl MigrationName for Migration {
    fn name(&self) -> &str {
        "m20261122_000005_execution_list_index"
    }
}

#[async_trait::async_trait]
impl MigrationTrait for Migration {
    async fn up(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        manager
            .create_index(index("executions", &["tenant_id", "id"], false))
            .await
    }

    async fn down(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        manager
            .drop_index(
                Index::drop()
                    .name("ix_executions_tenant_id_id")
                    .table(name("executions"))
                    .if_exists()
                    .to_owned(),
            )
            .await
    }
}
