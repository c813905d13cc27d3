//! TRI301 autotuned-reduction-block.

use std::collections::{BTreeMap, BTreeSet};

use tritonc_diagnostics::{CodeDoc, Diagnostic};
use tritonc_ir::{OpId, OpKind, Value};

use crate::context::{AnalysedKernel, Finding, KernelContext};
use crate::registry::Rule;
use tritonc_sema::spec::is_constexpr_annotation;
use tritonc_sema::{ArgSpec, Constexpr};
use tritonc_syntax::ast::{Expr, ExprKind};

use crate::assume::orderings;
use crate::syntax_walk::{call_at, for_each_expr, names_in, walk_expr};

/// Flags autotune configs that vary the block of a reduced axis no loop completes.
pub struct AutotunedReductionBlock;

/// The rule's documentation.
pub const DOC: CodeDoc = CodeDoc {
    code: tritonc_diagnostics::Code("TRI301"),
    name: "autotuned-reduction-block",
    summary: "an autotune config varies the block of a reduced axis that no loop completes",
    explanation: "\
## What it does
Reports a reduction whose reduced dim is sized by a constexpr that `@triton.autotune`
configs set to different values, when no loop walks the rest of that dim: the block is the
whole reduction.

It is quiet where the launch guarantees the block covers the row: in the branch a
heuristic flag selects when it says so (`'ONE_TILE': lambda args: args['TILE_N'] >=
args['N']`, then `if ONE_TILE:`), or after `tl.assume(N <= TILE_N)`. A flag compared
against a constant (`args['TILE_N'] >= 128`) covers nothing.

## Why is this bad?
A config whose block is smaller than the row reduces a partial row, and the autotuner
happily picks it when it is fastest. Even when every config covers the row, different
blocks change the reduction order and so the results from run to run.

## Example
```python
@triton.autotune(configs=[triton.Config({'BLOCK': 256}), triton.Config({'BLOCK': 1024})], key=['n'])
@triton.jit
def row_sum(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    cols = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + tl.program_id(0) * n + cols, mask=cols < n, other=0.0)
    tl.store(out_ptr + tl.program_id(0), tl.sum(x, axis=0))
```

## Use instead
Size the block from the row with a heuristic (`triton.next_power_of_2(n)`), or loop over
the row in `BLOCK` steps and accumulate.
",
};

impl Rule for AutotunedReductionBlock {
    fn doc(&self) -> &'static CodeDoc {
        &DOC
    }

    fn check(&self, cx: &KernelContext<'_>, out: &mut Vec<Finding>) {
        let Some(ir) = cx.ir else { return };
        let Some(autotune) = &cx.kernel.autotune else {
            return;
        };
        // Constexprs the configs set to more than one value.
        let mut values: BTreeMap<&str, BTreeSet<String>> = BTreeMap::new();
        for c in &autotune.configs {
            for (k, v) in &c.kwargs {
                values
                    .entry(k.as_str())
                    .or_default()
                    .insert(cx.slice(v.span).to_string());
            }
        }
        let varied: BTreeSet<&str> = values
            .iter()
            .filter(|(_, v)| v.len() > 1)
            .map(|(k, _)| *k)
            .collect();
        let covered = covering_blocks(cx);
        let varied: BTreeSet<&str> = varied
            .into_iter()
            .filter(|n| !covered.contains(*n))
            .collect();
        if varied.is_empty() {
            return;
        }
        let f = &ir.func;
        for op in f.walk() {
            let OpKind::Reduce { axis } = f.kind(op) else {
                continue;
            };
            let axis = *axis as usize;
            let Some(&v) = f.op(op).operands().first() else {
                continue;
            };
            let Some((root, name)) = reduced_range(cx, ir, v, axis, &varied) else {
                continue;
            };
            let Some(span) = ir.op_span(op) else { continue };
            let mut d = Diagnostic::warning(
                DOC.code,
                format!("autotune configs vary `{name}`, which sizes this reduced axis, and no loop covers the rest of it"),
            )
            .with_primary(span, format!("reduces one `{name}`-wide block"));
            if let Some(rs) = ir.op_span(root) {
                d = d.with_secondary(rs, format!("the reduced axis is `{name}` wide"));
            }
            d = d
                .with_secondary(autotune.span, format!("configs set `{name}` to {}", values[name.as_str()].iter().cloned().collect::<Vec<_>>().join(", ")))
                .with_note("a config smaller than the row reduces a partial row; different blocks also change the reduction order")
                .with_help(format!("derive `{name}` from the row length with a heuristic, or loop over the row and accumulate"));
            out.push(Finding::new(d));
        }
    }
}

