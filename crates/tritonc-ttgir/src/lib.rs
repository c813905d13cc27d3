//! The GPU IR: the step from "a program computes on whole blocks" to "this thread holds
//! these elements", without LLVM.
//!
//! The GPU IR is the tile IR's data structure with an encoding on every block type and
//! explicit GPU ops (`tritonc_ir`'s crate docs list them); [`gpu_passes`] makes it from
//! the tile IR, pass by pass, verifying after each one ([`verify_encodings`]).
//!
//! - [`pipeline`]: the pass list ([`gpu_passes`], [`lower_to_gpu_ir`]), [`GpuOptions`].
//! - [`materialize`]: `tritonc-assign-layouts`, writing the layout analysis into the IR.
//! - [`fold`]: `tritonc-fold-conversions`.
//! - [`sink`]: `tritonc-sink-conversions`.
//! - [`software_pipeline`]: `tritonc-pipeline-loops` (`cp.async` multi-buffering of the
//!   K loops that feed tensor-core dots).
//! - [`allocate`]: `tritonc-allocate-shared` (offsets of shared buffers over their
//!   lifetimes).
//! - [`barriers`]: `tritonc-place-barriers` (a barrier wherever shared-memory accesses
//!   of different threads would race, and nowhere else).
//! - [`scratch`]: which ops stage values through shared scratch.
//! - [`accelerate`]: which dots take tensor-core layouts, and the shared layout their
//!   operands are staged in.
//! - [`accelerate_amd`]: which dots take AMD's MFMA layout, with which instruction.
//! - [`verify`](mod@verify): the encoding rules.
//! - [`axis`]: Triton's axis analysis (contiguity, divisibility, constancy per dim).
//! - [`layout`]: blocked and slice layouts, their linear form (a map from warp, lane and
//!   register to element coordinates and back), Triton's default layout (defined in
//!   `tritonc_ir::layout`, since they are the IR's encodings).
//! - [`coalesce`]: the vector width of loads and stores and the layout that makes them
//!   coalesced.
//! - [`assign`]: the layout analysis: a layout for every block value of a function, with
//!   the conversions where producer and consumer disagree.
//! - [`reduction`]: the order in which a reduction combines elements, the contract the
//!   CPU interpreter replays for bit-exact results ([`ReductionSchedule`]).
//! - [`scan`]: the same contract for scans ([`ScanSchedule`]).
//! - [`control`]: which values of structured control flow share one layout.
//! - [`footprint`]: the registers one thread's code defines, counted before code
//!   generation (the back end's size budget).

// Per-dim rules read several parallel per-dim lists; an index reads best there.
#![allow(clippy::needless_range_loop)]

pub mod accelerate;
pub mod accelerate_amd;
pub mod allocate;
pub mod barriers;
pub mod hoist_operands;
pub mod assign;
pub mod axis;
pub mod coalesce;
pub mod control;
pub mod fold;
pub mod footprint;
pub mod materialize;
pub mod pipeline;
mod propagate;
pub mod reduction;
pub mod scan;
pub mod scratch;
pub mod sink;
pub mod software_pipeline;
pub mod verify;
pub mod wgmma_waits;

pub use tritonc_ir::layout;

pub use assign::{
    assign_layouts, assign_layouts_for, dot_layout, LayoutAssignment, LayoutConversion, TtgirError,
};
pub use axis::{AxisAnalysis, AxisInfo};
pub use coalesce::{coalesced_layout, coalesced_layout_in_warps_of, MemoryAccess};
pub use fold::FoldConversions;
pub use layout::{
    BlockedLayout, InDim, Layout, LayoutError, LinearLayout, SliceLayout, ThreadRegister, WARP_SIZE,
};
pub use materialize::AssignLayouts;
pub use sink::SinkConversions;
pub use pipeline::{
    gpu_passes, lower_to_gpu_ir, print_gpu_module, GpuOptions, GpuPass,
    GpuPassList,
};
pub use allocate::AllocateShared;
pub use barriers::PlaceBarriers;
pub use hoist_operands::HoistDotOperands;
pub use software_pipeline::PipelineLoops;
pub use wgmma_waits::WgmmaWaits;
pub use reduction::{default_reduction_schedule, ButterflyStep, CombineTree, ReductionSchedule};
pub use scan::{ScanSchedule, ScanSizes, ScanStep, ScanUnit};
pub use verify::verify_encodings;
