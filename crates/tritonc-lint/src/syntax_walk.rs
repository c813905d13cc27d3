//! Small read-only walks over the kernel AST: every expression under a statement list, and
//! the expression that sits at a span (to read what the source wrote at an op's location).

use tritonc_diagnostics::Span;
use tritonc_syntax::ast::{Expr, ExprKind, FStringPart, Stmt, StmtKind};

/// Calls `f` on every expression in `stmts`, outermost first, nested function bodies included.
pub fn for_each_expr<'a>(stmts: &'a [Stmt], f: &mut dyn FnMut(&'a Expr)) {
    for stmt in stmts {
        for_each_expr_in_stmt(stmt, f);
    }
}

fn for_each_expr_in_stmt<'a>(stmt: &'a Stmt, f: &mut dyn FnMut(&'a Expr)) {
    match &stmt.kind {
        StmtKind::Expr(e) | StmtKind::Return(Some(e)) => walk_expr(e, f),
        StmtKind::Assign { targets, value } => {
            for t in targets {
                walk_expr(t, f);
            }
            walk_expr(value, f);
        }
        StmtKind::AnnAssign { target, value, .. } => {
            walk_expr(target, f);
            if let Some(v) = value {
                walk_expr(v, f);
            }
        }
        StmtKind::AugAssign { target, value, .. } => {
            walk_expr(target, f);
            walk_expr(value, f);
        }
        StmtKind::If { test, body, orelse } | StmtKind::While { test, body, orelse } => {
            walk_expr(test, f);
            for_each_expr(body, f);
            for_each_expr(orelse, f);
        }
        StmtKind::For {
            target,
            iter,
            body,
            orelse,
            ..
        } => {
            walk_expr(target, f);
            walk_expr(iter, f);
            for_each_expr(body, f);
            for_each_expr(orelse, f);
        }
        StmtKind::With { items, body, .. } => {
            for item in items {
                walk_expr(&item.context, f);
            }
            for_each_expr(body, f);
        }
        StmtKind::Assert { test, msg } => {
            walk_expr(test, f);
            if let Some(m) = msg {
                walk_expr(m, f);
            }
        }
        StmtKind::FunctionDef(def) => for_each_expr(&def.body, f),
        _ => {}
    }
}

/// Calls `f` on `expr` and every expression inside it.
pub fn walk_expr<'a>(expr: &'a Expr, f: &mut dyn FnMut(&'a Expr)) {
    f(expr);
    match &expr.kind {
        ExprKind::Attribute { value, .. } | ExprKind::Starred(value) | ExprKind::Await(value) => {
            walk_expr(value, f)
        }
        ExprKind::Subscript { value, index } => {
            walk_expr(value, f);
            walk_expr(index, f);
        }
        ExprKind::Slice { lower, upper, step } => {
            for e in [lower, upper, step].into_iter().flatten() {
                walk_expr(e, f);
            }
        }
        ExprKind::Call(call) => {
            walk_expr(&call.func, f);
            for a in &call.args {
                walk_expr(a, f);
            }
            for k in &call.keywords {
                walk_expr(&k.value, f);
            }
        }
        ExprKind::BinOp { lhs, rhs, .. } => {
            walk_expr(lhs, f);
            walk_expr(rhs, f);
        }
        ExprKind::UnaryOp { operand, .. } => walk_expr(operand, f),
        ExprKind::BoolOp { values, .. }
        | ExprKind::Tuple(values)
        | ExprKind::List(values)
        | ExprKind::Set(values) => {
            for v in values {
                walk_expr(v, f);
            }
        }
        ExprKind::Compare {
            left, comparators, ..
        } => {
            walk_expr(left, f);
            for c in comparators {
                walk_expr(c, f);
            }
        }
        ExprKind::IfExp { test, body, orelse } => {
            walk_expr(test, f);
            walk_expr(body, f);
            walk_expr(orelse, f);
        }
        ExprKind::Dict(entries) => {
            for e in entries {
                if let Some(k) = &e.key {
                    walk_expr(k, f);
                }
                walk_expr(&e.value, f);
            }
        }
        ExprKind::NamedExpr { value, .. } => walk_expr(value, f),
        ExprKind::Lambda { body, .. } => walk_expr(body, f),
        ExprKind::FString(parts) => {
            for p in parts {
                if let FStringPart::Formatted { value, .. } = p {
                    walk_expr(value, f);
                }
            }
        }
        ExprKind::Yield(Some(v)) | ExprKind::YieldFrom(v) => walk_expr(v, f),
        _ => {}
    }
}

/// The innermost call expression whose span is exactly `span`, searched in `stmts`.
pub fn call_at(stmts: &[Stmt], span: Span) -> Option<&Expr> {
    let mut found = None;
    for_each_expr(stmts, &mut |e| {
        if e.span == span && matches!(e.kind, ExprKind::Call(_)) {
            found = Some(e);
        }
    });
    found
}

/// The names read anywhere inside `expr`.
pub fn names_in(expr: &Expr) -> Vec<&str> {
    let mut out = Vec::new();
    walk_expr(expr, &mut |e| {
        if let ExprKind::Name(n) = &e.kind {
            out.push(n.as_str());
        }
    });
    out
}
