//! The lint specialization: a launch signature for a kernel analysed without one.
//!
//! Sema lowers kernels under a [`Specialization`] (pointer dtypes, integer widths and
//! constexpr values fixed). Lint has only the source, so it builds one per kernel from what
//! the source says, in this order:
//!
//! 1. a signature given in the project configuration (`[tool.tritonc.kernels.NAME]
//!    signature = "..."`): nothing is assumed;
//! 2. annotations (`x: tl.int64`, `x_ptr: tl.pointer_type(tl.float16)`, `x_ptr: "*fp16"`,
//!    `BLOCK: tl.constexpr = 128`), parameter defaults, the
//!    first `@triton.autotune` config, and heuristics whose value is a constant;
//! 3. for what is still unknown, a representative placeholder, recorded in
//!    [`Assumptions`]: pointers get an `f32` pointee, integers `i32`, block-size constexprs
//!    64, flags `False` (and a second variant with flags `True`), dtype constexprs `f32`.
//!
//! Rules ask [`Assumptions`] (through the dtype-provenance analysis) whether a fact they
//! would judge came from a placeholder, and stay quiet if so. Heuristics of the form
//! `args[N] % args[BLOCK] == 0` (`EVEN_N`) are set `False` in every variant: the masked
//! path is the general one, and the unmasked path is justified by the heuristic itself.
//!
//! [`lint_specializations`] is the only function that invents facts. When its variants do
//! not lower, [`crate::generic`] lowers the kernel with sema's generic mode instead
//! (constexprs symbolic rather than guessed).

use std::collections::{BTreeMap, BTreeSet};

use tritonc_diagnostics::{Diagnostic, Span};
use tritonc_ir::{DType, Elem};
use tritonc_sema::spec::{
    bind_signature, eval_meta_value, is_constexpr_annotation, parse_signature,
};
use tritonc_sema::{ArgSpec, Constexpr, LaunchOptions, Specialization};
use tritonc_syntax::ast::{BinOp, CmpOp, Expr, ExprKind, FunctionDef, Stmt, StmtKind};
use tritonc_syntax::Kernel;

use crate::syntax_walk::for_each_expr;

/// The placeholder pointee of a pointer whose dtype the source does not say.
pub const ASSUMED_POINTEE: DType = DType::F32;
/// The placeholder value of an integer constexpr the source does not fix.
pub const ASSUMED_BLOCK: i128 = 64;

/// Which facts of a [`LintSpecialization`] are placeholders.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Assumptions {
    /// Pointer parameters whose pointee dtype is assumed.
    pub pointer_dtypes: BTreeSet<String>,
    /// Scalar parameters whose dtype is assumed.
    pub scalar_types: BTreeSet<String>,
    /// Constexpr parameters given a placeholder value, with the value.
    pub constexprs: BTreeMap<String, Constexpr>,
    /// Divisibility heuristics (`EVEN_N`) set `False` so the masked path is analysed.
    pub divisibility_flags: BTreeSet<String>,
}

impl Assumptions {
    /// Whether any parameter named in `names` has an assumed value or type.
    pub fn mentions_any<'a>(&self, names: impl IntoIterator<Item = &'a str>) -> bool {
        names.into_iter().any(|n| {
            self.constexprs.contains_key(n)
                || self.pointer_dtypes.contains(n)
                || self.scalar_types.contains(n)
        })
    }
}

/// A specialization to lower a kernel under, with what it assumed.
#[derive(Debug, Clone)]
pub struct LintSpecialization {
    /// The specialization handed to sema.
    pub spec: Specialization,
    /// Which of its facts are placeholders.
    pub assumed: Assumptions,
}

/// How a kernel's signature is given in the project configuration.
#[derive(Debug, Clone)]
pub struct ConfiguredSignature<'a> {
    /// The signature text in Triton's AOT syntax.
    pub text: &'a str,
    /// The file the signature text is registered as (for spans in its diagnostics).
    pub file: tritonc_diagnostics::FileId,
}

