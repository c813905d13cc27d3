//! `tt.scan` in the order of its [`tritonc_ttgir::ScanSchedule`]: one step per axis bit,
//! lowest first; register bits inside the thread, lane bits by exchanging block totals
//! with `shfl.sync.bfly`, runs of warp bits through shared memory (every warp writes
//! its block totals, then each thread folds the totals of the warps before it in the
//! same balanced order the per-bit steps would).
//!
//! Per thread, `S[r]` is the running scan of register `r` and `T[k]` the total of the
//! block register `r` is in, keyed by `k = r` with the register bits merged so far
//! cleared (registers of one block share their total).

// Registers are picked by index and key together; an index reads best there.
#![allow(clippy::needless_range_loop)]

use std::collections::BTreeMap;

use melior::ir::Value;
use tritonc_ir::{DType, OpId, OpKind};
use tritonc_ttgir::{LinearLayout, ScanSchedule, ScanStep, ScanUnit};

use super::function::{FunctionLowering, Lowered};
use super::shared::storage_bytes;
use super::LowerError;
use crate::body::IntPredicate;

type Vals<'c, 'a> = Vec<Value<'c, 'a>>;

impl<'l, 'c, 'a> FunctionLowering<'l, 'c, 'a> {
    pub(super) fn lower_scan(&mut self, op: OpId) -> Result<(), LowerError> {
        let OpKind::Scan { axis, reverse } = *self.func.kind(op) else {
            unreachable!("invariant: lower_scan is called on tt.scan")
        };
        let axis = axis as usize;
        let data = self.func.op(op);
        let operand_values = data.operands().to_vec();
        let results = data.results().to_vec();
        let n = operand_values.len();
        let mut inputs = Vec::new();
        let mut dtypes: Vec<DType> = Vec::new();
        for (i, &v) in operand_values.iter().enumerate() {
            inputs.push(self.operand(op, i)?);
            dtypes.push(
                self.func
                    .value_type(v)
                    .dtype()
                    .ok_or_else(|| self.error("scans of pointers are not supported"))?,
            );
        }
        let linear = self.result_linear(results[0])?;
        let schedule = ScanSchedule::from_linear(&linear, axis, reverse)
            .map_err(|e| self.error(e.to_string()))?;
        let nregs = linear.num_registers() as usize;
        let mut s: Vec<Vals<'c, 'a>> = (0..nregs)
            .map(|r| inputs.iter().map(|x| x.reg(r)).collect())
            .collect();
        let mut t: BTreeMap<u32, Vals<'c, 'a>> = (0..nregs as u32)
            .map(|r| (r, s[r as usize].clone()))
            .collect();
        let mut merged = 0u32;
        let steps = schedule.steps.clone();
        let mut i = 0;
        while i < steps.len() {
            let step = steps[i];
            match step.unit {
                ScanUnit::Register => {
                    let bit = step.index_mask;
                    let mut next = BTreeMap::new();
                    let keys: Vec<u32> = t.keys().copied().filter(|k| k & bit == 0).collect();
                    for k in keys {
                        let (lo, hi) = if reverse { (k | bit, k) } else { (k, k | bit) };
                        let (t_lo, t_hi) = (t[&lo].clone(), t[&hi].clone());
                        for r in 0..nregs {
                            if (r as u32) & !merged == hi {
                                s[r] = self.combine(op, &t_lo, &s[r])?;
                            }
                        }
                        next.insert(k, self.combine(op, &t_lo, &t_hi)?);
                    }
                    merged |= bit;
                    t = next;
                    i += 1;
                }
                ScanUnit::Lane => {
                    let (_, lane) = self.warp_lane()?;
                    let upper = self.index_bit_is(lane, step.index_mask, !reverse)?;
                    let keys: Vec<u32> = t.keys().copied().collect();
                    for k in keys {
                        let own = t[&k].clone();
                        let mut partner = Vec::with_capacity(n);
                        for j in 0..n {
                            partner.push(self.shuffle_xor(own[j], dtypes[j], step.index_mask)?);
                        }
                        let mut lower = Vec::with_capacity(n);
                        let mut higher = Vec::with_capacity(n);
                        for j in 0..n {
                            lower.push(self.mlir(self.b.select(upper, partner[j], own[j]))?);
                            higher.push(self.mlir(self.b.select(upper, own[j], partner[j]))?);
                        }
                        for r in 0..nregs {
                            if (r as u32) & !merged == k {
                                let cand = self.combine(op, &partner, &s[r])?;
                                let mut picked = Vec::with_capacity(n);
                                for j in 0..n {
                                    picked.push(self.mlir(self.b.select(upper, cand[j], s[r][j]))?);
                                }
                                s[r] = picked;
                            }
                        }
                        t.insert(k, self.combine(op, &lower, &higher)?);
                    }
                    i += 1;
                }
                ScanUnit::Warp => {
                    let mut end = i;
                    while end < steps.len() && steps[end].unit == ScanUnit::Warp {
                        end += 1;
                    }
                    self.scan_across_warps(
                        op,
                        &steps[i..end],
                        &linear,
                        axis,
                        reverse,
                        merged,
                        &mut s,
                        &mut t,
                        &operand_values,
                    )?;
                    i = end;
                }
            }
        }
        let mut per_result: Vec<Vals<'c, 'a>> = vec![Vec::new(); n];
        for regs in &s {
            for j in 0..n {
                per_result[j].push(regs[j]);
            }
        }
        for (j, &r) in results.iter().enumerate() {
            self.values
                .insert(r, Lowered::block(std::mem::take(&mut per_result[j])));
        }
        Ok(())
    }

