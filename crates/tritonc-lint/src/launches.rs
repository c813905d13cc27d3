//! What one kernel of a file tells about the buffers another reads: the host code's launches
//! (`kernel_1[grid](x, mid, ...)` then `kernel_2[(1,)](mid, out, ...)`) pass one buffer
//! variable from the kernel that writes it to the kernel that reads it, and what the writer
//! stores there (its sign) is what the reader loads.
//!
//! Only launches written in the same file, in the same host function, with the buffer as a
//! plain variable, count; a reader launched anywhere with something else gets nothing.
//!
//! Each launch also records its grid, per axis whether it launches complete blocks only
//! ([`grid_axes`]): TRI101 reads a program id along such an axis as never ending a block
//! past the tensor.

use std::collections::{BTreeMap, BTreeSet};

use tritonc_ir::OpKind;
use tritonc_syntax::ast::{ExprKind, Module, Stmt, StmtKind};
use tritonc_syntax::Kernel;

use crate::context::AnalysedKernel;
use crate::specialize::LintSpecialization;
use crate::syntax_walk::for_each_expr;

/// One launch `kernel[grid](args)` in a host function.
#[derive(Debug, Clone)]
pub struct Launch {
    /// Which host function it is in (an index in source order).
    pub host: usize,
    /// The kernel launched.
    pub kernel: String,
    /// The kernel's parameters bound to a plain variable, with the variable.
    pub args: Vec<(String, String)>,
    /// Per grid axis, whether the launch covers complete blocks only (see [`grid_axes`]);
    /// `None` when the grid is not written in the host function.
    pub grid: Option<Vec<bool>>,
}

/// The launches of the file's kernels in its host functions (module-level functions and
/// methods), in source order.
pub fn find_launches(module: &Module, kernels: &[Kernel]) -> Vec<Launch> {
    let mut out = Vec::new();
    let mut host = 0;
    collect_hosts(&module.body, kernels, &mut host, &mut out);
    out
}

fn collect_hosts(stmts: &[Stmt], kernels: &[Kernel], host: &mut usize, out: &mut Vec<Launch>) {
    for s in stmts {
        match &s.kind {
            StmtKind::FunctionDef(def) => {
                if kernels.iter().any(|k| std::sync::Arc::ptr_eq(&k.def, def)) {
                    continue;
                }
                *host += 1;
                let here = *host;
                for_each_expr(&def.body, &mut |e| {
                    let ExprKind::Call(call) = &e.kind else {
                        return;
                    };
                    let ExprKind::Subscript { value, index } = &call.func.kind else {
                        return;
                    };
                    // `kernel[grid]`, `mod.kernel[grid]`, or a wrapper around the kernel
                    // (`wrap_triton(kernel)[grid]`, `launcher(kernel, ...)[grid]`).
                    let callee = match &value.kind {
                        ExprKind::Call(c) => match c.args.first() {
                            Some(a) => a,
                            None => return,
                        },
                        _ => value,
                    };
                    let name = match &callee.kind {
                        ExprKind::Name(n) => n.as_str(),
                        ExprKind::Attribute { attr, .. } => attr.name.as_str(),
                        _ => return,
                    };
                    let Some(kernel) = kernels.iter().find(|k| k.name == name) else {
                        return;
                    };
                    if call
                        .args
                        .iter()
                        .any(|a| matches!(a.kind, ExprKind::Starred(_)))
                    {
                        return;
                    }
                    let mut args = Vec::new();
                    for (p, a) in kernel.def.params.iter().zip(&call.args) {
                        if let ExprKind::Name(v) = &a.kind {
                            args.push((p.name.name.clone(), v.clone()));
                        }
                    }
                    for k in &call.keywords {
                        if let (Some(n), ExprKind::Name(v)) = (&k.name, &k.value.kind) {
                            args.push((n.name.clone(), v.clone()));
                        }
                    }
                    out.push(Launch {
                        host: here,
                        kernel: kernel.name.clone(),
                        args,
                        grid: grid_axes(&def.body, index),
                    });
                });
            }
            StmtKind::ClassDef(c) => collect_hosts(&c.body, kernels, host, out),
            _ => {}
        }
    }
}

