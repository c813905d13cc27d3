//! The parameters of a generically lowered kernel: what the source fixes about each, and
//! dtype variables / symbolic values for the rest.

use std::collections::HashSet;
use std::sync::Arc;

use tritonc_ir::Elem;
use tritonc_syntax::ast::{Expr, ExprKind, FunctionDef, Stmt};
use tritonc_syntax::Kernel;

use super::walk::{expr_children, stmt_children, stmt_exprs};
use super::{fresh_var, PartialSpecialization};
use crate::constexpr;
use crate::lower::ModuleScope;
use crate::spec::{is_constexpr_annotation, ArgSpec, Specialization};
use crate::value::{Constexpr, Symbolic, SymbolicKind};

/// Where a parameter's type or value came from.
#[derive(Debug, Clone, PartialEq)]
pub enum ParamOrigin {
    /// The caller's partial specialization.
    Given,
    /// Its annotation (`n: tl.int64`, `BLOCK: tl.constexpr = 128`).
    Annotation,
    /// The default value.
    Default,
    /// Every autotune config sets the same value.
    AutotuneCommon,
    /// Autotune configs set different values: symbolic, with these candidates.
    AutotuneCandidates(Vec<Constexpr>),
    /// A heuristic with a constant value.
    Heuristic,
    /// Set by a heuristic or config tritonc cannot evaluate: symbolic.
    Computed,
    /// Nothing fixes it: a pointer to a dtype variable (it is used as a pointer).
    UnknownPointer,
    /// Nothing fixes it: a scalar of a dtype variable.
    UnknownScalar,
    /// Nothing fixes it: a symbolic constexpr.
    UnknownConstexpr,
}

/// The specialization generic lowering runs under, and each parameter's origin.
pub fn generic_specialization(
    scope: &ModuleScope,
    kernel: &Kernel,
    partial: &PartialSpecialization,
) -> (Specialization, Vec<(String, ArgSpec, ParamOrigin)>) {
    let def = &*kernel.def;
    let pointers = pointer_params(def, scope);
    let mut out = Vec::new();
    for p in &def.params {
        let name = p.name.name.clone();
        if let Some((_, s)) = partial.params.iter().find(|(n, _)| *n == name) {
            out.push((name, s.clone(), ParamOrigin::Given));
            continue;
        }
        let is_constexpr = p.annotation.as_ref().is_some_and(is_constexpr_annotation);
        if let Some((v, origin)) = meta_value(scope, kernel, &name, is_constexpr) {
            out.push((name, ArgSpec::Constexpr(v), origin));
            continue;
        }
        if is_constexpr {
            let (v, origin) = match p
                .default
                .as_ref()
                .and_then(|d| constexpr::eval_expr(d, scope).ok())
            {
                Some(v) => (v, ParamOrigin::Default),
                // Most constexpr parameters are block sizes and flags; ints serve both.
                None => (
                    Symbolic::constexpr(name.as_str(), SymbolicKind::Int),
                    ParamOrigin::UnknownConstexpr,
                ),
            };
            out.push((name, ArgSpec::Constexpr(v), origin));
            continue;
        }
        // A dtype annotation on a runtime parameter: `n: tl.int64`.
        let annotated = p
            .annotation
            .as_ref()
            .and_then(|a| constexpr::eval_expr(a, scope).ok());
        let (spec, origin) = match annotated {
            Some(Constexpr::DType(Elem::DType(d))) => (
                ArgSpec::Scalar {
                    dtype: d,
                    divisibility: None,
                },
                ParamOrigin::Annotation,
            ),
            Some(Constexpr::DType(Elem::Ptr(ptr))) => (
                ArgSpec::Pointer {
                    pointee: ptr.pointee,
                    is_const: false,
                    divisibility: None,
                },
                ParamOrigin::Annotation,
            ),
            _ if pointers.contains(name.as_str()) || is_pointer_name(&name) => (
                ArgSpec::Pointer {
                    pointee: fresh_var(),
                    is_const: false,
                    divisibility: None,
                },
                ParamOrigin::UnknownPointer,
            ),
            _ => (
                ArgSpec::Scalar {
                    dtype: fresh_var(),
                    divisibility: None,
                },
                ParamOrigin::UnknownScalar,
            ),
        };
        out.push((name, spec, origin));
    }
    let spec = Specialization {
        kernel: kernel.name.clone(),
        params: out.iter().map(|(n, s, _)| (n.clone(), s.clone())).collect(),
        options: partial.options.clone(),
    };
    (spec, out)
}

