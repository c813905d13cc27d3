//! The order in which a reduction combines elements: the contract between GPU codegen
//! and the CPU interpreter.
//!
//! A reduction over `axis` of a block in a [`Layout`] runs in three stages, exactly as
//! the MLIR lowering emits them (and as Triton's `ReduceOpToLLVM` does):
//!
//! 1. **In-thread**: each thread folds the registers it holds for one output element
//!    sequentially, in register order: `acc = r0; acc = combine(acc, r1); …`
//!    ([`ReductionSchedule::register_positions`] lists the axis positions of those
//!    registers for the thread whose lane and warp offsets along the axis are 0).
//! 2. **Across lanes**: a `shfl.sync.bfly` butterfly. At each step (in
//!    [`ReductionSchedule::lane_steps`] order) every lane does
//!    `acc = combine(acc, shfl_xor(acc, step.xor_mask))`: its own value is the left
//!    operand, the partner lane's the right one. Only lane bits that move along the axis
//!    take part, from the highest to the lowest.
//! 3. **Across warps** (only when warps split the axis): the partial of every warp goes
//!    through shared memory; after a barrier the partials are combined by the same
//!    butterfly over the warp index ([`ReductionSchedule::warp_steps`], highest bit
//!    first, own partial on the left). The lowering either has every thread read all
//!    partials and fold them in that order (few partials), or, as Triton does, gives
//!    each lane of a group one partial and runs the butterfly with `shfl.sync.bfly`
//!    over the compact warp index, the group's first lane writing the result back for
//!    every thread to read; both evaluate the same tree.
//!
//! The result is one fixed binary tree over the axis positions `0..len`, the same for
//! every output element (the other coordinates only select which slice is reduced):
//! [`ReductionSchedule::tree`] builds it from the point of view of warp 0, lane 0, and
//! [`ReductionSchedule::evaluate`] folds values along it. For commutative combiners
//! (`add`, `max`, `min`, argmax with an index tie-break) every thread ends with the same
//! bits as that thread; for a non-commutative `combine_fn` the tree names the value
//! warp 0, lane 0 holds.
//!
//! ```
//! use tritonc_ttgir::{BlockedLayout, CombineTree, Layout, ReductionSchedule};
//! // 16 elements: 2 per thread, 8 distinct lanes (the other 24 lanes hold copies).
//! let layout = Layout::Blocked(BlockedLayout {
//!     size_per_thread: vec![2],
//!     threads_per_warp: vec![32],
//!     warps_per_cta: vec![1],
//!     order: vec![0],
//! });
//! let s = ReductionSchedule::new(&layout, &[16], 0).unwrap();
//! assert_eq!(s.register_positions, vec![0, 1]);
//! assert_eq!(s.lane_steps.iter().map(|x| x.xor_mask).collect::<Vec<_>>(), vec![4, 2, 1]);
//! assert_eq!(s.evaluate(|k| k as f64, |a, b| a + b), 120.0);
//! // Lane 0 folds its registers 0 and 1, then meets lane 4 (positions 8, 9), …
//! let text = s.tree().to_string();
//! assert!(text.starts_with("((((0 + 1) + (8 + 9))"));
//! ```

use std::fmt;

use tritonc_ir::DType;

use crate::layout::{BlockedLayout, Layout, LayoutError, LinearLayout};

/// One butterfly step: combine with the partner `xor_mask` away, whose elements sit
/// `axis_offset` further along the axis (XOR, not add: the offsets are disjoint bits).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ButterflyStep {
    /// The lane (or warp) index XOR mask of the partner.
    pub xor_mask: u32,
    /// The partner's position along the axis relative to this thread's (XOR).
    pub axis_offset: u64,
}

/// How a reduction over one axis of a block in one layout combines its elements.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReductionSchedule {
    /// The input block's shape.
    pub shape: Vec<u64>,
    /// The reduced dim.
    pub axis: usize,
    /// Axis positions of one thread's registers for one output element, in the order the
    /// thread folds them (thread with zero lane and warp offset along the axis).
    pub register_positions: Vec<u64>,
    /// The lane butterfly, in order.
    pub lane_steps: Vec<ButterflyStep>,
    /// The warp butterfly over shared memory, in order (empty: one warp spans the axis).
    pub warp_steps: Vec<ButterflyStep>,
}

/// A binary combination tree over axis positions.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CombineTree {
    /// The input element at this position along the axis.
    Leaf(u64),
    /// `combine(lhs, rhs)`.
    Combine(Box<CombineTree>, Box<CombineTree>),
}

impl CombineTree {
    /// The leaves from left to right.
    pub fn leaves(&self) -> Vec<u64> {
        let mut out = Vec::new();
        let mut stack = vec![self];
        while let Some(t) = stack.pop() {
            match t {
                CombineTree::Leaf(k) => out.push(*k),
                CombineTree::Combine(l, r) => {
                    stack.push(r);
                    stack.push(l);
                }
            }
        }
        out
    }

