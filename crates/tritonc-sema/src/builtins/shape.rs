//! Shape builtins: `reshape`/`view`/`ravel`, `trans`/`permute`/`.T`, `join`, `split`,
//! `interleave`, `cat`, `broadcast`, `item` and `flip`.
//!
//! The IR has no `tt.unsplat`, which Triton 3.6 uses to turn a one-element block into a
//! scalar (`reshape(x, ())`, `split` of a `[2]` block, `item`); tritonc reduces the
//! one-element block instead, which yields the same scalar without any arithmetic.

use tritonc_diagnostics::{Diagnostic, Span};
use tritonc_ir::DType;

use super::reduce::{err, reduce_values, wrap_axis, Combine};
use super::{arith, expect_const, expect_tensor, BuiltinCall, BuiltinFn};
use crate::codes;
use crate::lower::LowerCx;
use crate::promote::BinaryKind;
use crate::value::{Constexpr, SemaValue, TensorValue};

type R = Result<SemaValue, Diagnostic>;

/// An argument with its span.
type Arg = (SemaValue, Span);

/// The shape builtins, by short name.
pub(super) const BUILTINS: &[(&str, BuiltinFn)] = &[
    ("reshape", reshape),
    ("view", view),
    ("ravel", ravel),
    ("trans", trans),
    ("permute", permute),
    ("join", join),
    ("split", split),
    ("interleave", interleave),
    ("cat", cat),
    ("broadcast", broadcast),
    ("item", item),
    ("flip", flip),
];

/// The input and the variadic rest (`reshape(x, 2, 4)` or `reshape(x, (2, 4))`), with the
/// single-iterable form unwrapped as Triton's `_unwrap_iterable` does.
fn input_and_rest(call: &BuiltinCall) -> Result<(Arg, Vec<Arg>), Diagnostic> {
    let mut pos: Vec<(SemaValue, Span)> = Vec::new();
    if let Some(r) = &call.receiver {
        pos.push((SemaValue::Tensor(r.clone()), call.func_span));
    }
    pos.extend(call.args.iter().cloned());
    if pos.is_empty() {
        return Err(Diagnostic::error(
            codes::BAD_ARGUMENTS,
            format!("`tl.{}` is missing the argument `input`", call.name()),
        )
        .with_primary(call.span, ""));
    }
    let input = pos.remove(0);
    if pos.len() == 1 {
        if let Some(items) = pos[0].0.tuple_items() {
            let s = pos[0].1;
            return Ok((input, items.into_iter().map(|v| (v, s)).collect()));
        }
    }
    Ok((input, pos))
}

fn kwarg_flag(call: &BuiltinCall, allowed: &[&str], name: &str) -> Result<bool, Diagnostic> {
    let mut out = false;
    for (k, v, s) in &call.kwargs {
        if !allowed.contains(&k.as_str()) {
            return Err(Diagnostic::error(
                codes::BAD_ARGUMENTS,
                format!("`tl.{}` has no parameter `{k}`", call.name()),
            )
            .with_primary(*s, "unknown keyword"));
        }
        if k == name {
            out = expect_const(&(v.clone(), *s), &format!("`{name}`"))?.truthy();
        }
    }
    Ok(out)
}

fn ints(items: &[(SemaValue, Span)], what: &str) -> Result<Vec<i128>, Diagnostic> {
    items
        .iter()
        .map(|a| {
            let c = expect_const(a, what)?;
            c.as_int().ok_or_else(|| {
                err(
                    codes::INVALID_OPERAND,
                    a.1,
                    format!("{what} must be ints, not {}", c.type_name()),
                )
            })
        })
        .collect()
}

fn block(
    cx: &mut LowerCx<'_>,
    a: &(SemaValue, Span),
    what: &str,
) -> Result<TensorValue, Diagnostic> {
    let t = expect_tensor(cx, a)?;
    if !t.is_block() {
        return Err(Diagnostic::error(
            codes::INVALID_OPERAND,
            format!("`{what}` needs a block, not the scalar `{}`", t.ty),
        )
        .with_primary(a.1, ""));
    }
    Ok(t)
}

