//! TRI303 dot-dimension-too-small.

use tritonc_diagnostics::{CodeDoc, Diagnostic};
use tritonc_ir::OpKind;
use tritonc_sema::Constexpr;

use crate::context::{Finding, KernelContext};
use crate::registry::Rule;

/// Flags `tl.dot` with a known M, N or K below 16.
pub struct DotDimensionTooSmall;

/// The rule's documentation.
pub const DOC: CodeDoc = CodeDoc {
    code: tritonc_diagnostics::Code("TRI303"),
    name: "dot-dimension-too-small",
    summary: "`tl.dot` with a known M, N or K below 16",
    explanation: "\
## What it does
Reports `tl.dot` whose operand shapes, known from the source, give M, N or K below 16.
Kernels whose block sizes lint had to assume are not judged.

## Why is this bad?
On NVIDIA GPUs Triton requires M, N and K of at least 16 for `tl.dot` (K at least 32 for
8-bit operands) and refuses to compile smaller ones.

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

    fn check(&self, cx: &KernelContext<'_>, out: &mut Vec<Finding>) {
        let Some(ir) = cx.ir else { return };
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
            if a.len() < 2 || b.len() < 2 {
                continue;
            }
            let (m, k, n) = (a[a.len() - 2], a[a.len() - 1], b[b.len() - 1]);
            let small: Vec<String> = [("M", m), ("N", n), ("K", k)]
                .iter()
                .filter(|(_, v)| *v < 16)
                .map(|(d, v)| format!("{d} = {v}"))
                .collect();
            if small.is_empty() {
                continue;
            }
            let Some(span) = ir.op_span(op) else { continue };
            let d = Diagnostic::warning(
                DOC.code,
                format!(
                    "`tl.dot` with {} (at least 16 is required)",
                    small.join(", ")
                ),
            )
            .with_primary(span, format!("{m}×{k} by {k}×{n}"))
            .with_note("NVIDIA's `tl.dot` needs M, N and K of at least 16")
            .with_help("pad the block to 16 and mask, or use a broadcast multiply and `tl.sum`");
            out.push(Finding::new(d));
        }
    }
}
