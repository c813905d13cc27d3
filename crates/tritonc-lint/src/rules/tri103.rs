//! TRI103 wrong-fill-value.

use std::collections::BTreeSet;

use tritonc_diagnostics::{CodeDoc, Diagnostic, Fix, TextEdit};
use tritonc_ir::{BinaryOp, ConstValue, DType, Function, MathOp, OpId, OpKind, Value};

use super::{kernel_call, keyword_value_span};
use crate::analysis::combiner::{classify, ReductionKind};
use crate::analysis::implies_mask;
use crate::analysis::lanes::{Fill, Lanes, MaskedLanes};
use crate::analysis::num::{self, py_literal};
use crate::analysis::provenance::DTypeOrigin;
use crate::context::{AnalysedKernel, Finding, KernelContext};
use crate::registry::Rule;

/// Flags masked-lane fills that are not neutral for the reduction they reach.
pub struct WrongFillValue;

/// The rule's documentation.
pub const DOC: CodeDoc = CodeDoc {
    code: tritonc_diagnostics::Code("TRI103"),
    name: "wrong-fill-value",
    summary: "the value masked lanes hold is not neutral for the reduction they reach",
    explanation: "\
## What it does
Tracks what the masked-off lanes of a `tl.load(..., mask=m, other=c)` hold through
elementwise ops, `tl.where`, helpers and loops, and reports a reduction along a masked dim
whose masked lanes do not hold its neutral value: `0` into `max`/`argmax` (needs `-inf`) or
`min`/`argmin` (needs `+inf`), `-inf` into `sum`, or `0` through `exp` into a `sum` (each
masked lane adds `exp(0) = 1` to a softmax denominator).

It stays quiet where the value is right after all: a zero fill before `max(abs(x))` (the
data is non-negative, so 0 never wins; the same for a running `tl.maximum(tl.abs(x), acc)`
and a buffer another kernel of the file filled with non-negative values, passed on by the
launcher in the same function: `kernel_1[grid](x, mid)` then `kernel_2[(1,)](mid, out)`),
a fill sanitized by `tl.where(mask, x, -inf)`, a `max` used only as a softmax stabilizer
(`exp(x - m)` is the same for any `m` ≥ the data), and a reduction along an axis the mask
does not vary in (a row-masked load reduced along its columns: the masked rows' results
are not kept; a mask factor that always holds, such as `b < B` for the row `b` of a loop
`for b in range(0, B)`, bounds no axis). The axis is counted in the loaded block's dims:
after `tl.trans(x)`, `x[None, :]` or a `tl.reshape` that keeps the dim, the reduced axis
is the load's dim it came from (a dim `expand_dims` inserted holds copies of one lane; a
reshape that merges the dim is taken as varying with the mask).

An infinite fill scaled by one run-time scalar for every lane (`x * inv_temp` with
`inv_temp = 1.0 / temperature`, `x / scale`) keeps its sign: such scalars are presumed
positive, as temperatures, scales and norms are; a scale loaded per lane is not. When one
operand's mask is a factor of the other's (`b_x` loaded under `m_t[:, None] & m_d[None,
:]`, `b_r` under `m_t[:, None]`), the lanes off the shared factor are whole rows of junk
(`0 / 0`) that matter only to a reduction along the rows; the other masked lanes hold the
fill combined with data (`0 / r = 0`).

Sentinels are judged exactly against the data's dtype: the minimum of an integer dtype
(`-(2**63)` for int64, `-2147483648` for int32) is neutral for `max`/`argmax`, its maximum
for `min`/`argmin`, and a float dtype's lowest finite value for `max`. Where lint does not
know the dtype (a pointer whose pointee is a placeholder) a fill that is neutral for some
signed integer or float dtype is accepted, and a fill written with a constexpr lint had
to give a placeholder value (`other=dtype_max_value` without a default) is not judged. `argmax` and `argmin` are told apart by the
comparison their combiner keeps the value by, not by the tie break.

## Fix
The unsafe fix rewrites `other=` to the neutral value (`-inf` where the lanes go through
`exp` into a sum). It is offered only when the new fill changes nothing else: every
reduction the lanes reach along the mask must want the same value (a load feeding both a
`max` and a `sum` gets no fix: no single fill is right for both, and a fix for one would be
undone for the other), and the lanes may otherwise only reach stores masked by the load's
mask or a `tl.where` that resets them — not a dot, a comparison or an unmasked store.

