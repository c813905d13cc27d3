//! Operators on runtime values: materializing Python numbers, casts, broadcasting, binary
//! and unary operators, and `x[:, None]` indexing.

use tritonc_diagnostics::{Diagnostic, Span};
use tritonc_ir::{BinaryOp, CastOp, CmpFPredicate, CmpIPredicate, DType, Dim, Elem, Type};
use tritonc_syntax::ast::{Constant, Expr, ExprKind, UnaryOp};

use crate::codes;
use crate::lower::LowerCx;
use crate::promote::{self, BinaryKind, Operand};
use crate::value::{Constexpr, SemaValue, TensorValue};
use crate::version::TritonVersion;

fn err(code: tritonc_diagnostics::Code, span: Span, msg: impl Into<String>) -> Diagnostic {
    Diagnostic::error(code, msg).with_primary(span, "")
}

/// A Python number as a scalar constant of `dtype`.
pub fn constant(
    cx: &mut LowerCx<'_>,
    c: &Constexpr,
    dtype: DType,
    span: Span,
) -> Result<TensorValue, Diagnostic> {
    let ty = Type::Scalar(dtype);
    if dtype.is_var() {
        // A number of an unknown dtype (`other=-float("inf")` for a pointee variable).
        return Ok(crate::generic::placeholder(cx, &c.to_string(), ty, span));
    }
    let id = if dtype.is_float() {
        let f = c.as_f64().ok_or_else(|| {
            err(
                codes::INVALID_OPERAND,
                span,
                format!("expected a number, got {}", c.type_name()),
            )
        })?;
        cx.builder(span).const_float(f, ty.clone())
    } else {
        let v = match c {
            // A float no integer of `dtype` holds (inf, NaN, out of range): Triton makes an
            // fp32 tensor of it and converts that at run time (`arith.fptosi`, which MLIR
            // does not fold), so does tritonc; the device's conversion decides the value.
            Constexpr::Float(f) if !int_holds(dtype, f.trunc()) => {
                let x = cx.builder(span).const_float(*f, Type::Scalar(DType::F32));
                let op = if promote::is_unsigned(dtype) {
                    CastOp::FPToUI
                } else {
                    CastOp::FPToSI
                };
                let id = cx.builder(span).cast(op, x, dtype);
                return Ok(TensorValue { id, ty });
            }
            Constexpr::Float(f) => f.trunc() as i128,
            other => other.as_int().ok_or_else(|| {
                err(
                    codes::INVALID_OPERAND,
                    span,
                    format!("expected a number, got {}", other.type_name()),
                )
            })?,
        };
        cx.builder(span).const_int(v, ty.clone())
    };
    Ok(TensorValue { id, ty })
}

/// Whether the integer dtype `d` holds the (integral) float `v`.
fn int_holds(d: DType, v: f64) -> bool {
    let Some(bits) = d.bitwidth() else {
        return false;
    };
    // [lo, end): powers of two are exact in f64, so the bounds are too.
    let (lo, end) = if d == DType::I1 {
        (0.0, 2.0)
    } else if promote::is_unsigned(d) {
        (0.0, 2f64.powi(bits as i32))
    } else {
        (-(2f64.powi(bits as i32 - 1)), 2f64.powi(bits as i32 - 1))
    };
    v.is_finite() && v >= lo && v < end
}

/// A value as a runtime value; Python numbers get their literal dtype (`to_tensor`).
pub fn to_tensor(
    cx: &mut LowerCx<'_>,
    v: SemaValue,
    span: Span,
) -> Result<TensorValue, Diagnostic> {
    match v {
        SemaValue::Tensor(t) => Ok(t),
        SemaValue::Const(c) if c.is_number() => {
            let op = match c {
                Constexpr::Bool(b) => Operand::Bool(b),
                Constexpr::Float(f) => Operand::Float(f),
                ref o => Operand::Int(o.as_int().unwrap_or(0)),
            };
            let d = promote::literal_dtype(op).map_err(|e| err(e.code, span, e.message))?;
            constant(cx, &c, d, span)
        }
        SemaValue::Const(Constexpr::Symbolic(s)) if crate::generic::active() => {
            crate::generic::materialize(cx, &s, span).ok_or_else(|| {
                err(
                    codes::INVALID_OPERAND,
                    span,
                    format!("expected a tensor or a number, got the dtype `{}`", s.name),
                )
            })
        }
        other => Err(err(
            codes::INVALID_OPERAND,
            span,
            format!("expected a tensor or a number, got {}", other.describe()),
        )),
    }
}

