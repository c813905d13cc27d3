//! Math builtins beyond the core's unary ones: `sqrt_rn`, `fma`, `fdiv`, `div_rn`, `umulhi`,
//! `clamp`, `sigmoid`, `softmax`, `maximum`/`minimum` with `propagate_nan`, and the
//! libdevice functions (`tl.extra.cuda.libdevice.*`) as `tt.extern_elementwise`.
//!
//! Triton's math builtins convert Python numbers to tensors of their literal dtype first
//! (`to_tensor`), so rule 0 of binary promotion never applies to them: `tl.fma(x_f16, 2.0,
//! y)` computes in fp32. Dtype checks (`_check_dtype`) look only at arguments that were
//! tensors before that conversion.

use tritonc_diagnostics::{Diagnostic, Span};
use tritonc_ir::{BinaryOp, DType, MathOp, OpKind, Type};

use super::libdevice::LIBDEVICE;
use super::reduce::{self, err};
use super::{arith, expect_const, expect_tensor, BuiltinCall, BuiltinFn};
use crate::codes;
use crate::lower::LowerCx;
use crate::promote::{self, BinaryKind, Operand};
use crate::value::{Constexpr, SemaValue, TensorValue};

type R = Result<SemaValue, Diagnostic>;

/// The math builtins of this module, by short name.
pub(super) const BUILTINS: &[(&str, BuiltinFn)] = &[
    ("sqrt_rn", sqrt_rn),
    ("fma", fma),
    ("fdiv", fdiv),
    ("div_rn", div_rn),
    ("umulhi", umulhi),
    ("clamp", clamp),
    ("sigmoid", sigmoid),
    ("softmax", softmax),
    ("maximum", maximum),
    ("minimum", minimum),
];

/// The canonical path prefix of libdevice functions.
const LIBDEVICE_PREFIX: &str = "triton.language.extra.libdevice.";

/// Libdevice calls, whatever module path reached them.
pub(super) fn route(call: &BuiltinCall) -> Option<BuiltinFn> {
    if call.path.starts_with(CUDA_EXTRA_PREFIX) {
        return Some(cuda_extra_call as BuiltinFn);
    }
    call.path
        .starts_with(LIBDEVICE_PREFIX)
        .then_some(libdevice_call as BuiltinFn)
}

const CUDA_EXTRA_PREFIX: &str = "triton.language.extra.cuda.";

/// The functions `triton.language.extra.cuda` exports in Triton 3.6 (its `__all__`, less
/// `libdevice`), with the inline PTX of those that are `inline_asm_elementwise` calls.
const CUDA_EXTRA: &[(&str, Option<&str>)] = &[
    ("globaltimer", Some("mov.u64 $0, %globaltimer;")),
    ("num_threads", None),
    ("num_warps", None),
    ("smid", Some("mov.u32 $0, %smid;")),
    ("convert_custom_float8_sm70", None),
    ("convert_custom_float8_sm80", None),
    (
        "gdc_launch_dependents",
        Some("griddepcontrol.launch_dependents;"),
    ),
    ("gdc_wait", Some("griddepcontrol.wait;")),
];

