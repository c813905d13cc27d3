//! The passes over tile IR.

mod constant_folding;
mod dce;

pub use constant_folding::ConstantFolding;
pub use dce::DeadCodeElimination;
