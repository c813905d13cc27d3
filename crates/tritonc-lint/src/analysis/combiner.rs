//! What a `tt.reduce` or `tt.scan` computes, read from its combiner region.

use tritonc_ir::{BinaryOp, BlockId, CmpFPredicate, CmpIPredicate, Function, OpId, OpKind, Value};

/// The reduction a combiner performs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ReductionKind {
    /// `a + b`.
    Sum,
    /// `a * b`.
    Product,
    /// `max(a, b)`.
    Max,
    /// `min(a, b)`.
    Min,
    /// Value and index, keeping the larger value.
    ArgMax,
    /// Value and index, keeping the smaller value.
    ArgMin,
    /// Anything else (a user `combine_fn`, bitwise ops).
    Other,
}

impl ReductionKind {
    /// The `tl` function a user writes for this reduction.
    pub fn tl_name(self, is_scan: bool) -> &'static str {
        match (self, is_scan) {
            (ReductionKind::Sum, false) => "tl.sum",
            (ReductionKind::Sum, true) => "tl.cumsum",
            (ReductionKind::Product, true) => "tl.cumprod",
            (ReductionKind::Max, _) => "tl.max",
            (ReductionKind::Min, _) => "tl.min",
            (ReductionKind::ArgMax, _) => "tl.argmax",
            (ReductionKind::ArgMin, _) => "tl.argmin",
            _ => "tl.reduce",
        }
    }
}

/// Classifies the combiner of the reduce or scan `op`.
pub fn classify(f: &Function, op: OpId) -> ReductionKind {
    let Some(block) = f.region_entry(op, 0) else {
        return ReductionKind::Other;
    };
    let n_operands = f.op(op).operands().len();
    if n_operands == 2 {
        return match picks_larger(f, block) {
            Some(true) => ReductionKind::ArgMax,
            Some(false) => ReductionKind::ArgMin,
            None => ReductionKind::Other,
        };
    }
    let kinds: Vec<BinaryOp> = f
        .block(block)
        .ops()
        .iter()
        .filter_map(|&inner| match f.kind(inner) {
            OpKind::Binary(b) => Some(*b),
            _ => None,
        })
        .collect();
    use BinaryOp::*;
    match kinds.as_slice() {
        [AddF | AddI] => ReductionKind::Sum,
        [MulF | MulI] => ReductionKind::Product,
        [MaxNumF | MaximumF | MaxSI | MaxUI] => ReductionKind::Max,
        [MinNumF | MinimumF | MinSI | MinUI] => ReductionKind::Min,
        _ => ReductionKind::Other,
    }
}

/// For a (value, index) combiner over block arguments `[v1, i1, v2, i2]`: whether the value
/// it keeps is the larger one (argmax) or the smaller (argmin), read from the `select` that
/// yields the value and the ordering comparison of `v1` with `v2` in its condition.
/// Equality tests (the tie break `v1 == v2 and i1 < i2`) and index comparisons say nothing
/// about the direction and are skipped. `None` when the combiner is not of that form or its
/// comparisons disagree.
fn picks_larger(f: &Function, block: BlockId) -> Option<bool> {
    let args = f.block(block).args();
    let [v1, _, v2, _] = *args else {
        return None;
    };
    let yielded = *super::terminator_operands(f, block).first()?;
    let select = super::def_op(f, yielded)?;
    if !matches!(f.kind(select), OpKind::Select) {
        return None;
    }
    let &[cond, on_true, on_false] = f.op(select).operands() else {
        return None;
    };
    let keeps_v1_when_true = match (strip_casts(f, on_true), strip_casts(f, on_false)) {
        (t, e) if t == v1 && e == v2 => true,
        (t, e) if t == v2 && e == v1 => false,
        _ => return None,
    };
    let mut found: Option<bool> = None;
    let mut stack = vec![(cond, 0u32)];
    while let Some((c, depth)) = stack.pop() {
        let Some(def) = super::def_op(f, c) else {
            continue;
        };
        let data = f.op(def);
        let greater = match f.kind(def) {
            OpKind::Binary(BinaryOp::OrI | BinaryOp::AndI) if depth < 8 => {
                stack.extend(data.operands().iter().map(|&o| (o, depth + 1)));
                continue;
            }
            OpKind::CmpF(p) => match p {
                CmpFPredicate::Ogt
                | CmpFPredicate::Oge
                | CmpFPredicate::Ugt
                | CmpFPredicate::Uge => true,
                CmpFPredicate::Olt
                | CmpFPredicate::Ole
                | CmpFPredicate::Ult
                | CmpFPredicate::Ule => false,
                _ => continue,
            },
            OpKind::CmpI(p) => match p {
                CmpIPredicate::Sgt
                | CmpIPredicate::Sge
                | CmpIPredicate::Ugt
                | CmpIPredicate::Uge => true,
                CmpIPredicate::Slt
                | CmpIPredicate::Sle
                | CmpIPredicate::Ult
                | CmpIPredicate::Ule => false,
                _ => continue,
            },
            _ => continue,
        };
        let &[a, b] = data.operands() else { continue };
        let lhs_is_v1 = match (strip_casts(f, a), strip_casts(f, b)) {
            (x, y) if x == v1 && y == v2 => true,
            (x, y) if x == v2 && y == v1 => false,
            // An index comparison.
            _ => continue,
        };
        // True when the condition holds exactly where `v1` is the larger.
        let true_where_v1_larger = greater == lhs_is_v1;
        let larger = true_where_v1_larger == keeps_v1_when_true;
        if found.is_some_and(|g| g != larger) {
            return None;
        }
        found = Some(larger);
    }
    found
}

/// `v` with value-preserving casts looked through (a comparison of promoted values).
fn strip_casts(f: &Function, mut v: Value) -> Value {
    while let Some(op) = super::def_op(f, v) {
        match f.kind(op) {
            OpKind::Cast { .. } | OpKind::FpToFp { .. } => v = f.op(op).operands()[0],
            _ => break,
        }
    }
    v
}