/// Whether a parameter's name says it is a pointer (`x_ptr`, `out_ptr`, `ptr`), the
/// convention of Triton's tutorials and most kernel libraries.
fn is_pointer_name(name: &str) -> bool {
    let n = name.to_ascii_lowercase();
    n.ends_with("_ptr") || n == "ptr" || n.starts_with("ptr_")
}

/// What autotune configs and heuristics say about meta-parameter `name`.
fn meta_value(
    scope: &ModuleScope,
    kernel: &Kernel,
    name: &str,
    is_constexpr: bool,
) -> Option<(Constexpr, ParamOrigin)> {
    if let Some(h) = kernel.heuristics.iter().rev().find(|h| h.name == name) {
        // `lambda args: 128`: a constant; anything reading `args` is launch-dependent.
        if let ExprKind::Lambda { body, .. } = &h.value.kind {
            if let Ok(v) = constexpr::eval_expr(body, scope) {
                return Some((v, ParamOrigin::Heuristic));
            }
        }
        return Some((
            Symbolic::constexpr(name, SymbolicKind::Int),
            ParamOrigin::Computed,
        ));
    }
    let tune = kernel.autotune.as_ref()?;
    let mut values: Vec<Constexpr> = Vec::new();
    let mut all_set = true;
    for c in &tune.configs {
        match c.kwarg(name) {
            Some(e) => match constexpr::eval_expr(e, scope) {
                Ok(v) => {
                    if !values.contains(&v) {
                        values.push(v);
                    }
                }
                Err(_) => all_set = false,
            },
            None => all_set = false,
        }
    }
    if values.is_empty() {
        // Configs that tritonc cannot read may set it, if it is a meta-parameter: a value
        // a config gives a runtime parameter (a pointer, a size) stays a runtime value.
        return (is_constexpr && !tune.unexpanded.is_empty()).then(|| {
            (
                Symbolic::constexpr(name, SymbolicKind::Int),
                ParamOrigin::Computed,
            )
        });
    }
    if values.len() == 1 && all_set && tune.unexpanded.is_empty() {
        return Some((values.remove(0), ParamOrigin::AutotuneCommon));
    }
    let kind = if values.iter().all(|v| matches!(v, Constexpr::Int(_))) {
        SymbolicKind::Int
    } else if values.iter().all(|v| matches!(v, Constexpr::Bool(_))) {
        SymbolicKind::Bool
    } else {
        SymbolicKind::Any
    };
    // Candidates are exact only when every config was read and sets the value.
    let candidates = if all_set && tune.unexpanded.is_empty() {
        values
    } else {
        Vec::new()
    };
    let v = Constexpr::Symbolic(Arc::new(Symbolic {
        name: Arc::from(name),
        kind,
        candidates: candidates.clone(),
    }));
    Some((v, ParamOrigin::AutotuneCandidates(candidates)))
}