/// A value as a runtime value of `dtype` (numbers as constants, tensors cast).
pub fn to_tensor_as(
    cx: &mut LowerCx<'_>,
    v: SemaValue,
    dtype: DType,
    span: Span,
) -> Result<TensorValue, Diagnostic> {
    match v {
        // Triton makes an int32 (or bool) tensor of an integer and casts it, and an fp8
        // cast only takes floats: `cannot cast int32[…] to fp8e4nv`.
        SemaValue::Const(c) if dtype.is_fp8() && c.is_number() && !matches!(c, Constexpr::Float(_)) => {
            Err(err(
                codes::INVALID_CAST,
                span,
                format!(
                    "cannot cast the integer `{c}` to `{}`: fp8 converts only from and to float types",
                    dtype.signature_name().unwrap_or("fp8")
                ),
            )
            .with_help("write it as a float (`0.0`)"))
        }
        SemaValue::Const(c) if c.is_number() => constant(cx, &c, dtype, span),
        SemaValue::Const(Constexpr::Symbolic(s)) if crate::generic::active() => {
            let ty = Type::Scalar(dtype);
            Ok(crate::generic::placeholder(cx, &s.name, ty, span))
        }
        other => {
            let t = to_tensor(cx, other, span)?;
            cast(cx, t, dtype, span)
        }
    }
}

/// `ptr.to(tl.int64)` (`tt.ptr_to_int`) and `ptr.to(tl.int1)` (the address is not 0), the
/// only conversions of a pointer to a value Triton 3.6 has (its `semantic.cast`, also
/// behind `tl.full((), ptr, tl.int64)` and a pointer stored through an `int64` pointer).
pub fn cast_pointer_to(
    cx: &mut LowerCx<'_>,
    t: TensorValue,
    to: DType,
    span: Span,
) -> Result<TensorValue, Diagnostic> {
    match to {
        DType::I64 => {
            let id = cx.builder(span).ptr_to_int(t.id);
            Ok(cx.tensor(id))
        }
        DType::I1 => {
            let id = cx.builder(span).ptr_to_int(t.id);
            let addr = SemaValue::Tensor(cx.tensor(id));
            binary(
                cx,
                BinaryKind::Ne,
                addr,
                SemaValue::Const(Constexpr::Int(0)),
                span,
            )
        }
        _ => Err(err(
            codes::INVALID_CAST,
            span,
            format!("cannot cast the pointer `{}` to `{to}`", t.ty),
        )
        .with_note("a pointer converts only to `int64` and `int1` (Triton 3.6 asserts otherwise)")),
    }
}

fn with_elem(t: &Type, d: DType) -> Type {
    t.with_dtype(d)
}

/// Converts `t` to `to` the way Triton's `semantic.cast` does.
pub fn cast(
    cx: &mut LowerCx<'_>,
    t: TensorValue,
    to: DType,
    span: Span,
) -> Result<TensorValue, Diagnostic> {
    cast_rounded(cx, t, to, None, span)
}

