//! Layout assignment: a distributed layout for every block value of a kernel.
//!
//! The scheme follows Triton's `convert_to_ttgpuir` + `coalesce` +
//! `remove_layout_conversions`, simplified for straight-line kernels:
//!
//! 1. **Anchors**: every load and store gets its coalesced layout
//!    ([`crate::coalesce::coalesced_layout`]); a load's result has it, and its operands
//!    (pointer, mask, `other`, stored value) are asked for it.
//! 2. **Backward**: walking ops from last to first, an unassigned operand takes the
//!    layout its user implies (the result's layout for elementwise ops and broadcasts,
//!    the slice of it for `expand_dims`).
//! 3. **Forward**: walking ops from first to last, an unassigned result takes the layout
//!    its operands imply (a reduction's result is the slice of its input's layout);
//!    values nothing constrains get Triton's default layout.
//! 4. **Conversions**: where an operand's layout differs from what its user needs, a
//!    [`LayoutConversion`] is recorded on that use; codegen moves the value through
//!    shared memory (or rebuilds it, when it is a splat or a range).
//!
//! Scalars have no layout: every thread holds them.

use std::collections::HashMap;

use tritonc_diagnostics::Span;
use tritonc_ir::{Function, OpId, OpKind, Type, Value};

use crate::axis::AxisAnalysis;
use crate::coalesce::{coalesced_layout, vector_width};
use crate::layout::{BlockedLayout, Layout, LayoutError, LinearLayout};
use crate::reduction::ReductionSchedule;

/// Why a function cannot get layouts (yet): an op outside the supported subset.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TtgirError {
    /// What is wrong.
    pub message: String,
    /// The op's source span, when it has one.
    pub span: Option<Span>,
}

impl std::fmt::Display for TtgirError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for TtgirError {}

/// A layout change on one use: operand `operand` of `op` is `value` moved from `from`
/// to `to`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LayoutConversion {
    /// The using op.
    pub op: OpId,
    /// The operand index.
    pub operand: usize,
    /// The converted value.
    pub value: Value,
    /// The value's own layout.
    pub from: Layout,
    /// The layout the use needs.
    pub to: Layout,
}

/// How a load or store is vectorized.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AccessPlan {
    /// The layout of the access (pointer, mask, value).
    pub layout: Layout,
    /// The dim consecutive registers run along.
    pub fastest_dim: usize,
    /// Elements per vector instruction (1, 2, 4, 8, 16).
    pub vector_width: u32,
}

/// Layouts of every block value of one function, with the conversions they need.
#[derive(Debug, Clone)]
pub struct LayoutAssignment {
    /// Warps per CTA the layouts were made for.
    pub num_warps: u32,
    /// Axis facts of every value.
    pub axis: AxisAnalysis,
    layouts: Vec<Option<Layout>>,
    conversions: HashMap<(OpId, usize), LayoutConversion>,
    accesses: HashMap<OpId, AccessPlan>,
}

fn known_shape(ty: &Type) -> Option<Vec<u64>> {
    ty.is_tensor().then(|| ty.known_shape()).flatten()
}

fn error(func: &Function, op: OpId, message: String) -> TtgirError {
    TtgirError {
        message,
        span: func.op(op).loc.known_span(),
    }
}

/// Ops whose tensor operands and results all share one layout.
fn is_elementwise(kind: &OpKind) -> bool {
    use OpKind::*;
    matches!(
        kind,
        Binary(_)
            | CmpI(_)
            | CmpF(_)
            | Select
            | Cast { .. }
            | FpToFp { .. }
            | IntToPtr
            | PtrToInt
            | AddPtr
            | Math(_)
            | Fma
            | PreciseSqrt
            | PreciseDivF
            | MulHiUI
            | ClampF { .. }
            | ExternElementwise { .. }
            | Hint(_)
            | Load { .. }
            | Store { .. }
    )
}

/// Whether `v`'s layout follows from its producer alone (a reduction's result is the
/// slice of its input's layout), so no user may choose it.
fn has_inherent_layout(func: &Function, v: Value) -> bool {
    func.defining_op(v)
        .is_some_and(|op| matches!(func.kind(op), OpKind::Reduce { .. }))
}

/// Whether two layouts place every element of `shape` on the same registers.
pub fn same_on(a: &Layout, b: &Layout, shape: &[u64]) -> bool {
    a == b || matches!((a.to_linear(shape), b.to_linear(shape)), (Ok(x), Ok(y)) if x == y)
}

