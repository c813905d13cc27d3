//! Tensor descriptors: `tl.make_tensor_descriptor`, `desc.load(offsets)` /
//! `desc.store(offsets, value)` (and `tl.load_tensor_descriptor` /
//! `tl.store_tensor_descriptor`), `desc.block_shape`, `desc.dtype`, `desc.shape`,
//! `desc.strides`.
//!
//! A descriptor is a compile-time record ([`TensorDescValue`]) of IR values, as a block
//! pointer is. A load or store becomes a tensor of pointers with a boundary mask right
//! away, which is what Triton 3.6 itself does on targets without TMA (its
//! `triton-rewrite-tensor-descriptor-to-pointer` pass, recorded for sm_80 in
//! `tests/fixtures/triton/tensor_descriptor.json`): per dim `i`, the offsets
//! `offset_i + arange(0, block_i)` (i64) scaled by `stride_i` are added to the base, every
//! dim contributes `0 <= offsets < shape_i` to the mask, and a load fills the masked
//! elements with zero (or NaN with `padding_option="nan"`). On sm_90 Triton moves the same
//! block with TMA, which reads and writes the same elements and pads the same way; tritonc
//! lowers descriptors to pointer accesses on every target.
//!
//! Argument rules are Triton 3.6's `make_tensor_descriptor` / `descriptor_load` /
//! `descriptor_store`: one to five dims, the last stride the literal `1`, a last block
//! dim of at least 16 bytes, shapes made int32 scalars and strides int64 ones, offsets
//! 32-bit, a stored value of the block's shape converted to the descriptor's dtype.

use tritonc_diagnostics::{Diagnostic, Span};
use tritonc_ir::{CacheModifier, DType, Elem, EvictionPolicy, LoadOptions, Type};

use super::block_ptr::pointers_and_mask;
use super::core::string_arg;
use super::{arith, expect_const, expect_tensor, BuiltinCall, BuiltinFn};
use crate::codes;
use crate::lower::LowerCx;
use crate::value::{BlockPtrValue, Constexpr, SemaValue, TensorDescValue, TensorValue};

type R = Result<SemaValue, Diagnostic>;

/// The tensor-descriptor builtins, by short name.
pub(super) const BUILTINS: &[(&str, BuiltinFn)] = &[
    ("make_tensor_descriptor", make_tensor_descriptor),
    ("load_tensor_descriptor", load),
    ("store_tensor_descriptor", store),
];

/// The methods of Triton 3.6's `tl.tensor_descriptor`.
const METHODS: &[&str] = &[
    "load",
    "store",
    "atomic_add",
    "atomic_min",
    "atomic_max",
    "atomic_and",
    "atomic_or",
    "atomic_xor",
    "gather",
    "scatter",
];

fn bad(span: Span, msg: impl Into<String>) -> Diagnostic {
    Diagnostic::error(codes::INVALID_TENSOR_DESCRIPTOR, msg).with_primary(span, "")
}

fn items(a: &(SemaValue, Span)) -> Vec<(SemaValue, Span)> {
    match a.0.tuple_items() {
        Some(items) => items.into_iter().map(|v| (v, a.1)).collect(),
        None => vec![a.clone()],
    }
}

/// `desc.attr`.
pub fn attr(d: Box<TensorDescValue>, attr: &str, span: Span) -> Result<SemaValue, Diagnostic> {
    match attr {
        "block_shape" => Ok(SemaValue::Const(Constexpr::Tuple(
            d.block_shape
                .iter()
                .map(|n| Constexpr::Int(*n as i128))
                .collect(),
        ))),
        "dtype" => Ok(SemaValue::Const(Constexpr::dtype(d.dtype()))),
        "shape" => Ok(SemaValue::tuple(
            d.shape.iter().cloned().map(SemaValue::Tensor).collect(),
        )),
        "strides" => Ok(SemaValue::tuple(
            d.strides.iter().cloned().map(SemaValue::Tensor).collect(),
        )),
        m if METHODS.contains(&m) => Ok(SemaValue::TensorDescMethod(d, m.into())),
        _ => {
            let mut e = Diagnostic::error(
                codes::UNKNOWN_ATTRIBUTE,
                format!("a tensor descriptor has no attribute `{attr}`"),
            )
            .with_primary(span, "");
            if let Some(s) = super::names::did_you_mean(
                attr,
                METHODS
                    .iter()
                    .copied()
                    .chain(["block_shape", "dtype", "shape", "strides"]),
            ) {
                e = e.with_help(format!("did you mean `{s}`?"));
            }
            Err(e)
        }
    }
}

