//! Reductions: `tl.sum`, `tl.max`/`tl.min` (with `return_indices`), `tl.argmax`/`tl.argmin`,
//! `tl.xor_sum`, `tl.reduce_or` and `tl.reduce` with a `@jit` combiner.
//!
//! Triton 3.6 writes the builtin reductions as `@jit` functions over `tl.reduce`
//! (`standard.py`); this module builds the same `tt.reduce` ops directly, with the
//! combiner ops Triton's combiners produce. A user combiner is inlined into the region.
//! The combiner machinery ([`Combine`], [`fill_combiner`]) is shared with the scans.

use tritonc_diagnostics::{Diagnostic, Span};
use tritonc_ir::{BlockId, DType, Value};

use super::{arith, expect_const, expect_int, expect_tensor, BuiltinCall, BuiltinFn};
use crate::codes;
use crate::lower::LowerCx;
use crate::promote::BinaryKind;
use crate::value::{Constexpr, SemaValue, TensorValue};

type R = Result<SemaValue, Diagnostic>;

/// The reductions this module lowers, by short name.
pub(super) const BUILTINS: &[(&str, BuiltinFn)] = &[
    ("sum", sum),
    ("max", max),
    ("min", min),
    ("argmax", argmax),
    ("argmin", argmin),
    ("xor_sum", xor_sum),
    ("reduce_or", reduce_or),
    ("reduce", reduce),
];

pub(super) fn err(
    code: tritonc_diagnostics::Code,
    span: Span,
    msg: impl Into<String>,
) -> Diagnostic {
    Diagnostic::error(code, msg).with_primary(span, "")
}

/// How a reduce or scan combines the accumulated scalars with the next ones.
#[derive(Debug, Clone)]
pub(super) enum Combine {
    /// One binary operator applied to the single operand (`a + b`, `tl.maximum(a, b)`).
    Binary(BinaryKind),
    /// Triton's `_argmax_combine` / `_argmin_combine` over (value, index) pairs.
    ArgMinMax {
        /// `true` for argmax.
        max: bool,
        /// Ties pick the lower index (`tie_break_left=True`).
        tie_break_left: bool,
    },
    /// A `@jit` function, inlined into the region; the span is the argument's.
    Jit(crate::value::FunctionRef, Span),
}

/// A bool-like compile-time flag argument (`keep_dims`, `reverse`).
pub(super) fn flag(
    a: &Option<(SemaValue, Span)>,
    what: &str,
    default: bool,
) -> Result<bool, Diagnostic> {
    match a {
        None => Ok(default),
        Some(a) => Ok(expect_const(a, what)?.truthy()),
    }
}

/// An optional axis: `None` when absent or `None`, else a compile-time int.
pub(super) fn opt_axis(a: &Option<(SemaValue, Span)>) -> Result<Option<(i128, Span)>, Diagnostic> {
    match a {
        None | Some((SemaValue::Const(Constexpr::None), _)) => Ok(None),
        Some(a) => Ok(Some((expect_int(a, "the axis")?, a.1))),
    }
}

/// Wraps a possibly negative axis into `0..rank` (Triton's `_wrap_axis`).
pub(super) fn wrap_axis(
    axis: i128,
    rank: usize,
    ty: &tritonc_ir::Type,
    span: Span,
) -> Result<u32, Diagnostic> {
    let r = rank as i128;
    if !(-r..r).contains(&axis) {
        let expected = if rank == 0 {
            "a scalar has no axes".to_string()
        } else {
            format!("expected {} <= axis < {r}", -r)
        };
        return Err(Diagnostic::error(
            codes::INVALID_AXIS,
            format!("invalid axis {axis} for `{ty}`"),
        )
        .with_primary(span, expected));
    }
    Ok(if axis < 0 { axis + r } else { axis } as u32)
}