/// Assigns layouts to the block values of `func` for `num_warps` warps.
pub fn assign_layouts(func: &Function, num_warps: u32) -> Result<LayoutAssignment, TtgirError> {
    if num_warps == 0 || !num_warps.is_power_of_two() || num_warps > 32 {
        return Err(TtgirError {
            message: format!("num_warps must be a power of two from 1 to 32, not {num_warps}"),
            span: None,
        });
    }
    let axis = AxisAnalysis::run(func);
    let ops: Vec<OpId> = func.block(func.entry_block()).ops().to_vec();
    // Only straight-line kernels for now; a reduction's combiner holds scalars only.
    for &op in &ops {
        let kind = func.kind(op);
        if kind.num_regions() > 0 && !matches!(kind, OpKind::Reduce { .. }) {
            return Err(error(
                func,
                op,
                format!(
                    "`{}` is not supported by GPU code generation yet",
                    kind.name()
                ),
            ));
        }
    }
    let mut a = LayoutAssignment {
        num_warps,
        axis,
        layouts: vec![None; func.num_values()],
        conversions: HashMap::new(),
        accesses: HashMap::new(),
    };
    let shape_of = |v: Value| known_shape(func.value_type(v));
    for &op in &ops {
        for &v in func.op(op).operands().iter().chain(func.op(op).results()) {
            let ty = func.value_type(v);
            if ty.is_tensor() && ty.known_shape().is_none() {
                return Err(error(
                    func,
                    op,
                    format!("block type `{ty}` has a dim unknown at compile time"),
                ));
            }
        }
    }

    // 1. Anchors.
    for &op in &ops {
        if !matches!(func.kind(op), OpKind::Load { .. } | OpKind::Store { .. }) {
            continue;
        }
        let data = func.op(op);
        let ptr = data.operands()[0];
        let Some(shape) = shape_of(ptr) else { continue };
        let elem_bits = match func.value_type(ptr).elem() {
            tritonc_ir::Elem::Ptr(p) => p.pointee.bitwidth().unwrap_or(8).max(8),
            _ => 8,
        };
        let info = a.axis.get(ptr);
        let access = coalesced_layout(&info, &shape, elem_bits, num_warps);
        let layout = Layout::Blocked(access.layout.clone());
        let linear = layout
            .to_linear(&shape)
            .map_err(|e| error(func, op, e.to_string()))?;
        let mask = match func.kind(op) {
            OpKind::Load { .. } => data.operands().get(1),
            _ => data.operands().get(2),
        };
        let mask_info = mask.map(|&m| a.axis.get(m));
        let fastest = access.order[0] as usize;
        let vec = vector_width(&info, mask_info.as_ref(), &linear, fastest, elem_bits);
        a.accesses.insert(
            op,
            AccessPlan {
                layout: layout.clone(),
                fastest_dim: fastest,
                vector_width: vec,
            },
        );
        for &v in data.results() {
            a.layouts[v.index()] = Some(layout.clone());
        }
        for &v in data.operands() {
            if func.value_type(v).is_tensor()
                && a.layouts[v.index()].is_none()
                && !has_inherent_layout(func, v)
            {
                a.layouts[v.index()] = Some(layout.clone());
            }
        }
    }

    // 2. Backward.
    for &op in ops.iter().rev() {
        let data = func.op(op);
        let kind = func.kind(op);
        let Some(result_layout) = data
            .results()
            .first()
            .and_then(|r| a.layouts[r.index()].clone())
        else {
            continue;
        };
        for &v in data.operands() {
            if !func.value_type(v).is_tensor()
                || a.layouts[v.index()].is_some()
                || has_inherent_layout(func, v)
            {
                continue;
            }
            let implied = match kind {
                k if is_elementwise(k) => Some(result_layout.clone()),
                OpKind::Broadcast => Some(result_layout.clone()),
                OpKind::ExpandDims { axis } => Some(result_layout.slice(*axis)),
                _ => None,
            };
            a.layouts[v.index()] = implied;
        }
    }

    // 3. Forward.
    for &op in &ops {
        let data = func.op(op);
        let kind = func.kind(op);
        let first_operand_layout = data
            .operands()
            .iter()
            .find_map(|&v| a.layouts[v.index()].clone());
        for &r in data.results() {
            if a.layouts[r.index()].is_some() {
                continue;
            }
            let Some(shape) = shape_of(r) else { continue };
            let default = || Layout::Blocked(BlockedLayout::default_for(&shape, num_warps));
            let layout = match kind {
                OpKind::Reduce { axis } => match &first_operand_layout {
                    Some(l) => l.slice(*axis),
                    None => default(),
                },
                OpKind::ExpandDims { axis } => match &first_operand_layout {
                    Some(Layout::Slice(s)) if s.dim == *axis => (*s.parent).clone(),
                    _ => default(),
                },
                OpKind::Broadcast => match &first_operand_layout {
                    Some(l @ Layout::Blocked(_)) => l.clone(),
                    _ => default(),
                },
                k if is_elementwise(k) => first_operand_layout.clone().unwrap_or_else(default),
                _ => default(),
            };
            a.layouts[r.index()] = Some(layout);
        }
    }

    // 4. Conversions.
    for &op in &ops {
        let data = func.op(op);
        let kind = func.kind(op);
        let result_layout = data
            .results()
            .first()
            .and_then(|r| a.layouts[r.index()].clone());
        for (i, &v) in data.operands().iter().enumerate() {
            let Some(shape) = shape_of(v) else { continue };
            let Some(from) = a.layouts[v.index()].clone() else {
                continue;
            };
            let needed = if let Some(plan) = a.accesses.get(&op) {
                Some(plan.layout.clone())
            } else {
                match kind {
                    OpKind::Broadcast => result_layout.clone(),
                    OpKind::ExpandDims { axis } => result_layout.as_ref().map(|l| l.slice(*axis)),
                    OpKind::Reduce { .. } => a.layouts[data.operands()[0].index()].clone(),
                    k if is_elementwise(k) => result_layout.clone(),
                    _ => None,
                }
            };
            let Some(to) = needed else { continue };
            if !same_on(&from, &to, &shape) {
                a.conversions.insert(
                    (op, i),
                    LayoutConversion {
                        op,
                        operand: i,
                        value: v,
                        from,
                        to,
                    },
                );
            }
        }
    }
    // Every layout must apply to its value's shape.
    for &op in &ops {
        for &v in func.op(op).results() {
            if let (Some(l), Some(shape)) = (&a.layouts[v.index()], shape_of(v)) {
                l.to_linear(&shape)
                    .map_err(|e| error(func, op, e.to_string()))?;
            }
        }
    }
    Ok(a)
}