/// `desc.method(...)`: `load` and `store` as `tl.load_tensor_descriptor(desc, ...)` /
/// `tl.store_tensor_descriptor(desc, ...)`; the others are refused precisely.
pub fn call_method(
    cx: &mut LowerCx<'_>,
    d: Box<TensorDescValue>,
    method: &str,
    mut args: Vec<(SemaValue, Span)>,
    kwargs: Vec<(String, SemaValue, Span)>,
    span: Span,
    func_span: Span,
) -> R {
    let path =
        match method {
            "load" => "triton.language.load_tensor_descriptor",
            "store" => "triton.language.store_tensor_descriptor",
            _ => return Err(Diagnostic::error(
                codes::UNSUPPORTED_TL_OP,
                format!("the tensor-descriptor method `.{method}` is not yet supported by tritonc"),
            )
            .with_primary(func_span, "valid Triton 3.6, not lowered yet")
            .with_note(
                "tritonc lowers tensor-descriptor `load` and `store` (as bounds-checked pointer \
                 accesses); atomics, `gather` and `scatter` through descriptors are not lowered",
            )
            .with_help(
                "use `tl.atomic_*` or `tl.load`/`tl.store` on pointers, or compile this kernel \
                 with upstream Triton",
            )),
        };
    args.insert(0, (SemaValue::TensorDesc(d), func_span));
    let call = BuiltinCall {
        path: path.into(),
        receiver: None,
        args,
        kwargs,
        span,
        func_span,
    };
    super::dispatch(cx, &call)
}

/// A shape entry: an int32 scalar (Triton's `make_scalar(x, tl.int32)`), or a stride
/// entry: an int64 scalar.
fn scalar(
    cx: &mut LowerCx<'_>,
    a: &(SemaValue, Span),
    dtype: DType,
    what: &str,
) -> Result<TensorValue, Diagnostic> {
    match &a.0 {
        SemaValue::Const(c) if c.as_int().is_some() && !matches!(c, Constexpr::Bool(_)) => {
            let v = c.as_int().expect("checked above");
            let bits = if dtype == DType::I32 { 32 } else { 64 };
            if !(-(1i128 << (bits - 1))..(1i128 << (bits - 1))).contains(&v) {
                return Err(bad(
                    a.1,
                    format!("tensor descriptor {what} are int{bits}: {v} does not fit"),
                ));
            }
            arith::constant(cx, c, dtype, a.1)
        }
        SemaValue::Tensor(t)
            if !t.is_block() && t.ty.dtype().is_some_and(|d| d.is_int() && d != DType::I1) =>
        {
            arith::cast(cx, t.clone(), dtype, a.1)
        }
        other => Err(bad(
            a.1,
            format!(
                "tensor descriptor {what} must be integer scalars, not {}",
                other.describe()
            ),
        )),
    }
}

