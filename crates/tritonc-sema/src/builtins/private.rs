//! Names of `triton.language.core` and `triton.language.standard` that `triton.language`
//! itself does not export, as kernels reach them (`tl.standard._log2(N)`,
//! `from triton.language.standard import _log2`, `tl.core.get_int_dtype(16, False)`).
//!
//! The compile-time helpers are evaluated as Triton 3.6 evaluates them (its Python
//! source is quoted beside each; `tests/fixtures/triton/coverage.json`, the
//! `private_helper_*` cases, records Triton's results): `standard._log2`,
//! `standard._is_power_of_two`, `standard._get_int_dtype` / `core.get_int_dtype`,
//! `standard._pick_sum_dtype`, and `core.CONSTEXPR_0`. The `@jit` helpers of
//! `standard` (`_sum_combine`, `_argmax_combine_tie_break_left`, the bitonic-sort steps…)
//! are not modelled: a kernel that uses one gets E0302 at the use, naming the helper. Any
//! other name those modules have in Triton 3.6 is reported as outside what tritonc
//! models (E0317), never as a name that does not exist.

use tritonc_diagnostics::{Diagnostic, Span};
use tritonc_ir::DType;

use super::names::{tl_attr, UnmodelledModule};
use super::BuiltinCall;
use crate::codes;
use crate::constexpr::calls::py_str;
use crate::constexpr::const_error;
use crate::value::{Constexpr, SemaValue};

/// Public names of `triton.language.standard` in Triton 3.6 (each is also `tl.<name>`).
const STANDARD_PUBLIC: &[&str] = &[
    "argmax",
    "argmin",
    "bitonic_merge",
    "cdiv",
    "cumprod",
    "cumsum",
    "flip",
    "interleave",
    "max",
    "min",
    "ravel",
    "reduce_or",
    "sigmoid",
    "softmax",
    "sort",
    "sum",
    "swizzle2d",
    "topk",
    "xor_sum",
    "zeros",
    "zeros_like",
];

/// `@triton.constexpr_function` helpers of `triton.language.standard` tritonc evaluates.
const STANDARD_CONSTEXPR: &[&str] = &["_log2", "_is_power_of_two", "_get_int_dtype", "_pick_sum_dtype"];

/// `@jit` helpers of `triton.language.standard` (Triton 3.6) tritonc does not model.
const STANDARD_JIT: &[&str] = &[
    "_argmax_combine",
    "_argmax_combine_tie_break_fast",
    "_argmax_combine_tie_break_left",
    "_argmin_combine",
    "_argmin_combine_tie_break_fast",
    "_argmin_combine_tie_break_left",
    "_bitonic_merge",
    "_bitonic_merge_hypercube",
    "_compare_and_swap",
    "_elementwise_max",
    "_elementwise_min",
    "_indicator",
    "_or_combine",
    "_prod_combine",
    "_sum_combine",
    "_xor_combine",
    "sort_impl",
];

/// Names `triton.language.core` has in Triton 3.6 beyond `triton.language`'s
/// (`dir(core)` minus `dir(tl)`, dunders left out).
const CORE_ONLY: &[&str] = &[
    "CONSTEXPR_0",
    "Callable",
    "Enum",
    "JITCallable",
    "List",
    "Optional",
    "Sequence",
    "T",
    "TRITON_BUILTIN",
    "Tuple",
    "TypeVar",
    "Union",
    "_DtypeClass",
    "_NOTHING",
    "_add_atomic_docstr",
    "_add_reduction_docstr",
    "_add_scan_docstr",
    "_aggregate",
    "_aggregate_type",
    "_insertion_guard",
    "_normalize_tuple",
    "_promote_bfloat16_to_float32",
    "_reduce_with_indices",
    "_shape_check_impl",
    "_tensor_member_fn",
    "_type_for_tuple_values",
    "_unsplat",
    "_unwrap_if_constexpr",
    "_unwrap_iterable",
    "_unwrap_shape",
    "_wrap_axis",
    "annotations",
    "base_type",
    "base_value",
    "binary_op_type_legalization",
    "builtin",
    "builtin_max",
    "builtin_min",
    "builtins",
    "check_bit_width",
    "contextmanager",
    "dataclass",
    "dispatch",
    "extern",
    "extern_elementwise",
    "get_int_dtype",
    "get_primitive_bitwidth",
    "inspect",
    "ir",
    "is_builtin",
    "is_negative_zero",
    "item",
    "knobs",
    "must_use_result",
    "partial",
    "slice_type",
    "tensor_descriptor_base",
    "tensor_descriptor_base_type",
    "to_tensor",
    "typing",
    "validate_block_shape",
    "warn",
    "wraps",
];

/// `@triton.constexpr_function` helpers of `triton.language.standard` tritonc does not
/// evaluate (outside what it models).
const STANDARD_CONSTEXPR_UNMODELLED: &[&str] = &["_get_flip_dim"];

