//! `tl.assume` for lint: what it says, and the kernels lint lowers without it.
//!
//! `tl.assume(cond)` is a promise to the compiler (a false one is undefined behaviour); it
//! computes nothing. Lint reads the promises from the source ([`upper_bounded_names`]) and
//! lowers kernels with the calls removed ([`without_assumes`]): the analyses never use
//! them, and a kernel that uses one (Triton's own matmul tutorial does) is analysed instead
//! of being checked at the source level only.

use std::sync::Arc;

use tritonc_sema::ModuleScope;
use tritonc_syntax::ast::{BinOp, BoolOp, CmpOp, Expr, ExprKind, FunctionDef, Stmt, StmtKind};

use crate::syntax_walk::names_in;

/// Whether `call_func` (the callee expression) is `tl.assume` under `scope`'s imports.
fn is_assume(scope: &ModuleScope, call_func: &Expr) -> bool {
    scope
        .resolver
        .resolve_triton(call_func)
        .is_some_and(|p| p == "triton.language.assume")
}

/// Whether the statement is an expression statement calling `tl.assume`.
fn is_assume_stmt(scope: &ModuleScope, s: &Stmt) -> bool {
    matches!(&s.kind, StmtKind::Expr(e) if matches!(&e.kind, ExprKind::Call(c) if is_assume(scope, &c.func)))
}

/// The statements with every `tl.assume(...)` statement removed (a block left empty gets
/// a `pass` where the last call was); `None` when there was none.
fn strip(scope: &ModuleScope, stmts: &[Stmt]) -> Option<Vec<Stmt>> {
    let mut removed = None;
    let mut changed = false;
    let mut out = Vec::with_capacity(stmts.len());
    for s in stmts {
        if is_assume_stmt(scope, s) {
            removed = Some(s.span);
            continue;
        }
        let mut s = s.clone();
        let mut sub = |body: &mut Vec<Stmt>| {
            if let Some(b) = strip(scope, body) {
                changed = true;
                *body = b;
            }
        };
        match &mut s.kind {
            StmtKind::If { body, orelse, .. }
            | StmtKind::For { body, orelse, .. }
            | StmtKind::While { body, orelse, .. } => {
                sub(body);
                sub(orelse);
            }
            StmtKind::With { body, .. } => sub(body),
            _ => {}
        }
        out.push(s);
    }
    if let (true, Some(span)) = (out.is_empty(), removed) {
        out.push(Stmt {
            kind: StmtKind::Pass,
            span,
        });
    }
    (changed || removed.is_some()).then_some(out)
}

/// Whether a `tl.assume(...)` statement is anywhere in `stmts` (where [`strip`] looks).
fn has_assume(scope: &ModuleScope, stmts: &[Stmt]) -> bool {
    stmts.iter().any(|s| {
        is_assume_stmt(scope, s)
            || match &s.kind {
                StmtKind::If { body, orelse, .. }
                | StmtKind::For { body, orelse, .. }
                | StmtKind::While { body, orelse, .. } => {
                    has_assume(scope, body) || has_assume(scope, orelse)
                }
                StmtKind::With { body, .. } => has_assume(scope, body),
                _ => false,
            }
    })
}

/// `scope` with `tl.assume` statements removed from its `@jit` functions, or `None` when
/// none has one. Spans are kept, so findings point at the source as written.
pub fn without_assumes(scope: &ModuleScope) -> Option<ModuleScope> {
    let mut out: Option<ModuleScope> = None;
    for (name, def) in &scope.functions {
        // Most functions have none: find one before copying anything.
        if !has_assume(scope, &def.body) {
            continue;
        }
        let Some(body) = strip(scope, &def.body) else {
            continue;
        };
        let new_def = FunctionDef {
            body,
            ..(**def).clone()
        };
        out.get_or_insert_with(|| scope.clone())
            .functions
            .insert(name.clone(), Arc::new(new_def));
    }
    out
}

/// The names an assertion `cond` bounds from above: the smaller side of each `<`/`<=`
/// (`x < N`, `N > x`, `0 <= x < N`). `x >= 0` or `s > 0` bounds nothing from above.
pub fn upper_bounded_names(cond: &Expr) -> Vec<&str> {
    orderings(cond)
        .into_iter()
        .flat_map(|(smaller, _)| names_in(smaller))
        .collect()
}

/// The orderings a condition states, as `(smaller, larger)` pairs: one per `<`, `<=`, `>`,
/// `>=` of a comparison (chained ones included), through `and` and `&`.
pub fn orderings(cond: &Expr) -> Vec<(&Expr, &Expr)> {
    let mut out = Vec::new();
    match &cond.kind {
        ExprKind::Compare {
            left,
            ops,
            comparators,
        } => {
            let mut lhs: &Expr = left;
            for (op, rhs) in ops.iter().zip(comparators) {
                match op {
                    CmpOp::Lt | CmpOp::LtE => out.push((lhs, rhs)),
                    CmpOp::Gt | CmpOp::GtE => out.push((rhs, lhs)),
                    _ => {}
                }
                lhs = rhs;
            }
        }
        ExprKind::BoolOp {
            op: BoolOp::And,
            values,
        } => {
            for v in values {
                out.extend(orderings(v));
            }
        }
        ExprKind::BinOp {
            op: BinOp::BitAnd,
            lhs,
            rhs,
        } => {
            out.extend(orderings(lhs));
            out.extend(orderings(rhs));
        }
        _ => {}
    }
    out
}
