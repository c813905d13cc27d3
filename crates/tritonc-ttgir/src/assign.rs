//! Layout assignment: a distributed layout for every block value of a kernel.
//!
//! The scheme follows Triton's `convert_to_ttgpuir` + `coalesce` +
//! `remove_layout_conversions`, simplified:
//!
//! 1. **Anchors**: every load and store gets its coalesced layout
//!    ([`crate::coalesce::coalesced_layout`]); a load's result has it, and its operands
//!    (pointer, mask, `other`, stored value) are asked for it. A `tt.dot` result gets
//!    [`dot_layout`], and its accumulator operand is asked for it.
//! 2. **Backward** (`propagate`): walking ops from last to first, into loop bodies and
//!    branches, an unassigned operand takes the layout its user implies (the result's
//!    layout for elementwise ops and broadcasts, the slice of it for `expand_dims`, the
//!    carried value's for loop inits and yields).
//! 3. **Forward**: walking ops from first to last, an unassigned result takes the layout
//!    its operands imply, preferring an operand that carries data over index math,
//!    splats and loop-carried values (a reduction's result is the slice of its input's
//!    layout); loop-carried values start from their inits, `scf.if` results from their
//!    yields; values nothing constrains get Triton's default layout.
//! 4. **Conversions**: where an operand's layout differs from what its user needs, a
//!    [`LayoutConversion`] is recorded on that use; codegen moves the value through
//!    shared memory (or rebuilds it, when it is index math).
//!
//! Loop-carried blocks with a free init (`tl.zeros`) are then re-assigned once with the
//! layout their loop yields, and small 1-D loads whose value is only ever converted to
//! one other layout are re-anchored in that layout (`rematerialized_loads`), both in
//! one second pass ([`assign_layouts`]). Values of structured control flow that
//! must share registers are described in [`crate::control`].
//!
//! Scalars have no layout: every thread holds them.

use std::collections::HashMap;

use tritonc_diagnostics::Span;
use tritonc_ir::{Function, OpId, OpKind, Type, Value};

use crate::axis::AxisAnalysis;
use crate::coalesce::{coalesced_layout_in_warps_of, vector_width};
use crate::control::{canonical, carried_target, code_ops, has_code_regions};
use crate::layout::{BlockedLayout, Layout, LayoutError, LinearLayout, WARP_SIZE};
use crate::propagate::Assigner;
use crate::reduction::ReductionSchedule;
use crate::scan::ScanSchedule;

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
    /// Lanes per warp the layouts were made for.
    pub warp_size: u32,
    /// Axis facts of every value.
    pub axis: AxisAnalysis,
    layouts: Vec<Option<Layout>>,
    conversions: HashMap<(OpId, usize), LayoutConversion>,
    accesses: HashMap<OpId, AccessPlan>,
}

pub(crate) fn known_shape(ty: &Type) -> Option<Vec<u64>> {
    ty.is_tensor().then(|| ty.known_shape()).flatten()
}

fn error(func: &Function, op: OpId, message: String) -> TtgirError {
    TtgirError {
        message,
        span: func.op(op).loc.known_span(),
    }
}

/// Ops whose tensor operands and results all share one layout.
pub(crate) fn is_elementwise(kind: &OpKind) -> bool {
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
            | ElementwiseInlineAsm { .. }
            | Hint(_)
            | Load { .. }
            | Store { .. }
            | AtomicRmw { .. }
            | AtomicCas { .. }
            | Scan { .. }
    )
}

/// Whether `v`'s layout follows from its producer alone (a reduction's result is the
/// slice of its input's layout), so no user may choose it.
pub(crate) fn has_inherent_layout(func: &Function, v: Value) -> bool {
    func.defining_op(v)
        .is_some_and(|op| matches!(func.kind(op), OpKind::Reduce { .. }))
}

/// Whether two layouts place every element of `shape` on the same registers.
pub fn same_on(a: &Layout, b: &Layout, shape: &[u64]) -> bool {
    a == b || matches!((a.to_linear(shape), b.to_linear(shape)), (Ok(x), Ok(y)) if x == y)
}

/// Ops whose result layout is chosen by the op itself, and whose operands keep their
/// own layouts: the lowering moves the data through shared memory anyway.
pub(crate) fn is_data_movement(kind: &OpKind) -> bool {
    matches!(
        kind,
        OpKind::Reshape { .. } | OpKind::Trans { .. } | OpKind::Join | OpKind::Split | OpKind::Cat
    )
}

