//! Block pointers: `tl.make_block_ptr`, `tl.advance`, and `tl.load`/`tl.store` through them.
//!
//! A block pointer is a compile-time record ([`BlockPtrValue`]); loads and stores through it
//! become tensors of pointers with boundary masks right away, as Triton's
//! `rewrite_tensor_pointer` pass does before anything else sees the TTIR: per dim `i`, the
//! offsets `offset_i + arange(0, block_i)` (i64) scaled by `stride_i` are added to the base,
//! and each checked dim contributes `0 <= offsets < shape_i` to the mask. The offsets are
//! kept as i64 values, as that pass keeps them.

use tritonc_diagnostics::{Diagnostic, Span};
use tritonc_ir::{CastOp, CmpIPredicate, DType, Elem, LoadOptions, Type};

use super::core::{load_hints, store_hints, string_arg};
use super::{arith, expect_const, expect_tensor, BuiltinCall, BuiltinFn};
use crate::codes;
use crate::lower::LowerCx;
use crate::promote::BinaryKind;
use crate::value::{BlockPtrValue, Constexpr, SemaValue, TensorValue};

type R = Result<SemaValue, Diagnostic>;

/// The block-pointer builtins, by short name.
pub(super) const BUILTINS: &[(&str, BuiltinFn)] =
    &[("make_block_ptr", make_block_ptr), ("advance", advance)];

/// `tl.load`/`tl.store` whose pointer argument is a block pointer.
pub(super) fn route(call: &BuiltinCall) -> Option<BuiltinFn> {
    let name = call.path.strip_prefix("triton.language.")?;
    if name != "load" && name != "store" {
        return None;
    }
    let ptr = call.args.first().map(|a| &a.0).or_else(|| {
        call.kwargs
            .iter()
            .find(|(k, _, _)| k == "pointer")
            .map(|(_, v, _)| v)
    });
    if !matches!(ptr, Some(SemaValue::BlockPtr(_))) {
        return None;
    }
    Some(if name == "load" { load } else { store })
}

fn bad(span: Span, msg: impl Into<String>) -> Diagnostic {
    Diagnostic::error(codes::INVALID_BLOCK_POINTER, msg).with_primary(span, "")
}

fn items(a: &(SemaValue, Span)) -> Vec<(SemaValue, Span)> {
    match a.0.tuple_items() {
        Some(items) => items.into_iter().map(|v| (v, a.1)).collect(),
        None => vec![a.clone()],
    }
}

/// A shape/stride (i64) or offset (i32, widened to i64 as the rewrite keeps it) entry.
fn index_value(
    cx: &mut LowerCx<'_>,
    a: &(SemaValue, Span),
    wide: bool,
    what: &str,
) -> Result<TensorValue, Diagnostic> {
    match &a.0 {
        SemaValue::Const(c) if c.as_int().is_some() && !matches!(c, Constexpr::Bool(_)) => {
            let v = c.as_int().expect("checked above");
            let (lo, hi, bits) = if wide {
                (-(1i128 << 63), 1i128 << 63, 64)
            } else {
                (-(1i128 << 31), 1i128 << 31, 32)
            };
            if !(lo..hi).contains(&v) {
                return Err(bad(
                    a.1,
                    format!("block pointer {what} must fit in {bits} bits, got {v}"),
                ));
            }
            arith::constant(cx, c, DType::I64, a.1)
        }
        SemaValue::Tensor(t) => {
            let d = t.ty.dtype().filter(|d| d.is_int() && *d != DType::I1);
            let Some(d) = d.filter(|_| !t.is_block()) else {
                return Err(bad(
                    a.1,
                    format!(
                        "block pointer {what} must be integer scalars, not `{}`",
                        t.ty
                    ),
                ));
            };
            if !wide && d.bitwidth() == Some(64) {
                return Err(bad(
                    a.1,
                    format!("block pointer {what} are 32-bit, not `{}`", t.ty),
                )
                .with_help("add `.to(tl.int32)` or use pointer arithmetic for 64-bit offsets"));
            }
            if d == DType::I64 {
                return Ok(t.clone());
            }
            // An int cast to i64 by the value's own signedness (Triton's `create_int_cast`).
            let op = if d.bitwidth() == Some(64) {
                CastOp::Bitcast
            } else if d.is_signed() {
                CastOp::ExtSI
            } else {
                CastOp::ExtUI
            };
            let id = cx.builder(a.1).cast(op, t.id, DType::I64);
            Ok(cx.tensor(id))
        }
        other => Err(bad(
            a.1,
            format!(
                "block pointer {what} must be ints, not {}",
                other.describe()
            ),
        )),
    }
}