## Why is this bad?
The masked lanes take part in the reduction: a row of negative numbers gets a max of 0,
and every padded lane adds 1 to a softmax denominator. The results are silently wrong for
every row whose length is not a multiple of the block.

## Example
```python
x = tl.load(x_ptr + cols, mask=cols < n, other=0.0)
z = tl.exp(x - tl.max(x, axis=0))
denominator = tl.sum(z, axis=0)
```

## Use instead
```python
x = tl.load(x_ptr + cols, mask=cols < n, other=float('-inf'))
z = tl.exp(x - tl.max(x, axis=0))
denominator = tl.sum(z, axis=0)
```
",
};

/// What a reduction along masked lanes makes of the fill those lanes hold.
struct Verdict {
    /// The masked lanes reaching it.
    lanes: MaskedLanes,
    /// What it computes.
    kind: ReductionKind,
    /// The fill, as it reaches the reduction (rows of junk joined in).
    fill: Fill,
    /// Whether the fill is wrong for it.
    wrong: bool,
    /// Its neutral value.
    neutral: ConstValue,
    /// The `other=` of the load that makes it right.
    wanted: ConstValue,
}

/// The verdict on the reduce `op`, or `None` when no masked lanes reach it along a dim its
/// mask varies in (a reduction along another axis combines masked lanes only with masked
/// lanes, whose results the kernel does not keep), or the lanes are undefined (TRI102's).
fn verdict(ir: &AnalysedKernel, op: OpId) -> Option<Verdict> {
    let f = &ir.func;
    let OpKind::Reduce { axis } = f.kind(op) else {
        return None;
    };
    let v = *f.op(op).operands().first()?;
    let Lanes::Masked(m) = *ir.lanes.get(v) else {
        return None;
    };
    let axis_index = *axis as usize;
    // Lanes a `tl.where` left holding data-derived values (rows past `T` after the
    // columns were reset) matter only when the reduction runs along their rows, counted
    // in the load's dims.
    let junk_axis = match super::tri102::load_axis(ir, v, axis_index, m.load) {
        Some(Some(d)) => Some(d),
        Some(None) => None,
        None => Some(axis_index),
    };
    let junk_here = m.junk.zip(junk_axis).is_some_and(|(j, junk_axis)| {
        ir.shape
            .get(j)
            .dims
            .get(junk_axis)
            .is_none_or(|d| d.varies || !d.roots.is_empty())
    });
    if !super::tri102::mask_varies_along(ir, v, axis_index) && !junk_here {
        return None;
    }
    let fill = if junk_here {
        m.fill.join_unknown()
    } else {
        m.fill
    };
    if fill == Fill::Undefined {
        return None;
    }
    let kind = classify(f, op);
    let dtypes = data_dtypes(ir, m.load, v);
    let int_data = !dtypes.is_empty() && dtypes.iter().all(|d| d.is_int());
    let data_non_negative = ir.sign.get(v).is_non_negative();
    let zero = if int_data {
        ConstValue::Int(0)
    } else {
        ConstValue::Float(0.0)
    };
    let (neutral, wrong) = match (kind, fill) {
        (ReductionKind::Sum, Fill::Const(c)) => (zero, !num::is(c, 0.0)),
        (ReductionKind::Sum, _) => (zero, true),
        (ReductionKind::Product, Fill::Const(c)) => (ConstValue::Int(1), !num::is(c, 1.0)),
        (ReductionKind::Product, _) => (ConstValue::Int(1), true),
        (ReductionKind::Max | ReductionKind::ArgMax, fill) => {
            let neutral = match dtypes.as_slice() {
                [d] if d.is_int() => ConstValue::Int(num::int_min(*d).unwrap_or(0)),
                _ => ConstValue::Float(f64::NEG_INFINITY),
            };
            let ok = match fill {
                Fill::Const(c) => {
                    dtypes.iter().any(|&d| num::at_or_below_lowest(c, d))
                        || (data_non_negative && num::cmp(c, zero).is_some_and(|o| o.is_le()))
                }
                _ => false,
            };
            (neutral, !ok)
        }
        (ReductionKind::Min | ReductionKind::ArgMin, fill) => {
            let neutral = match dtypes.as_slice() {
                [d] if d.is_int() => ConstValue::Int(num::int_max(*d).unwrap_or(0)),
                _ => ConstValue::Float(f64::INFINITY),
            };
            let ok = match fill {
                Fill::Const(c) => dtypes.iter().any(|&d| num::at_or_above_highest(c, d)),
                _ => false,
            };
            (neutral, !ok)
        }
        _ => return None,
    };
    // The fix that keeps `exp` right is the fill that `exp` maps to 0.
    let wanted = if m.through_exp {
        ConstValue::Float(f64::NEG_INFINITY)
    } else {
        neutral
    };
    Some(Verdict {
        lanes: m,
        kind,
        fill,
        wrong,
        neutral,
        wanted,
    })
}

