//! What `@triton.autotune` says about a kernel, evaluated: its configs (meta-parameter
//! values, warps, stages), its `key`, the arguments `reset_to_zero` clears and
//! `restore_value` restores before every run, and its `prune_configs_by`.

use tritonc_diagnostics::{Diagnostic, Span};
use tritonc_sema::constexpr;
use tritonc_sema::{Constexpr, ModuleScope};
use tritonc_syntax::ast::{Expr, ExprKind};
use tritonc_syntax::discovery::Kernel;

use crate::codes;

/// Triton's `Config` defaults (3.6) for a config that does not say.
pub const DEFAULT_NUM_WARPS: u32 = 4;
/// See [`DEFAULT_NUM_WARPS`].
pub const DEFAULT_NUM_STAGES: u32 = 3;

/// One `triton.Config`, evaluated.
#[derive(Debug, Clone, PartialEq)]
pub struct TuneConfig {
    /// Its index in the decorator's list.
    pub index: usize,
    /// The meta-parameters it sets, in order.
    pub values: Vec<(String, Constexpr)>,
    /// Warps per program.
    pub num_warps: u32,
    /// Pipelining stages.
    pub num_stages: u32,
    /// Where it is written.
    pub span: Span,
}

impl TuneConfig {
    /// `BLOCK=64, num_warps=4, num_stages=3`.
    pub fn label(&self) -> String {
        let mut parts: Vec<String> = self
            .values
            .iter()
            .map(|(k, v)| format!("{k}={}", constexpr::calls::py_str(v, true)))
            .collect();
        parts.push(format!("num_warps={}", self.num_warps));
        parts.push(format!("num_stages={}", self.num_stages));
        parts.join(", ")
    }
}

/// `prune_configs_by={...}`.
#[derive(Debug, Clone)]
pub struct PruneBy {
    /// `early_config_prune`: a lambda, or the name of a module-level function.
    pub early_config_prune: Option<Expr>,
    /// `perf_model`, when set (tritonc does not run performance models).
    pub perf_model: Option<Span>,
    /// `top_k`, when set (it applies with a `perf_model` only, as in Triton).
    pub top_k: Option<Span>,
    /// The whole argument.
    pub span: Span,
}

/// An autotuned kernel's tuning description.
#[derive(Debug, Clone)]
pub struct Autotuned {
    /// The kernel.
    pub kernel: String,
    /// The configs, in order.
    pub configs: Vec<TuneConfig>,
    /// `key=[...]`: the parameters whose values select a tuning.
    pub key: Vec<String>,
    /// `reset_to_zero=[...]`.
    pub reset_to_zero: Vec<String>,
    /// `restore_value=[...]`.
    pub restore_value: Vec<String>,
    /// `prune_configs_by=...`.
    pub prune: Option<PruneBy>,
}

/// Reads the autotune decorator of `kernel`, evaluating configs over `scope`. A kernel
/// without one, or with configs tritonc cannot read, is an error at its span.
pub fn read(kernel: &Kernel, scope: &ModuleScope) -> Result<Autotuned, Vec<Diagnostic>> {
    let name = &kernel.name;
    let Some(a) = &kernel.autotune else {
        return Err(vec![Diagnostic::error(
            codes::NOT_AUTOTUNED,
            format!("`{name}` has no `@triton.autotune` decorator: there is nothing to tune"),
        )
        .with_primary(kernel.def.header_span, "")
        .with_help("`tritonc run` launches a kernel with the values its launch spec gives")]);
    };
    if let Some(u) = a.unexpanded.first() {
        return Err(vec![Diagnostic::error(
            codes::NOT_AUTOTUNED,
            format!("tritonc cannot read these autotune configs: {}", u.reason),
        )
        .with_primary(u.expr.span, "")
        .with_help("list the `triton.Config`s literally")]);
    }
    let mut configs = Vec::new();
    let mut errors = Vec::new();
    for (index, c) in a.configs.iter().enumerate() {
        let mut values = Vec::new();
        for (k, e) in &c.kwargs {
            match constexpr::eval_expr(e, scope) {
                Ok(v) => values.push((k.clone(), v)),
                Err(d) => errors.push(d),
            }
        }
        let int = |e: &Option<Expr>, what: &str, default: u32, errors: &mut Vec<Diagnostic>| {
            let Some(e) = e else { return default };
            match constexpr::eval_expr(e, scope).map(|v| v.as_int()) {
                Ok(Some(i)) if (1..=1024).contains(&i) => i as u32,
                Ok(_) => {
                    errors.push(
                        Diagnostic::error(codes::NOT_AUTOTUNED, format!("`{what}` must be a positive int"))
                            .with_primary(e.span, ""),
                    );
                    default
                }
                Err(d) => {
                    errors.push(d);
                    default
                }
            }
        };
        let num_warps = int(&c.num_warps, "num_warps", DEFAULT_NUM_WARPS, &mut errors);
        let num_stages = int(&c.num_stages, "num_stages", DEFAULT_NUM_STAGES, &mut errors);
        for (what, e) in [("pre_hook", &c.pre_hook), ("maxnreg", &c.maxnreg)] {
            if let Some(e) = e {
                if !matches!(e.kind, ExprKind::Constant(tritonc_syntax::ast::Constant::None)) {
                    errors.push(
                        Diagnostic::error(
                            codes::NOT_AUTOTUNED,
                            format!("tritonc cannot tune a config with `{what}`"),
                        )
                        .with_primary(e.span, "")
                        .with_note("the config would run differently under Triton"),
                    );
                }
            }
        }
        configs.push(TuneConfig {
            index,
            values,
            num_warps,
            num_stages,
            span: c.span,
        });
    }
    let mut reset_to_zero = Vec::new();
    let mut restore_value = Vec::new();
    let mut prune = None;
    for k in &a.other {
        let Some(kw) = &k.name else { continue };
        match kw.name.as_str() {
            "reset_to_zero" => reset_to_zero = names(&k.value, scope, &mut errors),
            "restore_value" => restore_value = names(&k.value, scope, &mut errors),
            "prune_configs_by" => match prune_by(&k.value) {
                Ok(p) => prune = p,
                Err(d) => errors.push(d),
            },
            "warmup" | "rep" | "use_cuda_graph" | "do_bench" | "cache_results" => {}
            "pre_hook" | "post_hook" => {
                if !matches!(k.value.kind, ExprKind::Constant(tritonc_syntax::ast::Constant::None)) {
                    errors.push(
                        Diagnostic::error(
                            codes::NOT_AUTOTUNED,
                            format!("tritonc cannot run the autotuner's `{}` (Python code around every run)", kw.name),
                        )
                        .with_primary(k.span, "")
                        .with_help("use `reset_to_zero`/`restore_value` for what the hook resets"),
                    );
                }
            }
            _ => {}
        }
    }
    for n in reset_to_zero.iter().chain(&restore_value) {
        if kernel.def.param(n).is_none() {
            errors.push(
                Diagnostic::error(
                    codes::NOT_AUTOTUNED,
                    format!("`{n}` is not a parameter of `{name}`"),
                )
                .with_primary(a.span, ""),
            );
        }
    }
    if !errors.is_empty() {
        return Err(errors);
    }
    Ok(Autotuned {
        kernel: name.clone(),
        configs,
        key: a.key.iter().map(|(k, _)| k.clone()).collect(),
        reset_to_zero,
        restore_value,
        prune,
    })
}

