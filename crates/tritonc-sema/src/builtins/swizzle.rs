//! `tl.swizzle2d(i, j, size_i, size_j, size_g)`: the grouped program ordering of tiled
//! matmuls. Triton 3.6 defines it as a `@jit` function of ordinary arithmetic, so it is
//! lowered as that arithmetic: operands that are constexprs fold the way Python folds
//! them, runtime ones are typed by promotion, and the group clamp is `tl.minimum`.

use tritonc_diagnostics::Diagnostic;
use tritonc_syntax::ast::BinOp;

use super::{arith, BuiltinCall};
use crate::lower::LowerCx;
use crate::promote::BinaryKind;
use crate::value::SemaValue;

/// `(new_i, new_j)`: row-major index `i * size_j + j` regrouped into bands of `size_g` rows,
/// walked column by column inside each band (the last band may be shorter).
pub(super) fn swizzle2d(cx: &mut LowerCx<'_>, call: &BuiltinCall) -> Result<SemaValue, Diagnostic> {
    let b = call.bind(&["i", "j", "size_i", "size_j", "size_g"])?;
    let i = call.required(&b, 0, "i")?.0;
    let j = call.required(&b, 1, "j")?.0;
    let size_i = call.required(&b, 2, "size_i")?.0;
    let size_j = call.required(&b, 3, "size_j")?.0;
    let size_g = call.required(&b, 4, "size_g")?.0;
    let s = call.span;
    let linear = cx.binary_op(BinOp::Mul, i, size_j.clone(), s)?;
    let linear = cx.binary_op(BinOp::Add, linear, j, s)?;
    let band_elems = cx.binary_op(BinOp::Mul, size_g.clone(), size_j, s)?;
    let band = cx.binary_op(BinOp::FloorDiv, linear.clone(), band_elems.clone(), s)?;
    let first_row = cx.binary_op(BinOp::Mul, band, size_g.clone(), s)?;
    let rows_left = cx.binary_op(BinOp::Sub, size_i, first_row.clone(), s)?;
    let rows = SemaValue::Tensor(arith::binary(
        cx,
        BinaryKind::Minimum,
        rows_left,
        size_g,
        s,
    )?);
    let in_band = cx.binary_op(BinOp::Mod, linear, band_elems, s)?;
    let row_in_band = cx.binary_op(BinOp::Mod, in_band.clone(), rows.clone(), s)?;
    let new_i = cx.binary_op(BinOp::Add, first_row, row_in_band, s)?;
    let new_j = cx.binary_op(BinOp::FloorDiv, in_band, rows, s)?;
    Ok(SemaValue::Tuple(vec![new_i, new_j]))
}
