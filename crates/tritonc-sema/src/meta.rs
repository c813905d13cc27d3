//! Meta-parameters and signature-less specialization.
//!
//! A kernel's parameters are fixed by a signature ([`bind_kernel_signature`]) or, without
//! one, by its annotations ([`specialize_from_annotations`]). Parameters that
//! `@triton.autotune` configs or `@triton.heuristics` set take no signature item unless the
//! signature lists every parameter; [`expand_variants`] then fills them the way Triton's
//! launcher does: one variant per config (config kwargs, `num_warps`, `num_stages`), then
//! each heuristic, called with the launch arguments as far as they are known ahead of time.

use indexmap::IndexMap;
use std::sync::Arc;
use tritonc_diagnostics::{Diagnostic, Span};
use tritonc_syntax::ast::{Constant, Expr, ExprKind, FunctionDef, Param, ParamKind};
use tritonc_syntax::Kernel;

use crate::codes;
use crate::constexpr;
use crate::lower::ModuleScope;
use crate::spec::{
    bind_signature, is_constexpr_annotation, parse_signature, ArgSpec, ItemKind, LaunchOptions,
    SignatureItem, Specialization,
};
use crate::value::{Constexpr, HostObject};

/// The parameters autotune configs and heuristics set, in parameter order.
pub fn meta_params(kernel: &Kernel) -> Vec<String> {
    let mut names: Vec<&str> = kernel.heuristics.iter().map(|h| h.name.as_str()).collect();
    if let Some(autotune) = &kernel.autotune {
        for config in &autotune.configs {
            names.extend(config.kwargs.iter().map(|(name, _)| name.as_str()));
        }
    }
    kernel
        .def
        .params
        .iter()
        .map(|p| p.name.name.clone())
        .filter(|p| names.contains(&p.as_str()))
        .collect()
}

/// A specialization with the meta-parameters it leaves for configs and heuristics.
#[derive(Debug, Clone)]
pub struct BoundKernel {
    /// The specialization; unset meta-parameters hold `None` until [`expand_variants`].
    pub spec: Specialization,
    /// Meta-parameters the signature did not give.
    pub unset_meta: Vec<String>,
}

/// Binds a parsed signature to a discovered kernel. A signature listing every parameter
/// gives the meta-parameters explicitly; otherwise they are left to configs and heuristics.
pub fn bind_kernel_signature(
    kernel: &Kernel,
    items: &[SignatureItem],
    options: LaunchOptions,
    signature_span: Span,
) -> Result<BoundKernel, Vec<Diagnostic>> {
    let meta = meta_params(kernel);
    let all = kernel.def.params.len();
    let unreadable = kernel.autotune.as_ref().and_then(|a| a.unexpanded.first());
    if let (Some(u), true) = (unreadable, items.len() != all) {
        return Err(vec![Diagnostic::error(
            codes::BAD_META_PARAMETER,
            format!(
                "the autotune configs of `{}` cannot be read ahead of time, so the signature must list all {all} parameters",
                kernel.name
            ),
        )
        .with_primary(u.expr.span, u.reason.clone())
        .with_secondary(signature_span, format!("{} item(s) given", items.len()))
        .with_help("append the meta-parameters' values to `--signature`, or list the `triton.Config`s literally in the decorator")]);
    }
    let unset_meta = if items.len() == all { Vec::new() } else { meta };
    let refs: Vec<&str> = unset_meta.iter().map(String::as_str).collect();
    let spec = bind_signature(&kernel.def, items, &refs, options, signature_span)?;
    Ok(BoundKernel { spec, unset_meta })
}

/// What an annotation alone says about a parameter, if anything.
fn annotation_item(p: &Param, scope: &ModuleScope) -> Result<Option<ArgSpec>, Diagnostic> {
    let Some(ann) = &p.annotation else {
        return Ok(None);
    };
    if is_constexpr_annotation(ann) {
        return match &p.default {
            Some(d) => constexpr::eval_expr(d, scope).map(|v| Some(ArgSpec::Constexpr(v))),
            None => Ok(None),
        };
    }
    // A string annotation in signature syntax: `x_ptr: "*fp32"`, `n: "i32"`.
    if let Some(text) = ann.as_str_literal() {
        // The text starts after the opening quote.
        let file = ann.span.file;
        let Ok(mut items) = parse_signature(text, file) else {
            return Ok(None);
        };
        return Ok(match items.pop() {
            Some(SignatureItem {
                kind:
                    ItemKind::Pointer {
                        pointee,
                        is_const,
                        hint,
                    },
                ..
            }) if items.is_empty() => Some(ArgSpec::Pointer {
                pointee,
                is_const,
                divisibility: hint,
            }),
            Some(SignatureItem {
                kind: ItemKind::Scalar { dtype, hint },
                ..
            }) if items.is_empty() => Some(ArgSpec::Scalar {
                dtype,
                divisibility: hint,
            }),
            _ => None,
        });
    }
    // A dtype annotation: `n: tl.int32`.
    match constexpr::eval_expr(ann, scope) {
        Ok(Constexpr::DType(tritonc_ir::Elem::DType(d))) => Ok(Some(ArgSpec::Scalar {
            dtype: d,
            divisibility: None,
        })),
        Ok(Constexpr::DType(tritonc_ir::Elem::Ptr(p))) => Ok(Some(ArgSpec::Pointer {
            pointee: p.pointee,
            is_const: false,
            divisibility: None,
        })),
        _ => Ok(None),
    }
}

