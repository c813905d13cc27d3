//! Debugging builtins: `tl.device_print` (and Python's `print`), `tl.debug_barrier`.
//!
//! `tl.device_assert` and `assert` emit nothing unless Triton runs in debug mode, which
//! tritonc's specializations do not model; the core keeps them.

use tritonc_diagnostics::Diagnostic;

use super::{expect_const, expect_tensor, BuiltinCall, BuiltinFn};
use crate::codes;
use crate::lower::LowerCx;
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