/// A one-element block as a scalar (Triton's `_unsplat`).
fn unsplat(cx: &mut LowerCx<'_>, t: TensorValue, span: Span) -> Result<TensorValue, Diagnostic> {
    if !t.is_block() {
        return Ok(t);
    }
    if t.ty.numel() != Some(1) {
        return Err(err(
            codes::SHAPE_MISMATCH,
            span,
            format!(
                "only a one-element block can become a scalar, not `{}`",
                t.ty
            ),
        ));
    }
    let combine = match t.ty.dtype() {
        Some(d) if d.is_float() => Combine::Binary(BinaryKind::Add),
        _ => Combine::Binary(BinaryKind::Or),
    };
    let t = if t.ty.rank() > 1 {
        let id = cx.builder(span).reshape(t.id, &[1], false);
        cx.tensor(id)
    } else {
        t
    };
    if t.ty.is_ptr_like() {
        return Err(err(
            codes::UNSUPPORTED_TL_OP,
            span,
            "turning a one-element block of pointers into a scalar is not yet supported by tritonc",
        ));
    }
    Ok(reduce_values(cx, vec![t], Some((0, span)), false, &combine, span)?.remove(0))
}

pub(super) fn reshape_to(
    cx: &mut LowerCx<'_>,
    t: TensorValue,
    shape: &[i128],
    can_reorder: bool,
    span: Span,
) -> Result<TensorValue, Diagnostic> {
    if shape.is_empty() {
        return unsplat(cx, t, span);
    }
    let dims = super::core::validate_shape(shape, span)?;
    let numel: u64 = dims.iter().product();
    let have = t.ty.numel().unwrap_or(1);
    if have != numel {
        return Err(Diagnostic::error(
            codes::SHAPE_MISMATCH,
            format!(
                "cannot reshape `{}` ({have} elements) to {dims:?} ({numel} elements)",
                t.ty
            ),
        )
        .with_primary(span, "")
        .with_note("reshape keeps the number of elements"));
    }
    let id = if t.is_block() {
        cx.builder(span).reshape(t.id, &dims, can_reorder)
    } else {
        cx.builder(span).splat(t.id, &dims)
    };
    Ok(cx.tensor(id))
}

fn reshape(cx: &mut LowerCx<'_>, call: &BuiltinCall) -> R {
    let (x, rest) = input_and_rest(call)?;
    let can_reorder = kwarg_flag(call, &["can_reorder"], "can_reorder")?;
    let t = expect_tensor(cx, &x)?;
    let shape = ints(&rest, "shape dims")?;
    Ok(reshape_to(cx, t, &shape, can_reorder, call.span)?.into())
}

fn view(cx: &mut LowerCx<'_>, call: &BuiltinCall) -> R {
    let (x, rest) = input_and_rest(call)?;
    kwarg_flag(call, &[], "")?;
    let t = expect_tensor(cx, &x)?;
    let shape = ints(&rest, "shape dims")?;
    Ok(reshape_to(cx, t, &shape, true, call.span)?.into())
}

fn ravel(cx: &mut LowerCx<'_>, call: &BuiltinCall) -> R {
    let b = call.bind(&["x", "can_reorder"])?;
    let t = block(cx, &call.required(&b, 0, "x")?, "tl.ravel")?;
    let can_reorder = match &b[1] {
        Some(a) => expect_const(a, "`can_reorder`")?.truthy(),
        None => false,
    };
    let n = t.ty.numel().unwrap_or(0) as i128;
    Ok(reshape_to(cx, t, &[n], can_reorder, call.span)?.into())
}

fn permute_dims(
    cx: &mut LowerCx<'_>,
    t: TensorValue,
    dims: &[i128],
    span: Span,
) -> Result<TensorValue, Diagnostic> {
    let rank = t.ty.rank();
    if dims.len() != rank {
        return Err(Diagnostic::error(
            codes::INVALID_AXIS,
            format!(
                "permute dims {dims:?} must have one entry per dim of `{}`",
                t.ty
            ),
        )
        .with_primary(span, ""));
    }
    let mut sorted = dims.to_vec();
    sorted.sort_unstable();
    if sorted.iter().enumerate().any(|(i, d)| *d != i as i128) {
        return Err(Diagnostic::error(
            codes::INVALID_AXIS,
            format!("permute dims must be a permutation of 0..{rank}, got {dims:?}"),
        )
        .with_primary(span, ""));
    }
    let order: Vec<u32> = dims.iter().map(|d| *d as u32).collect();
    let id = cx.builder(span).trans(t.id, &order);
    Ok(cx.tensor(id))
}

fn trans(cx: &mut LowerCx<'_>, call: &BuiltinCall) -> R {
    let (x, rest) = input_and_rest(call)?;
    kwarg_flag(call, &[], "")?;
    let t = expect_tensor(cx, &x)?;
    let mut dims = ints(&rest, "trans dims")?;
    if dims.is_empty() {
        let n = t.ty.rank();
        if n < 2 {
            return Err(Diagnostic::error(
                codes::INVALID_AXIS,
                format!("`tl.trans` of the {n}-d `{}`", t.ty),
            )
            .with_primary(x.1, "needs at least 2 dims"));
        }
        dims = (0..n as i128 - 2)
            .chain([n as i128 - 1, n as i128 - 2])
            .collect();
    }
    Ok(permute_dims(cx, t, &dims, call.span)?.into())
}