    /// `((index & mask) != 0) == set` as an `i1`.
    fn index_bit_is(
        &self,
        index: Value<'c, 'a>,
        mask: u32,
        set: bool,
    ) -> Result<Value<'c, 'a>, LowerError> {
        let b = self.b;
        let m = self.mlir(b.const_i32(mask as i32))?;
        let bits = self.mlir(b.binary("arith.andi", index, m))?;
        let zero = self.mlir(b.const_i32(0))?;
        let pred = if set {
            IntPredicate::Ne
        } else {
            IntPredicate::Eq
        };
        self.mlir(b.cmpi(pred, bits, zero))
    }

    /// A run of consecutive warp steps: every thread writes its block totals to shared
    /// memory; each then folds the totals of the warp groups before it.
    #[allow(clippy::too_many_arguments)]
    fn scan_across_warps(
        &mut self,
        op: OpId,
        steps: &[ScanStep],
        linear: &LinearLayout,
        axis: usize,
        reverse: bool,
        merged: u32,
        s: &mut [Vals<'c, 'a>],
        t: &mut BTreeMap<u32, Vals<'c, 'a>>,
        operand_values: &[tritonc_ir::Value],
    ) -> Result<(), LowerError> {
        let b = self.b;
        let n = operand_values.len();
        let nw = steps.len() as u32;
        let groups = 1u32 << nw;
        let top = steps[steps.len() - 1].axis_offset * 2;
        // Lane and warp bits along the axis must all be merged by the end of this run.
        let thread_axis_bits = linear
            .lanes
            .iter()
            .chain(&linear.warps)
            .any(|base| base[axis] >= top);
        if thread_axis_bits {
            return Err(self.error("unsupported scan layout: lane bits above warp bits"));
        }
        // Instances: coordinates with the axis reduced to the bits above this run.
        let mut inst_shape = linear.shape.clone();
        inst_shape[axis] = (inst_shape[axis] / top).max(1);
        let mut strides = vec![0u64; inst_shape.len()];
        let mut acc = 1u64;
        for d in (0..inst_shape.len()).rev() {
            strides[d] = acc;
            acc *= inst_shape[d];
        }
        let num_inst = acc;
        let elem_types = operand_values
            .iter()
            .map(|&v| self.elem_type(v))
            .collect::<Result<Vec<_>, _>>()?;
        let mut segment = Vec::new();
        let mut total = 0u64;
        for ty in &elem_types {
            segment.push(total as u32);
            total += (u64::from(groups) * num_inst * storage_bytes(*ty)).next_multiple_of(16);
        }
        self.claim_shared(total)?;
        let (warp, _) = self.warp_lane()?;
        // Compact warp index in scan order.
        let mut c: Option<Value<'c, 'a>> = None;
        for (q, st) in steps.iter().enumerate() {
            let bit = self.index_bit_is(warp, st.index_mask, true)?;
            let wide = self.mlir(b.value("arith.extui", &[bit], b.i32_type(), &[]))?;
            let sh = self.mlir(b.const_i32(q as i32))?;
            let moved = self.mlir(b.binary("arith.shli", wide, sh))?;
            c = Some(match c {
                None => moved,
                Some(x) => self.mlir(b.binary("arith.ori", x, moved))?,
            });
        }
        let c = c.expect("invariant: a warp run has at least one step");
        let rev_mask = self.mlir(b.const_i32(groups as i32 - 1))?;
        let c_scan = if reverse {
            self.mlir(b.binary("arith.xori", c, rev_mask))?
        } else {
            c
        };
        // The thread's off-axis instance part.
        let offsets = self.thread_offsets(linear)?;
        let mut thread_inst: Option<Value<'c, 'a>> = None;
        for (d, off) in offsets.into_iter().enumerate() {
            let Some(off) = off else { continue };
            if d == axis {
                continue;
            }
            let scaled = if strides[d] == 1 {
                off
            } else {
                let k = self.mlir(b.const_i32(strides[d] as i32))?;
                self.mlir(b.binary("arith.muli", off, k))?
            };
            thread_inst = Some(match thread_inst {
                None => scaled,
                Some(x) => self.mlir(b.binary("arith.addi", x, scaled))?,
            });
        }
        let reg_coords = linear.register_coords();
        let inst_const = |k: u32| -> u64 {
            let c = &reg_coords[k as usize];
            c.iter()
                .enumerate()
                .map(|(d, &x)| {
                    let x = if d == axis { x / top } else { x };
                    x * strides[d]
                })
                .sum()
        };
        let num_inst_c = self.mlir(b.const_i32(num_inst as i32))?;
        // Slot of group `g` (real compact index, dynamic) for key `k`.
        let slot_index = |this: &mut Self, g: Value<'c, 'a>| -> Result<Value<'c, 'a>, LowerError> {
            let base = this.mlir(this.b.binary("arith.muli", g, num_inst_c))?;
            match thread_inst {
                None => Ok(base),
                Some(ti) => this.mlir(this.b.binary("arith.addi", base, ti)),
            }
        };
        let keys: Vec<u32> = t.keys().copied().collect();
        let own_slot = slot_index(self, c)?;
        for &k in &keys {
            for j in 0..n {
                let p =
                    self.shared_slot(elem_types[j], segment[j], inst_const(k), Some(own_slot))?;
                self.mlir(b.store(t[&k][j], p))?;
            }
        }
        self.mlir(b.barrier())?;
        for &k in &keys {
            let load_group =
                |this: &mut Self, g_scan: Value<'c, 'a>| -> Result<Vals<'c, 'a>, LowerError> {
                    let g = if reverse {
                        this.mlir(this.b.binary("arith.xori", g_scan, rev_mask))?
                    } else {
                        g_scan
                    };
                    let idx = slot_index(this, g)?;
                    let mut v = Vec::with_capacity(n);
                    for j in 0..n {
                        let p =
                            this.shared_slot(elem_types[j], segment[j], inst_const(k), Some(idx))?;
                        v.push(this.mlir(this.b.load(p, elem_types[j]))?);
                    }
                    Ok(v)
                };
            for q in 0..nw {
                // The 2^q groups just before this thread's block at level q.
                let clear = self.mlir(b.const_i32(!((2i32 << q) - 1)))?;
                let base = self.mlir(b.binary("arith.andi", c_scan, clear))?;
                let mut totals = Vec::new();
                for u in 0..(1u32 << q) {
                    let off = self.mlir(b.const_i32(u as i32))?;
                    let g = self.mlir(b.binary("arith.addi", base, off))?;
                    totals.push(load_group(self, g)?);
                }
                let lower = self.balanced(op, totals)?;
                let is_upper = self.index_bit_is(c_scan, 1 << q, true)?;
                for r in 0..s.len() {
                    if (r as u32) & !merged == k {
                        let cand = self.combine(op, &lower, &s[r])?;
                        let mut picked = Vec::with_capacity(n);
                        for j in 0..n {
                            picked.push(self.mlir(b.select(is_upper, cand[j], s[r][j]))?);
                        }
                        s[r] = picked;
                    }
                }
            }
            let mut all = Vec::new();
            for g in 0..groups {
                let gc = self.mlir(b.const_i32(g as i32))?;
                all.push(load_group(self, gc)?);
            }
            let total_k = self.balanced(op, all)?;
            t.insert(k, total_k);
        }
        Ok(())
    }

    /// Folds `values` (a power of two of them, in scan order) as a balanced tree.
    fn balanced(
        &mut self,
        op: OpId,
        mut values: Vec<Vals<'c, 'a>>,
    ) -> Result<Vals<'c, 'a>, LowerError> {
        while values.len() > 1 {
            let mut next = Vec::with_capacity(values.len() / 2);
            for pair in values.chunks(2) {
                next.push(self.combine(op, &pair[0], &pair[1])?);
            }
            values = next;
        }
        Ok(values
            .pop()
            .expect("invariant: at least one value is folded"))
    }
}