/// The specializations lint analyses `kernel` under (one, or two when it has flags).
/// A configured signature that does not bind is reported and the inferred one used.
pub fn lint_specializations(
    kernel: &Kernel,
    configured: Option<ConfiguredSignature<'_>>,
) -> (Vec<LintSpecialization>, Vec<Diagnostic>) {
    let mut diagnostics = Vec::new();
    let def = &*kernel.def;
    let meta = meta_values(kernel);
    if let Some(sig) = configured {
        match specialize_from_signature(kernel, &sig, &meta) {
            Ok(spec) => {
                return (
                    vec![LintSpecialization {
                        spec,
                        assumed: Assumptions::default(),
                    }],
                    diagnostics,
                )
            }
            Err(mut ds) => diagnostics.append(&mut ds),
        }
    }
    let usage = ParamUsage::of(def);
    let mut params = Vec::new();
    let mut assumed = Assumptions::default();
    let mut flags = Vec::new();
    for p in &def.params {
        let name = p.name.name.clone();
        let is_constexpr = p.annotation.as_ref().is_some_and(is_constexpr_annotation);
        if let Some(value) = meta.known.get(&name) {
            params.push((name, ArgSpec::Constexpr(value.clone())));
            continue;
        }
        if meta.divisibility.contains(&name) {
            assumed.divisibility_flags.insert(name.clone());
            params.push((name, ArgSpec::Constexpr(Constexpr::Bool(false))));
            continue;
        }
        let from_meta = meta.unknown.contains(&name);
        if is_constexpr || from_meta {
            if let Some(v) = p.default.as_ref().and_then(|d| eval_meta_value(d).ok()) {
                params.push((name, ArgSpec::Constexpr(v)));
                continue;
            }
            let value = if usage.flags.contains(&name) {
                flags.push(params.len());
                Constexpr::Bool(false)
            } else if usage.dtypes.contains(&name) {
                Constexpr::DType(Elem::DType(ASSUMED_POINTEE))
            } else if usage.unrolled.contains(&name) {
                Constexpr::Int(2)
            } else {
                Constexpr::Int(ASSUMED_BLOCK)
            };
            assumed.constexprs.insert(name.clone(), value.clone());
            params.push((name, ArgSpec::Constexpr(value)));
            continue;
        }
        if let Some(dtype) = p.annotation.as_ref().and_then(annotation_dtype) {
            params.push((
                name,
                ArgSpec::Scalar {
                    dtype,
                    divisibility: None,
                },
            ));
            continue;
        }
        if let Some(pointee) = p.annotation.as_ref().and_then(annotation_pointee) {
            params.push((
                name,
                ArgSpec::Pointer {
                    pointee,
                    is_const: false,
                    divisibility: None,
                },
            ));
            continue;
        }
        if usage.pointers.contains(&name) {
            assumed.pointer_dtypes.insert(name.clone());
            params.push((
                name,
                ArgSpec::Pointer {
                    pointee: ASSUMED_POINTEE,
                    is_const: false,
                    divisibility: None,
                },
            ));
            continue;
        }
        let dtype = if looks_float(&name) {
            DType::F32
        } else {
            DType::I32
        };
        assumed.scalar_types.insert(name.clone());
        params.push((
            name,
            ArgSpec::Scalar {
                dtype,
                divisibility: None,
            },
        ));
    }
    let spec = Specialization {
        kernel: def.name.name.clone(),
        params,
        options: meta.options.clone(),
    };
    let mut out = vec![LintSpecialization {
        spec: spec.clone(),
        assumed: assumed.clone(),
    }];
    if !flags.is_empty() {
        let mut on = spec;
        let mut assumed_on = assumed;
        for &i in &flags {
            on.params[i].1 = ArgSpec::Constexpr(Constexpr::Bool(true));
            assumed_on
                .constexprs
                .insert(on.params[i].0.clone(), Constexpr::Bool(true));
        }
        out.push(LintSpecialization {
            spec: on,
            assumed: assumed_on,
        });
    }
    (out, diagnostics)
}

/// Constexpr values from autotune configs and heuristics.
#[derive(Debug, Default)]
struct MetaValues {
    /// Values the first config or a constant heuristic fixes.
    known: BTreeMap<String, Constexpr>,
    /// Names configs or heuristics set to values lint cannot compute.
    unknown: BTreeSet<String>,
    /// Heuristics of the form `args[A] % args[B] == 0`.
    divisibility: BTreeSet<String>,
    /// num_warps / num_stages of the first config.
    options: LaunchOptions,
}

