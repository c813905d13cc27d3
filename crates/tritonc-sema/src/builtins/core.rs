//! The core builtins: grid, creation, memory, select, casts, reductions, math, shape,
//! hints and compile-time checks.

use tritonc_diagnostics::{Diagnostic, Span};
use tritonc_ir::{
    BinaryOp, CacheModifier, DType, Elem, EvictionPolicy, Hints, LoadOptions, MathOp, RoundingMode,
    MAX_TENSOR_NUMEL,
};

use super::{arith, expect_const, expect_int, expect_tensor, BuiltinCall};
use crate::codes;
use crate::constexpr::calls;
use crate::lower::LowerCx;
use crate::promote::{self, BinaryKind};
use crate::value::{Constexpr, SemaValue, TensorValue};

type R = Result<SemaValue, Diagnostic>;

fn err(code: tritonc_diagnostics::Code, span: Span, msg: impl Into<String>) -> Diagnostic {
    Diagnostic::error(code, msg).with_primary(span, "")
}

fn axis_of(
    call: &BuiltinCall,
    v: &Option<(SemaValue, Span)>,
    default: i128,
) -> Result<i128, Diagnostic> {
    match v {
        None => Ok(default),
        Some(a) => expect_int(a, &format!("the axis of `tl.{}`", call.name())),
    }
}

pub(super) fn program_id(cx: &mut LowerCx<'_>, call: &BuiltinCall) -> R {
    let b = call.bind(&["axis"])?;
    let axis = axis_of(call, &b[0], -1)?;
    if !(0..=2).contains(&axis) {
        return Err(err(
            codes::INVALID_AXIS,
            b[0].as_ref().map_or(call.span, |a| a.1),
            format!("`tl.{}` axis must be 0, 1 or 2, not {axis}", call.name()),
        ));
    }
    let id = if call.name() == "program_id" {
        cx.builder(call.span).get_program_id(axis as u32)
    } else {
        cx.builder(call.span).get_num_programs(axis as u32)
    };
    Ok(SemaValue::Tensor(cx.tensor(id)))
}

pub(super) fn num_programs(cx: &mut LowerCx<'_>, call: &BuiltinCall) -> R {
    program_id(cx, call)
}

/// Checks a block shape: every dim a power of two, at most 2^20 elements.
pub fn validate_shape(shape: &[i128], span: Span) -> Result<Vec<u64>, Diagnostic> {
    let mut numel: u64 = 1;
    let mut out = Vec::new();
    for &d in shape {
        if d <= 0 || (d & (d - 1)) != 0 {
            return Err(err(
                codes::INVALID_BLOCK_SHAPE,
                span,
                format!("block dims must be powers of two, got {d}"),
            ));
        }
        numel = numel.saturating_mul(d as u64);
        out.push(d as u64);
    }
    if numel > MAX_TENSOR_NUMEL {
        return Err(err(
            codes::INVALID_BLOCK_SHAPE,
            span,
            format!("a block holds at most {MAX_TENSOR_NUMEL} elements, this one {numel}"),
        ));
    }
    Ok(out)
}

pub(super) fn arange(cx: &mut LowerCx<'_>, call: &BuiltinCall) -> R {
    let b = call.bind(&["start", "end"])?;
    let start_a = call.required(&b, 0, "start")?;
    let end_a = call.required(&b, 1, "end")?;
    if let Some(t) = crate::generic::arange(cx, &start_a, &end_a, call.span) {
        return Ok(SemaValue::Tensor(t));
    }
    let start = expect_int(&start_a, "`tl.arange` start")?;
    let end = expect_int(&end_a, "`tl.arange` end")?;
    if start >> 32 != 0 || end >> 32 != 0 || start < 0 || end < 0 {
        return Err(err(
            codes::INVALID_BLOCK_SHAPE,
            call.span,
            "`tl.arange` bounds must fit in int32",
        ));
    }
    if end <= start {
        return Err(err(
            codes::INVALID_BLOCK_SHAPE,
            call.span,
            format!("`tl.arange` end ({end}) must be greater than start ({start})"),
        ));
    }
    let n = end - start;
    if n & (n - 1) != 0 {
        return Err(Diagnostic::error(
            codes::INVALID_BLOCK_SHAPE,
            format!("`tl.arange` range must be a power of two, got {end} - {start} = {n}"),
        )
        .with_primary(call.span, "")
        .with_help(format!(
            "use {} and mask the tail",
            calls::next_power_of_2(n)
        )));
    }
    validate_shape(&[n], call.span)?;
    let id = cx.builder(call.span).make_range(start as i32, end as i32);
    Ok(SemaValue::Tensor(cx.tensor(id)))
}

fn shape_arg(a: &(SemaValue, Span)) -> Result<Vec<u64>, Diagnostic> {
    let c = expect_const(a, "a block shape")?;
    let dims: Vec<i128> = match c {
        Constexpr::Tuple(items) => items
            .iter()
            .map(|i| {
                i.as_int()
                    .ok_or_else(|| err(codes::INVALID_OPERAND, a.1, "shape dims must be ints"))
            })
            .collect::<Result<_, _>>()?,
        other => vec![other.as_int().ok_or_else(|| {
            err(
                codes::INVALID_OPERAND,
                a.1,
                "a shape must be an int or a tuple of ints",
            )
        })?],
    };
    validate_shape(&dims, a.1)
}

