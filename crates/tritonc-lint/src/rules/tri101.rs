//! TRI101 unmasked-block-access.

use tritonc_diagnostics::{CodeDoc, Diagnostic, Fix};
use tritonc_ir::{BinaryOp, CmpIPredicate, Function, OpId, OpKind, Value, ValueDef};
use tritonc_syntax::ast::StmtKind;

use super::{access_name, append_argument, kernel_call};
use crate::analysis::shape::Extent;
use crate::context::{Finding, KernelContext};
use crate::registry::Rule;

/// Flags block loads and stores whose offsets can run past the tensor in a dim no mask bounds.
pub struct UnmaskedBlockAccess;

/// The rule's documentation.
pub const DOC: CodeDoc = CodeDoc {
    code: tritonc_diagnostics::Code("TRI101"),
    name: "unmasked-block-access",
    summary: "a block load or store can run past the tensor in a dim no mask bounds",
    explanation: "\
## What it does
Checks every `tl.load`, `tl.store` and atomic whose pointer offsets come from a block range
(`tl.arange`, possibly moved by `program_id * BLOCK` or a loop) and reports it when a dim
that can run past the tensor is not bounded by its mask: no mask at all, a mask that was
computed and then not passed, or a 2-D mask that bounds only one dim.

A dim can run past the tensor when a program id or a loop over a runtime size moves its
range in block steps, or when the kernel compares that range against a bound elsewhere
(so it knows the block can be partial). Offsets reduced with `%` or `tl.minimum`, or
clamped with `tl.where(offs < M, offs, 0)` as Triton's matmul tutorials do, are in bounds
(`tl.minimum` by a bound on either side). Heuristics such as `EVEN_N = N % BLOCK_N == 0`
are honoured: lint analyses the masked branch, the unmasked branch is what the heuristic
proves safe. Flags that take a mask off (`if not DIVISIBLE_N: mask &= offs_n < N`) are
read the same way: an access the flags-off variant bounds is not reported for the
flags-on variant.

A loop that visits complete blocks only keeps the offsets it moves in bounds, as the
kernel itself says:
- a peeled loop, where it stops (its upper bound, or a pointer or offset it carries)
  starts a masked access after it (`for b in range(start, last): ... offset += BLOCK`,
  then `tl.load(p + offset, mask=offset < N)`; `for k in range(0, prev_multiple, BK)`,
  then the remainder at `prev_multiple + tl.arange(0, BK)` masked);
- a loop over the blocks before the program's own (`range(0, pid * BLOCK, BLOCK)`).
Dims the loop does not move (the columns of a row block) still need their mask.

A grid the host code in the same file writes says how far program ids go: an axis
that is a count (`grid = (batch, num_heads)`, `x.shape[0]`) or a floor division (`n //
BLOCK`) launches complete blocks only, so a range a program id along it moves (`i_h *
HEAD + tl.arange(0, HEAD)`) ends inside the tensor; an axis that rounds up (`triton.cdiv`,
`(n + B - 1) // B`, a call lint cannot see into) can end on a partial block. Without a
launch in the file, or with a grid passed in from elsewhere, the range is checked.

A range `tl.arange(0, D)` over a constexpr `D` the kernel (or a helper it passes `D` to)
also strides another range by (`offset_c[:, None] * D`: rows of `D` elements) spans a
whole row, not a block of a longer one. An access a flag branch leaves with part of its mask (`if EVEN_K: tl.load(A,
mask=rows)` next to `else: tl.load(A, mask=rows & ks)`) is read like a heuristic's promise
when the flags-off branch bounds every dim of the same pointer.

## Why is this bad?
The last program's block reaches past the end of the tensor. Loads read other memory (or
fault); stores corrupt it. Nothing reports it at run time.

## Example
```python
offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
mask = offs < n
x = tl.load(x_ptr + offs)
```

## Use instead
```python
offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
mask = offs < n
x = tl.load(x_ptr + offs, mask=mask)
```
",
};

