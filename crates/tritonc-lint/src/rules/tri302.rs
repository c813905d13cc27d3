//! TRI302 non-power-of-two-block.

use tritonc_diagnostics::{CodeDoc, Diagnostic, Span};
use tritonc_syntax::ast::{Expr, ExprKind};

use crate::context::{Finding, KernelContext};
use crate::registry::Rule;
use crate::source_shape::KnownSizes;
use crate::syntax_walk::for_each_expr;

/// Flags block shapes with a known size that is not a power of two.
pub struct NonPowerOfTwoBlock;

/// The rule's documentation.
pub const DOC: CodeDoc = CodeDoc {
    code: tritonc_diagnostics::Code("TRI302"),
    name: "non-power-of-two-block",
    summary: "`tl.arange`/`tl.zeros`/`tl.full` with a known size that is not a power of two",
    explanation: "\
## What it does
Evaluates the sizes of `tl.arange(start, end)`, `tl.zeros(shape, ...)` and
`tl.full(shape, ...)` with the constexpr values the source fixes (literals, module
constexprs, parameter defaults, the first autotune config) and reports a size that is
not a power of two. Sizes that depend on values lint had to assume are not judged.

## Why is this bad?
Triton requires every block dim to be a power of two and refuses to compile the kernel;
with autotuning the failing config is silently dropped.

## Example
```python
cols = tl.arange(0, 100)
```

## Use instead
```python
cols = tl.arange(0, 128)
mask = cols < 100
```
",
};

impl Rule for NonPowerOfTwoBlock {
    fn doc(&self) -> &'static CodeDoc {
        &DOC
    }

    fn needs_ir(&self) -> bool {
        false
    }

    fn check(&self, cx: &KernelContext<'_>, out: &mut Vec<Finding>) {
        let sizes = KnownSizes::new(cx);
        let eval = |e: &Expr| sizes.int(e);
        for_each_expr(&cx.kernel.def.body, &mut |e| {
            let ExprKind::Call(call) = &e.kind else {
                return;
            };
            let Some(path) = call.func.dotted_path() else {
                return;
            };
            let last = path.rsplit('.').next().unwrap_or("");
            let is_tl =
                path.starts_with("tl.") || path.starts_with("triton.language.") || path == last;
            if !is_tl {
                return;
            }
            let mut bad: Vec<(Span, i128, &str)> = Vec::new();
            match last {
                "arange" if call.args.len() >= 2 => {
                    if let (Some(s), Some(end)) = (eval(&call.args[0]), eval(&call.args[1])) {
                        let n = end - s;
                        if n > 0 && (n as u128).count_ones() != 1 {
                            bad.push((e.span, n, "arange"));
                        }
                    }
                }
                "zeros" | "full" => {
                    let Some(shape) = call
                        .args
                        .first()
                        .or_else(|| call.keyword("shape").map(|k| &k.value))
                    else {
                        return;
                    };
                    let dims: Vec<&Expr> = match &shape.kind {
                        ExprKind::Tuple(xs) | ExprKind::List(xs) => xs.iter().collect(),
                        _ => vec![shape],
                    };
                    for dim in dims {
                        if let Some(n) = eval(dim) {
                            if n > 0 && (n as u128).count_ones() != 1 {
                                bad.push((dim.span, n, last));
                            }
                        }
                    }
                }
                _ => {}
            }
            for (span, n, what) in bad {
                let next = (n as u128).next_power_of_two();
                let d = Diagnostic::warning(
                    DOC.code,
                    format!("`tl.{what}` block size {n} is not a power of two"),
                )
                .with_primary(span, format!("{n} elements"))
                .with_note("Triton requires every block dim to be a power of two")
                .with_help(format!(
                    "use {next} and mask the extra {} lanes",
                    next as i128 - n
                ));
                out.push(Finding::new(d));
            }
        });
    }
}
