//! TRI103 wrong-fill-value.

use std::collections::BTreeSet;

use tritonc_diagnostics::{CodeDoc, Diagnostic, Fix, TextEdit};
use tritonc_ir::{BinaryOp, Function, MathOp, OpId, OpKind, Value};

use super::{kernel_call, keyword_value_span, py_float};
use crate::analysis::combiner::{classify, ReductionKind};
use crate::analysis::lanes::{Fill, Lanes};
use crate::context::{Finding, KernelContext};
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
data is non-negative, so 0 never wins), a fill sanitized by `tl.where(mask, x, -inf)`, and
a `max` used only as a softmax stabilizer (`exp(x - m)` is the same for any `m` ≥ the data).

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

impl Rule for WrongFillValue {
    fn doc(&self) -> &'static CodeDoc {
        &DOC
    }

    fn check(&self, cx: &KernelContext<'_>, out: &mut Vec<Finding>) {
        let Some(ir) = cx.ir else { return };
        let f = &ir.func;
        let mut reported: BTreeSet<(OpId, OpId)> = BTreeSet::new();
        for op in f.walk() {
            let OpKind::Reduce { axis } = f.kind(op) else {
                continue;
            };
            let Some(&v) = f.op(op).operands().first() else {
                continue;
            };
            let Lanes::Masked(m) = *ir.lanes.get(v) else {
                continue;
            };
            let axis_index = *axis as usize;
            // Lanes a `tl.where` left holding data-derived values (rows past `T` after the
            // columns were reset) matter only when the reduction runs along their rows.
            let junk_here = m.junk.is_some_and(|j| {
                ir.shape
                    .get(j)
                    .dims
                    .get(axis_index)
                    .is_none_or(|d| d.varies || !d.roots.is_empty())
            });
            if !super::tri102::mask_varies_along(ir, v, axis_index) && !junk_here {
                continue;
            }
            let fill = if junk_here {
                m.fill.join_unknown()
            } else {
                m.fill
            };
            let kind = classify(f, op);
            let data_non_negative = ir.sign.get(v).is_non_negative();
            let (neutral, wrong) = match (kind, fill) {
                (_, Fill::Undefined) => continue,
                (ReductionKind::Sum, Fill::Const(c)) => (0.0, c != 0.0),
                (ReductionKind::Sum, _) => (0.0, true),
                (ReductionKind::Product, Fill::Const(c)) => (1.0, c != 1.0),
                (ReductionKind::Max | ReductionKind::ArgMax, Fill::Const(c)) => (
                    f64::NEG_INFINITY,
                    !(c == f64::NEG_INFINITY || (data_non_negative && c <= 0.0)),
                ),
                (ReductionKind::Min | ReductionKind::ArgMin, Fill::Const(c)) => {
                    (f64::INFINITY, c != f64::INFINITY)
                }
                (ReductionKind::Max | ReductionKind::ArgMax, _) => (f64::NEG_INFINITY, true),
                (ReductionKind::Min | ReductionKind::ArgMin, _) => (f64::INFINITY, true),
                _ => continue,
            };
            if !wrong {
                continue;
            }
            if kind == ReductionKind::Max
                && is_stabilizer(f, f.op(op).results()[0], &mut BTreeSet::new(), 0)
            {
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
                Fill::Const(c) if m.through_exp => format!("`{}` (after `exp`)", py_float(c)),
                Fill::Const(c) => format!("`{}`", py_float(c)),
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
                py_float(neutral)
            ));
            // The fix that keeps `exp` right is the fill that `exp` maps to 0.
            let wanted = if m.through_exp {
                f64::NEG_INFINITY
            } else {
                neutral
            };
            // A fill that is already neutral went wrong on the way (`x - mean`): the cure is
            // to reset the lanes before the reduction, not another `other=`.
            let derived = matches!(fill, Fill::Unknown) && !m.through_exp;
            if derived {
                d = d.with_help(format!(
                    "reset the masked lanes before `{name}`: `tl.where(mask, value, {})`",
                    py_float(wanted)
                ));
            } else {
                d = d.with_help(format!("fill the masked lanes with `{}`", py_float(wanted)));
            }
            if m.set_by.is_none() && !derived {
                if let Some(call) = kernel_call(cx, ir, m.load) {
                    if let Some(span) = keyword_value_span(call, "other") {
                        d = d.with_fix(Fix {
                            message: format!("use `other={}`", py_float(wanted)),
                            edits: vec![TextEdit {
                                span,
                                replacement: py_float(wanted),
                            }],
                        });
                    }
                }
            }
            out.push(Finding::new(d));
        }
    }
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
                if !matches!(f.kind(parent), OpKind::For) {
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
