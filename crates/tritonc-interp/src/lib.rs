//! The CPU interpreter over the tile IR: the oracle `tritonc verify` compares GPU results
//! against, and a sanitizer for kernels.
//!
//! # Model
//!
//! - [`launch`] runs a specialized [`tritonc_ir::Function`] for every program of a grid.
//!   Each program evaluates ops on whole blocks ([`Val`]: a shape plus flat typed
//!   storage, [`Data`]); scalars are values of shape `[]`.
//! - Memory is a set of [`Buffer`]s in one flat address space ([`Memory`]); a pointer is a
//!   `u64` encoding (buffer, byte offset) and every active lane's access is bounds-checked.
//!   An access outside every buffer stops the launch with a [`RuntimeError`] carrying the
//!   op's location (with its inlining chain), the program id, the lane and the address.
//! - Masked-off lanes read the `other` operand, or 0 as on NVIDIA; with
//!   [`InterpOptions::poison_masked`] they read NaN (floats) or `0x5a…` (ints) instead, to
//!   expose kernels that use undefined lanes.
//! - Programs run in chunks, in program-id order; chunk sizes depend only on what the
//!   programs keep, never on the thread count. Programs without atomics run in parallel
//!   ([`ExecutionMode::Parallel`]): each sees memory as it was when its chunk started plus
//!   its own writes, which are applied in program-id order after the chunk. Kernels with
//!   atomics run sequentially in program-id order, so atomics are sequentially consistent
//!   in that order. Either way, a byte written by two programs, or written by one and read
//!   by another, is reported as a data race; so in a launch without races, no program
//!   sees another's writes, as if all ran against memory as at launch. After each chunk
//!   only its [`footprint::Footprint`] is kept (which bytes were read and written, by
//!   whom), so memory grows with the data touched, not with the grid.
//! - [`launch_programs`] runs only some programs of a launch (sampled program ids of a
//!   launch too large to interpret whole), each against memory as at launch, and hands
//!   back their writes instead of applying them.
//! - Reductions follow an explicit [`ReductionOrder`] (the GPU's combine tree for a
//!   layout); see [`order`]. docs/numerics.md is the numerics contract.
//!
//! # Example
//!
//! ```
//! use tritonc_interp::*;
//! use tritonc_ir::parse_module;
//!
//! let m = parse_module("module {
//!   tt.func public @double(%arg0: !tt.ptr<f32>) {
//!     %0 = tt.make_range {start = 0 : i32, end = 4 : i32} : tensor<4xi32>
//!     %1 = tt.splat %arg0 : !tt.ptr<f32> -> tensor<4x!tt.ptr<f32>>
//!     %2 = tt.addptr %1, %0 : tensor<4x!tt.ptr<f32>>, tensor<4xi32> -> tensor<4x!tt.ptr<f32>>
//!     %3 = tt.load %2 : tensor<4x!tt.ptr<f32>> -> tensor<4xf32>
//!     %4 = arith.addf %3, %3 : tensor<4xf32>
//!     tt.store %2, %4 : tensor<4x!tt.ptr<f32>>, tensor<4xf32>
//!     tt.return
//!   }
//! }").unwrap();
//! let mut mem = Memory::new();
//! let x = mem.add(Buffer::from_f32("x", &[1.0, 2.0, 3.0, 4.0]));
//! launch(&m.functions[0], &[ArgValue::Ptr(x.base_address())], [1, 1, 1], &mut mem,
//!        &InterpOptions::default()).unwrap();
//! assert_eq!(mem.buffer(x).to_f64_vec(), vec![2.0, 4.0, 6.0, 8.0]);
//! ```

pub mod data;
mod dot;
pub mod elementwise;
pub mod error;
mod exec;
pub mod footprint;
mod launch;
pub mod memory;
pub mod numerics;
pub mod order;
mod race;
mod reduce;
pub mod sampled;
pub mod scan_order;
pub mod shape;

use std::sync::Arc;

pub use data::{Data, Val};
pub use error::{RuntimeError, RuntimeErrorKind, REGISTRY};
pub use launch::{launch, ArgValue, ExecutionMode, LaunchReport, MAX_PROGRAMS};
pub use memory::{Buffer, BufferId, Memory};
pub use order::{AxisDistribution, CombineOrders, ReductionOrder, ReductionOrderSource};
pub use sampled::{launch_programs, ProgramRun};
pub use scan_order::ScanOrder;

/// A progress callback: `(programs done, programs total)`.
pub type ProgressFn = dyn Fn(u64, u64) + Send + Sync;

/// Interpreter settings.
#[derive(Clone)]
pub struct InterpOptions {
    /// Masked-off lanes of loads without `other` read NaN / `0x5a…` instead of 0.
    pub poison_masked: bool,
    /// The most iterations one loop may run before the launch stops with
    /// [`RuntimeErrorKind::NoProgress`].
    pub max_loop_iterations: u64,
    /// Warps per program (decides the default reduction order).
    pub num_warps: u32,
    /// Run programs in parallel when the kernel has no atomics.
    pub parallel: bool,
    /// Check for cross-program races.
    pub detect_races: bool,
    /// Where reduction and scan orders come from.
    pub reduction_orders: ReductionOrderSource,
    /// Called as programs finish (every 64 programs and at the end).
    pub progress: Option<Arc<ProgressFn>>,
}

impl Default for InterpOptions {
    fn default() -> Self {
        InterpOptions {
            poison_masked: false,
            max_loop_iterations: 1 << 24,
            num_warps: 4,
            parallel: true,
            detect_races: true,
            reduction_orders: ReductionOrderSource::default(),
            progress: None,
        }
    }
}

impl std::fmt::Debug for InterpOptions {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("InterpOptions")
            .field("poison_masked", &self.poison_masked)
            .field("max_loop_iterations", &self.max_loop_iterations)
            .field("num_warps", &self.num_warps)
            .field("parallel", &self.parallel)
            .field("detect_races", &self.detect_races)
            .field("reduction_orders", &self.reduction_orders)
            .finish_non_exhaustive()
    }
}