    fn xor(&self, offset: u64) -> CombineTree {
        match self {
            CombineTree::Leaf(k) => CombineTree::Leaf(k ^ offset),
            CombineTree::Combine(l, r) => {
                CombineTree::Combine(Box::new(l.xor(offset)), Box::new(r.xor(offset)))
            }
        }
    }

    fn combine(lhs: CombineTree, rhs: CombineTree) -> CombineTree {
        CombineTree::Combine(Box::new(lhs), Box::new(rhs))
    }
}

impl fmt::Display for CombineTree {
    /// `((0 + 1) + (2 + 3))`: `+` stands for the combiner.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            CombineTree::Leaf(k) => write!(f, "{k}"),
            CombineTree::Combine(l, r) => write!(f, "({l} + {r})"),
        }
    }
}

/// The butterfly steps over the bases that move along `axis`, highest bit first.
fn butterfly_steps(bases: &[Vec<u64>], axis: usize) -> Vec<ButterflyStep> {
    bases
        .iter()
        .enumerate()
        .rev()
        .filter(|(_, b)| b[axis] != 0)
        .map(|(i, b)| ButterflyStep {
            xor_mask: 1 << i,
            axis_offset: b[axis],
        })
        .collect()
}

impl ReductionSchedule {
    /// The schedule of a reduction over `axis` of a `shape` block in `layout`.
    pub fn new(layout: &Layout, shape: &[u64], axis: usize) -> Result<Self, LayoutError> {
        let linear = layout.to_linear(shape)?;
        Self::from_linear(&linear, axis)
    }

    /// The schedule of a reduction over `axis` of a block in the linear layout `linear`.
    pub fn from_linear(linear: &LinearLayout, axis: usize) -> Result<Self, LayoutError> {
        if axis >= linear.shape.len() {
            return Err(LayoutError::Malformed(format!(
                "axis {axis} of a rank-{} block",
                linear.shape.len()
            )));
        }
        // The registers of one output element: those that only move along the axis, with
        // the other coordinates at 0, in register order.
        let register_positions = linear
            .register_coords()
            .into_iter()
            .filter(|c| c.iter().enumerate().all(|(d, &x)| d == axis || x == 0))
            .map(|c| c[axis])
            .collect();
        Ok(ReductionSchedule {
            shape: linear.shape.clone(),
            axis,
            register_positions,
            lane_steps: butterfly_steps(&linear.lanes, axis),
            warp_steps: butterfly_steps(&linear.warps, axis),
        })
    }

    /// The extent of the reduced dim.
    pub fn len(&self) -> u64 {
        self.shape[self.axis]
    }

    /// Whether the reduced dim is empty (never, for Triton blocks).
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Whether the reduction needs shared memory (warps split the axis).
    pub fn crosses_warps(&self) -> bool {
        !self.warp_steps.is_empty()
    }

    /// The combination tree over axis positions, as warp 0, lane 0 computes it.
    pub fn tree(&self) -> CombineTree {
        let mut regs = self.register_positions.iter();
        let first = *regs
            .next()
            .expect("invariant: a layout gives every thread at least one register");
        let mut acc = CombineTree::Leaf(first);
        for &k in regs {
            acc = CombineTree::combine(acc, CombineTree::Leaf(k));
        }
        for step in self.lane_steps.iter().chain(&self.warp_steps) {
            let partner = acc.xor(step.axis_offset);
            acc = CombineTree::combine(acc, partner);
        }
        acc
    }

    /// Folds values along [`Self::tree`]: `leaf(k)` reads the element at axis position
    /// `k` (of the output element being computed), `combine(lhs, rhs)` is the combiner.
    pub fn evaluate<T>(
        &self,
        mut leaf: impl FnMut(u64) -> T,
        mut combine: impl FnMut(T, T) -> T,
    ) -> T {
        fn go<T>(
            t: &CombineTree,
            leaf: &mut impl FnMut(u64) -> T,
            combine: &mut impl FnMut(T, T) -> T,
        ) -> T {
            match t {
                CombineTree::Leaf(k) => leaf(*k),
                CombineTree::Combine(l, r) => {
                    let l = go(l, leaf, combine);
                    let r = go(r, leaf, combine);
                    combine(l, r)
                }
            }
        }
        go(&self.tree(), &mut leaf, &mut combine)
    }
}

/// The schedule for a block lowered with Triton's default layout (one element per
/// thread, last dim fastest) for `num_warps`: what a reduction sees when no load or
/// store gave its input a coalesced layout. The default layout does not depend on the
/// element type; `dtype` is part of the signature so callers need not know that.
pub fn default_reduction_schedule(
    shape: &[u64],
    axis: usize,
    dtype: DType,
    num_warps: u32,
) -> Result<ReductionSchedule, LayoutError> {
    let _ = dtype;
    let layout = Layout::Blocked(BlockedLayout::default_for(shape, num_warps));
    ReductionSchedule::new(&layout, shape, axis)
}
