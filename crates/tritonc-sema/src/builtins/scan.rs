//! Scans: `tl.cumsum`, `tl.cumprod` and `tl.associative_scan` with a `@jit` combiner.
//!
//! As for reductions, Triton 3.6 writes `cumsum`/`cumprod` as `@jit` functions over
//! `tl.associative_scan` (`standard.py`): bf16 is promoted to fp32 first, and `cumsum`
//! widens integers narrower than 32 bits (or converts to an explicit `dtype=`).

use tritonc_diagnostics::{Diagnostic, Span};
use tritonc_ir::{DType, Value};

use super::reduce::{
    dtype_kwarg, err, fill_combiner, flag, jit_fn, pick_sum_dtype, tensor_operands, wrap_axis,
    Combine,
};
use super::{arith, expect_int, expect_tensor, BuiltinCall, BuiltinFn};
use crate::codes;
use crate::lower::LowerCx;
use crate::promote::BinaryKind;
use crate::value::{Constexpr, SemaValue, TensorValue};

type R = Result<SemaValue, Diagnostic>;

/// The scans this module lowers, by short name.
pub(super) const BUILTINS: &[(&str, BuiltinFn)] = &[
    ("cumsum", cumsum),
    ("cumprod", cumprod),
    ("associative_scan", associative_scan),
];

/// `tt.scan` of `inputs` (same shapes) along `axis`.
fn scan_values(
    cx: &mut LowerCx<'_>,
    inputs: Vec<TensorValue>,
    axis: (i128, Span),
    reverse: bool,
    combine: &Combine,
    span: Span,
) -> Result<Vec<TensorValue>, Diagnostic> {
    let first = inputs[0].clone();
    if !first.is_block() {
        return Err(Diagnostic::error(
            codes::INVALID_AXIS,
            format!("cannot scan the scalar `{}`", first.ty),
        )
        .with_primary(span, "a scan needs a block"));
    }
    let shape = first.ty.known_shape().unwrap_or_default();
    for t in &inputs[1..] {
        if t.ty.known_shape().unwrap_or_default() != shape {
            return Err(err(
                codes::SHAPE_MISMATCH,
                span,
                format!(
                    "all scan inputs must have the same shape: `{}` and `{}`",
                    first.ty, t.ty
                ),
            ));
        }
    }
    let ax = wrap_axis(axis.0, shape.len(), &first.ty, axis.1)?;
    let ids: Vec<Value> = inputs.iter().map(|t| t.id).collect();
    let c = cx.builder(span).scan(&ids, ax, reverse);
    let vals = fill_combiner(cx, c.body, &c.lhs, &c.rhs, combine, span)?;
    let saved = cx.block;
    cx.block = c.body;
    cx.builder(span).scan_return(&vals);
    cx.block = saved;
    Ok(c.results.iter().map(|&r| cx.tensor(r)).collect())
}

/// The scan axis: an int (default 0); `None` is rejected as Triton's scan needs one.
fn scan_axis(
    call: &BuiltinCall,
    a: &Option<(SemaValue, Span)>,
) -> Result<(i128, Span), Diagnostic> {
    match a {
        None => Ok((0, call.span)),
        Some((SemaValue::Const(Constexpr::None), s)) => Err(Diagnostic::error(
            codes::INVALID_AXIS,
            format!("`tl.{}` needs an axis", call.name()),
        )
        .with_primary(*s, "a scan runs along one axis")),
        Some(a) => Ok((expect_int(a, "the scan axis")?, a.1)),
    }
}

/// `cumsum`/`cumprod` on one operand after Triton's dtype adjustments.
fn simple_scan(cx: &mut LowerCx<'_>, call: &BuiltinCall, kind: BinaryKind) -> R {
    let params: &[&str] = if kind == BinaryKind::Add {
        &["input", "axis", "reverse", "dtype"]
    } else {
        &["input", "axis", "reverse"]
    };
    let b = call.bind(params)?;
    let x = call.required(&b, 0, "input")?;
    let mut t = expect_tensor(cx, &x)?;
    if t.ty.dtype() == Some(DType::BF16) && cx.triton_version.at_least(crate::TritonVersion::V3_9) {
        return Err(crate::version::not_modelled(
            cx.triton_version,
            call.span,
            &format!("`tl.{}` on bf16", call.name()),
            "Triton 3.9 scans bf16 in bf16; 3.6–3.8 widen it to fp32",
        ));
    }
    let Some(mut d) = t.ty.dtype() else {
        return Err(err(
            codes::INVALID_OPERAND,
            x.1,
            format!("cannot scan pointers (`{}`)", t.ty),
        ));
    };
    if d == DType::BF16 {
        t = arith::cast(cx, t, DType::F32, call.span)?;
        d = DType::F32;
    }
    if kind == BinaryKind::Add {
        if let Some(to) = dtype_kwarg(&b[3])?.or_else(|| pick_sum_dtype(d)) {
            t = arith::cast(cx, t, to, call.span)?;
        }
    }
    let axis = scan_axis(call, &b[1])?;
    let reverse = flag(&b[2], "`reverse`", false)?;
    Ok(scan_values(
        cx,
        vec![t],
        axis,
        reverse,
        &Combine::Binary(kind),
        call.span,
    )?
    .remove(0)
    .into())
}

fn cumsum(cx: &mut LowerCx<'_>, call: &BuiltinCall) -> R {
    simple_scan(cx, call, BinaryKind::Add)
}

fn cumprod(cx: &mut LowerCx<'_>, call: &BuiltinCall) -> R {
    simple_scan(cx, call, BinaryKind::Mul)
}

fn associative_scan(cx: &mut LowerCx<'_>, call: &BuiltinCall) -> R {
    let b = call.bind(&["input", "axis", "combine_fn", "reverse"])?;
    let x = call.required(&b, 0, "input")?;
    let (inputs, is_tuple) = tensor_operands(cx, &x)?;
    for t in &inputs {
        if t.ty.is_ptr_like() {
            return Err(err(
                codes::INVALID_OPERAND,
                x.1,
                format!("cannot scan pointers (`{}`)", t.ty),
            ));
        }
    }
    if b[1].is_none() {
        call.required(&b, 1, "axis")?;
    }
    let axis = scan_axis(call, &b[1])?;
    let combine = jit_fn(&call.required(&b, 2, "combine_fn")?, "`combine_fn`")?;
    let reverse = flag(&b[3], "`reverse`", false)?;
    let out = scan_values(cx, inputs, axis, reverse, &combine, call.span)?;
    Ok(if is_tuple {
        SemaValue::tuple(out.into_iter().map(SemaValue::Tensor).collect())
    } else {
        out[0].clone().into()
    })
}