fn const_ints(a: &(SemaValue, Span), what: &str) -> Result<Vec<i128>, Diagnostic> {
    items(a)
        .iter()
        .map(|x| {
            let c = expect_const(x, what)?;
            c.as_int()
                .ok_or_else(|| bad(x.1, format!("{what} must be ints, not {}", c.type_name())))
        })
        .collect()
}

/// Triton 3.9 removed block pointers (`NotImplementedError("Block pointers have been
/// removed in favor of the tensor descriptor API")`).
fn removed_in_3_9(cx: &LowerCx<'_>, call: &BuiltinCall) -> Result<(), Diagnostic> {
    if !cx.triton_version.at_least(crate::TritonVersion::V3_9) {
        return Ok(());
    }
    Err(Diagnostic::error(
        codes::UNKNOWN_TL_OP,
        format!("`tl.{}`: block pointers were removed in Triton 3.9", call.name()),
    )
    .with_primary(call.func_span, "removed in Triton 3.9")
    .with_note("Triton 3.9 raises NotImplementedError(\"Block pointers have been removed in favor of the tensor descriptor API\")")
    .with_help("use pointer tensors with masks, or compile for Triton 3.6–3.8 (`--triton-version`)"))
}

fn make_block_ptr(cx: &mut LowerCx<'_>, call: &BuiltinCall) -> R {
    removed_in_3_9(cx, call)?;
    let b = call.bind(&[
        "base",
        "shape",
        "strides",
        "offsets",
        "block_shape",
        "order",
    ])?;
    let mut a = Vec::new();
    for (i, p) in [
        "base",
        "shape",
        "strides",
        "offsets",
        "block_shape",
        "order",
    ]
    .iter()
    .enumerate()
    {
        a.push(call.required(&b, i, p)?);
    }
    let base = expect_tensor(cx, &a[0])?;
    let pointee = match (base.is_block(), base.ty.elem()) {
        (false, Elem::Ptr(p)) => p.pointee,
        _ => {
            return Err(bad(
                a[0].1,
                format!(
                    "the base of a block pointer must be a scalar pointer, not `{}`",
                    base.ty
                ),
            ))
        }
    };
    if pointee == DType::I1 {
        return Err(Diagnostic::error(
            codes::UNSUPPORTED_TL_OP,
            "block pointers to `i1` are not yet supported by tritonc",
        )
        .with_primary(a[0].1, "Triton reads them as i8 through a pointer cast"));
    }
    let shape = items(&a[1])
        .iter()
        .map(|x| index_value(cx, x, true, "shapes"))
        .collect::<Result<Vec<_>, _>>()?;
    let strides = items(&a[2])
        .iter()
        .map(|x| index_value(cx, x, true, "strides"))
        .collect::<Result<Vec<_>, _>>()?;
    let offsets = items(&a[3])
        .iter()
        .map(|x| index_value(cx, x, false, "offsets"))
        .collect::<Result<Vec<_>, _>>()?;
    let block = const_ints(&a[4], "`block_shape` entries")?;
    let block = super::core::validate_shape(&block, a[4].1)?;
    let order = const_ints(&a[5], "`order` entries")?;
    let mut sorted = order.clone();
    sorted.sort_unstable();
    if sorted.iter().enumerate().any(|(i, o)| *o != i as i128) {
        return Err(bad(
            a[5].1,
            format!(
                "`order` must be a permutation of 0..{}, got {order:?}",
                order.len()
            ),
        ));
    }
    let n = block.len();
    for (x, len) in [
        (&a[1], shape.len()),
        (&a[2], strides.len()),
        (&a[3], offsets.len()),
        (&a[5], order.len()),
    ] {
        if len != n {
            return Err(bad(
                x.1,
                format!("expected {n} entries, one per dim of `block_shape`, got {len}"),
            ));
        }
    }
    Ok(SemaValue::BlockPtr(Box::new(BlockPtrValue {
        base,
        shape,
        strides,
        offsets,
        block_shape: block,
        order: order.iter().map(|o| *o as u32).collect(),
    })))
}

fn block_ptr_arg(a: &(SemaValue, Span), what: &str) -> Result<BlockPtrValue, Diagnostic> {
    match &a.0 {
        SemaValue::BlockPtr(p) => Ok((**p).clone()),
        other => Err(bad(
            a.1,
            format!("{what} needs a block pointer, got {}", other.describe()),
        )),
    }
}

