//! Connector object keys out of the database in clear (issue 84): `documents.source_key` holds the key
//! sealed under the tenant's data key, and the new `documents.source_digest` a keyed digest of it, by
//! which syncs recognise an object they took (`connector_objects.object_key` holds the same digest).
//! Rows written before this migration are sealed and digested by the server at its next start.

use sea_orm_migration::prelude::*;

use crate::columns::*;

pub struct Migration;

impl MigrationName for Migration {
    fn name(&self) -> &str {
        "m20261207_000019_sealed_object_keys"
    }
}

#[async_trait::async_trait]
impl MigrationTrait for Migration {
    async fn up(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        add_column(manager, "documents", text_null("source_digest")).await?;
        manager
            .create_index(index(
                "documents",
                &["connector_id", "source_digest"],
                false,
            ))
            .await
    }

    async fn down(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        manager
            .drop_index(
                Index::drop()
                    .name("ix_documents_connector_id_source_digest")
                    .table(name("documents"))
                    .to_owned(),
            )
            .await?;
        drop_column(manager, "documents", "source_digest").await
    }
}
