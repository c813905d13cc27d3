//! `acc + tl.dot(a, b)` becomes `tl.dot(a, b, acc)`, as Triton's TTIR pipeline rewrites it
//! (its `CombineDotAdd{I,F}` patterns, both operand orders).
//!
//! The fold changes rounding — one accumulation into `acc` instead of a dot into zeros
//! and an add — so it happens exactly where Triton 3.6 does it, as recorded from its
//! wheel by `scripts/triton_dot_combine.py` (`tests/fixtures/triton/dot_combine.json`):
//! - the add is `arith.addf` or `arith.addi` with the dot's result as either operand;
//! - the dot accumulates into zeros (a zero constant, or a splat or broadcast of one);
//! - the dot's result has no other use;
//! - for floats, the dot has no imprecise-accumulation limit (`max_num_imprecise_acc`).
//!
//! The new dot takes the add's place (its other operand dominates it there) and the old
//! dot's location; the interpreter and the back end both run after it.

use crate::function::{Function, OpId, Value};
use crate::ops::{BinaryOp, ConstValue, OpKind};
use crate::pass::Pass;

/// Folds additions of a dot's result into the dot's accumulator.
#[derive(Debug, Default, Clone, Copy)]
pub struct DotAccumulate;

/// Whether every element of `v` is zero (`-0.0` included, as Triton's `isZero`): a zero
/// constant, or a splat, broadcast or layout conversion of one.
pub fn is_zero(f: &Function, v: Value) -> bool {
    let Some(def) = f.defining_op(v) else {
        return false;
    };
    match f.kind(def) {
        OpKind::Constant(ConstValue::Int(0)) => true,
        OpKind::Constant(ConstValue::Float(x)) => *x == 0.0,
        OpKind::Splat | OpKind::Broadcast | OpKind::ConvertLayout => {
            is_zero(f, f.op(def).operands()[0])
        }
        _ => false,
    }
}

/// The dot whose result `v` is, when the add reading it may absorb it.
fn foldable_dot(f: &Function, v: Value, float: bool) -> Option<OpId> {
    let dot = f.defining_op(v)?;
    let OpKind::Dot {
        max_num_imprecise_acc,
        ..
    } = *f.kind(dot)
    else {
        return None;
    };
    let acc = f.op(dot).operands()[2];
    let single_use = f.uses(v).len() == 1;
    (is_zero(f, acc) && single_use && !(float && max_num_imprecise_acc != 0)).then_some(dot)
}

impl Pass for DotAccumulate {
    fn name(&self) -> &'static str {
        "dot-accumulate"
    }

    fn run_on_function(&mut self, f: &mut Function) -> bool {
        let mut changed = false;
        for add in f.walk() {
            let float = match f.kind(add) {
                OpKind::Binary(BinaryOp::AddF) => true,
                OpKind::Binary(BinaryOp::AddI) => false,
                _ => continue,
            };
            let [x, y] = f.op(add).operands()[..] else {
                continue;
            };
            let found = foldable_dot(f, x, float)
                .map(|d| (d, y))
                .or_else(|| foldable_dot(f, y, float).map(|d| (d, x)));
            let Some((dot, acc)) = found else {
                continue;
            };
            let (Some(block), Some(at)) = (f.op(add).parent(), f.position_in_block(add)) else {
                continue;
            };
            let data = f.op(dot);
            let (a, b) = (data.operands()[0], data.operands()[1]);
            let kind = data.kind.clone();
            let loc = data.loc.clone();
            let result_ty = f.value_type(f.op(add).results()[0]).clone();
            let folded = f.create_op(kind, &[a, b, acc], vec![result_ty], 0, loc);
            f.insert_op(block, at, folded);
            let old = f.op(add).results()[0];
            let new = f.op(folded).results()[0];
            let zeros = f.op(dot).operands()[2];
            f.replace_all_uses(old, new);
            f.erase_op(add);
            f.erase_op(dot);
            erase_unused_zeros(f, zeros);
            changed = true;
        }
        changed
    }
}

/// Erases the zero accumulator a fold left unused (and the constant it splats).
fn erase_unused_zeros(f: &mut Function, v: Value) {
    let Some(def) = f.defining_op(v) else {
        return;
    };
    if f.has_uses(v) || !matches!(f.kind(def), OpKind::Constant(_) | OpKind::Splat | OpKind::Broadcast) {
        return;
    }
    let source = f.op(def).operands().first().copied();
    f.erase_op(def);
    if let Some(s) = source {
        erase_unused_zeros(f, s);
    }
}