fn permute(cx: &mut LowerCx<'_>, call: &BuiltinCall) -> R {
    let (x, rest) = input_and_rest(call)?;
    kwarg_flag(call, &[], "")?;
    let t = expect_tensor(cx, &x)?;
    let dims = ints(&rest, "permute dims")?;
    Ok(permute_dims(cx, t, &dims, call.span)?.into())
}

/// `x.T`: Triton's code generator lowers it to `permute(x, (1, 0))`.
pub(super) fn transpose_attr(cx: &mut LowerCx<'_>, t: TensorValue, span: Span) -> R {
    Ok(permute_dims(cx, t, &[1, 0], span)?.into())
}

fn join_values(
    cx: &mut LowerCx<'_>,
    a: TensorValue,
    b: TensorValue,
    span: Span,
) -> Result<TensorValue, Diagnostic> {
    let (a, b) = arith::broadcast_pair(cx, a, b, span)?;
    if a.ty != b.ty {
        return Err(err(
            codes::INCOMPATIBLE_TYPES,
            span,
            format!(
                "`tl.join` needs two values of one type, got `{}` and `{}`",
                a.ty, b.ty
            ),
        ));
    }
    if !a.is_block() {
        let (ea, eb) = {
            let mut bl = cx.builder(span);
            (bl.splat(a.id, &[1]), bl.splat(b.id, &[1]))
        };
        let j = cx.builder(span).join(ea, eb);
        let id = cx.builder(span).reshape(j, &[2], false);
        return Ok(cx.tensor(id));
    }
    let id = cx.builder(span).join(a.id, b.id);
    Ok(cx.tensor(id))
}

fn join(cx: &mut LowerCx<'_>, call: &BuiltinCall) -> R {
    let b = call.bind(&["a", "b"])?;
    let x = expect_tensor(cx, &call.required(&b, 0, "a")?)?;
    let y = expect_tensor(cx, &call.required(&b, 1, "b")?)?;
    Ok(join_values(cx, x, y, call.span)?.into())
}

fn split(cx: &mut LowerCx<'_>, call: &BuiltinCall) -> R {
    let b = call.bind(&["a"])?;
    let x = call.required(&b, 0, "a")?;
    let mut t = block(cx, &x, "tl.split")?;
    let shape = t.ty.known_shape().unwrap_or_default();
    if shape.last() != Some(&2) {
        return Err(Diagnostic::error(
            codes::SHAPE_MISMATCH,
            format!(
                "`tl.split` needs a last dim of 2, `{}` has {}",
                t.ty,
                shape.last().copied().unwrap_or(0)
            ),
        )
        .with_primary(x.1, ""));
    }
    let was_rank_1 = shape.len() == 1;
    if was_rank_1 {
        let id = cx.builder(call.span).expand_dims(t.id, 0);
        t = cx.tensor(id);
    }
    let (l, r) = cx.builder(call.span).split(t.id);
    let (mut l, mut r) = (cx.tensor(l), cx.tensor(r));
    if was_rank_1 {
        l = unsplat(cx, l, call.span)?;
        r = unsplat(cx, r, call.span)?;
    }
    Ok(SemaValue::Tuple(vec![l.into(), r.into()]))
}

fn interleave(cx: &mut LowerCx<'_>, call: &BuiltinCall) -> R {
    let b = call.bind(&["a", "b"])?;
    let x = expect_tensor(cx, &call.required(&b, 0, "a")?)?;
    let y = expect_tensor(cx, &call.required(&b, 1, "b")?)?;
    let c = join_values(cx, x, y, call.span)?;
    let shape = c.ty.known_shape().unwrap_or_default();
    if shape.len() == 1 {
        return Ok(c.into());
    }
    let mut to: Vec<i128> = shape[..shape.len() - 2]
        .iter()
        .map(|d| *d as i128)
        .collect();
    to.push(2 * shape[shape.len() - 2] as i128);
    Ok(reshape_to(cx, c, &to, false, call.span)?.into())
}

