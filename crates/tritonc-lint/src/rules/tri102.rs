//! TRI102 missing-other.

use std::collections::BTreeSet;

use tritonc_diagnostics::{CodeDoc, Diagnostic, Fix, Span};
use tritonc_ir::{BinaryOp, CmpIPredicate, Function, OpId, OpKind, Value, ValueDef};

use super::{append_argument, kernel_call};
use crate::analysis::combiner::{classify, ReductionKind};
use crate::analysis::implies_mask;
use crate::analysis::lanes::{Fill, Lanes, MaskedLanes};
use crate::context::{AnalysedKernel, Finding, KernelContext};
use crate::registry::Rule;

/// Flags masked loads without `other=` whose undefined lanes reach a reduction, scan, dot
/// or unmasked store.
pub struct MissingOther;

/// The rule's documentation.
pub const DOC: CodeDoc = CodeDoc {
    code: tritonc_diagnostics::Code("TRI102"),
    name: "missing-other",
    summary: "the undefined lanes of a masked load without `other=` reach a reduction, scan, dot or unmasked store",
    explanation: "\
## What it does
Follows the lanes a masked `tl.load` without `other=` leaves out through elementwise ops
(and helpers and loops) and reports the load when those lanes reach `tl.sum`/`tl.max`/any
reduction along a masked dim, a scan, a `tl.dot` along a masked dim (the contraction:
`a`'s columns, `b`'s rows), or a store whose mask does not exclude them. A `tl.where(mask,
x, c)` on the way gives the lanes a defined value and ends the chain; a `tl.where(select,
x, y)` over one factor of a load mask `m & select` defines the lanes off `select`, and
those off `m` then matter only where they reach something unmasked by `m` (`tl.store(out +
idx, tl.where(select, src, inp), mask=m)` is quiet).

A reduction along a dim the mask is constant on combines undefined lanes only with each
other, also after a reshape that splits that dim (`[BT, BK * BK]` to `[BT, BK, BK]`,
summed along either part of the columns). A store of the lanes back into the tensor they
were loaded from, at the block's own offsets rearranged by a sort (`x + P + s` under `P +
s < n`, after a load of `x + P + r` under `P + r < n`, where `s` is the index output of a
compare-and-swap network of `tl.where`s over `r = tl.arange(…)`), is quiet: the lanes move
as a permutation of the block, so an undefined lane passing the store's mask would push a
defined one out, and the kernel would be wrong whatever `other=` is.

## Why is this bad?
Triton's language leaves masked-off lanes of a load without `other` undefined. NVIDIA's
lowering happens to zero them, so the kernel works there; other back ends (and future
versions) do not, and the reduction then mixes garbage into every result.

## Example
```python
x = tl.load(x_ptr + cols, mask=cols < n)
total = tl.sum(x, axis=0)
```

## Use instead
```python
x = tl.load(x_ptr + cols, mask=cols < n, other=0.0)
total = tl.sum(x, axis=0)
```
",
};

/// Where undefined lanes end up.
struct Sink {
    op: OpId,
    what: String,
    neutral: f64,
}

impl Rule for MissingOther {
    fn doc(&self) -> &'static CodeDoc {
        &DOC
    }

    fn check(&self, cx: &KernelContext<'_>, out: &mut Vec<Finding>) {
        let Some(ir) = cx.ir else { return };
        let f = &ir.func;
        let mut reported: BTreeSet<OpId> = BTreeSet::new();
        let constexprs: Vec<&str> = cx
            .spec
            .spec
            .params
            .iter()
            .filter(|(_, s)| !s.is_runtime())
            .map(|(n, _)| n.as_str())
            .collect();
        for op in f.walk() {
            let data = f.op(op);
            let sinks: Vec<(Value, Sink)> = match f.kind(op) {
                OpKind::Reduce { axis } | OpKind::Scan { axis, .. } => {
                    let kind = classify(f, op);
                    let is_scan = matches!(f.kind(op), OpKind::Scan { .. });
                    let neutral = match kind {
                        ReductionKind::Max | ReductionKind::ArgMax => f64::NEG_INFINITY,
                        ReductionKind::Min | ReductionKind::ArgMin => f64::INFINITY,
                        ReductionKind::Product => 1.0,
                        _ => 0.0,
                    };
                    data.operands()
                        .iter()
                        .take(1)
                        .filter(|&&v| mask_varies_along(ir, v, *axis as usize))
                        .map(|&v| {
                            (
                                v,
                                Sink {
                                    op,
                                    what: format!("`{}`", kind.tl_name(is_scan)),
                                    neutral,
                                },
                            )
                        })
                        .collect()
                }
                OpKind::Dot { .. } => data
                    .operands()
                    .iter()
                    .take(2)
                    .enumerate()
                    // The dot combines lanes only along the contraction dim (A's columns,
                    // B's rows): undefined rows of A or columns of B stay in their own rows
                    // and columns of the result.
                    .filter(|&(i, &v)| {
                        let rank = f.value_type(v).rank();
                        rank < 2
                            || mask_varies_along(ir, v, if i == 0 { rank - 1 } else { rank - 2 })
                    })
                    .map(|(_, &v)| {
                        (
                            v,
                            Sink {
                                op,
                                what: "`tl.dot`".into(),
                                neutral: 0.0,
                            },
                        )
                    })
                    .collect(),
                OpKind::Store { .. } => {
                    let v = data.operands()[1];
                    match ir.lanes.get(v) {
                        Lanes::Masked(m)
                            if data.operands().get(2).is_some_and(|&sm| {
                                implies_mask(f, sm, m.mask)
                                    || stored_permuted(f, op, m)
                                    || reads_lost_value(f, sm, &constexprs, 64)
                            }) =>
                        {
                            Vec::new()
                        }
                        _ => vec![(
                            v,
                            Sink {
                                op,
                                what: "a store whose mask does not exclude them".into(),
                                neutral: 0.0,
                            },
                        )],
                    }
                }
                _ => Vec::new(),
            };
            for (v, sink) in sinks {
                let Lanes::Masked(m) = *ir.lanes.get(v) else {
                    continue;
                };
                if m.fill != Fill::Undefined || !reported.insert(m.load) {
                    continue;
                }
                if let Some(d) = diagnostic(cx, ir, &m, &sink) {
                    out.push(Finding::new(d));
                }
            }
        }
    }
}

/// Whether the store `store` writes the lanes of the load `m.load` back to the tensor they
/// came from, rearranged by a sort, under the load's own bound: the load reads `x + P +
/// r` under `P + r < n` (`r` a `tl.arange`), the store writes `x + P + s` under `P + s <
/// n`, where `s` is made of the lane indices `r` moved by data-dependent selections (the
/// index output of a sort network: compare-and-swap `tl.where`s over `r`) and nothing
/// loaded or passed in. Then the lanes move as a permutation of the block's own offsets,
/// and if an undefined lane passed the store's mask a defined lane would fail it: the
/// kernel would lose data whatever `other=` is, so `other=` is not what it misses.
fn stored_permuted(f: &Function, store: OpId, m: &MaskedLanes) -> bool {
    use crate::analysis::same_value;
    let (Some(&sptr), Some(&smask)) = (
        f.op(store).operands().first(),
        f.op(store).operands().get(2),
    ) else {
        return false;
    };
    let Some(&lptr) = f.op(m.load).operands().first() else {
        return false;
    };
    let (Some((sbase, s_terms)), Some((lbase, l_terms))) =
        (pointer_terms(f, sptr), pointer_terms(f, lptr))
    else {
        return false;
    };
    let (Some((s_idx, s_bound)), Some((l_idx, l_bound))) =
        (below_cmp(f, smask), below_cmp(f, m.mask))
    else {
        return false;
    };
    // Each mask bounds its own access's offset, by the same size, in the same tensor.
    if sbase != lbase
        || !same_value(f, s_bound, l_bound)
        || !same_terms(f, &sum_terms(f, s_idx), &s_terms)
        || !same_terms(f, &sum_terms(f, l_idx), &l_terms)
    {
        return false;
    }
    l_terms.iter().enumerate().any(|(j, &range)| {
        crate::analysis::def_op(f, range)
            .is_some_and(|r| matches!(f.kind(r), OpKind::MakeRange { .. }))
            && s_terms.iter().enumerate().any(|(i, &sorted)| {
                same_terms(f, &without(&s_terms, i), &without(&l_terms, j))
                    && sorted_lane_indices(f, sorted, range)
            })
    })
}

fn without(terms: &[Value], i: usize) -> Vec<Value> {
    let mut out = terms.to_vec();
    out.remove(i);
    out
}

/// Whether two sums have the same terms, in any order.
fn same_terms(f: &Function, a: &[Value], b: &[Value]) -> bool {
    if a.len() != b.len() {
        return false;
    }
    let mut left: Vec<Value> = b.to_vec();
    a.iter().all(|&x| {
        match left
            .iter()
            .position(|&y| crate::analysis::same_value(f, x, y))
        {
            Some(i) => {
                left.remove(i);
                true
            }
            None => false,
        }
    })
}

/// The terms of the integer sum `v` (through `+`, shape ops and integer casts).
fn sum_terms(f: &Function, v: Value) -> Vec<Value> {
    let v = strip_int_casts(f, v);
    match crate::analysis::def_op(f, v).map(|op| (op, f.kind(op))) {
        Some((op, OpKind::Binary(BinaryOp::AddI))) => f
            .op(op)
            .operands()
            .iter()
            .flat_map(|&o| sum_terms(f, o))
            .collect(),
        _ => vec![v],
    }
}

/// The kernel argument `ptr` points into and the terms of its offset from it, through a
/// chain of `tt.addptr`s (`x + a + b`) and splats.
fn pointer_terms(f: &Function, ptr: Value) -> Option<(Value, Vec<Value>)> {
    let mut terms = Vec::new();
    let mut p = crate::analysis::strip_shape(f, ptr);
    for _ in 0..16 {
        if f.args().contains(&p) {
            return Some((p, terms));
        }
        let op = crate::analysis::def_op(f, p)?;
        if !matches!(f.kind(op), OpKind::AddPtr) {
            return None;
        }
        let ops = f.op(op).operands();
        terms.extend(sum_terms(f, *ops.get(1)?));
        p = crate::analysis::strip_shape(f, ops[0]);
    }
    None
}

/// `(i, n)` for a mask `i < n`.
fn below_cmp(f: &Function, mask: Value) -> Option<(Value, Value)> {
    let op = crate::analysis::def_op(f, crate::analysis::strip_shape(f, mask))?;
    let ops = f.op(op).operands();
    match f.kind(op) {
        OpKind::CmpI(CmpIPredicate::Slt | CmpIPredicate::Ult) => Some((ops[0], ops[1])),
        OpKind::CmpI(CmpIPredicate::Sgt | CmpIPredicate::Ugt) => Some((ops[1], ops[0])),
        _ => None,
    }
}

/// Whether `target` is among the values `v` is computed from.
fn reaches(f: &Function, v: Value, target: Value) -> bool {
    let mut stack = vec![v];
    let mut seen = BTreeSet::new();
    while let Some(v) = stack.pop() {
        if v == target {
            return true;
        }
        if !seen.insert(v) || seen.len() > 4096 {
            continue;
        }
        if let Some(op) = crate::analysis::def_op(f, v) {
            stack.extend(f.op(op).operands());
        }
    }
    false
}

/// Whether the mask `v` reads a value lint could not compute: generic lowering's stand-in
/// for a tensor a statement it could not lower assigns (see
/// [`crate::generic::is_lost_value`]). Which lanes such a mask excludes is unknown, and
/// the rule does not guess.
fn reads_lost_value(f: &Function, v: Value, constexprs: &[&str], budget: usize) -> bool {
    let mut stack = vec![v];
    let mut seen = BTreeSet::new();
    while let Some(v) = stack.pop() {
        if !seen.insert(v) || seen.len() > budget {
            continue;
        }
        if crate::generic::is_lost_value(f, v, constexprs) {
            return true;
        }
        if let Some(op) = crate::analysis::def_op(f, v) {
            if f.op(op).regions().is_empty() && !matches!(f.kind(op), OpKind::Load { .. }) {
                stack.extend(f.op(op).operands());
            }
        }
    }
    false
}

/// `v` with shape ops and casts between integer widths looked through.
fn strip_int_casts(f: &Function, mut v: Value) -> Value {
    loop {
        v = crate::analysis::strip_shape(f, v);
        match crate::analysis::def_op(f, v) {
            Some(op) if matches!(f.kind(op), OpKind::Cast { .. }) => v = f.op(op).operands()[0],
            _ => return v,
        }
    }
}

/// Whether `v` is the lane indices `range` rearranged by data: computed from `range`
/// (and constants and other ranges: a sort network's masks) only, through at least one
/// `tl.where` whose condition is not a constant; what a `tl.where` tests is not part of
/// the value. A loaded value, a kernel argument, a program id or a loop-carried value
/// anywhere in the value makes it something else.
fn sorted_lane_indices(f: &Function, v: Value, range: Value) -> bool {
    let mut stack = vec![v];
    let mut seen = BTreeSet::new();
    let (mut reached, mut selected) = (false, false);
    while let Some(v) = stack.pop() {
        if !seen.insert(v) {
            continue;
        }
        if seen.len() > 4096 {
            return false;
        }
        if v == range {
            reached = true;
            continue;
        }
        let Some(op) = crate::analysis::def_op(f, v) else {
            return false;
        };
        let ops = f.op(op).operands();
        match f.kind(op) {
            OpKind::Constant(_) | OpKind::MakeRange { .. } => {}
            _ if crate::generic::is_symbolic_constexpr(f, v) => {}
            OpKind::Select => {
                if crate::analysis::constant_of(f, ops[0]).is_none() {
                    selected = true;
                }
                stack.extend(&ops[1..]);
            }
            OpKind::Load { .. }
            | OpKind::AtomicRmw { .. }
            | OpKind::AtomicCas { .. }
            | OpKind::GetProgramId { .. }
            | OpKind::GetNumPrograms { .. } => return false,
            // An index plus or minus something (`r + 1`) is a shift, not a rearrangement;
            // sums of the network's masks (`1 - m`) are fine.
            OpKind::Binary(BinaryOp::AddI | BinaryOp::SubI)
                if ops.iter().any(|&o| reaches(f, o, range)) =>
            {
                return false
            }
            _ if !f.op(op).regions().is_empty() && !matches!(f.kind(op), OpKind::Reduce { .. }) => {
                return false
            }
            _ => stack.extend(ops),
        }
    }
    reached && selected
}

/// Whether the mask of `v`'s masked lanes varies along `axis` (a reduction along a dim the
/// mask is constant on combines only masked lanes with masked lanes). The axis is mapped
/// back to the load's dims first ([`load_axis`]): a block transposed or reshaped after the
/// load is reduced along another dim of the mask than its own number says.
pub(crate) fn mask_varies_along(ir: &AnalysedKernel, v: Value, axis: usize) -> bool {
    let Lanes::Masked(m) = ir.lanes.get(v) else {
        return false;
    };
    let (axis, rank) = match load_axis(ir, v, axis, m.load) {
        // A dim `expand_dims` inserted: its lanes are copies of one lane.
        Some(None) => return false,
        Some(Some(d)) => (d, load_rank(ir, m.load)),
        None => (axis, ir.func.value_type(v).rank()),
    };
    let mf = ir.shape.get(m.mask);
    if mf.dims.len() != rank {
        return true;
    }
    mask_part_varies(ir, m.mask, axis, 8)
}

/// Whether the mask `mask` varies along `axis`, leaving out conjuncts that always hold
/// (`row < B` for the row of a loop `for row in range(0, B)`, see [`always_true`]).
fn mask_part_varies(ir: &AnalysedKernel, mask: Value, axis: usize, depth: u32) -> bool {
    let f = &ir.func;
    let here = |v: Value| {
        ir.shape
            .get(v)
            .dims
            .get(axis)
            .is_none_or(|d| d.varies || !d.roots.is_empty())
    };
    if !here(mask) {
        return false;
    }
    let m = crate::analysis::strip_shape(f, mask);
    match crate::analysis::def_op(f, m).map(|op| (op, f.kind(op))) {
        Some((op, OpKind::Binary(BinaryOp::AndI))) if depth > 0 => {
            let ops = f.op(op).operands();
            ops.len() != 2
                || ops
                    .iter()
                    .any(|&c| mask_part_varies(ir, c, axis, depth - 1))
        }
        Some((op, OpKind::CmpI(_))) if always_true(f, op) => false,
        _ => true,
    }
}

/// Whether the comparison `op` always holds: `i < ub` (or `i + r < ub` with `r` a range of
/// one lane, `tl.arange(0, 1)`) where `i` is the index of an enclosing loop `for i in
/// range(lb, ub, step)` with a positive step.
pub(crate) fn always_true(f: &Function, op: OpId) -> bool {
    use crate::analysis::{constant_of, def_op, same_value, strip_shape};
    let OpKind::CmpI(pred) = f.kind(op) else {
        return false;
    };
    let ops = f.op(op).operands();
    let (lhs, rhs) = match pred {
        CmpIPredicate::Slt | CmpIPredicate::Ult => (ops[0], ops[1]),
        CmpIPredicate::Sgt | CmpIPredicate::Ugt => (ops[1], ops[0]),
        _ => return false,
    };
    let zero = |v: Value| {
        let v = strip_shape(f, v);
        constant_of(f, v) == Some(0.0)
            || def_op(f, v)
                .is_some_and(|d| matches!(f.kind(d), OpKind::MakeRange { start: 0, end: 1 }))
    };
    let mut index = strip_shape(f, lhs);
    if let Some(d) = def_op(f, index) {
        if let OpKind::Binary(BinaryOp::AddI) = f.kind(d) {
            let [a, b] = f.op(d).operands() else {
                return false;
            };
            index = if zero(*b) {
                strip_shape(f, *a)
            } else if zero(*a) {
                strip_shape(f, *b)
            } else {
                return false;
            };
        }
    }
    // `i * 1` (a block of one row).
    if let Some(d) = def_op(f, index) {
        if let (OpKind::Binary(BinaryOp::MulI), [a, b]) = (f.kind(d), f.op(d).operands()) {
            if constant_of(f, *b) == Some(1.0) {
                index = strip_shape(f, *a);
            } else if constant_of(f, *a) == Some(1.0) {
                index = strip_shape(f, *b);
            }
        }
    }
    let ValueDef::BlockArg { block, index: 0 } = f.value_def(index) else {
        return false;
    };
    let Some(l) = f.block_parent_op(block) else {
        return false;
    };
    if !matches!(f.kind(l), OpKind::For { .. }) {
        return false;
    }
    let lops = f.op(l).operands();
    lops.len() >= 3
        && constant_of(f, lops[2]).is_some_and(|s| s > 0.0)
        && same_value(f, lops[1], rhs)
}

fn load_rank(ir: &AnalysedKernel, load: OpId) -> usize {
    ir.func
        .op(load)
        .results()
        .first()
        .map_or(0, |&r| ir.func.value_type(r).rank())
}

/// Which dim of `load`'s result `axis` of `v` is, following `v` back through the ops that
/// carried the load's lanes to it: `tl.trans` permutes dims, `tl.expand_dims` inserts one,
/// a `tl.reshape` that keeps the element order keeps a dim whose size and the product of
/// the dims before it are unchanged, and elementwise ops and broadcasts keep the dims.
/// `Some(None)` for a dim `expand_dims` inserted (every lane along it is a copy of one);
/// `None` when the path leaves these ops (a loop-carried value, a reshape that splits the
/// dim) and the caller has only `v`'s own dims to go by.
pub(crate) fn load_axis(
    ir: &AnalysedKernel,
    v: Value,
    axis: usize,
    load: OpId,
) -> Option<Option<usize>> {
    let f = &ir.func;
    let target = *f.op(load).results().first()?;
    let (mut v, mut axis) = (v, axis);
    for _ in 0..64 {
        if v == target {
            return Some(Some(axis));
        }
        let op = crate::analysis::def_op(f, v)?;
        let data = f.op(op);
        let first = *data.operands().first()?;
        match f.kind(op) {
            OpKind::Trans { order } => axis = *order.get(axis)? as usize,
            OpKind::ExpandDims { axis: inserted } => {
                let inserted = *inserted as usize;
                if axis == inserted {
                    return Some(None);
                }
                if axis > inserted {
                    axis -= 1;
                }
            }
            OpKind::Reshape {
                allow_reorder: false,
            } => {
                let from = f.value_type(first).known_shape()?;
                let to = f.value_type(v).known_shape()?;
                axis = reshaped_axis(&from, &to, axis)?;
            }
            OpKind::Reshape { .. }
            | OpKind::Join
            | OpKind::Split
            | OpKind::Cat
            | OpKind::Dot { .. } => return None,
            kind => {
                let broadcast = matches!(kind, OpKind::Broadcast);
                let dims = f.value_type(v).dims();
                v = data.operands().iter().copied().find(|&o| {
                    let t = f.value_type(o);
                    (t.dims() == dims || broadcast && t.rank() == dims.len())
                        && matches!(ir.lanes.get(o), Lanes::Masked(m) if m.load == load)
                })?;
                continue;
            }
        }
        v = first;
    }
    None
}

/// The dim of `from` that dim `axis` of `to` lies in, for a reshape that keeps the element
/// order: the dim itself when the reshape keeps it, or the dim it is a part of when the
/// reshape splits one (`[BT, BK * BK]` to `[BT, BK, BK]`: dims 1 and 2 are parts of dim
/// 1). A mask constant along that dim is constant along each part of it. `None` when
/// `axis` merges dims of `from` (or the shapes do not match).
fn reshaped_axis(from: &[u64], to: &[u64], axis: usize) -> Option<usize> {
    let before: u64 = to.get(..axis)?.iter().product();
    let through = before.checked_mul(*to.get(axis)?)?;
    if from.contains(&0) || from.iter().product::<u64>() != to.iter().product::<u64>() {
        return None;
    }
    let starts: Vec<u64> = (0..from.len())
        .map(|j| from[..j].iter().product())
        .collect();
    // A dim the reshape keeps.
    if let Some(j) = (0..from.len()).find(|&j| from[j] == to[axis] && starts[j] == before) {
        return Some(j);
    }
    // Row-major, dim `j` of `from` holds the digits between the outer products
    // `start` and `end`, dim `axis` of `to` those between `before` and `through`: the
    // latter are among the former when both bounds fall on `j`'s digit bounds.
    (0..from.len()).find(|&j| {
        let (start, end) = (starts[j], starts[j] * from[j]);
        start <= before && before % start == 0 && through <= end && end % through == 0
    })
}

fn diagnostic(
    cx: &KernelContext<'_>,
    ir: &AnalysedKernel,
    m: &MaskedLanes,
    sink: &Sink,
) -> Option<Diagnostic> {
    let load_span = ir.op_span(m.load)?;
    let mut d = Diagnostic::warning(
        DOC.code,
        format!("masked `tl.load` without `other=` feeds {}", sink.what),
    )
    .with_primary(load_span, "masked-off lanes of this load are undefined");
    if let Some(mask_op) = crate::analysis::def_op(&ir.func, m.mask) {
        if let Some(ms) = ir.op_span(mask_op) {
            if ms != load_span {
                d = d.with_secondary(ms, "the mask");
            }
        }
    }
    if let Some(ss) = ir.op_span(sink.op) {
        d = d.with_secondary(ss, format!("the undefined lanes reach {} here", sink.what));
    }
    let neutral = super::py_float(sink.neutral);
    d = d
        .with_note("the lanes are undefined in Triton's language; NVIDIA happens to load 0, other back ends do not")
        .with_help(format!("pass `other={neutral}`, the neutral value of what consumes them"));
    if kernel_call(cx, ir, m.load).is_some() {
        if let Some(edit) = append_argument(cx, load_span, &format!("other={neutral}")) {
            d = d.with_fix(Fix {
                message: format!("pass `other={neutral}`"),
                edits: vec![edit],
            });
        }
    }
    let _: Option<Span> = None;
    Some(d)
}
