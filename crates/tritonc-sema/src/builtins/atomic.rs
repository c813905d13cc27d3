//! Atomics: `tl.atomic_{add,max,min,and,or,xor,xchg}` and `tl.atomic_cas`, with Triton 3.6's
//! dtype rules (`atom_red_typechecking_impl`): no 8-bit or 16-bit integers, fp16/bf16 only
//! for `add`, `cas` on 16/32/64-bit elements. Values are broadcast to the pointer's shape and
//! converted to the pointee type; a missing mask is an all-true one, as in Triton.

use tritonc_diagnostics::{Diagnostic, Span};
use tritonc_ir::{DType, Elem, MemScope, MemSemantic, RmwOp, Type};

use super::{arith, expect_const, expect_tensor, BuiltinCall, BuiltinFn};
use crate::codes;
use crate::lower::LowerCx;
use crate::value::{Constexpr, SemaValue, TensorValue};

type R = Result<SemaValue, Diagnostic>;

/// The atomic builtins, by short name.
pub(super) const BUILTINS: &[(&str, BuiltinFn)] = &[
    ("atomic_add", atomic_rmw),
    ("atomic_max", atomic_rmw),
    ("atomic_min", atomic_rmw),
    ("atomic_and", atomic_rmw),
    ("atomic_or", atomic_rmw),
    ("atomic_xor", atomic_rmw),
    ("atomic_xchg", atomic_rmw),
    ("atomic_cas", atomic_cas),
];

fn bad(span: Span, msg: impl Into<String>) -> Diagnostic {
    Diagnostic::error(codes::INVALID_ATOMIC, msg).with_primary(span, "")
}

fn word(a: &Option<(SemaValue, Span)>, what: &str) -> Result<Option<(String, Span)>, Diagnostic> {
    match a {
        None => Ok(None),
        Some(a) => match expect_const(a, what)? {
            Constexpr::None => Ok(None),
            Constexpr::Str(s) if s.is_empty() => Ok(None),
            Constexpr::Str(s) => Ok(Some((s, a.1))),
            other => Err(bad(
                a.1,
                format!("{what} must be a string, not {}", other.type_name()),
            )),
        },
    }
}

fn semantic(a: &Option<(SemaValue, Span)>) -> Result<MemSemantic, Diagnostic> {
    let Some((s, span)) = word(a, "`sem`")? else {
        return Ok(MemSemantic::AcqRel);
    };
    MemSemantic::from_word(&s).ok_or_else(|| {
        bad(span, format!("unknown memory semantic \"{s}\""))
            .with_note("expected acquire, release, acq_rel or relaxed")
    })
}

fn scope(a: &Option<(SemaValue, Span)>) -> Result<MemScope, Diagnostic> {
    let Some((s, span)) = word(a, "`scope`")? else {
        return Ok(MemScope::Gpu);
    };
    MemScope::from_word(&s).ok_or_else(|| {
        bad(span, format!("unknown memory scope \"{s}\"")).with_note("expected gpu, cta or sys")
    })
}

/// The pointer argument and its pointee.
fn pointer(
    cx: &mut LowerCx<'_>,
    a: &(SemaValue, Span),
    name: &str,
) -> Result<(TensorValue, DType), Diagnostic> {
    if let SemaValue::BlockPtr(_) = a.0 {
        return Err(
            bad(a.1, format!("`tl.{name}` does not take block pointers"))
                .with_help("build a tensor of pointers instead"),
        );
    }
    let p = expect_tensor(cx, a)?;
    match p.ty.elem() {
        Elem::Ptr(pt) => Ok((p, pt.pointee)),
        _ => Err(bad(
            a.1,
            format!("`tl.{name}` needs a pointer, got `{}`", p.ty),
        )),
    }
}