/// The memory builtins whose first argument is a pointer.
const POINTER_SINKS: &[&str] = &[
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

/// Parameters used as pointers: the base of a load/store/atomic address (through local
/// assignments and `@jit` helpers of the module), or read as `p.dtype.element_ty`.
fn pointer_params(def: &FunctionDef, scope: &ModuleScope) -> HashSet<String> {
    let mut seen = HashSet::new();
    pointer_params_in(def, scope, 0, &mut seen)
}

fn pointer_params_in(
    def: &FunctionDef,
    scope: &ModuleScope,
    depth: u32,
    seen: &mut HashSet<String>,
) -> HashSet<String> {
    let mut roots: HashSet<String> = HashSet::new();
    // Local `x = expr`: the names whose base `expr` is.
    let mut locals: Vec<(String, Vec<String>)> = Vec::new();
    let mut visit = |e: &Expr, roots: &mut HashSet<String>| {
        walk_calls(e, &mut |func: &Expr, args: &[Expr]| {
            let callee = match &func.kind {
                ExprKind::Attribute { attr, .. } => attr.name.as_str(),
                ExprKind::Name(n) => n.as_str(),
                _ => return,
            };
            if POINTER_SINKS.contains(&callee) {
                if let Some(a) = args.first() {
                    base_names(a, roots);
                }
                // `x_ptr.load(...)` style receivers are not Triton; ignore them.
            } else if let Some(helper) = scope.functions.get(callee) {
                if depth < 4 && seen.insert(callee.to_string()) {
                    let inner = pointer_params_in(helper, scope, depth + 1, seen);
                    seen.remove(callee);
                    for (i, p) in helper.params.iter().enumerate() {
                        if inner.contains(&p.name.name) {
                            if let Some(a) = args.get(i) {
                                base_names(a, roots);
                            }
                        }
                    }
                }
            }
        });
        // `X.dtype.element_ty`
        walk_exprs(e, &mut |x: &Expr| {
            if let ExprKind::Attribute { value, attr } = &x.kind {
                if attr.name == "element_ty" {
                    if let ExprKind::Attribute { value: inner, attr } = &value.kind {
                        if attr.name == "dtype" {
                            base_names(inner, roots);
                        }
                    }
                }
            }
        });
    };
    for s in &def.body {
        walk_stmts(s, &mut |s: &Stmt| {
            stmt_exprs(s, &mut |e| visit(e, &mut roots));
            if let tritonc_syntax::ast::StmtKind::Assign { targets, value } = &s.kind {
                let mut bases = HashSet::new();
                base_names(value, &mut bases);
                for t in targets {
                    if let Some(n) = t.as_name() {
                        locals.push((n.to_string(), bases.iter().cloned().collect()));
                    }
                }
            }
            if let tritonc_syntax::ast::StmtKind::AugAssign { target, value, .. } = &s.kind {
                let mut bases = HashSet::new();
                base_names(value, &mut bases);
                if let Some(n) = target.as_name() {
                    locals.push((n.to_string(), bases.into_iter().collect()));
                }
            }
        });
    }
    // A local that is a pointer makes the names it was computed from pointers.
    loop {
        let before = roots.len();
        for (n, bases) in &locals {
            if roots.contains(n) {
                roots.extend(bases.iter().cloned());
            }
        }
        if roots.len() == before {
            break;
        }
    }
    let params: HashSet<&str> = def.params.iter().map(|p| p.name.name.as_str()).collect();
    roots.retain(|r| params.contains(r.as_str()));
    roots
}

/// The names an address expression is based on: the left operand of `+`/`-` chains
/// (`X + row * stride` is based on `X`), a name, a `tl.advance`/`.to` receiver.
fn base_names(e: &Expr, out: &mut HashSet<String>) {
    match &e.kind {
        ExprKind::Name(n) => {
            out.insert(n.clone());
        }
        ExprKind::BinOp { lhs, rhs, op } => {
            use tritonc_syntax::ast::BinOp;
            if matches!(op, BinOp::Add | BinOp::Sub) {
                base_names(lhs, out);
                // `offs + X`: the pointer may be on either side of `+`.
                if *op == BinOp::Add && !matches!(lhs.kind, ExprKind::Name(_)) {
                    base_names(rhs, out);
                }
            }
        }
        ExprKind::Subscript { value, .. } => base_names(value, out),
        ExprKind::Call(c) => {
            if let ExprKind::Attribute { value, attr } = &c.func.kind {
                match attr.name.as_str() {
                    "to" => base_names(value, out),
                    "advance" | "make_block_ptr" => {
                        if let Some(a) = c.args.first() {
                            base_names(a, out);
                        }
                    }
                    _ => {}
                }
            }
            if let Some(k) = c.keyword("base") {
                base_names(&k.value, out);
            }
        }
        ExprKind::IfExp { body, orelse, .. } => {
            base_names(body, out);
            base_names(orelse, out);
        }
        _ => {}
    }
}

fn walk_exprs(e: &Expr, f: &mut dyn FnMut(&Expr)) {
    f(e);
    expr_children(e, &mut |c| walk_exprs(c, f));
}

fn walk_calls(e: &Expr, f: &mut dyn FnMut(&Expr, &[Expr])) {
    walk_exprs(e, &mut |x| {
        if let ExprKind::Call(c) = &x.kind {
            let mut args: Vec<Expr> = c.args.clone();
            // Keyword `pointer=`/`ptr=`/`base=` arguments name the pointer too.
            for k in &c.keywords {
                if let Some(n) = &k.name {
                    if matches!(n.name.as_str(), "pointer" | "ptr" | "base") && args.is_empty() {
                        args.push(k.value.clone());
                    }
                }
            }
            f(&c.func, &args);
        }
    });
}

fn walk_stmts(s: &Stmt, f: &mut dyn FnMut(&Stmt)) {
    f(s);
    stmt_children(s, &mut |c| walk_stmts(c, f));
}