/// `tl.extra.cuda.*`: `num_warps()` and `num_threads()` are compile-time ints (the
/// launch's warps, times 32 for threads); `gdc_wait()` and `gdc_launch_dependents()` are
/// the tile IR's `tt.gdc_wait` / `tt.gdc_launch_dependents` (Triton 3.6 emits them as
/// side-effecting `griddepcontrol.*` inline PTX and returns `None`); the others are inline
/// PTX, which the tile IR has no op for yet.
fn cuda_extra_call(cx: &mut LowerCx<'_>, call: &BuiltinCall) -> Result<SemaValue, Diagnostic> {
    let name = &call.path[CUDA_EXTRA_PREFIX.len()..];
    let no_arguments = || match (call.args.first(), call.kwargs.first()) {
        (Some((_, s)), _) | (None, Some((_, _, s))) => Err(Diagnostic::error(
            codes::BAD_ARGUMENTS,
            format!("`tl.extra.cuda.{name}()` takes no arguments"),
        )
        .with_primary(*s, "")),
        (None, None) => Ok(()),
    };
    match name {
        "gdc_wait" | "gdc_launch_dependents" => {
            no_arguments()?;
            let mut b = cx.builder(call.span);
            if name == "gdc_wait" {
                b.gdc_wait();
            } else {
                b.gdc_launch_dependents();
            }
            Ok(SemaValue::Const(Constexpr::None))
        }
        "num_warps" | "num_threads" => {
            no_arguments()?;
            let warps = i128::from(cx.num_warps);
            let n = if name == "num_warps" {
                warps
            } else {
                warps * 32
            };
            Ok(SemaValue::Const(Constexpr::Int(n)))
        }
        _ => {
            let asm = CUDA_EXTRA
                .iter()
                .find(|(n, _)| *n == name)
                .and_then(|(_, a)| *a);
            let mut d = Diagnostic::error(
                codes::UNSUPPORTED_TL_OP,
                format!("`tl.extra.cuda.{name}` is not yet supported by tritonc"),
            )
            .with_primary(call.func_span, "valid Triton 3.6, not lowered yet");
            d = match asm {
                Some(asm) => d.with_note(format!(
                    "Triton 3.6 lowers it to `tl.inline_asm_elementwise` (`{asm}`); the tile IR \
                     has no inline-assembly op yet"
                )),
                None => d.with_note(
                    "it converts through inline PTX, which the tile IR has no op for yet",
                ),
            };
            Err(d.with_note("compile this kernel with upstream Triton until tritonc supports it"))
        }
    }
}

/// Attributes of `triton.language.extra[.cuda][.libdevice]`: submodules and libdevice
/// functions (as builtins under [`LIBDEVICE_PREFIX`]).
pub(super) fn extra_module_attr(module: &str, attr: &str) -> Option<Constexpr> {
    match (module, attr) {
        ("triton.language.extra", "libdevice" | "cuda")
        | ("triton.language.extra.cuda", "libdevice") => {
            Some(Constexpr::module(&format!("{module}.{attr}")))
        }
        ("triton.language.extra.cuda", f) if CUDA_EXTRA.iter().any(|(n, _)| *n == f) => {
            Some(Constexpr::builtin(&format!("{CUDA_EXTRA_PREFIX}{f}")))
        }
        (m, f) if m.ends_with(".libdevice") && LIBDEVICE.iter().any(|(n, _, _)| *n == f) => {
            Some(Constexpr::builtin(&format!("{LIBDEVICE_PREFIX}{f}")))
        }
        _ => None,
    }
}

fn dtype_name(d: DType) -> &'static str {
    d.signature_name().unwrap_or("?")
}

/// Triton's `_check_dtype`: every argument that is already a tensor must have one of `allowed`.
fn check_dtypes(
    call: &BuiltinCall,
    args: &[&(SemaValue, Span)],
    allowed: &[DType],
) -> Result<(), Diagnostic> {
    for (v, s) in args {
        if let SemaValue::Tensor(t) = v {
            let ok = t.ty.dtype().is_some_and(|d| allowed.contains(&d));
            if !ok {
                let names: Vec<&str> = allowed.iter().map(|d| dtype_name(*d)).collect();
                let mut d = Diagnostic::error(
                    codes::INVALID_OPERAND,
                    format!(
                        "`tl.{}` expects {} but got `{}`",
                        call.name(),
                        names.join(" or "),
                        t.ty
                    ),
                )
                .with_primary(*s, "");
                if allowed.contains(&DType::F32) && t.ty.dtype().is_some_and(DType::is_float) {
                    d = d.with_help("convert first: `x.to(tl.float32)`");
                }
                return Err(d);
            }
        }
    }
    Ok(())
}

/// Triton's `binary_op_type_legalization` on two tensors: promote, then broadcast.
fn legalize(
    cx: &mut LowerCx<'_>,
    a: TensorValue,
    b: TensorValue,
    span: Span,
) -> Result<(TensorValue, TensorValue), Diagnostic> {
    let (Some(da), Some(db)) = (a.ty.dtype(), b.ty.dtype()) else {
        return Err(err(
            codes::INCOMPATIBLE_TYPES,
            span,
            format!("pointer operand (`{}`, `{}`)", a.ty, b.ty),
        ));
    };
    let d = promote::check_binary(Operand::Tensor(da), Operand::Tensor(db), false)
        .map_err(|e| err(e.code, span, e.message))?;
    let a = arith::cast(cx, a, d, span)?;
    let b = arith::cast(cx, b, d, span)?;
    arith::broadcast_pair(cx, a, b, span)
}

