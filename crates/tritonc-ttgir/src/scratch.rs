//! Which ops of a GPU-IR function stage values through the kernel's shared scratch.
//!
//! An op that moves elements between threads it cannot reach by shuffles writes them to
//! shared memory, waits at a barrier inside the op, and reads them back: a layout
//! conversion that cannot be recomputed in the target layout, a reduction or scan whose
//! axis spans warps, a dot on the FMA path (both operands) or a tensor-core dot with an
//! operand that is neither in a buffer nor in registers, the shape ops (`tt.trans`,
//! `tt.reshape`, `tt.join`, `tt.split`, `tt.cat`), and a scalar atomic whose old value is
//! used (broadcast from the thread that did it).
//!
//! [`scratch_ops`] is the one answer both sides use: `tritonc-place-barriers` places the
//! barriers between ops from it, and the back end refuses to touch scratch in an op it
//! does not name (an internal error, never an unsynchronized write). The layout
//! conversion rule follows the back end's: a conversion of a value already converted to
//! the same layout in the same region (or an enclosing one) reuses it, and a value built
//! only from constants, splats, ranges, broadcasts and elementwise arithmetic on them is
//! recomputed in the target layout (Triton's rematerialization, at most
//! [`REMATERIALIZE_DEPTH`] ops deep).

use std::collections::HashSet;

use tritonc_ir::{Function, OpId, OpKind, Value};

use crate::layout::Layout;
use crate::reduction::ReductionSchedule;
use crate::scan::{ScanSchedule, ScanUnit};
use crate::LayoutAssignment;

/// How many ops deep a conversion's operand is recomputed in the target layout.
pub const REMATERIALIZE_DEPTH: u32 = 12;

/// The ops of `func` that use shared scratch (see the module docs).
pub fn scratch_ops(func: &Function, layouts: &LayoutAssignment) -> HashSet<OpId> {
    let mut walk = Walk {
        func,
        layouts,
        converted: HashSet::new(),
        out: HashSet::new(),
    };
    walk.block(func.entry_block());
    walk.out
}

struct Walk<'f> {
    func: &'f Function,
    layouts: &'f LayoutAssignment,
    /// `(value, layout)` pairs already available in the region being walked.
    converted: HashSet<(Value, Layout)>,
    out: HashSet<OpId>,
}

