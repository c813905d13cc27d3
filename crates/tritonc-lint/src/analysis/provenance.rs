//! Dtype provenance: whether a value's dtype is what the kernel says, or follows from a
//! placeholder of the lint specialization (an assumed pointee dtype or scalar type).
//! Rules that judge a dtype (TRI201, TRI202, TRI204) only judge known ones.

use tritonc_ir::{Function, OpId, OpKind};

use super::{Facts, Lattice, Transfer};

/// Whether a value's dtype is known.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum DTypeOrigin {
    /// Nothing flows in yet.
    #[default]
    Bottom,
    /// Fixed by the source: a cast, a constant, an annotated or configured parameter.
    Known,
    /// Follows from a placeholder.
    Assumed,
}

impl Lattice for DTypeOrigin {
    fn bottom() -> Self {
        DTypeOrigin::Bottom
    }
    fn join(&self, o: &Self) -> Self {
        match (self, o) {
            (DTypeOrigin::Bottom, x) | (x, DTypeOrigin::Bottom) => *x,
            (DTypeOrigin::Known, DTypeOrigin::Known) => DTypeOrigin::Known,
            _ => DTypeOrigin::Assumed,
        }
    }
}

/// The provenance analysis; `assumed_args[i]` says whether function argument `i` has an
/// assumed type.
pub struct ProvenanceAnalysis {
    /// Per function argument: whether its type is a placeholder.
    pub assumed_args: Vec<bool>,
}

impl ProvenanceAnalysis {
    /// Solves the analysis, seeding the function arguments.
    pub fn run(&self, f: &Function) -> Facts<DTypeOrigin> {
        // Arguments are block arguments of the entry block, which the solver leaves at
        // bottom; seed them through a wrapper transfer.
        super::solve(f, &Seeded { inner: self, f })
    }
}

struct Seeded<'a> {
    inner: &'a ProvenanceAnalysis,
    f: &'a Function,
}

impl Seeded<'_> {
    fn origin(&self, facts: &Facts<DTypeOrigin>, v: tritonc_ir::Value) -> DTypeOrigin {
        if let Some(i) = self.f.args().iter().position(|&a| a == v) {
            return if self.inner.assumed_args.get(i).copied().unwrap_or(false) {
                DTypeOrigin::Assumed
            } else {
                DTypeOrigin::Known
            };
        }
        match facts.get(v) {
            DTypeOrigin::Bottom => DTypeOrigin::Known,
            x => *x,
        }
    }
}

impl Transfer for Seeded<'_> {
    type Fact = DTypeOrigin;

    fn induction_var(&self, _f: &Function, _op: OpId) -> DTypeOrigin {
        DTypeOrigin::Known
    }

    fn opaque(&self) -> DTypeOrigin {
        DTypeOrigin::Known
    }

    fn transfer(&self, f: &Function, op: OpId, facts: &Facts<DTypeOrigin>) -> Vec<DTypeOrigin> {
        let data = f.op(op);
        let one = match &data.kind {
            OpKind::Cast { .. } | OpKind::FpToFp { .. } | OpKind::Constant(_) => DTypeOrigin::Known,
            OpKind::Load { .. } | OpKind::AtomicRmw { .. } | OpKind::AtomicCas { .. } => data
                .operands()
                .first()
                .map_or(DTypeOrigin::Known, |&p| self.origin(facts, p)),
            // Comparisons give i1 whatever their operands are.
            OpKind::CmpI(_)
            | OpKind::CmpF(_)
            | OpKind::MakeRange { .. }
            | OpKind::GetProgramId { .. } => DTypeOrigin::Known,
            OpKind::Select => {
                let ops = data.operands();
                ops.iter()
                    .skip(1)
                    .map(|&v| self.origin(facts, v))
                    .fold(DTypeOrigin::Bottom, |a, b| a.join(&b))
            }
            _ => data
                .operands()
                .iter()
                .map(|&v| self.origin(facts, v))
                .fold(DTypeOrigin::Known, |a, b| a.join(&b)),
        };
        vec![one; data.results().len()]
    }
}
