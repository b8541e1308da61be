//! The first schema: every resource of the interface specification.

use sea_orm_migration::prelude::*;

use crate::columns::*;

pub struct Migration;

impl MigrationName for Migration {
    fn name(&self) -> &str {
        "m20261121_000001_initial"
    }
}

/// Tables in creation order (parents before children); dropped in reverse.
const TABLES: &[&str] = &[
    "tenants",
    "workspaces",
    "users",
    "memberships",
    "invitations",
    "email_tokens",
    "refresh_tokens",
    "api_keys",
    "connectors",
    "documents",
    "jobs",
    "executions",
    "schedules",
    "datasets",
    "webhooks",
    "webhook_deliveries",
    "billing_periods",
    "credit_ledger",
    "fine_tune_jobs",
    "audit_entries",
];

fn tables() -> Vec<TableCreateStatement> {
    vec![
        table_with_id("tenants")
            .col(string("name"))
            .col(string("plan"))
            .col(string("status"))
            .col(timestamp("created_at"))
            .col(timestamp("updated_at"))
            .to_owned(),
        table_with_id("workspaces")
            .col(big("tenant_id"))
            .col(string("name"))
            .col(timestamp("created_at"))
            .foreign_key(&mut cascade("workspaces", "tenant_id", "tenants"))
            .to_owned(),
        table_with_id("users")
            .col(big("tenant_id"))
            .col(string("email"))
            .col(string("password_hash"))
            .col(string("status"))
            .col(timestamp_null("email_verified_at"))
            .col(timestamp("created_at"))
            .col(timestamp("updated_at"))
            .foreign_key(&mut cascade("users", "tenant_id", "tenants"))
            .to_owned(),
        table_with_id("memberships")
            .col(big("tenant_id"))
            .col(big("user_id"))
            .col(string("role"))
            .col(timestamp("created_at"))
            .foreign_key(&mut cascade("memberships", "tenant_id", "tenants"))
            .foreign_key(&mut cascade("memberships", "user_id", "users"))
            .to_owned(),
        table_with_id("invitations")
            .col(big("tenant_id"))
            .col(string("email"))
            .col(string("role"))
            .col(string("token_hash"))
            .col(big_null("invited_by_user_id"))
            .col(timestamp("expires_at"))
            .col(timestamp_null("accepted_at"))
            .col(timestamp("created_at"))
            .foreign_key(&mut cascade("invitations", "tenant_id", "tenants"))
            .foreign_key(&mut set_null("invitations", "invited_by_user_id", "users"))
            .to_owned(),
        table_with_id("email_tokens")
            .col(big("user_id"))
            .col(string("purpose"))
            .col(string("token_hash"))
            .col(timestamp("expires_at"))
            .col(timestamp_null("used_at"))
            .col(timestamp("created_at"))
            .foreign_key(&mut cascade("email_tokens", "user_id", "users"))
            .to_owned(),
        table_with_id("refresh_tokens")
            .col(big("user_id"))
            .col(big("tenant_id"))
            .col(string("family_id"))
            .col(string("token_hash"))
            .col(timestamp("expires_at"))
            .col(timestamp_null("revoked_at"))
            .col(timestamp("created_at"))
            .foreign_key(&mut cascade("refresh_tokens", "user_id", "users"))
            .foreign_key(&mut cascade("refresh_tokens", "tenant_id", "tenants"))
            .to_owned(),
        table_with_id("api_keys")
            .col(big("tenant_id"))
            .col(big("user_id"))
            .col(string("name"))
            .col(string("prefix"))
            .col(string("key_hash"))
            .col(timestamp("created_at"))
            .col(timestamp_null("last_used_at"))
            .col(timestamp_null("revoked_at"))
            .foreign_key(&mut cascade("api_keys", "tenant_id", "tenants"))
            .foreign_key(&mut cascade("api_keys", "user_id", "users"))
            .to_owned(),
        table_with_id("connectors")
            .col(big("tenant_id"))
            .col(string("connector_type"))
            .col(string("name"))
            .col(text("config_public"))
            .col(text("config_secret_encrypted"))
            .col(timestamp("created_at"))
            .col(timestamp("updated_at"))
            .foreign_key(&mut cascade("connectors", "tenant_id", "tenants"))
            .to_owned(),
        table_with_id("documents")
            .col(big("tenant_id"))
            .col(string("filename"))
            .col(string("mime"))
            .col(string("format"))
            .col(big("size_bytes"))
            .col(string("sha256"))
            .col(string("source"))
            .col(big_null("connector_id"))
            .col(text_null("source_key"))
            .col(text("blob_key"))
            .col(timestamp("created_at"))
            .foreign_key(&mut cascade("documents", "tenant_id", "tenants"))
            .foreign_key(&mut set_null("documents", "connector_id", "connectors"))
            .to_owned(),
        table_with_string_id("jobs")
            .col(big("tenant_id"))
            .col(string("job_type"))
            .col(string("status"))
            .col(big_null("document_id"))
            .col(string_null("dataset_id"))
            .col(big_null("execution_id"))
            .col(text("payload"))
            .col(int_default("attempts", 0))
            .col(int_default("max_attempts", 3))
            .col(string_null("lease_owner"))
            .col(timestamp_null("lease_expires_at"))
            .col(string_null("error_code"))
            .col(text_null("error_message"))
            .col(timestamp("created_at"))
            .col(timestamp_null("started_at"))
            .col(timestamp_null("finished_at"))
            .col(timestamp("updated_at"))
            .foreign_key(&mut cascade("jobs", "tenant_id", "tenants"))
            .foreign_key(&mut cascade("jobs", "document_id", "documents"))
            .to_owned(),
        table_with_id("executions")
            .col(big("tenant_id"))
            .col(big("document_id"))
            .col(string_null("job_id"))
            .col(string("status"))
            .col(boolean("masked", true))
            .col(timestamp("started_at"))
            .col(timestamp_null("finished_at"))
            .col(big_null("duration_ms"))
            .col(text_null("result_blob_key"))
            .col(text("result_meta"))
            .col(boolean("cross_validation_flag", false))
            .col(timestamp("created_at"))
            .foreign_key(&mut cascade("executions", "tenant_id", "tenants"))
            .foreign_key(&mut cascade("executions", "document_id", "documents"))
            .foreign_key(&mut set_null("executions", "job_id", "jobs"))
            .to_owned(),
        table_with_id("schedules")
            .col(big("tenant_id"))
            .col(big("connector_id"))
            .col(string_null("name"))
            .col(string("cron"))
            .col(text_null("prefix"))
            .col(boolean("enabled", true))
            .col(timestamp_null("last_run_at"))
            .col(timestamp_null("next_run_at"))
            .col(timestamp("created_at"))
            .col(timestamp("updated_at"))
            .foreign_key(&mut cascade("schedules", "tenant_id", "tenants"))
            .foreign_key(&mut cascade("schedules", "connector_id", "connectors"))
            .to_owned(),
        table_with_string_id("datasets")
            .col(big("tenant_id"))
            .col(string("name"))
            .col(string("status"))
            .col(string_null("job_id"))
            .col(text("execution_ids"))
            .col(big_default("row_count", 0))
            .col(text_null("schema_json"))
            .col(text_null("error_message"))
            .col(timestamp("created_at"))
            .col(timestamp_null("finished_at"))
            .foreign_key(&mut cascade("datasets", "tenant_id", "tenants"))
            .to_owned(),
        table_with_id("webhooks")
            .col(big("tenant_id"))
            .col(text("url"))
            .col(text("events"))
            .col(text("secret_encrypted"))
            .col(text_null("auto_export"))
            .col(boolean("active", true))
            .col(timestamp("created_at"))
            .foreign_key(&mut cascade("webhooks", "tenant_id", "tenants"))
            .to_owned(),
        table_with_id("webhook_deliveries")
            .col(big("tenant_id"))
            .col(big("webhook_id"))
            .col(string("event"))
            .col(text("payload"))
            .col(string("status"))
            .col(int_default("attempts", 0))
            .col(timestamp_null("next_attempt_at"))
            .col(
                ColumnDef::new(name("last_status_code"))
                    .integer()
                    .null()
                    .to_owned(),
            )
            .col(text_null("last_error"))
            .col(timestamp("created_at"))
            .col(timestamp("updated_at"))
            .foreign_key(&mut cascade("webhook_deliveries", "tenant_id", "tenants"))
            .foreign_key(&mut cascade("webhook_deliveries", "webhook_id", "webhooks"))
            .to_owned(),
        table_with_id("billing_periods")
            .col(big("tenant_id"))
            .col(string("plan"))
            .col(string("status"))
            .col(timestamp("starts_at"))
            .col(timestamp("ends_at"))
            .col(big_default("credits_granted", 0))
            .col(timestamp_null("closed_at"))
            .col(timestamp("created_at"))
            .foreign_key(&mut cascade("billing_periods", "tenant_id", "tenants"))
            .to_owned(),
        table_with_id("credit_ledger")
            .col(big("tenant_id"))
            .col(big_null("billing_period_id"))
            .col(string("entry_type"))
            .col(big("amount"))
            .col(string_null("reference"))
            .col(timestamp("created_at"))
            .foreign_key(&mut cascade("credit_ledger", "tenant_id", "tenants"))
            .foreign_key(&mut set_null(
                "credit_ledger",
                "billing_period_id",
                "billing_periods",
            ))
            .to_owned(),
        table_with_string_id("fine_tune_jobs")
            .col(big("tenant_id"))
            .col(string("dataset_id"))
            .col(string("model"))
            .col(string_null("suffix"))
            .col(string("status"))
            .col(string_null("provider_job_id"))
            .col(string_null("fine_tuned_model"))
            .col(text_null("error_message"))
            .col(timestamp("created_at"))
            .col(timestamp("updated_at"))
            .foreign_key(&mut cascade("fine_tune_jobs", "tenant_id", "tenants"))
            .foreign_key(&mut cascade("fine_tune_jobs", "dataset_id", "datasets"))
            .to_owned(),
        // Audit entries outlive nothing they point at on purpose: no foreign keys, so deleting a
        // document or a user never erases the record that it was processed or removed.
        table_with_id("audit_entries")
            .col(big_null("tenant_id"))
            .col(string("actor_type"))
            .col(string_null("actor_id"))
            .col(string("action"))
            .col(string_null("target_type"))
            .col(string_null("target_id"))
            .col(string("outcome"))
            .col(string_null("ip"))
            .col(text("details"))
            .col(timestamp("created_at"))
            .to_owned(),
    ]
}

