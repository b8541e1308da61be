//! Plans, billing periods, credits and fine-tuning: a period's running balance, the ledger's lookups
//! (a period's entries, a job's reservation) with one entry of a kind per reference, the clock ticks that let one process of many
//! run a cron task, and fine-tune jobs laid out for the fine_tuner actor (the table of the first
//! schema was never written to; it is replaced).

use sea_orm_migration::prelude::*;

use crate::columns::*;

pub struct Migration;

impl MigrationName for Migration {
    fn name(&self) -> &str {
        "m20261127_000006_billing"
    }
}

#[async_trait::async_trait]
impl MigrationTrait for Migration {
    async fn up(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        // The sum of the period's ledger entries, moved with each of them (admission reads it).
        manager
            .alter_table(
                Table::alter()
                    .table(name("billing_periods"))
                    .add_column(big_default("balance", 0))
                    .to_owned(),
            )
            .await?;
        manager
            .create_index(index("credit_ledger", &["billing_period_id"], false))
            .await?;
        manager
            .create_index(index("credit_ledger", &["reference", "entry_type"], true))
            .await?;
        manager
            .create_table(
                table_with_string_id("clock_ticks")
                    .col(timestamp("last_due_at"))
                    .col(timestamp("updated_at"))
                    .to_owned(),
            )
            .await?;
        manager
            .drop_table(
                Table::drop()
                    .table(name("fine_tune_jobs"))
                    .if_exists()
                    .to_owned(),
            )
            .await?;
        manager
            .create_table(
                table_with_string_id("fine_tune_jobs")
                    .col(big("tenant_id"))
                    .col(
                        ColumnDef::new(name("dataset_id"))
                            .string_len(64)
                            .not_null()
                            .to_owned(),
                    )
                    .col(string("model"))
                    .col(string_null("suffix"))
                    .col(string("status"))
                    .col(string_null("training_file_id"))
                    .col(string_null("provider_job_id"))
                    .col(string_null("fine_tuned_model"))
                    .col(big_default("training_rows", 0))
                    .col(string_null("error_code"))
                    .col(text_null("error_message"))
                    .col(int_default("attempts", 0))
                    .col(timestamp("next_action_at"))
                    .col(string_null("lease_owner"))
                    .col(timestamp_null("lease_expires_at"))
                    .col(text_null("requested_by"))
                    .col(timestamp("created_at"))
                    .col(timestamp("updated_at"))
                    .col(timestamp_null("finished_at"))
                    .foreign_key(&mut cascade("fine_tune_jobs", "tenant_id", "tenants"))
                    .foreign_key(&mut cascade("fine_tune_jobs", "dataset_id", "datasets"))
                    .to_owned(),
            )
            .await?;
        manager
            .create_index(index("fine_tune_jobs", &["tenant_id", "created_at"], false))
            .await?;
        manager
            .create_index(index(
                "fine_tune_jobs",
                &["status", "next_action_at"],
                false,
            ))
            .await
    }

    async fn down(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        for table in ["fine_tune_jobs", "clock_ticks"] {
            manager
                .drop_table(Table::drop().table(name(table)).if_exists().to_owned())
                .await?;
        }
        Ok(())
    }
}
