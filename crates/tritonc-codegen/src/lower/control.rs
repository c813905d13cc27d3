//! Structured control flow: `scf.for`, `scf.if` and `scf.while` of the tile IR become
//! the same MLIR ops over per-thread registers.
//!
//! A carried block value is the list of its registers, so the MLIR op carries every
//! register as its own SSA value (a block of 16 registers per thread is 16 loop-carried
//! values); scalars are one value. Layout assignment has already given every value
//! flowing into one carried slot the same layout (inserting conversions on the uses
//! that differ), so the register lists line up.

use melior::ir::{BlockLike, Type, Value, ValueLike};
use tritonc_ir::{BlockId, OpId, OpKind};

use super::function::{FunctionLowering, Lowered};
use super::LowerError;

/// How a lowered value was flattened: its register count and whether it is a scalar.
#[derive(Clone, Copy)]
pub(super) struct Slot {
    len: usize,
    scalar: bool,
}

pub(super) fn unflatten<'c, 'a>(values: &[Value<'c, 'a>], slots: &[Slot]) -> Vec<Lowered<'c, 'a>> {
    let mut out = Vec::with_capacity(slots.len());
    let mut at = 0;
    for s in slots {
        let regs = values[at..at + s.len].to_vec();
        at += s.len;
        out.push(if s.scalar {
            Lowered::scalar(regs[0])
        } else {
            Lowered::block(regs)
        });
    }
    out
}

impl<'l, 'c, 'a> FunctionLowering<'l, 'c, 'a> {
    /// Lowers the ops of `block` but its terminator, which it returns.
    pub(super) fn lower_block(&mut self, block: BlockId) -> Result<Option<OpId>, LowerError> {
        let ops = self.func.block(block).ops().to_vec();
        for &op in &ops {
            if self.func.kind(op).is_terminator() && !matches!(self.func.kind(op), OpKind::Return) {
                return Ok(Some(op));
            }
            self.lower_op(op)?;
        }
        Ok(None)
    }

    /// Operands `range` of `op` (converted as the op needs them), flattened.
    pub(super) fn flatten_operands_of(
        &mut self,
        op: OpId,
        range: std::ops::Range<usize>,
    ) -> Result<(Vec<Value<'c, 'a>>, Vec<Slot>), LowerError> {
        let mut values = Vec::new();
        let mut slots = Vec::new();
        for i in range {
            let l = self.operand(op, i)?;
            slots.push(Slot {
                len: l.regs.len(),
                scalar: l.scalar,
            });
            values.extend(l.regs);
        }
        Ok((values, slots))
    }

    /// The register slots and types tile values `vs` will have when lowered.
    fn slots_of(&self, vs: &[tritonc_ir::Value]) -> Result<(Vec<Type<'c>>, Vec<Slot>), LowerError> {
        let mut types = Vec::new();
        let mut slots = Vec::new();
        for &v in vs {
            let ty = self.elem_type(v)?;
            let slot = if self.func.value_type(v).is_tensor() {
                Slot {
                    len: self.result_linear(v)?.num_registers() as usize,
                    scalar: false,
                }
            } else {
                Slot {
                    len: 1,
                    scalar: true,
                }
            };
            types.extend(std::iter::repeat_n(ty, slot.len));
            slots.push(slot);
        }
        Ok((types, slots))
    }

    /// Lowers tile block `block` into the MLIR block `target` with its arguments bound
    /// to `args`, then ends it with `terminator(operands of the tile terminator)`.
    fn lower_region(
        &mut self,
        block: Option<BlockId>,
        target: melior::ir::BlockRef<'c, 'a>,
        args: Vec<Lowered<'c, 'a>>,
        expected: &[Slot],
    ) -> Result<(), LowerError> {
        let outer = self.b;
        let inner = self.arena.alloc(outer.nested(target));
        self.b = inner;
        let saved = self.converted.clone();
        let saved_offsets = self.offsets.clone();
        let result = (|| {
            let Some(block) = block else {
                return self.mlir(self.b.effect("scf.yield", &[], &[]));
            };
            let tile_args = self.func.block(block).args().to_vec();
            for (a, l) in tile_args.into_iter().zip(args) {
                self.values.insert(a, l);
            }
            let term = self
                .lower_block(block)?
                .ok_or_else(|| self.error("a region without a terminator"))?;
            self.at_op(term);
            let n = self.func.op(term).operands().len();
            let (name, first) = match self.func.kind(term) {
                OpKind::Condition => ("scf.condition", 1),
                _ => ("scf.yield", 0),
            };
            let (mut values, slots) = self.flatten_operands_of(term, first..n)?;
            if slots.len() != expected.len()
                || slots.iter().zip(expected).any(|(a, b)| a.len != b.len)
            {
                return Err(self.error(
                    "internal: a carried value changes its register count across the region",
                ));
            }
            if first == 1 {
                let cond = self.operand(term, 0)?.reg(0);
                values.insert(0, cond);
            }
            self.mlir(self.b.effect(name, &values, &[]))
        })();
        self.converted = saved;
        self.offsets = saved_offsets;
        self.b = outer;
        result
    }

