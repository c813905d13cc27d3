//! The `tritonc-hoist-dot-operands` pass: a tensor-core dot in a loop whose operand is
//! the same every iteration (attention's Q tile) reads it from one shared buffer filled
//! once before the loop, instead of staging it in shared memory again each iteration.
//!
//! For a `tt.dot` in the `#ttg.nvidia_mma` layout directly in the body of an `scf.for`,
//! each A or B operand that is defined outside the loop, is a 2-D block in registers
//! (not already a buffer's `ttg.local_load`, not the dot's own accumulator layout, which
//! the dot reads from registers) and is not fp8 (widened in registers first) becomes:
//! - before the loop, `%buf = ttg.local_alloc %operand` in the operand's shared layout
//!   ([`crate::accelerate::operand_shared_layout`], the one its staging would use);
//! - in the body, before the dot, `ttg.local_load %buf` as the dot's operand;
//! - after the loop, `ttg.local_dealloc %buf`.
//!
//! The dot then reads its fragments from the buffer with `ldmatrix` per K step, as it
//! reads a pipelined operand. A buffer is added only while the function's buffers stay
//! within the target's shared memory less what the rest of the kernel needs.

use tritonc_ir::layout::Layout;
use tritonc_ir::{Builder, Function, MemDescType, OpId, OpKind, Type, Value};

use crate::pipeline::{GpuOptions, GpuPass};
use crate::TtgirError;

/// Hoists loop-invariant tensor-core dot operands into shared buffers.
#[derive(Debug, Clone, Copy, Default)]
pub struct HoistDotOperands;

use crate::software_pipeline::{encloses, RESERVED_SHARED};

impl GpuPass for HoistDotOperands {
    fn name(&self) -> &'static str {
        "tritonc-hoist-dot-operands"
    }

    fn run(&self, func: &mut Function, options: &GpuOptions) -> Result<(), TtgirError> {
        if options.capability() < 80 {
            return Ok(());
        }
        let limit = options
            .shared_memory_per_block()
            .saturating_sub(RESERVED_SHARED);
        let mut used: u64 = func
            .walk()
            .into_iter()
            .filter(|&op| matches!(func.kind(op), OpKind::LocalAlloc { .. }))
            .filter_map(|op| {
                func.value_type(func.op(op).results()[0])
                    .memdesc()
                    .and_then(|m| m.bytes())
            })
            .sum();
        for dot in func.walk() {
            if !matches!(func.kind(dot), OpKind::Dot { .. }) {
                continue;
            }
            let result = func.op(dot).results()[0];
            let Some(Layout::Mma(mma)) = func.value_type(result).encoding().cloned() else {
                continue;
            };
            let Some(for_op) = enclosing_for(func, dot) else {
                continue;
            };
            for operand in 0..2 {
                let v = func.op(dot).operands()[operand];
                let Some(buffer) = buffer_type(func, v, operand, &mma) else {
                    continue;
                };
                if defined_inside(func, v, for_op) {
                    continue;
                }
                let bytes = buffer.bytes().unwrap_or(u64::MAX / 4);
                if used + bytes > limit {
                    continue;
                }
                used += bytes;
                hoist(func, for_op, dot, operand, v, buffer);
            }
        }
        Ok(())
    }
}

/// The `scf.for` whose body holds `op` directly.
fn enclosing_for(f: &Function, op: OpId) -> Option<OpId> {
    let block = f.op(op).parent()?;
    let parent = f.block_parent_op(block)?;
    matches!(f.kind(parent), OpKind::For { .. }).then_some(parent)
}

/// Whether `v` is computed inside `for_op` (an op of its body or a nested region, or one
/// of its block arguments).
fn defined_inside(f: &Function, v: Value, for_op: OpId) -> bool {
    let block = match f.value_def(v) {
        tritonc_ir::ValueDef::OpResult { op, .. } => f.op(op).parent(),
        tritonc_ir::ValueDef::BlockArg { block, .. } => Some(block),
    };
    block.is_some_and(|b| encloses(f, for_op, b))
}

/// The buffer an operand `v` of a tensor-core dot is hoisted into, or `None` when it
/// stays as it is.
fn buffer_type(
    f: &Function,
    v: Value,
    operand: usize,
    mma: &tritonc_ir::MmaLayout,
) -> Option<MemDescType> {
    if f
        .defining_op(v)
        .is_some_and(|d| matches!(f.kind(d), OpKind::LocalLoad))
    {
        return None;
    }
    let ty = f.value_type(v);
    let shape = ty.known_shape().filter(|s| s.len() == 2)?;
    let dtype = ty.dtype()?;
    if (dtype.is_fp8() && !mma.is_wgmma()) || dtype.bitwidth() == Some(1) {
        return None;
    }
    let layout = ty.encoding()?;
    if matches!(layout, Layout::Mma(m) if m == mma) {
        return None;
    }
    let linear = layout.to_linear(&shape).ok()?;
    let elem_bytes = u64::from(dtype.size_bytes()?);
    let shared = crate::accelerate::operand_layout_for(
        mma,
        &linear,
        operand,
        [shape[0], shape[1]],
        elem_bytes,
    );
    Some(MemDescType {
        shape,
        elem: dtype,
        layout: shared,
        mutable: false,
    })
}

fn hoist(f: &mut Function, for_op: OpId, dot: OpId, operand: usize, v: Value, buffer: MemDescType) {
    let loc = f.op(for_op).loc.clone();
    let ty = f.value_type(v).clone();
    let mut b = Builder::before(f, for_op);
    b.set_loc(loc.clone());
    let alloc = b.insert(
        OpKind::LocalAlloc { offset: None },
        &[v],
        vec![Type::MemDesc(buffer)],
    );
    let buf = b.func().op(alloc).results()[0];
    let dot_loc = f.op(dot).loc.clone();
    let mut b = Builder::before(f, dot);
    b.set_loc(dot_loc);
    let load = b.insert(OpKind::LocalLoad, &[buf], vec![ty]);
    let loaded = b.func().op(load).results()[0];
    f.set_operand(dot, operand, loaded);
    let block = f.op(for_op).parent().expect("invariant: a loop is in a block");
    let at = f
        .position_in_block(for_op)
        .expect("invariant: the loop is in its block");
    let next = f.block(block).ops()[at + 1];
    let mut b = Builder::before(f, next);
    b.set_loc(loc);
    b.insert(OpKind::LocalDealloc, &[buf], Vec::new());
}