impl Rule for UnmaskedBlockAccess {
    fn doc(&self) -> &'static CodeDoc {
        &DOC
    }

    fn check(&self, cx: &KernelContext<'_>, out: &mut Vec<Finding>) {
        let Some(ir) = cx.ir else { return };
        let f = &ir.func;
        let ops = f.walk();
        // Ranges the kernel compares against a bound: it treats them as possibly partial.
        // Keyed by how a program id or loop moves the compared offsets: `o_t = pid * 16 +
        // o_i` compared with `T` says the tiled rows can be partial, not that `o_i` alone
        // (the columns of a fixed-width row) or `o_i` moved by a row base can.
        let widths = row_widths(cx);
        let mut compared: Vec<(RangeKey, Motion, Option<Extent>)> = Vec::new();
        let mut compares: Vec<OpId> = Vec::new();
        for &op in &ops {
            if let OpKind::CmpI(pred) = f.kind(op) {
                // `o_i == i` picks a lane and `o_i < i` (with `i` a loop's own index) a
                // prefix of the block: selections inside the block, not a tensor bound.
                if matches!(pred, CmpIPredicate::Eq | CmpIPredicate::Ne)
                    || f.op(op)
                        .operands()
                        .iter()
                        .any(|&v| is_induction_var(f, crate::analysis::strip_shape(f, v)))
                {
                    continue;
                }
                // A range against a range (`rows[:, None] >= cols[None, :]`) is a causal or
                // triangular mask, not a bound: it says nothing about partial blocks.
                let ranged = f
                    .op(op)
                    .operands()
                    .iter()
                    .filter(|&&v| ir.shape.get(v).dims.iter().any(|d| !d.roots.is_empty()))
                    .count();
                if ranged > 1 {
                    continue;
                }
                compares.push(op);
                for &v in f.op(op).operands() {
                    for d in &ir.shape.get(v).dims {
                        compared.extend(
                            d.roots
                                .iter()
                                .map(|&r| (range_key(cx, r), Motion::of(d), d.base.clone())),
                        );
                    }
                }
            }
        }
        for &op in &ops {
            let kind = f.kind(op);
            let mask_index = match kind {
                OpKind::Load { .. } => 1,
                OpKind::Store { .. } | OpKind::AtomicRmw { .. } => 2,
                OpKind::AtomicCas { .. } => usize::MAX,
                _ => continue,
            };
            let operands = f.op(op).operands();
            let ptr = operands[0];
            if !f.value_type(ptr).is_tensor() {
                continue;
            }
            let pf = ir.shape.get(ptr);
            // Program ids that move this pointer along grid axes every launch covers with
            // complete blocks (`grid = (batch, num_heads)`, `n // BLOCK`): their blocks
            // never end past the tensor.
            let grid_complete = {
                let axes = program_id_axes(f, ptr);
                !axes.is_empty() && axes.iter().all(|&a| cx.complete_grid_axis(a))
            };
            let mask = operands.get(mask_index).copied();
            let bounded: Vec<usize> = mask
                .map(|m| ir.shape.get(m).varying_dims())
                .unwrap_or_default();
            let unbounded: Vec<usize> = (0..pf.dims.len())
                .filter(|&d| {
                    let dim = &pf.dims[d];
                    !dim.roots.is_empty()
                        && !dim.clamped
                        && ((dim.tiled && !(grid_complete && dim.loops.is_empty()))
                            || dim.roots.iter().any(|&r| {
                                let key = range_key(cx, r);
                                compared.iter().any(|(k, motion, base)| {
                                    k.same(&key) && *motion == Motion::of(dim) && *base == dim.base
                                })
                            }))
                        && !bounded.contains(&d)
                        // A loop that visits complete blocks only (a peeled loop, or the
                        // blocks before this program's own) keeps the offsets it moves
                        // inside the tensor.
                        // `tl.arange(0, D)` with `D` the rows' width spans a whole row.
                        && !dim.roots.iter().all(|&r| {
                            range_key(cx, r)
                                .text
                                .as_deref()
                                .and_then(arange_end)
                                .is_some_and(|x| widths.contains(x))
                        })
                        && !dim.loops.iter().any(|&l| {
                            crate::analysis::ancestors(f, op).contains(&l)
                                && complete_blocks_loop(f, l)
                        })
                })
                .collect();
            if unbounded.is_empty() {
                continue;
            }
            let Some(span) = ir.op_span(op) else { continue };
            let name = access_name(kind);
            let rank = pf.dims.len();
            let dims_text = unbounded
                .iter()
                .map(|d| d.to_string())
                .collect::<Vec<_>>()
                .join(" and ");
            let (message, label) = match (&mask, rank) {
                (None, _) => (
                    format!("`{name}` of a block that can run past the tensor has no mask"),
                    "no mask".to_string(),
                ),
                (Some(_), _) => (
                    format!("the mask of this `{name}` does not bound dim {dims_text}, which can run past the tensor"),
                    format!("masked along dim {} only", if bounded.is_empty() { "none".to_string() } else { bounded.iter().map(|d| d.to_string()).collect::<Vec<_>>().join(", ") }),
                ),
            };
            let mut d = Diagnostic::warning(DOC.code, message).with_primary(span, label);
            if let Some(site) = ir.func.op(op).loc.call_sites.last() {
                d = d.with_secondary(*site, "in the helper called here");
            }
            let mut notes = Vec::new();
            for &dim in &unbounded {
                let fact = &pf.dims[dim];
                for &root in fact.roots.iter().take(1) {
                    if let Some(rs) = ir.op_span(root) {
                        d = d.with_secondary(rs, format!("dim {dim} offsets come from this range"));
                    }
                }
                let why = if fact.tiled {
                    "a program id or a loop over a runtime size moves it in block steps"
                } else {
                    "the kernel compares it against a bound, so the block can be partial"
                };
                notes.push(format!(
                    "dim {dim} of the pointer block varies with a range; {why}"
                ));
            }
            // A mask over the unbounded dims that exists but is not passed here.
            let unused_mask = compares.iter().copied().find(|&c| {
                let m = ir.shape.get(f.op(c).results()[0]);
                let roots_here: Vec<OpId> = unbounded
                    .iter()
                    .flat_map(|&dd| pf.dims[dd].roots.clone())
                    .collect();
                m.dims
                    .iter()
                    .any(|dd| dd.roots.iter().any(|r| roots_here.contains(r)))
                    && mask
                        .is_none_or(|mv| !crate::analysis::same_value(f, mv, f.op(c).results()[0]))
            });
            if let Some(c) = unused_mask {
                if let Some(cs) = ir.op_span(c) {
                    d = d.with_secondary(
                        cs,
                        "a bound on these offsets is computed here but not passed",
                    );
                }
            }
            for n in notes {
                d = d.with_note(n);
            }
            d = d.with_help(if mask.is_some() {
                "bound every dim: combine the per-dim masks with `&` (e.g. `mask=(rows[:, None] < M) & (cols[None, :] < N)`)".to_string()
            } else {
                "pass `mask=` comparing the offsets with the tensor's size".to_string()
            });
            // Fix: pass the mask variable that holds exactly that compare.
            if mask.is_none() {
                if let (Some(c), Some(call)) = (unused_mask, kernel_call(cx, ir, op)) {
                    let _ = call;
                    if let Some(var) = assigned_name(cx, ir.op_span(c)) {
                        if let Some(edit) = append_argument(cx, span, &format!("mask={var}")) {
                            d = d.with_fix(Fix {
                                message: format!("pass `mask={var}`"),
                                edits: vec![edit],
                            });
                        }
                    }
                }
            }
            out.push(Finding::new(d));
        }
    }
}

