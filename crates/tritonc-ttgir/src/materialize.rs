//! The `tritonc-assign-layouts` pass: the tile IR becomes the GPU IR.
//!
//! It runs the layout analysis ([`crate::assign_layouts`]) and writes its decisions into
//! the function: every block value's type gets its layout as encoding, and every use that
//! needs another layout reads a `ttg.convert_layout` inserted right before the using op
//! (with the using op's location). A value converted to the same layout by several uses
//! is converted once where that conversion dominates the later uses (its block encloses
//! theirs), as the per-use lowering used to share it.

use std::collections::HashMap;

use tritonc_ir::layout::Layout;
use tritonc_ir::{BlockId, Builder, Function, OpKind, Value};

use crate::assign::{assign_layouts_for, LayoutConversion};
use crate::control::{code_ops, has_code_regions};
use crate::pipeline::{GpuOptions, GpuPass};
use crate::TtgirError;

/// Assigns a layout to every block value and makes every layout change an op.
#[derive(Debug, Clone, Copy, Default)]
pub struct AssignLayouts;

impl GpuPass for AssignLayouts {
    fn name(&self) -> &'static str {
        "tritonc-assign-layouts"
    }

    fn run(&self, func: &mut Function, options: &GpuOptions) -> Result<(), TtgirError> {
        let a = assign_layouts_for(func, options)?;
        let ops = code_ops(func);
        // Encodings first: the conversions below copy their operand's type.
        let mut values: Vec<Value> = Vec::new();
        for &op in &ops {
            let data = func.op(op);
            values.extend(data.results());
            if has_code_regions(func.kind(op)) {
                for &r in data.regions() {
                    for &b in func.region(r).blocks() {
                        values.extend(func.block(b).args());
                    }
                }
            }
        }
        for v in values {
            let ty = func.value_type(v);
            if ty.is_tensor() {
                let encoded = ty.with_encoding(a.layout(v).cloned());
                func.set_value_type(v, encoded);
            }
        }
        let mut conversions: Vec<LayoutConversion> = a.conversions().cloned().collect();
        // Program order of the using ops, then operand order: the order uses lowered in.
        let position: HashMap<_, _> = ops.iter().enumerate().map(|(i, &op)| (op, i)).collect();
        conversions.sort_by_key(|c| (position.get(&c.op).copied(), c.operand));
        let mut done: HashMap<(Value, Layout), (Value, BlockId)> = HashMap::new();
        for c in conversions {
            let Some(block) = func.op(c.op).parent() else {
                continue;
            };
            let reuse = done
                .get(&(c.value, c.to.clone()))
                .filter(|(_, at)| encloses(func, *at, block))
                .map(|(v, _)| *v);
            let converted = match reuse {
                Some(v) => v,
                None => {
                    let ty = func.value_type(c.value).with_encoding(Some(c.to.clone()));
                    let loc = func.op(c.op).loc.clone();
                    let mut b = Builder::before(func, c.op);
                    b.set_loc(loc);
                    let conv = b.insert(OpKind::ConvertLayout, &[c.value], vec![ty]);
                    let v = func.op(conv).results()[0];
                    done.insert((c.value, c.to), (v, block));
                    v
                }
            };
            func.set_operand(c.op, c.operand, converted);
        }
        Ok(())
    }
}

/// Whether `outer` is `inner` or a block around it.
fn encloses(func: &Function, outer: BlockId, inner: BlockId) -> bool {
    let mut at = Some(inner);
    while let Some(b) = at {
        if b == outer {
            return true;
        }
        at = func.block_parent_op(b).and_then(|op| func.op(op).parent());
    }
    false
}
