//! `num_stages` pipelining of K loops that feed the tensor cores: the loads of a dot's
//! operands become `cp.async` copies into `S = max(2, num_stages − 1)` shared buffers
//! (Triton's buffer count for `mma.sync` code), issued `S − 1` iterations ahead of the
//! dot that reads them.
//!
//! A load is pipelined when it is in the body of an `scf.for` (directly), its only user is
//! an `mma.sync` dot in the same body, its `other` is absent or zero, and its vectors
//! (4, 8 or 16 bytes) are contiguous in the dot's staging layout (`mma.rs`): the copy then
//! lands exactly where the dot's `ldmatrix` reads. Its address and mask must be computed
//! in the body from the induction variable, values defined before the loop and
//! loop-carried values whose next value is computed the same way (pointer increments):
//! that part of the body (the *slice*) is evaluated again for later iterations.
//!
//! The loop becomes:
//! - before it, the slice for iterations `0 … S−2` with their copies (one commit group
//!   each), each masked off past the trip count (`cp.async` with source size 0 writes
//!   zeros and reads nothing);
//! - in iteration `i`: `cp.async.wait_group S−2` and a barrier (iteration `i`'s copies
//!   have landed, and every thread is done reading buffer `(i−1) mod S`); then the copies
//!   of iteration `i+S−1` into buffer `(i−1) mod S` (its slice evaluated from a carried
//!   look-ahead copy of the loop state), one commit; then the body, whose dot reads
//!   buffer `i mod S`;
//! - after it, `cp.async.wait_group 0` and a barrier.
//!
//! Buffers are placed at the start of shared memory; while they are live (from the
//! prologue's first copy to the drain) the scratch every other op uses follows them, and
//! elsewhere (a matmul's epilogue) it starts at 0 again, over the dead buffers. `S` is
//! lowered until the buffers fit the target's shared memory; a kernel with
//! `num_stages < 2` is not pipelined.

use std::collections::{HashMap, HashSet};

use melior::ir::{
    attribute::IntegerAttribute, r#type::IntegerType, Attribute, BlockLike, Type, Value,
    ValueLike,
};
use tritonc_ir::{BlockId, DType, Elem, OpId, OpKind};
use tritonc_ttgir::Layout;

use super::function::{FunctionLowering, Lowered};
use crate::body::IntPredicate;
use super::mma::{stage, Staged};
use super::LowerError;

/// One load turned into `cp.async` copies.
#[derive(Clone, Debug)]
pub(crate) struct PipelinedLoad {
    /// The `tt.load`.
    pub load: OpId,
    /// Its staging layout in one buffer (`byte_offset`: buffer 0's offset in the
    /// pipeline region).
    pub staged: Staged,
    /// Bytes between consecutive buffers.
    pub buffer_bytes: u64,
    /// Elements of one copy (the load's vector).
    pub vec: usize,
}

/// How one `scf.for` is pipelined.
#[derive(Clone, Debug)]
pub(crate) struct LoopPipeline {
    /// Stages (`S`): buffers per load.
    pub stages: u32,
    /// The pipelined loads.
    pub loads: Vec<PipelinedLoad>,
    /// Body ops (in body order) that the loads' operands and the carried state need.
    pub slice: Vec<OpId>,
    /// Indices of the loop-carried values (`iter_args`) the slice reads.
    pub carried: Vec<usize>,
}

/// Bytes of shared memory per block a target offers.
pub(crate) fn shared_limit(sm: u32) -> u64 {
    match sm {
        90.. => 232_448,
        80 => 166_912,
        86 | 87 | 89 => 101_376,
        75 => 65_536,
        70 | 72 => 98_304,
        _ => 49_152,
    }
}

/// Whether `kind` may be evaluated again for another iteration (no effects, no regions,
/// no memory reads).
fn replayable(kind: &OpKind) -> bool {
    kind.num_regions() == 0
        && !kind.has_side_effects()
        && !kind.is_terminator()
        && !matches!(
            kind,
            OpKind::Load { .. }
                | OpKind::Dot { .. }
                | OpKind::LocalAlloc
                | OpKind::LocalLoad
                | OpKind::AtomicRmw { .. }
                | OpKind::AtomicCas { .. }
        )
}

