//! int32 offset products: which int32 values contain a product of a program id with a
//! stride or block size, computed in 32 bits. A cast to int64 on the way ends the chain.

use tritonc_ir::{BinaryOp, DType, Function, OpId, OpKind};

use super::{Facts, Lattice, Transfer};

/// The overflow fact of one value.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Int32Product {
    /// The value is int32 and derives from a program id.
    pub from_pid: bool,
    /// The int32 multiply of a program-id value by something else that it contains.
    pub product: Option<OpId>,
}

impl Lattice for Int32Product {
    fn bottom() -> Self {
        Int32Product::default()
    }
    fn join(&self, o: &Self) -> Self {
        Int32Product {
            from_pid: self.from_pid || o.from_pid,
            product: self.product.or(o.product),
        }
    }
}

/// The int32 product analysis.
pub struct OverflowAnalysis;

impl Transfer for OverflowAnalysis {
    type Fact = Int32Product;

    fn transfer(&self, f: &Function, op: OpId, facts: &Facts<Int32Product>) -> Vec<Int32Product> {
        let data = f.op(op);
        let is_i32 = data
            .results()
            .first()
            .is_some_and(|&r| f.value_type(r).dtype() == Some(DType::I32));
        let n = data.results().len();
        if !is_i32 {
            return vec![Int32Product::default(); n];
        }
        let ops: Vec<Int32Product> = data.operands().iter().map(|&v| *facts.get(v)).collect();
        let joined = ops.iter().fold(Int32Product::default(), |a, b| a.join(b));
        let one = match &data.kind {
            OpKind::GetProgramId { .. } => Int32Product {
                from_pid: true,
                product: None,
            },
            OpKind::Binary(BinaryOp::MulI) => {
                let pid_side = ops.iter().any(|o| o.from_pid);
                // Only a runtime factor (a stride or size argument): a constexpr block
                // size is bounded by the grid the launcher computes from the tensor.
                let other_side = data.operands().iter().zip(&ops).any(|(&v, o)| {
                    !o.from_pid
                        && super::constant_of(f, v).is_none()
                        && crate::generic::symbolic_name(f, super::strip_shape(f, v)).is_none()
                });
                Int32Product {
                    from_pid: joined.from_pid,
                    product: joined.product.or((pid_side && other_side).then_some(op)),
                }
            }
            OpKind::Binary(BinaryOp::AddI | BinaryOp::SubI)
            | OpKind::Splat
            | OpKind::Broadcast
            | OpKind::ExpandDims { .. }
            | OpKind::Reshape { .. }
            | OpKind::Trans { .. }
            | OpKind::Hint(_)
            | OpKind::Select => joined,
            _ => Int32Product::default(),
        };
        vec![one; n]
    }
}
