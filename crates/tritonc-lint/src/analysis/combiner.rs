//! What a `tt.reduce` or `tt.scan` computes, read from its combiner region.

use tritonc_ir::{BinaryOp, CmpFPredicate, CmpIPredicate, Function, OpId, OpKind};

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
    let mut kinds = Vec::new();
    let mut cmp = None;
    for &inner in f.block(block).ops() {
        match f.kind(inner) {
            OpKind::Binary(b) => kinds.push(*b),
            OpKind::CmpF(p) => {
                cmp = cmp.or(Some(matches!(
                    p,
                    CmpFPredicate::Ogt
                        | CmpFPredicate::Oge
                        | CmpFPredicate::Ugt
                        | CmpFPredicate::Uge
                )))
            }
            OpKind::CmpI(p) => {
                cmp = cmp.or(Some(matches!(
                    p,
                    CmpIPredicate::Sgt
                        | CmpIPredicate::Sge
                        | CmpIPredicate::Ugt
                        | CmpIPredicate::Uge
                )))
            }
            _ => {}
        }
    }
    let n_operands = f.op(op).operands().len();
    if n_operands == 2 {
        if let Some(greater) = cmp {
            return if greater {
                ReductionKind::ArgMax
            } else {
                ReductionKind::ArgMin
            };
        }
    }
    use BinaryOp::*;
    match kinds.as_slice() {
        [AddF | AddI] => ReductionKind::Sum,
        [MulF | MulI] => ReductionKind::Product,
        [MaxNumF | MaximumF | MaxSI | MaxUI] => ReductionKind::Max,
        [MinNumF | MinimumF | MinSI | MinUI] => ReductionKind::Min,
        _ => ReductionKind::Other,
    }
}
