//! The five-stage verifier of `tritonc verify`.
//!
//! A launch spec says how to run one kernel; the verifier runs it, and variations of
//! it, on a device under test (the GPU, through [`GpuExecutor`]) and on the CPU
//! interpreter (the oracle), and compares:
//!
//! 1. **correctness**: the spec as written, against the interpreter and the spec's
//!    independent `.npy` references;
//! 2. **dtype sweep**: the spec's float tensors in fp16, bf16 and fp32;
//! 3. **edge cases**: sizes not divisible by the block (127, 33), 1×1 and 1×N, zero
//!    inputs, inf/NaN inputs, masked lanes poisoned against not poisoned, and (when the
//!    spec declares `[verify.large]`) a launch past 2^31 elements, checked on sampled
//!    program ids ([`large`]);
//! 4. **determinism**: repeated runs bitwise identical (within tolerance for
//!    `deterministic = false`), and the interpreter's cross-program race check;
//! 5. **stress**: many launches; device memory must not grow, results must not drift.
//!
//! Tolerances follow docs/numerics.md ([`tolerance`]). Everything but [`GpuExecutor`]
//! runs without a GPU: the interpreter is itself an [`Executor`], which is how the
//! planning, comparison and reporting are tested. docs/verify.md describes the protocol.

pub mod compare;
pub mod config;
pub mod exec;
pub mod gpu;
pub mod large;
pub mod plan;
pub mod report;
pub mod tolerance;
pub mod triton;
pub mod verify;

pub use compare::{compare, Comparison, OutputTensor};
pub use config::{split_verify_table, LargeConfig, VerifyConfig};
pub use exec::{
    ByteRange, ExecError, ExecErrorKind, Executor, InterpreterExecutor, PreparedCase, RunStats,
};
pub use gpu::{launch_args, BundleDir, BundleSource, GpuExecutor};
pub use plan::{parse_stages, plan, Case, CaseKind, Plan, Stage};
pub use report::{Check, VerifyReport};
pub use tolerance::{analyze, derive, KernelNumerics, Tolerance};
pub use triton::compare_with_triton;
pub use verify::{load_spec, verify, Progress, VerifyError, VerifySpec};
