//! Dtypes the kernel's source states for an expression of its own body: an explicit cast
//! (`x.to(tl.float32)`, `tl.cast(x, tl.float32)`), a creation with a `dtype=` argument
//! (`tl.zeros(shape, dtype=tl.float32)`, `tl.full(…)`), or a local name every assignment of
//! which states the same dtype.
//!
//! The dtype-provenance analysis cannot see all of these: lint's placeholder pointee is fp32,
//! so under it `tl.load(p).to(tl.float32)` lowers to no cast at all and the value keeps the
//! load's assumed dtype. The cast in the source still says what the value is.

use std::collections::BTreeMap;

use tritonc_ir::{DType, Elem};
use tritonc_sema::Constexpr;
use tritonc_syntax::ast::{Call, Expr, ExprKind, FunctionDef, Stmt, StmtKind};

use crate::context::KernelContext;
use crate::specialize::LintSpecialization;

/// How deep local names are followed (`a = b.to(…)`, `c = a`, …).
const MAX_DEPTH: usize = 8;

/// The dtype `e`, an expression in the body of `cx`'s kernel, has according to the source
/// alone; `None` when the source does not say (or says it through a placeholder).
pub fn stated_dtype(cx: &KernelContext<'_>, e: &Expr) -> Option<DType> {
    let bindings = Bindings::of(&cx.kernel.def);
    stated(cx, &bindings, e, 0)
}

fn stated(
    cx: &KernelContext<'_>,
    bindings: &Bindings<'_>,
    e: &Expr,
    depth: usize,
) -> Option<DType> {
    if depth > MAX_DEPTH {
        return None;
    }
    match &e.kind {
        ExprKind::Call(call) => call_dtype(cx, call),
        ExprKind::Name(n) => {
            let values = bindings.simple.get(n.as_str())?;
            if bindings.other.contains(&n.as_str()) || values.is_empty() {
                return None;
            }
            let mut out = None;
            for v in values {
                let d = stated(cx, bindings, v, depth + 1)?;
                if out.is_some_and(|o| o != d) {
                    return None;
                }
                out = Some(d);
            }
            out
        }
        _ => None,
    }
}

/// The dtype a call states for its result: `x.to(D)`, `tl.cast(x, D)`, `tl.zeros(…,
/// dtype=D)`, `tl.full(…, dtype=D)`, `tl.zeros_like`/`full_like` with `dtype=D`.
fn call_dtype(cx: &KernelContext<'_>, call: &Call) -> Option<DType> {
    let (callee, is_method) = match &call.func.kind {
        ExprKind::Attribute { value, attr } => {
            let module = value.dotted_path();
            let is_tl = module.is_some_and(|m| m == "tl" || m.ends_with("language"));
            (attr.name.as_str(), !is_tl)
        }
        _ => return None,
    };
    let dtype_expr = match (callee, is_method) {
        ("to", true) => call
            .args
            .first()
            .or_else(|| call.keyword("dtype").map(|k| &k.value)),
        ("cast", false) => call
            .args
            .get(1)
            .or_else(|| call.keyword("dtype").map(|k| &k.value)),
        ("zeros" | "zeros_like" | "full" | "full_like", false) => {
            call.keyword("dtype").map(|k| &k.value)
        }
        _ => None,
    }?;
    dtype_value(cx, dtype_expr)
}

/// The dtype `e` names: `tl.float32`, a constexpr parameter whose value the source fixes,
/// or a module-level dtype global.
fn dtype_value(cx: &KernelContext<'_>, e: &Expr) -> Option<DType> {
    if let ExprKind::Name(n) = &e.kind {
        if cx.kernel.def.param(n).is_some() {
            return known_constexpr_dtype(cx.spec, n);
        }
        return match cx.module_globals.get(n.as_str()) {
            Some(Constexpr::DType(Elem::DType(d))) => Some(*d),
            _ => None,
        };
    }
    let path = e.dotted_path()?;
    let (module, last) = path.rsplit_once('.')?;
    if !(module == "tl" || module.ends_with("language")) {
        return None;
    }
    DType::from_triton_name(last)
}

/// The dtype value of constexpr parameter `name` when the source fixes it (a default, an
/// autotune config), not a placeholder.
fn known_constexpr_dtype(spec: &LintSpecialization, name: &str) -> Option<DType> {
    if spec.assumed.constexprs.contains_key(name) {
        return None;
    }
    spec.spec.params.iter().find_map(|(n, s)| match s {
        tritonc_sema::ArgSpec::Constexpr(Constexpr::DType(Elem::DType(d))) if n == name => Some(*d),
        _ => None,
    })
}

/// The bindings of local names in a function body: plain `name = value` assignments, and
/// the names bound any other way (tuple targets, `+=`, loop variables, `with … as`).
struct Bindings<'a> {
    simple: BTreeMap<&'a str, Vec<&'a Expr>>,
    other: Vec<&'a str>,
}

impl<'a> Bindings<'a> {
    fn of(def: &'a FunctionDef) -> Bindings<'a> {
        let mut b = Bindings {
            simple: BTreeMap::new(),
            other: Vec::new(),
        };
        b.visit(&def.body);
        // Walrus bindings anywhere in the body.
        crate::syntax_walk::for_each_expr(&def.body, &mut |e| {
            if let ExprKind::NamedExpr { target, .. } = &e.kind {
                b.other.push(target.name.as_str());
            }
        });
        b
    }

    fn visit(&mut self, stmts: &'a [Stmt]) {
        for s in stmts {
            match &s.kind {
                StmtKind::Assign { targets, value } => {
                    for t in targets {
                        match &t.kind {
                            ExprKind::Name(n) => {
                                self.simple.entry(n.as_str()).or_default().push(value)
                            }
                            _ => self.other_names(t),
                        }
                    }
                }
                StmtKind::AnnAssign { target, value, .. } => match (&target.kind, value) {
                    (ExprKind::Name(n), Some(v)) => {
                        self.simple.entry(n.as_str()).or_default().push(v)
                    }
                    _ => self.other_names(target),
                },
                StmtKind::AugAssign { target, .. } => self.other_names(target),
                StmtKind::If { body, orelse, .. } | StmtKind::While { body, orelse, .. } => {
                    self.visit(body);
                    self.visit(orelse);
                }
                StmtKind::For {
                    target,
                    body,
                    orelse,
                    ..
                } => {
                    self.other_names(target);
                    self.visit(body);
                    self.visit(orelse);
                }
                StmtKind::With { items, body, .. } => {
                    for item in items {
                        if let Some(v) = &item.target {
                            self.other_names(v);
                        }
                    }
                    self.visit(body);
                }
                _ => {}
            }
        }
    }

    fn other_names(&mut self, target: &'a Expr) {
        crate::syntax_walk::walk_expr(target, &mut |e| {
            if let ExprKind::Name(n) = &e.kind {
                self.other.push(n.as_str());
            }
        });
    }
}
