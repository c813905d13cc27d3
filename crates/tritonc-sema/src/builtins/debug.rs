//! Debugging builtins: `tl.device_print` (and Python's `print`), `tl.debug_barrier`,
//! `tl.device_assert` (and Python's `assert`).
//!
//! Device asserts follow Triton 3.6: they emit `tt.assert` only in debug mode
//! ([`LaunchOptions::debug`](crate::LaunchOptions)), and nothing otherwise. A `mask`
//! turns the condition into `cond | ~mask`. A constexpr condition is not checked at compile
//! time (that is `tl.static_assert`): a false one becomes an assert that always fails.

use tritonc_diagnostics::{Diagnostic, Span};
use tritonc_ir::DType;

use super::arith;
use super::{expect_const, expect_tensor, BuiltinCall, BuiltinFn};
use crate::codes;
use crate::lower::LowerCx;
use crate::promote::BinaryKind;
use crate::value::{Constexpr, SemaValue};

type R = Result<SemaValue, Diagnostic>;

/// The debug builtins, by short name.
pub(super) const BUILTINS: &[(&str, BuiltinFn)] = &[
    ("device_print", device_print),
    ("debug_barrier", debug_barrier),
];

/// Python's `print` inside a kernel is `tl.device_print`.
pub(super) fn route(call: &BuiltinCall) -> Option<BuiltinFn> {
    (&*call.path == "builtins.print").then_some(device_print as BuiltinFn)
}

/// Triton's prefix normalization: a non-empty prefix with values ends in `": "` and starts
/// with a space.
fn normalize_prefix(prefix: &str, has_args: bool) -> String {
    let mut p = prefix.to_string();
    if has_args && !p.ends_with(' ') {
        p.push(' ');
    }
    if has_args && !p.ends_with(": ") {
        p.pop();
        p.push_str(": ");
    }
    if p.chars().count() > 2 && !p.starts_with(' ') {
        p.insert(0, ' ');
    }
    p
}

fn device_print(cx: &mut LowerCx<'_>, call: &BuiltinCall) -> R {
    let mut hex = false;
    for (k, v, s) in &call.kwargs {
        match k.as_str() {
            "hex" => hex = expect_const(&(v.clone(), *s), "`hex`")?.truthy(),
            // Python's print(..., sep=, end=) have no meaning on the device; Triton rejects them too.
            _ => {
                return Err(Diagnostic::error(
                    codes::BAD_ARGUMENTS,
                    format!("`tl.device_print` has no parameter `{k}`"),
                )
                .with_primary(*s, "unknown keyword"))
            }
        }
    }
    let Some((first, rest)) = call.args.split_first() else {
        return Err(Diagnostic::error(
            codes::BAD_ARGUMENTS,
            "`tl.device_print` needs a prefix string first",
        )
        .with_primary(call.span, ""));
    };
    let prefix = match &first.0 {
        SemaValue::Const(Constexpr::Str(s)) => s.clone(),
        other => {
            return Err(Diagnostic::error(
                codes::INVALID_OPERAND,
                "the first argument of `tl.device_print` must be a string literal",
            )
            .with_primary(first.1, format!("this is {}", other.describe()))
            .with_help("pass a prefix: `tl.device_print(\"x\", x)`"))
        }
    };
    if !prefix
        .chars()
        .all(|c| c.is_ascii() && (!c.is_ascii_control() || "\t\n\r\x0b\x0c".contains(c)))
    {
        return Err(Diagnostic::error(
            codes::INVALID_OPERAND,
            "the `tl.device_print` prefix must be printable ASCII",
        )
        .with_primary(first.1, ""));
    }
    let mut ids = Vec::new();
    for a in rest {
        let t = expect_tensor(cx, a)?;
        if t.ty.dtype().is_none() && !t.ty.is_ptr_like() {
            return Err(Diagnostic::error(
                codes::INVALID_OPERAND,
                format!("cannot print `{}`", t.ty),
            )
            .with_primary(a.1, ""));
        }
        ids.push(t.id);
    }
    let p = normalize_prefix(&prefix, !ids.is_empty());
    cx.builder(call.span).print(&p, hex, &ids);
    Ok(SemaValue::Const(Constexpr::None))
}

fn debug_barrier(cx: &mut LowerCx<'_>, call: &BuiltinCall) -> R {
    call.bind(&[])?;
    cx.builder(call.span).barrier();
    Ok(SemaValue::Const(Constexpr::None))
}

/// `tl.device_assert(cond, msg="", mask=None)`.
pub(super) fn device_assert(cx: &mut LowerCx<'_>, call: &BuiltinCall) -> R {
    let b = call.bind(&["cond", "msg", "mask"])?;
    let cond = call.required(&b, 0, "cond")?;
    let mask = match &b[2] {
        None | Some((SemaValue::Const(Constexpr::None), _)) => None,
        Some(m) => Some(m.clone()),
    };
    emit_assert(cx, cond, b[1].clone(), mask, call.span)?;
    Ok(SemaValue::Const(Constexpr::None))
}

/// `assert test, msg` inside a kernel: Triton lowers it as `tl.device_assert(test, msg)`.
pub(crate) fn assert_statement(
    cx: &mut LowerCx<'_>,
    test: (SemaValue, Span),
    msg: Option<(SemaValue, Span)>,
    span: Span,
) -> Result<(), Diagnostic> {
    emit_assert(cx, test, msg, None, span)
}

