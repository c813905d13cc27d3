//! Layout propagation inside one function: operands take the layouts their users need
//! (backward), results the layouts their operands have (forward), through structured
//! control flow (loop-carried values start from their inits, `scf.if` results from their
//! yields). The steps of [`crate::assign_layouts`] that need no anchors.

use tritonc_ir::{Function, OpId, OpKind, Value};

use crate::assign::{has_inherent_layout, is_data_movement, is_elementwise, known_shape};
use crate::control::{canonical, carried_target, has_code_regions};
use crate::layout::{BlockedLayout, Layout};

/// Whether `v` is computed only from ranges, splats and constants by elementwise ops,
/// broadcasts and `expand_dims` (offsets, masks, pointers): codegen rebuilds such values
/// in any layout, so they should not decide one.
fn is_index_math(func: &Function, v: Value, depth: u32) -> bool {
    const MAX_DEPTH: u32 = 12;
    if !func.value_type(v).is_tensor() {
        return true;
    }
    let Some(op) = func.defining_op(v) else {
        return false;
    };
    match func.kind(op) {
        OpKind::MakeRange { .. } | OpKind::Splat | OpKind::Constant(_) => true,
        OpKind::Binary(_)
        | OpKind::CmpI(_)
        | OpKind::CmpF(_)
        | OpKind::Select
        | OpKind::Cast { .. }
        | OpKind::AddPtr
        | OpKind::Broadcast
        | OpKind::ExpandDims { .. }
            if depth < MAX_DEPTH =>
        {
            func.op(op)
                .operands()
                .iter()
                .all(|&o| is_index_math(func, o, depth + 1))
        }
        _ => false,
    }
}

/// The layouts being assigned, with the passes over blocks.
pub(crate) struct Assigner<'f> {
    pub func: &'f Function,
    pub num_warps: u32,
    pub warp_size: u32,
    pub layouts: Vec<Option<Layout>>,
}

