//! A fine-tune job's own message templates (`{"system", "user", "assistant"}` as JSON), given with the
//! request; null: the configured ones.

use sea_orm_migration::prelude::*;

use crate::columns::*;

pub struct Migration;

impl MigrationName for Migration {
    fn name(&self) -> &str {
        "m20261129_000012_fine_tune_templates"
    }
}

#[async_trait::async_trait]
impl MigrationTrait for Migration {
    async fn up(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        add_column(manager, "fine_tune_jobs", text_null("templates")).await
    }

    async fn down(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        drop_column(manager, "fine_tune_jobs", "templates").await
    }
}