/// The dtypes the reduced data may have: the masked load's and the reduction operand's
/// when the source fixes them (the data keeps the load's range through value-preserving
/// promotions such as bf16 to f32), every plausible one when either is a placeholder.
fn data_dtypes(ir: &AnalysedKernel, load: OpId, operand: Value) -> Vec<DType> {
    let f = &ir.func;
    let Some(&loaded) = f.op(load).results().first() else {
        return num::PLAUSIBLE_DTYPES.to_vec();
    };
    let mut out = Vec::new();
    for v in [loaded, operand] {
        match f.value_type(v).dtype() {
            Some(d) if ir.dtype.get(v) == &DTypeOrigin::Known && !matches!(d, DType::Var(_)) => {
                if !out.contains(&d) {
                    out.push(d);
                }
            }
            _ => return num::PLAUSIBLE_DTYPES.to_vec(),
        }
    }
    out
}

impl Rule for WrongFillValue {
    fn doc(&self) -> &'static CodeDoc {
        &DOC
    }

    fn check(&self, cx: &KernelContext<'_>, out: &mut Vec<Finding>) {
        let Some(ir) = cx.ir else { return };
        let f = &ir.func;
        let mut reported: BTreeSet<(OpId, OpId)> = BTreeSet::new();
        for op in f.walk() {
            let Some(Verdict {
                lanes: m,
                kind,
                fill,
                wrong,
                neutral,
                wanted,
            }) = verdict(ir, op)
            else {
                continue;
            };
            if !wrong {
                continue;
            }
            if kind == ReductionKind::Max
                && is_stabilizer(f, f.op(op).results()[0], &mut BTreeSet::new(), 0)
            {
                continue;
            }
            // A fill written as a constexpr lint gave a placeholder value
            // (`other=dtype_max_value`) is judged at a value the kernel never sees.
            if fill_is_placeholder(cx, ir, m.load) {
                continue;
            }
            if !reported.insert((m.load, op)) {
                continue;
            }
            let Some(load_span) = ir.op_span(m.load) else {
                continue;
            };
            let name = kind.tl_name(false);
            let fill_text = match fill {
                Fill::Const(c) if m.through_exp => format!("`{}` (after `exp`)", py_literal(c)),
                Fill::Const(c) => format!("`{}`", py_literal(c)),
                Fill::Positive => "a positive value (the fill went through `exp`)".to_string(),
                _ => "a value derived from the fill".to_string(),
            };
            let message = if m.through_exp && kind == ReductionKind::Sum {
                format!("masked lanes reach `{name}` through `exp` as {fill_text}, adding to the sum for every padded lane")
            } else {
                format!("masked lanes reach `{name}` holding {fill_text}, which is not its neutral value")
            };
            let mut d = Diagnostic::warning(DOC.code, message)
                .with_primary(load_span, "masked lanes of this load get the fill");
            if let Some(w) = m.set_by.and_then(|w| ir.op_span(w)) {
                d = d.with_secondary(w, "the masked lanes are set here");
            }
            if let Some(rs) = ir.op_span(op) {
                d = d.with_secondary(rs, format!("`{name}` reduces them with the data"));
            }
            d = d.with_note(format!(
                "the neutral value of `{name}` is `{}`; masked lanes hold {fill_text} when they reach it",
                py_literal(neutral)
            ));
            // A fill that is already neutral went wrong on the way (`x - mean`): the cure is
            // to reset the lanes before the reduction, not another `other=`.
            // So did one whose load already has the wanted `other=` (`x + 1.0` after a 0
            // fill): another `other=` would change nothing.
            let load_fill = f
                .op(m.load)
                .operands()
                .get(2)
                .and_then(|&o| crate::analysis::constant_value(f, o));
            let derived = (matches!(fill, Fill::Unknown) && !m.through_exp)
                || load_fill.is_some_and(|c| num::eq(c, wanted));
            if derived {
                d = d.with_help(format!(
                    "reset the masked lanes before `{name}`: `tl.where(mask, value, {})`",
                    py_literal(wanted)
                ));
            } else {
                d = d.with_help(format!(
                    "fill the masked lanes with `{}`",
                    py_literal(wanted)
                ));
            }
            if m.set_by.is_none() && !derived {
                if let Some(call) = kernel_call(cx, ir, m.load) {
                    if let Some(span) = keyword_value_span(call, "other") {
                        if other_fill_is_contained(ir, m.load, wanted) {
                            d = d.with_fix(Fix {
                                message: format!("use `other={}`", py_literal(wanted)),
                                edits: vec![TextEdit {
                                    span,
                                    replacement: py_literal(wanted),
                                }],
                            });
                        } else {
                            d = d.with_note(
                                "no `other=` fix is offered: the masked lanes of this load also reach something the new fill would change (another reduction, a dot, a store, a comparison)",
                            );
                        }
                    }
                }
            }
            out.push(Finding::new(d));
        }
    }
}