/// A `@jit` function argument (`combine_fn`).
pub(super) fn jit_fn(a: &(SemaValue, Span), what: &str) -> Result<Combine, Diagnostic> {
    match &a.0 {
        SemaValue::Const(Constexpr::Function(f)) => Ok(Combine::Jit(f.clone(), a.1)),
        // The combiners of Triton's standard library (`tl.standard._sum_combine`), as
        // the builtin reductions that use them combine.
        SemaValue::Const(Constexpr::Builtin(p)) if p.starts_with("triton.language.standard._") => {
            let name = &p["triton.language.standard.".len()..];
            let arg = |max, tie_break_left| Combine::ArgMinMax { max, tie_break_left };
            Ok(match name {
                "_sum_combine" => Combine::Binary(BinaryKind::Add),
                "_prod_combine" => Combine::Binary(BinaryKind::Mul),
                "_xor_combine" => Combine::Binary(BinaryKind::Xor),
                "_or_combine" => Combine::Binary(BinaryKind::Or),
                "_elementwise_max" => Combine::Binary(BinaryKind::Maximum),
                "_elementwise_min" => Combine::Binary(BinaryKind::Minimum),
                "_argmax_combine_tie_break_left" => arg(true, true),
                "_argmax_combine_tie_break_fast" => arg(true, false),
                "_argmin_combine_tie_break_left" => arg(false, true),
                "_argmin_combine_tie_break_fast" => arg(false, false),
                _ => return Err(super::private::unmodelled_jit_helper(name, a.1)),
            })
        }
        other => Err(Diagnostic::error(
            codes::INVALID_COMBINE_FN,
            format!("{what} must be a `@triton.jit` function"),
        )
        .with_primary(a.1, format!("this is {}", other.describe()))),
    }
}

/// Fills a reduce/scan combiner block: `lhs` are the accumulated scalars, `rhs` the new
/// ones; returns the combined values, checked against the operand element types.
pub(super) fn fill_combiner(
    cx: &mut LowerCx<'_>,
    body: BlockId,
    lhs: &[Value],
    rhs: &[Value],
    combine: &Combine,
    span: Span,
) -> Result<Vec<Value>, Diagnostic> {
    let saved = cx.block;
    cx.block = body;
    let r = combine_values(cx, lhs, rhs, combine, span);
    cx.block = saved;
    r
}

fn combine_values(
    cx: &mut LowerCx<'_>,
    lhs: &[Value],
    rhs: &[Value],
    combine: &Combine,
    span: Span,
) -> Result<Vec<Value>, Diagnostic> {
    let l: Vec<SemaValue> = lhs
        .iter()
        .map(|&v| SemaValue::Tensor(cx.tensor(v)))
        .collect();
    let r: Vec<SemaValue> = rhs
        .iter()
        .map(|&v| SemaValue::Tensor(cx.tensor(v)))
        .collect();
    // A standard-library combiner passed by the user takes a fixed number of operands
    // (Triton: a `TypeError` calling it with the wrong count).
    let takes = match combine {
        Combine::Binary(_) => Some(1),
        Combine::ArgMinMax { .. } => Some(2),
        Combine::Jit(..) => None,
    };
    if let Some(n) = takes.filter(|&n| n != lhs.len()) {
        return Err(Diagnostic::error(
            codes::INVALID_COMBINE_FN,
            format!(
                "this combiner takes {} argument(s) but the reduction has {} operand(s) (it is called with {})",
                2 * n,
                lhs.len(),
                2 * lhs.len()
            ),
        )
        .with_primary(span, ""));
    }
    match combine {
        Combine::Binary(kind) => {
            let v = arith::binary(cx, *kind, l[0].clone(), r[0].clone(), span)?;
            Ok(vec![v.id])
        }
        Combine::ArgMinMax {
            max,
            tie_break_left,
        } => {
            let (v1, i1, v2, i2) = (l[0].clone(), l[1].clone(), r[0].clone(), r[1].clone());
            let tie = if *tie_break_left {
                let eq = arith::binary(cx, BinaryKind::Eq, v1.clone(), v2.clone(), span)?;
                let lt = arith::binary(cx, BinaryKind::Lt, i1.clone(), i2.clone(), span)?;
                Some(arith::binary(
                    cx,
                    BinaryKind::And,
                    eq.into(),
                    lt.into(),
                    span,
                )?)
            } else {
                None
            };
            let cmp = if *max { BinaryKind::Gt } else { BinaryKind::Lt };
            let mut pick = arith::binary(cx, cmp, v1.clone(), v2.clone(), span)?;
            if let Some(tie) = tie {
                pick = arith::binary(cx, BinaryKind::Or, pick.into(), tie.into(), span)?;
            }
            let (v1, v2) = (lhs[0], rhs[0]);
            let (i1, i2) = (lhs[1], rhs[1]);
            let mut b = cx.builder(span);
            let v = b.select(pick.id, v1, v2);
            let i = b.select(pick.id, i1, i2);
            Ok(vec![v, i])
        }
        Combine::Jit(name, fn_span) => {
            let args: Vec<SemaValue> = l.into_iter().chain(r).collect();
            let out = cx.inline_call(name, args, Vec::new(), span)?;
            let items = match out.tuple_items() {
                Some(items) => items,
                None => vec![out],
            };
            if items.len() != lhs.len() {
                return Err(Diagnostic::error(
                    codes::INVALID_COMBINE_FN,
                    format!(
                        "the combine function `{}` returns {} value(s) but combines {} operand(s)",
                        name.name,
                        items.len(),
                        lhs.len()
                    ),
                )
                .with_primary(*fn_span, "")
                .with_note("a combiner takes the accumulated values, then the new ones, and returns one value per operand"));
            }
            let mut vals = Vec::new();
            for (item, &want) in items.into_iter().zip(lhs) {
                let want_ty = cx.type_of(want);
                let t = match item {
                    SemaValue::Const(c) if c.is_number() => {
                        let d = want_ty.dtype().unwrap_or(DType::I32);
                        arith::constant(cx, &c, d, span)?
                    }
                    other => arith::to_tensor(cx, other, span)?,
                };
                if t.ty != want_ty {
                    return Err(Diagnostic::error(
                        codes::INVALID_COMBINE_FN,
                        format!(
                            "the combine function `{}` returns `{}` where `{want_ty}` is combined",
                            name.name, t.ty
                        ),
                    )
                    .with_primary(*fn_span, "")
                    .with_help(
                        "return values of the operands' element types; convert with `.to(...)`",
                    ));
                }
                vals.push(t.id);
            }
            Ok(vals)
        }
    }
}

