//! TRI102 missing-other.

use std::collections::BTreeSet;

use tritonc_diagnostics::{CodeDoc, Diagnostic, Fix, Span};
use tritonc_ir::{OpId, OpKind, Value};

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
reduction along a masked dim, a scan, a `tl.dot`, or a store whose mask does not exclude
them. A `tl.where(mask, x, c)` on the way gives the lanes a defined value and ends the chain.

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
                    .map(|&v| {
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
                            if data
                                .operands()
                                .get(2)
                                .is_some_and(|&sm| implies_mask(f, sm, m.mask)) =>
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

/// Whether the mask of `v`'s masked lanes varies along `axis` (a reduction along a dim the
/// mask is constant on combines only masked lanes with masked lanes).
pub(crate) fn mask_varies_along(ir: &AnalysedKernel, v: Value, axis: usize) -> bool {
    let Lanes::Masked(m) = ir.lanes.get(v) else {
        return false;
    };
    let value_rank = ir.func.value_type(v).rank();
    let mf = ir.shape.get(m.mask);
    if mf.dims.len() != value_rank {
        return true;
    }
    mf.dims
        .get(axis)
        .is_none_or(|d| d.varies || !d.roots.is_empty())
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
