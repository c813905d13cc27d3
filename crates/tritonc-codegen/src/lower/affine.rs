//! Register-affine integer blocks: a value whose register `i` is register 0 plus a
//! compile-time constant, in the value's own layout.
//!
//! `tl.arange` is one (a thread's registers hold `offset | k` for constants `k` of bits
//! disjoint from the thread's offset, i.e. `offset + k`), and adding a uniform value
//! (a splat, a scalar) or reinterpreting the bits keeps it one. Multiplying such a block
//! by a constant `C` is emitted distributed: one multiply of register 0 and `k·C` added
//! for the others, in wrapping arithmetic of the element type, which is exactly the same
//! value. Philox (`tl.rand`, dropout) multiplies its counter, an arange, by round
//! constants; without this every register pays an `IMAD` (LLVM 22.1 does not
//! distribute `(x + k) * C` itself; Triton's bundled LLVM does).
//!
//! Only the multiply's code changes: adds and bitcasts are emitted as before and merely
//! recorded.

use melior::ir::{attribute::IntegerAttribute, Type, Value, ValueLike};
use tritonc_ir::{BinaryOp, CastOp, ConstValue, DType, OpId, OpKind};

use super::function::{FunctionLowering, Lowered};
use super::LowerError;

/// `x` reduced to `bits` bits, sign-extended back (the value an `iN` attribute holds).
fn wrap(x: i64, bits: u32) -> i64 {
    if bits >= 64 {
        x
    } else {
        let shift = 64 - bits;
        (x << shift) >> shift
    }
}

fn same_value(a: Value<'_, '_>, b: Value<'_, '_>) -> bool {
    a.to_raw().ptr == b.to_raw().ptr
}

impl<'l, 'c, 'a> FunctionLowering<'l, 'c, 'a> {
    /// Records the register deltas of a 1-D `tl.arange` result `r` in `linear`.
    pub(super) fn record_range_deltas(
        &mut self,
        r: tritonc_ir::Value,
        linear: &tritonc_ttgir::LinearLayout,
    ) {
        let coords = linear.register_coords();
        let Some(first) = coords.first() else { return };
        if first.len() != 1 {
            return;
        }
        let base = first[0] as i64;
        let deltas = coords.iter().map(|c| c[0] as i64 - base).collect();
        self.affine.insert(r, deltas);
    }

    /// The deltas of operand `i` of `op` (a converted operand is a `ttg.convert_layout`
    /// result, which has none).
    fn affine_operand(&self, op: OpId, i: usize) -> Option<&Vec<i64>> {
        self.affine.get(&self.func.op(op).operands()[i])
    }

    /// Whether every register of `l` holds the same value.
    fn uniform(l: &Lowered<'c, 'a>) -> bool {
        l.scalar || l.regs.iter().all(|&r| same_value(r, l.regs[0]))
    }

    /// The integer constant every element of `v` holds, if it is one.
    fn int_constant(&self, v: tritonc_ir::Value) -> Option<i64> {
        let def = self.func.defining_op(v)?;
        match self.func.kind(def) {
            OpKind::Constant(ConstValue::Int(i)) => Some(*i as i64),
            // A conversion moves the constant without changing it.
            OpKind::Splat | OpKind::ConvertLayout => {
                self.int_constant(self.func.op(def).operands()[0])
            }
            _ => None,
        }
    }

    /// Records the result of an add/sub of a uniform value, or of a same-width integer
    /// bitcast, of a register-affine operand as register-affine (same deltas).
    pub(super) fn propagate_affine(&mut self, op: OpId) {
        let data = self.func.op(op);
        let deltas = match self.func.kind(op) {
            OpKind::Binary(BinaryOp::AddI) => (0..2).find_map(|i| {
                let other = 1 - i;
                let deltas = self.affine_operand(op, i)?;
                let o = self.values.get(&data.operands()[other])?;
                Self::uniform(o).then(|| deltas.clone())
            }),
            OpKind::Binary(BinaryOp::SubI) => {
                let deltas = self.affine_operand(op, 0);
                let o = self.values.get(&data.operands()[1]);
                match (deltas, o) {
                    (Some(d), Some(o)) if Self::uniform(o) => Some(d.clone()),
                    _ => None,
                }
            }
            OpKind::Cast {
                op: CastOp::Bitcast,
                ..
            } => {
                let from = self.func.value_type(data.operands()[0]).dtype();
                let to = self.func.value_type(data.results()[0]).dtype();
                let ints = |d: Option<DType>| d.is_some_and(|d| d.is_int() && d != DType::I1);
                let same_width = from.and_then(|f| f.bitwidth()) == to.and_then(|t| t.bitwidth());
                if ints(from) && ints(to) && same_width {
                    self.affine_operand(op, 0).cloned()
                } else {
                    None
                }
            }
            _ => None,
        };
        if let Some(deltas) = deltas {
            self.affine.insert(data.results()[0], deltas);
        }
    }

    /// `affine * C` (either order) as one multiply of register 0 plus constants.
    pub(super) fn affine_multiply(
        &mut self,
        op: OpId,
        operands: &[Lowered<'c, 'a>],
        result_ty: Type<'c>,
        result_dtype: Option<DType>,
    ) -> Result<Option<Lowered<'c, 'a>>, LowerError> {
        if !matches!(self.func.kind(op), OpKind::Binary(BinaryOp::MulI)) {
            return Ok(None);
        }
        let Some(bits) = result_dtype
            .filter(|d| d.is_int() && *d != DType::I1)
            .and_then(|d| d.bitwidth())
        else {
            return Ok(None);
        };
        let data = self.func.op(op);
        let Some((var, c)) = (0..2).find_map(|i| {
            let deltas = self.affine_operand(op, i)?.clone();
            let c = self.int_constant(data.operands()[1 - i])?;
            Some((i, (deltas, c)))
        }) else {
            return Ok(None);
        };
        let (deltas, c) = c;
        let base = operands[var].reg(0);
        let factor = operands[1 - var].reg(0);
        let b = self.b;
        let product = self.mlir(b.binary("arith.muli", base, factor))?;
        let mut regs = Vec::with_capacity(deltas.len());
        let mut scaled = Vec::with_capacity(deltas.len());
        for &d in &deltas {
            let k = wrap(d.wrapping_mul(c), bits);
            scaled.push(k);
            if k == 0 {
                regs.push(product);
            } else {
                let attr = IntegerAttribute::new(result_ty, k).into();
                let constant =
                    self.mlir(b.value("arith.constant", &[], result_ty, &[("value", attr)]))?;
                regs.push(self.mlir(b.binary("arith.addi", product, constant))?);
            }
        }
        self.affine.insert(data.results()[0], scaled);
        Ok(Some(Lowered::block(regs)))
    }
}

#[cfg(test)]
mod tests {
    use super::wrap;

    #[test]
    fn wrap_keeps_the_low_bits_sign_extended() {
        assert_eq!(wrap(0xFFFF_FFFF, 32), -1);
        assert_eq!(
            wrap(7 * 3_528_531_795, 32),
            (7u32.wrapping_mul(3_528_531_795)) as i32 as i64
        );
        assert_eq!(wrap(-5, 64), -5);
        assert_eq!(wrap(1 << 31, 32), i64::from(i32::MIN));
    }
}
