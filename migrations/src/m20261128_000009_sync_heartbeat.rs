//! A running sync's heartbeat: the process running it writes the time every few seconds, so that a
//! sync whose process died is told from one that is merely long (and its claims released).

use sea_orm_migration::prelude::*;

use crate::columns::*;

pub struct Migration;

impl MigrationName for Migration {
    fn name(&self) -> &str {
        "m20261128_000009_sync_heartbeat"
    }
}

#[async_trait::async_trait]
impl MigrationTrait for Migration {
    async fn up(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        add_column(manager, "sync_runs", timestamp_null("heartbeat_at")).await
    }

    async fn down(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        drop_column(manager, "sync_runs", "heartbeat_at").await
    }
}
