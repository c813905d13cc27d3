//! TRI303 dot-dimension-too-small.

use tritonc_diagnostics::{CodeDoc, Diagnostic, Span};
use tritonc_ir::OpKind;
use tritonc_sema::Constexpr;

use crate::context::{Finding, KernelContext};
use crate::registry::Rule;
use crate::source_shape::for_each_dot;

/// Flags `tl.dot` with a known M, N or K below 16.
pub struct DotDimensionTooSmall;

/// The rule's documentation.
pub const DOC: CodeDoc = CodeDoc {
    code: tritonc_diagnostics::Code("TRI303"),
    name: "dot-dimension-too-small",
    summary: "`tl.dot` with a known M, N or K below 16",
    explanation: "\
## What it does
Reports `tl.dot` whose operand shapes give M, N or K below 16. Shapes come from the
lowered kernel, or, for a kernel Triton would refuse, from the source: block sizes the
source fixes (literals, module constexprs, parameter defaults, autotune configs).
Kernels whose block sizes lint had to assume are not judged.

## Why is this bad?
On NVIDIA GPUs Triton 3.6 refuses to compile `tl.dot` with K below 16 (below 32 for
8-bit operands): K must fill one tensor-core step. M or N below 16 compile, but the
product fills only part of each tensor-core instruction, so most of its work is wasted.

## Example
```python
acc = tl.dot(a, b)  # a: (16, 8), b: (8, 16)
```

## Use instead
Pad the block to 16 (mask the extra lanes), or compute a small product with
`tl.sum(a[:, :, None] * b[None, :, :], axis=1)`.
",
};

impl Rule for DotDimensionTooSmall {
    fn doc(&self) -> &'static CodeDoc {
        &DOC
    }

    fn checks_unlowered(&self) -> bool {
        true
    }

    fn check(&self, cx: &KernelContext<'_>, out: &mut Vec<Finding>) {
        let Some(ir) = cx.ir else {
            // Sema refuses K < 16: judge the shapes the source fixes.
            for_each_dot(cx, &mut |call, a, b| {
                if let Some(d) = diagnose(call.span, a, b) {
                    out.push(Finding::new(d));
                }
            });
            return;
        };
        if cx
            .spec
            .assumed
            .constexprs
            .values()
            .any(|v| matches!(v, Constexpr::Int(_)))
        {
            return;
        }
        let f = &ir.func;
        for op in f.walk() {
            if !matches!(f.kind(op), OpKind::Dot { .. }) {
                continue;
            }
            let ops = f.op(op).operands();
            let (Some(a), Some(b)) = (
                f.value_type(ops[0]).known_shape(),
                f.value_type(ops[1]).known_shape(),
            ) else {
                continue;
            };
            let a: Vec<i128> = a.iter().map(|&d| d as i128).collect();
            let b: Vec<i128> = b.iter().map(|&d| d as i128).collect();
            let Some(span) = ir.op_span(op) else { continue };
            if let Some(d) = diagnose(span, &a, &b) {
                out.push(Finding::new(d));
            }
        }
    }
}

/// The finding for a dot of `a` by `b` (the last two dims of each), if a dim is below 16.
fn diagnose(span: Span, a: &[i128], b: &[i128]) -> Option<Diagnostic> {
    if a.len() < 2 || b.len() < 2 {
        return None;
    }
    let (m, k, n) = (a[a.len() - 2], a[a.len() - 1], b[b.len() - 1]);
    let small: Vec<String> = [("M", m), ("N", n), ("K", k)]
        .iter()
        .filter(|(_, v)| *v < 16)
        .map(|(d, v)| format!("{d} = {v}"))
        .collect();
    if small.is_empty() {
        return None;
    }
    let mut d = Diagnostic::warning(
        DOC.code,
        format!("`tl.dot` with {} (below 16)", small.join(", ")),
    )
    .with_primary(span, format!("{m}×{k} by {k}×{n}"));
    if k < 16 {
        d = d.with_note(
            "Triton refuses `tl.dot` with K below 16 on NVIDIA (below 32 for 8-bit operands)",
        );
    }
    if m < 16 || n < 16 {
        d = d.with_note(
            "M or N below 16 compile, but fill only part of each tensor-core instruction",
        );
    }
    Some(d.with_help("pad the block to 16 and mask, or use a broadcast multiply and `tl.sum`"))
}