impl Assigner<'_> {
    pub fn get(&self, v: Value) -> Option<Layout> {
        self.layouts[canonical(self.func, v).index()].clone()
    }

    pub fn set(&mut self, v: Value, l: Layout) {
        let c = canonical(self.func, v);
        self.layouts[c.index()] = Some(l);
    }

    fn default_layout(&self, v: Value) -> Option<Layout> {
        let shape = known_shape(self.func.value_type(v))?;
        Some(Layout::Blocked(BlockedLayout::default_in_warps_of(
            &shape,
            self.num_warps,
            self.warp_size,
        )))
    }

    /// Step 2 over one block, last op first: operands take the layout their user implies.
    pub fn backward(&mut self, block: tritonc_ir::BlockId) {
        let func = self.func;
        for &op in func.block(block).ops().iter().rev() {
            let data = func.op(op);
            let kind = func.kind(op);
            if has_code_regions(kind) {
                for &r in data.regions().iter().rev() {
                    for &b in func.region(r).blocks().iter().rev() {
                        self.backward(b);
                    }
                }
            }
            let result_layout = data.results().first().and_then(|&r| self.get(r));
            for (i, &v) in data.operands().iter().enumerate() {
                // A loop's result is not given a layout by its users after the loop: the
                // loop's own computation decides what it carries (forward, and the
                // carried presets of `assign_layouts_for`), and a use after the loop
                // converts once instead of every iteration (attention's row sum, carried
                // in the accumulator's row layout, not in the output store's).
                if !func.value_type(v).is_tensor()
                    || self.get(v).is_some()
                    || has_inherent_layout(func, v)
                    || crate::assign::is_loop_result(func, v)
                {
                    continue;
                }
                let implied = if let Some(target) = carried_target(func, op, i) {
                    self.get(target)
                } else {
                    match kind {
                        OpKind::Reduce { .. } | OpKind::Dot { .. } => None,
                        k if is_data_movement(k) => None,
                        k if is_elementwise(k) => result_layout.clone(),
                        OpKind::Broadcast => result_layout.clone(),
                        OpKind::ExpandDims { axis } => {
                            result_layout.as_ref().map(|l| l.slice(*axis))
                        }
                        _ => None,
                    }
                };
                if let Some(l) = implied {
                    self.set(v, l);
                }
            }
        }
    }

    /// Step 3 over one block, in program order: results take the layout their operands
    /// imply; carried values take their inits' (loops) or their yields' (ifs).
    pub fn forward(&mut self, block: tritonc_ir::BlockId) {
        let func = self.func;
        for &op in func.block(block).ops() {
            let data = func.op(op);
            let kind = func.kind(op);
            if has_code_regions(kind) {
                self.forward_control(op);
                continue;
            }
            // Splats and constants are free in any layout, and a loop-carried value
            // follows what the loop computes: follow another operand where there is one.
            let is_free = |v: Value| match func.value_def(v) {
                tritonc_ir::ValueDef::OpResult { op, .. } => {
                    matches!(func.kind(op), OpKind::Splat | OpKind::Constant(_))
                }
                tritonc_ir::ValueDef::BlockArg { .. } => canonical(func, v) == v,
            };
            // Data (loads, dots, reductions) decides over index and mask math, which
            // codegen recomputes in any layout instead of converting it.
            let first_operand_layout = data
                .operands()
                .iter()
                .filter(|&&v| !is_free(v) && !is_index_math(func, v, 0))
                .find_map(|&v| self.get(v))
                .or_else(|| {
                    data.operands()
                        .iter()
                        .filter(|&&v| !is_free(v))
                        .find_map(|&v| self.get(v))
                })
                .or_else(|| data.operands().iter().find_map(|&v| self.get(v)));
            for &r in data.results() {
                if self.get(r).is_some() {
                    continue;
                }
                let Some(shape) = known_shape(func.value_type(r)) else {
                    continue;
                };
                let default = || {
                    Layout::Blocked(BlockedLayout::default_in_warps_of(
                        &shape,
                        self.num_warps,
                        self.warp_size,
                    ))
                };
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
                        Some(l @ (Layout::Blocked(_) | Layout::Mma(_))) => l.clone(),
                        _ => default(),
                    },
                    OpKind::Scan { .. } => first_operand_layout.clone().unwrap_or_else(default),
                    k if is_elementwise(k) => first_operand_layout.clone().unwrap_or_else(default),
                    _ => default(),
                };
                self.set(r, layout);
            }
        }
    }

    fn forward_control(&mut self, op: OpId) {
        let func = self.func;
        let data = func.op(op);
        let operand_layout = |this: &Self, v: Value| this.get(v).or_else(|| this.default_layout(v));
        match func.kind(op) {
            OpKind::For { .. } => {
                for (i, &init) in data.operands().iter().enumerate().skip(3) {
                    if let Some(target) = carried_target(func, op, i) {
                        if self.get(target).is_none() {
                            if let Some(l) = operand_layout(self, init) {
                                self.set(target, l);
                            }
                        }
                    }
                }
                self.forward_regions(op, &[0]);
            }
            OpKind::If => {
                self.forward_regions(op, &[0, 1]);
                for (i, &r) in data.results().iter().enumerate() {
                    if self.get(r).is_some() {
                        continue;
                    }
                    let from_yield = (0..2).find_map(|region| {
                        let b = func.region_entry(op, region)?;
                        let y = *func.block(b).ops().last()?;
                        let v = *func.op(y).operands().get(i)?;
                        self.get(v)
                    });
                    if let Some(l) = from_yield.or_else(|| self.default_layout(r)) {
                        self.set(r, l);
                    }
                }
            }
            OpKind::While => {
                for (i, &init) in data.operands().iter().enumerate() {
                    if let Some(target) = carried_target(func, op, i) {
                        if self.get(target).is_none() {
                            if let Some(l) = operand_layout(self, init) {
                                self.set(target, l);
                            }
                        }
                    }
                }
                self.forward_regions(op, &[0]);
                // The after block's arguments come from the condition's operands.
                if let Some(before) = func.region_entry(op, 0) {
                    if let Some(&cond) = func.block(before).ops().last() {
                        for (i, &v) in func.op(cond).operands().iter().enumerate().skip(1) {
                            if let Some(target) = carried_target(func, cond, i) {
                                if self.get(target).is_none() {
                                    if let Some(l) = operand_layout(self, v) {
                                        self.set(target, l);
                                    }
                                }
                            }
                        }
                    }
                }
                self.forward_regions(op, &[1]);
            }
            _ => {}
        }
    }

    fn forward_regions(&mut self, op: OpId, regions: &[usize]) {
        for &i in regions {
            if let Some(&r) = self.func.op(op).regions().get(i) {
                for &b in self.func.region(r).blocks() {
                    self.forward(b);
                }
            }
        }
    }
}
