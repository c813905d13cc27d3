//! `tt.fp_to_fp`: conversions to and from NVIDIA's fp8 formats (`float8e4nv` = e4m3fn,
//! `float8e5` = e5m2) with the sm_89+ instructions Triton uses:
//! `cvt.rn.satfinite.{e4m3x2,e5m2x2}.{f32,f16x2}` to fp8 (nearest even, saturating to
//! the largest finite value, NaN kept) and `cvt.rn.f16x2.{e4m3x2,e5m2x2}` from fp8
//! (exact). Each element goes alone in the low half of the pair. fp8 values are their
//! byte (`i8`); other widths go through fp16 or fp32, exactly.

use melior::ir::{r#type::IntegerType, Type, Value};
use tritonc_ir::{DType, RoundingMode};

use super::function::FunctionLowering;
use super::LowerError;

fn fp8_name(d: DType) -> Option<&'static str> {
    match d {
        DType::F8E4M3FN => Some("e4m3x2"),
        DType::F8E5M2 => Some("e5m2x2"),
        _ => None,
    }
}

impl<'l, 'c, 'a> FunctionLowering<'l, 'c, 'a> {
    pub(super) fn fp_to_fp(
        &mut self,
        x: Value<'c, 'a>,
        from: DType,
        to: DType,
        rounding: Option<RoundingMode>,
    ) -> Result<Value<'c, 'a>, LowerError> {
        let b = self.b;
        let ctx = b.context();
        let i8t: Type = IntegerType::new(ctx, 8).into();
        let i16t: Type = IntegerType::new(ctx, 16).into();
        let i32t: Type = IntegerType::new(ctx, 32).into();
        let f16t = Type::float16(ctx);
        let f32t = Type::float32(ctx);
        let unsupported = |this: &Self| {
            this.error(format!(
                "`tt.fp_to_fp` from `{from}` to `{to}` is not supported by the NVIDIA back end"
            ))
        };
        if fp8_name(from).is_none() && fp8_name(to).is_none() {
            return Err(unsupported(self));
        }
        if self.requires_sm.as_ref().is_none_or(|(sm, ..)| *sm < 89) {
            let span = self
                .current_op
                .and_then(|op| self.func.op(op).loc.known_span());
            self.requires_sm = Some((89, span, format!("fp8 conversion to `{to}`")));
        }
        // From fp8: to fp16 exactly, then on.
        if let Some(name) = fp8_name(from) {
            let wide = self.mlir(b.value("arith.extui", &[x], i16t, &[]))?;
            let pair = self.inline_asm_value(
                &format!("cvt.rn.f16x2.{name} $0, $1;"),
                "=r,h",
                &[wide],
                i32t,
            )?;
            let low = self.mlir(b.value("arith.trunci", &[pair], i16t, &[]))?;
            let h = self.mlir(b.value("llvm.bitcast", &[low], f16t, &[]))?;
            return match to {
                DType::F16 => Ok(h),
                DType::F32 => self.mlir(b.value("arith.extf", &[h], f32t, &[])),
                DType::BF16 => {
                    // Every fp8 value is a bf16 value: the narrowing is exact.
                    let f = self.mlir(b.value("arith.extf", &[h], f32t, &[]))?;
                    self.mlir(b.value("arith.truncf", &[f], Type::bfloat16(ctx), &[]))
                }
                DType::F64 => self.mlir(b.value("arith.extf", &[h], Type::float64(ctx), &[])),
                t if fp8_name(t).is_some() => self.fp_to_fp(h, DType::F16, t, rounding),
                _ => Err(unsupported(self)),
            };
        }
        // To fp8: nearest even only (Triton has no other mode for these).
        if rounding.is_some_and(|r| r != RoundingMode::Rtne) {
            return Err(self.error("fp8 narrowing rounds to nearest even only"));
        }
        let name = fp8_name(to).ok_or_else(|| unsupported(self))?;
        let pair = match from {
            DType::F16 => {
                let bits = self.mlir(b.value("llvm.bitcast", &[x], i16t, &[]))?;
                let word = self.mlir(b.value("arith.extui", &[bits], i32t, &[]))?;
                self.inline_asm_value(
                    &format!("cvt.rn.satfinite.{name}.f16x2 $0, $1;"),
                    "=h,r",
                    &[word],
                    i16t,
                )?
            }
            DType::F32 | DType::BF16 | DType::F64 => {
                let f = match from {
                    DType::F32 => x,
                    DType::BF16 => self.mlir(b.value("arith.extf", &[x], f32t, &[]))?,
                    // fp64 → fp32 may round once before fp8 does: Triton goes the same way.
                    _ => self.mlir(b.value("arith.truncf", &[x], f32t, &[]))?,
                };
                let zero = self.mlir(b.const_f32(0.0))?;
                self.inline_asm_value(
                    &format!("cvt.rn.satfinite.{name}.f32 $0, $1, $2;"),
                    "=h,f,f",
                    &[zero, f],
                    i16t,
                )?
            }
            _ => return Err(unsupported(self)),
        };
        self.mlir(b.value("arith.trunci", &[pair], i8t, &[]))
    }
}