fn bf16_to_f32(
    cx: &mut LowerCx<'_>,
    t: TensorValue,
    span: Span,
) -> Result<TensorValue, Diagnostic> {
    if t.ty.dtype() == Some(DType::BF16) {
        arith::cast(cx, t, DType::F32, span)
    } else {
        Ok(t)
    }
}

fn bound(call: &BuiltinCall, params: &[&str]) -> Result<Vec<(SemaValue, Span)>, Diagnostic> {
    let b = call.bind(params)?;
    params
        .iter()
        .enumerate()
        .map(|(i, p)| call.required(&b, i, p))
        .collect()
}

fn sqrt_rn(cx: &mut LowerCx<'_>, call: &BuiltinCall) -> R {
    let a = bound(call, &["x"])?;
    check_dtypes(call, &[&a[0]], &[DType::F32])?;
    let t = expect_tensor(cx, &a[0])?;
    let id = cx.builder(call.span).precise_sqrt(t.id);
    Ok(cx.tensor(id).into())
}

fn fma(cx: &mut LowerCx<'_>, call: &BuiltinCall) -> R {
    let a = bound(call, &["x", "y", "z"])?;
    let x = expect_tensor(cx, &a[0])?;
    let y = expect_tensor(cx, &a[1])?;
    let z = expect_tensor(cx, &a[2])?;
    let (x, y) = legalize(cx, x, y, call.span)?;
    let (z, x) = legalize(cx, z, x, call.span)?;
    let (z, y) = legalize(cx, z, y, call.span)?;
    if !x.ty.dtype().is_some_and(DType::is_float) {
        return Err(Diagnostic::error(
            codes::INVALID_OPERAND,
            format!("`tl.fma` needs floats, got `{}`", x.ty),
        )
        .with_primary(call.span, "")
        .with_note("math.fma is defined on floating-point values only"));
    }
    let id = cx.builder(call.span).fma(x.id, y.id, z.id);
    Ok(cx.tensor(id).into())
}

fn fdiv(cx: &mut LowerCx<'_>, call: &BuiltinCall) -> R {
    let b = call.bind(&["x", "y", "ieee_rounding"])?;
    let xa = call.required(&b, 0, "x")?;
    let ya = call.required(&b, 1, "y")?;
    if let Some(r) = &b[2] {
        if expect_const(r, "`ieee_rounding`")?.truthy()
            && cx.triton_version.at_least(crate::TritonVersion::V3_8)
        {
            return Err(crate::version::not_modelled(
                cx.triton_version,
                r.1,
                "`tl.fdiv(..., ieee_rounding=True)`",
                "Triton 3.8 honours `ieee_rounding` with a correctly rounded `tt.precise_divf`; \
                 3.6 and 3.7 ignore it",
            ));
        }
    }
    if cx.triton_version.at_least(crate::TritonVersion::V3_9) {
        return Err(crate::version::not_modelled(
            cx.triton_version,
            call.span,
            "`tl.fdiv`",
            "Triton 3.9 promotes `tl.fdiv`'s operands like `/` (fp16 and bf16 to fp32) and \
             accepts Python numbers",
        ));
    }
    let x = expect_tensor(cx, &xa)?;
    let y = expect_tensor(cx, &ya)?;
    for (t, s) in [(&x, xa.1), (&y, ya.1)] {
        if !t.ty.dtype().is_some_and(DType::is_float) {
            return Err(Diagnostic::error(
                codes::INVALID_OPERAND,
                "both operands of `tl.fdiv` must be floats",
            )
            .with_primary(s, format!("this is `{}`", t.ty)));
        }
    }
    // fdiv broadcasts but does not promote: the dtypes must already agree.
    if x.ty.dtype() != y.ty.dtype() {
        return Err(Diagnostic::error(
            codes::INCOMPATIBLE_TYPES,
            format!(
                "`tl.fdiv` operands differ in dtype: `{}` and `{}`",
                x.ty, y.ty
            ),
        )
        .with_primary(call.span, "")
        .with_help("convert one operand with `.to(...)`"));
    }
    let (x, y) = arith::broadcast_pair(cx, x, y, call.span)?;
    let id = cx.builder(call.span).binary(BinaryOp::DivF, x.id, y.id);
    Ok(cx.tensor(id).into())
}

