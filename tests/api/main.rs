//! The API test suite: one binary that starts the real `docsieve` server (port 0, temporary data dir)
//! and talks to it over HTTP. On SQLite by default; on PostgreSQL and Redis when
//! DOCSIEVE_TEST_DATABASE_URL and DOCSIEVE_TEST_REDIS_URL are set (each server gets its own database
//! and Redis key prefix). With CI=true an unreachable service fails the test instead of skipping it.

mod support;

mod accounts;
mod api_keys;
mod billing;
mod cli_mask;
mod client_journey;
mod compliance;
mod config_cli;
mod connectors;
mod console;
mod crash;
mod data_export;
mod data_protection;
mod datasets;
mod egress;
mod emulators;
mod executions;
mod fairness;
mod fine_tune;
mod formats;
mod hostile;
mod jobs;
mod mail;
mod memory;
mod oss_metrics;
mod privacy;
mod process;
mod provider;
mod quality;
mod queue;
mod races;
mod redaction;
mod reidentification;
mod schedules;
mod schemathesis;
mod scopes;
mod sealed_values;
mod stand_in;
mod storage;
mod subjects;
mod system;
mod team;
mod webhooks;
