//! What one kernel of a file tells about the buffers another reads: the host code's launches
//! (`kernel_1[grid](x, mid, ...)` then `kernel_2[(1,)](mid, out, ...)`) pass one buffer
//! variable from the kernel that writes it to the kernel that reads it, and what the writer
//! stores there (its sign) is what the reader loads.
//!
//! Only launches written in the same file, in the same host function, with the buffer as a
//! plain variable, count; a reader launched anywhere with something else gets nothing.

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
                    let ExprKind::Subscript { value, .. } = &call.func.kind else {
                        return;
                    };
                    let name = match &value.kind {
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
                    });
                });
            }
            StmtKind::ClassDef(c) => collect_hosts(&c.body, kernels, host, out),
            _ => {}
        }
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
