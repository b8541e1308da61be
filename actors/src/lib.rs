//! docsieve-actors: the supervised actors and everything they own (store, blob storage, cache).
//!
//! The HTTP front talks to this crate only through [`system::ActorHandles`] and the plain types it
//! exports; no actix type crosses this boundary, so the actor runtime can be replaced without touching
//! the front.

pub mod blob;
pub mod cache;
pub mod clock;
pub mod connector;
pub mod cron;
pub mod egress;
pub mod error_code;
pub mod llm;
pub mod metric_names;
pub mod model;
pub mod openai;
pub mod oss_metrics;
pub mod pipeline;
pub mod privacy;
pub mod procfs;
pub mod quality;
pub mod receipts;
pub mod redaction;
pub mod retention;
pub mod runtime;
pub mod secrets;
pub mod settings;
pub mod store;
pub mod system;
pub mod tenant_export;

pub mod dataset_exporter;
pub mod extractor_pool;
pub mod fine_tuner;
pub mod job_router;
pub mod pii_masker;
pub mod scheduler;
pub mod subjects;
pub mod webhook_sender;