/// A signature item to suggest for a parameter whose type is unknown.
fn suggested_item(p: &Param) -> String {
    let name = p.name.name.as_str();
    if p.annotation.as_ref().is_some_and(is_constexpr_annotation) {
        "1024".into()
    } else if name.contains("ptr") || name.ends_with("_p") {
        "*fp32:16".into()
    } else {
        "i32".into()
    }
}

/// Specializes a kernel from its annotations alone (no `--signature`): `tl.constexpr`
/// parameters take their defaults, dtype annotations give scalars, signature-syntax string
/// annotations give any type. Meta-parameters are left to [`expand_variants`].
pub fn specialize_from_annotations(
    kernel: &Kernel,
    scope: &ModuleScope,
    options: LaunchOptions,
) -> Result<BoundKernel, Vec<Diagnostic>> {
    let def: &FunctionDef = &kernel.def;
    let meta = meta_params(kernel);
    let mut params = Vec::new();
    let mut missing = Vec::new();
    let mut template = Vec::new();
    let mut errors = Vec::new();
    for p in &def.params {
        let name = p.name.name.clone();
        if !matches!(p.kind, ParamKind::Positional | ParamKind::PositionalOnly) {
            errors.push(
                Diagnostic::error(
                    codes::SIGNATURE_MALFORMED,
                    "kernels with `*args`, `**kwargs` or keyword-only parameters cannot be specialized",
                )
                .with_primary(p.span, ""),
            );
            continue;
        }
        if meta.contains(&name) {
            params.push((name, ArgSpec::Constexpr(Constexpr::None)));
            continue;
        }
        match annotation_item(p, scope) {
            Ok(Some(spec)) => {
                template.push(spec.to_string());
                params.push((name, spec));
            }
            Ok(None) => {
                template.push(suggested_item(p));
                missing.push(p);
            }
            Err(d) => errors.push(d),
        }
    }
    if !errors.is_empty() {
        return Err(errors);
    }
    if !missing.is_empty() {
        let names: Vec<String> = missing
            .iter()
            .map(|p| format!("`{}`", p.name.name))
            .collect();
        let mut d = Diagnostic::error(
            codes::SIGNATURE_REQUIRED,
            format!(
                "`{}` needs a signature: {} {} no type or value",
                kernel.name,
                names.join(", "),
                if missing.len() == 1 { "has" } else { "have" }
            ),
        );
        for (i, p) in missing.iter().enumerate() {
            let what = if p.annotation.as_ref().is_some_and(is_constexpr_annotation) {
                "a `tl.constexpr` without a default"
            } else {
                "no type annotation"
            };
            d = if i == 0 {
                d.with_primary(p.span, what)
            } else {
                d.with_secondary(p.span, what)
            };
        }
        d = d.with_help(format!(
            "add `--signature \"{}\"` (adjust the dtypes, hints and values), or put it in \
             the project configuration as `[tool.tritonc.kernels.{}] signature = \"…\"`",
            template.join(", "),
            kernel.name
        ));
        if !meta.is_empty() {
            d = d.with_note(format!(
                "set by autotune configs or heuristics, so not listed: {}",
                meta.join(", ")
            ));
        }
        return Err(vec![d]);
    }
    Ok(BoundKernel {
        spec: Specialization {
            kernel: def.name.name.clone(),
            params,
            options,
        },
        unset_meta: meta,
    })
}

/// One specialization to compile: the bound kernel with its meta-parameters filled.
#[derive(Debug, Clone)]
pub struct KernelVariant {
    /// The autotune config it comes from (index into the kernel's configs), if any.
    pub config: Option<usize>,
    /// `BLOCK_M=128, BLOCK_N=64, num_warps=8, num_stages=3` for a config variant.
    pub label: Option<String>,
    /// The complete specialization.
    pub spec: Specialization,
}

fn eval_u32(e: &Expr, scope: &ModuleScope, what: &str) -> Result<u32, Diagnostic> {
    let v = constexpr::eval_expr(e, scope)?;
    v.as_int()
        .and_then(|i| u32::try_from(i).ok())
        .ok_or_else(|| {
            Diagnostic::error(
                codes::BAD_META_PARAMETER,
                format!("`{what}` must be a non-negative int, not `{v}`"),
            )
            .with_primary(e.span, "")
        })
}