/// The names this module knows, by kind, sorted (as the fixture's `private_names` lists
/// them), for the test that compares them with the wheel's.
pub fn listed_names() -> Vec<(&'static str, Vec<&'static str>)> {
    let sorted = |parts: &[&[&'static str]]| {
        let mut v: Vec<&'static str> = parts.iter().flat_map(|p| p.iter().copied()).collect();
        v.sort_unstable();
        v
    };
    vec![
        ("standard_public", sorted(&[STANDARD_PUBLIC, &["core", "math"]])),
        ("standard_constexpr", sorted(&[STANDARD_CONSTEXPR, STANDARD_CONSTEXPR_UNMODELLED])),
        ("standard_jit", sorted(&[STANDARD_JIT])),
        ("core_only", sorted(&[CORE_ONLY])),
    ]
}

/// `triton.language.core.<attr>`.
pub fn core_attr(attr: &str) -> Result<Option<Constexpr>, UnmodelledModule> {
    match attr {
        "CONSTEXPR_0" => Ok(Some(Constexpr::Int(0))),
        "get_int_dtype" => Ok(Some(Constexpr::builtin("triton.language.core.get_int_dtype"))),
        a if CORE_ONLY.contains(&a) => Err(UnmodelledModule),
        a => Ok(tl_attr(a)),
    }
}

/// `triton.language.standard.<attr>`.
pub fn standard_attr(attr: &str) -> Result<Option<Constexpr>, UnmodelledModule> {
    match attr {
        "core" => Ok(Some(Constexpr::module("triton.language.core"))),
        "math" => Ok(Some(Constexpr::module("triton.language.math"))),
        "jit" => Ok(Some(Constexpr::builtin("triton.jit"))),
        a if STANDARD_PUBLIC.contains(&a) => Ok(tl_attr(a)),
        a if STANDARD_CONSTEXPR.contains(&a) || STANDARD_JIT.contains(&a) => Ok(Some(
            Constexpr::builtin(&format!("triton.language.standard.{a}")),
        )),
        a if STANDARD_CONSTEXPR_UNMODELLED.contains(&a) => Err(UnmodelledModule),
        "annotations" | "constexpr_function" => Err(UnmodelledModule),
        _ => Ok(None),
    }
}

/// Whether `path` is one of the compile-time helpers [`call`] evaluates.
pub fn is_constexpr_helper(path: &str) -> bool {
    path == "triton.language.core.get_int_dtype"
        || path
            .strip_prefix("triton.language.standard.")
            .is_some_and(|n| STANDARD_CONSTEXPR.contains(&n))
}

/// A call of a helper from a kernel: compile-time helpers take compile-time arguments and
/// give a compile-time value; `@jit` helpers are refused at the call.
pub fn dispatch(call: &BuiltinCall) -> Option<Result<SemaValue, Diagnostic>> {
    let path = &*call.path;
    if let Some(name) = path
        .strip_prefix("triton.language.standard.")
        .filter(|n| STANDARD_JIT.contains(n))
    {
        return Some(Err(unmodelled_jit_helper(name, call.func_span)));
    }
    if !is_constexpr_helper(path) {
        return None;
    }
    let short = path.rsplit('.').next().unwrap_or(path);
    let to_const = |v: &SemaValue, s: Span| {
        v.as_const().cloned().ok_or_else(|| {
            Diagnostic::error(
                codes::NOT_CONSTEXPR,
                format!("`{short}` is a compile-time function; its arguments must be compile-time values"),
            )
            .with_primary(s, format!("this is {}", v.describe()))
        })
    };
    let run = || {
        let args = call
            .args
            .iter()
            .map(|(v, s)| to_const(v, *s))
            .collect::<Result<Vec<_>, _>>()?;
        let kwargs = call
            .kwargs
            .iter()
            .map(|(k, v, s)| Ok((k.clone(), to_const(v, *s)?)))
            .collect::<Result<Vec<_>, Diagnostic>>()?;
        if args
            .iter()
            .chain(kwargs.iter().map(|(_, c)| c))
            .any(crate::symbolic::is_symbolic)
        {
            return Ok(crate::generic::unknown(&format!("{short}(...)")));
        }
        evaluate(path, &args, &kwargs, call.span)
    };
    Some(run().map(SemaValue::Const))
}

/// The error for a `@jit` helper of Triton's standard library.
pub fn unmodelled_jit_helper(name: &str, span: Span) -> Diagnostic {
    Diagnostic::error(
        codes::UNSUPPORTED_TL_OP,
        format!("`tl.standard.{name}` (a private `@jit` helper of Triton's standard library) is not supported by tritonc"),
    )
    .with_primary(span, "valid Triton, not modelled by tritonc")
    .with_help(format!(
        "copy `{name}` from `triton/language/standard.py` into this module as a `@triton.jit` function"
    ))
}

/// Binds `args`/`kwargs` to `params` as Python would.
fn bind<'a>(
    name: &str,
    params: &[&str],
    args: &'a [Constexpr],
    kwargs: &'a [(String, Constexpr)],
    span: Span,
) -> Result<Vec<&'a Constexpr>, Diagnostic> {
    if args.len() > params.len() {
        return Err(const_error(
            span,
            format!("TypeError: {name}() takes {} positional arguments but {} were given", params.len(), args.len()),
        ));
    }
    let mut out: Vec<Option<&Constexpr>> = args.iter().map(Some).collect();
    out.resize(params.len(), None);
    for (k, v) in kwargs {
        let Some(i) = params.iter().position(|p| p == k) else {
            return Err(const_error(
                span,
                format!("TypeError: {name}() got an unexpected keyword argument '{k}'"),
            ));
        };
        if out[i].is_some() {
            return Err(const_error(
                span,
                format!("TypeError: {name}() got multiple values for argument '{k}'"),
            ));
        }
        out[i] = Some(v);
    }
    out.into_iter()
        .zip(params)
        .map(|(v, p)| {
            v.ok_or_else(|| {
                const_error(span, format!("TypeError: {name}() missing 1 required positional argument: '{p}'"))
            })
        })
        .collect()
}