/// A register tile for the FMA lowering of `tt.dot`: 4×4 elements per thread where the
/// shape allows, lanes 8×4, warps split so that each thread's rows and columns are few
/// (every k step reads one element of A per row and one of B per column).
pub fn dot_layout(shape: &[u64], num_warps: u32, warp_size: u32) -> BlockedLayout {
    let (m, n) = (shape[0], shape[1]);
    let spt = [m.min(4) as u32, n.min(4) as u32];
    let tpw1 = (n / u64::from(spt[1])).clamp(1, 4) as u32;
    let tpw = [warp_size / tpw1, tpw1];
    let mut wpc = [1u32, 1u32];
    let mut left = num_warps;
    while left > 1 {
        let per_warp_m = m / u64::from(spt[0] * tpw[0] * wpc[0]);
        let per_warp_n = n / u64::from(spt[1] * tpw[1] * wpc[1]);
        if per_warp_m >= per_warp_n && per_warp_m > 1 {
            wpc[0] *= 2;
        } else if per_warp_n > 1 {
            wpc[1] *= 2;
        } else {
            wpc[0] *= 2;
        }
        left /= 2;
    }
    BlockedLayout {
        size_per_thread: spt.to_vec(),
        threads_per_warp: tpw.to_vec(),
        warps_per_cta: wpc.to_vec(),
        order: vec![1, 0],
    }
}

/// Assigns layouts to the block values of `func` for `num_warps` warps.
///
/// Loop-carried blocks take the layout of the value the loop yields for them: a first
/// assignment finds those layouts, a second one starts from them, so the loop carries the
/// body's layout and only the init is rebuilt in it (free for a splat or a constant,
/// `tl.zeros`, `tl.full`, or elementwise arithmetic on them) or converted once before the
/// loop, instead of converting every iteration.
///
/// This is the analysis behind the GPU IR's `tritonc-assign-layouts` pass
/// ([`crate::AssignLayouts`]), which writes its result into the IR; the CPU interpreter
/// asks it directly for the layouts that decide reduction orders.
pub fn assign_layouts(func: &Function, num_warps: u32) -> Result<LayoutAssignment, TtgirError> {
    assign_layouts_for(func, &crate::GpuOptions::nvidia(num_warps))
}

/// [`assign_layouts`] for a target: on `sm_80` and later, dots the tensor cores take get
/// the `mma.sync` accumulator layout ([`crate::accelerate`]).
pub fn assign_layouts_for(
    func: &Function,
    options: &crate::GpuOptions,
) -> Result<LayoutAssignment, TtgirError> {
    let (num_warps, warp_size, capability) =
        (options.num_warps, options.warp_size(), options.capability());
    let mfma = options
        .target
        .and_then(|t| crate::accelerate_amd::mfma_version(&t));
    let first = assign_with(
        func,
        num_warps,
        warp_size,
        (capability, mfma),
        &HashMap::new(),
        &HashMap::new(),
    )?;
    let mut presets = carried_presets(func, &first);
    presets.extend(rematerialized_loads(func, &first));
    let mut stores = stores_in_carried_layout(func, &first, &presets);
    stores.extend(crate::accelerate_amd::stores_in_mfma_layout(func, &first));
    if presets.is_empty() && stores.is_empty() {
        return Ok(first);
    }
    assign_with(func, num_warps, warp_size, (capability, mfma), &presets, &stores)
}

/// Whether `v` is a result of a loop (`scf.for`/`scf.while`): a loop-carried value.
pub(crate) fn is_loop_result(func: &Function, v: Value) -> bool {
    matches!(func.value_def(v), tritonc_ir::ValueDef::OpResult { op, .. }
        if matches!(func.kind(op), OpKind::For { .. } | OpKind::While))
}

