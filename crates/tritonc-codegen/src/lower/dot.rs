//! `tt.dot` on the FMA units: `D = A·B + C` with every thread computing the elements of
//! `D` its (blocked) layout gives it.
//!
//! A (`M×K`) and B (`K×N`) are written to shared scratch row-major (any layout they
//! come in); then an `scf.for` over `k = 0..K` carries the thread's accumulators: each
//! iteration reads `A[m, k]` for the thread's rows and `B[k, n]` for its columns and
//! does `acc[m, n] = fma(a, b, acc[m, n])`. So every output is accumulated in order
//! `k = 0, 1, …, K-1`, one fused multiply-add each, starting from `C`: the order the
//! interpreter replays. fp16/bf16 (and fp8) inputs are widened to fp32 exactly first;
//! fp32 inputs with `input_precision = tf32` are rounded to TF32 (`cvt.rna.tf32.f32`,
//! as the tensor cores see them); `tf32x3` and `ieee` use the fp32 values. Integer
//! dots sign-extend to the accumulator type and multiply-add with wrapping.

use std::collections::BTreeMap;

use melior::ir::{BlockLike, Type, Value, ValueLike};
use tritonc_ir::{DType, InputPrecision, OpId, OpKind};

use super::function::{FunctionLowering, Lowered};
use super::shared::storage_bytes;
use super::LowerError;

impl<'l, 'c, 'a> FunctionLowering<'l, 'c, 'a> {
    pub(super) fn lower_dot(&mut self, op: OpId) -> Result<(), LowerError> {
        let OpKind::Dot {
            input_precision, ..
        } = *self.func.kind(op)
        else {
            unreachable!("invariant: lower_dot is called on tt.dot")
        };
        let data = self.func.op(op);
        let [a_v, b_v, _] = data.operands()[..] else {
            return Err(self.error("`tt.dot` takes three operands"));
        };
        let r = data.results()[0];
        if let Some(tritonc_ttgir::Layout::Mma(mma)) = self.func.value_type(r).encoding() {
            let mma = mma.clone();
            if mma.is_wgmma() {
                return self.lower_dot_wgmma(op, &mma);
            }
            return self.lower_dot_mma(op, &mma);
        }
        if let Some(tritonc_ttgir::Layout::AmdMfma(mfma)) = self.func.value_type(r).encoding() {
            let mfma = mfma.clone();
            return self.lower_dot_mfma(op, &mfma);
        }
        let dims = |this: &Self, v| {
            this.func
                .value_type(v)
                .known_shape()
                .filter(|s: &Vec<u64>| s.len() == 2)
                .ok_or_else(|| this.error("only 2-D `tt.dot` is supported by the NVIDIA back end"))
        };
        let (a_shape, b_shape) = (dims(self, a_v)?, dims(self, b_v)?);
        let (m, k, n) = (a_shape[0], a_shape[1], b_shape[1]);
        let in_dtype = self
            .func
            .value_type(a_v)
            .dtype()
            .ok_or_else(|| self.error("dot operands must be numbers"))?;
        let acc_dtype = self
            .func
            .value_type(r)
            .dtype()
            .ok_or_else(|| self.error("dot result must be numbers"))?;
        let acc_ty = self.elem_type(r)?;
        let a_ty = self.elem_type(a_v)?;
        let b_ty = self.elem_type(b_v)?;
        if !(acc_dtype.is_float() || acc_dtype.is_int()) {
            return Err(self.error("unsupported dot accumulator type"));
        }

        // A and B to shared memory, row-major.
        let a_bytes = (m * k * storage_bytes(a_ty)).next_multiple_of(16);
        let b_bytes = (k * n * storage_bytes(b_ty)).next_multiple_of(16);
        self.claim_shared(a_bytes + b_bytes)?;
        for (i, v, strides, byte_offset, ty) in [
            (0, a_v, [k, 1], 0u64, a_ty),
            (1, b_v, [n, 1], a_bytes, b_ty),
        ] {
            let layout = self
                .layouts
                .operand_layout(self.func, op, i)
                .ok_or_else(|| self.error("dot operand without a layout"))?
                .clone();
            let linear = self.linear_of(v, &layout)?;
            let regs = self.operand(op, i)?.regs;
            self.shared_write(&regs, ty, &linear, &strides, 0, byte_offset as u32)?;
        }
        self.mlir(self.b.barrier())?;

        // The thread's rows and columns of D.
        let acc = self.operand(op, 2)?;
        let out = self.result_linear(r)?;
        let coords = out.register_coords();
        let offsets = self.thread_offsets(&out)?;
        let rows: BTreeMap<u64, usize> = coords
            .iter()
            .map(|c| c[0])
            .collect::<std::collections::BTreeSet<_>>()
            .into_iter()
            .enumerate()
            .map(|(i, x)| (x, i))
            .collect();
        let cols: BTreeMap<u64, usize> = coords
            .iter()
            .map(|c| c[1])
            .collect::<std::collections::BTreeSet<_>>()
            .into_iter()
            .enumerate()
            .map(|(i, x)| (x, i))
            .collect();
        // Row bases m * K and the column part, per thread.
        let b = self.b;
        let k_c = self.mlir(b.const_i32(k as i32))?;
        let row_base = match offsets[0] {
            Some(o) => Some(self.mlir(b.binary("arith.muli", o, k_c))?),
            None => None,
        };
        let col_base = offsets[1];

        let zero = self.mlir(b.const_i32(0))?;
        let one = self.mlir(b.const_i32(1))?;
        let inits: Vec<Value<'c, 'a>> = acc.regs.clone();
        let types: Vec<Type<'c>> = inits.iter().map(|v| v.r#type()).collect();
        let mut operands = vec![zero, k_c, one];
        operands.extend(&inits);
        let mut block_types = vec![b.i32_type()];
        block_types.extend(&types);
        let (results, blocks) =
            self.mlir(b.region_op("scf.for", &operands, &types, &[block_types]))?;
        let body = blocks[0];
        let args: Vec<Value<'c, 'a>> = (0..body.argument_count())
            .map(|i| {
                body.argument(i)
                    .expect("invariant: i < argument_count")
                    .into()
            })
            .collect();
        let outer = self.b;
        let saved_offsets = self.offsets.clone();
        self.b = self.arena.alloc(outer.nested(body));
        let result = (|| {
            let b = self.b;
            let kk = args[0];
            // A[m, k] at (m_thread + m_reg) * K + k.
            let a_dyn = match row_base {
                Some(rb) => self.mlir(b.binary("arith.addi", rb, kk))?,
                None => kk,
            };
            let mut a_vals = Vec::new();
            for &mr in rows.keys() {
                let slot = self.shared_slot(a_ty, 0, mr * k, Some(a_dyn))?;
                let v = self.mlir(b.load(slot, a_ty))?;
                a_vals.push(self.dot_input(v, in_dtype, acc_dtype, acc_ty, input_precision)?);
            }
            // B[k, n] at k * N + n_thread + n_reg.
            let n_c = self.mlir(b.const_i32(n as i32))?;
            let kn = self.mlir(b.binary("arith.muli", kk, n_c))?;
            let b_dyn = match col_base {
                Some(cb) => self.mlir(b.binary("arith.addi", kn, cb))?,
                None => kn,
            };
            let b_dtype = self.func.value_type(b_v).dtype().unwrap_or(in_dtype);
            let mut b_vals = Vec::new();
            for &nr in cols.keys() {
                let slot = self.shared_slot(b_ty, a_bytes as u32, nr, Some(b_dyn))?;
                let v = self.mlir(b.load(slot, b_ty))?;
                b_vals.push(self.dot_input(v, b_dtype, acc_dtype, acc_ty, input_precision)?);
            }
            let mut next = Vec::with_capacity(coords.len());
            for (i, c) in coords.iter().enumerate() {
                let av = a_vals[rows[&c[0]]];
                let bv = b_vals[cols[&c[1]]];
                let accv = args[1 + i];
                next.push(self.multiply_add(av, bv, accv, acc_dtype, acc_ty)?);
            }
            self.mlir(b.effect("scf.yield", &next, &[]))
        })();
        self.b = outer;
        self.offsets = saved_offsets;
        result?;
        self.values.insert(r, Lowered::block(results));
        Ok(())
    }

