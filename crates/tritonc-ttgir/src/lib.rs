//! Layouts for the tile IR: the step from "a program computes on whole blocks" to "this
//! thread holds these elements", without LLVM.
//!
//! - [`axis`]: Triton's axis analysis (contiguity, divisibility, constancy per dim).
//! - [`layout`]: blocked and slice layouts, their linear form (a map from warp, lane and
//!   register to element coordinates and back), Triton's default layout.
//! - [`coalesce`]: the vector width of loads and stores and the layout that makes them
//!   coalesced.
//! - [`assign`]: a layout for every block value of a function, with the explicit layout
//!   conversions where producer and consumer disagree.
//! - [`reduction`]: the order in which a reduction combines elements, the contract the
//!   CPU interpreter replays for bit-exact results ([`ReductionSchedule`]).
//! - [`scan`]: the same contract for scans ([`ScanSchedule`]).
//! - [`control`]: which values of structured control flow share one layout.
//! - [`print`](mod@print): the `--emit ttgir` text (the tile IR with a layout per block type).

// Per-dim rules read several parallel per-dim lists; an index reads best there.
#![allow(clippy::needless_range_loop)]

pub mod assign;
pub mod axis;
pub mod coalesce;
pub mod control;
pub mod layout;
pub mod print;
mod propagate;
pub mod reduction;
pub mod scan;

pub use assign::{assign_layouts, dot_layout, LayoutAssignment, LayoutConversion, TtgirError};
pub use axis::{AxisAnalysis, AxisInfo};
pub use coalesce::{coalesced_layout, MemoryAccess};
pub use layout::{
    BlockedLayout, Layout, LayoutError, LinearLayout, SliceLayout, ThreadRegister, WARP_SIZE,
};
pub use print::print_ttgir;
pub use reduction::{default_reduction_schedule, ButterflyStep, CombineTree, ReductionSchedule};
pub use scan::{ScanSchedule, ScanStep, ScanUnit};