/// [`cast`] with an explicit float rounding mode for narrowing (`fp_downcast_rounding`).
pub fn cast_rounded(
    cx: &mut LowerCx<'_>,
    t: TensorValue,
    to: DType,
    rounding: Option<tritonc_ir::RoundingMode>,
    span: Span,
) -> Result<TensorValue, Diagnostic> {
    let Some(from) = t.ty.dtype() else {
        return cast_pointer_to(cx, t, to, span);
    };
    if from.is_var() || to.is_var() {
        // A conversion from or to an unknown dtype: its op depends on the dtypes.
        if from == to {
            return Ok(t);
        }
        let ty = with_elem(&t.ty, to);
        let id = cx.builder(span).extern_elementwise(
            &[t.id],
            ty.clone(),
            crate::generic::GENERIC_LIBNAME,
            "",
            "convert",
            true,
        );
        return Ok(TensorValue { id, ty });
    }
    if from == to {
        return Ok(t);
    }
    let narrowing_float =
        from.is_float() && to.is_float() && to.fp_mantissa_width() < from.fp_mantissa_width();
    if rounding.is_some() && !narrowing_float {
        return Err(err(
            codes::INVALID_CAST,
            span,
            "`fp_downcast_rounding` applies only to float narrowing",
        ));
    }
    // fp16/bf16 to anything but fp32 goes through fp32.
    if matches!(from, DType::F16 | DType::BF16) && to != DType::F32 && !to.is_fp8() {
        let mid = cast(cx, t, DType::F32, span)?;
        return cast_rounded(cx, mid, to, rounding, span);
    }
    let ty = with_elem(&t.ty, to);
    let mut b = cx.builder(span);
    let id = if from.is_fp8() || to.is_fp8() {
        if from.is_float() && to.is_float() {
            let r = if narrowing_float {
                Some(rounding.unwrap_or(tritonc_ir::RoundingMode::Rtne))
            } else {
                None
            };
            b.fp_to_fp(t.id, to, r)
        } else {
            // Triton 3.6 converts fp8 only from and to floats: `cannot cast int32[…] to
            // fp8e4nv` (an integer `other=0` of an fp8 load included).
            drop(b);
            return Err(err(
                codes::INVALID_CAST,
                span,
                format!(
                    "cannot cast `{}` to `{}`: fp8 converts only from and to float types",
                    from.signature_name().unwrap_or("?"),
                    to.signature_name().unwrap_or("?")
                ),
            )
            .with_help("write the value as a float (`0.0`), or go through `tl.float32`"));
        }
    } else if from.is_float() && to.is_float() {
        if narrowing_float {
            match rounding {
                Some(r) => b.truncf_rounded(t.id, to, r),
                None => b.cast(CastOp::TruncF, t.id, to),
            }
        } else {
            b.cast(CastOp::ExtF, t.id, to)
        }
    } else if to == DType::I1 {
        // Cast to bool means `!= 0`.
        let zero = if from.is_float() {
            b.const_float(0.0, t.ty.clone())
        } else {
            b.const_int(0, t.ty.clone())
        };
        if from.is_float() {
            b.cmpf(CmpFPredicate::Une, t.id, zero)
        } else {
            b.cmpi(CmpIPredicate::Ne, t.id, zero)
        }
    } else if from.is_int() && to.is_int() {
        let (fb, tb) = (from.bitwidth().unwrap_or(0), to.bitwidth().unwrap_or(0));
        if fb == tb {
            // Same width, other signedness: the bits are the value.
            b.cast(CastOp::Bitcast, t.id, to)
        } else if fb > tb {
            b.cast(CastOp::TruncI, t.id, to)
        } else if from.is_signed() {
            b.cast(CastOp::ExtSI, t.id, to)
        } else {
            b.cast(CastOp::ExtUI, t.id, to)
        }
    } else if from.is_int() {
        if from.is_signed() {
            b.cast(CastOp::SIToFP, t.id, to)
        } else {
            b.cast(CastOp::UIToFP, t.id, to)
        }
    } else if to.is_signed() {
        b.cast(CastOp::FPToSI, t.id, to)
    } else {
        b.cast(CastOp::FPToUI, t.id, to)
    };
    Ok(TensorValue { id, ty })
}

/// Splats or broadcasts `t` to `shape` (Triton's `broadcast_impl_shape`).
pub fn broadcast_to_shape(
    cx: &mut LowerCx<'_>,
    t: TensorValue,
    shape: &[u64],
    span: Span,
) -> Result<TensorValue, Diagnostic> {
    let dims: Vec<Dim> = shape.iter().map(|&d| Dim::Known(d)).collect();
    broadcast_to_dims(cx, t, &dims, span)
}