/// Which range a `tt.make_range` is. By text, not value: under placeholder sizes
/// `arange(0, BK)` and `arange(0, BV)` lower to the same op, though they span different
/// dims.
#[derive(Debug, Clone, PartialEq, Eq)]
struct RangeKey {
    /// The op itself.
    op: OpId,
    /// The call as written in the kernel, without whitespace (`None` in a helper).
    text: Option<String>,
    /// The call is the whole value of an assignment (`o_v = tl.arange(0, BV)`).
    named: bool,
}

impl RangeKey {
    /// The same range: the same op, or the same call written again inline (its bound,
    /// compared once, bounds both). Two names bound to equal calls (`o_m`, `o_r =
    /// tl.arange(0, M)`) are two ranges: the author keeps them apart.
    fn same(&self, o: &RangeKey) -> bool {
        self.op == o.op || (self.text.is_some() && self.text == o.text && !(self.named && o.named))
    }
}

fn range_key(cx: &KernelContext<'_>, root: OpId) -> RangeKey {
    let mut key = RangeKey {
        op: root,
        text: None,
        named: false,
    };
    let Some(ir) = cx.ir else { return key };
    if ir.func.op(root).loc.call_sites.is_empty() {
        if let Some(span) = ir.op_span(root) {
            let text: String = cx.slice(span).split_whitespace().collect();
            if !text.is_empty() {
                key.text = Some(text);
                key.named = assigned_name(cx, Some(span)).is_some();
            }
        }
    }
    key
}

