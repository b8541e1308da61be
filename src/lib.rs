//! docsieve: the binary's library half: configuration, the HTTP front and start-up.
//!
//! Everything the front needs from the actors comes through `docsieve_actors::system::ActorHandles`;
//! no actix actor type is used here.

pub mod accounts;
pub mod api;
pub mod auth;
pub mod cli_extract;
pub mod cli_keys;
pub mod cli_mask;
pub mod config;
pub mod console;
pub mod error;
pub use docsieve_actors::error_code;
pub mod http;
pub mod mail;
pub mod pages;
pub mod startup;
pub mod state;
pub mod telemetry;
pub mod validation;