/// [`broadcast_to_shape`] to dims that may be symbolic (generic analysis).
pub fn broadcast_to_dims(
    cx: &mut LowerCx<'_>,
    t: TensorValue,
    shape: &[Dim],
    span: Span,
) -> Result<TensorValue, Diagnostic> {
    if shape.is_empty() {
        return Ok(t);
    }
    if !t.is_block() {
        let ty = Type::with_dims(shape.to_vec(), t.ty.elem());
        let id = cx.builder(span).splat_to(t.id, ty);
        return Ok(cx.tensor(id));
    }
    let src = t.ty.dims();
    if src == shape {
        return Ok(t);
    }
    let compatible = |s: &Dim, d: &Dim| {
        s == d || *s == Dim::Known(1) || s.known().is_none() || d.known().is_none()
    };
    if src.len() != shape.len() || src.iter().zip(shape).any(|(s, d)| !compatible(s, d)) {
        let shown: Vec<String> = shape.iter().map(ToString::to_string).collect();
        return Err(err(
            codes::SHAPE_MISMATCH,
            span,
            format!(
                "cannot broadcast `{}` to shape [{}]",
                t.ty,
                shown.join(", ")
            ),
        ));
    }
    let ty = Type::with_dims(shape.to_vec(), t.ty.elem());
    let id = cx.builder(span).broadcast_to(t.id, ty);
    Ok(cx.tensor(id))
}

/// Makes two values the same shape (Triton's `broadcast_impl_value`).
pub fn broadcast_pair(
    cx: &mut LowerCx<'_>,
    a: TensorValue,
    b: TensorValue,
    span: Span,
) -> Result<(TensorValue, TensorValue), Diagnostic> {
    match (a.is_block(), b.is_block()) {
        (false, false) => Ok((a, b)),
        (true, false) => {
            let s = a.ty.dims().to_vec();
            let b = broadcast_to_dims(cx, b, &s, span)?;
            Ok((a, b))
        }
        (false, true) => {
            let s = b.ty.dims().to_vec();
            let a = broadcast_to_dims(cx, a, &s, span)?;
            Ok((a, b))
        }
        (true, true) => {
            let (mut a, mut b) = (a, b);
            while a.ty.rank() < b.ty.rank() {
                let id = cx.builder(span).expand_dims(a.id, 0);
                a = cx.tensor(id);
            }
            while b.ty.rank() < a.ty.rank() {
                let id = cx.builder(span).expand_dims(b.id, 0);
                b = cx.tensor(id);
            }
            let out = crate::symbolic::broadcast_dims(a.ty.dims(), b.ty.dims()).map_err(
                |(i, x, y)| {
                    err(
                        codes::SHAPE_MISMATCH,
                        span,
                        format!(
                            "incompatible dimensions at index {i}: {x} and {y} (`{}` and `{}`)",
                            a.ty, b.ty
                        ),
                    )
                },
            )?;
            let a = broadcast_to_dims(cx, a, &out, span)?;
            let b = broadcast_to_dims(cx, b, &out, span)?;
            Ok((a, b))
        }
    }
}

fn operand(v: &SemaValue, span: Span) -> Result<Operand, Diagnostic> {
    match v {
        SemaValue::Tensor(t) => match t.ty.dtype() {
            Some(d) => Ok(Operand::Tensor(d)),
            None => Err(err(
                codes::INCOMPATIBLE_TYPES,
                span,
                format!("pointer `{}` in arithmetic", t.ty),
            )),
        },
        SemaValue::Const(Constexpr::Bool(b)) => Ok(Operand::Bool(*b)),
        SemaValue::Const(Constexpr::Int(i)) => Ok(Operand::Int(*i)),
        SemaValue::Const(Constexpr::Float(f)) => Ok(Operand::Float(*f)),
        other => Err(err(
            codes::INCOMPATIBLE_TYPES,
            span,
            format!("{} is not a number or a tensor", other.describe()),
        )),
    }
}

fn is_ptr(v: &SemaValue) -> bool {
    matches!(v, SemaValue::Tensor(t) if t.ty.is_ptr_like())
}

