//! One module per command.

pub mod cache;
pub mod compile;
pub mod compile_backend;
pub mod lint;
pub mod rule;
pub mod run;
pub mod server;
pub mod tune;
pub mod verify;