/// Stores of a loop result done in the layout the loop carries, where that layout
/// vectorizes the store as well as the coalesced one: the store's pointers and mask are
/// index math, rebuilt in any layout for free, while moving the stored block to the
/// coalesced layout costs a round trip through shared memory. (The first pass does not let
/// such a store impose its layout on the loop, which would put a conversion of the loaded
/// data inside the loop body, once per iteration; LayerNorm backward's `dw`/`db`
/// accumulators.)
fn stores_in_carried_layout(
    func: &Function,
    a: &LayoutAssignment,
    presets: &HashMap<Value, Layout>,
) -> HashMap<OpId, Layout> {
    let mut stores = HashMap::new();
    for op in code_ops(func) {
        if !matches!(func.kind(op), OpKind::Store { .. }) {
            continue;
        }
        let data = func.op(op);
        let (Some(&ptr), Some(&value)) = (data.operands().first(), data.operands().get(1)) else {
            continue;
        };
        if !is_loop_result(func, value) {
            continue;
        }
        let carried = presets
            .get(&canonical(func, value))
            .or_else(|| a.layout(value))
            .cloned();
        let (Some(Layout::Blocked(b)), Some(plan), Some(shape)) = (
            carried,
            a.accesses.get(&op),
            known_shape(func.value_type(ptr)),
        ) else {
            continue;
        };
        let fastest = b.order.first().copied().unwrap_or(0) as usize;
        if fastest != plan.fastest_dim {
            continue;
        }
        let layout = Layout::Blocked(b);
        let Ok(linear) = layout.to_linear(&shape) else {
            continue;
        };
        let elem_bits = match func.value_type(ptr).elem() {
            tritonc_ir::Elem::Ptr(p) => p.pointee.bitwidth().unwrap_or(8).max(8),
            _ => 8,
        };
        let mask = data.operands().get(2).map(|&m| a.axis.get(m));
        let vec = vector_width(&a.axis.get(ptr), mask.as_ref(), &linear, fastest, elem_bits);
        if vec >= plan.vector_width && layout != plan.layout {
            stores.insert(op, layout);
        }
    }
    stores
}

/// Small loads whose value is converted to one other layout before any use: the load is
/// done in that layout instead (Triton's `remove_layout_conversions` rematerializes such
/// loads too: a load of fewer elements than the CTA has threads is cheap to repeat).
///
/// The typical case is a row vector (`cos[None, :]`, a bias, a weight) loaded as a 1-D
/// block and broadcast against a 2-D tile: in its coalesced layout each element lives on
/// one thread and must move through shared memory to every thread of the tile that
/// needs it; in the tile's slice layout every such thread loads it itself (the repeats
/// hit L1), and no shared memory, barrier or bank conflict is involved.
fn rematerialized_loads(func: &Function, a: &LayoutAssignment) -> HashMap<Value, Layout> {
    let threads = u64::from(a.num_warps) * u64::from(a.warp_size);
    let mut presets = HashMap::new();
    for op in code_ops(func) {
        if !matches!(func.kind(op), OpKind::Load { .. }) {
            continue;
        }
        let data = func.op(op);
        let Some(shape) = known_shape(func.value_type(data.operands()[0])) else {
            continue;
        };
        if shape.len() != 1 || shape.iter().product::<u64>() >= threads {
            continue;
        }
        let loaded = data.results()[0];
        if let Some(target) = single_conversion_target(func, a, loaded) {
            presets.insert(loaded, target);
        }
    }
    presets
}

/// The one layout every use of `v` converts it to, following single-use casts (the
/// conversion may sit after `.to(tl.float32)`); `None` if some use takes `v` as it is,
/// or uses disagree.
fn single_conversion_target(func: &Function, a: &LayoutAssignment, v: Value) -> Option<Layout> {
    let uses = func.uses(v);
    if uses.is_empty() {
        return None;
    }
    let mut target: Option<Layout> = None;
    for u in uses {
        let to = if let Some(c) = a.conversion(u.op, u.operand as usize) {
            c.to.clone()
        } else {
            let kind = func.kind(u.op);
            let results = func.op(u.op).results();
            let cast = matches!(kind, OpKind::Cast { .. } | OpKind::FpToFp { .. })
                && results.len() == 1
                && a.layout(results[0]) == a.layout(v);
            if !cast {
                return None;
            }
            single_conversion_target(func, a, results[0])?
        };
        match &target {
            Some(t) if *t != to => return None,
            _ => target = Some(to),
        }
    }
    target
}