fn advance(cx: &mut LowerCx<'_>, call: &BuiltinCall) -> R {
    removed_in_3_9(cx, call)?;
    let b = call.bind(&["base", "offsets"])?;
    let mut p = block_ptr_arg(&call.required(&b, 0, "base")?, "`tl.advance`")?;
    let oa = call.required(&b, 1, "offsets")?;
    let deltas = items(&oa)
        .iter()
        .map(|x| index_value(cx, x, false, "offsets"))
        .collect::<Result<Vec<_>, _>>()?;
    if deltas.len() != p.offsets.len() {
        return Err(bad(
            oa.1,
            format!(
                "`tl.advance` needs {} offsets, one per dim, got {}",
                p.offsets.len(),
                deltas.len()
            ),
        ));
    }
    for (o, d) in p.offsets.iter_mut().zip(deltas) {
        *o = arith::binary(cx, BinaryKind::Add, o.clone().into(), d.into(), oa.1)?;
    }
    Ok(SemaValue::BlockPtr(Box::new(p)))
}

/// Sorted, deduplicated dims to bounds-check.
fn boundary_check(a: &Option<(SemaValue, Span)>, rank: usize) -> Result<Vec<usize>, Diagnostic> {
    let Some(a) = a else { return Ok(Vec::new()) };
    if matches!(a.0, SemaValue::Const(Constexpr::None)) {
        return Ok(Vec::new());
    }
    let dims = const_ints(a, "`boundary_check` dims")?;
    let mut out: Vec<usize> = Vec::new();
    for d in dims {
        if !(0..rank as i128).contains(&d) {
            return Err(bad(
                a.1,
                format!("`boundary_check` dim {d} is outside the block's {rank} dims"),
            ));
        }
        if out.contains(&(d as usize)) {
            return Err(bad(a.1, format!("duplicate dim {d} in `boundary_check`")));
        }
        out.push(d as usize);
    }
    out.sort_unstable();
    Ok(out)
}

/// The rewrite: the pointer tensor and the boundary mask of a block pointer (also of a
/// tensor descriptor at given offsets, `tensor_desc`).
pub(super) fn pointers_and_mask(
    cx: &mut LowerCx<'_>,
    p: &BlockPtrValue,
    check: &[usize],
    span: Span,
) -> Result<(TensorValue, Option<TensorValue>), Diagnostic> {
    let shape = p.block_shape.clone();
    let rank = shape.len();
    let mut ptr = arith::broadcast_to_shape(cx, p.base.clone(), &shape, span)?;
    let mut mask: Option<TensorValue> = None;
    for i in 0..rank {
        // offset_i + arange(0, block_i), as i64, with the other dims inserted as size 1.
        let range = {
            let id = cx.builder(span).make_range(0, shape[i] as i32);
            let r = cx.tensor(id);
            arith::cast(cx, r, DType::I64, span)?
        };
        let off = arith::broadcast_to_shape(cx, p.offsets[i].clone(), &[shape[i]], span)?;
        let mut with_range = arith::binary(cx, BinaryKind::Add, off.into(), range.into(), span)?;
        for j in 0..rank {
            if j != i {
                let id = cx.builder(span).expand_dims(with_range.id, j as u32);
                with_range = cx.tensor(id);
            }
        }
        let stride = p.strides[i].clone();
        let scaled = arith::binary(
            cx,
            BinaryKind::Mul,
            with_range.clone().into(),
            stride.into(),
            span,
        )?;
        let scaled = arith::broadcast_to_shape(cx, scaled, &shape, span)?;
        let id = cx.builder(span).addptr(ptr.id, scaled.id);
        ptr = cx.tensor(id);
        if check.contains(&i) {
            let lo = arith::constant(cx, &Constexpr::Int(0), DType::I64, span)?;
            let ge = cmp(cx, CmpIPredicate::Sge, &with_range, lo, span)?;
            let lt = cmp(
                cx,
                CmpIPredicate::Slt,
                &with_range,
                p.shape[i].clone(),
                span,
            )?;
            let both = arith::binary(cx, BinaryKind::And, ge.into(), lt.into(), span)?;
            let both = arith::broadcast_to_shape(cx, both, &shape, span)?;
            mask = Some(match mask {
                None => both,
                Some(m) => arith::binary(cx, BinaryKind::And, m.into(), both.into(), span)?,
            });
        }
    }
    Ok((ptr, mask))
}

fn cmp(
    cx: &mut LowerCx<'_>,
    pred: CmpIPredicate,
    a: &TensorValue,
    b: TensorValue,
    span: Span,
) -> Result<TensorValue, Diagnostic> {
    let shape = a.ty.known_shape().unwrap_or_default();
    let b = arith::broadcast_to_shape(cx, b, &shape, span)?;
    let id = cx.builder(span).cmpi(pred, a.id, b.id);
    Ok(cx.tensor(id))
}

