//! Attribute access, methods and subscripts on compile-time values: module members,
//! dtype introspection (`x.dtype.is_fp16()`, `ptr.dtype.element_ty`), host-object fields
//! (`x.shape`), tuple and string indexing.

use std::sync::Arc;

use tritonc_diagnostics::{Diagnostic, Span};
use tritonc_ir::{DType, Elem};

use crate::builtins::names;
use crate::codes;
use crate::value::Constexpr;

use super::const_error;

/// Zero-argument predicates of `tl.dtype`, by method name.
const DTYPE_PREDICATES: &[&str] = &[
    "is_fp8",
    "is_fp8e4nv",
    "is_fp8e4b8",
    "is_fp8e4b15",
    "is_fp8e5",
    "is_fp8e5b16",
    "is_fp16",
    "is_bf16",
    "is_fp32",
    "is_fp64",
    "is_int1",
    "is_int8",
    "is_int16",
    "is_int32",
    "is_int64",
    "is_uint8",
    "is_uint16",
    "is_uint32",
    "is_uint64",
    "is_floating",
    "is_standard_floating",
    "is_int_signed",
    "is_int_unsigned",
    "is_int",
    "is_bool",
    "is_void",
    "is_block",
    "is_ptr",
    "is_const",
];

fn no_attr(v: &Constexpr, attr: &str, span: Span) -> Diagnostic {
    Diagnostic::error(
        codes::UNKNOWN_ATTRIBUTE,
        format!("`{}` object has no attribute `{attr}`", v.type_name()),
    )
    .with_primary(span, "no such attribute")
}

/// `value.attr` for a compile-time value.
pub fn get_attr(value: &Constexpr, attr: &str, span: Span) -> Result<Constexpr, Diagnostic> {
    match value {
        // An attribute of an unknown value is unknown (`dtype.element_ty`, `opaque.fn`).
        Constexpr::Symbolic(s) => Ok(crate::value::Symbolic::constexpr(
            format!("{}.{attr}", s.name),
            crate::value::SymbolicKind::Any,
        )),
        Constexpr::Module(path) => match names::module_attr(path, attr) {
            Ok(Some(v)) => Ok(v),
            Ok(None) => Err(unknown_module_attr(path, attr, span)),
            Err(names::UnmodelledModule) => Err(Diagnostic::error(
                codes::UNSUPPORTED_CONSTRUCT,
                format!("`{path}.{attr}` is outside the modules tritonc models"),
            )
            .with_primary(span, "")),
        },
        // A dtype handed to a `@jit` helper arrives there as `tl.constexpr(dtype)`, whose
        // `.value` is the dtype (tests/fixtures/triton/coverage.json,
        // `dtype_value_in_helper`); tritonc does not tell the wrapper from the dtype.
        Constexpr::DType(_) if attr == "value" => Ok(value.clone()),
        Constexpr::DType(e) => dtype_attr(value, *e, attr, span),
        Constexpr::Object(o) => o
            .fields
            .get(attr)
            .cloned()
            .ok_or_else(|| no_attr(value, attr, span)),
        // `(n - 1).bit_length()`, as `next_power_of_2`-style helpers write it
        // (coverage.json, `bit_length_in_*`).
        Constexpr::Int(_) | Constexpr::Bool(_) if attr == "bit_length" => Ok(
            Constexpr::BoundMethod(Box::new(value.clone()), Arc::from(attr)),
        ),
        // `tl.constexpr(v).value`: compile-time values are already unwrapped.
        _ if attr == "value" => Ok(value.clone()),
        _ => Err(no_attr(value, attr, span)),
    }
}

/// The diagnostic for `tl.X` (or another modelled module) when `X` does not exist.
pub fn unknown_module_attr(module: &str, attr: &str, span: Span) -> Diagnostic {
    let is_tl = module.starts_with("triton.language");
    let code = if is_tl {
        codes::UNKNOWN_TL_OP
    } else {
        codes::UNKNOWN_ATTRIBUTE
    };
    let shown = if module == "triton.language" {
        "tl".to_string()
    } else {
        module.to_string()
    };
    let mut d = Diagnostic::error(
        code,
        format!("`{shown}.{attr}` does not exist in Triton 3.6"),
    )
    .with_primary(span, format!("`{module}` has no `{attr}`"));
    if is_tl {
        if let Some(s) = names::did_you_mean(attr, names::all_tl_names()) {
            d = d.with_help(format!("did you mean `{shown}.{s}`?"));
        }
    }
    d
}

fn dtype_attr(value: &Constexpr, e: Elem, attr: &str, span: Span) -> Result<Constexpr, Diagnostic> {
    let d = e.dtype();
    let int = |v: Option<u32>| v.map(|v| Constexpr::Int(v as i128));
    let r = match attr {
        "element_ty" => match e {
            Elem::Ptr(p) => Some(Constexpr::dtype(p.pointee)),
            Elem::DType(_) => None,
        },
        "address_space" => match e {
            Elem::Ptr(p) => Some(Constexpr::Int(p.addr_space as i128)),
            Elem::DType(_) => None,
        },
        "primitive_bitwidth" => int(e.bitwidth()),
        "itemsize" => int(e.bitwidth().map(|b| b.div_ceil(8))),
        "int_bitwidth" => int(d.filter(|d| d.is_int()).and_then(DType::bitwidth)),
        "fp_mantissa_width" => int(d.and_then(DType::fp_mantissa_width)),
        "name" => d
            .and_then(DType::triton_name)
            .map(|n| Constexpr::Str(n.into())),
        "scalar" => Some(value.clone()),
        m if DTYPE_PREDICATES.contains(&m) || m == "to_int_type" || m == "with_element_ty" => Some(
            Constexpr::BoundMethod(Box::new(value.clone()), Arc::from(m)),
        ),
        _ => None,
    };
    r.ok_or_else(|| no_attr(value, attr, span))
}