fn div_rn(cx: &mut LowerCx<'_>, call: &BuiltinCall) -> R {
    let a = bound(call, &["x", "y"])?;
    check_dtypes(call, &[&a[0], &a[1]], &[DType::F32])?;
    let x = expect_tensor(cx, &a[0])?;
    let y = expect_tensor(cx, &a[1])?;
    let (x, y) = legalize(cx, x, y, call.span)?;
    let id = cx.builder(call.span).precise_divf(x.id, y.id);
    Ok(cx.tensor(id).into())
}

fn umulhi(cx: &mut LowerCx<'_>, call: &BuiltinCall) -> R {
    let a = bound(call, &["x", "y"])?;
    check_dtypes(
        call,
        &[&a[0], &a[1]],
        &[DType::I32, DType::I64, DType::U32, DType::U64],
    )?;
    let x = expect_tensor(cx, &a[0])?;
    let y = expect_tensor(cx, &a[1])?;
    Ok(umulhi_values(cx, x, y, call.span)?.into())
}

/// `tt.mulhiui` after legalization (shared with the Philox rounds).
pub(super) fn umulhi_values(
    cx: &mut LowerCx<'_>,
    x: TensorValue,
    y: TensorValue,
    span: Span,
) -> Result<TensorValue, Diagnostic> {
    let (x, y) = legalize(cx, x, y, span)?;
    let id = cx.builder(span).mulhiui(x.id, y.id);
    Ok(cx.tensor(id))
}

/// `PropagateNan.ALL` (0xFFFF) or `NONE` (0) as a bool.
fn propagate_nan(a: &Option<(SemaValue, Span)>) -> Result<bool, Diagnostic> {
    let Some(a) = a else { return Ok(false) };
    match expect_const(a, "`propagate_nan`")? {
        Constexpr::None => Ok(false),
        c => match c.as_int() {
            Some(0) => Ok(false),
            Some(0xFFFF) => Ok(true),
            _ => Err(err(codes::INVALID_OPERAND, a.1, format!("unexpected `propagate_nan` {c}; use `tl.PropagateNan.NONE` or `tl.PropagateNan.ALL`"))),
        },
    }
}

fn clamp(cx: &mut LowerCx<'_>, call: &BuiltinCall) -> R {
    let b = call.bind(&["x", "min", "max", "propagate_nan"])?;
    let mut v = Vec::new();
    for (i, p) in ["x", "min", "max"].iter().enumerate() {
        let t = expect_tensor(cx, &call.required(&b, i, p)?)?;
        v.push(bf16_to_f32(cx, t, call.span)?);
    }
    let nan = propagate_nan(&b[3])?;
    let (x, lo, hi) = (v[0].clone(), v[1].clone(), v[2].clone());
    let (lo, hi) = legalize(cx, lo, hi, call.span)?;
    let (x, lo) = legalize(cx, x, lo, call.span)?;
    let (x, hi) = legalize(cx, x, hi, call.span)?;
    if !x.ty.dtype().is_some_and(DType::is_float) {
        return Err(Diagnostic::error(
            codes::INVALID_OPERAND,
            format!("`tl.clamp` supports floats only, got `{}`", x.ty),
        )
        .with_primary(call.span, "")
        .with_help("for integers use `tl.minimum(tl.maximum(x, lo), hi)`"));
    }
    let id = cx.builder(call.span).clampf(x.id, lo.id, hi.id, nan);
    Ok(cx.tensor(id).into())
}