fn meta_values(kernel: &Kernel) -> MetaValues {
    let mut meta = MetaValues::default();
    if let Some(autotune) = &kernel.autotune {
        if let Some(config) = autotune.configs.first() {
            for (name, expr) in &config.kwargs {
                match eval_meta_value(expr) {
                    Ok(v) => {
                        meta.known.insert(name.clone(), v);
                    }
                    Err(_) => {
                        meta.unknown.insert(name.clone());
                    }
                }
            }
            let int = |e: &Option<Expr>| {
                e.as_ref()
                    .and_then(|e| e.as_int_literal())
                    .and_then(|v| u32::try_from(v).ok())
            };
            if let Some(w) = int(&config.num_warps).filter(|w| w.is_power_of_two()) {
                meta.options.num_warps = w;
            }
            if let Some(s) = int(&config.num_stages) {
                meta.options.num_stages = s;
            }
        }
        for config in &autotune.configs {
            for (name, _) in &config.kwargs {
                if !meta.known.contains_key(name) {
                    meta.unknown.insert(name.clone());
                }
            }
        }
    }
    for h in &kernel.heuristics {
        if meta.known.contains_key(&h.name) {
            continue;
        }
        let body = match &h.value.kind {
            ExprKind::Lambda { body, .. } => &**body,
            _ => &h.value,
        };
        if is_divisibility_test(body) {
            meta.divisibility.insert(h.name.clone());
        } else if let Ok(v) = eval_meta_value(body) {
            meta.known.insert(h.name.clone(), v);
        } else {
            meta.unknown.insert(h.name.clone());
        }
    }
    meta
}

/// `a % b == 0` (either side), the shape of `EVEN_N`-style heuristics.
fn is_divisibility_test(e: &Expr) -> bool {
    match &e.kind {
        ExprKind::Compare {
            left,
            ops,
            comparators,
        } if ops.len() == 1 && ops[0] == CmpOp::Eq => {
            let is_mod = |x: &Expr| matches!(x.kind, ExprKind::BinOp { op: BinOp::Mod, .. });
            let is_zero = |x: &Expr| x.as_int_literal() == Some(0);
            (is_mod(left) && is_zero(&comparators[0])) || (is_zero(left) && is_mod(&comparators[0]))
        }
        ExprKind::BoolOp { values, .. } => values.iter().all(is_divisibility_test),
        _ => false,
    }
}

fn specialize_from_signature(
    kernel: &Kernel,
    sig: &ConfiguredSignature<'_>,
    meta: &MetaValues,
) -> Result<Specialization, Vec<Diagnostic>> {
    let items = parse_signature(sig.text, sig.file)?;
    let mut meta_names: Vec<&str> = meta
        .known
        .keys()
        .chain(meta.unknown.iter())
        .chain(meta.divisibility.iter())
        .map(String::as_str)
        .collect();
    meta_names.sort_unstable();
    meta_names.dedup();
    let span = Span::new(sig.file, 0, sig.text.len() as u32);
    let spec = bind_signature(&kernel.def, &items, &meta_names, meta.options.clone(), span)?;
    let mut values: Vec<(String, Constexpr)> = meta
        .known
        .iter()
        .map(|(k, v)| (k.clone(), v.clone()))
        .collect();
    values.extend(
        meta.divisibility
            .iter()
            .map(|k| (k.clone(), Constexpr::Bool(false))),
    );
    spec.with_meta(&values, None, None, span)
        .map_err(|d| vec![d])
}

/// The dtype a scalar annotation names (`tl.int64`, `"i64"`).
fn annotation_dtype(annotation: &Expr) -> Option<DType> {
    if let Some(s) = annotation.as_str_literal() {
        return DType::from_signature_name(s).or_else(|| DType::from_triton_name(s));
    }
    let path = annotation.dotted_path()?;
    let last = path.rsplit('.').next()?;
    path.contains('.')
        .then(|| DType::from_triton_name(last))
        .flatten()
}