/// `tt.reduce` of `inputs` (same shapes) along `axis` (`None`: all elements, flattened),
/// with Triton's `keep_dims` handling.
pub(super) fn reduce_values(
    cx: &mut LowerCx<'_>,
    inputs: Vec<TensorValue>,
    axis: Option<(i128, Span)>,
    keep_dims: bool,
    combine: &Combine,
    span: Span,
) -> Result<Vec<TensorValue>, Diagnostic> {
    let first = inputs[0].clone();
    if !first.is_block() {
        return Err(Diagnostic::error(
            codes::INVALID_AXIS,
            format!("cannot reduce the scalar `{}`", first.ty),
        )
        .with_primary(span, "a reduction needs a block")
        .with_note("a 0-d value has no axis to reduce"));
    }
    let shape = first.ty.dims().to_vec();
    for t in &inputs[1..] {
        if t.ty.dims() != shape.as_slice() {
            return Err(err(
                codes::SHAPE_MISMATCH,
                span,
                format!(
                    "all reduction inputs must have the same shape: `{}` and `{}`",
                    first.ty, t.ty
                ),
            ));
        }
    }
    let rank = shape.len();
    let (inputs, ax) = match axis {
        Some((a, s)) => (inputs, wrap_axis(a, rank, &first.ty, s)?),
        None if rank == 1 => (inputs, 0),
        None => {
            let n = first.ty.numel().unwrap_or(0);
            let flat = inputs
                .into_iter()
                .map(|t| {
                    let id = cx.builder(span).reshape(t.id, &[n], true);
                    cx.tensor(id)
                })
                .collect();
            (flat, 0)
        }
    };
    let ids: Vec<Value> = inputs.iter().map(|t| t.id).collect();
    let c = cx.builder(span).reduce(&ids, ax);
    let vals = fill_combiner(cx, c.body, &c.lhs, &c.rhs, combine, span)?;
    let saved = cx.block;
    cx.block = c.body;
    cx.builder(span).reduce_return(&vals);
    cx.block = saved;
    let mut out: Vec<TensorValue> = c.results.iter().map(|&r| cx.tensor(r)).collect();
    if keep_dims {
        out = out
            .into_iter()
            .map(|t| {
                let n = if axis.is_some() { 1 } else { rank };
                let mut t = t;
                for _ in 0..n {
                    let at = if axis.is_some() { ax } else { 0 };
                    let id = if t.is_block() {
                        cx.builder(span).expand_dims(t.id, at)
                    } else {
                        cx.builder(span).splat(t.id, &[1])
                    };
                    t = cx.tensor(id);
                }
                t
            })
            .collect();
    }
    Ok(out)
}

