//! TRI204 implicit-tf32.

use tritonc_diagnostics::{CodeDoc, Diagnostic, Fix};
use tritonc_ir::{DType, OpKind};

use super::{append_argument, has_keyword, kernel_call};
use crate::analysis::provenance::DTypeOrigin;
use crate::context::{Finding, KernelContext};
use crate::registry::Rule;
use crate::source_dtype::stated_dtype;

/// Flags `tl.dot` on fp32 operands that silently uses TF32.
pub struct ImplicitTf32;

/// The rule's documentation.
pub const DOC: CodeDoc = CodeDoc {
    code: tritonc_diagnostics::Code("TRI204"),
    name: "implicit-tf32",
    summary: "`tl.dot` on fp32 operands without `input_precision` runs in TF32",
    explanation: "\
## What it does
Reports `tl.dot` whose operands are known to be fp32 and which passes neither
`input_precision=` nor `allow_tf32=`. An operand's dtype is known from an annotated or
configured signature (`a_ptr: tl.pointer_type(tl.float32)`), or from the kernel's own
source: a cast (`a.to(tl.float32)`), a `dtype=` argument, a local assigned only such
values. Kernels whose pointer dtypes lint had to assume are not judged.

## Why is this bad?
Triton's default for fp32 dots is TF32: operands are rounded to 10 mantissa bits. A kernel
written and tested against an fp32 reference silently loses three decimal digits.

## Example
```python
acc = tl.dot(a.to(tl.float32), b.to(tl.float32))
```

## Use instead
```python
acc = tl.dot(a.to(tl.float32), b.to(tl.float32), input_precision=\"ieee\")
```
(or `input_precision=\"tf32\"` to say that TF32 is intended).
",
};

impl Rule for ImplicitTf32 {
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
            let ops = f.op(op).operands();
            let call = kernel_call(cx, ir, op);
            // An operand is known to be fp32 when the dtype analysis says so, or when the
            // kernel's own source casts it (the placeholder pointee is fp32 too, so such a
            // cast lowers to nothing and the analysis sees only the placeholder).
            let fp32_known = ops.iter().take(2).enumerate().all(|(i, &v)| {
                f.value_type(v).dtype() == Some(DType::F32)
                    && (*ir.dtype.get(v) != DTypeOrigin::Assumed
                        || call
                            .and_then(|c| operand_expr(c, i))
                            .and_then(|e| stated_dtype(cx, e))
                            == Some(DType::F32))
            });
            if !fp32_known {
                continue;
            }
            if call
                .is_some_and(|c| has_keyword(c, "input_precision") || has_keyword(c, "allow_tf32"))
            {
                continue;
            }
            if call.is_none() && !ir.func.op(op).loc.call_sites.is_empty() {
                // Inside a helper: the keyword could be a parameter of the helper; stay quiet
                // unless the helper's own call site is plain.
                continue;
            }
            let Some(span) = ir.op_span(op) else { continue };
            let mut d = Diagnostic::warning(DOC.code, "`tl.dot` on fp32 operands runs in TF32 by default")
                .with_primary(span, "fp32 × fp32 without `input_precision`")
                .with_note("TF32 keeps 10 mantissa bits of each operand")
                .with_help("pass `input_precision=\"ieee\"` for fp32 accuracy, or `\"tf32\"` to make the choice explicit");
            if let Some(edit) = append_argument(cx, span, "input_precision=\"ieee\"") {
                d = d.with_fix(Fix {
                    message: "pass `input_precision=\"ieee\"`".into(),
                    edits: vec![edit],
                });
            }
            out.push(Finding::new(d));
        }
    }
}

/// The expression passed as operand `i` (0: `input`, 1: `other`) of a `tl.dot` call.
fn operand_expr(call: &tritonc_syntax::ast::Call, i: usize) -> Option<&tritonc_syntax::ast::Expr> {
    call.args
        .get(i)
        .or_else(|| call.keyword(["input", "other"][i]).map(|k| &k.value))
}