/// Per axis of the grid expression `grid` written in a host function whose body is
/// `body`: whether the axis launches complete blocks only. An axis that divides with
/// `triton.cdiv` (or another ceiling division: `cdiv`, `ceil_div`, `math.ceil`, `(n + B -
/// 1) // B`) can end on a partial block; a count (`num_heads`, `batch * seq_len`, `x.shape[0]`)
/// or a floor division (`n // B`) cannot. Names are followed through their assignments in
/// the host function (a `def grid(meta)` returns the grid); a call lint cannot see into
/// (other than `len`, `min`, `max`, `int` and tensor sizes) may divide up, and makes the
/// axis partial. `None` when the grid is not a tuple, a lambda or a function written here.
pub fn grid_axes(body: &[Stmt], grid: &tritonc_syntax::ast::Expr) -> Option<Vec<bool>> {
    let grid = resolve_grid(body, grid, 0)?;
    let axes: Vec<&tritonc_syntax::ast::Expr> = match &grid.kind {
        ExprKind::Tuple(xs) | ExprKind::List(xs) => xs.iter().collect(),
        _ => vec![grid],
    };
    if axes.is_empty() || axes.iter().any(|a| matches!(a.kind, ExprKind::Starred(_))) {
        return None;
    }
    Some(
        axes.into_iter()
            .map(|a| !may_round_up(body, a, 0))
            .collect(),
    )
}

/// The tuple (or single expression) a grid written as `grid`, a name, a lambda or a nested
/// `def grid(meta): return (...)` stands for.
fn resolve_grid<'a>(
    body: &'a [Stmt],
    grid: &'a tritonc_syntax::ast::Expr,
    depth: u32,
) -> Option<&'a tritonc_syntax::ast::Expr> {
    if depth > 4 {
        return None;
    }
    match &grid.kind {
        ExprKind::Tuple(_) | ExprKind::List(_) => Some(grid),
        ExprKind::Lambda { body: b, .. } => resolve_grid(body, b, depth + 1),
        ExprKind::Name(n) => {
            let mut values = Vec::new();
            assigned_values(body, n, &mut values);
            match values.as_slice() {
                [only] => resolve_grid(body, only, depth + 1),
                _ => None,
            }
        }
        _ => None,
    }
}

/// Every value `name` is given in `stmts` (assignments at any depth, and the returned
/// values of a nested `def name`).
fn assigned_values<'a>(
    stmts: &'a [Stmt],
    name: &str,
    out: &mut Vec<&'a tritonc_syntax::ast::Expr>,
) {
    for s in stmts {
        match &s.kind {
            StmtKind::Assign { targets, value } => {
                for t in targets {
                    match &t.kind {
                        ExprKind::Name(n) if n == name => out.push(value),
                        ExprKind::Tuple(ts) | ExprKind::List(ts) => {
                            let i = ts.iter().position(|x| x.as_name() == Some(name));
                            match (i, &value.kind) {
                                (Some(i), ExprKind::Tuple(vs) | ExprKind::List(vs))
                                    if vs.len() == ts.len() =>
                                {
                                    out.push(&vs[i])
                                }
                                // Unpacked from something lint cannot split: unknown.
                                (Some(_), _) => out.push(t),
                                _ => {}
                            }
                        }
                        _ => {}
                    }
                }
            }
            StmtKind::AnnAssign {
                target,
                value: Some(value),
                ..
            } if target.as_name() == Some(name) => out.push(value),
            StmtKind::AugAssign { target, .. } if target.as_name() == Some(name) => {
                out.push(target)
            }
            StmtKind::For {
                target,
                body,
                orelse,
                ..
            } => {
                if crate::syntax_walk::names_in(target).contains(&name) {
                    out.push(target);
                }
                assigned_values(body, name, out);
                assigned_values(orelse, name, out);
            }
            StmtKind::If { body, orelse, .. } | StmtKind::While { body, orelse, .. } => {
                assigned_values(body, name, out);
                assigned_values(orelse, name, out);
            }
            StmtKind::With { body, .. } => assigned_values(body, name, out),
            StmtKind::Try(t) => {
                assigned_values(&t.body, name, out);
                for h in &t.handlers {
                    assigned_values(&h.body, name, out);
                }
                assigned_values(&t.orelse, name, out);
                assigned_values(&t.finalbody, name, out);
            }
            StmtKind::FunctionDef(def) if def.name.name == name => {
                fn returns<'a>(stmts: &'a [Stmt], out: &mut Vec<&'a tritonc_syntax::ast::Expr>) {
                    for s in stmts {
                        match &s.kind {
                            StmtKind::Return(Some(v)) => out.push(v),
                            StmtKind::If { body, orelse, .. } => {
                                returns(body, out);
                                returns(orelse, out);
                            }
                            _ => {}
                        }
                    }
                }
                returns(&def.body, out);
            }
            _ => {}
        }
    }
}