/// Layouts for carried values of `scf.for`: the layout of the yielded value, where it
/// differs (the init is rebuilt or converted once, before the loop).
fn carried_presets(func: &Function, a: &LayoutAssignment) -> HashMap<Value, Layout> {
    let mut presets = HashMap::new();
    for op in code_ops(func) {
        if !matches!(func.kind(op), OpKind::For { .. }) {
            continue;
        }
        let Some(body) = func.region_entry(op, 0) else {
            continue;
        };
        let Some(&term) = func.block(body).ops().last() else {
            continue;
        };
        for (i, &y) in func.op(term).operands().iter().enumerate() {
            let Some(target) = carried_target(func, term, i) else {
                continue;
            };
            // Whatever the init: one built from constants (`tl.zeros(…) + 1.0`) is rebuilt
            // in the carried layout for free, any other is converted once before the loop,
            // where the first assignment's carried layout would convert twice per
            // iteration (into the body's layout and back for the yield).
            if let (Some(yl), Some(tl)) = (a.layout(y), a.layout(target)) {
                if yl != tl {
                    presets.insert(target, yl.clone());
                }
            }
        }
    }
    presets
}

/// The key under which 1-D coalesced layouts that differ only in `size_per_thread` meet:
/// the shape and the layout with its `size_per_thread` cleared; `None` for other ranks.
fn one_d_key(layout: &BlockedLayout, shape: &[u64]) -> Option<(u64, BlockedLayout)> {
    (shape.len() == 1).then(|| {
        let mut l = layout.clone();
        l.size_per_thread = vec![0];
        (shape[0], l)
    })
}

/// One layout for the 1-D accesses of each shape that would otherwise get blocked layouts
/// differing only in elements per thread (a bf16 load with 8, an fp32 store with 4): the
/// widest of them. Every access of the group keeps its own vector width (an fp32 store
/// of 8 elements per thread is two 128-bit stores), and the values flowing between them
/// need no conversion: in two such layouts the same thread holds different elements, so
/// each conversion would be a round trip through shared memory of the whole block.
/// (Triton's coalescing gives loads the widest width of their group too, and keeps a
/// store at its own, converting the stored value.)
fn widest_1d_accesses(
    func: &Function,
    axis: &AxisAnalysis,
    ops: &[OpId],
    num_warps: u32,
    warp_size: u32,
) -> HashMap<Option<(u64, BlockedLayout)>, BlockedLayout> {
    let mut widest: HashMap<Option<(u64, BlockedLayout)>, BlockedLayout> = HashMap::new();
    for &op in ops {
        if !matches!(func.kind(op), OpKind::Load { .. } | OpKind::Store { .. }) {
            continue;
        }
        let ptr = func.op(op).operands()[0];
        let Some(shape) = known_shape(func.value_type(ptr)).filter(|s| s.len() == 1) else {
            continue;
        };
        let elem_bits = match func.value_type(ptr).elem() {
            tritonc_ir::Elem::Ptr(p) => p.pointee.bitwidth().unwrap_or(8).max(8),
            _ => 8,
        };
        let access =
            coalesced_layout_in_warps_of(&axis.get(ptr), &shape, elem_bits, num_warps, warp_size);
        let key = one_d_key(&access.layout, &shape);
        let entry = widest.entry(key).or_insert_with(|| access.layout.clone());
        if access.layout.size_per_thread[0] > entry.size_per_thread[0] {
            *entry = access.layout;
        }
    }
    widest.remove(&None);
    widest
}