    pub(super) fn bind_results_of(&mut self, op: OpId, values: &[Value<'c, 'a>], slots: &[Slot]) {
        let results = self.func.op(op).results().to_vec();
        for (r, l) in results.into_iter().zip(unflatten(values, slots)) {
            self.values.insert(r, l);
        }
    }

    pub(super) fn lower_for(&mut self, op: OpId) -> Result<(), LowerError> {
        let n = self.func.op(op).operands().len();
        let lb = self.operand(op, 0)?.reg(0);
        let ub = self.operand(op, 1)?.reg(0);
        let step = self.operand(op, 2)?.reg(0);
        let (inits, slots) = self.flatten_operands_of(op, 3..n)?;
        let types: Vec<Type<'c>> = inits.iter().map(|v| v.r#type()).collect();
        let mut operands = vec![lb, ub, step];
        operands.extend(&inits);
        let mut block_types = vec![lb.r#type()];
        block_types.extend(&types);
        let (results, blocks) =
            self.mlir(
                self.b
                    .region_op("scf.for", &operands, &types, &[block_types]),
            )?;
        let body = blocks[0];
        let mut args: Vec<Value<'c, 'a>> = Vec::new();
        for i in 0..body.argument_count() {
            let a = body.argument(i).expect("invariant: i < argument_count");
            args.push(a.into());
        }
        let mut lowered = vec![Lowered::scalar(args[0])];
        lowered.extend(unflatten(&args[1..], &slots));
        let tile_body = self.func.region_entry(op, 0);
        self.lower_region(tile_body, body, lowered, &slots)?;
        self.at_op(op);
        self.bind_results_of(op, &results, &slots);
        Ok(())
    }

    pub(super) fn lower_if(&mut self, op: OpId) -> Result<(), LowerError> {
        let cond = self.operand(op, 0)?.reg(0);
        let results = self.func.op(op).results().to_vec();
        let (types, slots) = self.slots_of(&results)?;
        let (values, blocks) =
            self.mlir(
                self.b
                    .region_op("scf.if", &[cond], &types, &[Vec::new(), Vec::new()]),
            )?;
        for (k, &target) in blocks.iter().enumerate() {
            let tile_block = self.func.region_entry(op, k);
            if tile_block.is_none() && !slots.is_empty() {
                return Err(self.error("an `scf.if` with results needs both branches"));
            }
            self.lower_region(tile_block, target, Vec::new(), &slots)?;
        }
        self.at_op(op);
        self.bind_results_of(op, &values, &slots);
        Ok(())
    }

    pub(super) fn lower_while(&mut self, op: OpId) -> Result<(), LowerError> {
        let n = self.func.op(op).operands().len();
        let (inits, init_slots) = self.flatten_operands_of(op, 0..n)?;
        let init_types: Vec<Type<'c>> = inits.iter().map(|v| v.r#type()).collect();
        let after = self
            .func
            .region_entry(op, 1)
            .ok_or_else(|| self.error("`scf.while` without an after region"))?;
        let after_args = self.func.block(after).args().to_vec();
        let (after_types, after_slots) = self.slots_of(&after_args)?;
        let (results, blocks) = self.mlir(self.b.region_op(
            "scf.while",
            &inits,
            &after_types,
            &[init_types, after_types.clone()],
        ))?;
        let block_args = |b: melior::ir::BlockRef<'c, 'a>| -> Vec<Value<'c, 'a>> {
            (0..b.argument_count())
                .map(|i| b.argument(i).expect("invariant: i < argument_count").into())
                .collect()
        };
        let before_vals = block_args(blocks[0]);
        let after_vals = block_args(blocks[1]);
        let before = self.func.region_entry(op, 0);
        self.lower_region(
            before,
            blocks[0],
            unflatten(&before_vals, &init_slots),
            &after_slots,
        )?;
        self.lower_region(
            Some(after),
            blocks[1],
            unflatten(&after_vals, &after_slots),
            &init_slots,
        )?;
        self.at_op(op);
        self.bind_results_of(op, &results, &after_slots);
        Ok(())
    }
}
