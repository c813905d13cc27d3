//! `tt.scan` in the order of its [`tritonc_ttgir::ScanSchedule`] (Triton 3.6's): each
//! thread scans its contiguous elements, the thread totals are scanned over the lanes
//! with shuffle-up rounds (Hillis–Steele), and with several warps along the axis each
//! warp's total goes through shared memory, where every thread folds the totals of the
//! warps (and earlier repetitions) before it, left to right. Then each element takes its
//! prefix: the lane before's finished last element, or the warp's prefix in lane 0.
//!
//! Positions are counted in scan order (from the end for `reverse=True`): `e` the element
//! within a thread, `l` the lane, `w` the warp along the axis, `b` the repetition.

// Registers are picked by index; an index reads best there.
#![allow(clippy::needless_range_loop)]

use melior::ir::{r#type::IntegerType, Type, Value};
use tritonc_ir::{DType, OpId, OpKind};
use tritonc_ttgir::{ScanSchedule, ScanStep, ScanUnit};

use super::function::{FunctionLowering, Lowered};
use super::shared::storage_bytes;
use super::LowerError;
use crate::body::IntPredicate;

type Vals<'c, 'a> = Vec<Value<'c, 'a>>;

/// The bits of a scalar type as stored in shared memory (0 when not a plain scalar).
fn storage_bits(ty: Type<'_>) -> u32 {
    match ty.to_string().as_str() {
        "i16" | "f16" | "bf16" => 16,
        "i32" | "f32" => 32,
        "i64" | "f64" => 64,
        _ => 0,
    }
}

/// `bits` (a compact index) spread over the index bits of `steps`.
fn expand(bits: u64, steps: &[ScanStep]) -> u32 {
    steps
        .iter()
        .enumerate()
        .filter(|(i, _)| bits >> i & 1 == 1)
        .map(|(_, s)| s.index_mask)
        .fold(0, |a, m| a | m)
}

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
            .map_err(|e| self.error(format!("unsupported scan layout: {e}")))?;
        let sizes = schedule.sizes();
        let (spt, lanes, warps, blocks) = (sizes.spt, sizes.lanes, sizes.warps, sizes.blocks);
        let low = schedule.unit_steps(ScanUnit::Register, false);
        let high = schedule.unit_steps(ScanUnit::Register, true);
        let lane_steps = schedule.unit_steps(ScanUnit::Lane, false);
        let warp_steps = schedule.unit_steps(ScanUnit::Warp, false);
        // Lane neighbours along the axis must be a fixed lane distance apart.
        let lane_shift = lane_steps.first().map_or(0, |s| s.index_mask.trailing_zeros());
        if lane_steps
            .iter()
            .enumerate()
            .any(|(i, s)| s.index_mask != 1 << (lane_shift + i as u32))
        {
            return Err(self.error("unsupported scan layout: the axis lanes are not contiguous"));
        }
        let axis_regs = low.iter().chain(&high).fold(0u32, |a, s| a | s.index_mask);
        let nregs = linear.num_registers() as usize;
        let keys: Vec<u32> = (0..nregs as u32).filter(|r| r & axis_regs == 0).collect();
        // The register of scan-order element `e` of repetition `b` for `key`.
        let reg = |key: u32, b: u64, e: u64| -> usize {
            let (b, e) = if reverse {
                (blocks - 1 - b, spt - 1 - e)
            } else {
                (b, e)
            };
            (key | expand(e, &low) | expand(b, &high)) as usize
        };
        let x: Vec<Vals<'c, 'a>> = (0..nregs)
            .map(|r| inputs.iter().map(|v| v.reg(r)).collect())
            .collect();
        let b = self.b;

        // Lane and warp indices along the axis, in scan order.
        let (warp, lane) = if lanes > 1 || warps > 1 {
            let (w, l) = self.warp_lane()?;
            (Some(w), Some(l))
        } else {
            (None, None)
        };
        let lane_ax = match lane {
            Some(lane) if lanes > 1 => {
                let sh = self.i32c(lane_shift as i32)?;
                let moved = self.mlir(b.binary("arith.shrui", lane, sh))?;
                let m = self.i32c(lanes as i32 - 1)?;
                let ax = self.mlir(b.binary("arith.andi", moved, m))?;
                Some(if reverse {
                    self.mlir(b.binary("arith.xori", ax, m))?
                } else {
                    ax
                })
            }
            _ => None,
        };
        let warp_ax = match warp {
            Some(warp) if warps > 1 => {
                let mut c: Option<Value<'c, 'a>> = None;
                for (q, st) in warp_steps.iter().enumerate() {
                    let m = self.i32c(st.index_mask as i32)?;
                    let bit = self.mlir(b.binary("arith.andi", warp, m))?;
                    let shift = st.index_mask.trailing_zeros() as i32 - q as i32;
                    let moved = match shift.cmp(&0) {
                        std::cmp::Ordering::Equal => bit,
                        std::cmp::Ordering::Greater => {
                            let s = self.i32c(shift)?;
                            self.mlir(b.binary("arith.shrui", bit, s))?
                        }
                        std::cmp::Ordering::Less => {
                            let s = self.i32c(-shift)?;
                            self.mlir(b.binary("arith.shli", bit, s))?
                        }
                    };
                    c = Some(match c {
                        None => moved,
                        Some(x) => self.mlir(b.binary("arith.ori", x, moved))?,
                    });
                }
                let c = c.expect("invariant: several warps have warp steps");
                Some(if reverse {
                    let m = self.i32c(warps as i32 - 1)?;
                    self.mlir(b.binary("arith.xori", c, m))?
                } else {
                    c
                })
            }
            _ => None,
        };
        let lane_stride = 1i32 << lane_shift;

        // 1. In-thread prefixes, 2. the lane scan of each thread total.
        let mut s: Vec<Option<Vals<'c, 'a>>> = vec![None; nregs];
        let mut t: Vec<Vec<Vals<'c, 'a>>> = Vec::with_capacity(keys.len());
        for &key in &keys {
            let mut tk = Vec::with_capacity(blocks as usize);
            for bb in 0..blocks {
                let mut acc: Option<Vals<'c, 'a>> = None;
                for e in 0..spt {
                    let r = reg(key, bb, e);
                    let v = match &acc {
                        None => x[r].clone(),
                        Some(a) => self.combine(op, a, &x[r])?,
                    };
                    s[r] = Some(v.clone());
                    acc = Some(v);
                }
                let mut tot = acc.expect("invariant: a thread holds at least one element");
                let mut d = 1u64;
                while d < lanes {
                    let incoming = self.shuffle_previous(&tot, &dtypes, d as i32 * lane_stride, reverse)?;
                    let cand = self.combine(op, &incoming, &tot)?;
                    let lane_ax = lane_ax.expect("invariant: several lanes have a lane index");
                    let dc = self.i32c(d as i32)?;
                    let take = self.mlir(b.cmpi(IntPredicate::Sge, lane_ax, dc))?;
                    tot = self.select_all(take, &cand, &tot)?;
                    d *= 2;
                }
                tk.push(tot);
            }
            t.push(tk);
        }

        // 3. Warp totals through shared memory: slot (instance, b, w).
        let mut shared_totals = None;
        if warps > 1 {
            shared_totals = Some(self.store_warp_totals(
                &linear, axis, &keys, &t, &operand_values, blocks, warps, lanes, lane_ax,
                warp_ax.expect("invariant: several warps have a warp index"),
            )?);
        }

        // 4. Prefixes and results, repetition by repetition.
        let mut out: Vec<Option<Vals<'c, 'a>>> = vec![None; nregs];
        for (ki, &key) in keys.iter().enumerate() {
            // The running total through the previous repetition.
            let mut total: Option<Vals<'c, 'a>> = None;
            for bb in 0..blocks {
                // The prefix of this thread's warp, and whether it has one (`None`: always).
                let (prefix, has_prefix): (Option<Vals<'c, 'a>>, Option<Value<'c, 'a>>) =
                    if warps > 1 {
                        let warp_ax = warp_ax.expect("invariant: several warps have a warp index");
                        let mut chain = total.clone();
                        let mut masked: Option<Vals<'c, 'a>> = total.clone();
                        for w in 0..warps {
                            // Read where it is used, as Triton does: the loads of one
                            // repetition are live at once, not all of them.
                            let slots = shared_totals
                                .as_ref()
                                .expect("invariant: several warps stage their totals");
                            let tot = self.load_warp_total(slots, ki, bb * warps + w)?;
                            let next = match &chain {
                                None => tot,
                                Some(c) => self.combine(op, c, &tot)?,
                            };
                            if w + 1 < warps {
                                masked = Some(match masked {
                                    // Warp 0 of the first repetition: no prefix (selected away).
                                    None => next.clone(),
                                    Some(m) => {
                                        let wc = self.i32c(w as i32)?;
                                        let after =
                                            self.mlir(b.cmpi(IntPredicate::Sgt, warp_ax, wc))?;
                                        self.select_all(after, &next, &m)?
                                    }
                                });
                            }
                            chain = Some(next);
                        }
                        let has = if bb == 0 {
                            let zero = self.i32c(0)?;
                            Some(self.mlir(b.cmpi(IntPredicate::Ne, warp_ax, zero))?)
                        } else {
                            None
                        };
                        let prefix = masked;
                        total = chain;
                        (prefix, has)
                    } else {
                        (total.clone(), None)
                    };
                let tl = t[ki][bb as usize].clone();
                // A thread's last element: prefix ∘ its lane-scanned total.
                let last = match &prefix {
                    None => tl.clone(),
                    Some(p) => {
                        let c = self.combine(op, p, &tl)?;
                        match has_prefix {
                            None => c,
                            Some(h) => self.select_all(h, &c, &tl)?,
                        }
                    }
                };
                // The prefix of the thread's other elements: the lane before's last, or
                // the warp's prefix in lane 0.
                let (before, has_before): (Option<Vals<'c, 'a>>, Option<Value<'c, 'a>>) =
                    if lanes > 1 {
                        let lane_ax = lane_ax.expect("invariant: several lanes have a lane index");
                        let prev = self.shuffle_previous(&last, &dtypes, lane_stride, reverse)?;
                        let zero = self.i32c(0)?;
                        let not_first = self.mlir(b.cmpi(IntPredicate::Ne, lane_ax, zero))?;
                        match &prefix {
                            None => (Some(prev), Some(not_first)),
                            Some(p) => {
                                let v = self.select_all(not_first, &prev, p)?;
                                let has = match has_prefix {
                                    None => None,
                                    Some(h) => Some(self.mlir(b.binary("arith.ori", not_first, h))?),
                                };
                                (Some(v), has)
                            }
                        }
                    } else {
                        (prefix.clone(), has_prefix)
                    };
                for e in 0..spt {
                    let r = reg(key, bb, e);
                    let own = s[r].clone().expect("invariant: every register was scanned");
                    out[r] = Some(if e + 1 == spt {
                        last.clone()
                    } else {
                        match &before {
                            None => own,
                            Some(p) => {
                                let c = self.combine(op, p, &own)?;
                                match has_before {
                                    None => c,
                                    Some(h) => self.select_all(h, &c, &own)?,
                                }
                            }
                        }
                    });
                }
                if warps == 1 {
                    // The next repetition starts from the last lane's last element.
                    total = Some(if lanes > 1 {
                        self.from_last_lane(&last, &dtypes, lane_shift, lanes, reverse)?
                    } else {
                        last.clone()
                    });
                }
            }
        }

        let mut per_result: Vec<Vals<'c, 'a>> = vec![Vec::new(); n];
        for regs in out {
            let regs = regs.expect("invariant: every register has a result");
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

    /// `select(cond, a, b)` per operand.
    fn select_all(
        &self,
        cond: Value<'c, 'a>,
        a: &[Value<'c, 'a>],
        b: &[Value<'c, 'a>],
    ) -> Result<Vals<'c, 'a>, LowerError> {
        a.iter()
            .zip(b)
            .map(|(&x, &y)| self.mlir(self.b.select(cond, x, y)))
            .collect()
    }

    /// Each value from the lane `delta` lanes earlier in scan order (`shfl.sync.up`, or
    /// `.down` for a reverse scan); lanes without one get any value.
    fn shuffle_previous(
        &mut self,
        v: &[Value<'c, 'a>],
        dtypes: &[DType],
        delta: i32,
        reverse: bool,
    ) -> Result<Vals<'c, 'a>, LowerError> {
        let b = self.b;
        let off = self.i32c(delta)?;
        if b.is_amd() {
            let (_, lane) = self.warp_lane()?;
            let op = if reverse { "arith.addi" } else { "arith.subi" };
            let src = self.mlir(b.binary(op, lane, off))?;
            let m = self.i32c(b.warp_size() as i32 - 1)?;
            let src = self.mlir(b.binary("arith.andi", src, m))?;
            return v
                .iter()
                .zip(dtypes)
                .map(|(&x, &d)| self.shuffle_with(x, d, &|y| b.shuffle(y, "idx", src)))
                .collect();
        }
        let mode = if reverse { "down" } else { "up" };
        v.iter()
            .zip(dtypes)
            .map(|(&x, &d)| self.shuffle_with(x, d, &|y| b.shuffle(y, mode, off)))
            .collect()
    }

    /// Each value from the last lane along the axis in scan order (same other lane bits).
    fn from_last_lane(
        &mut self,
        v: &[Value<'c, 'a>],
        dtypes: &[DType],
        lane_shift: u32,
        lanes: u64,
        reverse: bool,
    ) -> Result<Vals<'c, 'a>, LowerError> {
        let b = self.b;
        let (_, lane) = self.warp_lane()?;
        let axis_bits = ((lanes as i32) - 1) << lane_shift;
        let keep = self.i32c(!axis_bits)?;
        let others = self.mlir(b.binary("arith.andi", lane, keep))?;
        let src = if reverse {
            others
        } else {
            let last = self.i32c(axis_bits)?;
            self.mlir(b.binary("arith.ori", others, last))?
        };
        v.iter()
            .zip(dtypes)
            .map(|(&x, &d)| self.shuffle_with(x, d, &|y| b.shuffle(y, "idx", src)))
            .collect()
    }

    /// Every warp's last lane (in scan order) writes its totals of each repetition to
    /// shared memory, slot `b · warps + w` of the thread's instance (its coordinates off
    /// the axis), then a barrier.
    #[allow(clippy::too_many_arguments)]
    fn store_warp_totals(
        &mut self,
        linear: &tritonc_ttgir::LinearLayout,
        axis: usize,
        keys: &[u32],
        t: &[Vec<Vals<'c, 'a>>],
        operand_values: &[tritonc_ir::Value],
        blocks: u64,
        warps: u64,
        lanes: u64,
        lane_ax: Option<Value<'c, 'a>>,
        warp_ax: Value<'c, 'a>,
    ) -> Result<WarpTotals<'c, 'a>, LowerError> {
        let b = self.b;
        let n = operand_values.len();
        // Instances: coordinates off the axis.
        let mut inst_shape = linear.shape.clone();
        inst_shape[axis] = 1;
        let mut strides = vec![0u64; inst_shape.len()];
        let mut acc = 1u64;
        for d in (0..inst_shape.len()).rev() {
            strides[d] = acc;
            acc *= inst_shape[d];
        }
        let num_inst = acc;
        let per_inst = blocks * warps;
        let elem_types = operand_values
            .iter()
            .map(|&v| self.elem_type(v))
            .collect::<Result<Vec<Type<'c>>, _>>()?;
        let mut segment = Vec::new();
        let mut bytes = 0u64;
        for ty in &elem_types {
            segment.push(bytes as u32);
            bytes += (per_inst * num_inst * storage_bytes(*ty)).next_multiple_of(16);
        }
        self.claim_shared(bytes)?;
        let offsets = self.thread_offsets(linear)?;
        let mut thread_inst: Option<Value<'c, 'a>> = None;
        for (d, off) in offsets.into_iter().enumerate() {
            let Some(off) = off else { continue };
            if d == axis {
                continue;
            }
            let scaled = self.mlir(b.binary("arith.muli", off, self.i32c((strides[d] * per_inst) as i32)?))?;
            thread_inst = Some(match thread_inst {
                None => scaled,
                Some(x) => self.mlir(b.binary("arith.addi", x, scaled))?,
            });
        }
        let reg_coords = linear.register_coords();
        let inst_const = |k: u32| -> u64 {
            reg_coords[k as usize]
                .iter()
                .enumerate()
                .filter(|&(d, _)| d != axis)
                .map(|(d, &x)| x * strides[d] * per_inst)
                .sum()
        };
        // Writers: the last lane along the axis (all lanes when the axis has one).
        let writer = match lane_ax {
            Some(l) => {
                let last = self.i32c(lanes as i32 - 1)?;
                Some(self.mlir(b.cmpi(IntPredicate::Eq, l, last))?)
            }
            None => None,
        };
        let own = match thread_inst {
            None => warp_ax,
            Some(ti) => self.mlir(b.binary("arith.addi", warp_ax, ti))?,
        };
        for (ki, &key) in keys.iter().enumerate() {
            for bb in 0..blocks {
                let mut slots = Vec::with_capacity(n);
                for j in 0..n {
                    slots.push(self.shared_slot(
                        elem_types[j],
                        segment[j],
                        inst_const(key) + bb * warps,
                        Some(own),
                    )?);
                }
                let vals = t[ki][bb as usize].clone();
                match writer {
                    None => {
                        for j in 0..n {
                            self.mlir(b.store(vals[j], slots[j]))?;
                        }
                    }
                    // `@p st.shared` where it can be written (NVIDIA, 16 to 64 bits), as
                    // Triton: a branch around the stores lets LLVM keep both sides of the
                    // lane scan's last select alive across it.
                    Some(pred) if !b.is_amd()
                        && elem_types.iter().all(|t| matches!(storage_bits(*t), 16 | 32 | 64)) =>
                    {
                        for j in 0..n {
                            self.store_shared_if(pred, slots[j], vals[j], elem_types[j])?;
                        }
                    }
                    Some(pred) => {
                        let r = b.if_else(
                            pred,
                            &[],
                            |then| {
                                for j in 0..n {
                                    then.store(vals[j], slots[j])?;
                                }
                                Ok(Vec::new())
                            },
                            |_| Ok(Vec::new()),
                        );
                        self.mlir(r)?;
                    }
                }
            }
        }
        self.mlir(b.barrier())?;
        Ok(WarpTotals {
            elem_types,
            segment,
            key_base: keys.iter().map(|&k| inst_const(k)).collect(),
            thread_inst,
        })
    }

    /// `@pred st.shared.bN [ptr], value` (N = 16, 32 or 64).
    fn store_shared_if(
        &self,
        pred: Value<'c, 'a>,
        ptr: Value<'c, 'a>,
        value: Value<'c, 'a>,
        ty: Type<'c>,
    ) -> Result<(), LowerError> {
        let b = self.b;
        let bits = storage_bits(ty);
        let word: Type<'c> = IntegerType::new(b.context(), bits).into();
        let word_value = if ty == word {
            value
        } else {
            self.mlir(b.value("llvm.bitcast", &[value], word, &[]))?
        };
        let letter = super::memory::constraint_letter(bits);
        self.inline_asm(
            &format!("@$1 st.shared.b{bits} [ $0 + 0 ], $2;"),
            &format!("r,b,{letter}"),
            &[ptr, pred, word_value],
            None,
        )?;
        Ok(())
    }

    /// The total in slot `slot` of key `ki`'s instance (see [`Self::store_warp_totals`]).
    fn load_warp_total(
        &mut self,
        t: &WarpTotals<'c, 'a>,
        ki: usize,
        slot: u64,
    ) -> Result<Vals<'c, 'a>, LowerError> {
        let mut v = Vec::with_capacity(t.elem_types.len());
        for j in 0..t.elem_types.len() {
            let p = self.shared_slot(
                t.elem_types[j],
                t.segment[j],
                t.key_base[ki] + slot,
                t.thread_inst,
            )?;
            v.push(self.mlir(self.b.load(p, t.elem_types[j]))?);
        }
        Ok(v)
    }
}

/// Where the warp totals of a scan are in shared memory.
struct WarpTotals<'c, 'a> {
    elem_types: Vec<Type<'c>>,
    /// Byte offset of each operand's slots.
    segment: Vec<u32>,
    /// Per key: the first slot of its instance (registers' part).
    key_base: Vec<u64>,
    /// The thread's part of its instance's first slot.
    thread_inst: Option<Value<'c, 'a>>,
}