/// `tl.exp` with its dtype check, for the compositions below.
fn exp(
    cx: &mut LowerCx<'_>,
    t: TensorValue,
    name: &str,
    span: Span,
) -> Result<TensorValue, Diagnostic> {
    let d = t.ty.dtype().unwrap_or(DType::I64);
    if let Some(Err(e)) = promote::math_result("exp", d) {
        return Err(Diagnostic::error(
            e.code,
            format!(
                "`tl.{name}` computes `tl.exp`, which expects fp32 or fp64 but got `{}`",
                t.ty
            ),
        )
        .with_primary(span, "")
        .with_help("convert first: `x.to(tl.float32)`"));
    }
    let id = cx.builder(span).math(MathOp::Exp, t.id);
    Ok(cx.tensor(id))
}

fn sigmoid(cx: &mut LowerCx<'_>, call: &BuiltinCall) -> R {
    let a = bound(call, &["x"])?;
    let x = expect_tensor(cx, &a[0])?;
    // 1 / (1 + exp(-x)), as standard.py writes it.
    let neg = arith::unary(cx, tritonc_syntax::ast::UnaryOp::Neg, x, call.span)?;
    let e = exp(cx, neg, "sigmoid", a[0].1)?;
    let one = || SemaValue::Const(Constexpr::Int(1));
    let den = arith::binary(cx, BinaryKind::Add, one(), e.into(), call.span)?;
    Ok(arith::binary(cx, BinaryKind::Div, one(), den.into(), call.span)?.into())
}

fn softmax(cx: &mut LowerCx<'_>, call: &BuiltinCall) -> R {
    let b = call.bind(&["x", "dim", "keep_dims", "ieee_rounding"])?;
    let xa = call.required(&b, 0, "x")?;
    let x = expect_tensor(cx, &xa)?;
    let dim = match reduce::opt_axis(&b[1])? {
        Some(d) => d,
        None => (0, call.span),
    };
    let keep = reduce::flag(&b[2], "`keep_dims`", false)?;
    if reduce::flag(&b[3], "`ieee_rounding`", false)?
        && cx.triton_version.at_least(crate::TritonVersion::V3_8)
    {
        return Err(crate::version::not_modelled(
            cx.triton_version,
            call.span,
            "`tl.softmax(..., ieee_rounding=True)`",
            "Triton 3.8 honours `ieee_rounding` with a correctly rounded `tt.precise_divf`; \
             3.6 and 3.7 ignore it",
        ));
    }
    if cx.triton_version.at_least(crate::TritonVersion::V3_9) && x.ty.rank() > 1 {
        return Err(crate::version::not_modelled(
            cx.triton_version,
            call.span,
            "`tl.softmax` of a block of rank 2 or more",
            "Triton 3.9 always keeps the reduced dims (3.6–3.8 broadcast the row max and sum \
             along axis 0 without `keep_dims=True`)",
        ));
    }
    let m = reduce::max_values(cx, x.clone(), xa.1, dim, keep, call.span)?;
    let z = arith::binary(cx, BinaryKind::Sub, x.into(), m.into(), call.span)?;
    let num = exp(cx, z, "softmax", xa.1)?;
    let den = reduce::sum_values(cx, num.clone(), dim, keep, call.span)?;
    if num.ty.dtype() != den.ty.dtype() {
        return Err(err(
            codes::INCOMPATIBLE_TYPES,
            call.span,
            "`tl.softmax` numerator and denominator differ in dtype",
        ));
    }
    let (num, den) = arith::broadcast_pair(cx, num, den, call.span)?;
    let id = cx.builder(call.span).binary(BinaryOp::DivF, num.id, den.id);
    Ok(cx.tensor(id).into())
}

/// `tl.maximum`/`tl.minimum`: binary promotion (bf16 widened), then `maxnumf`/`minnumf`,
/// or `maximumf`/`minimumf` under `PropagateNan.ALL`.
fn min_max(cx: &mut LowerCx<'_>, call: &BuiltinCall, kind: BinaryKind) -> R {
    let b = call.bind(&["x", "y", "propagate_nan"])?;
    let x = call.required(&b, 0, "x")?;
    let y = call.required(&b, 1, "y")?;
    let all = propagate_nan(&b[2])?;
    let t = arith::binary(cx, kind, x.0, y.0, call.span)?;
    if all && t.ty.dtype().is_some_and(DType::is_float) {
        if let Some(op) = cx.func.defining_op(t.id) {
            let nan_op = if kind == BinaryKind::Maximum {
                BinaryOp::MaximumF
            } else {
                BinaryOp::MinimumF
            };
            *cx.func.kind_mut(op) = OpKind::Binary(nan_op);
        }
    }
    Ok(t.into())
}