fn make_tensor_descriptor(cx: &mut LowerCx<'_>, call: &BuiltinCall) -> R {
    let b = call.bind(&["base", "shape", "strides", "block_shape", "padding_option"])?;
    let base_a = call.required(&b, 0, "base")?;
    let shape_a = call.required(&b, 1, "shape")?;
    let strides_a = call.required(&b, 2, "strides")?;
    let block_a = call.required(&b, 3, "block_shape")?;
    let base = expect_tensor(cx, &base_a)?;
    let Elem::Ptr(pt) = base.ty.elem() else {
        return Err(bad(
            base_a.1,
            format!(
                "the base of a tensor descriptor must be a pointer, not `{}`",
                base.ty
            ),
        ));
    };
    if base.is_block() {
        return Err(bad(
            base_a.1,
            format!(
                "the base of a tensor descriptor must be a scalar pointer, not the block `{}`",
                base.ty
            ),
        ));
    }
    let shape_items = items(&shape_a);
    let stride_items = items(&strides_a);
    let block_items = items(&block_a);
    let ndim = shape_items.len();
    if !(1..=5).contains(&ndim) {
        return Err(bad(
            shape_a.1,
            format!("Expected 1 <= ndim <= 5 but got {ndim} dimensions"),
        ));
    }
    if stride_items.len() != ndim {
        return Err(bad(
            strides_a.1,
            format!("Expected {ndim} strides but got {}", stride_items.len()),
        ));
    }
    if block_items.len() != ndim {
        return Err(bad(
            block_a.1,
            format!(
                "Expected block_shape to have {ndim} dimensions but got {}",
                block_items.len()
            ),
        ));
    }
    let mut block = Vec::new();
    for x in &block_items {
        let c = expect_const(x, "`block_shape` entries")?;
        block.push(c.as_int().ok_or_else(|| {
            bad(
                x.1,
                format!("`block_shape` entries must be ints, not {}", c.type_name()),
            )
        })?);
    }
    // Triton checks the bytes of the last block dim first (bool elements count 0 bytes).
    let elem_bytes = pt.pointee.bitwidth().unwrap_or(0) / 8;
    let contig = block[ndim - 1];
    if contig * i128::from(elem_bytes) < 16 {
        return Err(bad(
            block_items[ndim - 1].1,
            format!(
                "Descriptor block shape must have at least 16 bytes in the last dimension, but \
                 got {contig} * {elem_bytes} = {} bytes",
                contig * i128::from(elem_bytes)
            ),
        ));
    }
    let last = &stride_items[ndim - 1];
    match last.0.as_const().and_then(Constexpr::as_int) {
        Some(1) if !matches!(last.0, SemaValue::Const(Constexpr::Bool(_))) => {}
        _ => {
            return Err(bad(
                last.1,
                format!(
                    "Tensor descriptor last dim must be 1 but got {}",
                    match &last.0 {
                        SemaValue::Const(c) => c.to_string(),
                        other => other.describe(),
                    }
                ),
            )
            .with_note(
                "the last dim must be contiguous, and Triton 3.6 requires the literal `1` there",
            ))
        }
    }
    let shape = shape_items
        .iter()
        .map(|x| scalar(cx, x, DType::I32, "shapes"))
        .collect::<Result<Vec<_>, _>>()?;
    let strides = stride_items
        .iter()
        .map(|x| scalar(cx, x, DType::I64, "strides"))
        .collect::<Result<Vec<_>, _>>()?;
    let block = super::core::validate_shape(&block, block_a.1)?;
    let padding_nan = match string_arg(&b[4], "`padding_option`")? {
        None => false,
        Some((s, span)) => match s.as_str() {
            "zero" => false,
            "nan" if pt.pointee.is_int() => {
                return Err(bad(
                    span,
                    "Padding option `nan` is not supported for integer blocks",
                ))
            }
            "nan" => true,
            _ => {
                return Err(bad(
                    span,
                    format!("unknown `padding_option` \"{s}\"; expected \"zero\" or \"nan\""),
                ))
            }
        },
    };
    Ok(SemaValue::TensorDesc(Box::new(TensorDescValue {
        base,
        shape,
        strides,
        block_shape: block,
        padding_nan,
    })))
}

fn desc_arg(a: &(SemaValue, Span), what: &str) -> Result<TensorDescValue, Diagnostic> {
    match &a.0 {
        SemaValue::TensorDesc(d) => Ok((**d).clone()),
        other => Err(bad(
            a.1,
            format!("{what} needs a tensor descriptor, got {}", other.describe()),
        )),
    }
}

/// The offsets of a load or store: one 32-bit int per dim (Triton's
/// `_convert_to_ir_values(offsets, require_i64=False)`), sign-extended to i64 as the
/// rewrite does.
fn offsets(
    cx: &mut LowerCx<'_>,
    d: &TensorDescValue,
    a: &(SemaValue, Span),
) -> Result<Vec<TensorValue>, Diagnostic> {
    let xs = items(a);
    if xs.len() != d.block_shape.len() {
        return Err(bad(
            a.1,
            format!(
                "expected {} offsets, but got {}",
                d.block_shape.len(),
                xs.len()
            ),
        ));
    }
    xs.iter()
        .map(|x| {
            let v = match &x.0 {
                SemaValue::Const(c) if c.as_int().is_some() && !matches!(c, Constexpr::Bool(_)) => {
                    let v = c.as_int().expect("checked above");
                    if !(-(1i128 << 31)..(1i128 << 31)).contains(&v) {
                        return Err(bad(
                            x.1,
                            format!("tensor descriptor offsets are 32-bit, got {v}"),
                        ));
                    }
                    arith::constant(cx, c, DType::I32, x.1)?
                }
                SemaValue::Tensor(t)
                    if !t.is_block()
                        && t.ty.dtype().is_some_and(|d| d.is_int() && d != DType::I1) =>
                {
                    if t.ty.dtype().and_then(DType::bitwidth) == Some(64) {
                        return Err(bad(
                            x.1,
                            format!("tensor descriptor offsets are 32-bit, not `{}`", t.ty),
                        )
                        .with_help("add `.to(tl.int32)`"));
                    }
                    arith::cast(cx, t.clone(), DType::I32, x.1)?
                }
                other => {
                    return Err(bad(
                        x.1,
                        format!(
                            "tensor descriptor offsets must be integer scalars, not {}",
                            other.describe()
                        ),
                    ))
                }
            };
            arith::cast(cx, v, DType::I64, x.1)
        })
        .collect()
}

