//! Generic lowering's control over statements: soft errors (a statement that fails on an
//! unknown leaves its targets unknown) and `if` on an unknown constexpr (both arms).

use indexmap::IndexMap;
use tritonc_diagnostics::{Diagnostic, Severity, Span};
use tritonc_ir::{DType, Type};
use tritonc_syntax::ast::{Expr, ExprKind, Stmt, StmtKind};

use super::{assume, placeholder, unknown};
use crate::builtins::names::module_attr;
use crate::lower::LowerCx;
use crate::symbolic::is_symbolic;
use crate::value::{Constexpr, SemaValue, Symbolic, SymbolicKind, TensorValue};

/// Whether a value holds something generic analysis does not know.
pub(crate) fn is_uncertain(v: &SemaValue) -> bool {
    match v {
        SemaValue::Const(c) => is_symbolic(c) || is_opaque(c),
        SemaValue::Tensor(t) => type_is_uncertain(&t.ty),
        SemaValue::TensorMethod(t, _) => type_is_uncertain(&t.ty),
        SemaValue::Tuple(items) => items.iter().any(is_uncertain),
        SemaValue::BlockPtr(b) => type_is_uncertain(&b.base.ty),
        SemaValue::TensorDesc(d) | SemaValue::TensorDescMethod(d, _) => {
            type_is_uncertain(&d.base.ty)
        }
    }
}

/// Whether a type has a dtype variable or a dim that is not known.
pub(crate) fn type_is_uncertain(t: &Type) -> bool {
    let var = match t.elem() {
        tritonc_ir::Elem::DType(d) => d.is_var(),
        tritonc_ir::Elem::Ptr(p) => p.pointee.is_var(),
    };
    var || t.dims().iter().any(|d| d.known().is_none())
}

/// A module tritonc does not model (another package, a vendor extension): its contents
/// are opaque.
fn is_opaque(c: &Constexpr) -> bool {
    match c {
        Constexpr::Module(path) => module_attr(path, "__tritonc_probe__").is_err(),
        Constexpr::Tuple(items) => items.iter().any(is_opaque),
        _ => false,
    }
}

/// Names an expression reads.
fn read_names<'e>(e: &'e Expr, out: &mut Vec<&'e str>) {
    if let ExprKind::Name(n) = &e.kind {
        out.push(n);
    }
    super::walk::expr_children(e, &mut |c| read_names(c, out));
}

/// Names a statement reads, its nested statements included.
fn stmt_names<'s>(s: &'s Stmt, out: &mut Vec<&'s str>) {
    super::walk::stmt_exprs(s, &mut |e| read_names(e, out));
    super::walk::stmt_children(s, &mut |c| stmt_names(c, out));
}

/// Names a statement assigns, its nested statements included.
fn assigned<'s>(s: &'s Stmt, out: &mut Vec<&'s str>) {
    fn target<'e>(e: &'e Expr, out: &mut Vec<&'e str>) {
        match &e.kind {
            ExprKind::Name(n) => out.push(n),
            ExprKind::Tuple(items) | ExprKind::List(items) => {
                items.iter().for_each(|i| target(i, out))
            }
            ExprKind::Starred(inner) => target(inner, out),
            _ => {}
        }
    }
    match &s.kind {
        StmtKind::Assign { targets, .. } => targets.iter().for_each(|t| target(t, out)),
        StmtKind::AnnAssign { target: t, .. }
        | StmtKind::AugAssign { target: t, .. }
        | StmtKind::For { target: t, .. } => target(t, out),
        _ => {}
    }
    super::walk::stmt_children(s, &mut |c| assigned(c, out));
}

/// Whether statement `s` reads anything generic analysis does not know.
fn reads_unknowns(cx: &LowerCx<'_>, s: &Stmt) -> bool {
    let mut names = Vec::new();
    stmt_names(s, &mut names);
    names
        .iter()
        .any(|n| match cx.frames.last().and_then(|f| f.vars.get(*n)) {
            Some(v) => is_uncertain(v),
            None => match cx.scope().resolve(n, s.span) {
                Ok(Some(c)) => is_symbolic(&c) || is_opaque(&c),
                _ => false,
            },
        })
}

