//! Elementwise tile ops: one MLIR op (or a short sequence) per register.

use melior::ir::{
    attribute::IntegerAttribute, r#type::IntegerType, Attribute, Type, Value, ValueLike,
};
use tritonc_ir::{
    BinaryOp, CastOp, CmpFPredicate, CmpIPredicate, DType, Elem, MathOp, OpId, OpKind,
};

use super::function::{FunctionLowering, Lowered};
use super::LowerError;

fn cmpi_number(p: CmpIPredicate) -> i64 {
    use CmpIPredicate::*;
    match p {
        Eq => 0,
        Ne => 1,
        Slt => 2,
        Sle => 3,
        Sgt => 4,
        Sge => 5,
        Ult => 6,
        Ule => 7,
        Ugt => 8,
        Uge => 9,
    }
}

fn cmpf_number(p: CmpFPredicate) -> i64 {
    use CmpFPredicate::*;
    match p {
        Oeq => 1,
        Ogt => 2,
        Oge => 3,
        Olt => 4,
        Ole => 5,
        One => 6,
        Ord => 7,
        Ueq => 8,
        Ugt => 9,
        Uge => 10,
        Ult => 11,
        Ule => 12,
        Une => 13,
        Uno => 14,
    }
}

/// The LLVM intrinsic computing libdevice's `symbol` exactly (same rounding, same
/// special cases), for the functions that are one PTX instruction.
fn libdevice_intrinsic(symbol: &str) -> Option<&'static str> {
    Some(match symbol {
        "__nv_rintf" | "__nv_nearbyintf" => "llvm.rint.f32",
        "__nv_rint" | "__nv_nearbyint" => "llvm.rint.f64",
        "__nv_truncf" => "llvm.trunc.f32",
        "__nv_trunc" => "llvm.trunc.f64",
        "__nv_floorf" => "llvm.floor.f32",
        "__nv_floor" => "llvm.floor.f64",
        "__nv_ceilf" => "llvm.ceil.f32",
        "__nv_ceil" => "llvm.ceil.f64",
        "__nv_fabsf" => "llvm.fabs.f32",
        "__nv_fabs" => "llvm.fabs.f64",
        "__nv_fmaf" | "__nv_fmaf_rn" => "llvm.fma.f32",
        "__nv_fma" | "__nv_fma_rn" => "llvm.fma.f64",
        "__nv_fminf" => "llvm.minnum.f32",
        "__nv_fmaxf" => "llvm.maxnum.f32",
        "__nv_sqrtf" | "__nv_fsqrt_rn" => "llvm.sqrt.f32",
        "__nv_sqrt" | "__nv_dsqrt_rn" => "llvm.sqrt.f64",
        _ => return None,
    })
}

impl<'l, 'c, 'a> FunctionLowering<'l, 'c, 'a> {
    pub(super) fn lower_elementwise(&mut self, op: OpId) -> Result<(), LowerError> {
        let data = self.func.op(op);
        let n_operands = data.operands().len();
        let r = data.results()[0];
        let mut operands = Vec::new();
        for i in 0..n_operands {
            operands.push(self.operand(op, i)?);
        }
        let result_ty = self.elem_type(r)?;
        let result_dtype = self.func.value_type(r).dtype();
        let operand_dtype = data
            .operands()
            .first()
            .and_then(|&v| self.func.value_type(v).dtype());
        let scalar = operands.iter().all(|o| o.scalar);
        let n = operands
            .iter()
            .filter(|o| !o.scalar)
            .map(|o| o.regs.len())
            .max()
            .unwrap_or(1);
        let kind = self.func.kind(op).clone();
        if !scalar {
            if let Some(lowered) = self.affine_multiply(op, &operands, result_ty, result_dtype)? {
                self.values.insert(r, lowered);
                return Ok(());
            }
            self.propagate_affine(op);
        }
        let first_of_run = if scalar || self.affine.contains_key(&r) {
            None
        } else {
            self.constant_runs(r, n)?
        };
        let mut regs: Vec<Value<'c, 'a>> = Vec::with_capacity(n);
        for i in 0..n {
            if let Some(first) = first_of_run.as_ref().map(|f| f[i]).filter(|&f| f != i) {
                regs.push(regs[first]);
                continue;
            }
            let args: Vec<Value<'c, 'a>> = operands.iter().map(|o| o.reg(i)).collect();
            regs.push(self.scalar_op(&kind, &args, result_ty, result_dtype, operand_dtype, op)?);
        }
        let lowered = if scalar {
            Lowered::scalar(regs[0])
        } else {
            Lowered::block(regs)
        };
        self.values.insert(r, lowered);
        Ok(())
    }

