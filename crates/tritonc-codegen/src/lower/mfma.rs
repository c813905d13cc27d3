//! `tt.dot` on AMD's matrix cores: `v_mfma_*` (ROCDL's `rocdl.mfma.*`) for a dot whose
//! result is in the `#ttg.amd_mfma` layout (chosen by `tritonc_ttgir::accelerate_amd`).
//!
//! Each operand goes through LDS, one after the other (as Triton's code does, so the LDS
//! they take is the larger operand's): its registers are written K-contiguous (A as
//! `[M][K + kWidth]`, B as `[N][K + kWidth]`; the `kWidth` elements of padding keep the
//! rows of neighbouring lanes off one bank, and are left out where the padded operand
//! would not fit in LDS), a barrier, then every thread reads the
//! registers of the operand layout (`MfmaLayout::operand_linear`, Triton's
//! `#ttg.dot_op<{opIdx, parent = #mma, kWidth}>`) as vectors of `kWidth` K-consecutive
//! elements: one MFMA source register each. The addresses are the linear layout's: the
//! thread's lane and warp bases plus the register bases as constants, fully unrolled.
//!
//! Then, per instruction tile of the accumulator (the register bases above the
//! instruction's own) and per K step of `kDim`, in increasing K, one `v_mfma` with the B
//! fragment as its first source and the A fragment as its second (the layout is
//! transposed: the instruction computes `Bᵀ·Aᵀ`, so each lane's results run along N).
//! The accumulator registers of a tile are the instruction's result vector, element `r`
//! being the layout's register `r` of the tile. Every output is accumulated over K in
//! steps of the instruction's K, in increasing K: the order docs/numerics.md's dot
//! tolerance is stated for.

use std::collections::HashMap;

use melior::ir::{r#type::IntegerType, Type, Value};
use tritonc_ir::{DType, MfmaLayout, OpId};

use super::function::{FunctionLowering, Lowered};
use super::LowerError;

/// The ROCDL op of an instruction: `rocdl.mfma.<name>`.
pub fn mfma_op_name(version: u32, a: DType, instr: &[u32]) -> Option<&'static str> {
    Some(match (a, instr) {
        (DType::F16, [32, 32, 8]) => "rocdl.mfma.f32.32x32x8f16",
        (DType::F16, [16, 16, 16]) => "rocdl.mfma.f32.16x16x16f16",
        (DType::BF16, [32, 32, 8]) => "rocdl.mfma.f32.32x32x8bf16.1k",
        (DType::BF16, [16, 16, 16]) => "rocdl.mfma.f32.16x16x16bf16.1k",
        (DType::F32, [32, 32, 2]) => "rocdl.mfma.f32.32x32x2f32",
        (DType::F32, [16, 16, 4]) => "rocdl.mfma.f32.16x16x4f32",
        (DType::I8, [32, 32, 16]) if version >= 3 => "rocdl.mfma.i32.32x32x16.i8",
        (DType::I8, [16, 16, 32]) if version >= 3 => "rocdl.mfma.i32.16x16x32.i8",
        (DType::I8, [32, 32, 8]) => "rocdl.mfma.i32.32x32x8i8",
        (DType::I8, [16, 16, 16]) => "rocdl.mfma.i32.16x16x16i8",
        _ => return None,
    })
}