fn assign_with(
    func: &Function,
    num_warps: u32,
    warp_size: u32,
    (capability, mfma): (u32, Option<u32>),
    presets: &HashMap<Value, Layout>,
    store_presets: &HashMap<OpId, Layout>,
) -> Result<LayoutAssignment, TtgirError> {
    if num_warps == 0 || !num_warps.is_power_of_two() || num_warps > 32 {
        return Err(TtgirError {
            message: format!("num_warps must be a power of two from 1 to 32, not {num_warps}"),
            span: None,
        });
    }
    let axis = AxisAnalysis::run(func);
    let ops = code_ops(func);
    let shape_of = |v: Value| known_shape(func.value_type(v));
    for &op in &ops {
        let kind = func.kind(op);
        if kind.num_regions() > 0
            && !has_code_regions(kind)
            && !matches!(kind, OpKind::Reduce { .. } | OpKind::Scan { .. })
        {
            return Err(error(
                func,
                op,
                format!(
                    "`{}` is not supported by GPU code generation yet",
                    kind.name()
                ),
            ));
        }
        let data = func.op(op);
        let block_args = data
            .regions()
            .iter()
            .filter(|_| has_code_regions(kind))
            .flat_map(|&r| func.region(r).blocks())
            .flat_map(|&b| func.block(b).args());
        for &v in data
            .operands()
            .iter()
            .chain(data.results())
            .chain(block_args)
        {
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
    let mut st = Assigner {
        func,
        num_warps,
        warp_size,
        layouts: vec![None; func.num_values()],
    };
    let mut accesses = HashMap::new();
    for (&v, l) in presets {
        st.set(v, l.clone());
    }

    let widest_1d = widest_1d_accesses(func, &axis, &ops, num_warps, warp_size);

    // 1. Anchors: loads, stores and dots.
    for &op in &ops {
        let data = func.op(op);
        if let OpKind::Dot { .. } = func.kind(op) {
            let r = data.results()[0];
            if let Some(shape) = shape_of(r).filter(|s| s.len() == 2) {
                let layout = crate::accelerate::mma_layout_for(func, op, num_warps, capability)
                    .filter(|_| warp_size == WARP_SIZE)
                    .or_else(|| crate::accelerate_amd::mfma_layout_for(func, op, num_warps, mfma))
                    .unwrap_or_else(|| Layout::Blocked(dot_layout(&shape, num_warps, warp_size)));
                st.set(r, layout.clone());
                let acc = data.operands()[2];
                if st.get(acc).is_none() && !has_inherent_layout(func, acc) {
                    st.set(acc, layout);
                }
            }
            continue;
        }
        if !matches!(func.kind(op), OpKind::Load { .. } | OpKind::Store { .. }) {
            continue;
        }
        let ptr = data.operands()[0];
        let Some(shape) = shape_of(ptr) else { continue };
        let elem_bits = match func.value_type(ptr).elem() {
            tritonc_ir::Elem::Ptr(p) => p.pointee.bitwidth().unwrap_or(8).max(8),
            _ => 8,
        };
        let info = axis.get(ptr);
        let mut access =
            coalesced_layout_in_warps_of(&info, &shape, elem_bits, num_warps, warp_size);
        if let Some(widest) = widest_1d.get(&one_d_key(&access.layout, &shape)) {
            access.layout = widest.clone();
        }
        // A load rematerialized in its users' layout (see `rematerialized_loads`; 1-D).
        let preset = data
            .results()
            .first()
            .and_then(|r| presets.get(r))
            .filter(|_| matches!(func.kind(op), OpKind::Load { .. }) && shape.len() == 1);
        // A store of a loop result in the layout the loop carries (`stores_in_carried_layout`).
        let store_preset = store_presets.get(&op);
        let layout = preset
            .or(store_preset)
            .cloned()
            .unwrap_or_else(|| Layout::Blocked(access.layout.clone()));
        let linear = layout
            .to_linear(&shape)
            .map_err(|e| error(func, op, e.to_string()))?;
        let mask = match func.kind(op) {
            OpKind::Load { .. } => data.operands().get(1),
            _ => data.operands().get(2),
        };
        let mask_info = mask.map(|&m| axis.get(m));
        let fastest = match (preset, store_preset) {
            (Some(_), _) => 0,
            (None, Some(Layout::Blocked(b))) => b.order.first().copied().unwrap_or(0) as usize,
            _ => access.order[0] as usize,
        };
        let vec = vector_width(&info, mask_info.as_ref(), &linear, fastest, elem_bits);
        accesses.insert(
            op,
            AccessPlan {
                layout: layout.clone(),
                fastest_dim: fastest,
                vector_width: vec,
            },
        );
        for &v in data.results() {
            if st.get(v).is_none() {
                st.set(v, layout.clone());
            }
        }
        let is_store = matches!(func.kind(op), OpKind::Store { .. });
        for (i, &v) in data.operands().iter().enumerate() {
            // A stored loop result keeps the layout the loop gives it (see
            // `stores_in_carried_layout`): the store adapts, not the loop body.
            if is_store && i == 1 && is_loop_result(func, v) {
                continue;
            }
            if func.value_type(v).is_tensor()
                && st.get(v).is_none()
                && !has_inherent_layout(func, v)
            {
                st.set(v, layout.clone());
            }
        }
    }

    // 2. Backward, 3. forward.
    st.backward(func.entry_block());
    st.forward(func.entry_block());

    // Every value gets its canonical value's layout (loop results mirror body args).
    let mut layouts = st.layouts.clone();
    for &op in &ops {
        for &v in func.op(op).results() {
            let c = canonical(func, v);
            if c != v {
                layouts[v.index()] = st.layouts[c.index()].clone();
            }
        }
    }
    let mut a = LayoutAssignment {
        num_warps,
        warp_size,
        axis,
        layouts,
        conversions: HashMap::new(),
        accesses,
    };

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
            let needed = if let Some(target) = carried_target(func, op, i) {
                a.layouts[target.index()].clone()
            } else if let Some(plan) = a.accesses.get(&op) {
                Some(plan.layout.clone())
            } else {
                match kind {
                    OpKind::Broadcast => result_layout.clone(),
                    OpKind::ExpandDims { axis } => result_layout.as_ref().map(|l| l.slice(*axis)),
                    OpKind::Reduce { .. } => a.layouts[data.operands()[0].index()].clone(),
                    OpKind::Dot { .. } if i == 2 => result_layout.clone(),
                    OpKind::Dot { .. } => None,
                    k if is_data_movement(k) => None,
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
        let data = func.op(op);
        let block_args: Vec<Value> = data
            .regions()
            .iter()
            .filter(|_| has_code_regions(func.kind(op)))
            .flat_map(|&r| func.region(r).blocks())
            .flat_map(|&b| func.block(b).args().to_vec())
            .collect();
        for &v in data.results().iter().chain(&block_args) {
            if let (Some(l), Some(shape)) = (&a.layouts[v.index()], shape_of(v)) {
                l.to_linear(&shape)
                    .map_err(|e| error(func, op, e.to_string()))?;
            }
        }
    }
    Ok(a)
}

impl LayoutAssignment {
    /// The layouts a GPU-IR function's types carry, read back for lowering: there are no
    /// conversions (they are `ttg.convert_layout` ops), and the access plan of every load,
    /// store and asynchronous copy follows from its pointer's encoding and axis facts.
    pub fn from_gpu_ir(
        func: &Function,
        num_warps: u32,
        warp_size: u32,
    ) -> Result<LayoutAssignment, TtgirError> {
        let axis = AxisAnalysis::run(func);
        let layouts: Vec<Option<Layout>> = func
            .values()
            .map(|v| func.value_type(v).encoding().cloned())
            .collect();
        let mut accesses = HashMap::new();
        for op in code_ops(func) {
            let data = func.op(op);
            let mask = match func.kind(op) {
                OpKind::Load { .. } | OpKind::AsyncCopyGlobalToLocal { .. } => {
                    data.operands().get(if matches!(func.kind(op), OpKind::Load { .. }) { 1 } else { 2 })
                }
                OpKind::Store { .. } => data.operands().get(2),
                _ => continue,
            };
            let ptr = data.operands()[0];
            let ptr_ty = func.value_type(ptr);
            let Some(shape) = known_shape(ptr_ty) else {
                continue;
            };
            let layout = ptr_ty
                .encoding()
                .cloned()
                .ok_or_else(|| error(func, op, "a block pointer without an encoding".into()))?;
            let linear = layout
                .to_linear(&shape)
                .map_err(|e| error(func, op, e.to_string()))?;
            let elem_bits = match ptr_ty.elem() {
                tritonc_ir::Elem::Ptr(p) => p.pointee.bitwidth().unwrap_or(8).max(8),
                _ => 8,
            };
            let fastest = match &layout {
                Layout::Blocked(b) => b.order.first().copied().unwrap_or(0) as usize,
                Layout::Slice(_) => 0,
                Layout::Mma(_) | Layout::AmdMfma(_) => 1,
            };
            let mask_info = mask.map(|&m| axis.get(m));
            let vec = vector_width(
                &axis.get(ptr),
                mask_info.as_ref(),
                &linear,
                fastest,
                elem_bits,
            );
            accesses.insert(
                op,
                AccessPlan {
                    layout,
                    fastest_dim: fastest,
                    vector_width: vec,
                },
            );
        }
        Ok(LayoutAssignment {
            num_warps,
            warp_size,
            axis,
            layouts,
            conversions: HashMap::new(),
            accesses,
        })
    }

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

    /// The combination order of a `tt.scan` op (see [`ScanSchedule`]).
    pub fn scan_schedule(&self, func: &Function, op: OpId) -> Result<ScanSchedule, TtgirError> {
        let OpKind::Scan { axis, reverse } = func.kind(op) else {
            return Err(error(func, op, "not a `tt.scan`".into()));
        };
        let r = func.op(op).results()[0];
        let linear = self
            .linear(func, r)
            .ok_or_else(|| error(func, op, "the scanned operand is not a block".into()))?
            .map_err(|e| error(func, op, e.to_string()))?;
        ScanSchedule::from_linear(&linear, *axis as usize, *reverse)
            .map_err(|e| error(func, op, e.to_string()))
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