/// Pointer arithmetic: `ptr + int` / `int + ptr` / `ptr - int`.
fn pointer_offset(
    cx: &mut LowerCx<'_>,
    kind: BinaryKind,
    lhs: SemaValue,
    rhs: SemaValue,
    span: Span,
) -> Result<TensorValue, Diagnostic> {
    let (ptr, off) = if is_ptr(&lhs) { (lhs, rhs) } else { (rhs, lhs) };
    if is_ptr(&off) {
        return Err(err(
            codes::INCOMPATIBLE_TYPES,
            span,
            "cannot add two pointers",
        ));
    }
    if kind == BinaryKind::Sub && !is_ptr(&ptr) {
        return Err(err(
            codes::INCOMPATIBLE_TYPES,
            span,
            "cannot subtract a pointer from an integer",
        ));
    }
    let ptr = to_tensor(cx, ptr, span)?;
    let mut off = to_tensor(cx, off, span)?;
    if !off.ty.is_int_like() && !off.ty.dtype().is_some_and(DType::is_var) {
        return Err(err(
            codes::INCOMPATIBLE_TYPES,
            span,
            format!("a pointer offset must be an integer, not `{}`", off.ty),
        ));
    }
    if kind == BinaryKind::Sub {
        off = unary(cx, UnaryOp::Neg, off, span)?;
    }
    // addptr treats offsets as signed: unsigned offsets narrower than 64 bits are zero-extended.
    if let Some(d) = off.ty.dtype() {
        if d.is_unsigned() && d.bitwidth().unwrap_or(64) < 64 {
            let ty = off.ty.with_dtype(DType::I64);
            let id = cx.builder(span).cast(CastOp::ExtUI, off.id, DType::I64);
            off = TensorValue { id, ty };
        }
    }
    let (ptr, off) = broadcast_pair(cx, ptr, off, span)?;
    let id = cx.builder(span).addptr(ptr.id, off.id);
    Ok(cx.tensor(id))
}

/// `lhs op rhs` with at least one runtime operand.
pub fn binary(
    cx: &mut LowerCx<'_>,
    kind: BinaryKind,
    lhs: SemaValue,
    rhs: SemaValue,
    span: Span,
) -> Result<TensorValue, Diagnostic> {
    // Generic analysis: an unknown constexpr operand takes part as a runtime scalar.
    let (lhs, rhs) = if crate::generic::active() {
        let m = |cx: &mut LowerCx<'_>, v: SemaValue| match v {
            SemaValue::Const(Constexpr::Symbolic(_)) => {
                to_tensor(cx, v, span).map(SemaValue::Tensor)
            }
            v => Ok(v),
        };
        (m(cx, lhs)?, m(cx, rhs)?)
    } else {
        (lhs, rhs)
    };
    if (is_ptr(&lhs) || is_ptr(&rhs)) && matches!(kind, BinaryKind::Add | BinaryKind::Sub) {
        return pointer_offset(cx, kind, lhs, rhs, span);
    }
    let (a, b) = (operand(&lhs, span)?, operand(&rhs, span)?);
    let mut typing = kind;
    if cx.triton_version.at_least(TritonVersion::V3_9) {
        let scalar = !matches!(a, Operand::Tensor(_)) || !matches!(b, Operand::Tensor(_));
        let changed = kind.is_comparison()
            || kind.is_div_or_mod()
            || matches!(kind, BinaryKind::Maximum | BinaryKind::Minimum);
        if scalar && changed {
            return Err(crate::version::not_modelled(
                cx.triton_version,
                span,
                "a comparison, division, remainder, maximum or minimum with a Python number",
                "Triton 3.9 no longer converts the Python number to an int32/fp32 tensor \
                 first: the operation happens in the tensor's dtype (and `/`, `%` with a \
                 float give fp32)",
            ));
        }
        // tl.maximum/minimum type two tensors like the other binary operations (bf16
        // stays bf16).
        if matches!(kind, BinaryKind::Maximum | BinaryKind::Minimum) {
            typing = BinaryKind::Add;
        }
    }
    let p = promote::promote_binary(typing, a, b).map_err(|e| err(e.code, span, e.message))?;
    // `>>` picks arithmetic or logical from the left operand's own signedness.
    let lhs_signed = matches!(a, Operand::Tensor(d) if d.is_signed())
        || !matches!(a, Operand::Tensor(_)) && p.operand.is_signed();
    let x = to_tensor_as(cx, lhs, p.operand, span)?;
    let y = to_tensor_as(cx, rhs, p.operand, span)?;
    let (x, y) = broadcast_pair(cx, x, y, span)?;
    let d = p.operand;
    let f = d.is_float();
    let signed = d.is_signed();
    let mut bld = cx.builder(span);
    use BinaryKind::*;
    let id = match kind {
        Lt | Le | Gt | Ge | Eq | Ne => {
            if f {
                let pred = match kind {
                    Lt => CmpFPredicate::Olt,
                    Le => CmpFPredicate::Ole,
                    Gt => CmpFPredicate::Ogt,
                    Ge => CmpFPredicate::Oge,
                    Eq => CmpFPredicate::Oeq,
                    _ => CmpFPredicate::Une,
                };
                bld.cmpf(pred, x.id, y.id)
            } else {
                let pred = match (kind, signed) {
                    (Lt, true) => CmpIPredicate::Slt,
                    (Lt, false) => CmpIPredicate::Ult,
                    (Le, true) => CmpIPredicate::Sle,
                    (Le, false) => CmpIPredicate::Ule,
                    (Gt, true) => CmpIPredicate::Sgt,
                    (Gt, false) => CmpIPredicate::Ugt,
                    (Ge, true) => CmpIPredicate::Sge,
                    (Ge, false) => CmpIPredicate::Uge,
                    (Eq, _) => CmpIPredicate::Eq,
                    _ => CmpIPredicate::Ne,
                };
                bld.cmpi(pred, x.id, y.id)
            }
        }
        _ => {
            let op = match (kind, f) {
                (Add, true) => BinaryOp::AddF,
                (Add, false) => BinaryOp::AddI,
                (Sub, true) => BinaryOp::SubF,
                (Sub, false) => BinaryOp::SubI,
                (Mul, true) => BinaryOp::MulF,
                (Mul, false) => BinaryOp::MulI,
                (Div, _) => BinaryOp::DivF,
                (FloorDiv, _) if signed => BinaryOp::DivSI,
                (FloorDiv, _) => BinaryOp::DivUI,
                (Mod, true) => BinaryOp::RemF,
                (Mod, false) if signed => BinaryOp::RemSI,
                (Mod, false) => BinaryOp::RemUI,
                (And, _) => BinaryOp::AndI,
                (Or, _) => BinaryOp::OrI,
                (Xor, _) => BinaryOp::XOrI,
                (Shl, _) => BinaryOp::ShLI,
                (Shr, _) if lhs_signed => BinaryOp::ShRSI,
                (Shr, _) => BinaryOp::ShRUI,
                (Maximum, true) => BinaryOp::MaxNumF,
                (Maximum, false) if signed => BinaryOp::MaxSI,
                (Maximum, false) => BinaryOp::MaxUI,
                (Minimum, true) => BinaryOp::MinNumF,
                (Minimum, false) if signed => BinaryOp::MinSI,
                (Minimum, false) => BinaryOp::MinUI,
                _ => {
                    return Err(err(
                        codes::INCOMPATIBLE_TYPES,
                        span,
                        format!("`{kind:?}` is not an arithmetic operator"),
                    ))
                }
            };
            bld.binary(op, x.id, y.id)
        }
    };
    Ok(cx.tensor(id))
}

