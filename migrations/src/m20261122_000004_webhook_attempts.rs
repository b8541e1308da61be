//! Every delivery attempt of a webhook event: status code or error, duration, time.

use sea_orm_migration::prelude::*;

use crate::columns::*;

pub struct Migration;

impl MigrationName for Migration {
    fn name(&self) -> &str {
        "m20261122_000004_webhook_attempts"
    }
}

#[async_trait::async_trait]
impl MigrationTrait for Migration {
    async fn up(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        manager
            .create_table(
                table_with_id("webhook_attempts")
                    .col(big("tenant_id"))
                    .col(big("delivery_id"))
                    .col(int_default("attempt", 1))
                    .col(
                        ColumnDef::new(name("status_code"))
                            .integer()
                            .null()
                            .to_owned(),
                    )
                    .col(text_null("error"))
                    .col(big("duration_ms"))
                    .col(timestamp("created_at"))
                    .foreign_key(&mut cascade("webhook_attempts", "tenant_id", "tenants"))
                    .foreign_key(&mut cascade(
                        "webhook_attempts",
                        "delivery_id",
                        "webhook_deliveries",
                    ))
                    .to_owned(),
            )
            .await?;
        manager
            .create_index(index("webhook_attempts", &["delivery_id"], false))
            .await
    }

    async fn down(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        manager
            .drop_table(
                Table::drop()
                    .table(name("webhook_attempts"))
                    .if_exists()
                    .to_owned(),
            )
            .await
    }
}
