//! The `tritonc-pipeline-loops` pass: `num_stages` software pipelining of the K loops
//! that feed tensor-core dots (Triton's `tritongpu-pipeline` for `mma.sync` code).
//!
//! The loads of a dot's operands become `ttg.async_copy_global_to_local` copies into
//! `S = max(2, num_stages − 1)` shared buffers (Triton's buffer count for `mma.sync`
//! code), issued `S` iterations ahead of the dot, which reads its operand with
//! `ttg.local_load` from the buffer of its own iteration.
//!
//! A load is pipelined when it is in the body of an `scf.for` (directly), its only user is
//! a dot in the same body whose result is in the `#ttg.nvidia_mma` layout, its `other` is
//! absent or zero, and its vectors (4, 8 or 16 bytes, what `cp.async` moves) run along the
//! rows of the operand's shared layout ([`crate::accelerate::operand_shared_layout`]): the
//! copy then lands exactly where the dot reads. Its address and mask must be computed in
//! the body from the induction variable, values defined before the loop and loop-carried
//! values whose next value is computed the same way (pointer increments): that part of
//! the body (the *slice*) is cloned for the iterations copied ahead.
//!
//! The loop becomes:
//! - before it, one `ttg.local_alloc` of `S` buffers per load, then the slice for
//!   iterations `0 … S−1` with their copies into buffers `0 … S−1` (one
//!   `ttg.async_commit_group` each), each copy masked off past the trip count (a masked
//!   `cp.async` writes zeros and reads nothing);
//! - in iteration `i`: `ttg.async_wait {num = S−1}` (iteration `i`'s copies have landed
//!   for the thread that issued them), then the body, its loads replaced by
//!   `ttg.local_load` of buffer `i mod S`; at its end the slice for iteration `i+S` (from a
//!   carried look-ahead copy of the loop state) and its copies into the same buffer, one
//!   commit. The copies are issued behind the dot, as Triton's pipeline issues them: their
//!   address arithmetic and issue overlap the tensor-core work in flight instead of
//!   delaying the first fragment loads of the iteration. The loop carries the look-ahead
//!   state and the index of the buffer it reads. The barriers (after the wait, before the
//!   copies overwrite a buffer other threads may still read) are `tritonc-place-barriers`'s;
//! - after it, `ttg.async_wait {num = 0}` and a `ttg.local_dealloc` of each buffer.
//!
//! A loop whose dots are `wgmma`s (`#ttg.nvidia_mma` version 3) is pipelined as Triton
//! pipelines them: `S = num_stages` buffers and copies issued `S − 1` iterations ahead,
//! into the buffer the *previous* iteration's dot read, because a `wgmma` reads its
//! operands from the buffer while it runs: the dot of iteration `i` may still be in
//! flight after it (`tritonc-wgmma-waits` waits for all but the last group before the
//! copies), so the copies of iteration `i` must not overwrite buffer `i mod S`. fp8
//! operands are copied as they are (a `wgmma` multiplies them natively).
//!
//! `num_stages` is the loop's own (`tl.range(..., num_stages=N)`, kept on its `scf.for`)
//! or else the launch's. `S` is lowered until every pipelined loop's buffers fit the
//! target's shared memory with 16 KiB left for the rest of the kernel; a loop whose
//! buffers cannot hold two stages is left alone, and so is a loop whose `num_stages` is
//! below 2, and every loop when the target has no `cp.async` (before `sm_80`).

use std::collections::{HashMap, HashSet};

use tritonc_ir::layout::Layout;
use tritonc_ir::{
    BinaryOp, BlockId, Builder, CmpIPredicate, DType, Elem, Function, MemDescType, OpId,
    OpKind, Type, Value,
};

use crate::assign::LayoutAssignment;
use crate::pipeline::{GpuOptions, GpuPass};
use crate::TtgirError;