fn dtype_of(t: &TensorValue, span: Span, what: &str) -> Result<DType, Diagnostic> {
    t.ty.dtype().ok_or_else(|| {
        err(
            codes::INVALID_OPERAND,
            span,
            format!("cannot {what} pointers (`{}`)", t.ty),
        )
    })
}

/// Triton's `_pick_sum_dtype`: ints narrower than 32 bits widen to (u)int32.
pub(super) fn pick_sum_dtype(d: DType) -> Option<DType> {
    if d.is_int() && d.bitwidth().unwrap_or(64) < 32 {
        Some(if crate::promote::is_unsigned(d) {
            DType::U32
        } else {
            DType::I32
        })
    } else {
        None
    }
}

/// An explicit `dtype=` argument (`None` when absent or `None`).
pub(super) fn dtype_kwarg(a: &Option<(SemaValue, Span)>) -> Result<Option<DType>, Diagnostic> {
    match a {
        None | Some((SemaValue::Const(Constexpr::None), _)) => Ok(None),
        Some(a) => {
            let c = expect_const(a, "`dtype`")?;
            c.as_dtype().map(Some).ok_or_else(|| {
                err(
                    codes::INVALID_OPERAND,
                    a.1,
                    format!(
                        "expected a dtype such as `tl.float32`, got {}",
                        c.type_name()
                    ),
                )
            })
        }
    }
}

fn sum(cx: &mut LowerCx<'_>, call: &BuiltinCall) -> R {
    let b = call.bind(&["input", "axis", "keep_dims", "dtype"])?;
    let x = call.required(&b, 0, "input")?;
    let mut t = expect_tensor(cx, &x)?;
    let d = dtype_of(&t, x.1, "sum")?;
    if let Some(to) = dtype_kwarg(&b[3])?.or_else(|| pick_sum_dtype(d)) {
        t = arith::cast(cx, t, to, call.span)?;
    }
    let axis = opt_axis(&b[1])?;
    let keep = flag(&b[2], "`keep_dims`", false)?;
    let add = Combine::Binary(BinaryKind::Add);
    Ok(reduce_values(cx, vec![t], axis, keep, &add, call.span)?
        .remove(0)
        .into())
}

/// `max`/`min` (and `argmax`/`argmin` through `return_indices`).
fn min_max(cx: &mut LowerCx<'_>, call: &BuiltinCall, is_max: bool) -> R {
    let b = call.bind(&[
        "input",
        "axis",
        "return_indices",
        "return_indices_tie_break_left",
        "keep_dims",
    ])?;
    let x = call.required(&b, 0, "input")?;
    let t = expect_tensor(cx, &x)?;
    let axis = opt_axis(&b[1])?;
    let with_indices = flag(&b[2], "`return_indices`", false)?;
    let tie_left = flag(&b[3], "`return_indices_tie_break_left`", true)?;
    let keep = flag(&b[4], "`keep_dims`", false)?;
    let r = min_max_values(
        cx,
        t,
        x.1,
        axis,
        with_indices,
        tie_left,
        keep,
        is_max,
        call.span,
    )?;
    Ok(if with_indices {
        SemaValue::tuple(r.into_iter().map(SemaValue::Tensor).collect())
    } else {
        r[0].clone().into()
    })
}

