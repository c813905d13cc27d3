//! `tl.dot`: Triton 3.6's operand, accumulator and result rules for the NVIDIA sm90 target.
//!
//! Facts checked against Triton 3.6 (`core.dot`, `semantic.dot`, the CUDA backend's
//! `min_dot_size`): M and N may be as small as 1, K must be ≥ 16 (≥ 32 for 8-bit operands);
//! the accumulator's element type must equal `out_dtype` (so an int32 accumulator needs
//! `out_dtype=tl.int32`); fp32 operands ignore `out_dtype` for the result; rank ≥ 4 blocks
//! are reshaped to one batch dim and back; fp8e4b15 operands are upcast to fp16.

use tritonc_diagnostics::{Diagnostic, Span};
use tritonc_ir::{DType, InputPrecision, Type};

use super::{arith, expect_const, expect_tensor, BuiltinCall, BuiltinFn};
use crate::codes;
use crate::lower::LowerCx;
use crate::value::{Constexpr, SemaValue, TensorValue};

type R = Result<SemaValue, Diagnostic>;

/// The dot builtins, by short name.
pub(super) const BUILTINS: &[(&str, BuiltinFn)] = &[("dot", dot)];

/// sm90's `max_num_imprecise_acc_default` for fp8 × fp8 dots.
const FP8_IMPRECISE_ACC_DEFAULT: u32 = 1 << 30;

fn bad(span: Span, msg: impl Into<String>) -> Diagnostic {
    Diagnostic::error(codes::INVALID_DOT, msg).with_primary(span, "")
}

fn shape_of(t: &TensorValue) -> Vec<u64> {
    t.ty.known_shape().unwrap_or_default()
}

fn opt_const(
    a: &Option<(SemaValue, Span)>,
    what: &str,
) -> Result<Option<(Constexpr, Span)>, Diagnostic> {
    match a {
        None | Some((SemaValue::Const(Constexpr::None), _)) => Ok(None),
        Some(a) => Ok(Some((expect_const(a, what)?, a.1))),
    }
}

fn reshape(cx: &mut LowerCx<'_>, t: TensorValue, shape: &[u64], span: Span) -> TensorValue {
    let id = cx.builder(span).reshape(t.id, shape, false);
    cx.tensor(id)
}

fn precision(
    input_precision: Option<(Constexpr, Span)>,
    allow_tf32: Option<(Constexpr, Span)>,
    span: Span,
) -> Result<InputPrecision, Diagnostic> {
    if let (Some(_), Some((_, s))) = (&input_precision, &allow_tf32) {
        return Err(Diagnostic::error(
            codes::INVALID_DOT,
            "only one of `input_precision` and `allow_tf32` can be given",
        )
        .with_primary(*s, "`allow_tf32` is the deprecated spelling")
        .with_help("drop `allow_tf32`"));
    }
    let word = match (input_precision, allow_tf32) {
        (Some((Constexpr::Str(s), _)), _) => (s.to_lowercase(), span),
        (Some((other, s)), _) => {
            return Err(bad(
                s,
                format!("`input_precision` is a string, not {}", other.type_name()),
            ))
        }
        (None, Some((c, s))) => (if c.truthy() { "tf32" } else { "ieee" }.to_string(), s),
        // TRITON_F32_DEFAULT would change this default; tritonc follows the unset environment.
        (None, None) => ("tf32".to_string(), span),
    };
    match word.0.as_str() {
        "tf32" => Ok(InputPrecision::Tf32),
        "tf32x3" => Ok(InputPrecision::Tf32x3),
        "ieee" => Ok(InputPrecision::Ieee),
        "bf16x3" | "bf16x6" => Err(Diagnostic::error(
            codes::UNSUPPORTED_TL_OP,
            format!(
                "`input_precision=\"{}\"` is not yet supported by tritonc",
                word.0
            ),
        )
        .with_primary(word.1, "valid in Triton 3.6, not in tritonc's IR yet")),
        other => Err(
            bad(word.1, format!("unknown `input_precision` \"{other}\""))
                .with_note("Triton 3.6 on NVIDIA accepts tf32, tf32x3, ieee, bf16x3 and bf16x6"),
        ),
    }
}