    /// For each of the `n` registers of elementwise result `r`, the first register holding
    /// an element of the same constant run (axis analysis: runs of `constancy[d]` aligned
    /// elements along each dim `d` are equal), so the op is computed once per run, as
    /// Triton's lowering deduplicates: a mask `cols < n_cols` with `n_cols` divisible by 16
    /// is one compare per 16 elements, not one per element. `None` when every element may
    /// differ.
    fn constant_runs(
        &self,
        r: tritonc_ir::Value,
        n: usize,
    ) -> Result<Option<Vec<usize>>, LowerError> {
        let info = self.layouts.axis.get(r);
        if info.constancy.iter().all(|&c| c <= 1) {
            return Ok(None);
        }
        let linear = self.result_linear(r)?;
        let coords = linear.register_coords();
        if coords.len() != n || coords.first().is_some_and(|c| c.len() != info.rank()) {
            return Ok(None);
        }
        let mut first: std::collections::HashMap<Vec<u64>, usize> = Default::default();
        let runs = coords
            .iter()
            .enumerate()
            .map(|(i, c)| {
                let run: Vec<u64> = c
                    .iter()
                    .zip(&info.constancy)
                    .map(|(&x, &k)| x / k.max(1))
                    .collect();
                *first.entry(run).or_insert(i)
            })
            .collect();
        Ok(Some(runs))
    }

