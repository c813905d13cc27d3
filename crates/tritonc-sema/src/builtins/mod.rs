//! `tl` builtins and tensor methods.

pub mod names;
