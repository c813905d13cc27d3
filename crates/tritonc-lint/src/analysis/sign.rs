//! Value ranges of the lanes that hold data, as far as the rules need them: is a value
//! known to be non-negative (`abs`, squares, `exp`, `sqrt`, sums and products of those, and
//! loads from a buffer another kernel of the file filled with such values, see
//! [`crate::launches`])?

use tritonc_ir::{BinaryOp, Function, MathOp, OpId, OpKind, Value};

use super::{constant_of, Facts, Lattice, Transfer};

/// What is known about the sign of every data lane.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Sign {
    /// Nothing flows in yet.
    #[default]
    Bottom,
    /// Every lane is ≥ 0.
    NonNeg,
    /// Nothing known.
    Any,
}

impl Lattice for Sign {
    fn bottom() -> Self {
        Sign::Bottom
    }
    fn join(&self, o: &Self) -> Self {
        match (self, o) {
            (Sign::Bottom, x) | (x, Sign::Bottom) => *x,
            (Sign::NonNeg, Sign::NonNeg) => Sign::NonNeg,
            _ => Sign::Any,
        }
    }
}

impl Sign {
    /// Whether every data lane is known to be ≥ 0.
    pub fn is_non_negative(self) -> bool {
        self == Sign::NonNeg
    }
}

/// The sign analysis.
#[derive(Debug, Default)]
pub struct SignAnalysis {
    /// Pointer arguments whose buffers hold only non-negative values.
    pub non_negative_args: Vec<Value>,
}

impl Transfer for SignAnalysis {
    type Fact = Sign;

    fn induction_var(&self, _f: &Function, _for_op: OpId) -> Sign {
        Sign::Any
    }

    fn opaque(&self) -> Sign {
        Sign::Any
    }

    fn transfer(&self, f: &Function, op: OpId, facts: &Facts<Sign>) -> Vec<Sign> {
        let data = f.op(op);
        let ops = data.operands();
        let s = |i: usize| ops.get(i).map(|&v| *facts.get(v)).unwrap_or(Sign::Any);
        let both = |a: Sign, b: Sign| {
            if a.is_non_negative() && b.is_non_negative() {
                Sign::NonNeg
            } else {
                Sign::Any
            }
        };
        let one = match &data.kind {
            OpKind::Constant(_) => match data.results().first().and_then(|&r| constant_of(f, r)) {
                Some(x) if x >= 0.0 => Sign::NonNeg,
                _ => Sign::Any,
            },
            OpKind::GetProgramId { .. }
            | OpKind::GetNumPrograms { .. }
            | OpKind::MakeRange { .. } => Sign::NonNeg,
            OpKind::Math(
                MathOp::AbsF | MathOp::AbsI | MathOp::Exp | MathOp::Exp2 | MathOp::Sqrt,
            ) => Sign::NonNeg,
            OpKind::Math(MathOp::Rsqrt) | OpKind::PreciseSqrt => Sign::NonNeg,
            OpKind::Math(MathOp::Floor | MathOp::Ceil) => s(0),
            OpKind::Binary(b) => match b {
                BinaryOp::MulF | BinaryOp::MulI if ops.len() == 2 && ops[0] == ops[1] => {
                    Sign::NonNeg
                }
                BinaryOp::MulF
                | BinaryOp::MulI
                | BinaryOp::AddF
                | BinaryOp::AddI
                | BinaryOp::DivF
                | BinaryOp::DivSI
                | BinaryOp::MinNumF
                | BinaryOp::MinimumF
                | BinaryOp::MinSI => both(s(0), s(1)),
                BinaryOp::MaxNumF | BinaryOp::MaximumF | BinaryOp::MaxSI => {
                    if s(0).is_non_negative() || s(1).is_non_negative() {
                        Sign::NonNeg
                    } else {
                        Sign::Any
                    }
                }
                _ => Sign::Any,
            },
            OpKind::Fma if ops.len() == 3 && ops[0] == ops[1] => both(Sign::NonNeg, s(2)),
            OpKind::Select => s(1).join(&s(2)),
            OpKind::Splat
            | OpKind::Broadcast
            | OpKind::ExpandDims { .. }
            | OpKind::Reshape { .. }
            | OpKind::Trans { .. }
            | OpKind::Hint(_)
            | OpKind::FpToFp { .. }
            | OpKind::Cast { .. } => s(0),
            OpKind::Reduce { .. } => s(0),
            OpKind::Load { .. }
                if super::pointer_base_arg(f, ops[0])
                    .is_some_and(|b| self.non_negative_args.contains(&b)) =>
            {
                Sign::NonNeg
            }
            _ => Sign::Any,
        };
        vec![one; data.results().len()]
    }
}
