//! The `tritonc-wgmma-waits` pass: where the asynchronous `wgmma`s of a kernel are waited
//! for (Triton's `warp_group_dot_wait`s and its wgmma pipeliner).
//!
//! A `tt.dot` in a `wgmma` accumulator layout (`#ttg.nvidia_mma` version 3) is issued
//! asynchronously: its result is in flight until a `ttng.warp_group_dot_wait` retires
//! it. This pass puts a wait after every such dot and routes every use of the dot
//! through it:
//! - `{pendings = 1}` for a K-loop accumulation whose operands are read from the K loop's
//!   pipeline buffers (or from a buffer filled once before the loop): the dot's result
//!   is only the loop's next accumulator (its single use is the loop's `scf.yield`, and
//!   the accumulator argument's single use is the dot), so the dot of iteration `i` stays
//!   in flight while iteration `i + 1` waits for its copies and issues its own; the wait
//!   retires iteration `i − 1`'s, whose buffer the copies issued after it then refill
//!   (`tritonc-pipeline-loops` copies into the previous iteration's buffer in `wgmma`
//!   loops). After the loop, `{pendings = 0}` on the loop's result retires the last one;
//! - no wait of its own for a loop's accumulation whose result is only the loop's next
//!   accumulator when an earlier dot of the body is waited for with `{pendings = 0}`
//!   before any use of that accumulator (attention's `P·V` after `Q·Kᵀ`): the dot stays
//!   in flight into the next iteration, where the earlier dot's wait retires it too —
//!   the accumulator passes through that wait (an operand and a result of it), so no
//!   read of it can move above the wait — and `{pendings = 0}` after the loop retires
//!   the last one (Triton's `warp_group_dot_wait` on `%qk, %q, %kT, %acc`);
//! - `{pendings = 0}` for every other dot (its operands staged through scratch or read
//!   from registers, or its result used in the loop): the wait follows the dot at once.

use tritonc_ir::layout::Layout;
use tritonc_ir::{Builder, Function, OpId, OpKind, Value};

use crate::pipeline::{GpuOptions, GpuPass};
use crate::TtgirError;

/// Inserts the waits of asynchronous `wgmma` dots.
#[derive(Debug, Clone, Copy, Default)]
pub struct WgmmaWaits;

impl GpuPass for WgmmaWaits {
    fn name(&self) -> &'static str {
        "tritonc-wgmma-waits"
    }

    fn run(&self, func: &mut Function, _options: &GpuOptions) -> Result<(), TtgirError> {
        let dots: Vec<OpId> = func
            .walk()
            .into_iter()
            .filter(|&op| {
                matches!(func.kind(op), OpKind::Dot { .. })
                    && matches!(
                        func.value_type(func.op(op).results()[0]).encoding(),
                        Some(Layout::Mma(m)) if m.is_wgmma()
                    )
            })
            .collect();
        for dot in dots {
            if let Some((for_op, k, earlier)) = deferred_accumulation(func, dot) {
                // Carried in flight to the next iteration's `earlier` wait.
                let body = func.op(dot).parent().expect("invariant: the dot is in the body");
                let acc_arg = func.block(body).args()[k + 1];
                let uses: Vec<_> = func.uses(acc_arg).to_vec();
                let ty = func.value_type(acc_arg).clone();
                func.push_operand(earlier, acc_arg);
                let passed = func.add_result(earlier, ty);
                for u in uses {
                    func.set_operand(u.op, u.operand as usize, passed);
                }
                drain_after_loop(func, for_op, k);
                continue;
            }
            let carried = async_accumulation(func, dot);
            let d = func.op(dot).results()[0];
            let uses: Vec<_> = func.uses(d).to_vec();
            let wait = wait_after(func, dot, d, u32::from(carried.is_some()));
            for u in uses {
                func.set_operand(u.op, u.operand as usize, wait);
            }
            if let Some((for_op, k)) = carried {
                drain_after_loop(func, for_op, k);
            }
        }
        Ok(())
    }
}

