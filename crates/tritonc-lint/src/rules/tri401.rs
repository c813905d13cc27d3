//! TRI401 triton-version-dependent.

use std::panic::{catch_unwind, AssertUnwindSafe};

use tritonc_diagnostics::{CodeDoc, Diagnostic, Span};
use tritonc_ir::{Function, OpId};
use tritonc_sema::TritonVersion;

use crate::context::{Finding, KernelContext};
use crate::registry::Rule;

/// Flags kernels whose validity or meaning differs between the Triton versions the
/// project declares.
pub struct TritonVersionDependent;

/// The rule's documentation.
pub const DOC: CodeDoc = CodeDoc {
    code: tritonc_diagnostics::Code("TRI401"),
    name: "triton-version-dependent",
    summary: "the kernel compiles under one declared Triton version and not another, or means something else",
    explanation: "\
## What it does
Flags a kernel whose validity or meaning differs between the Triton versions the project
declares in `[tool.tritonc]` (the rule runs only when it declares some):

```toml
[tool.tritonc]
triton-versions = [\"3.6\", \"3.9\"]
```

The list is a range: every version from the oldest listed to the newest (3.6, 3.7, 3.8
and 3.9 here). Each kernel is lowered once per version, with that version's rules (the
ones docs/triton-versions.md lists, each decided by the version's wheel), and two
neighbouring versions are compared:
- the kernel lowers under one and is rejected under the other (`tl.make_block_ptr` is
  gone in 3.9; a `@jit` helper's Python number is a size only from 3.7 on): reported at
  the construct the rejecting version refuses;
- both lower, to different tile IR: reported at the first op that differs (`-x` on a
  float is `0 - x` before 3.8 and a sign flip from 3.8 on, so `-0.0` differs;
  `tl.maximum` of two bf16 tensors is computed in fp32 before 3.9 and in bf16 from 3.9);
- a version whose change tritonc does not model yet refuses the construct (E0302 \"… under
  Triton 3.9 is not yet supported by tritonc\"): reported as a construct to check by
  hand, since that version changed its rule (its result may still be the same for these
  types: `tl.fdiv` of two fp32 blocks, for one).

Kernels are lowered with lint's specialization (the configured signature, else
placeholder types), so a difference that depends on a dtype shows when the signature
gives that dtype.

## Why is this bad?
The same source compiles for the users of one torch release and fails for those of
another (torch 2.10–2.11 pin Triton 3.6, 2.12–2.13 pin 3.7, 2.14 pins 3.8, 2.15 pins 3.9),
or, worse, computes something else without a word.

## Example
```python
@triton.jit
def kernel(x_ptr, y_ptr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    tl.store(y_ptr + offs, -tl.load(x_ptr + offs))  # -0.0 for +0.0 only from 3.8
```

## Use instead
```python
@triton.jit
def kernel(x_ptr, y_ptr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    tl.store(y_ptr + offs, 0.0 - tl.load(x_ptr + offs))  # the same in every version
```
",
};

/// The versions from the oldest to the newest of `declared`.
pub fn declared_range(declared: &[TritonVersion]) -> Vec<TritonVersion> {
    let (Some(lo), Some(hi)) = (declared.iter().min(), declared.iter().max()) else {
        return Vec::new();
    };
    TritonVersion::ALL
        .into_iter()
        .filter(|v| v >= lo && v <= hi)
        .collect()
}

/// What one version made of the kernel.
enum Outcome {
    /// The lowered kernel.
    Lowered(Box<Function>),
    /// The first error.
    Rejected(Diagnostic),
    /// Lowering panicked: nothing to compare.
    Unknown,
}

/// One op as a comparison sees it: what it does, on which types, giving which types.
fn op_shape(func: &Function, op: OpId) -> String {
    let data = func.op(op);
    let operands: Vec<String> = data
        .operands()
        .iter()
        .map(|&v| format!("{:?}", func.value_type(v)))
        .collect();
    let results: Vec<String> = data
        .results()
        .iter()
        .map(|&v| format!("{:?}", func.value_type(v)))
        .collect();
    format!(
        "{:?} ({}) -> ({})",
        data.kind,
        operands.join(", "),
        results.join(", ")
    )
}

/// The first op (in program order) where `a` and `b` differ: its index in each walk.
fn first_difference(a: &Function, b: &Function) -> Option<(Option<OpId>, Option<OpId>)> {
    let (wa, wb) = (a.walk(), b.walk());
    for i in 0..wa.len().max(wb.len()) {
        let (oa, ob) = (wa.get(i).copied(), wb.get(i).copied());
        let same = match (oa, ob) {
            (Some(x), Some(y)) => op_shape(a, x) == op_shape(b, y),
            _ => false,
        };
        if !same {
            return Some((oa, ob));
        }
    }
    None
}

/// Whether `d` is tritonc's refusal of a construct whose meaning a later version changed
/// in a way it does not model yet (E0302 "… under Triton 3.9 is not yet supported by
/// tritonc"), rather than that version's own rejection.
fn not_modelled(d: &Diagnostic) -> bool {
    d.code.0 == "E0302"
        && d.message.contains(" under Triton ")
        && d.message.contains("not yet supported")
}

/// The span in the kernel's file for a span that may lie in a helper: the helper's call
/// site in the kernel when it does not.
fn in_file(cx: &KernelContext<'_>, span: Span, call_sites: &[Span]) -> Span {
    if span.file == cx.file {
        return span;
    }
    call_sites
        .iter()
        .rev()
        .copied()
        .find(|s| s.file == cx.file)
        .unwrap_or(cx.kernel.def.name.span)
}

impl Rule for TritonVersionDependent {
    fn doc(&self) -> &'static CodeDoc {
        &DOC
    }

    // It lowers the kernel itself, once per declared version.
    fn needs_ir(&self) -> bool {
        false
    }

    fn check(&self, cx: &KernelContext<'_>, out: &mut Vec<Finding>) {
        let versions = declared_range(&cx.settings.triton_versions);
        if versions.len() < 2 {
            return;
        }
        let name = &cx.kernel.def.name.name;
        let outcomes: Vec<Outcome> = versions
            .iter()
            .map(|&v| {
                let mut spec = cx.spec.spec.clone();
                spec.options.triton_version = v;
                let lowered = catch_unwind(AssertUnwindSafe(|| {
                    tritonc_sema::lower_kernel_in(cx.scope, name, &spec)
                }));
                match lowered {
                    Ok(Ok(l)) => match l.module.functions.into_iter().find(|f| &f.name == name) {
                        Some(f) => Outcome::Lowered(Box::new(f)),
                        None => Outcome::Unknown,
                    },
                    Ok(Err(ds)) => ds
                        .into_iter()
                        .next()
                        .map_or(Outcome::Unknown, Outcome::Rejected),
                    Err(_) => Outcome::Unknown,
                }
            })
            .collect();
        let mut reported: Vec<Span> = Vec::new();
        for i in 1..versions.len() {
            let (va, vb) = (versions[i - 1], versions[i]);
            let finding = match (&outcomes[i - 1], &outcomes[i]) {
                (Outcome::Lowered(_), Outcome::Rejected(d))
                | (Outcome::Rejected(d), Outcome::Lowered(_)) => {
                    let (ok, bad) = match &outcomes[i] {
                        Outcome::Rejected(_) => (va, vb),
                        _ => (vb, va),
                    };
                    let span = d
                        .primary_span()
                        .map(|s| in_file(cx, s, &[]))
                        .unwrap_or(cx.kernel.def.name.span);
                    let message = if not_modelled(d) {
                        format!(
                            "`{name}` uses a construct whose meaning Triton {bad} changed, and \
                             tritonc does not model that version's rule: check it under both \
                             Triton {ok} and Triton {bad}, declared in `triton-versions`"
                        )
                    } else {
                        format!(
                            "`{name}` compiles under Triton {ok} but not under Triton {bad}, \
                             both declared in `triton-versions`"
                        )
                    };
                    Diagnostic::warning(DOC.code, message)
                        .with_primary(span, format!("Triton {bad}: {}", d.message))
                }
                (Outcome::Lowered(a), Outcome::Lowered(b)) => {
                    let Some((oa, ob)) = first_difference(a, b) else {
                        continue;
                    };
                    let (func, op) = match (oa, ob) {
                        (Some(op), _) => (&**a, op),
                        (None, Some(op)) => (&**b, op),
                        (None, None) => continue,
                    };
                    let loc = &func.op(op).loc;
                    let span = match loc.known_span() {
                        Some(s) => in_file(cx, s, &loc.call_sites),
                        None => cx.kernel.def.name.span,
                    };
                    let name_of = |f: &Function, o: Option<OpId>| {
                        o.map_or("nothing".to_string(), |o| format!("`{}`", f.kind(o).name()))
                    };
                    Diagnostic::warning(
                        DOC.code,
                        format!(
                            "`{name}` means something else under Triton {vb} than under \
                             Triton {va}, both declared in `triton-versions`"
                        ),
                    )
                    .with_primary(span, "the first difference")
                    .with_note(format!(
                        "here Triton {va} computes {} and Triton {vb} {}",
                        name_of(a, oa),
                        name_of(b, ob)
                    ))
                }
                _ => continue,
            };
            let span = finding.primary_span().unwrap_or(cx.kernel.def.name.span);
            if reported.contains(&span) {
                continue;
            }
            reported.push(span);
            out.push(Finding::new(finding.with_help(
                "write it the way every declared version reads alike (docs/triton-versions.md \
                 lists the changes), or narrow `triton-versions`",
            )));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_declared_list_is_a_range() {
        use TritonVersion::*;
        assert_eq!(declared_range(&[V3_9, V3_6]), vec![V3_6, V3_7, V3_8, V3_9]);
        assert_eq!(declared_range(&[V3_7]), vec![V3_7]);
        assert_eq!(declared_range(&[]), Vec::<TritonVersion>::new());
    }
}
