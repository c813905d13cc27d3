//! `tl.sort` and `tl.topk`: Triton 3.6's bitonic network (`triton/language/standard.py`,
//! `sort_impl`), built from the same reshapes, xor reductions, compares and selects, so
//! every element lands where Triton puts it — ties, signed zeros and NaNs included.
//!
//! The block is viewed as a hypercube of `2 x 2 x … x 2`; a compare-and-swap along one
//! of its dims pairs each element with its partner (`ix ^ xor_sum(ix)` over the pair,
//! on the bits) and keeps `where((x > y) != (flip ^ is_right), y, x)`. A comparison with
//! a NaN is false both ways, so a NaN is not moved past anything and may be overwritten
//! by its partner (and that partner duplicated): Triton's result, recorded by
//! scripts/triton_sort_fixture.py and checked by python/tests/test_interpret.py.
//! `tl.topk(x, k)` sorts descending blocks of `k` and then keeps the larger half of
//! each pair of blocks with `tl.max`, as Triton's bitonic top-k does.

use tritonc_diagnostics::{Diagnostic, Span};
use tritonc_ir::{CastOp, DType};

use super::arith;
use super::reduce::{err, min_max_values, reduce_values, Combine};
use super::shape::reshape_to;
use super::{expect_const, expect_tensor, BuiltinCall, BuiltinFn};
use crate::codes;
use crate::lower::LowerCx;
use crate::promote::BinaryKind;
use crate::value::{Constexpr, SemaValue, TensorValue};

type R = Result<SemaValue, Diagnostic>;

/// The sort builtins, by short name.
pub(super) const BUILTINS: &[(&str, BuiltinFn)] = &[("sort", sort), ("topk", topk)];

/// Triton's `_log2`: the floor of log2 (0 for 0 and 1).
fn log2(n: u64) -> u32 {
    if n <= 1 {
        0
    } else {
        63 - n.leading_zeros()
    }
}

fn sort(cx: &mut LowerCx<'_>, call: &BuiltinCall) -> R {
    let b = call.bind(&["x", "dim", "descending"])?;
    let x = call.required(&b, 0, "x")?;
    let dim = match &b[1] {
        None => None,
        Some(a) => Some((expect_const(a, "`dim`")?, a.1)),
    };
    let descending = match &b[2] {
        None => Constexpr::Int(0),
        Some(a) => expect_const(a, "`descending`")?,
    };
    sort_impl(cx, call, x, None, dim, descending)
}

fn topk(cx: &mut LowerCx<'_>, call: &BuiltinCall) -> R {
    let b = call.bind(&["x", "k", "dim"])?;
    let x = call.required(&b, 0, "x")?;
    let k = call.required(&b, 1, "k")?;
    let k = match expect_const(&k, "`k`")? {
        Constexpr::Int(v) if v > 0 => v as u64,
        other => {
            return Err(err(
                codes::INVALID_OPERAND,
                k.1,
                format!("`k` must be a positive int, got {other}"),
            ))
        }
    };
    let dim = match &b[2] {
        None => None,
        Some(a) => Some((expect_const(a, "`dim`")?, a.1)),
    };
    sort_impl(cx, call, x, Some(k), dim, Constexpr::Bool(true))
}

/// Triton's `sort_impl`.
fn sort_impl(
    cx: &mut LowerCx<'_>,
    call: &BuiltinCall,
    x: (SemaValue, Span),
    k: Option<u64>,
    dim: Option<(Constexpr, Span)>,
    descending: Constexpr,
) -> R {
    let span = call.span;
    let t = expect_tensor(cx, &x)?;
    let what = format!("tl.{}", call.name());
    let Some(shape) = t.ty.known_shape().filter(|s| !s.is_empty()) else {
        return Err(err(
            codes::INVALID_OPERAND,
            x.1,
            format!("`{what}` needs a block of known shape, not `{}`", t.ty),
        ));
    };
    let Some(dtype) = t.ty.dtype() else {
        return Err(err(
            codes::UNSUPPORTED_TL_OP,
            x.1,
            format!("`{what}` of pointers is not yet supported by tritonc"),
        ));
    };
    let bits = dtype.bitwidth().unwrap_or(32);
    if bits < 8 {
        return Err(err(
            codes::UNSUPPORTED_TL_OP,
            x.1,
            format!("`{what}` of `{dtype}` blocks is not yet supported by tritonc"),
        ));
    }
    // `core.static_assert(_dim == len(x.shape) - 1, ...)`: the dim as given, so `-1`
    // fails as it does in Triton.
    let last = shape.len() as i128 - 1;
    if let Some((d, dspan)) = &dim {
        let ok = match d {
            Constexpr::None => true,
            Constexpr::Int(v) => *v == last,
            Constexpr::Bool(v) => i128::from(*v) == last,
            _ => false,
        };
        if !ok {
            return Err(Diagnostic::error(
                codes::STATIC_ASSERT_FAILED,
                format!("`{what}`: only minor dimension is currently supported"),
            )
            .with_primary(*dspan, format!("this is {d}; the last dim is {last}"))
            .with_note("Triton 3.6 sorts along the last dim only (`dim=None` or its index)"));
        }
    }
    let log_n = log2(shape[shape.len() - 1]);
    let log_k = k.map_or(log_n, log2);
    let n_dims = log2(shape.iter().product());
    let desc = descending.truthy();
    let hyper: Vec<i128> = if n_dims == 0 {
        vec![1]
    } else {
        vec![2; n_dims as usize]
    };
    let mut h = reshape_to(cx, t, &hyper, false, span)?;
    let order = |i: u32| {
        if i < log_n {
            Order::Alternating
        } else {
            Order::Fixed(descending.clone())
        }
    };
    for i in 1..=log_k {
        h = merge_hypercube(cx, h, i, order(i), span)?;
    }
    for i in log_k + 1..=log_n {
        let numel = h.ty.numel().unwrap_or(1);
        let axis = i128::from(log2(numel)) - 1 - i128::from(log_k);
        h = min_max_values(
            cx,
            h,
            span,
            Some((axis, span)),
            false,
            true,
            false,
            desc,
            span,
        )?
        .remove(0);
        h = merge_hypercube(cx, h, log_k, order(i), span)?;
    }
    let mut back: Vec<i128> = shape[..shape.len() - 1].iter().map(|&d| d as i128).collect();
    back.push(1i128 << log_k);
    Ok(reshape_to(cx, h, &back, false, span)?.into())
}