    /// The per-register code of an elementwise op.
    pub(super) fn scalar_op(
        &mut self,
        kind: &OpKind,
        args: &[Value<'c, 'a>],
        result_ty: Type<'c>,
        result_dtype: Option<DType>,
        operand_dtype: Option<DType>,
        op: OpId,
    ) -> Result<Value<'c, 'a>, LowerError> {
        let b = self.b;
        let ctx = b.context();
        let i64_type: Type = IntegerType::new(ctx, 64).into();
        let i1: Type = IntegerType::new(ctx, 1).into();
        match kind {
            OpKind::Binary(bop @ (BinaryOp::MaxNumF | BinaryOp::MinNumF)) => {
                // `arith.maxnumf` would become a libdevice call (`__nv_fmaxf`); the LLVM
                // intrinsic selects PTX `max.f32` directly.
                let base = if *bop == BinaryOp::MaxNumF {
                    "llvm.maxnum"
                } else {
                    "llvm.minnum"
                };
                let suffix = match result_dtype {
                    Some(DType::F32) => "f32",
                    Some(DType::F16) => "f16",
                    Some(DType::F64) => "f64",
                    Some(DType::BF16) => "bf16",
                    _ => return Err(self.error("maxnum/minnum of this type is not supported")),
                };
                self.mlir(b.call_intrinsic(
                    &format!("{base}.{suffix}"),
                    &[args[0], args[1]],
                    result_ty,
                ))
            }
            OpKind::Binary(BinaryOp::DivF) if result_dtype == Some(DType::F32) => {
                // Triton lowers fp32 `/` to the approximate full-range `div.full.f32`
                // (2 ulp; docs/numerics.md); `tl.math.div_rn` (`tt.precise_divf`) keeps the
                // IEEE `div.rn.f32` below.
                self.mlir(b.call_intrinsic("llvm.nvvm.div.full", &[args[0], args[1]], result_ty))
            }
            OpKind::Binary(bop) => {
                let fusable = matches!(bop, BinaryOp::AddF | BinaryOp::SubF | BinaryOp::MulF);
                let mut attrs: Vec<(&str, Attribute)> = Vec::new();
                if fusable && self.options.fp_fusion {
                    let fm = Attribute::parse(ctx, "#arith.fastmath<contract>")
                        .expect("invariant: `#arith.fastmath<contract>` is valid arith syntax");
                    attrs.push(("fastmath", fm));
                }
                self.mlir(b.value(bop.word(), &[args[0], args[1]], result_ty, &attrs))
            }
            OpKind::CmpI(p) => {
                let pred = IntegerAttribute::new(i64_type, cmpi_number(*p)).into();
                self.mlir(b.value(
                    "arith.cmpi",
                    &[args[0], args[1]],
                    i1,
                    &[("predicate", pred)],
                ))
            }
            OpKind::CmpF(p) => {
                let pred = IntegerAttribute::new(i64_type, cmpf_number(*p)).into();
                self.mlir(b.value(
                    "arith.cmpf",
                    &[args[0], args[1]],
                    i1,
                    &[("predicate", pred)],
                ))
            }
            OpKind::Select => self.mlir(b.select(args[0], args[1], args[2])),
            OpKind::Cast { op: cast, rounding } => {
                if rounding.is_some_and(|r| r != tritonc_ir::RoundingMode::Rtne) {
                    // Round toward zero: PTX's `cvt.rz`, one instruction per element.
                    let (asm, constraints, bits) = match (operand_dtype, result_dtype) {
                        (Some(DType::F32), Some(DType::F16)) => ("cvt.rz.f16.f32 $0, $1;", "=h,f", 16),
                        (Some(DType::F32), Some(DType::BF16)) => {
                            ("cvt.rz.bf16.f32 $0, $1;", "=h,f", 16)
                        }
                        (Some(DType::F64), Some(DType::F32)) => ("cvt.rz.f32.f64 $0, $1;", "=f,d", 32),
                        (from, to) => {
                            return Err(self.error(format!(
                                "round-toward-zero from `{}` to `{}` is not supported by the NVIDIA back end yet",
                                from.map_or("?".to_string(), |d| d.to_string()),
                                to.map_or("?".to_string(), |d| d.to_string())
                            )))
                        }
                    };
                    if bits == 32 {
                        return self.inline_asm_value(asm, constraints, &[args[0]], result_ty);
                    }
                    let i16t: Type = IntegerType::new(ctx, 16).into();
                    let raw = self.inline_asm_value(asm, constraints, &[args[0]], i16t)?;
                    return self.mlir(b.value("llvm.bitcast", &[raw], result_ty, &[]));
                }
                if *cast == CastOp::Bitcast {
                    return self.mlir(b.value("llvm.bitcast", &[args[0]], result_ty, &[]));
                }
                self.mlir(b.value(cast.word(), &[args[0]], result_ty, &[]))
            }
            OpKind::FpToFp { rounding } => {
                let (Some(from), Some(to)) = (operand_dtype, result_dtype) else {
                    return Err(self.error("`tt.fp_to_fp` converts floats"));
                };
                self.fp_to_fp(args[0], from, to, *rounding)
            }
            OpKind::AddPtr => {
                let pointee = match self.func.value_type(self.func.op(op).results()[0]).elem() {
                    Elem::Ptr(p) => p.pointee,
                    _ => return Err(self.error("addptr on a non-pointer")),
                };
                let elem = super::function::dtype_type(ctx, pointee).ok_or_else(|| {
                    self.error(format!("pointers to `{pointee}` are not supported yet"))
                })?;
                self.mlir(b.element_ptr(args[0], args[1], elem))
            }
            OpKind::IntToPtr => self.mlir(b.value("llvm.inttoptr", &[args[0]], result_ty, &[])),
            OpKind::PtrToInt => self.mlir(b.value("llvm.ptrtoint", &[args[0]], result_ty, &[])),
            OpKind::Fma => {
                let name = match result_dtype {
                    Some(DType::F32) => "llvm.fma.f32",
                    Some(DType::F64) => "llvm.fma.f64",
                    _ => return Err(self.error("fma is supported on fp32 and fp64 only")),
                };
                self.mlir(b.call_intrinsic(name, args, result_ty))
            }
            OpKind::Math(m) => self.math(*m, args[0], result_ty, operand_dtype),
            OpKind::PreciseSqrt => {
                self.intrinsic_f32("llvm.sqrt.f32", args[0], result_ty, operand_dtype)
            }
            OpKind::PreciseDivF => {
                // A plain `fdiv` is IEEE-rounded on NVPTX (`div.rn`).
                self.mlir(b.value("arith.divf", &[args[0], args[1]], result_ty, &[]))
            }
            OpKind::ExternElementwise { symbol, .. } => match libdevice_intrinsic(symbol) {
                // libdevice functions that are one LLVM intrinsic need no libdevice.
                Some(intrinsic) => self.mlir(b.call_intrinsic(intrinsic, args, result_ty)),
                None => self.libdevice_call(symbol, args, result_ty),
            },
            OpKind::ClampF { propagate_nan } => {
                let suffix = match result_dtype {
                    Some(DType::F32) => "f32",
                    Some(DType::F16) => "f16",
                    Some(DType::F64) => "f64",
                    _ => return Err(self.error("clamp of this type is not supported")),
                };
                // Triton: min(max(x, lo), hi), NaN-propagating only with PropagateNan.ALL.
                let (max, min) = if *propagate_nan {
                    ("llvm.maximum", "llvm.minimum")
                } else {
                    ("llvm.maxnum", "llvm.minnum")
                };
                let lo = self.mlir(b.call_intrinsic(
                    &format!("{max}.{suffix}"),
                    &[args[0], args[1]],
                    result_ty,
                ))?;
                self.mlir(b.call_intrinsic(&format!("{min}.{suffix}"), &[lo, args[2]], result_ty))
            }
            OpKind::MulHiUI => {
                let name = match result_dtype {
                    Some(DType::I32 | DType::U32) => "llvm.nvvm.mulhi.ui",
                    Some(DType::I64 | DType::U64) => "llvm.nvvm.mulhi.ull",
                    _ => return Err(self.error("umulhi is supported on 32- and 64-bit integers")),
                };
                self.mlir(b.call_intrinsic(name, &[args[0], args[1]], result_ty))
            }
            k => Err(self.error(format!(
                "`{}` is not supported by the NVIDIA back end yet",
                k.name()
            ))),
        }
    }