/// `-x`, `~x`, `not x` on a runtime value (`+x` is an error in Triton 3.6).
pub fn unary(
    cx: &mut LowerCx<'_>,
    op: UnaryOp,
    t: TensorValue,
    span: Span,
) -> Result<TensorValue, Diagnostic> {
    let Some(d) = t.ty.dtype() else {
        return Err(err(
            codes::INCOMPATIBLE_TYPES,
            span,
            format!("wrong operand for unary `{}`: `{}`", op.symbol(), t.ty),
        ));
    };
    match op {
        UnaryOp::Pos => Err(err(
            codes::INCOMPATIBLE_TYPES,
            span,
            "unary `+` is not defined on tensors in Triton 3.6",
        )),
        UnaryOp::Neg if d.is_float() && cx.triton_version.at_least(TritonVersion::V3_8) => {
            // Triton 3.8 lowers `-x` on floats to `arith.negf` (3.6 and 3.7: `0 - x`), which
            // flips the sign bit: `-(+0.0)` is `-0.0`. The same here: the sign bit flipped
            // through an integer of the same width.
            let int = match d.bitwidth() {
                Some(16) => DType::I16,
                Some(32) => DType::I32,
                Some(64) => DType::I64,
                _ => {
                    return Err(crate::version::not_modelled(
                        cx.triton_version,
                        span,
                        &format!("`-x` on `{d}`"),
                        "Triton 3.8 negates floats with `arith.negf` instead of `0 - x`",
                    ))
                }
            };
            let sign = i128::from(i64::MIN) >> (64 - int.bitwidth().unwrap_or(64));
            let ty = t.ty.with_dtype(int);
            let bits = cx
                .builder(span)
                .cast(tritonc_ir::CastOp::Bitcast, t.id, int);
            let mask = cx.builder(span).const_int(sign, Type::Scalar(int));
            let flipped = binary(
                cx,
                BinaryKind::Xor,
                SemaValue::Tensor(TensorValue { id: bits, ty }),
                SemaValue::Tensor(TensorValue {
                    id: mask,
                    ty: Type::Scalar(int),
                }),
                span,
            )?;
            let id = cx
                .builder(span)
                .cast(tritonc_ir::CastOp::Bitcast, flipped.id, d);
            Ok(TensorValue {
                id,
                ty: flipped.ty.with_dtype(d),
            })
        }
        UnaryOp::Neg => {
            let zero = TensorValue {
                id: if d.is_float() {
                    cx.builder(span).const_float(0.0, Type::Scalar(d))
                } else {
                    cx.builder(span).const_int(0, Type::Scalar(d))
                },
                ty: Type::Scalar(d),
            };
            binary(
                cx,
                BinaryKind::Sub,
                SemaValue::Tensor(zero),
                SemaValue::Tensor(t),
                span,
            )
        }
        UnaryOp::Invert | UnaryOp::Not => {
            if op == UnaryOp::Not && d != DType::I1 {
                return Err(err(
                    codes::INCOMPATIBLE_TYPES,
                    span,
                    format!("`not` needs a boolean value, not `{d}`"),
                ));
            }
            if d.is_float() {
                return Err(err(
                    codes::INCOMPATIBLE_TYPES,
                    span,
                    format!("`~` is not defined on `{d}`"),
                ));
            }
            // Every bit set (Triton's `get_all_ones_value`): -1 for signed integers,
            // 2^bits - 1 for unsigned ones and `true` for `i1` (the IR's constants hold
            // each type's own range).
            let all_ones = match d.bitwidth() {
                Some(bits) if !d.is_signed() => (1i128 << bits) - 1,
                _ => -1,
            };
            let ones = cx.builder(span).const_int(all_ones, Type::Scalar(d));
            let ones = TensorValue {
                id: ones,
                ty: Type::Scalar(d),
            };
            binary(
                cx,
                BinaryKind::Xor,
                SemaValue::Tensor(t),
                SemaValue::Tensor(ones),
                span,
            )
        }
    }
}

