//! The re-identification vault: for a tenant that turned re-identification on, one row per pseudonym
//! its keyed operators made (`surrogate`, `hash`) and the value it stands for. The store never sees
//! either in clear: `pseudonym_digest` and `value_digest` are keyed hashes, `sealed` is the value
//! encrypted under a key derived from the tenant's pseudonym key (of `key_version`). Turning
//! re-identification off, or rotating the key, deletes the tenant's rows.

use sea_orm_migration::prelude::*;

use crate::columns::*;

pub struct Migration;

impl MigrationName for Migration {
    fn name(&self) -> &str {
        "m20261205_000014_pseudonym_vault"
    }
}

#[async_trait::async_trait]
impl MigrationTrait for Migration {
    async fn up(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        manager
            .create_table(
                table_with_id("pseudonym_vault")
                    .col(big("tenant_id"))
                    .col(big("key_version"))
                    .col(string("pseudonym_digest"))
                    .col(string("value_digest"))
                    .col(string("pii_type"))
                    .col(text("sealed"))
                    .col(timestamp("created_at"))
                    .foreign_key(&mut cascade("pseudonym_vault", "tenant_id", "tenants"))
                    .to_owned(),
            )
            .await?;
        manager
            .create_index(index(
                "pseudonym_vault",
                &["tenant_id", "pseudonym_digest", "value_digest"],
                true,
            ))
            .await
    }

    async fn down(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        manager
            .drop_table(
                Table::drop()
                    .table(name("pseudonym_vault"))
                    .if_exists()
                    .to_owned(),
            )
            .await
    }
}
