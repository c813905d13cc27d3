//! `prune_configs_by`: `early_config_prune(configs, named_args, **kwargs)` evaluated by
//! the compile-time evaluator, as Triton's autotuner calls it before timing — the configs
//! as `triton.Config` objects (`.kwargs`, `.num_warps`, `.num_stages`), the launch's
//! arguments by name (tensors with `.dtype` and `.shape`, scalars as numbers). A
//! `perf_model` (with `top_k`) is Python that models the GPU: tritonc does not run it,
//! and says so.

use std::sync::Arc;

use indexmap::IndexMap;
use tritonc_diagnostics::{Diagnostic, FileId, SourceMap};
use tritonc_sema::constexpr;
use tritonc_sema::value::HostObject;
use tritonc_sema::{Constexpr, ModuleScope};
use tritonc_syntax::ast::{ExprKind, StmtKind};

use super::autotuned::{Autotuned, TuneConfig};
use crate::codes;

/// A `triton.Config` as the pruning function sees it.
pub fn config_object(c: &TuneConfig) -> Constexpr {
    let kwargs: IndexMap<String, Constexpr> = c.values.iter().cloned().collect();
    let mut fields = IndexMap::new();
    fields.insert("kwargs".to_string(), dict(kwargs.clone()));
    fields.insert("all_kwargs".to_string(), dict(kwargs));
    fields.insert("num_warps".into(), Constexpr::Int(c.num_warps.into()));
    fields.insert("num_stages".into(), Constexpr::Int(c.num_stages.into()));
    fields.insert("num_ctas".into(), Constexpr::Int(1));
    fields.insert("maxnreg".into(), Constexpr::None);
    fields.insert("pre_hook".into(), Constexpr::None);
    Constexpr::Object(Arc::new(HostObject {
        type_name: "Config".into(),
        fields,
    }))
}

/// A dict object.
pub fn dict(fields: IndexMap<String, Constexpr>) -> Constexpr {
    Constexpr::Object(Arc::new(HostObject {
        type_name: "dict".into(),
        fields,
    }))
}

/// What pruning left, and what it could not honour.
#[derive(Debug, Clone, Default)]
pub struct Pruned {
    /// Indices of the configs to run, in order.
    pub kept: Vec<usize>,
    /// Warnings: a `perf_model`/`top_k` that is not run.
    pub warnings: Vec<Diagnostic>,
}

/// Applies `tuned.prune` to its configs for a launch whose named arguments are
/// `named_args`; `kernel_file` is the kernel's file in `sources` (where a named pruning
/// function is defined), `scope` its module scope.
pub fn prune(
    tuned: &Autotuned,
    named_args: &Constexpr,
    sources: &SourceMap,
    kernel_file: FileId,
    scope: &ModuleScope,
) -> Result<Pruned, Diagnostic> {
    let all: Vec<usize> = (0..tuned.configs.len()).collect();
    let Some(p) = &tuned.prune else {
        return Ok(Pruned {
            kept: all,
            warnings: Vec::new(),
        });
    };
    let mut warnings = Vec::new();
    if let Some(span) = p.perf_model {
        let mut w = Diagnostic::warning(
            codes::NOT_AUTOTUNED,
            "tritonc does not run `perf_model`: every config left by `early_config_prune` is timed",
        )
        .with_primary(span, "not run");
        if let Some(k) = p.top_k {
            w = w.with_secondary(k, "so `top_k` does not apply either");
        }
        warnings.push(w);
    }
    let Some(f) = &p.early_config_prune else {
        return Ok(Pruned {
            kept: all,
            warnings,
        });
    };
    let configs = Constexpr::Tuple(tuned.configs.iter().map(config_object).collect());
    let args = [configs, named_args.clone()];
    let result = match &f.kind {
        ExprKind::Lambda { .. } => constexpr::call_lambda(f, &args, scope),
        ExprKind::Name(name) => {
            let module = tritonc_syntax::parse_module(kernel_file, sources.get(kernel_file).text());
            let def = module.module.body.iter().find_map(|s| match &s.kind {
                StmtKind::FunctionDef(d) if &d.name.name == name => Some(d.clone()),
                _ => None,
            });
            match def {
                Some(def) => constexpr::call_function_def(&def, &args, &[], scope, f.span),
                None => Err(Diagnostic::error(
                    codes::NOT_AUTOTUNED,
                    format!("`{name}` is not a function defined in the kernel's file"),
                )
                .with_primary(f.span, "")),
            }
        }
        _ => Err(Diagnostic::error(
            codes::NOT_AUTOTUNED,
            "tritonc runs an `early_config_prune` written as a lambda or named by a function of the kernel's file",
        )
        .with_primary(f.span, "")),
    }
    .map_err(|d| {
        d.with_secondary(f.span, "while running `early_config_prune`")
            .with_note("tritonc runs pruning functions made of assignments, `if`, `return` and list comprehensions")
    })?;
    let Constexpr::Tuple(items) = result else {
        return Err(Diagnostic::error(
            codes::NOT_AUTOTUNED,
            format!("`early_config_prune` returned {}, not a list of configs", result.type_name()),
        )
        .with_primary(f.span, ""));
    };
    let objects: Vec<Constexpr> = tuned.configs.iter().map(config_object).collect();
    let mut kept = Vec::new();
    for item in &items {
        let found = objects
            .iter()
            .enumerate()
            .position(|(i, o)| o == item && !kept.contains(&i));
        match found {
            Some(i) => kept.push(i),
            None => {
                return Err(Diagnostic::error(
                    codes::NOT_AUTOTUNED,
                    "`early_config_prune` returned a config that is not one of the kernel's",
                )
                .with_primary(f.span, "")
                .with_note("tritonc tunes the decorator's configs; a pruning function may only drop some"))
            }
        }
    }
    if kept.is_empty() {
        return Err(Diagnostic::error(
            codes::NOT_AUTOTUNED,
            "`early_config_prune` removed every config",
        )
        .with_primary(f.span, ""));
    }
    Ok(Pruned { kept, warnings })
}