    /// A call of libdevice's `symbol` (linked at the end of the pipeline).
    fn libdevice_call(
        &mut self,
        symbol: &str,
        args: &[Value<'c, 'a>],
        result_ty: Type<'c>,
    ) -> Result<Value<'c, 'a>, LowerError> {
        if !symbol.starts_with("__nv_") {
            return Err(self.error(format!(
                "`{symbol}` is not a libdevice function; only libdevice is linked"
            )));
        }
        // AMD: the same function from ocml (`__nv_expf` is `__ocml_exp_f32`).
        let symbol = if self.b.is_amd() {
            let fp64 = result_ty == Type::float64(self.b.context());
            crate::amdgpu::ocml::ocml_symbol(symbol, fp64).ok_or_else(|| {
                self.error(format!("`{symbol}` has no ocml counterpart"))
            })?
        } else {
            symbol.to_string()
        };
        let arg_types: Vec<Type<'c>> = args.iter().map(|v| v.r#type()).collect();
        self.externs.insert(symbol.clone(), (arg_types, result_ty));
        self.mlir(self.b.call(&symbol, args, result_ty))
    }

    fn intrinsic_f32(
        &self,
        name: &str,
        x: Value<'c, 'a>,
        ty: Type<'c>,
        dtype: Option<DType>,
    ) -> Result<Value<'c, 'a>, LowerError> {
        if dtype != Some(DType::F32) {
            return Err(
                self.error("this math function is supported on fp32 only by the NVIDIA back end")
            );
        }
        self.mlir(self.b.call_intrinsic(name, &[x], ty))
    }

