//! The passes over tile IR.

mod constant_folding;
mod dce;
mod dot_accumulate;

pub use constant_folding::ConstantFolding;
pub use dce::DeadCodeElimination;
pub use dot_accumulate::{is_zero, DotAccumulate};

use crate::pass::PassManager;

/// The rewrites Triton's TTIR pipeline makes that change what a kernel computes, run on
/// every kernel sema lowers (so lint, the interpreter and the back end all see them):
/// [`DotAccumulate`].
pub fn ttir_passes() -> PassManager {
    PassManager::new().add(DotAccumulate)
}