/// How a program id or loop moves the offsets of one dim.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Motion {
    /// The range as it is (possibly scaled or clamped).
    Fixed,
    /// Moved by a base that is not a step over blocks of the range (a row offset); two
    /// offsets moved by bases of different steps are different offsets.
    Based,
    /// Moved in block steps.
    Tiled,
}

impl Motion {
    fn of(d: &crate::analysis::shape::DimFact) -> Motion {
        if d.tiled {
            Motion::Tiled
        } else if d.moved {
            Motion::Based
        } else {
            Motion::Fixed
        }
    }
}

/// Whether `v` is an `scf.for` induction variable (possibly cast to another width or
/// shifted by a constant).
fn is_induction_var(f: &Function, v: Value) -> bool {
    match f.value_def(v) {
        ValueDef::BlockArg { block, index: 0 } => f
            .block_parent_op(block)
            .is_some_and(|p| matches!(f.kind(p), OpKind::For { .. })),
        ValueDef::BlockArg { .. } => false,
        ValueDef::OpResult { op, .. } => match f.kind(op) {
            OpKind::Cast { .. } => is_induction_var(f, f.op(op).operands()[0]),
            // `i - 16`: the loop's index shifted into a sub-block.
            OpKind::Binary(BinaryOp::AddI | BinaryOp::SubI) => {
                let ops = f.op(op).operands();
                ops.iter().any(|&v| is_induction_var(f, v))
                    && ops
                        .iter()
                        .any(|&v| crate::analysis::constant_of(f, v).is_some())
            }
            _ => false,
        },
    }
}

/// The grid axes of the program ids `v` is computed from (through every op but loads).
fn program_id_axes(f: &Function, v: Value) -> Vec<usize> {
    let mut out = Vec::new();
    let mut stack = vec![v];
    let mut seen = std::collections::BTreeSet::new();
    while let Some(v) = stack.pop() {
        if !seen.insert(v) || seen.len() > 512 {
            continue;
        }
        let Some(op) = crate::analysis::def_op(f, v) else {
            continue;
        };
        match f.kind(op) {
            OpKind::GetProgramId { axis } => {
                let a = *axis as usize;
                if !out.contains(&a) {
                    out.push(a);
                }
            }
            OpKind::Load { .. } => {}
            _ => stack.extend(f.op(op).operands().iter().copied()),
        }
    }
    out
}

/// The variable a statement `NAME = <expr at span>` in the kernel binds.
fn assigned_name(
    cx: &KernelContext<'_>,
    span: Option<tritonc_diagnostics::Span>,
) -> Option<String> {
    let span = span?;
    fn find(
        stmts: &[tritonc_syntax::ast::Stmt],
        span: tritonc_diagnostics::Span,
    ) -> Option<String> {
        for s in stmts {
            match &s.kind {
                StmtKind::Assign { targets, value } if value.span == span && targets.len() == 1 => {
                    return targets[0].as_name().map(str::to_string);
                }
                StmtKind::If { body, orelse, .. }
                | StmtKind::For { body, orelse, .. }
                | StmtKind::While { body, orelse, .. } => {
                    if let Some(n) = find(body, span).or_else(|| find(orelse, span)) {
                        return Some(n);
                    }
                }
                _ => {}
            }
        }
        None
    }
    find(&cx.kernel.def.body, span)
}

/// Whether the `scf.for` `l` visits complete blocks only, as the kernel itself says:
/// - peeled: where the loop stops — its upper bound, or a pointer or offset it carries —
///   starts a masked access after it (`for b in range(start, last): load(p); p += B`, then
///   `load(p, mask=offs < N)`; `for k in range(0, prev_multiple, BK)`, then the remainder
///   at `prev_multiple + arange` masked);
/// - the blocks before this program's own: the bound is a program id times a block
///   (`range(0, pid_c * BLOCK_C, BLOCK_C)`), and the program's own block starts inside
///   the tensor.
fn complete_blocks_loop(f: &Function, l: OpId) -> bool {
    if !matches!(f.kind(l), OpKind::For { .. }) {
        return false;
    }
    let data = f.op(l);
    let Some(&ub) = data.operands().get(1) else {
        return false;
    };
    if program_block_start(f, ub) {
        return true;
    }
    // A bound that is a kernel argument (`range(0, K, BK)`) is a size used everywhere,
    // not a point where the loop stops short of one.
    let mut starts: Vec<Value> = Vec::new();
    if !f.args().contains(&ub) && crate::analysis::constant_of(f, ub).is_none() {
        starts.push(ub);
    }
    starts.extend(data.results().iter().copied());
    starts
        .into_iter()
        .any(|v| reaches_masked_access_after(f, v, l, &mut Vec::new(), 0))
}