fn indexes() -> Vec<IndexCreateStatement> {
    vec![
        index("users", &["email"], true),
        index("memberships", &["tenant_id", "user_id"], true),
        index("invitations", &["token_hash"], true),
        index("email_tokens", &["token_hash"], true),
        index("refresh_tokens", &["token_hash"], true),
        index("refresh_tokens", &["family_id"], false),
        index("api_keys", &["prefix"], true),
        index("documents", &["tenant_id", "created_at"], false),
        index("jobs", &["status", "tenant_id", "created_at"], false),
        index("jobs", &["tenant_id", "created_at"], false),
        index("executions", &["tenant_id", "created_at"], false),
        index("executions", &["cross_validation_flag"], false),
        index("schedules", &["connector_id"], false),
        index("datasets", &["tenant_id", "created_at"], false),
        index("webhook_deliveries", &["status", "next_attempt_at"], false),
        index("webhook_deliveries", &["webhook_id", "created_at"], false),
        index("billing_periods", &["tenant_id", "status"], false),
        index("credit_ledger", &["tenant_id", "created_at"], false),
        index("audit_entries", &["tenant_id", "created_at"], false),
    ]
}

#[async_trait::async_trait]
impl MigrationTrait for Migration {
    async fn up(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        for table in tables() {
            manager.create_table(table).await?;
        }
        for index in indexes() {
            manager.create_index(index).await?;
        }
        Ok(())
    }

    async fn down(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        for table in TABLES.iter().rev() {
            manager
                .drop_table(Table::drop().table(name(table)).if_exists().to_owned())
                .await?;
        }
        Ok(())
    }
}