/// The descriptor as the block pointer the rewrite would make of it at `offsets`.
fn as_block_ptr(
    cx: &mut LowerCx<'_>,
    d: &TensorDescValue,
    offsets: Vec<TensorValue>,
    span: Span,
) -> Result<BlockPtrValue, Diagnostic> {
    let shape = d
        .shape
        .iter()
        .map(|s| arith::cast(cx, s.clone(), DType::I64, span))
        .collect::<Result<Vec<_>, _>>()?;
    let rank = d.block_shape.len() as u32;
    Ok(BlockPtrValue {
        base: d.base.clone(),
        shape,
        strides: d.strides.clone(),
        offsets,
        block_shape: d.block_shape.clone(),
        order: (0..rank).rev().collect(),
    })
}

fn load(cx: &mut LowerCx<'_>, call: &BuiltinCall) -> R {
    let b = call.bind(&["desc", "offsets"])?;
    let d = desc_arg(&call.required(&b, 0, "desc")?, "`load_tensor_descriptor`")?;
    let offs = offsets(cx, &d, &call.required(&b, 1, "offsets")?)?;
    let p = as_block_ptr(cx, &d, offs, call.span)?;
    let all: Vec<usize> = (0..p.block_shape.len()).collect();
    let (ptr, mask) = pointers_and_mask(cx, &p, &all, call.span)?;
    let dtype = d.dtype();
    let ty = Type::tensor_of(&d.block_shape, dtype);
    let other = if dtype.is_float() {
        let v = if d.padding_nan { f64::NAN } else { 0.0 };
        cx.builder(call.span).const_float(v, ty)
    } else {
        cx.builder(call.span).const_int(0, ty)
    };
    let id = cx.builder(call.span).load(
        ptr.id,
        mask.map(|m| m.id),
        Some(other),
        LoadOptions {
            cache: CacheModifier::None,
            evict: EvictionPolicy::Normal,
            is_volatile: false,
        },
    );
    Ok(cx.tensor(id).into())
}

fn store(cx: &mut LowerCx<'_>, call: &BuiltinCall) -> R {
    let b = call.bind(&["desc", "offsets", "value"])?;
    let d = desc_arg(&call.required(&b, 0, "desc")?, "`store_tensor_descriptor`")?;
    let oa = call.required(&b, 1, "offsets")?;
    let va = call.required(&b, 2, "value")?;
    // Triton asserts `value.shape == desc.block_shape` before anything converts it: a
    // Python number or a scalar has no block shape.
    let v = match &va.0 {
        SemaValue::Tensor(t) if t.ty.known_shape().as_deref() == Some(&d.block_shape[..]) => {
            t.clone()
        }
        other => {
            return Err(bad(
                va.1,
                format!(
                    "the stored value must have the descriptor's block shape {:?}, got {}",
                    d.block_shape,
                    other.describe()
                ),
            ))
        }
    };
    // Unlike a block-pointer store, a descriptor store converts the value.
    let v = arith::cast(cx, v, d.dtype(), va.1)?;
    let offs = offsets(cx, &d, &oa)?;
    let p = as_block_ptr(cx, &d, offs, call.span)?;
    let all: Vec<usize> = (0..p.block_shape.len()).collect();
    let (ptr, mask) = pointers_and_mask(cx, &p, &all, call.span)?;
    cx.builder(call.span).store(
        ptr.id,
        v.id,
        mask.map(|m| m.id),
        CacheModifier::None,
        EvictionPolicy::Normal,
    );
    Ok(SemaValue::Const(Constexpr::None))
}