/// Whether `v` is `pid * C` for a compile-time `C` (through casts).
fn program_block_start(f: &Function, v: Value) -> bool {
    let Some(op) = crate::analysis::def_op(f, v) else {
        return false;
    };
    match f.kind(op) {
        OpKind::Cast { .. } => program_block_start(f, f.op(op).operands()[0]),
        OpKind::Binary(BinaryOp::MulI) => {
            let ops = f.op(op).operands();
            let is_pid = |v: Value| {
                let v = crate::analysis::strip_shape(f, v);
                crate::analysis::def_op(f, v).is_some_and(|d| match f.kind(d) {
                    OpKind::GetProgramId { .. } => true,
                    OpKind::Cast { .. } => matches!(
                        crate::analysis::def_op(f, f.op(d).operands()[0]).map(|x| f.kind(x)),
                        Some(OpKind::GetProgramId { .. })
                    ),
                    _ => false,
                })
            };
            let is_const = |v: Value| {
                crate::analysis::constant_of(f, v).is_some()
                    || crate::generic::symbolic_name(f, v).is_some()
            };
            ops.len() == 2
                && ((is_pid(ops[0]) && is_const(ops[1])) || (is_pid(ops[1]) && is_const(ops[0])))
        }
        _ => false,
    }
}

/// Whether `v` flows, through offset arithmetic and shape ops, into the pointer of a
/// masked load, store or atomic outside the loop `l`.
fn reaches_masked_access_after(
    f: &Function,
    v: Value,
    l: OpId,
    seen: &mut Vec<Value>,
    depth: u32,
) -> bool {
    if depth > 12 || seen.contains(&v) || seen.len() > 128 {
        return false;
    }
    seen.push(v);
    f.uses(v).iter().any(|u| {
        let user = u.op;
        match f.kind(user) {
            OpKind::Load { .. } => {
                u.operand == 0
                    && f.op(user).operands().len() > 1
                    && !crate::analysis::ancestors(f, user).contains(&l)
            }
            OpKind::Store { .. } | OpKind::AtomicRmw { .. } => {
                u.operand == 0
                    && f.op(user).operands().len() > 2
                    && !crate::analysis::ancestors(f, user).contains(&l)
            }
            OpKind::AddPtr
            | OpKind::Splat
            | OpKind::Broadcast
            | OpKind::ExpandDims { .. }
            | OpKind::Hint(_)
            | OpKind::Cast { .. }
            | OpKind::Binary(BinaryOp::AddI | BinaryOp::SubI | BinaryOp::MulI) => f
                .op(user)
                .results()
                .iter()
                .any(|&r| reaches_masked_access_after(f, r, l, seen, depth + 1)),
            _ => false,
        }
    })
}

/// The `X` of a range written `tl.arange(0, X)` (text without whitespace).
fn arange_end(text: &str) -> Option<&str> {
    let args = text.strip_suffix(')')?;
    let (callee, args) = args.split_once('(')?;
    if !callee.ends_with("arange") {
        return None;
    }
    let end = args.strip_prefix("0,")?;
    (!end.is_empty() && end.chars().all(|c| c.is_alphanumeric() || c == '_')).then_some(end)
}