/// Lowers one statement in generic mode: an error that depends on unknowns is recorded as
/// an assumption, and what the statement assigns becomes unknown.
pub(crate) fn recover(
    cx: &mut LowerCx<'_>,
    s: &Stmt,
    lower: impl FnOnce(&mut LowerCx<'_>) -> Result<(), Diagnostic>,
) -> Result<(), Diagnostic> {
    let block = cx.block;
    let depth = cx.frames.len();
    let Err(d) = lower(cx) else { return Ok(()) };
    if !reads_unknowns(cx, s) {
        return Err(d);
    }
    cx.block = block;
    cx.frames.truncate(depth);
    let mut soft = d;
    soft.severity = Severity::Info;
    soft = soft.with_note("generic analysis: this depends on values a launch would fix");
    assume(soft);
    let mut targets = Vec::new();
    assigned(s, &mut targets);
    for t in targets {
        let v = SemaValue::Const(unknown(t));
        cx.frame().vars.insert(t.to_string(), v);
    }
    if let StmtKind::Return(_) = s.kind {
        let v = SemaValue::Const(unknown("<return value>"));
        cx.frame().returned = Some((v, s.span));
    }
    Ok(())
}

impl LowerCx<'_> {
    /// `if COND:` on an unknown constexpr: both arms are lowered under an `scf.if` on an
    /// unknown `i1`; afterwards a variable is the arms' common value, an `scf.if` result
    /// when both arms give it one type, and unknown otherwise.
    pub(crate) fn lower_if_unknown(
        &mut self,
        cond: &Symbolic,
        body: &[Stmt],
        orelse: &[Stmt],
        span: Span,
    ) -> Result<(), Diagnostic> {
        let c = placeholder(self, &cond.name, Type::Scalar(DType::I1), span);
        let before = self.frame().vars.clone();
        let returned_before = self.frame().returned.take();
        let outer = self.block;
        let if_op = self.builder(span).scf_if(c.id, Vec::new());
        self.block = if_op.then_block;
        let r = self.lower_body(body);
        let then_vars = std::mem::replace(&mut self.frame().vars, before.clone());
        let then_ret = self.frame().returned.take();
        self.block = if_op.else_block;
        let r = r.and_then(|_| self.lower_body(orelse));
        let else_vars = std::mem::replace(&mut self.frame().vars, before.clone());
        let else_ret = self.frame().returned.take();
        self.block = outer;
        if let Err(d) = r {
            self.block = if_op.then_block;
            self.builder(span).yield_(&[]);
            self.block = if_op.else_block;
            self.builder(span).yield_(&[]);
            self.block = outer;
            self.frame().returned = returned_before;
            return Err(d);
        }
        // Every name either arm leaves, with its value in each (None: not set there).
        let mut merged: IndexMap<String, (Option<SemaValue>, Option<SemaValue>)> = IndexMap::new();
        for (n, v) in &then_vars {
            merged.entry(n.clone()).or_default().0 = Some(v.clone());
        }
        for (n, v) in &else_vars {
            merged.entry(n.clone()).or_default().1 = Some(v.clone());
        }
        const RETURN: &str = "<return value>";
        match (then_ret, else_ret) {
            (Some((t, _)), Some((e, _))) => {
                merged.insert(RETURN.into(), (Some(t), Some(e)));
            }
            (Some((_, s)), None) | (None, Some((_, s))) => assume(
                Diagnostic::new(
                    Severity::Info,
                    crate::codes::INVALID_RETURN,
                    format!(
                        "generic analysis follows the path that does not return here (`{}` unknown)",
                        cond.name
                    ),
                )
                .with_primary(s, ""),
            ),
            (None, None) => {}
        }
        let mut yields: Vec<(String, TensorValue, TensorValue)> = Vec::new();
        let mut out: Vec<(String, SemaValue)> = Vec::new();
        for (name, (t, e)) in merged {
            let (t, e) = match (t, e) {
                (Some(t), Some(e)) => (t, e),
                // Set in one arm only: defined when the unknown condition goes that way.
                (Some(_), None) | (None, Some(_)) => {
                    out.push((name.clone(), SemaValue::Const(unknown(&name))));
                    continue;
                }
                (None, None) => continue,
            };
            if t == e {
                out.push((name, t));
                continue;
            }
            match (&t, &e) {
                (SemaValue::Tensor(a), SemaValue::Tensor(b)) if a.ty == b.ty => {
                    yields.push((name, a.clone(), b.clone()));
                }
                (SemaValue::Const(a), SemaValue::Const(b))
                    if !is_symbolic(a) && !is_symbolic(b) && a.is_number() && b.is_number() =>
                {
                    // `BLOCK2 = 32` / `BLOCK2 = 64`: one of two known values.
                    let kind = match a {
                        Constexpr::Float(_) => SymbolicKind::Float,
                        Constexpr::Bool(_) => SymbolicKind::Bool,
                        _ => SymbolicKind::Int,
                    };
                    let v = Constexpr::Symbolic(std::sync::Arc::new(Symbolic {
                        name: name.as_str().into(),
                        kind,
                        candidates: vec![a.clone(), b.clone()],
                    }));
                    out.push((name, SemaValue::Const(v)));
                }
                _ => {
                    if !(is_uncertain(&t) || is_uncertain(&e)) {
                        assume(
                            Diagnostic::new(
                                Severity::Info,
                                crate::codes::BRANCH_TYPE_MISMATCH,
                                format!(
                                    "`{name}` is {} or {} depending on `{}`",
                                    t.describe(),
                                    e.describe(),
                                    cond.name
                                ),
                            )
                            .with_primary(
                                span,
                                "generic analysis treats it as unknown after this `if`",
                            ),
                        );
                    }
                    out.push((name.clone(), SemaValue::Const(unknown(&name))));
                }
            }
        }
        self.block = if_op.then_block;
        let then_ids: Vec<_> = yields.iter().map(|(_, a, _)| a.id).collect();
        self.builder(span).yield_(&then_ids);
        self.block = if_op.else_block;
        let else_ids: Vec<_> = yields.iter().map(|(_, _, b)| b.id).collect();
        self.builder(span).yield_(&else_ids);
        self.block = outer;
        self.frame().vars = before;
        self.frame().returned = returned_before;
        for (name, v) in out {
            if name == RETURN {
                self.frame().returned = Some((v, span));
            } else {
                self.frame().vars.insert(name, v);
            }
        }
        for (name, a, _) in yields {
            let id = self.func.add_result(if_op.op, a.ty.clone());
            let v = SemaValue::Tensor(TensorValue { id, ty: a.ty });
            if name == RETURN {
                self.frame().returned = Some((v, span));
            } else {
                self.frame().vars.insert(name, v);
            }
        }
        Ok(())
    }

    /// `a if COND else b` on an unknown constexpr: the common value when both sides agree
    /// (or share a runtime type), unknown otherwise.
    pub(crate) fn lower_ifexp_unknown(
        &mut self,
        cond: &Symbolic,
        body: &Expr,
        orelse: &Expr,
        span: Span,
    ) -> Result<SemaValue, Diagnostic> {
        let a = self.lower_expr(body)?;
        let b = self.lower_expr(orelse)?;
        if a == b {
            return Ok(a);
        }
        match (&a, &b) {
            (SemaValue::Tensor(x), SemaValue::Tensor(y)) if x.ty == y.ty => {
                let c = placeholder(self, &cond.name, Type::Scalar(DType::I1), span);
                let (x, y) = (x.clone(), y.clone());
                let id = self.builder(span).select(c.id, x.id, y.id);
                Ok(SemaValue::Tensor(TensorValue { id, ty: x.ty }))
            }
            (SemaValue::Const(x), SemaValue::Const(y))
                if !is_symbolic(x) && !is_symbolic(y) && x.is_number() && y.is_number() =>
            {
                Ok(SemaValue::Const(Constexpr::Symbolic(std::sync::Arc::new(
                    Symbolic {
                        name: format!("{x} if {} else {y}", cond.name).into(),
                        kind: if matches!(x, Constexpr::Float(_)) {
                            SymbolicKind::Float
                        } else {
                            SymbolicKind::Int
                        },
                        candidates: vec![x.clone(), y.clone()],
                    },
                ))))
            }
            _ => Ok(SemaValue::Const(unknown(&format!(
                "<{} if {} else {}>",
                a.describe(),
                cond.name,
                b.describe()
            )))),
        }
    }
}

/// Materializes unknown constexpr loop bounds as `i32` scalars (runtime bounds of an
/// `scf.for`), leaving known ones as they are.
pub(crate) fn runtime_bounds(
    cx: &mut LowerCx<'_>,
    bounds: Vec<(SemaValue, Span)>,
) -> Vec<(SemaValue, Span)> {
    bounds
        .into_iter()
        .map(|(v, s)| match &v {
            SemaValue::Const(Constexpr::Symbolic(sym)) => {
                let t = placeholder(cx, &sym.name, Type::Scalar(DType::I32), s);
                (SemaValue::Tensor(t), s)
            }
            // A scalar parameter of unknown dtype used as a bound is some integer.
            SemaValue::Tensor(t) if t.ty.is_scalar() && t.ty.dtype().is_some_and(DType::is_var) => {
                match crate::builtins::arith::cast(cx, t.clone(), DType::I32, s) {
                    Ok(c) => (SemaValue::Tensor(c), s),
                    Err(_) => (v, s),
                }
            }
            _ => (v, s),
        })
        .collect()
}