fn no_mask(a: &Option<(SemaValue, Span)>, what: &str) -> Result<(), Diagnostic> {
    match a {
        Some((v, s)) if !matches!(v, SemaValue::Const(Constexpr::None)) => Err(bad(
            *s,
            format!("`{what}` cannot be used with a block pointer"),
        )
        .with_help("use `boundary_check=` (and `padding_option=` for loads) instead")),
        _ => Ok(()),
    }
}

fn load(cx: &mut LowerCx<'_>, call: &BuiltinCall) -> R {
    let b = call.bind(&[
        "pointer",
        "mask",
        "other",
        "boundary_check",
        "padding_option",
        "cache_modifier",
        "eviction_policy",
        "volatile",
    ])?;
    let p = block_ptr_arg(&call.required(&b, 0, "pointer")?, "this load")?;
    no_mask(&b[1], "mask")?;
    no_mask(&b[2], "other")?;
    let elem = p.base.ty.elem();
    let pointee = match elem {
        Elem::Ptr(pt) => pt.pointee,
        Elem::DType(d) => d,
    };
    let check = boundary_check(&b[3], p.block_shape.len())?;
    let padding = match string_arg(&b[4], "`padding_option`")? {
        None => None,
        Some((s, span)) => match s.as_str() {
            "zero" => Some(0.0),
            "nan" if pointee.is_int() => {
                return Err(bad(
                    span,
                    "`padding_option=\"nan\"` is not supported for integer block pointers",
                ))
            }
            "nan" => Some(f64::NAN),
            _ => {
                return Err(bad(
                    span,
                    format!("unknown `padding_option` \"{s}\"; expected \"zero\" or \"nan\""),
                ))
            }
        },
    };
    let (cache, evict, is_volatile) = load_hints(&b[5], &b[6], &b[7])?;
    let (ptr, mask) = pointers_and_mask(cx, &p, &check, call.span)?;
    // The rewrite adds `other` only where a mask exists and a padding was asked for.
    let other = match (&mask, padding) {
        (Some(_), Some(v)) => {
            let ty = Type::tensor_of(&p.block_shape, pointee);
            let id = if pointee.is_float() {
                cx.builder(call.span).const_float(v, ty)
            } else {
                cx.builder(call.span).const_int(0, ty)
            };
            Some(id)
        }
        _ => None,
    };
    let id = cx.builder(call.span).load(
        ptr.id,
        mask.map(|m| m.id),
        other,
        LoadOptions {
            cache,
            evict,
            is_volatile,
        },
    );
    Ok(cx.tensor(id).into())
}

fn store(cx: &mut LowerCx<'_>, call: &BuiltinCall) -> R {
    let b = call.bind(&[
        "pointer",
        "value",
        "mask",
        "boundary_check",
        "cache_modifier",
        "eviction_policy",
    ])?;
    let p = block_ptr_arg(&call.required(&b, 0, "pointer")?, "this store")?;
    no_mask(&b[2], "mask")?;
    let va = call.required(&b, 1, "value")?;
    let pointee = match p.base.ty.elem() {
        Elem::Ptr(pt) => pt.pointee,
        Elem::DType(d) => d,
    };
    let mut v = expect_tensor(cx, &va)?;
    if !v.is_block() {
        v = arith::broadcast_to_shape(cx, v, &p.block_shape, va.1)?;
    }
    if v.ty.known_shape().unwrap_or_default() != p.block_shape {
        return Err(bad(
            va.1,
            format!(
                "the value `{}` does not have the block shape {:?}",
                v.ty, p.block_shape
            ),
        ));
    }
    // Unlike pointer stores, a block-pointer store does not convert the value.
    if v.ty.dtype() != Some(pointee) {
        return Err(bad(
            va.1,
            format!(
                "the value is `{}` but the block pointer stores `{pointee}`",
                v.ty
            ),
        )
        .with_help(format!(
            "convert it: `.to(tl.{})`",
            pointee.triton_name().unwrap_or("?")
        )));
    }
    let check = boundary_check(&b[3], p.block_shape.len())?;
    let (cache, evict) = store_hints(&b[4], &b[5])?;
    let (ptr, mask) = pointers_and_mask(cx, &p, &check, call.span)?;
    cx.builder(call.span)
        .store(ptr.id, v.id, mask.map(|m| m.id), cache, evict);
    Ok(SemaValue::Const(Constexpr::None))
}