fn int_of(name: &str, v: &Constexpr, span: Span) -> Result<i128, Diagnostic> {
    v.as_int().ok_or_else(|| {
        const_error(
            span,
            format!("TypeError: {name}() expects an int, not '{}'", v.type_name()),
        )
    })
}

/// Evaluates a compile-time helper (`path` as [`is_constexpr_helper`] accepts).
pub fn evaluate(
    path: &str,
    args: &[Constexpr],
    kwargs: &[(String, Constexpr)],
    span: Span,
) -> Result<Constexpr, Diagnostic> {
    let name = path.rsplit('.').next().unwrap_or(path);
    match name {
        // def _log2(i):
        //     log2 = 0
        //     n = i
        //     while n > 1:
        //         n >>= 1
        //         log2 += 1
        //     return log2
        "_log2" => {
            let [i] = bind(name, &["i"], args, kwargs, span)?[..] else { unreachable!() };
            let mut n = int_of(name, i, span)?;
            let mut log2 = 0;
            while n > 1 {
                n >>= 1;
                log2 += 1;
            }
            Ok(Constexpr::Int(log2))
        }
        // def _is_power_of_two(i):
        //     return (i & (i - 1)) == 0 and i != 0
        "_is_power_of_two" => {
            let [i] = bind(name, &["i"], args, kwargs, span)?[..] else { unreachable!() };
            let i = int_of(name, i, span)?;
            Ok(Constexpr::Bool((i & (i - 1)) == 0 && i != 0))
        }
        // `get_int_dtype(bitwidth, signed)`: int1 for 1 bit whatever `signed`, else the
        // 8/16/32/64-bit type of that signedness; any other width is a ValueError.
        "_get_int_dtype" | "get_int_dtype" => {
            let [bw, signed] = bind(name, &["bitwidth", "signed"], args, kwargs, span)?[..] else {
                unreachable!()
            };
            let s = signed.truthy();
            let d = match bw.as_int() {
                Some(1) => Some(DType::I1),
                Some(8) => Some(if s { DType::I8 } else { DType::U8 }),
                Some(16) => Some(if s { DType::I16 } else { DType::U16 }),
                Some(32) => Some(if s { DType::I32 } else { DType::U32 }),
                Some(64) => Some(if s { DType::I64 } else { DType::U64 }),
                _ => None,
            };
            d.map(Constexpr::dtype).ok_or_else(|| {
                const_error(
                    span,
                    format!(
                        "ValueError: Unsupported bitwidth {} and signedness {}",
                        py_str(bw, false),
                        py_str(signed, false)
                    ),
                )
            })
        }
        // def _pick_sum_dtype(in_dtype, dtype):
        //     if dtype is not None: return dtype
        //     signed ints narrower than 32 bits sum in int32, unsigned ones (and int1) in
        //     uint32; anything else keeps its dtype (None).
        "_pick_sum_dtype" => {
            let [in_dtype, dtype] = bind(name, &["in_dtype", "dtype"], args, kwargs, span)?[..] else {
                unreachable!()
            };
            if !matches!(dtype, Constexpr::None) {
                return Ok(dtype.clone());
            }
            let d = in_dtype.as_dtype().ok_or_else(|| {
                const_error(
                    span,
                    format!("AttributeError: '{}' object has no attribute 'is_int_signed'", in_dtype.type_name()),
                )
            })?;
            let narrow = d.bitwidth().is_some_and(|b| b < 32);
            Ok(if d.is_signed() && narrow {
                Constexpr::dtype(DType::I32)
            } else if (d.is_unsigned() || d.is_bool()) && narrow {
                Constexpr::dtype(DType::U32)
            } else {
                Constexpr::None
            })
        }
        _ => Err(Diagnostic::error(
            codes::NOT_CONSTEXPR,
            format!("`{path}` cannot be evaluated at compile time"),
        )
        .with_primary(span, "")),
    }
}
