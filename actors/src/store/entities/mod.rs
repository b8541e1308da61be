//! sea-orm entities, one module per table. Added as the features that use them land.

pub(super) mod api_key;
pub(super) mod audit_entry;
pub(super) mod dataset;
pub(super) mod dataset_export;
pub(super) mod document;
pub(super) mod email_token;
pub(super) mod execution;
pub(super) mod invitation;
pub(super) mod job;
pub(super) mod membership;
pub(super) mod refresh_token;
pub(super) mod tenant;
pub(super) mod tenant_usage;
pub(super) mod user;
pub(super) mod webhook;
pub(super) mod webhook_attempt;
pub(super) mod webhook_delivery;
pub(super) mod workspace;