/// Whether the `other=` of `load` mentions a constexpr whose value lint assumed.
fn fill_is_placeholder(cx: &KernelContext<'_>, ir: &AnalysedKernel, load: OpId) -> bool {
    let Some(call) = kernel_call(cx, ir, load) else {
        return false;
    };
    let Some(other) = call.keyword("other") else {
        return false;
    };
    crate::syntax_walk::names_in(&other.value)
        .into_iter()
        .any(|n| cx.spec.assumed.constexprs.contains_key(n))
}

/// Whether changing the `other=` of `load` to `wanted` changes nothing but reductions that
/// `wanted` makes right: every path of its masked lanes ends in a reduction along the
/// mask whose wanted fill is the same (or a softmax stabilizer `max`, for `-inf`), in a
/// store or atomic masked by the load's mask, or in a `tl.where` that resets the lanes.
/// A fill that reaches a second reduction needing another value would make the fix undo
/// itself on the next run; one that reaches a dot, an unmasked store or a comparison would
/// change a result the rule did not judge.
fn other_fill_is_contained(ir: &AnalysedKernel, load: OpId, wanted: ConstValue) -> bool {
    let f = &ir.func;
    let Some(&start) = f.op(load).results().first() else {
        return false;
    };
    let mut seen: BTreeSet<Value> = BTreeSet::new();
    let mut work = vec![start];
    while let Some(v) = work.pop() {
        if !seen.insert(v) {
            continue;
        }
        if seen.len() > 512 {
            return false;
        }
        let load_mask = match ir.lanes.get(v) {
            Lanes::Masked(m) if m.load == load => m.mask,
            // The lanes were reset or combined away before this value.
            _ => continue,
        };
        for u in f.uses(v) {
            let user = u.op;
            let data = f.op(user);
            match f.kind(user) {
                OpKind::Reduce { .. } => {
                    let Some(vd) = verdict(ir, user).filter(|vd| vd.lanes.load == load) else {
                        return false;
                    };
                    let stabilizer = vd.kind == ReductionKind::Max
                        && num::is(wanted, f64::NEG_INFINITY)
                        && is_stabilizer(f, data.results()[0], &mut BTreeSet::new(), 0);
                    if !stabilizer && !num::eq(vd.wanted, wanted) {
                        return false;
                    }
                }
                OpKind::Store { .. } | OpKind::AtomicRmw { .. } => {
                    let masked = u.operand == 1
                        && data
                            .operands()
                            .get(2)
                            .is_some_and(|&sm| implies_mask(f, sm, load_mask));
                    if !masked {
                        return false;
                    }
                }
                OpKind::Select => {
                    if u.operand == 0 {
                        return false;
                    }
                    let cond = data.operands()[0];
                    // `tl.where(mask, x, c)` resets the lanes `x` brings.
                    if !(u.operand == 1 && implies_mask(f, cond, load_mask)) {
                        work.extend(data.results().iter().copied());
                    }
                }
                OpKind::Yield => {
                    let Some(parent) = f.parent_op(user) else {
                        return false;
                    };
                    if !matches!(f.kind(parent), OpKind::For { .. }) {
                        return false;
                    }
                    let i = u.operand as usize;
                    work.extend(f.op(parent).results().get(i).copied());
                    if let Some(b) = f.region_entry(parent, 0) {
                        work.extend(f.block(b).args().get(i + 1).copied());
                    }
                }
                OpKind::For { .. } if u.operand >= 3 => {
                    let i = u.operand as usize - 3;
                    work.extend(data.results().get(i).copied());
                    if let Some(b) = f.region_entry(user, 0) {
                        work.extend(f.block(b).args().get(i + 1).copied());
                    }
                }
                OpKind::Splat
                | OpKind::Broadcast
                | OpKind::ExpandDims { .. }
                | OpKind::Reshape { .. }
                | OpKind::Trans { .. }
                | OpKind::Hint(_)
                | OpKind::FpToFp { .. }
                | OpKind::Cast { .. }
                | OpKind::Math(_)
                | OpKind::Binary(_)
                | OpKind::Fma
                | OpKind::ClampF { .. }
                | OpKind::PreciseDivF
                | OpKind::PreciseSqrt => work.extend(data.results().iter().copied()),
                _ => return false,
            }
        }
    }
    true
}