    /// Transcendental math through NVVM intrinsics, as Triton lowers fp32 math.
    fn math(
        &mut self,
        m: MathOp,
        x: Value<'c, 'a>,
        ty: Type<'c>,
        dtype: Option<DType>,
    ) -> Result<Value<'c, 'a>, LowerError> {
        let b = self.b;
        let f32_only = |what: &str| {
            if dtype == Some(DType::F32) {
                Ok(())
            } else {
                Err(self.error(format!(
                    "`{what}` is supported on fp32 only by the NVIDIA back end"
                )))
            }
        };
        match m {
            MathOp::Exp => {
                f32_only("exp")?;
                self.mlir(b.exp_f32(x))
            }
            MathOp::Exp2 => {
                f32_only("exp2")?;
                self.mlir(b.exp2_f32(x))
            }
            MathOp::Log2 => self.intrinsic_f32("llvm.nvvm.lg2.approx.f", x, ty, dtype),
            MathOp::Log => {
                f32_only("log")?;
                let l2 = self.mlir(b.call_intrinsic("llvm.nvvm.lg2.approx.f", &[x], ty))?;
                let ln2 = self.mlir(b.const_f32(std::f32::consts::LN_2))?;
                self.mlir(b.binary("arith.mulf", l2, ln2))
            }
            MathOp::Rsqrt => {
                f32_only("rsqrt")?;
                self.mlir(b.rsqrt_f32(x))
            }
            MathOp::Sqrt => self.intrinsic_f32("llvm.nvvm.sqrt.approx.f", x, ty, dtype),
            MathOp::AbsF => match dtype {
                Some(DType::F32) => self.mlir(b.call_intrinsic("llvm.fabs.f32", &[x], ty)),
                Some(DType::F16) => self.mlir(b.call_intrinsic("llvm.fabs.f16", &[x], ty)),
                Some(DType::F64) => self.mlir(b.call_intrinsic("llvm.fabs.f64", &[x], ty)),
                // bf16: clear the sign bit (what `fabs` does, on every target).
                Some(DType::BF16) => {
                    let i16t: Type = IntegerType::new(b.context(), 16).into();
                    let bits = self.mlir(b.value("llvm.bitcast", &[x], i16t, &[]))?;
                    let mask = IntegerAttribute::new(i16t, 0x7fff).into();
                    let mask = self.mlir(b.value("arith.constant", &[], i16t, &[("value", mask)]))?;
                    let cleared = self.mlir(b.binary("arith.andi", bits, mask))?;
                    self.mlir(b.value("llvm.bitcast", &[cleared], ty, &[]))
                }
                _ => Err(self.error("abs of this float type is not supported yet")),
            },
            MathOp::Floor => self.intrinsic_f32("llvm.floor.f32", x, ty, dtype),
            MathOp::Ceil => self.intrinsic_f32("llvm.ceil.f32", x, ty, dtype),
            MathOp::AbsI => {
                let f = IntegerAttribute::new(IntegerType::new(b.context(), 1).into(), 0).into();
                self.mlir(b.value("llvm.intr.abs", &[x], ty, &[("is_int_min_poison", f)]))
            }
            MathOp::Sin | MathOp::Cos | MathOp::Erf => {
                let base = match m {
                    MathOp::Sin => "sin",
                    MathOp::Cos => "cos",
                    _ => "erf",
                };
                let symbol = match dtype {
                    Some(DType::F32) => format!("__nv_{base}f"),
                    Some(DType::F64) => format!("__nv_{base}"),
                    _ => {
                        return Err(self.error(format!(
                            "`{}` is supported on fp32 and fp64 only by the NVIDIA back end",
                            m.word()
                        )))
                    }
                };
                self.libdevice_call(&symbol, &[x], ty)
            }
        }
    }
}
