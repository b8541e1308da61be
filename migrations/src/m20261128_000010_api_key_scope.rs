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
        let mut scope = string("scope");
        add_column(manager, "api_keys", scope.default("admin").to_owned()).await
    }

    async fn down(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        drop_column(manager, "api_keys", "scope").await
    }
}