/// Whether the grid axis `e` may round a size up to whole blocks (so its last block can be
/// partial), following names through their assignments in `body`.
fn may_round_up(body: &[Stmt], e: &tritonc_syntax::ast::Expr, depth: u32) -> bool {
    use tritonc_syntax::ast::BinOp;
    if depth > 6 {
        return true;
    }
    match &e.kind {
        ExprKind::Constant(_) => false,
        ExprKind::Name(n) => {
            let mut values = Vec::new();
            assigned_values(body, n, &mut values);
            // A parameter of the host function or a global: a count lint takes as given.
            values
                .iter()
                .any(|v| std::ptr::eq(*v, e) || may_round_up(body, v, depth + 1))
        }
        // A tensor's sizes are counts, whatever made the tensor.
        ExprKind::Attribute { attr, .. } if attr.name == "shape" => false,
        ExprKind::Attribute { value, .. } => may_round_up(body, value, depth + 1),
        ExprKind::Subscript { value, index } => {
            may_round_up(body, value, depth + 1) || may_round_up(body, index, depth + 1)
        }
        ExprKind::BinOp { op, lhs, rhs } => {
            // `(n + B - 1) // B`: a ceiling division written out.
            let ceil = *op == BinOp::FloorDiv
                && matches!(
                    &lhs.kind,
                    ExprKind::BinOp {
                        op: BinOp::Add | BinOp::Sub,
                        ..
                    }
                );
            // `-(-n // B)`
            ceil || may_round_up(body, lhs, depth + 1) || may_round_up(body, rhs, depth + 1)
        }
        ExprKind::UnaryOp { op, operand } => {
            let neg_floor = matches!(op, tritonc_syntax::ast::UnaryOp::Neg)
                && matches!(
                    &operand.kind,
                    ExprKind::BinOp {
                        op: BinOp::FloorDiv,
                        ..
                    }
                );
            neg_floor || may_round_up(body, operand, depth + 1)
        }
        ExprKind::Call(c) => {
            let callee = match &c.func.kind {
                ExprKind::Name(n) => n.as_str(),
                ExprKind::Attribute { attr, .. } => attr.name.as_str(),
                _ => return true,
            };
            let sizes = matches!(
                callee,
                "len" | "min" | "max" | "int" | "size" | "numel" | "stride" | "dim"
            );
            !sizes || c.args.iter().any(|a| may_round_up(body, a, depth + 1))
        }
        ExprKind::IfExp {
            body: b, orelse, ..
        } => may_round_up(body, b, depth + 1) || may_round_up(body, orelse, depth + 1),
        _ => true,
    }
}

/// Per kernel, per pointer parameter it stores through: whether every value it stores
/// there is known non-negative.
pub type StoredSigns = BTreeMap<String, BTreeMap<String, bool>>;

/// What `ir` (the kernel lowered under `spec`) stores through each pointer parameter.
pub fn stored_signs(ir: &AnalysedKernel, spec: &LintSpecialization) -> BTreeMap<String, bool> {
    let f = &ir.func;
    let names: Vec<&str> = spec
        .spec
        .params
        .iter()
        .filter(|(_, s)| s.is_runtime())
        .map(|(n, _)| n.as_str())
        .collect();
    let mut out: BTreeMap<String, bool> = BTreeMap::new();
    for op in f.walk() {
        if !matches!(
            f.kind(op),
            OpKind::Store { .. } | OpKind::AtomicRmw { .. } | OpKind::AtomicCas { .. }
        ) {
            continue;
        }
        let ops = f.op(op).operands();
        let Some(base) = crate::analysis::pointer_base_arg(f, ops[0]) else {
            continue;
        };
        let Some(i) = f.args().iter().position(|&a| a == base) else {
            continue;
        };
        let Some(name) = names.get(i) else { continue };
        let non_negative = matches!(f.kind(op), OpKind::Store { .. })
            && ops
                .get(1)
                .is_some_and(|&v| ir.sign.get(v).is_non_negative());
        let e = out.entry(name.to_string()).or_insert(true);
        *e &= non_negative;
    }
    out
}

/// The parameters of `kernel` whose buffers hold only non-negative values: at every launch
/// of it in the file the parameter gets a variable that, earlier in the same host function,
/// a kernel analysed before stored only non-negative values into (the last such launch
/// before it decides).
pub fn non_negative_inputs(
    launches: &[Launch],
    stored: &StoredSigns,
    kernel: &str,
) -> BTreeSet<String> {
    let mine: Vec<usize> = (0..launches.len())
        .filter(|&i| launches[i].kernel == kernel)
        .collect();
    let mut out: Option<BTreeSet<String>> = None;
    for &i in &mine {
        let l = &launches[i];
        let mut here = BTreeSet::new();
        for (param, var) in &l.args {
            let writer = launches[..i]
                .iter()
                .rev()
                .filter(|w| w.host == l.host)
                .find_map(|w| {
                    w.args
                        .iter()
                        .filter(|(_, v)| v == var)
                        .find_map(|(p, _)| stored.get(&w.kernel).and_then(|m| m.get(p)))
                });
            if writer == Some(&true) {
                here.insert(param.clone());
            }
        }
        out = Some(match out {
            None => here,
            Some(prev) => prev.intersection(&here).cloned().collect(),
        });
    }
    out.unwrap_or_default()
}