impl<'l, 'c, 'a> FunctionLowering<'l, 'c, 'a> {
    /// Plans the pipelining of every eligible `scf.for`, placing the buffers; returns
    /// the bytes they take. Called once before lowering.
    pub(super) fn plan_pipelines(&mut self) -> u64 {
        // Triton's num_stages keeps num_stages − 1 shared buffers per operand on sm_80
        // and later; so does this pipeline (at least 2), so a config takes the shared
        // memory it takes under Triton (and as many CTAs fit per SM).
        let stages = self.options.num_stages.saturating_sub(1).max(2);
        if self.options.num_stages < 2 || self.target_sm < 80 {
            return 0;
        }
        let mut region = 0u64;
        for op in self.func.walk() {
            if !matches!(self.func.kind(op), OpKind::For) {
                continue;
            }
            let Some(body) = self.func.region_entry(op, 0) else {
                continue;
            };
            let Some(mut plan) = self.plan_loop(op, body, stages) else {
                continue;
            };
            // Fewer stages until the buffers fit beside the other loops' buffers.
            let per_stage: u64 = plan.loads.iter().map(|l| l.buffer_bytes).sum();
            let limit = shared_limit(self.target_sm).saturating_sub(16 * 1024);
            while plan.stages >= 2 && region + per_stage * u64::from(plan.stages) > limit {
                plan.stages -= 1;
            }
            if plan.stages < 2 {
                continue;
            }
            let mut at = region;
            for l in &mut plan.loads {
                l.staged.byte_offset = at as u32;
                at += l.buffer_bytes * u64::from(plan.stages);
                self.pipelined.insert(l.load, l.clone());
            }
            region = at;
            self.pipelines.insert(op, plan);
        }
        region.next_multiple_of(128)
    }