/// Pipelines the K loops of tensor-core dots with asynchronous copies.
#[derive(Debug, Clone, Copy, Default)]
pub struct PipelineLoops;

/// Shared memory left to the rest of the kernel (conversions, the epilogue, reductions)
/// beside the pipeline buffers.
pub(crate) const RESERVED_SHARED: u64 = 16 * 1024;

/// One load turned into asynchronous copies.
struct PipelinedLoad {
    /// The `tt.load`.
    load: OpId,
    /// One buffer of its operand (no buffer dim).
    buffer: MemDescType,
}

/// How one `scf.for` is pipelined.
struct LoopPlan {
    for_op: OpId,
    /// Buffers per load.
    stages: u32,
    /// Whether the loop's dots are `wgmma`s: copies `stages − 1` iterations ahead into
    /// the buffer the previous iteration read.
    wgmma: bool,
    loads: Vec<PipelinedLoad>,
    /// Body ops (in body order) that the loads' pointers and masks and the carried state
    /// need.
    slice: Vec<OpId>,
    /// Indices of the loop-carried values (`iter_args`) the slice reads.
    carried: Vec<usize>,
}

impl GpuPass for PipelineLoops {
    fn name(&self) -> &'static str {
        "tritonc-pipeline-loops"
    }

    fn run(&self, func: &mut Function, options: &GpuOptions) -> Result<(), TtgirError> {
        if options.capability() < 80 {
            return Ok(());
        }
        let access = LayoutAssignment::from_gpu_ir(func, options.num_warps, options.warp_size())?;
        let limit = options
            .shared_memory_per_block()
            .saturating_sub(RESERVED_SHARED);
        let mut region = 0u64;
        let mut plans = Vec::new();
        for op in func.walk() {
            let OpKind::For { num_stages } = *func.kind(op) else {
                continue;
            };
            // The loop's own `tl.range(num_stages=)`, else the launch's.
            let num_stages = num_stages.unwrap_or(options.num_stages);
            if num_stages < 2 {
                continue;
            }
            let Some(mut plan) = plan_loop(func, &access, op, num_stages) else {
                continue;
            };
            // Fewer stages until the buffers fit beside the other loops' buffers.
            let per_stage: u64 = plan
                .loads
                .iter()
                .map(|l| l.buffer.buffer_stride_bytes().unwrap_or(u64::MAX / 4))
                .sum();
            // A `wgmma` loop needs a buffer more than it copies ahead.
            let least = if plan.wgmma { 3 } else { 2 };
            while plan.stages >= least && region + per_stage * u64::from(plan.stages) > limit {
                plan.stages -= 1;
            }
            if plan.stages < least {
                continue;
            }
            region += per_stage * u64::from(plan.stages);
            plans.push(plan);
        }
        for plan in &plans {
            rewrite(func, plan);
        }
        Ok(())
    }
}

/// Whether `kind` may be evaluated again for another iteration (no effects, no regions,
/// no memory reads).
fn replayable(kind: &OpKind) -> bool {
    kind.num_regions() == 0
        && !kind.has_side_effects()
        && !kind.is_terminator()
        && (!kind.is_gpu_only() || matches!(kind, OpKind::ConvertLayout))
        && !matches!(
            kind,
            OpKind::Load { .. }
                | OpKind::Dot { .. }
                | OpKind::AtomicRmw { .. }
                | OpKind::AtomicCas { .. }
        )
}