/// `x[None, :]`-style indexing, as Triton 3.6's `tensor.__getitem__` does it: the `i`th
/// item, if `None`, inserts a dim at `i` (a scalar becomes a block of shape `[1]`,
/// wherever the `None` is: torchao writes `pid[:, None]`); a `:` changes nothing and is
/// never checked. A `None` past the block's dims is refused, as Triton's IR verifier
/// refuses the `tt.expand_dims`.
pub fn index_none_slice(
    cx: &mut LowerCx<'_>,
    t: TensorValue,
    index: &Expr,
) -> Result<TensorValue, Diagnostic> {
    let items: Vec<&Expr> = match &index.kind {
        ExprKind::Tuple(items) => items.iter().collect(),
        _ => vec![index],
    };
    let mut out = t;
    let mut dim = 0u32;
    for it in items {
        match &it.kind {
            ExprKind::Constant(Constant::None) => {
                if out.is_block() && dim as usize > out.ty.rank() {
                    return Err(err(
                        codes::INVALID_AXIS,
                        it.span,
                        format!(
                            "`None` at index {dim} is past the dims of `{}` (a new dim goes at most after the last)",
                            out.ty
                        ),
                    ));
                }
                let id = if out.is_block() {
                    cx.builder(index.span).expand_dims(out.id, dim)
                } else {
                    cx.builder(index.span).splat(out.id, &[1])
                };
                out = cx.tensor(id);
                dim += 1;
            }
            ExprKind::Slice {
                lower: None,
                upper: None,
                step: None,
            } => {
                dim += 1;
            }
            _ => {
                return Err(Diagnostic::error(
                    codes::UNSUPPORTED_CONSTRUCT,
                    "tensors can only be indexed with `None` and `:`",
                )
                .with_primary(it.span, "")
                .with_help("build offsets with `tl.arange` and load through pointers"))
            }
        }
    }
    let _ = (Dim::Unknown, Elem::DType(DType::I1));
    Ok(out)
}
