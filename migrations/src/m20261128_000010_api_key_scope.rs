//! API key scopes: `read_only`, `processing` or `admin` (every key made before scopes existed could do
//! everything, and keeps that).

use sea_orm_migration::prelude::*;

use crate::columns::*;

pub struct Migration;

impl MigrationName for Migration {
    fn name(&self) -> &str {
        "m20261128_000010_api_key_scope"
    }
}

#[async_trait::async_trait]
impl MigrationTrait for Migration {
    async fn up(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        manager
            .alter_table(
                Table::alter()
                    .table(name("api_keys"))
                    .add_column(string("scope").default("admin"))
                    .to_owned(),
            )
            .await
    }

    async fn down(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        manager
            .alter_table(
                Table::alter()
                    .table(name("api_keys"))
                    .drop_column(name("scope"))
                    .to_owned(),
            )
            .await
    }
}