    fn plan_loop(&self, for_op: OpId, body: BlockId, stages: u32) -> Option<LoopPipeline> {
        let f = self.func;
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
        for &dot in f.block(body).ops() {
            if !matches!(f.kind(dot), OpKind::Dot { .. }) {
                continue;
            }
            let r = f.op(dot).results()[0];
            let Some(Layout::Mma(_)) = f.value_type(r).encoding() else {
                continue;
            };
            for i in 0..2 {
                let v = f.op(dot).operands()[i];
                let Some(load) = f.defining_op(v) else { continue };
                let OpKind::Load { is_volatile, .. } = *f.kind(load) else {
                    continue;
                };
                if is_volatile || !in_body.contains(&load) || f.uses(v).len() != 1 {
                    continue;
                }
                if f.op(load).operands().len() > 2 && !tritonc_ir::passes::is_zero(f, f.op(load).operands()[2])
                {
                    continue;
                }
                if let Some(p) = self.plan_load(dot, i, load) {
                    loads.push(p);
                }
            }
        }
        if loads.is_empty() {
            return None;
        }
        // The slice: what the loads' pointer and mask need, closed over the carried
        // values it reads and what computes their next values.
        let mut needed: HashSet<OpId> = HashSet::new();
        let mut carried: HashSet<usize> = HashSet::new();
        let mut work: Vec<tritonc_ir::Value> = Vec::new();
        for l in &loads {
            let ops = f.op(l.load).operands();
            work.extend(ops.iter().take(2).copied());
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
                if f.op(def).parent().is_some_and(|b| self.encloses(for_op, b)) {
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
        Some(LoopPipeline {
            stages,
            loads,
            slice,
            carried,
        })
    }

    /// Whether block `b` is (nested) inside `op`.
    fn encloses(&self, op: OpId, mut b: BlockId) -> bool {
        loop {
            let Some(parent) = self.func.block_parent_op(b) else {
                return false;
            };
            if parent == op {
                return true;
            }
            let Some(pb) = self.func.op(parent).parent() else {
                return false;
            };
            b = pb;
        }
    }

    fn plan_load(&self, dot: OpId, operand: usize, load: OpId) -> Option<PipelinedLoad> {
        let f = self.func;
        let v = f.op(dot).operands()[operand];
        let shape = f.value_type(v).known_shape()?;
        let dtype = f.value_type(v).dtype()?;
        if !matches!(f.value_type(f.op(load).operands()[0]).elem(), Elem::Ptr(p) if p.addr_space == 1)
            || matches!(dtype, DType::I1)
            // fp8 operands are widened in registers before they are staged.
            || dtype.is_fp8()
        {
            return None;
        }
        let elem_bytes = u64::from(dtype.bitwidth()?) / 8;
        let layout = self.layouts.operand_layout(f, dot, operand)?.clone();
        let linear = layout.to_linear(&shape).ok()?;
        let (m_or_k, k_or_n) = (shape[0], shape[1]);
        let dims = [m_or_k, k_or_n];
        let outer = if operand == 0 { 0 } else { 1 };
        let staged = stage(&linear, outer, dims, elem_bytes, 16 / elem_bytes, 0);
        let vec = self.layouts.access(load).map_or(1, |p| p.vector_width) as usize;
        let bytes = vec as u64 * elem_bytes;
        // The vector must run along the stored rows.
        let fast = if staged.strides[0] == 1 { 0 } else { 1 };
        let contiguous = linear.contiguous_registers(fast) as usize;
        if !matches!(bytes, 4 | 8 | 16) || contiguous < vec {
            return None;
        }
        Some(PipelinedLoad {
            load,
            buffer_bytes: staged.bytes.next_multiple_of(128),
            staged,
            vec,
        })
    }

    /// Lowers the slice with the body's arguments bound to `iv` and the carried `state`,
    /// then issues the copies of every pipelined load into buffer `buffer`, masked off
    /// unless `iv < ub`, and commits them as one group. Returns the carried state of the
    /// next iteration.
    fn prefetch(
        &mut self,
        for_op: OpId,
        plan: &LoopPipeline,
        iv: Value<'c, 'a>,
        state: &[Lowered<'c, 'a>],
        ub: Value<'c, 'a>,
        buffer: Value<'c, 'a>,
    ) -> Result<Vec<Lowered<'c, 'a>>, LowerError> {
        let f = self.func;
        let body = f
            .region_entry(for_op, 0)
            .ok_or_else(|| self.error("a loop without a body"))?;
        let args = f.block(body).args().to_vec();
        let term = *f
            .block(body)
            .ops()
            .last()
            .ok_or_else(|| self.error("an empty loop body"))?;
        let saved_converted = self.converted.clone();
        self.values.insert(args[0], Lowered::scalar(iv));
        for (&k, l) in plan.carried.iter().zip(state) {
            self.values.insert(args[k + 1], l.clone());
        }
        for &op in &plan.slice {
            self.lower_op(op)?;
        }
        let b = self.b;
        let in_range = self.mlir(b.cmpi(IntPredicate::Slt, iv, ub))?;
        for l in &plan.loads {
            self.issue_copies(l, in_range, buffer)?;
        }
        self.mlir(b.effect("nvvm.cp.async.commit.group", &[], &[]))?;
        let next = plan
            .carried
            .iter()
            .map(|&k| {
                let y = f.op(term).operands()[k];
                self.values
                    .get(&y)
                    .cloned()
                    .or_else(|| {
                        // A yield of the argument itself, or of a value from before the loop.
                        args.iter()
                            .position(|&a| a == y)
                            .and_then(|p| self.values.get(&args[p]).cloned())
                    })
                    .ok_or_else(|| self.error("internal: a carried value of the slice is not lowered"))
            })
            .collect::<Result<Vec<_>, _>>()?;
        self.converted = saved_converted;
        Ok(next)
    }

    /// The `cp.async` copies of one load for the current bindings of its operands.
    fn issue_copies(
        &mut self,
        l: &PipelinedLoad,
        in_range: Value<'c, 'a>,
        buffer: Value<'c, 'a>,
    ) -> Result<(), LowerError> {
        let f = self.func;
        let data = f.op(l.load);
        let ptr_v = data.operands()[0];
        let ptrs = self.values.get(&ptr_v).cloned().ok_or_else(|| self.error("pointer not lowered"))?;
        let mask = match data.operands().get(1) {
            Some(m) => Some(self.values.get(m).cloned().ok_or_else(|| self.error("mask not lowered"))?),
            None => None,
        };
        let r = data.results()[0];
        let linear = self.result_linear(r)?;
        let elem = self.elem_type(r)?;
        let elem_bytes = super::shared::storage_bytes(elem);
        let b = self.b;
        let ctx = b.context();
        let i32t: Type = IntegerType::new(ctx, 32).into();
        let thread = self.thread_strided_index(&linear, &l.staged.strides)?;
        let buf_elems = self.i32c((l.buffer_bytes / elem_bytes) as i32)?;
        let buf_off = self.mlir(b.binary("arith.muli", buffer, buf_elems))?;
        let dynamic = match thread {
            Some(t) => self.mlir(b.binary("arith.addi", t, buf_off))?,
            None => buf_off,
        };
        let bytes = (l.vec as u64 * elem_bytes) as i32;
        let size_c = self.i32c(bytes)?;
        let zero = self.i32c(0)?;
        let cache = Attribute::parse(
            ctx,
            if bytes == 16 {
                "#nvvm<load_cache_modifier cg>"
            } else {
                "#nvvm<load_cache_modifier ca>"
            },
        )
        .ok_or_else(|| self.error("bad cache modifier"))?;
        let coords = linear.register_coords();
        for g in (0..ptrs.regs.len()).step_by(l.vec) {
            let c = &coords[g];
            let index = c[0] * l.staged.strides[0] + c[1] * l.staged.strides[1];
            let dst = self.pipe_slot(elem, l.staged.byte_offset, index, Some(dynamic))?;
            let pred = match &mask {
                Some(m) => self.mlir(b.binary("arith.andi", m.reg(g), in_range))?,
                None => in_range,
            };
            let src_size = self.mlir(b.select(pred, size_c, zero))?;
            let attrs = [
                ("size", IntegerAttribute::new(i32t, i64::from(bytes)).into()),
                ("modifier", cache),
            ];
            self.mlir(b.effect(
                "nvvm.cp.async.shared.global",
                &[dst, ptrs.reg(g), src_size],
                &attrs,
            ))?;
        }
        Ok(())
    }

    /// `scf.for` with its dot operands' loads pipelined as `plan` says.
    pub(super) fn lower_pipelined_for(
        &mut self,
        op: OpId,
        plan: &LoopPipeline,
    ) -> Result<(), LowerError> {
        let f = self.func;
        let n = f.op(op).operands().len();
        let lb = self.operand(op, 0)?.reg(0);
        let ub = self.operand(op, 1)?.reg(0);
        let step = self.operand(op, 2)?.reg(0);
        let (inits, slots) = self.flatten_operands_of(op, 3..n)?;
        let init_state: Vec<Lowered<'c, 'a>> = plan
            .carried
            .iter()
            .map(|&k| self.operand(op, 3 + k))
            .collect::<Result<_, _>>()?;
        let s = plan.stages as i32;
        let b = self.b;
        let iv_ty = lb.r#type();
        let iv_const = |this: &Self, x: i64| -> Result<Value<'c, 'a>, LowerError> {
            let attr = IntegerAttribute::new(iv_ty, x).into();
            this.mlir(this.b.value("arith.constant", &[], iv_ty, &[("value", attr)]))
        };
        // The buffers may overlap scratch used before the loop: wait for its readers. While
        // they are live the scratch moves past them.
        if self.shared_in_use {
            self.mlir(b.barrier())?;
        }
        let saved_base = self.scratch_base;
        self.scratch_base = self.pipe_bytes;
        // Prologue: iterations 0 … S−2 into buffers 0 … S−2.
        let mut state = init_state;
        for i in 0..(s - 1) {
            let k = iv_const(self, i64::from(i))?;
            let off = self.mlir(b.binary("arith.muli", k, step))?;
            let iv = self.mlir(b.binary("arith.addi", lb, off))?;
            let buffer = self.i32c(i)?;
            state = self.prefetch(op, plan, iv, &state, ub, buffer)?;
        }
        // The loop carries the look-ahead state and the buffer the dot reads.
        let state_regs: Vec<Value<'c, 'a>> = state.iter().flat_map(|l| l.regs.clone()).collect();
        let state_slots: Vec<(usize, bool)> = state.iter().map(|l| (l.regs.len(), l.scalar)).collect();
        let zero = self.i32c(0)?;
        let mut operands = vec![lb, ub, step];
        operands.extend(&inits);
        operands.extend(&state_regs);
        operands.push(zero);
        let mut types: Vec<Type<'c>> = inits.iter().map(|v| v.r#type()).collect();
        types.extend(state_regs.iter().map(|v| v.r#type()));
        types.push(zero.r#type());
        let mut block_types = vec![iv_ty];
        block_types.extend(&types);
        let (results, blocks) =
            self.mlir(self.b.region_op("scf.for", &operands, &types, &[block_types]))?;
        let body = blocks[0];
        let block_args: Vec<Value<'c, 'a>> = (0..body.argument_count())
            .map(|i| body.argument(i).expect("invariant: i < argument_count").into())
            .collect();
        let n_inits = inits.len();
        let iv = block_args[0];
        let carried_args = block_args[1..1 + n_inits].to_vec();
        let mut at = 1 + n_inits;
        let mut look: Vec<Lowered<'c, 'a>> = Vec::new();
        for &(len, scalar) in &state_slots {
            let regs = block_args[at..at + len].to_vec();
            at += len;
            look.push(if scalar { Lowered::scalar(regs[0]) } else { Lowered::block(regs) });
        }
        let read = block_args[at];

        let outer = self.b;
        let inner = self.arena.alloc(outer.nested(body));
        self.b = inner;
        let saved_converted = self.converted.clone();
        let saved_offsets = self.offsets.clone();
        self.shared_in_use = true;
        let result = (|| -> Result<(), LowerError> {
            let b = self.b;
            let i32t: Type = IntegerType::new(b.context(), 32).into();
            let wait = IntegerAttribute::new(i32t, i64::from(s - 2)).into();
            self.mlir(b.effect("nvvm.cp.async.wait.group", &[], &[("n", wait)]))?;
            self.mlir(b.barrier())?;
            // Iteration i + S − 1 goes into buffer (i − 1) mod S.
            let ahead = iv_const(self, i64::from(s - 1))?;
            let ahead = self.mlir(b.binary("arith.muli", ahead, step))?;
            let iv_ahead = self.mlir(b.binary("arith.addi", iv, ahead))?;
            let zero = self.i32c(0)?;
            let one = self.i32c(1)?;
            let last = self.i32c(s - 1)?;
            let is_first = self.mlir(b.cmpi(IntPredicate::Eq, read, zero))?;
            let prev = self.mlir(b.binary("arith.subi", read, one))?;
            let write = self.mlir(b.select(is_first, last, prev))?;
            let next_look = self.prefetch(op, plan, iv_ahead, &look, ub, write)?;
            // The body proper, its dots reading buffer `read`.
            let tile_body = self
                .func
                .region_entry(op, 0)
                .ok_or_else(|| self.error("a loop without a body"))?;
            let tile_args = self.func.block(tile_body).args().to_vec();
            self.values.insert(tile_args[0], Lowered::scalar(iv));
            for (a, l) in tile_args[1..].iter().zip(super::control::unflatten(&carried_args, &slots)) {
                self.values.insert(*a, l);
            }
            for l in &plan.loads {
                self.pipe_read.insert(l.load, read);
            }
            let term = self
                .lower_block(tile_body)?
                .ok_or_else(|| self.error("a region without a terminator"))?;
            self.at_op(term);
            let nt = self.func.op(term).operands().len();
            let (mut values, _) = self.flatten_operands_of(term, 0..nt)?;
            for l in &next_look {
                values.extend(&l.regs);
            }
            let is_last = self.mlir(b.cmpi(IntPredicate::Eq, read, last))?;
            let inc = self.mlir(b.binary("arith.addi", read, one))?;
            let next_read = self.mlir(b.select(is_last, zero, inc))?;
            values.push(next_read);
            self.mlir(b.effect("scf.yield", &values, &[]))
        })();
        self.converted = saved_converted;
        self.offsets = saved_offsets;
        self.b = outer;
        self.shared_in_use = true;
        for l in &plan.loads {
            self.pipe_read.remove(&l.load);
        }
        if result.is_err() {
            self.scratch_base = saved_base;
        }
        result?;
        self.at_op(op);
        // Drain: the last groups are copies past the trip count (zeros).
        let b = self.b;
        let i32t: Type = IntegerType::new(b.context(), 32).into();
        let none = IntegerAttribute::new(i32t, 0).into();
        self.mlir(b.effect("nvvm.cp.async.wait.group", &[], &[("n", none)]))?;
        self.mlir(b.barrier())?;
        self.shared_in_use = false;
        self.scratch_base = saved_base;
        self.bind_results_of(op, &results[..n_inits], &slots);
        Ok(())
    }
}