/// Fills the unset meta-parameters of `bound`: one variant per autotune config when the
/// configs set any of them, then every heuristic. Without meta-parameters the result is
/// the one bound specialization.
pub fn expand_variants(
    kernel: &Kernel,
    scope: &ModuleScope,
    bound: &BoundKernel,
) -> Result<Vec<KernelVariant>, Vec<Diagnostic>> {
    let unset = &bound.unset_meta;
    let mut variants = Vec::new();
    let tuned = kernel.autotune.as_ref().filter(|a| {
        a.configs
            .iter()
            .any(|c| c.kwargs.iter().any(|(k, _)| unset.contains(k)))
            || (!a.unexpanded.is_empty() && !unset.is_empty())
    });
    match tuned {
        Some(autotune) => {
            if let Some(u) = autotune.unexpanded.first() {
                return Err(vec![Diagnostic::error(
                    codes::BAD_META_PARAMETER,
                    format!("tritonc cannot read these autotune configs: {}", u.reason),
                )
                .with_primary(u.expr.span, "")
                .with_help("list the `triton.Config`s literally, or give every meta-parameter in `--signature`")]);
            }
            for (i, config) in autotune.configs.iter().enumerate() {
                let mut values = Vec::new();
                let mut label = Vec::new();
                let mut errors = Vec::new();
                for (k, e) in &config.kwargs {
                    match constexpr::eval_expr(e, scope) {
                        Ok(v) => {
                            label.push(format!("{k}={v}"));
                            values.push((k.clone(), v));
                        }
                        Err(d) => errors.push(d),
                    }
                }
                let num_warps = config
                    .num_warps
                    .as_ref()
                    .map(|e| eval_u32(e, scope, "num_warps"))
                    .transpose()
                    .map_err(|d| vec![d])?;
                let num_stages = config
                    .num_stages
                    .as_ref()
                    .map(|e| eval_u32(e, scope, "num_stages"))
                    .transpose()
                    .map_err(|d| vec![d])?;
                if !errors.is_empty() {
                    return Err(errors);
                }
                let spec = bound
                    .spec
                    .with_meta(&values, num_warps, num_stages, config.span)
                    .map_err(|d| vec![d])?;
                label.push(format!("num_warps={}", spec.options.num_warps));
                label.push(format!("num_stages={}", spec.options.num_stages));
                variants.push(KernelVariant {
                    config: Some(i),
                    label: Some(label.join(", ")),
                    spec,
                });
            }
        }
        None => variants.push(KernelVariant {
            config: None,
            label: None,
            spec: bound.spec.clone(),
        }),
    }
    for v in &mut variants {
        let set_by_config: Vec<&str> = match (v.config, &kernel.autotune) {
            (Some(i), Some(a)) => a.configs[i]
                .kwargs
                .iter()
                .map(|(k, _)| k.as_str())
                .collect(),
            _ => Vec::new(),
        };
        for h in &kernel.heuristics {
            if !unset.contains(&h.name) {
                continue;
            }
            let still_unset: Vec<&str> = unset
                .iter()
                .map(String::as_str)
                .filter(|n| !set_by_config.contains(n))
                .collect();
            let value = apply_heuristic(h, &v.spec, &still_unset, scope).map_err(|d| vec![d])?;
            v.spec = v
                .spec
                .with_meta(&[(h.name.clone(), value)], None, None, h.name_span)
                .map_err(|d| vec![d])?;
        }
    }
    Ok(variants)
}

/// The launch-arguments dict a heuristic sees, as far as `spec` knows it: constexpr values,
/// pointers as tensors with a `dtype`. Runtime scalars (and meta-parameters not yet set)
/// are missing: their values are only known at launch.
fn launch_args(spec: &Specialization, unset: &[&str]) -> (HostObject, IndexMap<String, String>) {
    let mut fields = IndexMap::new();
    let mut unknown = IndexMap::new();
    for (name, s) in &spec.params {
        match s {
            ArgSpec::Constexpr(c) if !unset.contains(&name.as_str()) => {
                fields.insert(name.clone(), c.clone());
            }
            ArgSpec::Constexpr(_) => {
                unknown.insert(name.clone(), "a meta-parameter set later".to_string());
            }
            ArgSpec::Pointer { pointee, .. } => {
                let mut t = IndexMap::new();
                t.insert("dtype".to_string(), Constexpr::dtype(*pointee));
                fields.insert(
                    name.clone(),
                    Constexpr::Object(Arc::new(HostObject {
                        type_name: "tensor".into(),
                        fields: t,
                    })),
                );
            }
            ArgSpec::Scalar { .. } => {
                unknown.insert(name.clone(), format!("`{s}` in the signature"));
            }
        }
    }
    (
        HostObject {
            type_name: "dict".into(),
            fields,
        },
        unknown,
    )
}