/// A list of argument names (`['y_ptr']`).
fn names(e: &Expr, scope: &ModuleScope, errors: &mut Vec<Diagnostic>) -> Vec<String> {
    match constexpr::eval_expr(e, scope) {
        Ok(Constexpr::Tuple(items)) => items
            .into_iter()
            .filter_map(|v| match v {
                Constexpr::Str(s) => Some(s),
                other => {
                    errors.push(
                        Diagnostic::error(
                            codes::NOT_AUTOTUNED,
                            format!("expected argument names, found {}", other.type_name()),
                        )
                        .with_primary(e.span, ""),
                    );
                    None
                }
            })
            .collect(),
        Ok(Constexpr::None) => Vec::new(),
        Ok(other) => {
            errors.push(
                Diagnostic::error(
                    codes::NOT_AUTOTUNED,
                    format!("expected a list of argument names, found {}", other.type_name()),
                )
                .with_primary(e.span, ""),
            );
            Vec::new()
        }
        Err(d) => {
            errors.push(d);
            Vec::new()
        }
    }
}

/// `prune_configs_by={...}` as written (a dict display).
fn prune_by(e: &Expr) -> Result<Option<PruneBy>, Diagnostic> {
    let entries = match &e.kind {
        ExprKind::Constant(tritonc_syntax::ast::Constant::None) => return Ok(None),
        ExprKind::Dict(entries) => entries,
        _ => {
            return Err(Diagnostic::error(
                codes::NOT_AUTOTUNED,
                "tritonc reads `prune_configs_by` written as a dict display",
            )
            .with_primary(e.span, "")
            .with_help("write `prune_configs_by={'early_config_prune': fn}` in the decorator"))
        }
    };
    let mut p = PruneBy {
        early_config_prune: None,
        perf_model: None,
        top_k: None,
        span: e.span,
    };
    for entry in entries {
        let key = match entry.key.as_ref().map(|k| &k.kind) {
            Some(ExprKind::Constant(tritonc_syntax::ast::Constant::Str(s))) => s.as_str(),
            _ => {
                return Err(Diagnostic::error(
                    codes::NOT_AUTOTUNED,
                    "`prune_configs_by` keys are strings",
                )
                .with_primary(entry.value.span, ""))
            }
        };
        let none = matches!(
            entry.value.kind,
            ExprKind::Constant(tritonc_syntax::ast::Constant::None)
        );
        match key {
            "early_config_prune" if !none => p.early_config_prune = Some(entry.value.clone()),
            "perf_model" if !none => p.perf_model = Some(entry.value.span),
            "top_k" if !none => p.top_k = Some(entry.value.span),
            "early_config_prune" | "perf_model" | "top_k" => {}
            other => {
                return Err(Diagnostic::error(
                    codes::NOT_AUTOTUNED,
                    format!("`prune_configs_by` has no key `{other}`"),
                )
                .with_primary(entry.value.span, ""))
            }
        }
    }
    Ok(Some(p))
}
