//! Ops that move elements between positions: `tt.trans`, `tt.reshape`, `tt.join`,
//! `tt.split` and `tt.cat`. Each writes its operands to shared scratch at the slots
//! of the result's row-major order and reads the result's registers back, so any
//! operand and result layouts work (a layout conversion with a permutation).

use tritonc_ir::{OpId, OpKind};

use super::function::{FunctionLowering, Lowered};
use super::shared::{dense_strides, storage_bytes, storage_of};
use super::LowerError;

/// Where a block's elements go in (or come from) shared scratch: slot
/// `offset + sum_d c_d * strides[d]` for the element at coordinates `c`.
type Placement = (Vec<u64>, u64);

impl<'l, 'c, 'a> FunctionLowering<'l, 'c, 'a> {
    pub(super) fn lower_shape_op(&mut self, op: OpId) -> Result<(), LowerError> {
        let data = self.func.op(op);
        let kind = self.func.kind(op).clone();
        let operands = data.operands().to_vec();
        let results = data.results().to_vec();
        let shape_of = |this: &Self, v: tritonc_ir::Value| {
            this.func
                .value_type(v)
                .known_shape()
                .ok_or_else(|| this.error("block shape unknown at compile time"))
        };
        let elem = self.elem_type(operands[0])?;
        let (storage, _) = storage_of(self.b.context(), elem);
        let src_shape = shape_of(self, operands[0])?;
        let numel: u64 = src_shape.iter().product();
        // Per operand: strides and offset of its slots; per result: the same.
        let (writes, reads): (Vec<Placement>, Vec<Placement>) = match &kind {
            OpKind::Trans { order } => {
                let rs = dense_strides(&shape_of(self, results[0])?);
                let mut ws = vec![0u64; rs.len()];
                for (i, &o) in order.iter().enumerate() {
                    ws[o as usize] = rs[i];
                }
                (vec![(ws, 0)], vec![(rs, 0)])
            }
            OpKind::Reshape { .. } => (
                vec![(dense_strides(&src_shape), 0)],
                vec![(dense_strides(&shape_of(self, results[0])?), 0)],
            ),
            OpKind::Join => {
                let rs = dense_strides(&shape_of(self, results[0])?);
                let ws = rs[..rs.len() - 1].to_vec();
                (vec![(ws.clone(), 0), (ws, 1)], vec![(rs, 0)])
            }
            OpKind::Split => {
                let ws = dense_strides(&src_shape);
                let rs = ws[..ws.len() - 1].to_vec();
                (vec![(ws, 0)], vec![(rs.clone(), 0), (rs, 1)])
            }
            OpKind::Cat => {
                let ws = dense_strides(&src_shape);
                (
                    vec![(ws.clone(), 0), (ws, numel)],
                    vec![(dense_strides(&shape_of(self, results[0])?), 0)],
                )
            }
            k => return Err(self.error(format!("`{}` is not a shape op (internal)", k.name()))),
        };
        let total: u64 = results
            .iter()
            .map(|&r| shape_of(self, r).map(|s| s.iter().product::<u64>()))
            .sum::<Result<u64, _>>()?;
        self.claim_shared(total.max(numel * operands.len() as u64) * storage_bytes(storage))?;
        for (i, (strides, offset)) in writes.iter().enumerate() {
            let v = operands[i];
            let layout = self
                .layouts
                .operand_layout(self.func, op, i)
                .ok_or_else(|| self.error("operand without a layout"))?
                .clone();
            let linear = self.linear_of(v, &layout)?;
            let regs = self.operand(op, i)?.regs;
            self.shared_write(&regs, elem, &linear, strides, *offset, 0)?;
        }
        self.mlir(self.b.barrier())?;
        for (j, (strides, offset)) in reads.iter().enumerate() {
            let linear = self.result_linear(results[j])?;
            let regs = self.shared_read(elem, &linear, strides, *offset, 0)?;
            self.values.insert(results[j], Lowered::block(regs));
        }
        Ok(())
    }
}
