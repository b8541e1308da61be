//! What a run read from its document beyond counts (extracted fields, e-mail headers, the file name)
//! moves out of `executions.result_meta` into `executions.sealed_meta`, sealed under the tenant's data
//! key (issue 84): a copied database shows none of it, and a closure's crypto-shredding, retention and
//! erasure reach it. `documents.filename` holds the name sealed too (TEXT: longer than the name).
//! Rows written before this migration are sealed by the server at its next start.

use sea_orm_migration::prelude::*;

use crate::columns::*;

pub struct Migration;

impl MigrationName for Migration {
    fn name(&self) -> &str {
        "m20261207_000017_sealed_meta"
    }
}

#[async_trait::async_trait]
impl MigrationTrait for Migration {
    async fn up(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        manager
            .alter_table(
                Table::alter()
                    .table(name("executions"))
                    .add_column(text_null("sealed_meta"))
                    .to_owned(),
            )
            .await?;
        // A sealed file name is longer than the name (nonce, tag, base64): TEXT on PostgreSQL
        // (SQLite never held VARCHAR's length).
        if manager.get_database_backend() == sea_orm_migration::sea_orm::DatabaseBackend::Postgres {
            manager
                .alter_table(
                    Table::alter()
                        .table(name("documents"))
                        .modify_column(ColumnDef::new(name("filename")).text().not_null())
                        .to_owned(),
                )
                .await?;
        }
        Ok(())
    }

    async fn down(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        manager
            .alter_table(
                Table::alter()
                    .table(name("executions"))
                    .drop_column(name("sealed_meta"))
                    .to_owned(),
            )
            .await
    }
}