/// Calls a method bound to a compile-time value.
pub fn call_method(
    recv: &Constexpr,
    method: &str,
    args: &[Constexpr],
    span: Span,
) -> Result<Constexpr, Diagnostic> {
    if let (Some(n), "bit_length") = (recv.as_int(), method) {
        if !args.is_empty() {
            return Err(Diagnostic::error(
                codes::BAD_ARGUMENTS,
                "`int.bit_length()` takes no arguments",
            )
            .with_primary(span, ""));
        }
        // Python's: the bits of |n| without leading zeros (0 for 0).
        return Ok(Constexpr::Int(
            (128 - n.unsigned_abs().leading_zeros()) as i128,
        ));
    }
    let Constexpr::DType(e) = recv else {
        return Err(no_attr(recv, method, span));
    };
    if DTYPE_PREDICATES.contains(&method) {
        if !args.is_empty() {
            return Err(Diagnostic::error(
                codes::BAD_ARGUMENTS,
                format!("`dtype.{method}()` takes no arguments"),
            )
            .with_primary(span, ""));
        }
        return Ok(Constexpr::Bool(dtype_predicate(*e, method)));
    }
    match (method, e.dtype()) {
        ("to_int_type", Some(d)) => d
            .bitwidth()
            .and_then(|b| DType::int_of_width(b, true))
            .map(Constexpr::dtype)
            .ok_or_else(|| const_error(span, format!("{recv} has no integer type of its width"))),
        _ => Err(no_attr(recv, method, span)),
    }
}

fn dtype_predicate(e: Elem, method: &str) -> bool {
    use DType::*;
    let Some(d) = e.dtype() else {
        return method == "is_ptr";
    };
    match method {
        "is_fp8" => d.is_fp8(),
        "is_fp8e4nv" => d == F8E4M3FN,
        "is_fp8e4b8" => d == F8E4M3FNUZ,
        "is_fp8e4b15" => d == F8E4M3B11FNUZ,
        "is_fp8e5" => d == F8E5M2,
        "is_fp8e5b16" => d == F8E5M2FNUZ,
        "is_fp16" => d == F16,
        "is_bf16" => d == BF16,
        "is_fp32" => d == F32,
        "is_fp64" => d == F64,
        "is_int1" | "is_bool" => d == I1,
        "is_int8" => d == I8,
        "is_int16" => d == I16,
        "is_int32" => d == I32,
        "is_int64" => d == I64,
        "is_uint8" => d == U8,
        "is_uint16" => d == U16,
        "is_uint32" => d == U32,
        "is_uint64" => d == U64,
        "is_floating" => d.is_float(),
        "is_standard_floating" => matches!(d, F16 | BF16 | F32 | F64),
        // Triton counts int1 as unsigned (it is in `dtype.UINT_TYPES`).
        "is_int_signed" => d.is_signed(),
        "is_int_unsigned" => d.is_unsigned() || d == I1,
        "is_int" => d.is_int(),
        _ => false,
    }
}

/// Python's index normalization: negative indices count from the end.
fn normalize_index(i: i128, len: usize, span: Span, what: &str) -> Result<usize, Diagnostic> {
    let n = len as i128;
    let j = if i < 0 { i + n } else { i };
    if (0..n).contains(&j) {
        Ok(j as usize)
    } else {
        Err(const_error(
            span,
            format!("IndexError: {what} index {i} out of range (length {len})"),
        ))
    }
}

/// `value[index]` for compile-time values.
pub fn subscript(
    value: &Constexpr,
    index: &Constexpr,
    span: Span,
) -> Result<Constexpr, Diagnostic> {
    if crate::symbolic::is_symbolic(value) || crate::symbolic::is_symbolic(index) {
        return Ok(crate::value::Symbolic::constexpr(
            format!("{value}[{index}]"),
            crate::value::SymbolicKind::Any,
        ));
    }
    match (value, index) {
        (Constexpr::Tuple(items), i) if i.as_int().is_some() => {
            let k = normalize_index(i.as_int().unwrap_or(0), items.len(), span, "tuple")?;
            Ok(items[k].clone())
        }
        (Constexpr::Str(s), i) if i.as_int().is_some() => {
            let chars: Vec<char> = s.chars().collect();
            let k = normalize_index(i.as_int().unwrap_or(0), chars.len(), span, "string")?;
            Ok(Constexpr::Str(chars[k].to_string()))
        }
        (Constexpr::Object(o), Constexpr::Str(k)) => o.fields.get(k).cloned().ok_or_else(|| {
            const_error(
                span,
                format!("KeyError: '{k}' is not a field of the {}", o.type_name),
            )
        }),
        _ => Err(const_error(
            span,
            format!(
                "TypeError: `{}` object cannot be indexed by `{}`",
                value.type_name(),
                index.type_name()
            ),
        )),
    }
}
