//! The rule registry: every rule with its code, name and documentation.
//!
//! A rule's documentation lives in its own file under `rules/` as `DOC` (Markdown with
//! "What it does", "Why is this bad?", "Example", "Use instead"); [`REGISTRY`] feeds
//! `tritonc rule CODE`, `docs/rules/` and the SARIF rule metadata from the same text.

use tritonc_diagnostics::{Code, CodeDoc, CodeRegistry, Severity};

use crate::context::{Finding, KernelContext};
use crate::rules::*;

/// One lint rule.
pub trait Rule: Sync {
    /// The rule's code and documentation.
    fn doc(&self) -> &'static CodeDoc;
    /// Checks one kernel.
    fn check(&self, cx: &KernelContext<'_>, out: &mut Vec<Finding>);
    /// Whether the rule needs the lowered IR (rules that read only the source run even
    /// when lowering fails).
    fn needs_ir(&self) -> bool {
        true
    }
    /// Whether a rule that needs the IR also checks, from the source, the variants that did
    /// not lower (`cx.ir` is `None` then).
    fn checks_unlowered(&self) -> bool {
        false
    }
    /// The severity of its diagnostics.
    fn severity(&self) -> Severity {
        Severity::Warning
    }
}

/// Every rule, in code order.
pub static RULES: &[&dyn Rule] = &[
    &tri101::UnmaskedBlockAccess,
    &tri102::MissingOther,
    &tri103::WrongFillValue,
    &tri201::LowPrecisionReduction,
    &tri202::LowPrecisionDotAccumulator,
    &tri203::Int32OffsetOverflow,
    &tri204::ImplicitTf32,
    &tri301::AutotunedReductionBlock,
    &tri302::NonPowerOfTwoBlock,
    &tri303::DotDimensionTooSmall,
    &tri304::AutotuneKeyUnknown,
    &tri401::TritonVersionDependent,
];

/// A kernel lint could not lower, so only source-level rules ran on it.
pub const KERNEL_NOT_ANALYSED: Code = Code("TRI001");
/// A suppression comment that suppressed nothing.
pub const UNUSED_SUPPRESSION: Code = Code("TRI002");

/// The lint stage's code registry, for `tritonc rule`.
pub static REGISTRY: CodeRegistry = CodeRegistry::new("lint", CODES);

static CODES: &[CodeDoc] = &[
    CodeDoc {
        code: KERNEL_NOT_ANALYSED,
        name: "kernel-not-analysed",
        summary: "a kernel could not be lowered, so only source-level rules checked it",
        explanation: "\
## What it does
Reports a `@triton.jit` kernel that lint could not lower to the tile IR (a builtin or
construct tritonc does not model yet, or a value the lint specialization could not guess).
The IR-based rules (TRI101-TRI204, TRI301, TRI303) did not run on it; TRI302 and TRI304 did.
The note carries the reason.

## Why is this bad?
It is not: it says where the linter is blind. The severity is `info`, and the exit status
does not change.

## Example
```python
@triton.jit
def k(x_ptr, BLOCK: tl.constexpr):
    x = tl.some_new_builtin(x_ptr)
```

## Use instead
Give the kernel a signature in the configuration (`[tool.tritonc.kernels.k] signature =
\"*fp16, 128\"`) when the guess was wrong, or wait for support of the construct.
",
    },
    CodeDoc {
        code: UNUSED_SUPPRESSION,
        name: "unused-suppression",
        summary: "a suppression comment names a code that was not reported there",
        explanation: "\
## What it does
Reports a `# noqa: TRI101` or `# tritonc: ignore[TRI101]` comment that suppressed nothing:
the code was not reported on that line (or, on an `@triton.jit` line, in that kernel).

## Why is this bad?
Stale suppressions hide future findings and mislead readers about the code.

## Example
```python
x = tl.load(x_ptr + offs, mask=mask)  # noqa: TRI101
```

## Use instead
```python
x = tl.load(x_ptr + offs, mask=mask)
```
",
    },
    tri101::DOC,
    tri102::DOC,
    tri103::DOC,
    tri201::DOC,
    tri202::DOC,
    tri203::DOC,
    tri204::DOC,
    tri301::DOC,
    tri302::DOC,
    tri303::DOC,
    tri304::DOC,
    tri401::DOC,
];

/// The rule with `code`, if any.
pub fn rule(code: &str) -> Option<&'static dyn Rule> {
    RULES
        .iter()
        .copied()
        .find(|r| r.doc().code.0.eq_ignore_ascii_case(code))
}
