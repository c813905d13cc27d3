//! TRI304 autotune-key-unknown.

use tritonc_diagnostics::{CodeDoc, Diagnostic, Fix, TextEdit};

use crate::context::{Finding, KernelContext};
use crate::registry::Rule;

/// Flags autotune keys that name no kernel parameter.
pub struct AutotuneKeyUnknown;

/// The rule's documentation.
pub const DOC: CodeDoc = CodeDoc {
    code: tritonc_diagnostics::Code("TRI304"),
    name: "autotune-key-unknown",
    summary: "an autotune `key` names no parameter of the kernel",
    explanation: "\
## What it does
Reports each name in `@triton.autotune(key=[...])` that is not a parameter of the kernel.

## Why is this bad?
The autotuner re-tunes when the values of the key arguments change. A misspelt key fails
at the first launch with a `KeyError` deep inside Triton, or, for a name passed by keyword
elsewhere, keys the cache on the wrong thing.

## Fix
When a parameter's name is close to the key's, the fix renames the key to it. The name is a
guess (the key may have meant another parameter, or one the kernel lost), so the fix is
unsafe: `--fix` alone leaves it, `--fix --unsafe-fixes` applies it.

## Example
```python
@triton.autotune(configs=configs, key=['n_col'])
@triton.jit
def kernel(x_ptr, n_cols, BLOCK: tl.constexpr): ...
```

## Use instead
```python
@triton.autotune(configs=configs, key=['n_cols'])
@triton.jit
def kernel(x_ptr, n_cols, BLOCK: tl.constexpr): ...
```
",
};

impl Rule for AutotuneKeyUnknown {
    fn doc(&self) -> &'static CodeDoc {
        &DOC
    }

    fn needs_ir(&self) -> bool {
        false
    }

    fn check(&self, cx: &KernelContext<'_>, out: &mut Vec<Finding>) {
        let Some(autotune) = &cx.kernel.autotune else {
            return;
        };
        let def = &cx.kernel.def;
        let params: Vec<&str> = def.params.iter().map(|p| p.name.name.as_str()).collect();
        for (name, span) in &autotune.key {
            if params.contains(&name.as_str()) {
                continue;
            }
            let mut d = Diagnostic::warning(
                DOC.code,
                format!(
                    "autotune key `{name}` is not a parameter of `{}`",
                    def.name.name
                ),
            )
            .with_primary(*span, "no such parameter")
            .with_secondary(def.header_span, "parameters declared here");
            let suggestion =
                tritonc_sema::builtins::names::did_you_mean(name, params.iter().copied());
            match suggestion {
                Some(s) => {
                    d = d.with_help(format!("did you mean `{s}`?"));
                    let quoted = cx.slice(*span);
                    let q = quoted.chars().next().filter(|c| *c == '\'' || *c == '"');
                    if let Some(q) = q {
                        d = d.with_fix(Fix {
                            message: format!("use `{s}`"),
                            edits: vec![TextEdit {
                                span: *span,
                                replacement: format!("{q}{s}{q}"),
                            }],
                        });
                    }
                }
                None => {
                    d = d.with_note(format!("the parameters are: {}", params.join(", ")));
                }
            }
            // A guessed name is never a safe fix: it may not be the parameter meant.
            out.push(Finding::new(d));
        }
    }
}