/// The pointee dtype a pointer annotation names: `tl.pointer_type(tl.float16)` (or
/// `element_ty=`), or a signature string (`"*fp16"`).
fn annotation_pointee(annotation: &Expr) -> Option<DType> {
    if let Some(s) = annotation.as_str_literal() {
        return DType::from_signature_name(s.strip_prefix('*')?);
    }
    let ExprKind::Call(call) = &annotation.kind else {
        return None;
    };
    let path = call.func.dotted_path()?;
    let last = path.rsplit('.').next()?;
    if !path.contains('.') || last != "pointer_type" {
        return None;
    }
    let element = call
        .args
        .first()
        .or_else(|| call.keyword("element_ty").map(|k| &k.value))?;
    annotation_dtype(element)
}

/// Scalar names that are floats by convention (`eps`, `sm_scale`).
fn looks_float(name: &str) -> bool {
    let lower = name.to_ascii_lowercase();
    [
        "eps",
        "scale",
        "alpha",
        "beta",
        "temperature",
        "softcap",
        "epsilon",
        "gamma",
        "lambda",
        "weight_decay",
        "lr",
        "momentum",
        "p_drop",
        "dropout",
        "theta",
        "label_smoothing",
        "threshold",
        "clip",
    ]
    .iter()
    .any(|w| {
        lower == *w || lower.ends_with(&format!("_{w}")) || lower.starts_with(&format!("{w}_"))
    })
}

/// How a kernel's body uses its parameters, read from the AST.
#[derive(Debug, Default)]
struct ParamUsage {
    /// Names used as a memory base: `tl.load(p + offs)`, `make_block_ptr(base=p)`, `p.dtype.element_ty`.
    pointers: BTreeSet<String>,
    /// Names tested as booleans: `if FLAG:`, `not FLAG`, `a and FLAG`.
    flags: BTreeSet<String>,
    /// Names used as dtypes: `.to(DTYPE)`, `dtype=DTYPE`.
    dtypes: BTreeSet<String>,
    /// Names bounding `tl.static_range` (unrolled, so kept small).
    unrolled: BTreeSet<String>,
}

const MEMORY_CALLS: &[&str] = &[
    "load",
    "store",
    "atomic_add",
    "atomic_max",
    "atomic_min",
    "atomic_and",
    "atomic_or",
    "atomic_xor",
    "atomic_xchg",
    "atomic_cas",
    "make_block_ptr",
    "make_tensor_descriptor",
];

impl ParamUsage {
    fn of(def: &FunctionDef) -> ParamUsage {
        let mut usage = ParamUsage::default();
        let mut pointer_exprs: Vec<&Expr> = Vec::new();
        for_each_expr(&def.body, &mut |e| match &e.kind {
            ExprKind::Call(call) => {
                let callee = callee_name(&call.func);
                if MEMORY_CALLS.contains(&callee) {
                    if let Some(first) = call.args.first() {
                        pointer_exprs.push(first);
                    }
                    for k in &call.keywords {
                        if let Some(n) = &k.name {
                            if matches!(n.name.as_str(), "pointer" | "base" | "ptr") {
                                pointer_exprs.push(&k.value);
                            }
                        }
                    }
                }
                if callee == "to" {
                    if let Some(ExprKind::Name(n)) = call.args.first().map(|a| &a.kind) {
                        usage.dtypes.insert(n.clone());
                    }
                }
                if callee == "static_range" {
                    for a in &call.args {
                        if let ExprKind::Name(n) = &a.kind {
                            usage.unrolled.insert(n.clone());
                        }
                    }
                }
                for k in &call.keywords {
                    if k.name.as_ref().is_some_and(|n| n.name == "dtype") {
                        if let ExprKind::Name(n) = &k.value.kind {
                            usage.dtypes.insert(n.clone());
                        }
                    }
                }
            }
            ExprKind::Attribute { value, attr } if attr.name == "dtype" => {
                pointer_exprs.push(value);
            }
            ExprKind::IfExp { test, .. } => flag_names(test, &mut usage.flags),
            ExprKind::BoolOp { values, .. } => {
                for v in values {
                    flag_names(v, &mut usage.flags);
                }
            }
            _ => {}
        });
        collect_if_tests(&def.body, &mut usage.flags);
        // A local bound to `p + offs` makes `p` a pointer when the local is one.
        let assigns = local_assignments(&def.body);
        let mut worklist: Vec<&Expr> = pointer_exprs;
        let mut seen_locals: BTreeSet<String> = BTreeSet::new();
        while let Some(e) = worklist.pop() {
            for base in additive_bases(e) {
                if def.param(base).is_some() {
                    usage.pointers.insert(base.to_string());
                } else if seen_locals.insert(base.to_string()) {
                    if let Some(values) = assigns.get(base) {
                        worklist.extend(values.iter().copied());
                    }
                }
            }
        }
        // A parameter named like a pointer is one even when only passed to helpers.
        for p in &def.params {
            let n = p.name.name.to_ascii_lowercase();
            if n.ends_with("_ptr") || n.starts_with("ptr_") || n == "ptr" || n.ends_with("ptrs") {
                usage.pointers.insert(p.name.name.clone());
            }
        }
        usage
    }
}

