//! sea-orm entities, one module per table. Added as the features that use them land.

pub mod api_key;
pub mod audit_entry;
pub mod billing_period;
pub mod credit_entry;
pub mod dataset;
pub mod dataset_export;
pub mod document;
pub mod email_token;
pub mod execution;
pub mod invitation;
pub mod job;
pub mod membership;
pub mod refresh_token;
pub mod tenant;
pub mod tenant_usage;
pub mod user;
pub mod webhook;
pub mod webhook_attempt;
pub mod webhook_delivery;
pub mod workspace;