fn dtype_arg(a: &(SemaValue, Span)) -> Result<DType, Diagnostic> {
    let c = expect_const(a, "a dtype")?;
    c.as_dtype().ok_or_else(|| {
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

fn splat_value(
    cx: &mut LowerCx<'_>,
    value: SemaValue,
    dtype: DType,
    shape: &[u64],
    span: Span,
) -> Result<TensorValue, Diagnostic> {
    let s = arith::to_tensor_as(cx, value, dtype, span)?;
    if s.is_block() {
        return Err(err(
            codes::INVALID_OPERAND,
            span,
            "the fill value must be a scalar",
        ));
    }
    arith::broadcast_to_shape(cx, s, shape, span)
}

pub(super) fn full(cx: &mut LowerCx<'_>, call: &BuiltinCall) -> R {
    let b = call.bind(&["shape", "value", "dtype"])?;
    if let Some(dims) = crate::generic::symbolic_shape(&call.required(&b, 0, "shape")?) {
        let value = call.required(&b, 1, "value")?;
        let dtype = dtype_arg(&call.required(&b, 2, "dtype")?)?;
        let s = arith::to_tensor_as(cx, value.0, dtype, value.1)?;
        return Ok(SemaValue::Tensor(arith::broadcast_to_dims(
            cx, s, &dims, value.1,
        )?));
    }
    let shape = shape_arg(&call.required(&b, 0, "shape")?)?;
    let value = call.required(&b, 1, "value")?;
    let dtype = dtype_arg(&call.required(&b, 2, "dtype")?)?;
    Ok(SemaValue::Tensor(splat_value(
        cx, value.0, dtype, &shape, value.1,
    )?))
}

pub(super) fn zeros(cx: &mut LowerCx<'_>, call: &BuiltinCall) -> R {
    let b = call.bind(&["shape", "dtype"])?;
    if let Some(dims) = crate::generic::symbolic_shape(&call.required(&b, 0, "shape")?) {
        let dtype = dtype_arg(&call.required(&b, 1, "dtype")?)?;
        let zero = SemaValue::Const(Constexpr::Int(0));
        let s = arith::to_tensor_as(cx, zero, dtype, call.span)?;
        return Ok(SemaValue::Tensor(arith::broadcast_to_dims(
            cx, s, &dims, call.span,
        )?));
    }
    let shape = shape_arg(&call.required(&b, 0, "shape")?)?;
    let dtype = dtype_arg(&call.required(&b, 1, "dtype")?)?;
    Ok(SemaValue::Tensor(splat_value(
        cx,
        SemaValue::Const(Constexpr::Int(0)),
        dtype,
        &shape,
        call.span,
    )?))
}

pub(super) fn zeros_like(cx: &mut LowerCx<'_>, call: &BuiltinCall) -> R {
    let b = call.bind(&["input"])?;
    let t = expect_tensor(cx, &call.required(&b, 0, "input")?)?;
    let d = t.ty.dtype().ok_or_else(|| {
        err(
            codes::INVALID_OPERAND,
            call.span,
            "`tl.zeros_like` of a pointer",
        )
    })?;
    let zero = arith::to_tensor_as(cx, SemaValue::Const(Constexpr::Int(0)), d, call.span)?;
    let dims = t.ty.dims().to_vec();
    Ok(SemaValue::Tensor(arith::broadcast_to_dims(
        cx, zero, &dims, call.span,
    )?))
}

/// A constexpr string option (`cache_modifier=`, `eviction_policy=`, …): `None` and `""`
/// mean "not given", as in Triton.
pub(super) fn string_arg(
    a: &Option<(SemaValue, Span)>,
    what: &str,
) -> Result<Option<(String, Span)>, Diagnostic> {
    match a {
        None => Ok(None),
        Some(a) => match expect_const(a, what)? {
            Constexpr::None => Ok(None),
            Constexpr::Str(s) if s.is_empty() => Ok(None),
            Constexpr::Str(s) => Ok(Some((s, a.1))),
            other => Err(err(
                codes::INVALID_MEMORY_OP,
                a.1,
                format!("{what} is a string, not {}", other.type_name()),
            )),
        },
    }
}

/// The `cache_modifier=` of a load or store, among the modifiers `allowed` for it.
pub(super) fn cache_modifier(
    a: &Option<(SemaValue, Span)>,
    allowed: &[(&str, CacheModifier)],
) -> Result<CacheModifier, Diagnostic> {
    let Some((s, span)) = string_arg(a, "a cache modifier")? else {
        return Ok(CacheModifier::None);
    };
    allowed
        .iter()
        .find(|(n, _)| *n == s)
        .map(|(_, m)| *m)
        .ok_or_else(|| {
            let names: Vec<&str> = allowed.iter().map(|(n, _)| *n).collect();
            err(
                codes::INVALID_MEMORY_OP,
                span,
                format!(
                    "unknown cache modifier `{s}`; expected one of {}",
                    names.join(", ")
                ),
            )
        })
}

/// The `eviction_policy=` of a load or store.
/// `tl.load`'s `cache_modifier`, `eviction_policy` and `volatile` (pointer tensors and
/// block pointers alike).
pub(super) fn load_hints(
    cache: &Option<(SemaValue, Span)>,
    evict: &Option<(SemaValue, Span)>,
    volatile: &Option<(SemaValue, Span)>,
) -> Result<(CacheModifier, EvictionPolicy, bool), Diagnostic> {
    let cache = cache_modifier(
        cache,
        &[
            (".ca", CacheModifier::Ca),
            (".cg", CacheModifier::Cg),
            (".cv", CacheModifier::Cv),
        ],
    )?;
    let volatile = match volatile {
        Some(a) => expect_const(a, "`volatile`")?.truthy(),
        None => false,
    };
    Ok((cache, eviction(evict)?, volatile))
}

/// `tl.store`'s `cache_modifier` and `eviction_policy`.
pub(super) fn store_hints(
    cache: &Option<(SemaValue, Span)>,
    evict: &Option<(SemaValue, Span)>,
) -> Result<(CacheModifier, EvictionPolicy), Diagnostic> {
    let cache = cache_modifier(
        cache,
        &[
            (".wb", CacheModifier::Wb),
            (".cg", CacheModifier::Cg),
            (".cs", CacheModifier::Cs),
            (".wt", CacheModifier::Wt),
        ],
    )?;
    Ok((cache, eviction(evict)?))
}

pub(super) fn eviction(a: &Option<(SemaValue, Span)>) -> Result<EvictionPolicy, Diagnostic> {
    let Some((s, span)) = string_arg(a, "an eviction policy")? else {
        return Ok(EvictionPolicy::Normal);
    };
    match s.as_str() {
        "evict_first" => Ok(EvictionPolicy::EvictFirst),
        "evict_last" => Ok(EvictionPolicy::EvictLast),
        _ => Err(err(
            codes::INVALID_MEMORY_OP,
            span,
            format!("unknown eviction policy `{s}`; expected evict_first or evict_last"),
        )),
    }
}

fn is_none(a: &Option<(SemaValue, Span)>) -> bool {
    matches!(a, None | Some((SemaValue::Const(Constexpr::None), _)))
}

fn pointer_arg(
    cx: &mut LowerCx<'_>,
    a: &(SemaValue, Span),
) -> Result<(TensorValue, DType), Diagnostic> {
    if let SemaValue::BlockPtr(_) = a.0 {
        return Err(err(
            codes::UNSUPPORTED_TL_OP,
            a.1,
            "block pointers are not yet supported by tritonc",
        ));
    }
    let p = expect_tensor(cx, a)?;
    match p.ty.elem() {
        tritonc_ir::Elem::Ptr(pt) => Ok((p, pt.pointee)),
        _ => Err(err(
            codes::INVALID_MEMORY_OP,
            a.1,
            format!("expected a pointer, got `{}`", p.ty),
        )),
    }
}

fn mask_arg(cx: &mut LowerCx<'_>, a: &(SemaValue, Span)) -> Result<TensorValue, Diagnostic> {
    let m = expect_tensor(cx, a)?;
    if m.ty.dtype() != Some(DType::I1) {
        return Err(err(
            codes::INVALID_MEMORY_OP,
            a.1,
            format!("a mask must be boolean, not `{}`", m.ty),
        ));
    }
    Ok(m)
}

pub(super) fn load(cx: &mut LowerCx<'_>, call: &BuiltinCall) -> R {
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
    let (mut ptr, pointee) = pointer_arg(cx, &call.required(&b, 0, "pointer")?)?;
    for (i, what) in [(3, "boundary_check"), (4, "padding_option")] {
        if let Some((v, s)) = &b[i] {
            let empty = matches!(
                v,
                SemaValue::Const(Constexpr::None | Constexpr::Str(_) | Constexpr::Tuple(_))
            ) && !matches!(v, SemaValue::Const(Constexpr::Str(x)) if !x.is_empty())
                && !matches!(v, SemaValue::Const(Constexpr::Tuple(t)) if !t.is_empty());
            if !empty {
                return Err(err(
                    codes::INVALID_MEMORY_OP,
                    *s,
                    format!("`{what}` is only for block pointers"),
                ));
            }
        }
    }
    if is_none(&b[1]) && !is_none(&b[2]) {
        let s = b[2].as_ref().map_or(call.span, |a| a.1);
        return Err(
            Diagnostic::error(codes::INVALID_MEMORY_OP, "`other` without `mask`")
                .with_primary(s, "`other` is only used where the mask is false")
                .with_help("pass `mask=...` too, or drop `other`"),
        );
    }
    let (cache, evict, is_volatile) = load_hints(&b[5], &b[6], &b[7])?;
    let mut mask = None;
    let mut other = None;
    if let Some(m) = b[1].as_ref().filter(|_| !is_none(&b[1])) {
        let mv = mask_arg(cx, m)?;
        let (p, mv) = arith::broadcast_pair(cx, ptr, mv, m.1)?;
        ptr = p;
        mask = Some(mv);
        if let Some(o) = b[2].as_ref().filter(|_| !is_none(&b[2])) {
            let ov = arith::to_tensor_as(cx, o.0.clone(), pointee, o.1)?;
            let shape = ptr.ty.dims().to_vec();
            let ov = arith::broadcast_to_dims(cx, ov, &shape, o.1)?;
            let shape_mask = mask
                .as_ref()
                .map(|m| m.ty.dims().to_vec())
                .unwrap_or_default();
            if shape_mask != shape {
                let m2 = arith::broadcast_to_dims(
                    cx,
                    mask.take().expect("mask was set above"),
                    &shape,
                    m.1,
                )?;
                mask = Some(m2);
            }
            other = Some(ov);
        }
    }
    let opts = LoadOptions {
        cache,
        evict,
        is_volatile,
    };
    let id = cx
        .builder(call.span)
        .load(ptr.id, mask.map(|m| m.id), other.map(|o| o.id), opts);
    Ok(SemaValue::Tensor(cx.tensor(id)))
}

pub(super) fn store(cx: &mut LowerCx<'_>, call: &BuiltinCall) -> R {
    let b = call.bind(&[
        "pointer",
        "value",
        "mask",
        "boundary_check",
        "cache_modifier",
        "eviction_policy",
    ])?;
    let (mut ptr, pointee) = pointer_arg(cx, &call.required(&b, 0, "pointer")?)?;
    let value = call.required(&b, 1, "value")?;
    let (cache, evict) = store_hints(&b[4], &b[5])?;
    let v = arith::to_tensor(cx, value.0.clone(), value.1)?;
    // The value is broadcast to the pointer's shape and converted to the pointee type.
    if v.is_block() && !ptr.is_block() {
        let s = v.ty.dims().to_vec();
        ptr = arith::broadcast_to_dims(cx, ptr, &s, value.1)?;
    }
    let shape = ptr.ty.dims().to_vec();
    let v = arith::broadcast_to_dims(cx, v, &shape, value.1)?;
    let v = arith::cast(cx, v, pointee, value.1)?;
    let mask = match b[2].as_ref().filter(|_| !is_none(&b[2])) {
        Some(m) => {
            let mv = mask_arg(cx, m)?;
            Some(arith::broadcast_to_dims(cx, mv, &shape, m.1)?)
        }
        None => None,
    };
    cx.builder(call.span)
        .store(ptr.id, v.id, mask.map(|m| m.id), cache, evict);
    Ok(SemaValue::Const(Constexpr::None))
}

pub(super) fn where_(cx: &mut LowerCx<'_>, call: &BuiltinCall) -> R {
    let b = call.bind(&["condition", "x", "y"])?;
    let c = call.required(&b, 0, "condition")?;
    let x = call.required(&b, 1, "x")?;
    let y = call.required(&b, 2, "y")?;
    let cond = expect_tensor(cx, &c)?;
    let cond = arith::cast(cx, cond, DType::I1, c.1)?;
    let (xo, yo) = (operand_of(&x.0, x.1)?, operand_of(&y.0, y.1)?);
    let p = promote::promote_binary(BinaryKind::Where, xo, yo)
        .map_err(|e| err(e.code, call.span, e.message))?;
    let xv = arith::to_tensor_as(cx, x.0, p.operand, x.1)?;
    let yv = arith::to_tensor_as(cx, y.0, p.operand, y.1)?;
    let (xv, yv) = arith::broadcast_pair(cx, xv, yv, call.span)?;
    let (cond, xv) = arith::broadcast_pair(cx, cond, xv, call.span)?;
    let (xv, yv) = arith::broadcast_pair(cx, xv, yv, call.span)?;
    let cs = xv.ty.dims().to_vec();
    let cond = arith::broadcast_to_dims(cx, cond, &cs, c.1)?;
    let id = cx.builder(call.span).select(cond.id, xv.id, yv.id);
    Ok(SemaValue::Tensor(cx.tensor(id)))
}

fn operand_of(v: &SemaValue, span: Span) -> Result<promote::Operand, Diagnostic> {
    Ok(match v {
        SemaValue::Tensor(t) => promote::Operand::Tensor(t.ty.dtype().ok_or_else(|| {
            err(
                codes::INVALID_OPERAND,
                span,
                "a pointer is not a value here",
            )
        })?),
        SemaValue::Const(Constexpr::Bool(b)) => promote::Operand::Bool(*b),
        SemaValue::Const(Constexpr::Int(i)) => promote::Operand::Int(*i),
        SemaValue::Const(Constexpr::Float(f)) => promote::Operand::Float(*f),
        other => {
            return Err(err(
                codes::INVALID_OPERAND,
                span,
                format!("expected a number or a tensor, got {}", other.describe()),
            ))
        }
    })
}

pub(super) fn to(cx: &mut LowerCx<'_>, call: &BuiltinCall) -> R {
    let b = call.bind(&["input", "dtype", "fp_downcast_rounding", "bitcast"])?;
    let x = call.required(&b, 0, "input")?;
    let t = expect_tensor(cx, &x)?;
    let to_arg = call.required(&b, 1, "dtype")?;
    if let SemaValue::Const(Constexpr::DType(Elem::Ptr(to))) = &to_arg.0 {
        return Ok(SemaValue::Tensor(cast_to_pointer(cx, t, *to, call.span)?));
    }
    let to = dtype_arg(&to_arg)?;
    if let Elem::Ptr(_) = t.ty.elem() {
        return Ok(SemaValue::Tensor(arith::cast_pointer_to(cx, t, to, call.span)?));
    }
    let bitcast = match &b[3] {
        Some(a) => expect_const(a, "`bitcast`")?.truthy(),
        None => false,
    };
    let rounding = match &b[2] {
        None => None,
        Some(a) => match expect_const(a, "`fp_downcast_rounding`")? {
            Constexpr::None => None,
            Constexpr::Str(s) if s == "rtne" => Some(RoundingMode::Rtne),
            Constexpr::Str(s) if s == "rtz" => Some(RoundingMode::Rtz),
            other => {
                return Err(err(
                    codes::INVALID_CAST,
                    a.1,
                    format!("unknown rounding mode {other}; expected 'rtne' or 'rtz'"),
                ))
            }
        },
    };
    if bitcast {
        let from = t.ty.dtype().ok_or_else(|| {
            err(
                codes::INVALID_CAST,
                call.span,
                "bitcast of a pointer is not supported",
            )
        })?;
        if from.bitwidth() != to.bitwidth() {
            return Err(err(
                codes::INVALID_CAST,
                call.span,
                format!(
                    "bitcast needs equal bit widths: `{from}` has {}, `{to}` has {}",
                    from.bitwidth().unwrap_or(0),
                    to.bitwidth().unwrap_or(0)
                ),
            ));
        }
        if from == to {
            return Ok(SemaValue::Tensor(t));
        }
        let ty = t.ty.with_dtype(to);
        let id = cx
            .builder(call.span)
            .cast(tritonc_ir::CastOp::Bitcast, t.id, to);
        return Ok(SemaValue::Tensor(TensorValue { id, ty }));
    }
    Ok(SemaValue::Tensor(arith::cast_rounded(
        cx, t, to, rounding, call.span,
    )?))
}

/// `x.to(tl.pointer_type(T))` (with or without `bitcast=True`, which Triton 3.6 treats
/// alike for pointers): a pointer is reinterpreted (Triton's `tt.bitcast`, here the same
/// address through `tt.ptr_to_int`/`tt.int_to_ptr`); an `int64` becomes a pointer
/// (`tt.int_to_ptr`, whose verifier takes 64-bit integers only).
fn cast_to_pointer(
    cx: &mut LowerCx<'_>,
    t: TensorValue,
    to: tritonc_ir::PtrType,
    span: Span,
) -> Result<TensorValue, Diagnostic> {
    match t.ty.elem() {
        Elem::Ptr(from) if from == to => Ok(t),
        Elem::Ptr(from) => {
            if from.addr_space != to.addr_space {
                return Err(err(
                    codes::INVALID_CAST,
                    span,
                    format!(
                        "cannot cast a pointer in address space {} to address space {}",
                        from.addr_space, to.addr_space
                    ),
                ));
            }
            let mut b = cx.builder(span);
            let addr = b.ptr_to_int(t.id);
            let id = b.int_to_ptr(addr, to.pointee);
            Ok(cx.tensor(id))
        }
        Elem::DType(DType::I64) => {
            let id = cx.builder(span).int_to_ptr(t.id, to.pointee);
            Ok(cx.tensor(id))
        }
        Elem::DType(d) if d.is_var() => Err(err(
            codes::INVALID_CAST,
            span,
            format!("a cast of `{d}` to a pointer needs its dtype (int64) known"),
        )),
        Elem::DType(d) => Err(err(
            codes::INVALID_CAST,
            span,
            format!("cannot cast `{d}` to a pointer: only `int64` converts to a pointer"),
        )
        .with_note("Triton 3.6 emits `tt.int_to_ptr`, whose operand must be a 64-bit integer")
        .with_help("convert to `tl.int64` first")),
    }
}

fn reduce(cx: &mut LowerCx<'_>, call: &BuiltinCall, which: &str) -> R {
    let b = call.bind(&[
        "input",
        "axis",
        "return_indices",
        "return_indices_tie_break_left",
        "keep_dims",
    ])?;
    let x = call.required(&b, 0, "input")?;
    let mut t = expect_tensor(cx, &x)?;
    if which != "sum"
        && b[2]
            .as_ref()
            .is_some_and(|a| matches!(&a.0, SemaValue::Const(c) if c.truthy()))
    {
        return Err(err(
            codes::UNSUPPORTED_TL_OP,
            call.span,
            "`return_indices=True` is not yet supported by tritonc",
        ));
    }
    let keep_dims = match &b[4] {
        Some(a) => expect_const(a, "`keep_dims`")?.truthy(),
        None => false,
    };
    let d =
        t.ty.dtype()
            .ok_or_else(|| err(codes::INVALID_OPERAND, x.1, "cannot reduce pointers"))?;
    let rd = promote::reduction_result(which, d).map_err(|e| err(e.code, call.span, e.message))?;
    t = arith::cast(cx, t, rd, call.span)?;
    if !t.is_block() {
        return Ok(SemaValue::Tensor(t));
    }
    let axis = match &b[1] {
        None => None,
        Some((SemaValue::Const(Constexpr::None), _)) => None,
        Some(a) => Some(expect_int(a, "the reduction axis")?),
    };
    let rank = t.ty.rank() as i128;
    let axis = match axis {
        None => {
            if rank != 1 {
                let n = t.ty.numel().unwrap_or(0);
                let id = cx.builder(call.span).reshape(t.id, &[n], true);
                t = cx.tensor(id);
            }
            0
        }
        Some(a) => {
            let a2 = if a < 0 { a + rank } else { a };
            if !(0..rank).contains(&a2) {
                return Err(err(
                    codes::INVALID_AXIS,
                    b[1].as_ref().map_or(call.span, |x| x.1),
                    format!("axis {a} is out of range for `{}`", t.ty),
                ));
            }
            a2 as u32
        }
    };
    let f = rd.is_float();
    let signed = rd.is_signed();
    let op = match (which, f, signed) {
        ("sum", true, _) => BinaryOp::AddF,
        ("sum", false, _) => BinaryOp::AddI,
        ("max", true, _) => BinaryOp::MaxNumF,
        ("max", false, true) => BinaryOp::MaxSI,
        ("max", false, false) => BinaryOp::MaxUI,
        ("min", true, _) => BinaryOp::MinNumF,
        ("min", false, true) => BinaryOp::MinSI,
        _ => BinaryOp::MinUI,
    };
    let results = cx
        .builder(call.span)
        .reduce_with(&[t.id], axis, |bb, l, r| vec![bb.binary(op, l[0], r[0])]);
    let mut out = cx.tensor(results[0]);
    if keep_dims {
        let id = if out.is_block() {
            cx.builder(call.span).expand_dims(out.id, axis)
        } else {
            cx.builder(call.span).splat(out.id, &[1])
        };
        out = cx.tensor(id);
    }
    Ok(SemaValue::Tensor(out))
}

pub(super) fn sum(cx: &mut LowerCx<'_>, call: &BuiltinCall) -> R {
    reduce(cx, call, "sum")
}

pub(super) fn max(cx: &mut LowerCx<'_>, call: &BuiltinCall) -> R {
    reduce(cx, call, "max")
}

pub(super) fn min(cx: &mut LowerCx<'_>, call: &BuiltinCall) -> R {
    reduce(cx, call, "min")
}

pub(super) fn math_unary(cx: &mut LowerCx<'_>, call: &BuiltinCall) -> R {
    let b = call.bind(&["x"])?;
    let x = call.required(&b, 0, "x")?;
    let t = expect_tensor(cx, &x)?;
    let name = call.name();
    let d = t.ty.dtype().ok_or_else(|| {
        err(
            codes::INVALID_OPERAND,
            x.1,
            format!("`tl.{name}` of a pointer"),
        )
    })?;
    promote::math_result(name, d)
        .unwrap_or(Ok(d))
        .map_err(|e| {
            Diagnostic::error(e.code, e.message)
                .with_primary(x.1, "")
                .with_help("convert first: `x.to(tl.float32)`")
        })?;
    let op = match name {
        "exp" => MathOp::Exp,
        "exp2" => MathOp::Exp2,
        "log" => MathOp::Log,
        "log2" => MathOp::Log2,
        "sqrt" => MathOp::Sqrt,
        "rsqrt" => MathOp::Rsqrt,
        "sin" => MathOp::Sin,
        "cos" => MathOp::Cos,
        "erf" => MathOp::Erf,
        "floor" => MathOp::Floor,
        "ceil" => MathOp::Ceil,
        _ if d.is_float() => MathOp::AbsF,
        _ if d.is_unsigned() || d == DType::I1 => return Ok(SemaValue::Tensor(t)),
        _ => MathOp::AbsI,
    };
    let id = cx.builder(call.span).math(op, t.id);
    Ok(SemaValue::Tensor(cx.tensor(id)))
}

fn min_max_elementwise(cx: &mut LowerCx<'_>, call: &BuiltinCall, kind: BinaryKind) -> R {
    let b = call.bind(&["x", "y", "propagate_nan"])?;
    let x = call.required(&b, 0, "x")?;
    let y = call.required(&b, 1, "y")?;
    if let Some(a) = &b[2] {
        if !matches!(&a.0, SemaValue::Const(Constexpr::None)) {
            return Err(err(
                codes::UNSUPPORTED_TL_OP,
                a.1,
                "`propagate_nan` is not yet supported by tritonc",
            ));
        }
    }
    Ok(SemaValue::Tensor(arith::binary(
        cx, kind, x.0, y.0, call.span,
    )?))
}

pub(super) fn maximum(cx: &mut LowerCx<'_>, call: &BuiltinCall) -> R {
    min_max_elementwise(cx, call, BinaryKind::Maximum)
}

pub(super) fn minimum(cx: &mut LowerCx<'_>, call: &BuiltinCall) -> R {
    min_max_elementwise(cx, call, BinaryKind::Minimum)
}

pub(super) fn expand_dims(cx: &mut LowerCx<'_>, call: &BuiltinCall) -> R {
    let b = call.bind(&["input", "axis"])?;
    let mut t = expect_tensor(cx, &call.required(&b, 0, "input")?)?;
    let a = call.required(&b, 1, "axis")?;
    let axes: Vec<i128> = match expect_const(&a, "the axis")? {
        Constexpr::Tuple(items) => items
            .iter()
            .map(|i| i.as_int().unwrap_or(i128::MAX))
            .collect(),
        c => vec![c
            .as_int()
            .ok_or_else(|| err(codes::INVALID_AXIS, a.1, "the axis must be an int"))?],
    };
    let new_rank = t.ty.rank() as i128 + axes.len() as i128;
    let mut norm: Vec<u32> = Vec::new();
    for ax in axes {
        let n = if ax < 0 { ax + new_rank } else { ax };
        if !(0..new_rank).contains(&n) {
            return Err(err(
                codes::INVALID_AXIS,
                a.1,
                format!("axis {ax} is out of range for a result of rank {new_rank}"),
            ));
        }
        norm.push(n as u32);
    }
    norm.sort_unstable();
    for ax in norm {
        let id = if t.is_block() {
            cx.builder(call.span).expand_dims(t.id, ax)
        } else {
            cx.builder(call.span).splat(t.id, &[1])
        };
        t = cx.tensor(id);
    }
    Ok(SemaValue::Tensor(t))
}

pub(super) fn broadcast_to(cx: &mut LowerCx<'_>, call: &BuiltinCall) -> R {
    let b = call.bind(&["input", "shape"])?;
    let t = expect_tensor(cx, &call.required(&b, 0, "input")?)?;
    let mut shape_args: Vec<(SemaValue, Span)> = call.args.clone();
    if call.receiver.is_none() && !shape_args.is_empty() {
        shape_args.remove(0);
    }
    let shape = if shape_args.len() > 1 {
        let dims: Vec<i128> = shape_args
            .iter()
            .map(|a| expect_int(a, "a shape dim"))
            .collect::<Result<_, _>>()?;
        validate_shape(&dims, call.span)?
    } else {
        shape_arg(&call.required(&b, 1, "shape")?)?
    };
    Ok(SemaValue::Tensor(arith::broadcast_to_shape(
        cx, t, &shape, call.span,
    )?))
}

/// `tl.assume(cond)`: a hint that a scalar condition holds. Triton 3.6 emits
/// `llvm.intr.assume`, which takes one `i1`; a block or a non-bool scalar fails its
/// verifier. tritonc checks the operand the same way and keeps no op (the hint only
/// enables optimizations; dropping it changes no result of a kernel whose assumption holds).
pub(super) fn assume(cx: &mut LowerCx<'_>, call: &BuiltinCall) -> R {
    let b = call.bind(&["cond"])?;
    let c = call.required(&b, 0, "cond")?;
    let t = expect_tensor(cx, &c)?;
    let ok_dtype = t.ty.dtype().is_some_and(|d| d == DType::I1 || d.is_var());
    if t.ty.rank() != 0 || !ok_dtype {
        return Err(err(
            codes::INVALID_OPERAND,
            c.1,
            format!("`tl.assume` takes a scalar bool condition, got `{}`", t.ty),
        )
        .with_note("Triton 3.6 lowers it to `llvm.intr.assume`, whose operand is one `i1`"));
    }
    Ok(SemaValue::Const(Constexpr::None))
}

fn hint(cx: &mut LowerCx<'_>, call: &BuiltinCall, set: fn(&mut Hints, Vec<u64>)) -> R {
    let b = call.bind(&["input", "values"])?;
    let t = expect_tensor(cx, &call.required(&b, 0, "input")?)?;
    let a = call.required(&b, 1, "values")?;
    if let SemaValue::Const(c) = &a.0 {
        if crate::symbolic::is_symbolic(c) {
            // Generic analysis: a hint of an unknown amount says nothing; the value stays.
            return Ok(SemaValue::Tensor(t));
        }
    }
    let vals: Vec<i128> = match expect_const(&a, "hint values")? {
        Constexpr::Tuple(items) => items.iter().map(|i| i.as_int().unwrap_or(0)).collect(),
        c => vec![c
            .as_int()
            .ok_or_else(|| err(codes::INVALID_OPERAND, a.1, "hint values must be ints"))?],
    };
    let rank = t.ty.rank().max(1);
    if vals.len() != rank {
        return Err(err(
            codes::INVALID_OPERAND,
            a.1,
            format!(
                "`tl.{}` needs {rank} value(s), one per dim, got {}",
                call.name(),
                vals.len()
            ),
        ));
    }
    if vals.iter().any(|v| *v <= 0) {
        return Err(err(
            codes::INVALID_OPERAND,
            a.1,
            "hint values must be positive",
        ));
    }
    let mut h = Hints::default();
    set(&mut h, vals.iter().map(|v| *v as u64).collect());
    let id = cx.builder(call.span).hint(t.id, h);
    Ok(SemaValue::Tensor(cx.tensor(id)))
}

pub(super) fn multiple_of(cx: &mut LowerCx<'_>, call: &BuiltinCall) -> R {
    hint(cx, call, |h, v| h.divisibility = Some(v))
}

pub(super) fn max_contiguous(cx: &mut LowerCx<'_>, call: &BuiltinCall) -> R {
    hint(cx, call, |h, v| h.contiguity = Some(v))
}

pub(super) fn max_constancy(cx: &mut LowerCx<'_>, call: &BuiltinCall) -> R {
    hint(cx, call, |h, v| h.constancy = Some(v))
}

pub(super) fn static_assert(_cx: &mut LowerCx<'_>, call: &BuiltinCall) -> R {
    let b = call.bind(&["cond", "msg"])?;
    let c = call.required(&b, 0, "cond")?;
    let cond = expect_const(&c, "the `tl.static_assert` condition")?;
    if cond.truthy() {
        return Ok(SemaValue::Const(Constexpr::None));
    }
    let msg = match &b[1] {
        Some((SemaValue::Const(Constexpr::Str(s)), _)) => format!(": {s}"),
        _ => String::new(),
    };
    Err(Diagnostic::error(
        codes::STATIC_ASSERT_FAILED,
        format!("static assertion failed{msg}"),
    )
    .with_primary(c.1, "false for this specialization"))
}

pub(super) fn static_print(_cx: &mut LowerCx<'_>, _call: &BuiltinCall) -> R {
    // Compile-time printing has no effect on the IR.
    Ok(SemaValue::Const(Constexpr::None))
}

pub(super) fn device_assert(cx: &mut LowerCx<'_>, call: &BuiltinCall) -> R {
    super::debug::device_assert(cx, call)
}

pub(super) fn cdiv(cx: &mut LowerCx<'_>, call: &BuiltinCall) -> R {
    let b = call.bind(&["x", "div"])?;
    let x = call.required(&b, 0, "x")?;
    let d = call.required(&b, 1, "div")?;
    if let (SemaValue::Const(a), SemaValue::Const(c)) = (&x.0, &d.0) {
        return calls::call(
            &Constexpr::builtin("triton.language.cdiv"),
            &[a.clone(), c.clone()],
            &[],
            call.span,
            call.func_span,
        )
        .map(SemaValue::Const);
    }
    // (x + div - 1) // div with C-style division on tensors, as tl.cdiv's body computes it.
    let s = arith::binary(cx, BinaryKind::Add, x.0, d.0.clone(), call.span)?;
    let s = arith::binary(
        cx,
        BinaryKind::Sub,
        SemaValue::Tensor(s),
        SemaValue::Const(Constexpr::Int(1)),
        call.span,
    )?;
    Ok(SemaValue::Tensor(arith::binary(
        cx,
        BinaryKind::FloorDiv,
        SemaValue::Tensor(s),
        d.0,
        call.span,
    )?))
}

pub(super) fn constexpr_(_cx: &mut LowerCx<'_>, call: &BuiltinCall) -> R {
    let b = call.bind(&["value"])?;
    let v = call.required(&b, 0, "value")?;
    Ok(SemaValue::Const(expect_const(&v, "`tl.constexpr(...)`")?))
}

/// `tl.pointer_type(dtype, address_space=1)`: a pointer dtype (for `x.to(...)`).
pub(super) fn pointer_type(_cx: &mut LowerCx<'_>, call: &BuiltinCall) -> R {
    let b = call.bind(&["element_ty", "address_space"])?;
    let mut args = vec![expect_const(
        &call.required(&b, 0, "element_ty")?,
        "`tl.pointer_type`'s dtype",
    )?];
    if let Some(a) = &b[1] {
        args.push(expect_const(a, "`tl.pointer_type`'s address space")?);
    }
    call_on_constants(call, &args)
}

pub(super) fn host_helper(_cx: &mut LowerCx<'_>, call: &BuiltinCall) -> R {
    let args = call
        .args
        .iter()
        .map(|a| expect_const(a, &format!("an argument of `{}`", call.path)))
        .collect::<Result<Vec<_>, _>>()?;
    call_on_constants(call, &args)
}

/// `call`'s builtin evaluated by the constexpr evaluator on constant `args`.
fn call_on_constants(call: &BuiltinCall, args: &[Constexpr]) -> R {
    calls::call(
        &Constexpr::Builtin(call.path.clone()),
        args,
        &[],
        call.span,
        call.func_span,
    )
    .map(SemaValue::Const)
}

/// Python builtins inside kernels: compile-time on constants; `min`/`max` of runtime values
/// map to `tl.minimum`/`tl.maximum`.
pub(super) fn python_builtin(cx: &mut LowerCx<'_>, call: &BuiltinCall, name: &str) -> R {
    if name == "isinstance" {
        return isinstance(call);
    }
    let all_const =
        call.args.iter().all(|a| matches!(a.0, SemaValue::Const(_))) && call.kwargs.is_empty();
    if all_const {
        let args: Vec<Constexpr> = call
            .args
            .iter()
            .filter_map(|a| a.0.as_const().cloned())
            .collect();
        return calls::call(
            &Constexpr::Builtin(call.path.clone()),
            &args,
            &[],
            call.span,
            call.func_span,
        )
        .map(SemaValue::Const);
    }
    match name {
        "min" | "max" if call.args.len() >= 2 => {
            let kind = if name == "min" {
                BinaryKind::Minimum
            } else {
                BinaryKind::Maximum
            };
            let mut acc = call.args[0].0.clone();
            for a in &call.args[1..] {
                acc = SemaValue::Tensor(arith::binary(cx, kind, acc, a.0.clone(), call.span)?);
            }
            Ok(acc)
        }
        "float" | "int" => Err(err(
            codes::UNSUPPORTED_CONSTRUCT,
            call.span,
            format!("`{name}()` of a runtime value is not supported; use `.to(...)`"),
        )),
        "print" => Err(err(
            codes::UNSUPPORTED_TL_OP,
            call.func_span,
            "`print` (`tl.device_print`) is not yet supported by tritonc",
        )),
        _ => Err(err(
            codes::NOT_CONSTEXPR,
            call.span,
            format!("`{name}()` needs compile-time arguments"),
        )),
    }
}

/// `isinstance(value, cls)`: decided at compile time, as Triton 3.6 decides it
/// ([`crate::constexpr::isinstance`]).
fn isinstance(call: &BuiltinCall) -> R {
    use crate::constexpr::isinstance::{isinstance, Subject};
    if call.args.len() != 2 || !call.kwargs.is_empty() {
        return Err(err(
            codes::BAD_ARGUMENTS,
            call.span,
            "`isinstance()` takes a value and a class",
        ));
    }
    let subject = match &call.args[0].0 {
        SemaValue::Const(c) => Subject::Const(c),
        SemaValue::Tensor(_) => Subject::Tensor,
        SemaValue::TensorDesc(_) => Subject::TensorDescriptor,
        _ => {
            return Err(err(
                codes::NOT_CONSTEXPR,
                call.args[0].1,
                "`isinstance()` of this value is not answered by tritonc",
            ))
        }
    };
    let Some(cls) = call.args[1].0.as_const() else {
        return Err(err(
            codes::NOT_CONSTEXPR,
            call.args[1].1,
            "the class of `isinstance()` must be known at compile time",
        ));
    };
    isinstance(subject, cls)
        .map(|b| SemaValue::Const(Constexpr::Bool(b)))
        .map_err(|m| err(codes::NOT_CONSTEXPR, call.args[1].1, m))
}
