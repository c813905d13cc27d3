//! The diagnostic codes this crate emits, with their documentation.
//!
//! `E0001` is a syntax error, `E01xx` a construct Triton does not accept inside a
//! `@triton.jit` body (one code per construct family), `E02xx` a problem with the
//! arguments of `@triton.jit`, `@triton.autotune` or `@triton.heuristics`.

use tritonc_diagnostics::Code;

/// The documentation of one diagnostic code, as `tritonc rule CODE` shows it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CodeDoc {
    /// The code, e.g. `E0101`.
    pub code: Code,
    /// A short kebab-case name, e.g. `break-in-kernel`.
    pub name: &'static str,
    /// One line: what the diagnostic reports.
    pub summary: &'static str,
    /// Markdown: why, an `## Example`, and `## Use instead`.
    pub explanation: &'static str,
}

/// The file is not valid Python.
pub const SYNTAX_ERROR: Code = Code("E0001");

/// Every code this crate emits, in code order.
pub fn codes() -> &'static [CodeDoc] {
    CODES
}

/// The documentation of `code`, if this crate defines it.
pub fn lookup(code: &str) -> Option<&'static CodeDoc> {
    CODES.iter().find(|d| d.code.0 == code)
}

static CODES: &[CodeDoc] = &[CodeDoc {
    code: SYNTAX_ERROR,
    name: "syntax-error",
    summary: "the file is not valid Python",
    explanation: "The parser could not read the file. Nothing in it is analysed until the \
error is fixed.\n\n## Example\n\n```python\n@triton.jit\ndef k(x_ptr\n    pass\n```\n\n\
## Use instead\n\n```python\n@triton.jit\ndef k(x_ptr):\n    pass\n```\n",
}];
