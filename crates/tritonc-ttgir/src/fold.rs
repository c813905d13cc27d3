//! The `tritonc-fold-conversions` pass: layout conversions that move nothing go away.
//!
//! A `ttg.convert_layout` whose source already places every element on the target's
//! registers is replaced by its source; one whose source is another conversion reads
//! that conversion's source instead (`convert(convert(x))` is one move, not two); a
//! conversion nothing uses is erased.

use tritonc_ir::{Function, OpKind};

use crate::assign::{known_shape, same_on};
use crate::control::code_ops;
use crate::pipeline::{GpuOptions, GpuPass};
use crate::TtgirError;

/// Folds redundant and chained layout conversions.
#[derive(Debug, Clone, Copy, Default)]
pub struct FoldConversions;

impl GpuPass for FoldConversions {
    fn name(&self) -> &'static str {
        "tritonc-fold-conversions"
    }

    fn run(&self, func: &mut Function, _options: &GpuOptions) -> Result<(), TtgirError> {
        for op in code_ops(func) {
            if !matches!(func.kind(op), OpKind::ConvertLayout) {
                continue;
            }
            let mut source = func.op(op).operands()[0];
            // convert(convert(x)) reads x.
            while let Some(def) = func.defining_op(source) {
                if !matches!(func.kind(def), OpKind::ConvertLayout) {
                    break;
                }
                source = func.op(def).operands()[0];
            }
            if source != func.op(op).operands()[0] {
                func.set_operand(op, 0, source);
            }
            let result = func.op(op).results()[0];
            let (from, to) = (func.value_type(source), func.value_type(result));
            let same = match (from.encoding(), to.encoding(), known_shape(to)) {
                (Some(a), Some(b), Some(shape)) => same_on(a, b, &shape),
                _ => false,
            };
            if same {
                func.replace_all_uses(result, source);
            }
        }
        // Conversions left without uses, last first (a chain frees its head last).
        for op in code_ops(func).into_iter().rev() {
            if matches!(func.kind(op), OpKind::ConvertLayout)
                && !func.has_uses(func.op(op).results()[0])
            {
                func.erase_op(op);
            }
        }
        Ok(())
    }
}