/// `_bitonic_merge_hypercube`'s `order`: 0 ascending, 1 descending (the constexpr
/// given), 2 alternating (a flip indicator along the stage's dim).
enum Order {
    Fixed(Constexpr),
    Alternating,
}

/// Triton's `_indicator(n_dims, j)`: `arange(0, 2)` along the `j`-th innermost dim of
/// an `n_dims`-cube.
fn indicator(cx: &mut LowerCx<'_>, n_dims: u32, j: u32, span: Span) -> Result<TensorValue, Diagnostic> {
    let id = cx.builder(span).make_range(0, 2);
    let ar = cx.tensor(id);
    let mut shape = vec![1i128; (n_dims - j - 1) as usize];
    shape.push(2);
    shape.extend(std::iter::repeat_n(1, j as usize));
    reshape_to(cx, ar, &shape, false, span)
}

/// Triton's `_bitonic_merge_hypercube(x, stage, order)`.
fn merge_hypercube(
    cx: &mut LowerCx<'_>,
    x: TensorValue,
    stage: u32,
    order: Order,
    span: Span,
) -> Result<TensorValue, Diagnostic> {
    let n_dims = log2(x.ty.numel().unwrap_or(1));
    let flip = match order {
        Order::Alternating => SemaValue::Tensor(indicator(cx, n_dims, stage, span)?),
        Order::Fixed(c) => SemaValue::Const(c),
    };
    let mut x = x;
    for i in 0..stage {
        x = compare_and_swap(cx, x, flip.clone(), stage - 1 - i, span)?;
    }
    Ok(x)
}

/// Triton's `_compare_and_swap(x, flip, i)` on the `i`-th innermost dim.
fn compare_and_swap(
    cx: &mut LowerCx<'_>,
    x: TensorValue,
    flip: SemaValue,
    i: u32,
    span: Span,
) -> Result<TensorValue, Diagnostic> {
    let n_dims = log2(x.ty.numel().unwrap_or(1));
    let dtype = x.ty.dtype().unwrap_or(DType::I32);
    let bits = dtype.bitwidth().unwrap_or(32);
    let idtype = DType::int_of_width(bits, true).unwrap_or(DType::I32);
    let bitcast = |cx: &mut LowerCx<'_>, v: &TensorValue, to: DType| {
        if v.ty.dtype() == Some(to) {
            v.clone()
        } else {
            let id = cx.builder(span).cast(CastOp::Bitcast, v.id, to);
            cx.tensor(id)
        }
    };
    let ix = bitcast(cx, &x, idtype);
    let axis = i128::from(n_dims) - 1 - i128::from(i);
    let partner = reduce_values(
        cx,
        vec![ix.clone()],
        Some((axis, span)),
        true,
        &Combine::Binary(BinaryKind::Xor),
        span,
    )?
    .remove(0);
    let iy = arith::binary(cx, BinaryKind::Xor, ix.into(), partner.into(), span)?;
    let y = bitcast(cx, &iy, dtype);
    let is_right = indicator(cx, n_dims, i, span)?;
    let greater = arith::binary(cx, BinaryKind::Gt, x.clone().into(), y.clone().into(), span)?;
    let side = arith::binary(cx, BinaryKind::Xor, flip, is_right.into(), span)?;
    let swap = arith::binary(cx, BinaryKind::Ne, greater.into(), side.into(), span)?;
    let swap = arith::cast(cx, swap, DType::I1, span)?;
    let id = cx.builder(span).select(swap.id, y.id, x.id);
    Ok(cx.tensor(id))
}