fn maximum(cx: &mut LowerCx<'_>, call: &BuiltinCall) -> R {
    min_max(cx, call, BinaryKind::Maximum)
}

fn minimum(cx: &mut LowerCx<'_>, call: &BuiltinCall) -> R {
    min_max(cx, call, BinaryKind::Minimum)
}

/// A libdevice function: exact-dtype overload lookup, broadcasting, `tt.extern_elementwise`.
fn libdevice_call(cx: &mut LowerCx<'_>, call: &BuiltinCall) -> R {
    let name = call.name().to_string();
    let Some((_, to_bool, overloads)) = LIBDEVICE.iter().find(|(n, _, _)| *n == name) else {
        return Err(err(
            codes::UNKNOWN_TL_OP,
            call.func_span,
            format!("libdevice has no function `{name}`"),
        ));
    };
    if let Some((k, _, s)) = call.kwargs.first() {
        return Err(err(
            codes::BAD_ARGUMENTS,
            *s,
            format!("libdevice `{name}` takes positional arguments only, not `{k}`"),
        ));
    }
    let arity = overloads[0].0.len();
    if call.args.len() != arity {
        return Err(Diagnostic::error(
            codes::BAD_ARGUMENTS,
            format!(
                "libdevice `{name}` takes {arity} argument(s), {} given",
                call.args.len()
            ),
        )
        .with_primary(call.span, ""));
    }
    let mut args = Vec::new();
    for a in &call.args {
        args.push(expect_tensor(cx, a)?);
    }
    let dtypes: Vec<Option<DType>> = args.iter().map(|t| t.ty.dtype()).collect();
    let Some((_, symbol, ret)) = overloads
        .iter()
        .find(|(ks, _, _)| ks.iter().map(|d| Some(*d)).eq(dtypes.iter().copied()))
    else {
        let got: Vec<String> = args.iter().map(|t| t.ty.elem().to_string()).collect();
        let accepted: Vec<String> = overloads
            .iter()
            .map(|(ks, _, _)| {
                format!(
                    "({})",
                    ks.iter()
                        .map(|d| dtype_name(*d))
                        .collect::<Vec<_>>()
                        .join(", ")
                )
            })
            .collect();
        return Err(Diagnostic::error(
            codes::NO_EXTERN_OVERLOAD,
            format!(
                "libdevice `{name}` has no overload for ({})",
                got.join(", ")
            ),
        )
        .with_primary(call.span, "")
        .with_note(format!("overloads: {}", accepted.join(", ")))
        .with_help("convert the arguments to one of these dtypes with `.to(...)`"));
    };
    // Broadcast every argument to the common shape (lower ranks gain leading 1-dims).
    let rank = args.iter().map(|t| t.ty.rank()).max().unwrap_or(0);
    let mut shape = vec![1u64; rank];
    for t in &args {
        let s = t.ty.known_shape().unwrap_or_default();
        for (i, d) in s.iter().enumerate() {
            let slot = &mut shape[rank - s.len() + i];
            if *slot == 1 {
                *slot = *d;
            } else if *d != 1 && *d != *slot {
                return Err(err(
                    codes::SHAPE_MISMATCH,
                    call.span,
                    format!("libdevice `{name}` arguments have incompatible shapes"),
                ));
            }
        }
    }
    let mut ids = Vec::new();
    for mut t in args {
        while t.is_block() && t.ty.rank() < rank {
            let id = cx.builder(call.span).expand_dims(t.id, 0);
            t = cx.tensor(id);
        }
        ids.push(arith::broadcast_to_shape(cx, t, &shape, call.span)?.id);
    }
    let ty = if rank == 0 {
        Type::Scalar(*ret)
    } else {
        Type::tensor_of(&shape, *ret)
    };
    let id = cx
        .builder(call.span)
        .extern_elementwise(&ids, ty, "", "", symbol, true);
    let mut out = cx.tensor(id);
    if *to_bool {
        out = arith::cast(cx, out, DType::I1, call.span)?;
    }
    Ok(out.into())
}