/// The range sizing `axis` of the loads that feed `v`, when its size names a varied
/// constexpr and no loop or program id tiles it.
fn reduced_range(
    cx: &KernelContext<'_>,
    ir: &AnalysedKernel,
    v: Value,
    axis: usize,
    varied: &BTreeSet<&str>,
) -> Option<(OpId, String)> {
    let f = &ir.func;
    let mut stack = vec![(v, 0u32)];
    let mut seen = BTreeSet::new();
    while let Some((v, depth)) = stack.pop() {
        if depth > 24 || !seen.insert(v) {
            continue;
        }
        let Some(op) = crate::analysis::def_op(f, v) else {
            continue;
        };
        match f.kind(op) {
            OpKind::Load { .. } => {
                let ptr = f.op(op).operands()[0];
                let dim = ir.shape.get(ptr).dims.get(axis)?;
                if dim.tiled {
                    return None;
                }
                for &root in &dim.roots {
                    let span = ir.op_span(root)?;
                    let call = call_at(&cx.kernel.def.body, span)?.as_call()?;
                    for a in &call.args {
                        if let Some(n) = names_in(a).into_iter().find(|n| varied.contains(n)) {
                            return Some((root, n.to_string()));
                        }
                    }
                }
            }
            OpKind::For { .. } | OpKind::Reduce { .. } | OpKind::Dot { .. } => {}
            _ => {
                for &o in f.op(op).operands() {
                    if f.value_type(o).rank() == f.value_type(v).rank() {
                        stack.push((o, depth + 1));
                    }
                }
            }
        }
    }
    None
}

/// Constexprs the launch makes at least as large as a run-time size, so a block of them
/// covers the row: the larger side of a heuristic flag (`"ONE_TILE": lambda args:
/// args["TILE_N"] >= args["N"]`) in a variant that lowers the flag as true, or of a
/// `tl.assume(N <= TILE_N)` / `tl.device_assert`. The smaller side must name a run-time
/// parameter: `TILE_N >= 16` covers nothing.
fn covering_blocks(cx: &KernelContext<'_>) -> BTreeSet<String> {
    let def = &cx.kernel.def;
    let is_runtime = |n: &str| {
        def.param(n)
            .is_some_and(|p| !p.annotation.as_ref().is_some_and(is_constexpr_annotation))
    };
    let mut out = BTreeSet::new();
    for h in &cx.kernel.heuristics {
        let on =
            cx.spec.spec.params.iter().any(|(n, s)| {
                n == &h.name && matches!(s, ArgSpec::Constexpr(Constexpr::Bool(true)))
            });
        if !on {
            continue;
        }
        let body = match &h.value.kind {
            ExprKind::Lambda { body, .. } => &**body,
            _ => &h.value,
        };
        for (smaller, larger) in orderings(body) {
            if launch_names(smaller).iter().any(|n| is_runtime(n)) {
                out.extend(launch_names(larger).into_iter().map(str::to_string));
            }
        }
    }
    for_each_expr(&def.body, &mut |e| {
        let ExprKind::Call(call) = &e.kind else {
            return;
        };
        if !matches!(super::callee_last(call), Some("assume" | "device_assert")) {
            return;
        }
        for (smaller, larger) in call.args.first().map(orderings).unwrap_or_default() {
            if names_in(smaller).iter().any(|n| is_runtime(n)) {
                out.extend(names_in(larger).into_iter().map(str::to_string));
            }
        }
    });
    out
}

/// The launch arguments a heuristic's expression reads: `args["N"]` is `N`; a bare name
/// (a parameter of a `def` heuristic) stands for itself.
fn launch_names(e: &Expr) -> Vec<&str> {
    let mut out = Vec::new();
    walk_expr(e, &mut |x| match &x.kind {
        ExprKind::Subscript { index, .. } => out.extend(index.as_str_literal()),
        ExprKind::Name(n) if n != "args" => out.push(n.as_str()),
        _ => {}
    });
    out
}