#[allow(clippy::too_many_arguments)]
pub(super) fn min_max_values(
    cx: &mut LowerCx<'_>,
    t: TensorValue,
    t_span: Span,
    axis: Option<(i128, Span)>,
    with_indices: bool,
    tie_break_left: bool,
    keep_dims: bool,
    is_max: bool,
    span: Span,
) -> Result<Vec<TensorValue>, Diagnostic> {
    let what = if is_max {
        "take the max of"
    } else {
        "take the min of"
    };
    let mut d = dtype_of(&t, t_span, what)?;
    let mut t = t;
    // Hardware has no bf16 max/min/compare: Triton promotes first (`_promote_bfloat16_to_float32`).
    if d == DType::BF16 {
        t = arith::cast(cx, t, DType::F32, span)?;
        d = DType::F32;
    }
    if with_indices {
        let Some((a, a_span)) = axis else {
            return Err(Diagnostic::error(
                codes::INVALID_AXIS,
                "a reduction with indices needs an axis",
            )
            .with_primary(span, "`axis` is None")
            .with_help("pass the axis to reduce, e.g. `axis=0`"));
        };
        if !t.is_block() {
            return Err(err(
                codes::INVALID_AXIS,
                span,
                format!("cannot reduce the scalar `{}`", t.ty),
            ));
        }
        let shape = t.ty.known_shape().unwrap_or_default();
        let ax = wrap_axis(a, shape.len(), &t.ty, a_span)?;
        let index = index_along(cx, &shape, ax, span)?;
        let combine = Combine::ArgMinMax {
            max: is_max,
            tie_break_left,
        };
        return reduce_values(
            cx,
            vec![t, index],
            Some((ax as i128, a_span)),
            keep_dims,
            &combine,
            span,
        );
    }
    if d.bitwidth().unwrap_or(64) < 32 {
        t = arith::cast(
            cx,
            t,
            if d.is_float() { DType::F32 } else { DType::I32 },
            span,
        )?;
    }
    let kind = if is_max {
        BinaryKind::Maximum
    } else {
        BinaryKind::Minimum
    };
    reduce_values(cx, vec![t], axis, keep_dims, &Combine::Binary(kind), span)
}

/// `tl.arange(0, shape[axis])` expanded and broadcast to `shape` (`_reduce_with_indices`).
fn index_along(
    cx: &mut LowerCx<'_>,
    shape: &[u64],
    axis: u32,
    span: Span,
) -> Result<TensorValue, Diagnostic> {
    let n = shape[axis as usize];
    let mut idx = {
        let id = cx.builder(span).make_range(0, n as i32);
        cx.tensor(id)
    };
    if shape.len() > 1 {
        for d in 0..shape.len() as u32 {
            if d != axis {
                let id = cx.builder(span).expand_dims(idx.id, d);
                idx = cx.tensor(id);
            }
        }
        idx = arith::broadcast_to_shape(cx, idx, shape, span)?;
    }
    Ok(idx)
}

/// `tl.max(t, axis, keep_dims=keep)` as `tl.softmax` uses it.
pub(super) fn max_values(
    cx: &mut LowerCx<'_>,
    t: TensorValue,
    t_span: Span,
    axis: (i128, Span),
    keep_dims: bool,
    span: Span,
) -> Result<TensorValue, Diagnostic> {
    Ok(min_max_values(
        cx,
        t,
        t_span,
        Some(axis),
        false,
        true,
        keep_dims,
        true,
        span,
    )?
    .remove(0))
}

/// `tl.sum(t, axis, keep_dims=keep)` as `tl.softmax` uses it.
pub(super) fn sum_values(
    cx: &mut LowerCx<'_>,
    mut t: TensorValue,
    axis: (i128, Span),
    keep_dims: bool,
    span: Span,
) -> Result<TensorValue, Diagnostic> {
    if let Some(to) = t.ty.dtype().and_then(pick_sum_dtype) {
        t = arith::cast(cx, t, to, span)?;
    }
    let add = Combine::Binary(BinaryKind::Add);
    Ok(reduce_values(cx, vec![t], Some(axis), keep_dims, &add, span)?.remove(0))
}

fn max(cx: &mut LowerCx<'_>, call: &BuiltinCall) -> R {
    min_max(cx, call, true)
}

fn min(cx: &mut LowerCx<'_>, call: &BuiltinCall) -> R {
    min_max(cx, call, false)
}

