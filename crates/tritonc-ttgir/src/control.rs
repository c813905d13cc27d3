//! Structured control flow and layouts: which values of `scf.for`, `scf.if` and
//! `scf.while` must share one layout.
//!
//! A loop-carried block value is, after lowering, a list of per-thread registers that
//! the MLIR loop carries one by one, so every value that flows into the same carried
//! slot must hold its elements on the same registers:
//!
//! - `scf.for`: init `i` (operand `3 + i`), body argument `1 + i`, yield operand `i`
//!   and result `i`. The body argument is the *carried value*; the result is the same
//!   registers after the loop.
//! - `scf.if`: result `i`, then-yield operand `i`, else-yield operand `i`. The result is
//!   the carried value.
//! - `scf.while`: init `i`, before-argument `i` and after-yield operand `i` (carried
//!   value: the before-argument); condition operand `1 + j`, after-argument `j` and
//!   result `j` (carried value: the after-argument).
//!
//! Layout assignment gives each carried value a layout; a flowing-in operand in another
//! layout gets an explicit conversion on that use.

use tritonc_ir::{Function, OpId, OpKind, Value, ValueDef};

/// The value whose registers `v` is: a `scf.for` or `scf.while` result is its loop's
/// carried body argument; every other value is itself.
pub fn canonical(func: &Function, v: Value) -> Value {
    let ValueDef::OpResult { op, index } = func.value_def(v) else {
        return v;
    };
    let index = index as usize;
    let arg = |region: usize, at: usize| {
        func.region_entry(op, region)
            .and_then(|b| func.block(b).args().get(at).copied())
    };
    match func.kind(op) {
        OpKind::For { .. } => arg(0, index + 1).unwrap_or(v),
        OpKind::While => arg(1, index).unwrap_or(v),
        _ => v,
    }
}

/// The carried value operand `operand` of `op` flows into, when `op` is a loop or a
/// region terminator of structured control flow.
pub fn carried_target(func: &Function, op: OpId, operand: usize) -> Option<Value> {
    let arg = |owner: OpId, region: usize, at: usize| {
        func.region_entry(owner, region)
            .and_then(|b| func.block(b).args().get(at).copied())
    };
    match func.kind(op) {
        OpKind::For { .. } if operand >= 3 => arg(op, 0, operand - 2),
        OpKind::While => arg(op, 0, operand),
        OpKind::Yield => {
            let parent = func.parent_op(op)?;
            match func.kind(parent) {
                OpKind::For { .. } => arg(parent, 0, operand + 1),
                OpKind::If => func.op(parent).results().get(operand).copied(),
                OpKind::While => arg(parent, 0, operand),
                _ => None,
            }
        }
        OpKind::Condition if operand >= 1 => {
            let parent = func.parent_op(op)?;
            arg(parent, 1, operand - 1)
        }
        _ => None,
    }
}

/// Whether `op`'s regions hold per-thread code of the kernel (structured control flow),
/// as opposed to a combiner applied to scalars (`tt.reduce`, `tt.scan`).
pub fn has_code_regions(kind: &OpKind) -> bool {
    matches!(kind, OpKind::For { .. } | OpKind::If | OpKind::While)
}

/// The ops of the kernel in program order, descending into structured control flow but
/// not into combiners.
pub fn code_ops(func: &Function) -> Vec<OpId> {
    let mut out = Vec::new();
    collect(func, func.entry_block(), &mut out);
    out
}

fn collect(func: &Function, block: tritonc_ir::BlockId, out: &mut Vec<OpId>) {
    for &op in func.block(block).ops() {
        out.push(op);
        if has_code_regions(func.kind(op)) {
            for &r in func.op(op).regions() {
                for &b in func.region(r).blocks() {
                    collect(func, b, out);
                }
            }
        }
    }
}