/// Constexpr parameters the kernel uses as the width of a tensor's rows: `X` multiplies a
/// block range other than `tl.arange(0, X)` (`offset_c[:, None] * D`: rows of `D`
/// elements), so `tl.arange(0, X)` spans a whole row, not a block of a longer one.
fn row_widths(cx: &KernelContext<'_>) -> std::collections::BTreeSet<String> {
    use tritonc_syntax::ast::{BinOp, Expr, ExprKind};
    let def = &cx.kernel.def;
    let constexprs: Vec<&str> = def
        .params
        .iter()
        .filter(|p| {
            p.annotation
                .as_ref()
                .is_some_and(tritonc_sema::spec::is_constexpr_annotation)
        })
        .map(|p| p.name.name.as_str())
        .collect();
    // The arange end of each expression that contains a range: `None` for a range
    // written other than `tl.arange(0, X)`.
    fn range_ends(e: &Expr, names: &[(String, Option<String>)]) -> Vec<Option<String>> {
        let mut out = Vec::new();
        crate::syntax_walk::walk_expr(e, &mut |x| match &x.kind {
            ExprKind::Call(c) if super::callee_last(c) == Some("arange") => {
                let end = match c.args.as_slice() {
                    [start, end]
                        if matches!(&start.kind, ExprKind::Constant(_))
                            && matches!(&end.kind, ExprKind::Name(_)) =>
                    {
                        end.as_name().map(str::to_string)
                    }
                    _ => None,
                };
                out.push(end);
            }
            ExprKind::Name(n) => {
                if let Some((_, end)) = names.iter().find(|(m, _)| m == n) {
                    out.push(end.clone());
                }
            }
            _ => {}
        });
        out
    }
    fn assigned_ranges(
        stmts: &[tritonc_syntax::ast::Stmt],
        names: &mut Vec<(String, Option<String>)>,
    ) {
        use tritonc_syntax::ast::StmtKind;
        for st in stmts {
            match &st.kind {
                StmtKind::Assign { targets, value } => {
                    if let Some(n) = targets.first().and_then(|t| t.as_name()) {
                        let ends = range_ends(value, names);
                        if let (1, [end]) = (targets.len(), ends.as_slice()) {
                            names.push((n.to_string(), end.clone()));
                        }
                    }
                }
                StmtKind::If { body, orelse, .. }
                | StmtKind::For { body, orelse, .. }
                | StmtKind::While { body, orelse, .. } => {
                    assigned_ranges(body, names);
                    assigned_ranges(orelse, names);
                }
                _ => {}
            }
        }
    }
    let mut names: Vec<(String, Option<String>)> = Vec::new();
    assigned_ranges(&def.body, &mut names);
    let mut out = std::collections::BTreeSet::new();
    // `x * other` where `x` is a kernel constexpr (`rename` maps a helper's parameter
    // names to the kernel names passed to them).
    let scan = |body: &[tritonc_syntax::ast::Stmt],
                names: &[(String, Option<String>)],
                rename: &dyn Fn(&str) -> Option<String>,
                out: &mut std::collections::BTreeSet<String>| {
        crate::syntax_walk::for_each_expr(body, &mut |e| {
            let ExprKind::BinOp {
                op: BinOp::Mul,
                lhs,
                rhs,
            } = &e.kind
            else {
                return;
            };
            for (x, other) in [(lhs, rhs), (rhs, lhs)] {
                let Some(x) = x
                    .as_name()
                    .and_then(rename)
                    .filter(|x| constexprs.contains(&x.as_str()))
                else {
                    continue;
                };
                let ends = range_ends(other, names);
                if !ends.is_empty() && ends.iter().all(|end| end.as_deref() != Some(&x)) {
                    out.insert(x);
                }
            }
        });
    };
    scan(&def.body, &names, &|n| Some(n.to_string()), &mut out);
    // The helpers the kernel calls stride by the constexprs passed to them too
    // (`helper(pid, offset_c, D)` computing `offset_c[:, None] * D`).
    let mut calls: Vec<&tritonc_syntax::ast::Call> = Vec::new();
    crate::syntax_walk::for_each_expr(&def.body, &mut |e| {
        if let ExprKind::Call(c) = &e.kind {
            calls.push(c);
        }
    });
    for c in calls {
        let Some(helper) = c
            .func
            .as_name()
            .and_then(|n| cx.scope.functions.get(n))
            .filter(|h| !std::sync::Arc::ptr_eq(h, &def))
        else {
            continue;
        };
        let mut map: Vec<(String, String)> = Vec::new();
        for (p, a) in helper.params.iter().zip(&c.args) {
            if let Some(n) = a.as_name() {
                map.push((p.name.name.clone(), n.to_string()));
            }
        }
        for k in &c.keywords {
            if let (Some(p), Some(n)) = (&k.name, k.value.as_name()) {
                map.push((p.name.clone(), n.to_string()));
            }
        }
        // The helper's parameters hold the ranges the kernel passed.
        let mut helper_names: Vec<(String, Option<String>)> = map
            .iter()
            .filter_map(|(p, a)| {
                names
                    .iter()
                    .rev()
                    .find(|(m, _)| m == a)
                    .map(|(_, end)| (p.clone(), end.clone()))
            })
            .collect();
        assigned_ranges(&helper.body, &mut helper_names);
        let rename = |n: &str| map.iter().find(|(p, _)| p == n).map(|(_, a)| a.clone());
        scan(&helper.body, &helper_names, &rename, &mut out);
    }
    out
}