/// `{pendings = 0}` on result `k` of `for_op` right after the loop, read by every use of
/// that result (none: the wait still drains the group).
fn drain_after_loop(f: &mut Function, for_op: OpId, k: usize) {
    let r = f.op(for_op).results()[k];
    let uses: Vec<_> = f.uses(r).to_vec();
    let done = wait_after(f, for_op, r, 0);
    for u in uses {
        f.set_operand(u.op, u.operand as usize, done);
    }
}

/// For a dot whose result is only the loop's next accumulator `k`: the earlier
/// `{pendings = 0}` wait of the body that precedes every use of the accumulator, when
/// there is one.
fn deferred_accumulation(f: &Function, dot: OpId) -> Option<(OpId, usize, OpId)> {
    let data = f.op(dot);
    let d = data.results()[0];
    let body = data.parent()?;
    let for_op = f.block_parent_op(body)?;
    if !matches!(f.kind(for_op), OpKind::For { .. }) {
        return None;
    }
    let [u] = f.uses(d)[..] else { return None };
    if !f.kind(u.op).is_terminator() || f.op(u.op).parent() != Some(body) {
        return None;
    }
    let k = u.operand as usize;
    let acc_arg = f.block(body).args().get(k + 1).copied()?;
    let ops = f.block(body).ops();
    let at = |op: OpId| ops.iter().position(|&o| o == op);
    let dot_at = at(dot)?;
    // Every use of the accumulator is an op of the body itself (not nested).
    let first_use = f
        .uses(acc_arg)
        .iter()
        .map(|u| at(u.op))
        .collect::<Option<Vec<_>>>()?
        .into_iter()
        .min()?;
    ops[..first_use.min(dot_at)]
        .iter()
        .copied()
        .find(|&o| matches!(f.kind(o), OpKind::WarpGroupDotWait { pendings: 0 }))
        .map(|w| (for_op, k, w))
}

/// A `ttng.warp_group_dot_wait {pendings}` of `v` right after `op`; its result.
fn wait_after(f: &mut Function, op: OpId, v: Value, pendings: u32) -> Value {
    let block = f.op(op).parent().expect("invariant: an op is in a block");
    let at = f.position_in_block(op).expect("invariant: the op is in its block");
    let next = f.block(block).ops()[at + 1];
    let loc = f.op(op).loc.clone();
    let ty = f.value_type(v).clone();
    let mut b = Builder::before(f, next);
    b.set_loc(loc);
    let w = b.insert(OpKind::WarpGroupDotWait { pendings }, &[v], vec![ty]);
    b.func().op(w).results()[0]
}

/// The loop and the index of the accumulator `dot` computes, when `dot` may stay in
/// flight across the loop's back edge.
fn async_accumulation(f: &Function, dot: OpId) -> Option<(OpId, usize)> {
    let data = f.op(dot);
    let d = data.results()[0];
    let body = data.parent()?;
    let for_op = f.block_parent_op(body)?;
    if !matches!(f.kind(for_op), OpKind::For { .. }) {
        return None;
    }
    let [u] = f.uses(d)[..] else { return None };
    if !f.kind(u.op).is_terminator() || f.op(u.op).parent() != Some(body) {
        return None;
    }
    let k = u.operand as usize;
    let acc_arg = f.block(body).args().get(k + 1).copied()?;
    if data.operands()[2] != acc_arg || f.uses(acc_arg).len() != 1 {
        return None;
    }
    let from_buffer = |v: Value| -> bool {
        let Some(load) = f.defining_op(v) else { return false };
        if !matches!(f.kind(load), OpKind::LocalLoad) {
            return false;
        }
        let view = f.op(load).operands()[0];
        let Some(def) = f.defining_op(view) else { return false };
        let alloc = match f.kind(def) {
            OpKind::MemDescIndex => f.defining_op(f.op(def).operands()[0]),
            OpKind::LocalAlloc { .. } => Some(def),
            _ => None,
        };
        // The allocation is made before the loop (a pipeline's buffers, or a buffer
        // filled once).
        alloc.is_some_and(|a| {
            matches!(f.kind(a), OpKind::LocalAlloc { .. })
                && f.op(a).parent().is_some_and(|b| !crate::software_pipeline::encloses(f, for_op, b))
        })
    };
    (from_buffer(data.operands()[0]) && from_buffer(data.operands()[1])).then_some((for_op, k))
}
