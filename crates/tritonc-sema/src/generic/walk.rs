//! Visitors over the kernel AST: the direct sub-expressions of an expression, and the
//! expressions and nested statements of a statement.

use tritonc_syntax::ast::{Expr, ExprKind, FStringPart, Stmt, StmtKind};

/// Calls `f` on each direct sub-expression of `e`.
pub(crate) fn expr_children<'e>(e: &'e Expr, f: &mut dyn FnMut(&'e Expr)) {
    match &e.kind {
        ExprKind::Name(_) | ExprKind::Constant(_) => {}
        ExprKind::FString(parts) => {
            for p in parts {
                if let FStringPart::Formatted {
                    value, format_spec, ..
                } = p
                {
                    f(value);
                    if let Some(s) = format_spec {
                        f(s);
                    }
                }
            }
        }
        ExprKind::Attribute { value, .. } => f(value),
        ExprKind::Subscript { value, index } => {
            f(value);
            f(index);
        }
        ExprKind::Slice { lower, upper, step } => {
            for x in [lower, upper, step].into_iter().flatten() {
                f(x);
            }
        }
        ExprKind::Call(c) => {
            f(&c.func);
            c.args.iter().for_each(&mut *f);
            c.keywords.iter().for_each(|k| f(&k.value));
        }
        ExprKind::BinOp { lhs, rhs, .. } => {
            f(lhs);
            f(rhs);
        }
        ExprKind::UnaryOp { operand, .. } => f(operand),
        ExprKind::BoolOp { values, .. } => values.iter().for_each(f),
        ExprKind::Compare {
            left, comparators, ..
        } => {
            f(left);
            comparators.iter().for_each(f);
        }
        ExprKind::IfExp { test, body, orelse } => {
            f(test);
            f(body);
            f(orelse);
        }
        ExprKind::Tuple(items) | ExprKind::List(items) | ExprKind::Set(items) => {
            items.iter().for_each(f)
        }
        ExprKind::Dict(entries) => {
            for d in entries {
                if let Some(k) = &d.key {
                    f(k);
                }
                f(&d.value);
            }
        }
        ExprKind::Comprehension(c) => {
            f(&c.element);
            if let Some(v) = &c.value {
                f(v);
            }
            for g in &c.generators {
                f(&g.iter);
                g.ifs.iter().for_each(&mut *f);
            }
        }
        ExprKind::NamedExpr { value, .. } => f(value),
        ExprKind::Lambda { body, .. } => f(body),
        ExprKind::Starred(x) | ExprKind::Await(x) | ExprKind::YieldFrom(x) => f(x),
        ExprKind::Yield(x) => {
            if let Some(x) = x {
                f(x);
            }
        }
    }
}

/// Calls `f` on each expression of `s` itself (not of nested statements).
pub(crate) fn stmt_exprs<'s>(s: &'s Stmt, f: &mut dyn FnMut(&'s Expr)) {
    match &s.kind {
        StmtKind::Expr(e) => f(e),
        StmtKind::Assign { targets, value } => {
            targets.iter().for_each(&mut *f);
            f(value);
        }
        StmtKind::AnnAssign { target, value, .. } => {
            f(target);
            if let Some(v) = value {
                f(v);
            }
        }
        StmtKind::AugAssign { target, value, .. } => {
            f(target);
            f(value);
        }
        StmtKind::If { test, .. } | StmtKind::While { test, .. } => f(test),
        StmtKind::For { target, iter, .. } => {
            f(target);
            f(iter);
        }
        StmtKind::Return(Some(e)) => f(e),
        StmtKind::Assert { test, msg } => {
            f(test);
            if let Some(m) = msg {
                f(m);
            }
        }
        StmtKind::With { items, .. } => items.iter().for_each(|i| f(&i.context)),
        _ => {}
    }
}

/// Calls `f` on each statement nested directly in `s` (bodies of `if`/`for`/`while`/`with`).
pub(crate) fn stmt_children<'s>(s: &'s Stmt, f: &mut dyn FnMut(&'s Stmt)) {
    match &s.kind {
        StmtKind::If { body, orelse, .. }
        | StmtKind::While { body, orelse, .. }
        | StmtKind::For { body, orelse, .. } => {
            body.iter().chain(orelse).for_each(f);
        }
        StmtKind::With { body, .. } => body.iter().for_each(f),
        _ => {}
    }
}
