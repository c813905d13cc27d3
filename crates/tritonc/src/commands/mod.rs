//! One module per command.

pub mod compile;
pub mod lint;
pub mod pending;
pub mod rule;
