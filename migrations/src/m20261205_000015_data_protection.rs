//! Data protection (issue 66): a dataset's version (one more each time an erasure rebuilds it),
//! each tenant's data key, wrapped by the server's master key (the blobs
//! of a tenant are sealed under it; shredding clears `wrapped` and keeps the row as the record), the
//! retention a tenant chose over its plan's, the marks of what the destruction runs removed, the
//! destruction log (the KVKK periodic-destruction record, with no foreign key: it outlives the
//! tenant), a tenant's closure (when it is due, and the signed receipt of its purge, kept after the
//! tenant is gone for whoever holds the receipt's token), and the subject index (keyed digests of the values each job found, never the values: one row per
//! value and job, with how often it occurs and where first; the job's execution is found by its
//! `job_id`).

use sea_orm_migration::prelude::*;

use crate::columns::*;

pub struct Migration;

impl MigrationName for Migration {
    fn name(&self) -> &str {
        "m20261205_000015_data_protection"
    }
}

/// Columns added to existing tables: (table, column).
const ADDED: [(&str, &str); 6] = [
    ("datasets", "version"),
    ("tenants", "closure_due_at"),
    ("tenants", "originals_retention_days"),
    ("tenants", "results_retention_days"),
    ("documents", "original_destroyed_at"),
    ("executions", "result_destroyed_at"),
];

#[async_trait::async_trait]
impl MigrationTrait for Migration {
    async fn up(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        manager
            .create_table(
                Table::create()
                    .table(name("tenant_data_keys"))
                    .if_not_exists()
                    .col(big("tenant_id").primary_key())
                    .col(text_null("wrapped"))
                    .col(string_null("master_key_id"))
                    .col(timestamp("created_at"))
                    .col(timestamp_null("shredded_at"))
                    .to_owned(),
            )
            .await?;
        for (table, column) in ADDED {
            let column = if column == "version" {
                big_default(column, 1)
            } else if column.ends_with("_days") {
                big_null(column)
            } else {
                timestamp_null(column)
            };
            manager
                .alter_table(
                    Table::alter()
                        .table(name(table))
                        .add_column(column)
                        .to_owned(),
                )
                .await?;
        }
        manager
            .create_table(
                table_with_string_id("closure_receipts")
                    .col(big("tenant_id"))
                    .col(string("token_digest"))
                    .col(timestamp("due_at"))
                    .col(timestamp_null("issued_at"))
                    .col(text_null("receipt"))
                    .col(timestamp("created_at"))
                    .to_owned(),
            )
            .await?;
        manager
            .create_table(
                table_with_id("destruction_log")
                    .col(big("tenant_id"))
                    .col(timestamp("destroyed_at"))
                    .col(string("category"))
                    .col(string("reason"))
                    .col(big("items"))
                    .col(big("bytes"))
                    .col(text("detail"))
                    .to_owned(),
            )
            .await?;
        manager
            .create_index(index(
                "destruction_log",
                &["tenant_id", "destroyed_at"],
                false,
            ))
            .await?;
        manager
            .create_table(
                table_with_id("subject_index")
                    .col(big("tenant_id"))
                    .col(string("digest"))
                    .col(string("pii_type"))
                    .col(big("document_id"))
                    .col(string("job_id"))
                    .col(big("occurrences"))
                    .col(big("first_position"))
                    .col(timestamp("created_at"))
                    .foreign_key(&mut cascade("subject_index", "tenant_id", "tenants"))
                    .foreign_key(&mut cascade("subject_index", "document_id", "documents"))
                    .to_owned(),
            )
            .await?;
        manager
            .create_index(index("subject_index", &["tenant_id", "digest"], false))
            .await?;
        manager
            .create_index(index("subject_index", &["document_id"], false))
            .await
    }

    async fn down(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        for table in [
            "subject_index",
            "destruction_log",
            "closure_receipts",
            "tenant_data_keys",
        ] {
            manager
                .drop_table(Table::drop().table(name(table)).if_exists().to_owned())
                .await?;
        }
        for (table, column) in ADDED {
            manager
                .alter_table(
                    Table::alter()
                        .table(name(table))
                        .drop_column(name(column))
                        .to_owned(),
                )
                .await?;
        }
        Ok(())
    }
}