fn callee_name(func: &Expr) -> &str {
    match &func.kind {
        ExprKind::Attribute { attr, .. } => attr.name.as_str(),
        ExprKind::Name(n) => n.as_str(),
        _ => "",
    }
}

fn flag_names(test: &Expr, out: &mut BTreeSet<String>) {
    match &test.kind {
        ExprKind::Name(n) => {
            out.insert(n.clone());
        }
        ExprKind::UnaryOp { operand, .. } => flag_names(operand, out),
        ExprKind::BoolOp { values, .. } => {
            for v in values {
                flag_names(v, out);
            }
        }
        _ => {}
    }
}

fn collect_if_tests(stmts: &[Stmt], out: &mut BTreeSet<String>) {
    for s in stmts {
        match &s.kind {
            StmtKind::If { test, body, orelse } => {
                flag_names(test, out);
                collect_if_tests(body, out);
                collect_if_tests(orelse, out);
            }
            StmtKind::For { body, .. } | StmtKind::While { body, .. } => {
                collect_if_tests(body, out)
            }
            _ => {}
        }
    }
}

/// Every `name = value` / `name += value` in the body, by name.
fn local_assignments(stmts: &[Stmt]) -> BTreeMap<String, Vec<&Expr>> {
    let mut out: BTreeMap<String, Vec<&Expr>> = BTreeMap::new();
    fn visit<'a>(stmts: &'a [Stmt], out: &mut BTreeMap<String, Vec<&'a Expr>>) {
        for s in stmts {
            match &s.kind {
                StmtKind::Assign { targets, value } => {
                    for t in targets {
                        if let Some(n) = t.as_name() {
                            out.entry(n.to_string()).or_default().push(value);
                        }
                    }
                }
                StmtKind::AnnAssign {
                    target,
                    value: Some(value),
                    ..
                }
                | StmtKind::AugAssign { target, value, .. } => {
                    if let Some(n) = target.as_name() {
                        out.entry(n.to_string()).or_default().push(value);
                    }
                }
                StmtKind::If { body, orelse, .. }
                | StmtKind::For { body, orelse, .. }
                | StmtKind::While { body, orelse, .. } => {
                    visit(body, out);
                    visit(orelse, out);
                }
                _ => {}
            }
        }
    }
    visit(stmts, &mut out);
    out
}

/// The bare names at the top of an additive chain: the candidates for its pointer term
/// (`x_ptr` in `x_ptr + row * stride + cols[None, :]`).
fn additive_bases(e: &Expr) -> Vec<&str> {
    let mut out = Vec::new();
    fn go<'a>(e: &'a Expr, out: &mut Vec<&'a str>) {
        match &e.kind {
            ExprKind::Name(n) => out.push(n),
            ExprKind::BinOp {
                op: BinOp::Add | BinOp::Sub,
                lhs,
                rhs,
            } => {
                go(lhs, out);
                go(rhs, out);
            }
            ExprKind::Subscript { value, .. } => go(value, out),
            ExprKind::Call(call) => {
                // `x.to(tl.pointer_type(...))`, `tl.multiple_of(p, 16)`, `p.advance(...)`.
                if let ExprKind::Attribute { value, .. } = &call.func.kind {
                    go(value, out);
                }
                if let Some(first) = call.args.first() {
                    go(first, out);
                }
            }
            _ => {}
        }
    }
    go(e, &mut out);
    out
}
