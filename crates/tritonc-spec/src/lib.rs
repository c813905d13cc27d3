//! Launch specs: a TOML file per kernel launch — the kernel, its tensors (shape, dtype,
//! initializer, view), scalars and constexprs as expressions over the tensors, the grid,
//! `num_warps` and the outputs — turned into a ready launch ([`prepare`]) and run on the
//! interpreter ([`run_spec_file`]). docs/launch-specs.md describes the format.
//!
//! Expressions (`"x.shape[1]"`, `"triton.next_power_of_2(n_cols)"`,
//! `"triton.cdiv(n, BLOCK)"`) are evaluated by sema's one constexpr evaluator. The
//! specialization is derived from the actual arguments as Triton's launcher does.

pub mod codes;
pub mod files;
mod init;
pub mod npy;
pub mod parse;
pub mod reference;
pub mod rng;
pub mod run;
pub mod scopes;
pub mod summary;

pub use parse::{parse, LaunchSpec, TensorSpec};
pub use reference::{check_references, ReferenceCheck};
pub use scopes::{KernelScopes, SingleFile};
pub use run::{
    jit_debug, lower, prepare, prepare_in, prepare_shapes, prepare_shapes_in, run_spec_file,
    scalar_arg, Launch, RunOutcome,
    TensorArg, GRID_LIMITS,
};
pub use summary::{compare, summarize, Comparison, Summary};
