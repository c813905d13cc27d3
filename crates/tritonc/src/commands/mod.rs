//! One module per command.

pub mod cache;
pub mod compile;
pub mod compile_backend;
mod compile_jobs;
pub mod lint;
pub mod rule;
pub mod run;
pub mod server;
pub mod verify;
