//! Privacy controls: a tenant's masking policy, one row per version (the newest is in force; the body is
//! the policy as JSON), the tenant's pseudonym key (sealed like the other secrets; rotating it replaces
//! it and counts up its version). An execution records the policy version it was masked under in its
//! `result_meta`.

use sea_orm_migration::prelude::*;

use crate::columns::*;

pub struct Migration;

impl MigrationName for Migration {
    fn name(&self) -> &str {
        "m20261205_000013_privacy"
    }
}

#[async_trait::async_trait]
impl MigrationTrait for Migration {
    async fn up(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        manager
            .create_table(
                table_with_id("privacy_policies")
                    .col(big("tenant_id"))
                    .col(big("version"))
                    .col(text("body"))
                    .col(big_null("created_by"))
                    .col(timestamp("created_at"))
                    .foreign_key(&mut cascade("privacy_policies", "tenant_id", "tenants"))
                    .to_owned(),
            )
            .await?;
        manager
            .create_index(index("privacy_policies", &["tenant_id", "version"], true))
            .await?;
        manager
            .create_table(
                table_with_id("pseudonym_keys")
                    .col(big("tenant_id"))
                    .col(big("version"))
                    .col(text("sealed"))
                    .col(timestamp("created_at"))
                    .foreign_key(&mut cascade("pseudonym_keys", "tenant_id", "tenants"))
                    .to_owned(),
            )
            .await?;
        manager
            .create_index(index("pseudonym_keys", &["tenant_id"], true))
            .await
    }

    async fn down(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        for table in ["pseudonym_keys", "privacy_policies"] {
            manager
                .drop_table(Table::drop().table(name(table)).if_exists().to_owned())
                .await?;
        }
        Ok(())
    }
}