fn cat(cx: &mut LowerCx<'_>, call: &BuiltinCall) -> R {
    let b = call.bind(&["input", "other", "can_reorder"])?;
    let xa = call.required(&b, 0, "input")?;
    let x = block(cx, &xa, "tl.cat")?;
    let y = block(cx, &call.required(&b, 1, "other")?, "tl.cat")?;
    let can_reorder = match &b[2] {
        Some(a) => expect_const(a, "`can_reorder`")?.truthy(),
        None => false,
    };
    if !can_reorder {
        return Err(Diagnostic::error(
            codes::INVALID_OPERAND,
            "`tl.cat` may reorder elements and needs `can_reorder=True`",
        )
        .with_primary(call.span, "")
        .with_help(
            "pass `can_reorder=True`, or use `tl.join` + `tl.reshape` for an ordered concatenation",
        ));
    }
    if x.ty.rank() != 1 {
        return Err(err(
            codes::SHAPE_MISMATCH,
            xa.1,
            format!("`tl.cat` supports 1-D blocks only, got `{}`", x.ty),
        ));
    }
    if x.ty.elem() != y.ty.elem() || x.ty.rank() != y.ty.rank() {
        return Err(err(
            codes::INCOMPATIBLE_TYPES,
            call.span,
            format!(
                "`tl.cat` needs two blocks of one type, got `{}` and `{}`",
                x.ty, y.ty
            ),
        ));
    }
    let id = cx.builder(call.span).cat(x.id, y.id);
    Ok(cx.tensor(id).into())
}

fn broadcast(cx: &mut LowerCx<'_>, call: &BuiltinCall) -> R {
    let b = call.bind(&["input", "other"])?;
    let x = expect_tensor(cx, &call.required(&b, 0, "input")?)?;
    let y = expect_tensor(cx, &call.required(&b, 1, "other")?)?;
    let (x, y) = arith::broadcast_pair(cx, x, y, call.span)?;
    Ok(SemaValue::Tuple(vec![x.into(), y.into()]))
}

fn item(cx: &mut LowerCx<'_>, call: &BuiltinCall) -> R {
    let b = call.bind(&["input"])?;
    let t = expect_tensor(cx, &call.required(&b, 0, "input")?)?;
    Ok(unsplat(cx, t, call.span)?.into())
}

/// `tl.flip(x, dim)`: Triton's xor-butterfly over a `(2, 2, ..., 2)` reshape of the dim.
fn flip(cx: &mut LowerCx<'_>, call: &BuiltinCall) -> R {
    let b = call.bind(&["x", "dim"])?;
    let xa = call.required(&b, 0, "x")?;
    let t = block(cx, &xa, "tl.flip")?;
    let shape = t.ty.known_shape().unwrap_or_default();
    let rank = shape.len();
    // `dim=None` flips the last dim (`_get_flip_dim`).
    let (dim, dspan) = match &b[1] {
        None | Some((SemaValue::Const(Constexpr::None), _)) => (rank as i128 - 1, call.span),
        Some(a) => (super::expect_int(a, "the flip dim")?, a.1),
    };
    let d = wrap_axis(dim, rank, &t.ty, dspan)? as usize;
    let n = shape[d];
    let steps = n.trailing_zeros() as usize;
    let Some(dt) = t.ty.dtype() else {
        return Err(err(
            codes::UNSUPPORTED_TL_OP,
            xa.1,
            "`tl.flip` of pointers is not yet supported by tritonc",
        ));
    };
    let bits = dt.bitwidth().unwrap_or(32);
    let idt = DType::int_of_width(bits.max(8), true).unwrap_or(DType::I32);
    if bits < 8 {
        return Err(err(
            codes::UNSUPPORTED_TL_OP,
            xa.1,
            "`tl.flip` of `i1` blocks is not yet supported by tritonc",
        ));
    }
    let ix = if dt == idt {
        t.clone()
    } else {
        let id = cx
            .builder(call.span)
            .cast(tritonc_ir::CastOp::Bitcast, t.id, idt);
        cx.tensor(id)
    };
    let mut to: Vec<i128> = shape[..d].iter().map(|x| *x as i128).collect();
    to.extend(std::iter::repeat_n(2, steps));
    to.extend(shape[d + 1..].iter().map(|x| *x as i128));
    let mut y = reshape_to(cx, ix, &to, false, call.span)?;
    for i in 0..steps {
        let s = reduce_values(
            cx,
            vec![y.clone()],
            Some(((d + i) as i128, call.span)),
            true,
            &Combine::Binary(BinaryKind::Xor),
            call.span,
        )?
        .remove(0);
        y = arith::binary(cx, BinaryKind::Xor, y.into(), s.into(), call.span)?;
    }
    let back: Vec<i128> = shape.iter().map(|x| *x as i128).collect();
    let y = reshape_to(cx, y, &back, false, call.span)?;
    if dt == idt {
        return Ok(y.into());
    }
    let id = cx
        .builder(call.span)
        .cast(tritonc_ir::CastOp::Bitcast, y.id, dt);
    Ok(cx.tensor(id).into())
}