/// `args['NAME']` reads in a heuristic body, with their spans.
fn subscript_keys<'e>(e: &'e Expr, dict: &str, out: &mut Vec<(&'e str, Span)>) {
    match &e.kind {
        ExprKind::Subscript { value, index } => {
            if let (Some(n), ExprKind::Constant(Constant::Str(k))) = (value.as_name(), &index.kind)
            {
                if n == dict {
                    out.push((k.as_str(), e.span));
                }
            }
            subscript_keys(value, dict, out);
            subscript_keys(index, dict, out);
        }
        ExprKind::Attribute { value, .. } | ExprKind::UnaryOp { operand: value, .. } => {
            subscript_keys(value, dict, out)
        }
        ExprKind::Call(c) => {
            subscript_keys(&c.func, dict, out);
            c.args.iter().for_each(|a| subscript_keys(a, dict, out));
            c.keywords
                .iter()
                .for_each(|k| subscript_keys(&k.value, dict, out));
        }
        ExprKind::BinOp { lhs, rhs, .. } => {
            subscript_keys(lhs, dict, out);
            subscript_keys(rhs, dict, out);
        }
        ExprKind::Compare {
            left, comparators, ..
        } => {
            subscript_keys(left, dict, out);
            comparators
                .iter()
                .for_each(|c| subscript_keys(c, dict, out));
        }
        ExprKind::IfExp { test, body, orelse } => {
            subscript_keys(test, dict, out);
            subscript_keys(body, dict, out);
            subscript_keys(orelse, dict, out);
        }
        ExprKind::BoolOp { values: items, .. } | ExprKind::Tuple(items) | ExprKind::List(items) => {
            items.iter().for_each(|i| subscript_keys(i, dict, out))
        }
        _ => {}
    }
}

/// Evaluates one heuristic over the known launch arguments.
fn apply_heuristic(
    h: &tritonc_syntax::discovery::Heuristic,
    spec: &Specialization,
    unset: &[&str],
    scope: &ModuleScope,
) -> Result<Constexpr, Diagnostic> {
    let ExprKind::Lambda { params, body } = &h.value.kind else {
        return Err(Diagnostic::error(
            codes::BAD_META_PARAMETER,
            format!(
                "tritonc evaluates heuristics written as `lambda args: ...`; `{}` is not one",
                h.name
            ),
        )
        .with_primary(h.value.span, "")
        .with_help("write the heuristic inline as a lambda, or give the value in `--signature`"));
    };
    let (args, unknown) = launch_args(spec, unset);
    if let Some(dict) = params.first().map(|p| p.name.name.as_str()) {
        let mut reads = Vec::new();
        subscript_keys(body, dict, &mut reads);
        for (key, span) in reads {
            if let Some(why) = unknown.get(key) {
                return Err(Diagnostic::error(
                    codes::HEURISTIC_NEEDS_VALUE,
                    format!(
                        "the heuristic for `{}` needs the value of `{key}`, which is only known at launch",
                        h.name
                    ),
                )
                .with_primary(span, format!("`{key}` is {why}"))
                .with_secondary(h.name_span, "heuristic defined here")
                .with_help(format!(
                    "give `{}` a value in `--signature`, or make `{key}` a `tl.constexpr`",
                    h.name
                )));
            }
        }
    }
    constexpr::call_lambda(&h.value, &[Constexpr::Object(Arc::new(args))], scope).map_err(|d| {
        d.with_secondary(
            h.name_span,
            format!("while evaluating the heuristic for `{}`", h.name),
        )
    })
}

/// Every name `def`'s body reads (calls, arguments, attribute bases): which other `@jit`
/// functions of its file it uses. A `@jit` function that another one of the same file
/// names is a helper inlined there, not an entry point a launcher calls.
pub fn names_read(def: &FunctionDef) -> std::collections::BTreeSet<String> {
    use crate::generic::walk::{expr_children, stmt_children, stmt_exprs};
    use tritonc_syntax::ast::Stmt;
    fn expr(e: &Expr, out: &mut std::collections::BTreeSet<String>) {
        if let ExprKind::Name(n) = &e.kind {
            out.insert(n.to_string());
        }
        expr_children(e, &mut |c| expr(c, out));
    }
    fn stmt(s: &Stmt, out: &mut std::collections::BTreeSet<String>) {
        stmt_exprs(s, &mut |e| expr(e, out));
        stmt_children(s, &mut |c| stmt(c, out));
    }
    let mut out = std::collections::BTreeSet::new();
    for s in &def.body {
        stmt(s, &mut out);
    }
    out
}
