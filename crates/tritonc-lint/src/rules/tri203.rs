//! TRI203 int32-offset-overflow.

use std::collections::BTreeSet;

use tritonc_diagnostics::{CodeDoc, Diagnostic};
use tritonc_ir::OpKind;
use tritonc_syntax::ast::ExprKind;

use crate::context::{Finding, KernelContext};
use crate::registry::Rule;
use crate::syntax_walk::{for_each_expr, names_in};

/// Flags pointer offsets built from an int32 product of a program id and a stride.
pub struct Int32OffsetOverflow;

/// The rule's documentation.
pub const DOC: CodeDoc = CodeDoc {
    code: tritonc_diagnostics::Code("TRI203"),
    name: "int32-offset-overflow",
    summary: "a pointer offset multiplies a program id by a stride in int32",
    explanation: "\
## What it does
Reports pointer offsets built from a product of `tl.program_id` (int32) and a stride or
block size that is int32, with no cast to int64 on the way.

The setting `max-tensor-elements` (in `[tool.tritonc.lint.int32-offset-overflow]`) is the
largest tensor, in elements, the project launches kernels on. The default is 2^32
(4,294,967,296: e.g. the logits of 32k tokens over a 128k vocabulary); at or below
2^31 - 1 an int32 offset cannot wrap and the rule is quiet. It is also quiet where the
stride is an int64 parameter (an annotation or configured signature), is listed in
`do_not_specialize` (the author chose its handling), or is bounded by `tl.static_assert`
or `tl.assume`.

## Why is this bad?
`row * stride` wraps past 2^31 - 1 and the access lands at a negative or unrelated address:
silent corruption on exactly the large inputs nobody tests.

## Example
```python
row = tl.program_id(0)
x = tl.load(x_ptr + row * stride + cols, mask=mask)
```

## Use instead
```python
row = tl.program_id(0).to(tl.int64)
x = tl.load(x_ptr + row * stride + cols, mask=mask)
```
",
};

impl Rule for Int32OffsetOverflow {
    fn doc(&self) -> &'static CodeDoc {
        &DOC
    }

    fn check(&self, cx: &KernelContext<'_>, out: &mut Vec<Finding>) {
        let Some(ir) = cx.ir else { return };
        if cx.settings.max_tensor_elements <= i32::MAX as u64 {
            return;
        }
        let f = &ir.func;
        let quiet = bounded_names(cx);
        let mut reported = BTreeSet::new();
        for op in f.walk() {
            if !matches!(f.kind(op), OpKind::AddPtr) {
                continue;
            }
            let Some(&offset) = f.op(op).operands().get(1) else {
                continue;
            };
            let Some(mul) = ir.overflow.get(offset).product else {
                continue;
            };
            if !reported.insert(mul) {
                continue;
            }
            let Some(span) = ir.op_span(mul) else {
                continue;
            };
            let text = cx.slice(span);
            if !text.is_empty() {
                if let Some(e) = parse_names(text) {
                    if e.iter().any(|n| quiet.contains(n)) {
                        continue;
                    }
                }
            }
            let mut d = Diagnostic::warning(
                DOC.code,
                "pointer offset multiplies a program id by a stride in int32",
            )
            .with_primary(span, "int32 product");
            if let Some(s) = ir.op_span(op) {
                if s != span {
                    d = d.with_secondary(s, "used as a pointer offset here");
                }
            }
            d = d
                .with_note(format!(
                    "with tensors of up to {} elements (`max-tensor-elements`) the product can pass 2^31 - 1 and wrap",
                    cx.settings.max_tensor_elements
                ))
                .with_help("cast to int64 before multiplying: `tl.program_id(0).to(tl.int64) * stride`");
            out.push(Finding::new(d));
        }
    }
}

/// The names in an expression's text (identifiers), a cheap tokenizer for the quiet list.
fn parse_names(text: &str) -> Option<Vec<String>> {
    let mut out = Vec::new();
    let mut cur = String::new();
    for ch in text.chars() {
        if ch.is_alphanumeric() || ch == '_' {
            cur.push(ch);
        } else if !cur.is_empty() {
            out.push(std::mem::take(&mut cur));
        }
    }
    if !cur.is_empty() {
        out.push(cur);
    }
    Some(out)
}

/// Parameters whose values the kernel bounds or whose specialization the author controls.
fn bounded_names(cx: &KernelContext<'_>) -> BTreeSet<String> {
    let mut out: BTreeSet<String> = cx
        .kernel
        .jit
        .do_not_specialize
        .iter()
        .map(|p| p.name.clone())
        .collect();
    for_each_expr(&cx.kernel.def.body, &mut |e| {
        if let ExprKind::Call(call) = &e.kind {
            let name = super::callee_last(call).unwrap_or("");
            if matches!(name, "static_assert" | "assume" | "device_assert") {
                for a in &call.args {
                    out.extend(names_in(a).into_iter().map(str::to_string));
                }
            }
        }
    });
    out
}