fn plan_loop(
    f: &Function,
    access: &LayoutAssignment,
    for_op: OpId,
    num_stages: u32,
) -> Option<LoopPlan> {
    let body = f.region_entry(for_op, 0)?;
    let args = f.block(body).args().to_vec();
    let in_body: HashSet<OpId> = f.block(body).ops().iter().copied().collect();
    let position: HashMap<OpId, usize> = f
        .block(body)
        .ops()
        .iter()
        .enumerate()
        .map(|(i, &o)| (o, i))
        .collect();
    let term = *f.block(body).ops().last()?;
    let mut loads = Vec::new();
    let mut wgmma = None;
    for &dot in f.block(body).ops() {
        if !matches!(f.kind(dot), OpKind::Dot { .. }) {
            continue;
        }
        let r = f.op(dot).results()[0];
        let Some(Layout::Mma(mma)) = f.value_type(r).encoding() else {
            continue;
        };
        // One schedule per loop: every tensor-core dot in it the same kind.
        if *wgmma.get_or_insert(mma.is_wgmma()) != mma.is_wgmma() {
            return None;
        }
        for i in 0..2 {
            let v = f.op(dot).operands()[i];
            let Some(load) = f.defining_op(v) else { continue };
            let OpKind::Load { is_volatile, .. } = *f.kind(load) else {
                continue;
            };
            if is_volatile || !in_body.contains(&load) || f.uses(v).len() != 1 {
                continue;
            }
            if f.op(load).operands().len() > 2
                && !tritonc_ir::passes::is_zero(f, f.op(load).operands()[2])
            {
                continue;
            }
            if let Some(p) = plan_load(f, access, mma, i, load) {
                loads.push(p);
            }
        }
    }
    if loads.is_empty() {
        return None;
    }
    // The slice: what the loads' pointers and masks need, closed over the carried values
    // it reads and what computes their next values.
    let mut needed: HashSet<OpId> = HashSet::new();
    let mut carried: HashSet<usize> = HashSet::new();
    let mut work: Vec<Value> = Vec::new();
    for l in &loads {
        work.extend(f.op(l.load).operands().iter().take(2).copied());
    }
    while let Some(v) = work.pop() {
        if let Some(k) = args.iter().position(|&a| a == v) {
            if k > 0 && carried.insert(k - 1) {
                // Its next value comes from the yield.
                work.push(f.op(term).operands()[k - 1]);
            }
            continue;
        }
        let Some(def) = f.defining_op(v) else { continue };
        if !in_body.contains(&def) {
            // Defined before the loop, or nested in another region of the body.
            if f.op(def).parent().is_some_and(|b| encloses(f, for_op, b)) {
                return None;
            }
            continue;
        }
        if !replayable(f.kind(def)) {
            return None;
        }
        if needed.insert(def) {
            work.extend(f.op(def).operands().iter().copied());
        }
    }
    let mut slice: Vec<OpId> = needed.into_iter().collect();
    slice.sort_by_key(|o| position[o]);
    let mut carried: Vec<usize> = carried.into_iter().collect();
    carried.sort_unstable();
    let wgmma = wgmma.unwrap_or(false);
    // Triton's buffer counts: `num_stages` for `wgmma`, `max(2, num_stages − 1)` for
    // `mma.sync` (whose fragments are in registers before the buffer is refilled).
    let stages = if wgmma {
        num_stages.max(3)
    } else {
        num_stages.saturating_sub(1).max(2)
    };
    Some(LoopPlan {
        for_op,
        stages,
        wgmma,
        loads,
        slice,
        carried,
    })
}

/// Whether block `b` is (nested) inside `op`.
pub(crate) fn encloses(f: &Function, op: OpId, mut b: BlockId) -> bool {
    loop {
        let Some(parent) = f.block_parent_op(b) else {
            return false;
        };
        if parent == op {
            return true;
        }
        let Some(pb) = f.op(parent).parent() else {
            return false;
        };
        b = pb;
    }
}

