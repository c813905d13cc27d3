//! TRI202 low-precision-dot-accumulator.

use tritonc_diagnostics::{CodeDoc, Diagnostic};
use tritonc_ir::{DType, OpKind};

use super::kernel_call;
use crate::analysis::provenance::DTypeOrigin;
use crate::context::{Finding, KernelContext};
use crate::registry::Rule;

/// Flags `tl.dot` accumulating in fp16.
pub struct LowPrecisionDotAccumulator;

/// The rule's documentation.
pub const DOC: CodeDoc = CodeDoc {
    code: tritonc_diagnostics::Code("TRI202"),
    name: "low-precision-dot-accumulator",
    summary: "`tl.dot` accumulates in fp16",
    explanation: "\
## What it does
Reports `tl.dot` whose result (and so its accumulator) is fp16: `out_dtype=tl.float16`, or
an fp16 `acc`.

## Why is this bad?
A K-long dot product summed in fp16 loses precision with every block of K and overflows
at 65504. Tensor cores accumulate in fp32 at the same speed.

## Example
```python
acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float16)
acc = tl.dot(a, b, acc, out_dtype=tl.float16)
```

## Use instead
```python
acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
acc = tl.dot(a, b, acc)
c = acc.to(tl.float16)
```
",
};

impl Rule for LowPrecisionDotAccumulator {
    fn doc(&self) -> &'static CodeDoc {
        &DOC
    }

    fn check(&self, cx: &KernelContext<'_>, out: &mut Vec<Finding>) {
        let Some(ir) = cx.ir else { return };
        let f = &ir.func;
        for op in f.walk() {
            if !matches!(f.kind(op), OpKind::Dot { .. }) {
                continue;
            }
            let r = f.op(op).results()[0];
            if f.value_type(r).dtype() != Some(DType::F16) {
                continue;
            }
            let explicit =
                kernel_call(cx, ir, op).is_some_and(|c| c.keyword("out_dtype").is_some());
            if !explicit && *ir.dtype.get(r) == DTypeOrigin::Assumed {
                continue;
            }
            let Some(span) = ir.op_span(op) else { continue };
            let mut d = Diagnostic::warning(DOC.code, "`tl.dot` accumulates in fp16")
                .with_primary(span, "fp16 accumulator");
            if let Some(&acc) = f.op(op).operands().get(2) {
                if let Some(s) = crate::analysis::def_op(f, acc).and_then(|o| ir.op_span(o)) {
                    d = d.with_secondary(s, "the accumulator is fp16");
                }
            }
            d = d
                .with_note("each K block is added in fp16: precision drops with K and sums past 65504 overflow")
                .with_help("accumulate in fp32 (the default `out_dtype`) and cast the result once at the end");
            out.push(Finding::new(d));
        }
    }
}