/// Whether every use of the max `v` is as a softmax stabilizer: subtracted from data on the
/// way into `exp`, combined into a running max, carried through a loop, or added back to a
/// `log` (logsumexp). Any `m` ≥ the data gives the same softmax there.
fn is_stabilizer(f: &Function, v: Value, seen: &mut BTreeSet<Value>, depth: u32) -> bool {
    if depth > 16 || !seen.insert(v) {
        return true;
    }
    f.uses(v).iter().all(|u| {
        let user = u.op;
        let data = f.op(user);
        match f.kind(user) {
            OpKind::Splat | OpKind::Broadcast | OpKind::ExpandDims { .. } | OpKind::Cast { .. } => {
                is_stabilizer(f, data.results()[0], seen, depth + 1)
            }
            OpKind::Binary(BinaryOp::MaxNumF | BinaryOp::MaximumF) => {
                is_stabilizer(f, data.results()[0], seen, depth + 1)
            }
            OpKind::Binary(BinaryOp::MulF) => is_stabilizer(f, data.results()[0], seen, depth + 1),
            OpKind::Binary(BinaryOp::SubF) => reaches_exp(f, data.results()[0], 0),
            OpKind::Binary(BinaryOp::AddF) => data.operands().iter().any(|&o| is_log(f, o)),
            OpKind::Yield => {
                let Some(parent) = f.parent_op(user) else {
                    return false;
                };
                if !matches!(f.kind(parent), OpKind::For { .. }) {
                    return false;
                }
                let i = u.operand as usize;
                let result_ok = f
                    .op(parent)
                    .results()
                    .get(i)
                    .is_none_or(|&r| is_stabilizer(f, r, seen, depth + 1));
                let arg_ok = f
                    .region_entry(parent, 0)
                    .and_then(|b| f.block(b).args().get(i + 1).copied())
                    .is_none_or(|a| is_stabilizer(f, a, seen, depth + 1));
                result_ok && arg_ok
            }
            _ => false,
        }
    })
}

fn reaches_exp(f: &Function, v: Value, depth: u32) -> bool {
    if depth > 6 {
        return false;
    }
    f.uses(v).iter().all(|u| match f.kind(u.op) {
        OpKind::Math(MathOp::Exp | MathOp::Exp2) => true,
        OpKind::Binary(BinaryOp::MulF | BinaryOp::DivF)
        | OpKind::Cast { .. }
        | OpKind::Splat
        | OpKind::Broadcast => reaches_exp(f, f.op(u.op).results()[0], depth + 1),
        _ => false,
    })
}

fn is_log(f: &Function, v: Value) -> bool {
    let v = crate::analysis::strip_shape(f, v);
    crate::analysis::def_op(f, v).is_some_and(|op| match f.kind(op) {
        OpKind::Math(MathOp::Log | MathOp::Log2) => true,
        OpKind::Cast { .. } | OpKind::Binary(BinaryOp::MulF) => {
            f.op(op).operands().iter().any(|&o| is_log(f, o))
        }
        _ => false,
    })
}