fn plan_load(
    f: &Function,
    access: &LayoutAssignment,
    mma: &tritonc_ir::MmaLayout,
    operand: usize,
    load: OpId,
) -> Option<PipelinedLoad> {
    let v = f.op(load).results()[0];
    let ty = f.value_type(v);
    let shape = ty.known_shape().filter(|s| s.len() == 2)?;
    let dtype = ty.dtype()?;
    if !matches!(f.value_type(f.op(load).operands()[0]).elem(), Elem::Ptr(p) if p.addr_space == 1)
        || matches!(dtype, DType::I1)
        // fp8 operands are widened in registers before `mma.sync` stages them.
        || (dtype.is_fp8() && !mma.is_wgmma())
    {
        return None;
    }
    let elem_bytes = u64::from(dtype.size_bytes()?);
    let linear = ty.encoding()?.to_linear(&shape).ok()?;
    let layout = crate::accelerate::operand_layout_for(
        mma,
        &linear,
        operand,
        [shape[0], shape[1]],
        elem_bytes,
    );
    let vec = access.access(load).map_or(1, |p| p.vector_width) as u64;
    // The vector must run along the stored rows.
    let fast = layout.order[0] as usize;
    if !matches!(vec * elem_bytes, 4 | 8 | 16) || u64::from(linear.contiguous_registers(fast)) < vec
    {
        return None;
    }
    Some(PipelinedLoad {
        load,
        buffer: MemDescType {
            shape,
            elem: dtype,
            layout,
            mutable: true,
        },
    })
}

/// The multi-buffered type of `buffer`: `stages` of them.
fn stacked(buffer: &MemDescType, stages: u32) -> MemDescType {
    let mut shape = vec![u64::from(stages)];
    shape.extend(&buffer.shape);
    MemDescType {
        shape,
        ..buffer.clone()
    }
}

fn single(b: &mut Builder<'_>, kind: OpKind, operands: &[Value], ty: Type) -> Value {
    let op = b.insert(kind, operands, vec![ty]);
    b.func().op(op).results()[0]
}

/// Clones the slice for the iteration at `iv` with the carried values `state`, then
/// issues the copies of every pipelined load into buffer `index` of `buffers`, masked off
/// unless `iv < ub`, and commits them as one group. Returns the carried state of the
/// next iteration.
#[allow(clippy::too_many_arguments)]
fn prefetch(
    b: &mut Builder<'_>,
    plan: &LoopPlan,
    body: BlockId,
    iv: Value,
    state: &[Value],
    ub: Value,
    index: Value,
    buffers: &[Value],
) -> Vec<Value> {
    let args = b.func().block(body).args().to_vec();
    let term = *b
        .func()
        .block(body)
        .ops()
        .last()
        .expect("invariant: a planned loop body ends in its yield");
    let mut map: HashMap<Value, Value> = HashMap::new();
    map.insert(args[0], iv);
    for (&k, &s) in plan.carried.iter().zip(state) {
        map.insert(args[k + 1], s);
    }
    let mapped = |map: &HashMap<Value, Value>, v: Value| map.get(&v).copied().unwrap_or(v);
    let loc = b.loc().clone();
    for &op in &plan.slice {
        let op_loc = b.func().op(op).loc.clone();
        b.set_loc(op_loc);
        let data = b.func().op(op);
        let kind = data.kind.clone();
        let operands: Vec<Value> = data.operands().iter().map(|&v| mapped(&map, v)).collect();
        let results = data.results().to_vec();
        let types: Vec<Type> = results.iter().map(|&r| b.type_of(r)).collect();
        let clone = b.insert(kind, &operands, types);
        let new_results = b.func().op(clone).results().to_vec();
        for (old, new) in results.into_iter().zip(new_results) {
            map.insert(old, new);
        }
    }
    b.set_loc(loc.clone());
    let in_range = b.cmpi(CmpIPredicate::Slt, iv, ub);
    let mut tokens = Vec::new();
    for (l, &buffers) in plan.loads.iter().zip(buffers) {
        let load_loc = b.func().op(l.load).loc.clone();
        b.set_loc(load_loc);
        let data = b.func().op(l.load);
        let OpKind::Load { cache, evict, .. } = data.kind else {
            unreachable!("invariant: a pipelined op is a load")
        };
        let ptr = mapped(&map, data.operands()[0]);
        let mask = data.operands().get(1).map(|&m| mapped(&map, m));
        let ptr_ty = b.type_of(ptr);
        let mask_ty = ptr_ty
            .with_dtype(DType::I1)
            .with_encoding(ptr_ty.encoding().cloned());
        let live = single(b, OpKind::Splat, &[in_range], mask_ty);
        let mask = match mask {
            Some(m) => b.binary(BinaryOp::AndI, m, live),
            None => live,
        };
        let view = single(
            b,
            OpKind::MemDescIndex,
            &[buffers, index],
            Type::MemDesc(l.buffer.clone()),
        );
        tokens.push(single(
            b,
            OpKind::AsyncCopyGlobalToLocal { cache, evict },
            &[ptr, view, mask],
            Type::AsyncToken,
        ));
    }
    b.set_loc(loc);
    single(b, OpKind::AsyncCommitGroup, &tokens, Type::AsyncToken);
    plan.carried
        .iter()
        .map(|&k| mapped(&map, b.func().op(term).operands()[k]))
        .collect()
}