/// The message of a device assert: a string constant (`""` when not given).
fn assert_message(msg: Option<(SemaValue, Span)>) -> Result<String, Diagnostic> {
    match msg {
        None => Ok(String::new()),
        Some((SemaValue::Const(Constexpr::Str(s)), _)) => Ok(s),
        Some((other, span)) => Err(Diagnostic::error(
            codes::INVALID_OPERAND,
            "the message of a device assert must be a string constant",
        )
        .with_primary(span, format!("this is {}", other.describe()))),
    }
}

/// Emits `tt.assert` for `cond` (with `mask`) in debug mode; warns about a constexpr
/// false condition in any mode.
fn emit_assert(
    cx: &mut LowerCx<'_>,
    cond: (SemaValue, Span),
    msg: Option<(SemaValue, Span)>,
    mask: Option<(SemaValue, Span)>,
    span: Span,
) -> Result<(), Diagnostic> {
    if let SemaValue::Const(c) = &cond.0 {
        if mask.is_none() && !c.truthy() {
            let what = if cx.debug {
                "in debug mode it fails in every program"
            } else {
                "Triton compiles it to nothing outside debug mode"
            };
            cx.warn(
                Diagnostic::warning(
                    codes::ASSERT_ALWAYS_FAILS,
                    "this assertion is false for this specialization",
                )
                .with_primary(cond.1, format!("always false; {what}"))
                .with_help("check constexpr conditions at compile time with `tl.static_assert`"),
            );
        }
    }
    // Triton checks the message and the condition's type only when it emits the assert.
    if !cx.debug {
        return Ok(());
    }
    let message = assert_message(msg)?;
    let mut c = arith::to_tensor(cx, cond.0, cond.1)?;
    expect_bool(&c.ty, cond.1, "condition")?;
    if let Some((m, m_span)) = mask {
        let m = arith::to_tensor(cx, m, m_span)?;
        expect_bool(&m.ty, m_span, "mask")?;
        let not_mask = arith::binary(
            cx,
            BinaryKind::Xor,
            SemaValue::Tensor(m),
            SemaValue::Const(Constexpr::Bool(true)),
            m_span,
        )?;
        c = arith::binary(
            cx,
            BinaryKind::Or,
            SemaValue::Tensor(c),
            SemaValue::Tensor(not_mask),
            span,
        )?;
    }
    cx.builder(span).assert(c.id, &message);
    Ok(())
}

/// Triton's debug mode also asserts that every integer `+`, `-`, `*` below 64 bits does
/// not overflow (`sanitize_overflow`); tritonc does not add those checks, so the first
/// such op of a debug build gets a warning instead of a silent difference.
pub(crate) fn overflow_checks_warning(func: &tritonc_ir::Function) -> Option<Diagnostic> {
    use tritonc_ir::{BinaryOp, OpKind};
    let op = func.walk().into_iter().find(|&op| {
        matches!(
            func.kind(op),
            OpKind::Binary(BinaryOp::AddI | BinaryOp::SubI | BinaryOp::MulI)
        ) && func.op(op).results().first().is_some_and(|&r| {
            func.value_type(r)
                .dtype()
                .and_then(DType::bitwidth)
                .is_some_and(|bits| bits < 64)
        })
    })?;
    let loc = &func.op(op).loc;
    // Point into the kernel: at the outermost call when the op is in an inlined helper.
    let span = loc.known_span()?;
    let span = loc.call_sites.last().copied().unwrap_or(span);
    Some(
        Diagnostic::warning(
            codes::OVERFLOW_CHECKS_NOT_MODELLED,
            "debug mode's integer overflow checks are not added by tritonc",
        )
        .with_primary(
            span,
            "the first integer `+`, `-` or `*` narrower than 64 bits",
        )
        .with_note(
            "in debug mode Triton asserts that such operations do not overflow \
             (`int32 overflow detected for operation add`); tritonc compiles the kernel's own \
             asserts but not these checks",
        ),
    )
}

/// `tt.assert` takes `i1` (or a block of `i1`), as Triton's verifier demands.
fn expect_bool(ty: &tritonc_ir::Type, span: Span, what: &str) -> Result<(), Diagnostic> {
    if ty.dtype() == Some(DType::I1) {
        return Ok(());
    }
    Err(Diagnostic::error(
        codes::INVALID_OPERAND,
        format!("the {what} of a device assert must be boolean, not `{ty}`"),
    )
    .with_primary(span, "")
    .with_help("compare it: `x != 0`"))
}

#[cfg(test)]
mod tests {
    use super::normalize_prefix;

    #[test]
    fn prefixes_are_normalized_like_triton() {
        // Expected values follow semantic.device_print's three rules.
        assert_eq!(normalize_prefix("x", true), " x: ");
        assert_eq!(normalize_prefix("x: ", true), " x: ");
        assert_eq!(normalize_prefix("pid", true), " pid: ");
        assert_eq!(normalize_prefix("", true), ": ");
        assert_eq!(normalize_prefix("hello", false), " hello");
        assert_eq!(normalize_prefix("ab", false), "ab");
    }
}