fn dot(cx: &mut LowerCx<'_>, call: &BuiltinCall) -> R {
    let b = call.bind(&[
        "input",
        "other",
        "acc",
        "input_precision",
        "allow_tf32",
        "max_num_imprecise_acc",
        "out_dtype",
    ])?;
    let (xa, xb) = (
        call.required(&b, 0, "input")?,
        call.required(&b, 1, "other")?,
    );
    let mut a = expect_tensor(cx, &xa)?;
    let mut bt = expect_tensor(cx, &xb)?;
    let acc_arg = b[2]
        .clone()
        .filter(|a| !matches!(a.0, SemaValue::Const(Constexpr::None)));
    let mut acc = match &acc_arg {
        Some(x) => Some(expect_tensor(cx, x)?),
        None => None,
    };
    let prec = precision(
        opt_const(&b[3], "`input_precision`")?,
        opt_const(&b[4], "`allow_tf32`")?,
        call.span,
    )?;
    let max_imprecise = opt_const(&b[5], "`max_num_imprecise_acc`")?;
    let out_dtype = match opt_const(&b[6], "`out_dtype`")? {
        None => DType::F32,
        Some((c, s)) => c.as_dtype().ok_or_else(|| {
            bad(
                s,
                format!("`out_dtype` must be a dtype, not {}", c.type_name()),
            )
        })?,
    };

    // Shapes (core.dot).
    let (sa, sb) = (shape_of(&a), shape_of(&bt));
    if sa.len() < 2 || sa.len() != sb.len() {
        return Err(Diagnostic::error(
            codes::INVALID_DOT,
            format!(
                "`tl.dot` needs two blocks of equal rank >= 2, got `{}` and `{}`",
                a.ty, bt.ty
            ),
        )
        .with_primary(if sa.len() < 2 { xa.1 } else { xb.1 }, "")
        .with_help("a matrix product needs 2-D (or batched 3-D) blocks"));
    }
    let r = sa.len();
    if sa[..r - 2] != sb[..r - 2] {
        return Err(bad(
            call.span,
            format!("the batch dims of `{}` and `{}` differ", a.ty, bt.ty),
        ));
    }
    if sa[r - 1] != sb[r - 2] {
        return Err(Diagnostic::error(
            codes::INVALID_DOT,
            format!(
                "inner dimensions differ: `{}` has K = {} but `{}` has K = {}",
                a.ty,
                sa[r - 1],
                bt.ty,
                sb[r - 2]
            ),
        )
        .with_primary(xa.1, format!("K = {}", sa[r - 1]))
        .with_secondary(xb.1, format!("K = {}", sb[r - 2])));
    }
    let mut c_shape = sa[..r - 1].to_vec();
    c_shape.push(sb[r - 1]);
    if let (Some(acc), Some(x)) = (&acc, &acc_arg) {
        if shape_of(acc) != c_shape {
            return Err(Diagnostic::error(
                codes::INVALID_DOT,
                format!(
                    "the accumulator `{}` does not have the result shape {c_shape:?}",
                    acc.ty
                ),
            )
            .with_primary(x.1, ""));
        }
    }
    // Rank >= 4: one batch dim, reshaped back afterwards.
    if r >= 4 {
        let batch: u64 = c_shape[..r - 2].iter().product();
        a = reshape(cx, a, &[batch, sa[r - 2], sa[r - 1]], call.span);
        bt = reshape(cx, bt, &[batch, sb[r - 2], sb[r - 1]], call.span);
        acc = acc.map(|t| reshape(cx, t, &[batch, c_shape[r - 2], c_shape[r - 1]], call.span));
    }

    // Dtypes (semantic.dot).
    let (Some(mut da), Some(mut db)) = (a.ty.dtype(), bt.ty.dtype()) else {
        return Err(bad(call.span, "`tl.dot` of pointers"));
    };
    if !(da.is_fp8() && db.is_fp8()) {
        const OK: [DType; 6] = [
            DType::I8,
            DType::U8,
            DType::F16,
            DType::BF16,
            DType::F32,
            DType::F64,
        ];
        for (d, s) in [(da, xa.1), (db, xb.1)] {
            if !OK.contains(&d) {
                return Err(Diagnostic::error(
                    codes::INVALID_DOT,
                    format!("`tl.dot` does not support `{d}` operands"),
                )
                .with_primary(s, "")
                .with_note("operands are int8, fp16, bf16, fp32 or fp64 (or fp8 on both sides)"));
            }
        }
        if da != db {
            return Err(Diagnostic::error(
                codes::INVALID_DOT,
                format!(
                    "both operands of `tl.dot` must have the same dtype, got `{da}` and `{db}`"
                ),
            )
            .with_primary(xa.1, format!("`{da}`"))
            .with_secondary(xb.1, format!("`{db}`"))
            .with_help("convert one side with `.to(...)`"));
        }
    }
    // There is no fp8e4b15 in MLIR: Triton computes those dots in fp16.
    if da == DType::F8E4M3B11FNUZ || db == DType::F8E4M3B11FNUZ {
        a = arith::cast(cx, a, DType::F16, xa.1)?;
        bt = arith::cast(cx, bt, DType::F16, xb.1)?;
        (da, db) = (DType::F16, DType::F16);
    }
    let (ra, rb) = (a.ty.rank(), bt.ty.rank());
    if !(ra == 2 || ra == 3) || ra != rb {
        return Err(bad(
            call.span,
            "`tl.dot` operands must both be 2-D or both 3-D",
        ));
    }
    let (sa, sb) = (shape_of(&a), shape_of(&bt));
    let k = sa[ra - 1];
    let wa = da.bitwidth().unwrap_or(0);
    if wa != db.bitwidth().unwrap_or(0) {
        return Err(bad(
            call.span,
            format!("the operands of `tl.dot` must have the same bit width (`{da}`, `{db}`)"),
        ));
    }
    let min_k = if wa == 8 { 32 } else { 16 };
    if k < min_k {
        return Err(Diagnostic::error(
            codes::INVALID_DOT,
            format!("`tl.dot` needs K >= {min_k} for {wa}-bit operands, got K = {k}"),
        )
        .with_primary(xa.1, format!("`{}`: K = {k}", a.ty))
        .with_note("on NVIDIA, M and N may be small but K must fill one tensor-core step")
        .with_help(format!("use a K block of at least {min_k}")));
    }
    let ret = if da.is_int() {
        if da != DType::I8 {
            return Err(Diagnostic::error(
                codes::INVALID_DOT,
                format!("integer `tl.dot` supports only int8 operands, not `{da}`"),
            )
            .with_primary(xa.1, ""));
        }
        DType::I32
    } else if out_dtype == DType::BF16 {
        return Err(Diagnostic::error(
            codes::INVALID_DOT,
            "`out_dtype=tl.bfloat16` is not supported by `tl.dot`",
        )
        .with_primary(b[6].as_ref().map_or(call.span, |x| x.1), "")
        .with_help("use `out_dtype=tl.float32` and convert the result with `.to(tl.bfloat16)`"));
    } else if da == DType::F32 || da == DType::BF16 {
        DType::F32
    } else if da == DType::F64 {
        DType::F64
    } else {
        if out_dtype != DType::F32 && out_dtype != DType::F16 {
            return Err(bad(
                b[6].as_ref().map_or(call.span, |x| x.1),
                format!("`out_dtype` must be `tl.float32` or `tl.float16`, not `{out_dtype}`"),
            ));
        }
        out_dtype
    };
    let m_n: Vec<u64> = {
        let mut s = sa[..ra - 1].to_vec();
        s.push(sb[rb - 1]);
        s
    };
    let ret_ty = Type::tensor_of(&m_n, ret);
    let acc = match acc {
        None => {
            let id = if ret.is_float() {
                cx.builder(call.span).const_float(0.0, ret_ty.clone())
            } else {
                cx.builder(call.span).const_int(0, ret_ty.clone())
            };
            cx.tensor(id)
        }
        Some(acc) => {
            let span = acc_arg.as_ref().map_or(call.span, |x| x.1);
            let ad = acc.ty.dtype();
            let tl_name = |d: DType| format!("tl.{}", d.triton_name().unwrap_or("?"));
            if ad != Some(ret) {
                return Err(Diagnostic::error(
                    codes::INVALID_DOT,
                    format!(
                        "the accumulator `{}` does not match the dot's result type `{ret_ty}`",
                        acc.ty
                    ),
                )
                .with_primary(span, "")
                .with_note(format!("`{}` operands accumulate in `{ret}`", da)));
            }
            if ret != out_dtype {
                return Err(Diagnostic::error(
                    codes::INVALID_DOT,
                    format!(
                        "the accumulator is `{}` but `out_dtype` is `{}`",
                        acc.ty,
                        tl_name(out_dtype)
                    ),
                )
                .with_primary(span, "")
                .with_note("Triton requires the accumulator's element type to equal `out_dtype`")
                .with_help(format!("pass `out_dtype={}`", tl_name(ret))));
            }
            acc
        }
    };
    let imprecise = match max_imprecise {
        None if da.is_fp8() && db.is_fp8() => FP8_IMPRECISE_ACC_DEFAULT,
        None => 0,
        Some((c, s)) => {
            let v = c
                .as_int()
                .ok_or_else(|| bad(s, "`max_num_imprecise_acc` must be an int"))?;
            if da.is_fp8() && db.is_fp8() && v > k as i128 {
                return Err(bad(
                    s,
                    format!("`max_num_imprecise_acc` ({v}) must be <= K ({k})"),
                ));
            }
            u32::try_from(v)
                .map_err(|_| bad(s, format!("`max_num_imprecise_acc` ({v}) is out of range")))?
        }
    };
    let id = cx
        .builder(call.span)
        .dot(a.id, bt.id, acc.id, prec, imprecise);
    let mut out = cx.tensor(id);
    if r >= 4 {
        out = reshape(cx, out, &c_shape, call.span);
    }
    Ok(out.into())
}
