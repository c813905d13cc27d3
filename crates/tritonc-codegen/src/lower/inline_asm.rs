//! `tt.elementwise_inline_asm` (`tl.inline_asm_elementwise`): one `llvm.inline_asm` per
//! `pack` elements of each thread, as Triton 3.6's NVIDIA lowering builds it
//! (`ElementwiseInlineAsmOpConversion`):
//!
//! * the thread's registers of every operand are taken `pack` at a time, in the layout's
//!   register order (a thread holding fewer, or a count that is not a multiple of `pack`,
//!   is padded with `undef`);
//! * an operand narrower than 32 bits is packed `min(32 / bits, pack)` to a vector
//!   register (`vector<4xi8>` for `r` constraints over uint8), pointers count as 64 bits;
//! * results are typed the same way, several wrapped in one `!llvm.struct`, unpacked in
//!   order: result 0's `pack` elements first;
//! * `has_side_effects` unless `is_pure`, so LLVM keeps impure assembly where it is and
//!   may remove or merge pure assembly whose results are unused or equal.
//!
//! `tests/fixtures/triton/inline_asm.json` (`scripts/triton_inline_asm.py`) holds Triton's
//! PTX for the same kernels; `tests/codegen/inline_asm.rs` compares.

use melior::ir::{
    attribute::{DenseI64ArrayAttribute, StringAttribute},
    Attribute, Type, Value,
};
use tritonc_ir::{OpId, OpKind};

use super::function::{FunctionLowering, Lowered};
use super::LowerError;

/// Elements of `bits` one register of an `llvm.inline_asm` operand or result holds.
pub(crate) fn per_register(bits: u32, pack: u32) -> u32 {
    let n = if bits < 32 { 32 / bits.max(1) } else { 1 };
    n.min(pack)
}

impl<'l, 'c, 'a> FunctionLowering<'l, 'c, 'a> {
    pub(super) fn lower_inline_asm(&mut self, op: OpId) -> Result<(), LowerError> {
        let OpKind::ElementwiseInlineAsm {
            asm,
            constraints,
            pure,
            pack,
        } = self.func.kind(op).clone()
        else {
            unreachable!("invariant: lower_inline_asm is called on tt.elementwise_inline_asm")
        };
        if self.b.is_amd() {
            return Err(self.error(
                "`tl.inline_asm_elementwise` on AMD targets is not supported by tritonc yet (its \
                 assembly would be AMDGCN)",
            ));
        }
        let data = self.func.op(op);
        let operand_values = data.operands().to_vec();
        let results = data.results().to_vec();
        let scalar = !self.func.value_type(results[0]).is_tensor();
        let mut operands = Vec::with_capacity(operand_values.len());
        for i in 0..operand_values.len() {
            operands.push(self.operand(op, i)?);
        }
        // Elements per thread: the operands' (all of one layout), one with no operands.
        let n = operands
            .iter()
            .map(|o| o.regs.len())
            .max()
            .unwrap_or(1)
            .max(1);
        let pack_n = pack as usize;
        let bits = |v: tritonc_ir::Value| self.func.value_type(v).elem().bitwidth().unwrap_or(64);
        // Operand types and how many elements share a register.
        let mut operand_layout = Vec::with_capacity(operands.len());
        for &v in &operand_values {
            let per = per_register(bits(v), pack) as usize;
            let elem = self.elem_type(v)?;
            let reg = if per > 1 { self.vector_type(elem, per)? } else { elem };
            operand_layout.push((elem, per, reg));
        }
        // The asm's return registers, in order: each result's `pack / per` registers.
        let mut ret_regs: Vec<(usize, Type<'c>, usize)> = Vec::new(); // (result, type, elements)
        let mut result_elems = Vec::with_capacity(results.len());
        for (i, &r) in results.iter().enumerate() {
            let per = per_register(bits(r), pack) as usize;
            if pack_n % per != 0 {
                return Err(self.error(format!(
                    "`pack={pack}` is not a multiple of the {per} elements of result {i} per register"
                )));
            }
            let elem = self.elem_type(r)?;
            result_elems.push(elem);
            let reg = if per > 1 { self.vector_type(elem, per)? } else { elem };
            ret_regs.extend((0..pack_n / per).map(|_| (i, reg, per)));
        }
        let ctx = self.b.context();
        let ret_ty = if ret_regs.len() == 1 {
            ret_regs[0].1
        } else {
            let fields: Vec<String> = ret_regs.iter().map(|(_, t, _)| t.to_string()).collect();
            Type::parse(ctx, &format!("!llvm.struct<({})>", fields.join(", ")))
                .ok_or_else(|| self.error("cannot form the inline-asm result struct"))?
        };
        let mut attrs: Vec<(&str, Attribute<'c>)> = vec![
            ("asm_string", StringAttribute::new(ctx, &asm).into()),
            ("constraints", StringAttribute::new(ctx, &constraints).into()),
        ];
        if !pure {
            attrs.push(("has_side_effects", Attribute::unit(ctx)));
        }
        let mut out: Vec<Vec<Value<'c, 'a>>> = vec![Vec::with_capacity(n); results.len()];
        let b = self.b;
        for start in (0..n).step_by(pack_n) {
            let mut packed = Vec::new();
            for (o, &(elem, per, reg)) in operands.iter().zip(&operand_layout) {
                let element = |this: &Self, k: usize| -> Result<Value<'c, 'a>, LowerError> {
                    match o.regs.get(if o.scalar { 0 } else { k }) {
                        Some(&v) if k < n => Ok(v),
                        _ => this.mlir(b.value("llvm.mlir.undef", &[], elem, &[])),
                    }
                };
                for j in (0..pack_n).step_by(per) {
                    if per == 1 {
                        packed.push(element(self, start + j)?);
                        continue;
                    }
                    let mut v = self.mlir(b.value("llvm.mlir.undef", &[], reg, &[]))?;
                    for k in 0..per {
                        let e = element(self, start + j + k)?;
                        let pos = self.i32c(k as i32)?;
                        v = self.mlir(b.value("llvm.insertelement", &[v, e, pos], reg, &[]))?;
                    }
                    packed.push(v);
                }
            }
            let result = self.mlir(b.value("llvm.inline_asm", &packed, ret_ty, &attrs))?;
            for (idx, &(i, reg, per)) in ret_regs.iter().enumerate() {
                let v = if ret_regs.len() == 1 {
                    result
                } else {
                    let pos = DenseI64ArrayAttribute::new(ctx, &[idx as i64]).into();
                    self.mlir(b.value("llvm.extractvalue", &[result], reg, &[("position", pos)]))?
                };
                if per == 1 {
                    out[i].push(v);
                } else {
                    for k in 0..per {
                        let pos = self.i32c(k as i32)?;
                        out[i].push(self.mlir(b.value(
                            "llvm.extractelement",
                            &[v, pos],
                            result_elems[i],
                            &[],
                        ))?);
                    }
                }
            }
        }
        for (&r, mut regs) in results.iter().zip(out) {
            regs.truncate(n);
            let lowered = if scalar {
                Lowered::scalar(regs[0])
            } else {
                Lowered::block(regs)
            };
            self.values.insert(r, lowered);
        }
        Ok(())
    }
}
