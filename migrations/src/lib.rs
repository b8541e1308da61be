//! docsieve's database schema, as sea-orm migrations that run unchanged on SQLite and PostgreSQL.
//!
//! Owns the table layout only. It must never hold application logic, and every migration must stay
//! portable: foreign keys declared inside CREATE TABLE (SQLite cannot add them later), strings instead
//! of native enums, timestamps with time zone (UTC), one ALTER per statement.

pub use sea_orm_migration::prelude::*;

mod columns;
mod m20261121_000001_initial;
mod m20261122_000002_tenant_usage;
mod m20261122_000003_dataset_exports;
mod m20261122_000004_webhook_attempts;
mod m20261122_000005_execution_list_index;
mod m20261127_000006_billing;
mod m20261127_000007_connectors;
mod m20261127_000008_oss_metrics;
mod m20261128_000009_sync_heartbeat;
mod m20261128_000010_api_key_scope;
mod m20261128_000011_job_lanes;
mod m20261129_000012_fine_tune_templates;
mod m20261205_000013_privacy;
mod m20261205_000014_pseudonym_vault;
mod m20261205_000015_data_protection;
mod m20261206_000016_subject_queue;
mod m20261207_000017_sealed_meta;
mod m20261207_000018_job_reservation;
mod m20261207_000019_sealed_object_keys;

/// Runs every migration in order; used by `docsieve migrate` and at `serve` start.
pub struct Migrator;

#[async_trait::async_trait]
impl MigratorTrait for Migrator {
    fn migrations() -> Vec<Box<dyn MigrationTrait>> {
        vec![
            Box::new(m20261121_000001_initial::Migration),
            Box::new(m20261122_000002_tenant_usage::Migration),
            Box::new(m20261122_000003_dataset_exports::Migration),
            Box::new(m20261122_000004_webhook_attempts::Migration),
            Box::new(m20261122_000005_execution_list_index::Migration),
            Box::new(m20261127_000006_billing::Migration),
            Box::new(m20261127_000007_connectors::Migration),
            Box::new(m20261127_000008_oss_metrics::Migration),
            Box::new(m20261128_000009_sync_heartbeat::Migration),
            Box::new(m20261128_000010_api_key_scope::Migration),
            Box::new(m20261128_000011_job_lanes::Migration),
            Box::new(m20261129_000012_fine_tune_templates::Migration),
            Box::new(m20261205_000013_privacy::Migration),
            Box::new(m20261205_000014_pseudonym_vault::Migration),
            Box::new(m20261205_000015_data_protection::Migration),
            Box::new(m20261206_000016_subject_queue::Migration),
            Box::new(m20261207_000017_sealed_meta::Migration),
            Box::new(m20261207_000018_job_reservation::Migration),
            Box::new(m20261207_000019_sealed_object_keys::Migration),
        ]
    }
}
