//! The `tritonc-sink-conversions` pass: a layout conversion feeding a narrowing cast moves
//! after the cast, so fewer bytes go through shared memory (Triton's
//! `remove-layout-conversions` makes the same trade).
//!
//! `%b = ttg.convert_layout %a; %c = arith.truncf %b` (the conversion used only by the
//! cast, `%a` a tensor-core accumulator in `#ttg.nvidia_mma`) becomes `%t = arith.truncf %a; %c = ttg.convert_layout %t`: the cast runs in the
//! source layout, element for element the same arithmetic, and the conversion moves the
//! narrower values. A matmul's epilogue converts its fp16 result instead of the fp32
//! accumulator: half the shared memory. Applies to `arith.truncf`, `arith.trunci` and
//! narrowing `tt.fp_to_fp`.

use tritonc_ir::layout::Layout;
use tritonc_ir::{CastOp, Function, OpKind};

use crate::control::code_ops;
use crate::pipeline::{GpuOptions, GpuPass};
use crate::TtgirError;

/// Moves layout conversions after the narrowing casts they feed.
#[derive(Debug, Clone, Copy, Default)]
pub struct SinkConversions;

fn narrows(f: &Function, op: tritonc_ir::OpId) -> bool {
    let cast = matches!(
        f.kind(op),
        OpKind::Cast {
            op: CastOp::TruncF | CastOp::TruncI,
            ..
        } | OpKind::FpToFp { .. }
    );
    let data = f.op(op);
    if !cast || data.operands().len() != 1 || data.results().len() != 1 {
        return false;
    }
    let bits = |v| f.value_type(v).dtype().and_then(|d| d.bitwidth());
    matches!(
        (bits(data.operands()[0]), bits(data.results()[0])),
        (Some(from), Some(to)) if to < from
    )
}

impl GpuPass for SinkConversions {
    fn name(&self) -> &'static str {
        "tritonc-sink-conversions"
    }

    fn run(&self, func: &mut Function, _options: &GpuOptions) -> Result<(), TtgirError> {
        for cast in code_ops(func) {
            if !narrows(func, cast) {
                continue;
            }
            let converted = func.op(cast).operands()[0];
            let Some(conv) = func.defining_op(converted) else {
                continue;
            };
            if !matches!(func.kind(conv), OpKind::ConvertLayout) || func.uses(converted).len() != 1 {
                continue;
            }
            let (Some(block), Some(at)) = (func.op(cast).parent(), func.position_in_block(cast))
            else {
                continue;
            };
            let source = func.op(conv).operands()[0];
            // Only out of tensor-core accumulators for now: elsewhere the conversion's
            // place is the layout analysis's decision (and the memory-bound goldens').
            if !matches!(func.value_type(source).encoding(), Some(Layout::Mma(_))) {
                continue;
            }
            let old = func.op(cast).results()[0];
            let target_ty = func.value_type(old).clone();
            let source_layout = func.value_type(source).encoding().cloned();
            let narrow_ty = target_ty.with_encoding(source_layout);
            let kind = func.kind(cast).clone();
            let loc = func.op(cast).loc.clone();
            let new_cast = func.create_op(kind, &[source], vec![narrow_ty], 0, loc.clone());
            func.insert_op(block, at, new_cast);
            let narrow = func.op(new_cast).results()[0];
            let new_conv = func.create_op(OpKind::ConvertLayout, &[narrow], vec![target_ty], 0, loc);
            func.insert_op(block, at + 1, new_conv);
            let new = func.op(new_conv).results()[0];
            func.replace_all_uses(old, new);
            func.erase_op(cast);
            func.erase_op(conv);
        }
        Ok(())
    }
}