impl LayoutAssignment {
    /// The layout of a block value (`None` for scalars).
    pub fn layout(&self, v: Value) -> Option<&Layout> {
        self.layouts.get(v.index()).and_then(Option::as_ref)
    }

    /// The layout of a block value on its shape, in linear form.
    pub fn linear(&self, func: &Function, v: Value) -> Option<Result<LinearLayout, LayoutError>> {
        let shape = known_shape(func.value_type(v))?;
        Some(self.layout(v)?.to_linear(&shape))
    }

    /// The conversion on operand `operand` of `op`, if its layout must change.
    pub fn conversion(&self, op: OpId, operand: usize) -> Option<&LayoutConversion> {
        self.conversions.get(&(op, operand))
    }

    /// Every conversion, in no particular order.
    pub fn conversions(&self) -> impl Iterator<Item = &LayoutConversion> {
        self.conversions.values()
    }

    /// The layout operand `operand` of `op` is used in (after any conversion).
    pub fn operand_layout(&self, func: &Function, op: OpId, operand: usize) -> Option<&Layout> {
        match self.conversion(op, operand) {
            Some(c) => Some(&c.to),
            None => self.layout(func.op(op).operands()[operand]),
        }
    }

    /// How a load or store accesses memory.
    pub fn access(&self, op: OpId) -> Option<&AccessPlan> {
        self.accesses.get(&op)
    }

    /// The combination order of a `tt.reduce` op (see [`ReductionSchedule`]).
    pub fn reduction_schedule(
        &self,
        func: &Function,
        op: OpId,
    ) -> Result<ReductionSchedule, TtgirError> {
        let OpKind::Reduce { axis } = func.kind(op) else {
            return Err(error(func, op, "not a `tt.reduce`".into()));
        };
        let input = func.op(op).operands()[0];
        let linear = self
            .linear(func, input)
            .ok_or_else(|| error(func, op, "the reduced operand is not a block".into()))?
            .map_err(|e| error(func, op, e.to_string()))?;
        ReductionSchedule::from_linear(&linear, *axis as usize)
            .map_err(|e| error(func, op, e.to_string()))
    }
}