impl<'l, 'c, 'a> FunctionLowering<'l, 'c, 'a> {
    pub(super) fn lower_dot_mfma(&mut self, op: OpId, mfma: &MfmaLayout) -> Result<(), LowerError> {
        let data = self.func.op(op);
        let [a_v, b_v, _] = data.operands()[..] else {
            return Err(self.error("`tt.dot` takes three operands"));
        };
        let r = data.results()[0];
        let shape_of = |this: &Self, v| {
            this.func
                .value_type(v)
                .known_shape()
                .filter(|s: &Vec<u64>| s.len() == 2)
                .ok_or_else(|| this.error("an MFMA dot is 2-D"))
        };
        let (a_shape, b_shape) = (shape_of(self, a_v)?, shape_of(self, b_v)?);
        let (m, k, n) = (a_shape[0], a_shape[1], b_shape[1]);
        let dtype = |this: &Self, v| {
            this.func
                .value_type(v)
                .dtype()
                .ok_or_else(|| this.error("dot operands must be numbers"))
        };
        let (a_dtype, b_dtype) = (dtype(self, a_v)?, dtype(self, b_v)?);
        let name = mfma_op_name(mfma.version, a_dtype, &mfma.instr_shape)
            .filter(|_| a_dtype == b_dtype && mfma.is_transposed)
            .ok_or_else(|| {
                self.error(format!(
                    "no MFMA instruction for a `{a_dtype}` dot with layout {mfma}"
                ))
            })?;
        if !self
            .layouts
            .operand_layout(self.func, op, 2)
            .is_some_and(|l| matches!(l, tritonc_ir::layout::Layout::AmdMfma(x) if x == mfma))
        {
            return Err(self.error("internal: an MFMA dot's accumulator is not in its layout"));
        }
        let kw = mfma.k_width();
        let k_dim = mfma.k_dim();
        let acc_regs = (mfma.non_k_dim() * mfma.non_k_dim() / 64) as usize;
        let elem_ty = self.elem_type(a_v)?;
        let acc_ty = self.elem_type(r)?;
        let elem_bytes = u64::from(
            a_dtype
                .size_bytes()
                .ok_or_else(|| self.error("dot operands must be numbers"))?,
        );
        // Rocdl ops are built here only: load the dialect where a kernel needs it.
        self.b.context().get_or_load_dialect("rocdl");

        // Operand fragments, keyed by the register part of their coordinates
        // (A: (m, k), B: (k, n)) at the start of each kWidth run. Rows are padded by
        // kWidth elements unless that would not fit in the workgroup's LDS (Triton's
        // swizzled operands take exactly `max(M, N)·K` elements).
        let padded = m.max(n) * (k + kw) * elem_bytes;
        let row = if padded > self.target.shared_memory_per_block() {
            k
        } else {
            k + kw
        };
        let mut frags: [HashMap<(u64, u64), Value<'c, 'a>>; 2] = [HashMap::new(), HashMap::new()];
        for (i, v, shape, strides) in [
            (0usize, a_v, [m, k], [row, 1]),
            (1usize, b_v, [k, n], [1, row]),
        ] {
            let from = self
                .layouts
                .operand_layout(self.func, op, i)
                .ok_or_else(|| self.error("dot operand without a layout"))?
                .clone();
            let source = self.linear_of(v, &from)?;
            let regs = self.operand(op, i)?.regs;
            // A is stored as [M][K + kWidth], B as [N][K + kWidth].
            let rows = shape[i];
            self.claim_shared(rows * row * elem_bytes)?;
            self.shared_write(&regs, elem_ty, &source, &strides, 0, 0)?;
            self.mlir(self.b.barrier())?;
            let target = mfma
                .operand_linear(i, kw, &shape)
                .map_err(|e| self.error(e.to_string()))?;
            let thread = self.thread_strided_index(&target, &strides)?;
            let vt = if kw == 1 {
                elem_ty
            } else {
                self.vector_type(elem_ty, kw as usize)?
            };
            let coords = target.register_coords();
            if coords.len() as u64 % kw != 0 {
                return Err(self.error("internal: an MFMA operand layout splits a fragment"));
            }
            for c in coords.iter().step_by(kw as usize) {
                let at = c[0] * strides[0] + c[1] * strides[1];
                let slot = self.shared_slot(elem_ty, 0, at, thread)?;
                let value = self.mlir(self.b.load(slot, vt))?;
                let value = self.mfma_source(value, a_dtype, kw)?;
                frags[i].insert((c[0], c[1]), value);
            }
        }

        // The accumulator, tile by tile, over K.
        let acc = self.operand(op, 2)?.regs;
        let out = self.result_linear(r)?;
        let coords = out.register_coords();
        if acc.len() != coords.len() || coords.len() % acc_regs != 0 {
            return Err(self.error("internal: MFMA accumulator registers do not tile"));
        }
        // An fp16 accumulator runs the fp32 instruction: widened before the dot's first
        // instruction, rounded after its last (Triton's `arith.truncf` after the dot).
        let narrow = self.func.value_type(r).dtype() == Some(DType::F16);
        let acc_ty = if narrow { self.b.f32_type() } else { acc_ty };
        let acc_vt = self.vector_type(acc_ty, acc_regs)?;
        let zero = self.i32c(0)?;
        let mut results = Vec::with_capacity(acc.len());
        for (t, c) in coords.iter().enumerate().step_by(acc_regs) {
            let b = self.b;
            let mut v = self.mlir(b.value("llvm.mlir.undef", &[], acc_vt, &[]))?;
            for (e, &reg) in acc[t..t + acc_regs].iter().enumerate() {
                let reg = if narrow {
                    self.mlir(b.value("arith.extf", &[reg], acc_ty, &[]))?
                } else {
                    reg
                };
                let pos = self.i32c(e as i32)?;
                v = self.mlir(b.value("llvm.insertelement", &[v, reg, pos], acc_vt, &[]))?;
            }
            let (mo, no) = (c[0], c[1]);
            for s in 0..k / k_dim {
                let ko = s * k_dim;
                let (Some(&fa), Some(&fb)) = (frags[0].get(&(mo, ko)), frags[1].get(&(ko, no)))
                else {
                    return Err(self.error(format!(
                        "internal: no MFMA fragment for tile ({mo}, {no}) at K {ko}"
                    )));
                };
                v = self.mlir(b.value(name, &[fb, fa, v, zero, zero, zero], acc_vt, &[]))?;
            }
            for e in 0..acc_regs {
                let pos = self.i32c(e as i32)?;
                let x = self.mlir(b.value("llvm.extractelement", &[v, pos], acc_ty, &[]))?;
                results.push(if narrow {
                    let f16 = self.elem_type(r)?;
                    self.mlir(b.value("arith.truncf", &[x], f16, &[]))?
                } else {
                    x
                });
            }
        }
        self.values.insert(r, Lowered::block(results));
        Ok(())
    }

