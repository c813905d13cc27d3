//! TRI201 low-precision-reduction.

use tritonc_diagnostics::{CodeDoc, Diagnostic, Fix, TextEdit};
use tritonc_ir::{DType, OpKind};
use tritonc_syntax::ast::ExprKind;

use super::kernel_call;
use crate::analysis::combiner::{classify, ReductionKind};
use crate::analysis::provenance::DTypeOrigin;
use crate::context::{Finding, KernelContext};
use crate::registry::Rule;
use crate::source_dtype::stated_dtype;

/// Flags sums (and fp16 cumsums) that accumulate in 16 bits.
pub struct LowPrecisionReduction;

/// The rule's documentation.
pub const DOC: CodeDoc = CodeDoc {
    code: tritonc_diagnostics::Code("TRI201"),
    name: "low-precision-reduction",
    summary: "`sum` over fp16/bf16 or `cumsum` over fp16 accumulates in 16 bits",
    explanation: "\
## What it does
Reports `tl.sum` (and `tl.reduce` with an add combiner) over fp16 or bf16 values, and
`tl.cumsum` over fp16 values, when the dtype is known: from an annotated or configured
signature, or from the kernel's own casts. Kernels whose pointer dtypes lint had to assume
are not judged.

## Why is this bad?
Since Triton 3.3 `tl.sum` accumulates in the input dtype: an fp16 sum of a 4096-wide row
has about three significant digits, and bf16 about two. `tl.max` widens to fp32 but
`tl.sum` does not; `tl.cumsum` promotes bf16 but not fp16.

## Example
```python
x = tl.load(x_ptr + cols, mask=mask, other=0.0).to(tl.float16)
total = tl.sum(x, axis=0)
```

## Use instead
```python
x = tl.load(x_ptr + cols, mask=mask, other=0.0).to(tl.float16)
total = tl.sum(x.to(tl.float32), axis=0)
```
",
};

impl Rule for LowPrecisionReduction {
    fn doc(&self) -> &'static CodeDoc {
        &DOC
    }

    fn check(&self, cx: &KernelContext<'_>, out: &mut Vec<Finding>) {
        let Some(ir) = cx.ir else { return };
        let f = &ir.func;
        for op in f.walk() {
            let is_scan = match f.kind(op) {
                OpKind::Reduce { .. } => false,
                OpKind::Scan { .. } => true,
                _ => continue,
            };
            if classify(f, op) != ReductionKind::Sum {
                continue;
            }
            let Some(&v) = f.op(op).operands().first() else {
                continue;
            };
            let Some(dtype) = f.value_type(v).dtype() else {
                continue;
            };
            let low = match (dtype, is_scan) {
                (DType::F16, _) => "fp16",
                (DType::BF16, false) => "bf16",
                _ => continue,
            };
            // The dtype analysis, or the kernel's own source (a cast through a local, which
            // sema's generic lowering keeps as an unknown conversion), says the dtype.
            if *ir.dtype.get(v) == DTypeOrigin::Assumed
                && kernel_call(cx, ir, op)
                    .and_then(reduced_expr)
                    .and_then(|e| stated_dtype(cx, e))
                    != Some(dtype)
            {
                continue;
            }
            let Some(span) = ir.op_span(op) else { continue };
            let name = if is_scan { "tl.cumsum" } else { "tl.sum" };
            let mut d = Diagnostic::warning(
                DOC.code,
                format!("`{name}` over {low} values accumulates in {low}"),
            )
            .with_primary(span, format!("accumulates in {low}"));
            if let Some(src) = crate::analysis::def_op(f, v).and_then(|o| ir.op_span(o)) {
                if src != span {
                    d = d.with_secondary(src, format!("these values are {low}"));
                }
            }
            d = d
                .with_note(format!(
                    "Triton 3.6 keeps the accumulator of `{name}` in the input dtype"
                ))
                .with_help("upcast first: `.to(tl.float32)` on the reduced values");
            if let Some(call) = kernel_call(cx, ir, op) {
                if let Some(arg) = call.args.first() {
                    let text = cx.slice(arg.span);
                    let simple = matches!(
                        arg.kind,
                        ExprKind::Name(_)
                            | ExprKind::Attribute { .. }
                            | ExprKind::Call(_)
                            | ExprKind::Subscript { .. }
                    );
                    let replacement = if simple {
                        format!("{text}.to(tl.float32)")
                    } else {
                        format!("({text}).to(tl.float32)")
                    };
                    d = d.with_fix(Fix {
                        message: "reduce in fp32".into(),
                        edits: vec![TextEdit {
                            span: arg.span,
                            replacement,
                        }],
                    });
                }
            }
            out.push(Finding::new(d));
        }
    }
}

/// The reduced expression of a `tl.sum(x, …)` / `tl.cumsum(x, …)` / `x.sum(…)` call.
fn reduced_expr(call: &tritonc_syntax::ast::Call) -> Option<&tritonc_syntax::ast::Expr> {
    if let ExprKind::Attribute { value, .. } = &call.func.kind {
        if !value
            .dotted_path()
            .is_some_and(|m| m == "tl" || m.ends_with("language"))
        {
            return Some(value);
        }
    }
    call.args
        .first()
        .or_else(|| call.keyword("input").map(|k| &k.value))
}