impl Walk<'_> {
    fn block(&mut self, block: tritonc_ir::BlockId) {
        for &op in self.func.block(block).ops() {
            if self.uses_scratch(op) {
                self.out.insert(op);
            }
            for &region in self.func.op(op).regions() {
                // What a region converts is not available after it.
                let saved = self.converted.clone();
                for &b in self.func.region(region).blocks() {
                    self.block(b);
                }
                self.converted = saved;
            }
        }
    }

    fn uses_scratch(&mut self, op: OpId) -> bool {
        let f = self.func;
        let data = f.op(op);
        match f.kind(op) {
            OpKind::ConvertLayout => {
                let (v, r) = (data.operands()[0], data.results()[0]);
                let Some(to) = f.value_type(r).encoding().cloned() else {
                    return true;
                };
                if self.converted.contains(&(v, to.clone())) || self.rematerializable(v, &to, 0)
                {
                    return false;
                }
                self.converted.insert((v, to));
                true
            }
            OpKind::Reduce { axis } => {
                let input = data.operands()[0];
                let linear = self
                    .layouts
                    .operand_layout(f, op, 0)
                    .zip(f.value_type(input).known_shape())
                    .map(|(l, s)| l.to_linear(&s));
                match linear {
                    Some(Ok(l)) => ReductionSchedule::from_linear(&l, *axis as usize)
                        .map_or(true, |s| s.crosses_warps()),
                    _ => true,
                }
            }
            OpKind::Scan { axis, reverse } => {
                match self.layouts.linear(f, data.results()[0]) {
                    Some(Ok(l)) => ScanSchedule::from_linear(&l, *axis as usize, *reverse)
                        .map_or(true, |s| s.steps.iter().any(|s| s.unit == ScanUnit::Warp)),
                    _ => true,
                }
            }
            OpKind::Dot { .. } => self.dot_uses_scratch(op),
            OpKind::Trans { .. }
            | OpKind::Reshape { .. }
            | OpKind::Join
            | OpKind::Split
            | OpKind::Cat => true,
            OpKind::AtomicRmw { .. } | OpKind::AtomicCas { .. } => {
                let r = data.results()[0];
                f.has_uses(r) && !f.value_type(r).is_tensor()
            }
            _ => false,
        }
    }

    /// A dot on the FMA path stages both operands; a tensor-core dot stages an operand
    /// unless it is read from a buffer (`ttg.local_load`) or, for A, from registers (a
    /// chained dot's 16-bit operand already in this accumulator layout, one warp across
    /// N).
    fn dot_uses_scratch(&self, op: OpId) -> bool {
        let f = self.func;
        let data = f.op(op);
        let r = data.results()[0];
        let Some(Layout::Mma(mma)) = f.value_type(r).encoding() else {
            return true;
        };
        let from_buffer = |i: usize| {
            f.defining_op(data.operands()[i])
                .is_some_and(|d| matches!(f.kind(d), OpKind::LocalLoad))
        };
        if !from_buffer(1) {
            return true;
        }
        if from_buffer(0) {
            return false;
        }
        !self.a_in_registers(op, mma)
    }

    fn a_in_registers(&self, op: OpId, mma: &tritonc_ir::mma_layout::MmaLayout) -> bool {
        let f = self.func;
        let data = f.op(op);
        let (a, r) = (data.operands()[0], data.results()[0]);
        let (Some(a_shape), Some(r_shape), Some(dt)) = (
            f.value_type(a).known_shape(),
            f.value_type(r).known_shape(),
            f.value_type(a).dtype(),
        ) else {
            return false;
        };
        if a_shape.len() != 2 || mma.warps_per_cta.len() != 2 {
            return false;
        }
        if mma.is_wgmma() {
            return wgmma_a_in_registers(self.layouts.operand_layout(f, op, 0), mma, dt);
        }
        // fp8 is widened to fp16 before the instruction.
        let elem_bytes = if dt.is_fp8() {
            2
        } else {
            u64::from(dt.bitwidth().unwrap_or(8)) / 8
        };
        let (m, k) = (r_shape[0], a_shape[1]);
        let (wm, wn) = (u64::from(mma.warps_per_cta[0]), u64::from(mma.warps_per_cta[1]));
        let tiles_m = (m / (16 * wm)).max(1);
        let same_layout = matches!(
            self.layouts.operand_layout(f, op, 0),
            Some(Layout::Mma(a_mma)) if a_mma == mma
        );
        let registers = self
            .layouts
            .operand_layout(f, op, 0)
            .map(|l| l.to_linear(&a_shape))
            .and_then(Result::ok)
            .map(|l| u64::from(l.num_registers()));
        elem_bytes == 2 && wn == 1 && same_layout && registers == Some(4 * tiles_m * (k / 8))
    }

    /// Whether the back end recomputes `v` in layout `to` instead of moving it.
    fn rematerializable(&mut self, v: Value, to: &Layout, depth: u32) -> bool {
        let f = self.func;
        if !f.value_type(v).is_tensor() || self.converted.contains(&(v, to.clone())) {
            return true;
        }
        let Some(def) = f.defining_op(v) else {
            return false;
        };
        if matches!(f.kind(def), OpKind::ConvertLayout) {
            return self.rematerializable(f.op(def).operands()[0], to, depth);
        }
        if depth > REMATERIALIZE_DEPTH {
            return false;
        }
        let shape = f.value_type(v).known_shape();
        if shape.as_ref().map(|s| to.to_linear(s).is_ok()) != Some(true) {
            return false;
        }
        let ok = match f.kind(def) {
            OpKind::Constant(_) | OpKind::Splat | OpKind::MakeRange { .. } => true,
            OpKind::Broadcast | OpKind::ExpandDims { .. } => {
                let src = f.op(def).operands()[0];
                let src_layout = match f.kind(def) {
                    OpKind::ExpandDims { axis } => to.slice(*axis),
                    _ => to.clone(),
                };
                self.rematerializable(src, &src_layout, depth + 1)
            }
            OpKind::Binary(_)
            | OpKind::CmpI(_)
            | OpKind::CmpF(_)
            | OpKind::Select
            | OpKind::Cast { .. }
            | OpKind::AddPtr => {
                let operands = f.op(def).operands().to_vec();
                operands.into_iter().all(|o| {
                    let ty = f.value_type(o);
                    !(ty.is_tensor() && ty.known_shape() != shape)
                        && self.rematerializable(o, to, depth + 1)
                })
            }
            _ => false,
        };
        if ok {
            self.converted.insert((v, to.clone()));
        }
        ok
    }
}

/// Whether a `wgmma` dot in `mma` reads its A operand, in `a_layout`, from registers
/// (`wgmma`'s register-A form): a 16-bit A in a `wgmma` accumulator layout on the same
/// warps, all along M. Its registers are then the instruction's A fragments: the
/// accumulator layout of one warpgroup does not depend on the instruction's N.
pub fn wgmma_a_in_registers(
    a_layout: Option<&Layout>,
    mma: &tritonc_ir::mma_layout::MmaLayout,
    dt: tritonc_ir::DType,
) -> bool {
    matches!(
        a_layout,
        Some(Layout::Mma(a_mma)) if a_mma.is_wgmma() && a_mma.warps_per_cta == mma.warps_per_cta
    ) && mma.warps_per_cta[1] == 1
        && dt.bitwidth() == Some(16)
}