    /// A fragment of `kw` elements as the instruction's source operand: fp16 and fp32 as
    /// they are, bf16 as `vector<kw x i16>` (the `_1k` instructions'), int8 as one
    /// `kw·8`-bit integer.
    fn mfma_source(
        &self,
        v: Value<'c, 'a>,
        dtype: DType,
        kw: u64,
    ) -> Result<Value<'c, 'a>, LowerError> {
        let b = self.b;
        let ctx = b.context();
        let ty: Type = match dtype {
            DType::BF16 => self.vector_type(IntegerType::new(ctx, 16).into(), kw as usize)?,
            DType::I8 => IntegerType::new(ctx, (8 * kw) as u32).into(),
            _ => return Ok(v),
        };
        self.mlir(b.value("llvm.bitcast", &[v], ty, &[]))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_chosen_instruction_has_an_op() {
        for version in [2, 3] {
            for (dtype, acc) in [
                (DType::F16, DType::F32),
                (DType::F16, DType::F16),
                (DType::BF16, DType::F32),
                (DType::F32, DType::F32),
                (DType::I8, DType::I32),
            ] {
                for non_k in [16, 32] {
                    let instr =
                        tritonc_ttgir::accelerate_amd::mfma_instr_shape(version, dtype, acc, non_k)
                            .expect("an instruction");
                    assert!(
                        mfma_op_name(version, dtype, &instr).is_some(),
                        "{version} {dtype} {instr:?}"
                    );
                }
            }
        }
    }
}