fn atomic_rmw(cx: &mut LowerCx<'_>, call: &BuiltinCall) -> R {
    let name = call.name().to_string();
    let op_name = name.trim_start_matches("atomic_");
    let b = call.bind(&["pointer", "val", "mask", "sem", "scope"])?;
    let pa = call.required(&b, 0, "pointer")?;
    let va = call.required(&b, 1, "val")?;
    let (ptr, elem) = pointer(cx, &pa, &name)?;
    let sem = semantic(&b[3])?;
    let scope = scope(&b[4])?;
    let val = expect_tensor(cx, &va)?;
    if matches!(elem, DType::F16 | DType::BF16) && op_name != "add" {
        return Err(bad(pa.1, format!("`tl.{name}` does not support `{elem}`"))
            .with_note("fp16 and bf16 atomics exist only for `atomic_add`"));
    }
    let bits = elem.bitwidth().unwrap_or(0);
    if matches!(elem, DType::I16 | DType::U16) || bits < 16 {
        return Err(bad(pa.1, format!("`tl.{name}` does not support `{elem}`"))
            .with_note(
                "atomics need 32- or 64-bit elements (16-bit only for fp16/bf16 `atomic_add`)",
            )
            .with_help("use a wider element type for the buffer"));
    }
    let op = match (op_name, elem.is_float()) {
        ("add", true) => RmwOp::FAdd,
        ("add", false) => RmwOp::Add,
        ("max" | "min", true) => {
            return Err(Diagnostic::error(codes::UNSUPPORTED_TL_OP, format!("`tl.{name}` on `{elem}` is not yet supported by tritonc"))
                .with_primary(call.func_span, "")
                .with_note("Triton lowers float max/min to signed max and unsigned min on the bit patterns through pointer bitcasts, which tritonc's IR lacks"));
        }
        ("max", false) if elem.is_signed() => RmwOp::Max,
        ("max", false) => RmwOp::UMax,
        ("min", false) if elem.is_signed() => RmwOp::Min,
        ("min", false) => RmwOp::UMin,
        ("and" | "or" | "xor", true) => {
            return Err(bad(
                pa.1,
                format!("`tl.{name}` needs integer elements, not `{elem}`"),
            ))
        }
        ("and", false) => RmwOp::And,
        ("or", false) => RmwOp::Or,
        ("xor", false) => RmwOp::Xor,
        _ => RmwOp::Xchg,
    };
    let shape = ptr.ty.known_shape().unwrap_or_default();
    if !ptr.is_block() && val.is_block() {
        return Err(bad(
            va.1,
            format!(
                "a block value `{}` for the scalar pointer `{}`",
                val.ty, ptr.ty
            ),
        ));
    }
    let val = arith::broadcast_to_shape(cx, val, &shape, va.1)?;
    let val = arith::cast(cx, val, elem, va.1)?;
    let mask = match b[2]
        .as_ref()
        .filter(|m| !matches!(m.0, SemaValue::Const(Constexpr::None)))
    {
        Some(m) => {
            let mv = expect_tensor(cx, m)?;
            let mv = arith::cast(cx, mv, DType::I1, m.1)?;
            if !ptr.is_block() && mv.is_block() {
                return Err(bad(
                    m.1,
                    format!(
                        "a block mask `{}` for the scalar pointer `{}`",
                        mv.ty, ptr.ty
                    ),
                ));
            }
            arith::broadcast_to_shape(cx, mv, &shape, m.1)?
        }
        None => {
            let t = cx.builder(call.span).const_bool(true);
            let t = TensorValue {
                id: t,
                ty: Type::Scalar(DType::I1),
            };
            arith::broadcast_to_shape(cx, t, &shape, call.span)?
        }
    };
    let id = cx
        .builder(call.span)
        .atomic_rmw(op, ptr.id, val.id, Some(mask.id), sem, scope);
    Ok(cx.tensor(id).into())
}

fn atomic_cas(cx: &mut LowerCx<'_>, call: &BuiltinCall) -> R {
    let b = call.bind(&["pointer", "cmp", "val", "sem", "scope"])?;
    let pa = call.required(&b, 0, "pointer")?;
    let (ptr, elem) = pointer(cx, &pa, "atomic_cas")?;
    let ca = call.required(&b, 1, "cmp")?;
    let va = call.required(&b, 2, "val")?;
    let cmp = expect_tensor(cx, &ca)?;
    let val = expect_tensor(cx, &va)?;
    let sem = semantic(&b[3])?;
    let scope = scope(&b[4])?;
    if !matches!(elem.bitwidth(), Some(16 | 32 | 64)) {
        return Err(bad(
            pa.1,
            format!("`tl.atomic_cas` supports 16-, 32- and 64-bit elements, not `{elem}`"),
        ));
    }
    // atomic_cas neither broadcasts nor converts: both operands must match the pointer.
    let want = ptr.ty.with_elem(Elem::DType(elem));
    for (t, s, what) in [(&cmp, ca.1, "cmp"), (&val, va.1, "val")] {
        if t.ty != want {
            return Err(bad(
                s,
                format!("`{what}` is `{}` but `tl.atomic_cas` needs `{want}`", t.ty),
            )
            .with_help(format!(
                "convert with `.to(tl.{})` and match the pointer's shape",
                elem.triton_name().unwrap_or("?")
            )));
        }
    }
    let id = cx
        .builder(call.span)
        .atomic_cas(ptr.id, cmp.id, val.id, sem, scope);
    Ok(cx.tensor(id).into())
}