fn arg_min_max(cx: &mut LowerCx<'_>, call: &BuiltinCall, is_max: bool) -> R {
    let b = call.bind(&["input", "axis", "tie_break_left", "keep_dims"])?;
    let x = call.required(&b, 0, "input")?;
    let t = expect_tensor(cx, &x)?;
    let axis = match &b[1] {
        None => return Err(call.required(&b, 1, "axis").unwrap_err()),
        Some(a) => opt_axis(&Some(a.clone()))?,
    };
    let tie_left = flag(&b[2], "`tie_break_left`", true)?;
    let keep = flag(&b[3], "`keep_dims`", false)?;
    let mut r = min_max_values(cx, t, x.1, axis, true, tie_left, keep, is_max, call.span)?;
    Ok(r.remove(1).into())
}

fn argmax(cx: &mut LowerCx<'_>, call: &BuiltinCall) -> R {
    arg_min_max(cx, call, true)
}

fn argmin(cx: &mut LowerCx<'_>, call: &BuiltinCall) -> R {
    arg_min_max(cx, call, false)
}

/// `xor_sum` and `reduce_or`: integer-only reductions with one bitwise operator.
fn bitwise(cx: &mut LowerCx<'_>, call: &BuiltinCall, kind: BinaryKind, axis_required: bool) -> R {
    let b = call.bind(&["input", "axis", "keep_dims"])?;
    let x = call.required(&b, 0, "input")?;
    let t = expect_tensor(cx, &x)?;
    if !t.ty.dtype().is_some_and(DType::is_int) {
        return Err(Diagnostic::error(
            codes::INVALID_OPERAND,
            format!("`tl.{}` only supports integers", call.name()),
        )
        .with_primary(x.1, format!("this is `{}`", t.ty))
        .with_help("bitcast floats first: `x.to(tl.int32, bitcast=True)`"));
    }
    if axis_required && b[1].is_none() {
        call.required(&b, 1, "axis")?;
    }
    let axis = opt_axis(&b[1])?;
    let keep = flag(&b[2], "`keep_dims`", false)?;
    Ok(
        reduce_values(cx, vec![t], axis, keep, &Combine::Binary(kind), call.span)?
            .remove(0)
            .into(),
    )
}

fn xor_sum(cx: &mut LowerCx<'_>, call: &BuiltinCall) -> R {
    bitwise(cx, call, BinaryKind::Xor, false)
}

fn reduce_or(cx: &mut LowerCx<'_>, call: &BuiltinCall) -> R {
    bitwise(cx, call, BinaryKind::Or, true)
}

/// The runtime operands of `tl.reduce`/`tl.associative_scan`: a tensor or a tuple of them.
pub(super) fn tensor_operands(
    cx: &mut LowerCx<'_>,
    a: &(SemaValue, Span),
) -> Result<(Vec<TensorValue>, bool), Diagnostic> {
    match a.0.tuple_items() {
        Some(items) => {
            if items.is_empty() {
                return Err(err(
                    codes::INVALID_OPERAND,
                    a.1,
                    "an empty tuple has nothing to combine",
                ));
            }
            let ts = items
                .into_iter()
                .map(|v| expect_tensor(cx, &(v, a.1)))
                .collect::<Result<Vec<_>, _>>()?;
            Ok((ts, true))
        }
        None => Ok((vec![expect_tensor(cx, a)?], false)),
    }
}

fn reduce(cx: &mut LowerCx<'_>, call: &BuiltinCall) -> R {
    let b = call.bind(&["input", "axis", "combine_fn", "keep_dims"])?;
    let x = call.required(&b, 0, "input")?;
    let (inputs, is_tuple) = tensor_operands(cx, &x)?;
    for t in &inputs {
        if t.ty.is_ptr_like() {
            return Err(err(
                codes::INVALID_OPERAND,
                x.1,
                format!("cannot reduce pointers (`{}`)", t.ty),
            ));
        }
    }
    let axis = match &b[1] {
        None => return Err(call.required(&b, 1, "axis").unwrap_err()),
        Some(a) => opt_axis(&Some(a.clone()))?,
    };
    let combine = jit_fn(&call.required(&b, 2, "combine_fn")?, "`combine_fn`")?;
    let keep = flag(&b[3], "`keep_dims`", false)?;
    let out = reduce_values(cx, inputs, axis, keep, &combine, call.span)?;
    Ok(if is_tuple {
        SemaValue::tuple(out.into_iter().map(SemaValue::Tensor).collect())
    } else {
        out[0].clone().into()
    })
}
