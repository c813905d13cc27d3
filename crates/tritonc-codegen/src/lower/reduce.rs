//! `tt.reduce` in the order of its [`tritonc_ttgir::ReductionSchedule`]: registers in
//! order, the lane butterfly, then the warps' partials through shared memory combined
//! by the warp butterfly (every thread folds all partials in warp 0's order, so every
//! thread ends with the same bits as warp 0, lane 0).

use std::collections::HashMap;

use melior::ir::{r#type::IntegerType, Type, Value};
use tritonc_ir::{DType, OpId, OpKind};
use tritonc_ttgir::ReductionSchedule;

use super::function::{dtype_type, FunctionLowering, Lowered};
use super::shared::{row_major_strides, storage_bytes};
use super::LowerError;
use crate::body::IntPredicate;

impl<'l, 'c, 'a> FunctionLowering<'l, 'c, 'a> {
    /// Applies the combiner region of `op` to `lhs` and `rhs` (one value per operand).
    pub(super) fn combine(
        &mut self,
        op: OpId,
        lhs: &[Value<'c, 'a>],
        rhs: &[Value<'c, 'a>],
    ) -> Result<Vec<Value<'c, 'a>>, LowerError> {
        let body = self
            .func
            .region_entry(op, 0)
            .ok_or_else(|| self.error("a reduction without a combiner"))?;
        let args = self.func.block(body).args().to_vec();
        let n = lhs.len();
        for i in 0..n {
            self.values.insert(args[i], Lowered::scalar(lhs[i]));
            self.values.insert(args[n + i], Lowered::scalar(rhs[i]));
        }
        let location = self.b.location();
        let mut out = None;
        for inner in self.func.block(body).ops().to_vec() {
            if matches!(
                self.func.kind(inner),
                OpKind::ReduceReturn | OpKind::ScanReturn
            ) {
                let values = self.func.op(inner).operands().to_vec();
                out = Some(
                    values
                        .iter()
                        .map(|v| self.values.get(v).map(|l| l.reg(0)))
                        .collect::<Option<Vec<_>>>()
                        .ok_or_else(|| self.error("combiner returns a value it did not compute"))?,
                );
            } else {
                self.lower_op(inner)?;
            }
        }
        self.current_op = Some(op);
        self.b.set_location(location);
        out.ok_or_else(|| self.error("a combiner without a return"))
    }

    /// `shfl.sync.bfly` of any scalar type up to 64 bits (narrow ones widened to i32,
    /// wide ones in two halves).
    pub(super) fn shuffle_xor(
        &self,
        v: Value<'c, 'a>,
        dtype: DType,
        mask: u32,
    ) -> Result<Value<'c, 'a>, LowerError> {
        let b = self.b;
        self.shuffle_with(v, dtype, &|x| b.shuffle_xor(x, mask as i32))
    }

    /// `shuffle` (one 32-bit shuffle) applied to a scalar of any type up to 64 bits:
    /// narrow ones widened to i32, wide ones in two halves.
    pub(super) fn shuffle_with(
        &self,
        v: Value<'c, 'a>,
        dtype: DType,
        shuffle: &dyn Fn(Value<'c, 'a>) -> Result<Value<'c, 'a>, crate::CodegenError>,
    ) -> Result<Value<'c, 'a>, LowerError> {
        let b = self.b;
        let ctx = b.context();
        let bits = dtype.bitwidth().unwrap_or(32);
        let i32t: Type = IntegerType::new(ctx, 32).into();
        let ty = dtype_type(ctx, dtype).ok_or_else(|| self.error("unsupported reduction type"))?;
        match bits {
            32 => self.mlir(shuffle(v)),
            1 | 8 | 16 => {
                let int: Type = IntegerType::new(ctx, bits).into();
                let as_int = if dtype.is_int() {
                    v
                } else {
                    self.mlir(b.value("llvm.bitcast", &[v], int, &[]))?
                };
                let wide = self.mlir(b.value("arith.extui", &[as_int], i32t, &[]))?;
                let got = self.mlir(shuffle(wide))?;
                let narrow = self.mlir(b.value("arith.trunci", &[got], int, &[]))?;
                if dtype.is_int() {
                    Ok(narrow)
                } else {
                    self.mlir(b.value("llvm.bitcast", &[narrow], ty, &[]))
                }
            }
            _ => {
                let i64t: Type = IntegerType::new(ctx, 64).into();
                let as_int = if dtype.is_int() {
                    v
                } else {
                    self.mlir(b.value("llvm.bitcast", &[v], i64t, &[]))?
                };
                let lo = self.mlir(b.value("arith.trunci", &[as_int], i32t, &[]))?;
                let sh = self.const_i64(32)?;
                let hi64 = self.mlir(b.binary("arith.shrui", as_int, sh))?;
                let hi = self.mlir(b.value("arith.trunci", &[hi64], i32t, &[]))?;
                let lo = self.mlir(shuffle(lo))?;
                let hi = self.mlir(shuffle(hi))?;
                let lo = self.mlir(b.value("arith.extui", &[lo], i64t, &[]))?;
                let hi = self.mlir(b.value("arith.extui", &[hi], i64t, &[]))?;
                let hi = self.mlir(b.binary("arith.shli", hi, sh))?;
                let joined = self.mlir(b.binary("arith.ori", hi, lo))?;
                if dtype.is_int() {
                    Ok(joined)
                } else {
                    self.mlir(b.value("llvm.bitcast", &[joined], ty, &[]))
                }
            }
        }
    }

    pub(super) fn lower_reduce(&mut self, op: OpId) -> Result<(), LowerError> {
        let OpKind::Reduce { axis } = *self.func.kind(op) else {
            unreachable!("invariant: lower_reduce is called on tt.reduce")
        };
        let axis = axis as usize;
        let data = self.func.op(op);
        let operand_values = data.operands().to_vec();
        let results = data.results().to_vec();
        let n = operand_values.len();
        let mut inputs = Vec::new();
        let mut dtypes = Vec::new();
        for (i, &v) in operand_values.iter().enumerate() {
            inputs.push(self.operand(op, i)?);
            dtypes.push(
                self.func
                    .value_type(v)
                    .dtype()
                    .ok_or_else(|| self.error("reductions of pointers are not supported"))?,
            );
        }
        let layout = self
            .layouts
            .operand_layout(self.func, op, 0)
            .ok_or_else(|| self.error("reduced operand without a layout"))?
            .clone();
        let linear = self.linear_of(operand_values[0], &layout)?;
        let schedule =
            ReductionSchedule::from_linear(&linear, axis).map_err(|e| self.error(e.to_string()))?;

        // 1. In-thread, registers in order, grouped by output element.
        let mut order: Vec<Vec<u64>> = Vec::new();
        let mut accs: HashMap<Vec<u64>, Vec<Value<'c, 'a>>> = HashMap::new();
        for (r, c) in linear.register_coords().into_iter().enumerate() {
            let mut key = c.clone();
            key[axis] = 0;
            let vals: Vec<Value<'c, 'a>> = inputs.iter().map(|x| x.reg(r)).collect();
            let acc = match accs.remove(&key) {
                None => {
                    order.push(key.clone());
                    vals
                }
                Some(acc) => self.combine(op, &acc, &vals)?,
            };
            accs.insert(key, acc);
        }
        // 2. Lane butterfly.
        for key in &order {
            let mut acc = accs[key].clone();
            for step in &schedule.lane_steps {
                let mut other = Vec::with_capacity(n);
                for i in 0..n {
                    other.push(self.shuffle_xor(acc[i], dtypes[i], step.xor_mask)?);
                }
                acc = self.combine(op, &acc, &other)?;
            }
            accs.insert(key.clone(), acc);
        }
        // 3. Warps through shared memory.
        if schedule.crosses_warps() {
            self.across_warps(
                op,
                &schedule,
                &linear,
                &order,
                &mut accs,
                &operand_values,
                &dtypes,
            )?;
        }
        // Results.
        if !self.func.value_type(results[0]).is_tensor() {
            let acc = &accs[&order[0]];
            for (i, &r) in results.iter().enumerate() {
                self.values.insert(r, Lowered::scalar(acc[i]));
            }
            return Ok(());
        }
        let out_linear = self.result_linear(results[0])?;
        let expected = layout.slice(axis as u32).to_linear(&out_linear.shape);
        if expected.as_ref().ok() != Some(&out_linear) {
            return Err(self
                .error("internal: a reduction result must have the slice of its input's layout"));
        }
        let mut per_result: Vec<Vec<Value<'c, 'a>>> = vec![Vec::new(); n];
        for c in out_linear.register_coords() {
            let mut key = c.clone();
            key.insert(axis, 0);
            let acc = accs.get(&key).ok_or_else(|| {
                self.error("internal: the reduction result layout does not match its input")
            })?;
            for i in 0..n {
                per_result[i].push(acc[i]);
            }
        }
        for (i, &r) in results.iter().enumerate() {
            self.values
                .insert(r, Lowered::block(std::mem::take(&mut per_result[i])));
        }
        Ok(())
    }

    /// Stage 3: the warps' partials through shared memory. Each writing lane stores its
    /// partial at `out * P + k` (`k` the compact warp index along the axis, `P` the number
    /// of partials). Few partials per thread (`P · outputs · operands ≤ 4`): every thread
    /// reads all of them and folds them by the warp butterfly. Otherwise Triton's way,
    /// which keeps few values live: thread `t` reads slot `t + i · threads`, the lanes of
    /// a group of `P` run the same butterfly with `shfl.sync.bfly` (masks `P/2 … 1`, own
    /// value on the left), lane 0 of the group writes the result back to `out * P`, and
    /// after a second barrier every thread reads its outputs' results. Both give every
    /// thread warp 0's combine tree ([`ReductionSchedule::tree`]).
    #[allow(clippy::too_many_arguments)]
    fn across_warps(
        &mut self,
        op: OpId,
        schedule: &ReductionSchedule,
        linear: &tritonc_ttgir::LinearLayout,
        order: &[Vec<u64>],
        accs: &mut HashMap<Vec<u64>, Vec<Value<'c, 'a>>>,
        operand_values: &[tritonc_ir::Value],
        dtypes: &[DType],
    ) -> Result<(), LowerError> {
        let b = self.b;
        let axis = schedule.axis;
        let n = dtypes.len();
        let num_out: u64 = linear
            .shape
            .iter()
            .enumerate()
            .filter(|&(d, _)| d != axis)
            .map(|(_, &s)| s)
            .product();
        // Compact warp index along the axis: warp-step bits, lowest first.
        let mut bits: Vec<u32> = schedule.warp_steps.iter().map(|s| s.xor_mask).collect();
        bits.sort_unstable();
        let partials = 1u64 << bits.len();
        let elem_types: Vec<Type<'c>> = operand_values
            .iter()
            .map(|&v| self.elem_type(v))
            .collect::<Result<_, _>>()?;
        let elems = partials * num_out;
        let mut segment = Vec::new();
        let mut total = 0u64;
        for ty in &elem_types {
            segment.push(total as u32);
            total += (elems * storage_bytes(*ty)).next_multiple_of(16);
        }
        self.claim_shared(total)?;
        let (warp, lane) = self.warp_lane()?;
        let mut k: Option<Value<'c, 'a>> = None;
        for (j, &m) in bits.iter().enumerate() {
            let from = m.trailing_zeros() as i32;
            let mc = self.mlir(b.const_i32(m as i32))?;
            let bit = self.mlir(b.binary("arith.andi", warp, mc))?;
            let moved = if from == j as i32 {
                bit
            } else {
                let s = self.mlir(b.const_i32(from - j as i32))?;
                self.mlir(b.binary("arith.shrui", bit, s))?
            };
            k = Some(match k {
                None => moved,
                Some(a) => self.mlir(b.binary("arith.ori", a, moved))?,
            });
        }
        let k = k.expect("invariant: a reduction across warps has at least one warp step");
        let lane_mask: u32 = schedule.lane_steps.iter().map(|s| s.xor_mask).sum();
        let writer = if lane_mask == 0 {
            None
        } else {
            let lm = self.mlir(b.const_i32(lane_mask as i32))?;
            let bits = self.mlir(b.binary("arith.andi", lane, lm))?;
            let zero = self.mlir(b.const_i32(0))?;
            Some(self.mlir(b.cmpi(IntPredicate::Eq, bits, zero))?)
        };
        let strides = row_major_strides(&linear.shape, Some(axis));
        let out_const = |key: &[u64]| -> u64 {
            key.iter()
                .zip(&strides)
                .map(|(&x, s)| x * s.unwrap_or(0))
                .sum()
        };
        let thread_out = self.thread_linear_index(linear, Some(axis))?;
        let p_c = self.mlir(b.const_i32(partials as i32))?;
        // This thread's outputs, scaled to their first slot (`out * P`).
        let out_base = match thread_out {
            None => None,
            Some(t) => Some(self.mlir(b.binary("arith.muli", t, p_c))?),
        };
        let dyn_write = match out_base {
            None => k,
            Some(t) => self.mlir(b.binary("arith.addi", t, k))?,
        };
        for key in order {
            let acc = accs[key].clone();
            let mut slots = Vec::new();
            for i in 0..n {
                slots.push(self.shared_slot(
                    elem_types[i],
                    segment[i],
                    out_const(key) * partials,
                    Some(dyn_write),
                )?);
            }
            match writer {
                None => {
                    for i in 0..n {
                        self.mlir(b.store(acc[i], slots[i]))?;
                    }
                }
                Some(pred) => {
                    let r = b.if_else(
                        pred,
                        &[],
                        |then| {
                            for i in 0..n {
                                then.store(acc[i], slots[i])?;
                            }
                            Ok(Vec::new())
                        },
                        |_| Ok(Vec::new()),
                    );
                    self.mlir(r)?;
                }
            }
        }
        self.mlir(b.barrier())?;
        if partials * order.len() as u64 * n as u64 <= 4 {
            self.fold_all_partials(op, schedule, &bits, order, accs, &elem_types, &segment, out_base)?;
        } else {
            self.fold_partials_by_lanes(op, linear, partials, elems, accs, order, &elem_types, dtypes, &segment, out_base, &out_const)?;
        }
        Ok(())
    }

    /// Every thread reads the `P` partials of each of its outputs and folds them by the
    /// warp butterfly (highest compact bit first, own index on the left).
    #[allow(clippy::too_many_arguments)]
    fn fold_all_partials(
        &mut self,
        op: OpId,
        schedule: &ReductionSchedule,
        bits: &[u32],
        order: &[Vec<u64>],
        accs: &mut HashMap<Vec<u64>, Vec<Value<'c, 'a>>>,
        elem_types: &[Type<'c>],
        segment: &[u32],
        out_base: Option<Value<'c, 'a>>,
    ) -> Result<(), LowerError> {
        let b = self.b;
        let n = elem_types.len();
        let partials = 1u64 << bits.len();
        let strides = row_major_strides(&schedule.shape, Some(schedule.axis));
        // Masks of the compact warp index, in schedule order (highest first).
        let compact: Vec<u64> = schedule
            .warp_steps
            .iter()
            .map(|s| 1u64 << bits.iter().position(|&m| m == s.xor_mask).unwrap_or(0))
            .collect();
        for key in order {
            let out: u64 = key
                .iter()
                .zip(&strides)
                .map(|(&x, s)| x * s.unwrap_or(0))
                .sum();
            let mut vals: HashMap<u64, Vec<Value<'c, 'a>>> = HashMap::new();
            for p in 0..partials {
                let mut v = Vec::new();
                for i in 0..n {
                    let slot = self.shared_slot(
                        elem_types[i],
                        segment[i],
                        out * partials + p,
                        out_base,
                    )?;
                    v.push(self.mlir(b.load(slot, elem_types[i]))?);
                }
                vals.insert(p, v);
            }
            for (s, &m) in compact.iter().enumerate() {
                // Indices still needed: those spanned by the later steps' masks.
                let later = &compact[s + 1..];
                let mut needed = vec![0u64];
                for &lm in later {
                    let more: Vec<u64> = needed.iter().map(|x| x ^ lm).collect();
                    needed.extend(more);
                }
                let mut next = HashMap::new();
                for &idx in &needed {
                    let own = vals[&idx].clone();
                    let partner = vals[&(idx ^ m)].clone();
                    next.insert(idx, self.combine(op, &own, &partner)?);
                }
                vals = next;
            }
            accs.insert(
                key.clone(),
                vals.remove(&0)
                    .expect("invariant: index 0 is always needed"),
            );
        }
        Ok(())
    }

    /// Triton's accumulation of the partials: slot `e = t + i · threads` (of `elems`) in
    /// thread `t`, a lane butterfly over groups of `P` lanes, the group's lane 0 writes the
    /// result to the group's first slot; a barrier; every thread reads its outputs.
    #[allow(clippy::too_many_arguments)]
    fn fold_partials_by_lanes(
        &mut self,
        op: OpId,
        linear: &tritonc_ttgir::LinearLayout,
        partials: u64,
        elems: u64,
        accs: &mut HashMap<Vec<u64>, Vec<Value<'c, 'a>>>,
        order: &[Vec<u64>],
        elem_types: &[Type<'c>],
        dtypes: &[DType],
        segment: &[u32],
        out_base: Option<Value<'c, 'a>>,
        out_const: &dyn Fn(&[u64]) -> u64,
    ) -> Result<(), LowerError> {
        let b = self.b;
        let n = elem_types.len();
        let warp_size = 1u64 << linear.lanes.len();
        let threads = warp_size << linear.warps.len();
        if partials > warp_size || !elems.is_power_of_two() {
            return Err(self.error("internal: a cross-warp reduction of more partials than lanes"));
        }
        let tid = self.mlir(b.thread_id_x())?;
        let (_, lane) = self.warp_lane()?;
        let group_mask = self.mlir(b.const_i32(partials as i32 - 1))?;
        let group_lane = self.mlir(b.binary("arith.andi", lane, group_mask))?;
        let zero = self.mlir(b.const_i32(0))?;
        let group_leader = self.mlir(b.cmpi(IntPredicate::Eq, group_lane, zero))?;
        let rounds = elems.div_ceil(threads);
        for i in 0..rounds {
            // Threads past the end (only when `elems < threads`: both are powers of two)
            // take part in the shuffles on slot 1, which no group leader writes (leaders
            // write slots that are multiples of `P ≥ 2`), and write nothing.
            let e = if i == 0 {
                tid
            } else {
                let c = self.mlir(b.const_i32((i * threads) as i32))?;
                self.mlir(b.binary("arith.addi", tid, c))?
            };
            let (read, in_range) = if (i + 1) * threads <= elems {
                (e, None)
            } else {
                let limit = self.mlir(b.const_i32(elems as i32))?;
                let lt = self.mlir(b.cmpi(IntPredicate::Ult, e, limit))?;
                let one = self.mlir(b.const_i32(1))?;
                (self.mlir(b.select(lt, e, one))?, Some(lt))
            };
            let mut acc = Vec::with_capacity(n);
            let mut slots = Vec::with_capacity(n);
            for i in 0..n {
                let slot = self.shared_slot(elem_types[i], segment[i], 0, Some(read))?;
                acc.push(self.mlir(b.load(slot, elem_types[i]))?);
                slots.push(slot);
            }
            let mut mask = partials / 2;
            while mask > 0 {
                let mut other = Vec::with_capacity(n);
                for i in 0..n {
                    other.push(self.shuffle_xor(acc[i], dtypes[i], mask as u32)?);
                }
                acc = self.combine(op, &acc, &other)?;
                mask /= 2;
            }
            let pred = match in_range {
                None => group_leader,
                Some(lt) => self.mlir(b.binary("arith.andi", group_leader, lt))?,
            };
            let r = b.if_else(
                pred,
                &[],
                |then| {
                    for i in 0..n {
                        then.store(acc[i], slots[i])?;
                    }
                    Ok(Vec::new())
                },
                |_| Ok(Vec::new()),
            );
            self.mlir(r)?;
        }
        self.mlir(b.barrier())?;
        for key in order {
            let mut v = Vec::with_capacity(n);
            for i in 0..n {
                let slot = self.shared_slot(
                    elem_types[i],
                    segment[i],
                    out_const(key) * partials,
                    out_base,
                )?;
                v.push(self.mlir(b.load(slot, elem_types[i]))?);
            }
            accs.insert(key.clone(), v);
        }
        Ok(())
    }
}