/// Appends a loop-carried value initialised to `init` to `for_op`: an operand, a result
/// and a body argument (the yield's operand is the caller's to add).
fn add_iter_arg(f: &mut Function, for_op: OpId, body: BlockId, init: Value) -> Value {
    let ty = f.value_type(init).clone();
    f.push_operand(for_op, init);
    f.add_result(for_op, ty.clone());
    f.add_block_arg(body, ty)
}

fn rewrite(f: &mut Function, plan: &LoopPlan) {
    let for_op = plan.for_op;
    let body = f
        .region_entry(for_op, 0)
        .expect("invariant: a planned loop has a body");
    let loc = f.op(for_op).loc.clone();
    let s = plan.stages;
    // Iterations copied ahead: all S buffers, or (`wgmma`) all but the one the dot in
    // flight reads.
    let ahead_n = if plan.wgmma { s - 1 } else { s };
    let (lb, ub, step) = {
        let o = f.op(for_op).operands();
        (o[0], o[1], o[2])
    };
    let iv_ty = f.value_type(f.block(body).args()[0]).clone();
    let inits: Vec<Value> = plan
        .carried
        .iter()
        .map(|&k| f.op(for_op).operands()[3 + k])
        .collect();

    // The buffers and the prologue: iterations 0 … A−1 into buffers 0 … A−1 (A = the
    // iterations copied ahead).
    let mut b = Builder::before(f, for_op);
    b.set_loc(loc.clone());
    let buffers: Vec<Value> = plan
        .loads
        .iter()
        .map(|l| {
            single(
                &mut b,
                OpKind::LocalAlloc { offset: None },
                &[],
                Type::MemDesc(stacked(&l.buffer, s)),
            )
        })
        .collect();
    let mut state = inits;
    for i in 0..ahead_n {
        let k = b.const_int(i128::from(i), iv_ty.clone());
        let off = b.binary(BinaryOp::MulI, k, step);
        let iv = b.binary(BinaryOp::AddI, lb, off);
        let index = b.const_i32(i as i32);
        state = prefetch(&mut b, plan, body, iv, &state, ub, index, &buffers);
    }
    let zero = b.const_i32(0);

    // The loop carries the look-ahead state and the index of the buffer it reads.
    let look: Vec<Value> = state
        .iter()
        .map(|&v| add_iter_arg(f, for_op, body, v))
        .collect();
    let read = add_iter_arg(f, for_op, body, zero);
    let iv = f.block(body).args()[0];
    let first = f.block(body).ops()[0];
    let term = *f.block(body).ops().last().expect("invariant: a body ends in its yield");

    // Iteration i starts by waiting for its copies.
    let mut b = Builder::before(f, first);
    b.set_loc(loc.clone());
    single(&mut b, OpKind::AsyncWait { num: ahead_n - 1 }, &[], Type::AsyncToken);

    // The dots read buffer i mod S.
    for (l, &buffers) in plan.loads.iter().zip(&buffers) {
        let loaded = f.op(l.load).results()[0];
        let ty = f.value_type(loaded).clone();
        let mut b = Builder::before(f, l.load);
        let load_loc = b.func().op(l.load).loc.clone();
        b.set_loc(load_loc);
        let view = single(
            &mut b,
            OpKind::MemDescIndex,
            &[buffers, read],
            Type::MemDesc(l.buffer.clone()),
        );
        let value = single(&mut b, OpKind::LocalLoad, &[view], ty);
        let operands = f.op(l.load).operands().to_vec();
        f.replace_all_uses(loaded, value);
        f.erase_op(l.load);
        erase_dead(f, &operands);
    }

    // At its end: copy iteration i + A into buffer (i + A) mod S — buffer i mod S, or
    // (`wgmma`) the previous iteration's; then the next buffer to read, and the yield of
    // the new carried values.
    let mut b = Builder::before(f, term);
    b.set_loc(loc.clone());
    let ahead = b.const_int(i128::from(ahead_n), iv_ty);
    let ahead = b.binary(BinaryOp::MulI, ahead, step);
    let iv_ahead = b.binary(BinaryOp::AddI, iv, ahead);
    let write = if plan.wgmma {
        // (read − 1) mod S.
        let zero = b.const_i32(0);
        let one = b.const_i32(1);
        let last = b.const_i32(s as i32 - 1);
        let is_first = b.cmpi(CmpIPredicate::Eq, read, zero);
        let dec = b.binary(BinaryOp::SubI, read, one);
        b.select(is_first, last, dec)
    } else {
        read
    };
    let next_look = prefetch(&mut b, plan, body, iv_ahead, &look, ub, write, &buffers);
    let zero = b.const_i32(0);
    let one = b.const_i32(1);
    let last = b.const_i32(s as i32 - 1);
    let is_last = b.cmpi(CmpIPredicate::Eq, read, last);
    let inc = b.binary(BinaryOp::AddI, read, one);
    let next_read = b.select(is_last, zero, inc);
    for v in next_look {
        f.push_operand(term, v);
    }
    f.push_operand(term, next_read);

    // After the loop: the last groups (copies past the trip count) drain, and the buffers
    // end.
    let block = f.op(for_op).parent().expect("invariant: a loop is in a block");
    let at = f.position_in_block(for_op).expect("invariant: the loop is in its block");
    let next = f.block(block).ops()[at + 1];
    let mut b = Builder::before(f, next);
    b.set_loc(loc);
    single(&mut b, OpKind::AsyncWait { num: 0 }, &[], Type::AsyncToken);
    for &buf in &buffers {
        b.insert(OpKind::LocalDealloc, &[buf], Vec::new());
    }
}

/// Erases the ops computing `values` that nothing uses any more (and, in turn, what only
/// they used), when they have no effects.
fn erase_dead(f: &mut Function, values: &[Value]) {
    let mut work: Vec<Value> = values.to_vec();
    while let Some(v) = work.pop() {
        let Some(def) = f.defining_op(v) else { continue };
        let data = f.op(def);
        if data.is_erased()
            || data.kind.has_side_effects()
            || data.kind.num_regions() > 0
            || data.results().iter().any(|&r| f.has_uses(r))
        {
            continue;
        }
        work.extend(data.operands().iter().copied());
        f.erase_op(def);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tritonc_ir::SharedLayout;

    #[test]
    fn stacking_adds_the_buffer_dim() {
        let one = MemDescType {
            shape: vec![64, 32],
            elem: DType::F16,
            layout: SharedLayout::padded(vec![1, 0], 32, 8),
            mutable: true,
        };
        let three = stacked(&one, 3);
        assert_eq!(three.shape, vec![3, 64, 32]);
        assert_eq!(three.num_buffers(), 3);
        assert_eq!(three.bytes(), Some(3 * 64 * 40 * 2));
    }
}