    /// An operand element as the accumulator type sees it.
    fn dot_input(
        &mut self,
        v: Value<'c, 'a>,
        dtype: DType,
        acc_dtype: DType,
        acc_ty: Type<'c>,
        precision: InputPrecision,
    ) -> Result<Value<'c, 'a>, LowerError> {
        let b = self.b;
        if acc_dtype.is_int() {
            if dtype == acc_dtype {
                return Ok(v);
            }
            let op = if dtype.is_signed() {
                "arith.extsi"
            } else {
                "arith.extui"
            };
            return self.mlir(b.value(op, &[v], acc_ty, &[]));
        }
        let widened = if dtype == acc_dtype {
            v
        } else if matches!(dtype, DType::F8E4M3FN | DType::F8E5M2) && acc_dtype == DType::F32 {
            // fp8 travels as its byte: widened exactly through fp16 (sm_89's cvt).
            self.fp_to_fp(v, dtype, DType::F32, None)?
        } else if dtype.is_float() && dtype.bitwidth() < acc_dtype.bitwidth() {
            self.mlir(b.value("arith.extf", &[v], acc_ty, &[]))?
        } else {
            return Err(self.error(format!(
                "`tt.dot` of `{dtype}` into `{acc_dtype}` is not supported by the NVIDIA back end yet"
            )));
        };
        if dtype == DType::F32 && precision == InputPrecision::Tf32 {
            return self.round_to_tf32(widened);
        }
        Ok(widened)
    }

    /// `cvt.rna.tf32.f32`: fp32 rounded to TF32 (10 mantissa bits, ties away from zero),
    /// kept in an fp32 register.
    fn round_to_tf32(&self, v: Value<'c, 'a>) -> Result<Value<'c, 'a>, LowerError> {
        let b = self.b;
        let i32t = b.i32_type();
        let bits = self.inline_asm_value("cvt.rna.tf32.f32 $0, $1;", "=r,f", &[v], i32t)?;
        self.mlir(b.value("llvm.bitcast", &[bits], b.f32_type(), &[]))
    }

    fn multiply_add(
        &self,
        a: Value<'c, 'a>,
        b_val: Value<'c, 'a>,
        acc: Value<'c, 'a>,
        acc_dtype: DType,
        acc_ty: Type<'c>,
    ) -> Result<Value<'c, 'a>, LowerError> {
        let b = self.b;
        if acc_dtype.is_int() {
            let p = self.mlir(b.binary("arith.muli", a, b_val))?;
            return self.mlir(b.binary("arith.addi", acc, p));
        }
        let name = match acc_dtype {
            DType::F32 => "llvm.fma.f32",
            DType::F64 => "llvm.fma.f64",
            DType::F16 => "llvm.fma.f16",
            _ => {
                return Err(self.error(format!(
                    "a `{acc_dtype}` dot accumulator is not supported by the NVIDIA back end yet"
                )))
            }
        };
        self.mlir(b.call_intrinsic(name, &[a, b_val, acc], acc_ty))
    }
}
