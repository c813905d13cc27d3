//! The order in which a scan combines elements along its axis.
//!
//! An inclusive fp16 scan rounds after every combine, so its bits depend on which partial
//! results are combined. Triton's GPU lowering of `tt.scan` (ScanOpToLLVM) fixes that by
//! the operand's blocked layout; a [`ScanOrder`] is the same computation written out as
//! combines over the axis positions, so the interpreter reproduces it bit for bit.
//!
//! With `spt` elements per thread, `L` lanes and `W` warps along the axis (counting only
//! those holding distinct data), position `p` is `(b, w, l, e)` with
//! `p = b·W·L·spt + w·L·spt + l·spt + e`: `b` numbers the repetitions ("blocks") of the
//! `W·L·spt` tile. Writing `∘` for the combiner (the accumulated value on its left):
//!
//! 1. **In thread**: each thread scans its `spt` elements of every block left to right:
//!    `S[b,w,l,e] = S[b,w,l,e−1] ∘ x[b,w,l,e]`.
//! 2. **Across lanes**: the last element of each thread (its total) is scanned over the
//!    lanes of the warp with Hillis–Steele shuffle-up rounds at distances 1, 2, 4, …:
//!    lane `l ≥ d` takes `acc[l−d] ∘ acc[l]` from the previous round's values. This gives
//!    `T[b,w,l]`, the prefix of the warp's part of block `b` through lane `l`.
//! 3. **Across warps and blocks**: with one warp along the axis, block `b > 0` puts the
//!    running total `A` (through block `b−1`) in front: `A ∘ T[b,l]`. With several warps,
//!    each warp's total `T[b,w,L−1]` goes through shared memory and every warp folds the
//!    totals of the warps before it onto `A`, left to right: `M[b,w] = ((A ∘ T[b,0]) ∘ …)
//!    ∘ T[b,w−1]`, then `M[b,w] ∘ T[b,w,l]`. The other elements of a thread take the
//!    finished total of the lane before them (or `M`/`A` in lane 0):
//!    `prefix ∘ S[b,w,l,e]`. The very first thread of block 0 has no prefix.
//!
//! A reverse scan runs the same computation on the mirrored axis (Triton flips registers
//! and lanes around a forward scan). Checked against Triton 3.6 on an H200
//! (tritonc-spec's `scan_order` test and its fixture recorded by scripts/scan_fixture.py).
//! That is [`ReductionOrderSource::Triton`].
//!
//! tritonc's own back end scans in the same order: `tritonc_ttgir::ScanSchedule`, made
//! from the layout the back end assigns. [`ReductionOrderSource::Backend`], the default,
//! replays that schedule ([`ScanOrder::from_schedule`]), so the interpreter agrees with
//! tritonc's bundles; a test checks that it is [`ScanOrder::blocked`] of the same sizes.

use std::collections::HashMap;

use tritonc_ir::{Function, OpId, OpKind, Value};
use tritonc_ttgir::{coalesced_layout, AxisAnalysis, BlockedLayout, Layout, ScanSchedule};

use crate::order::{AxisDistribution, ReductionOrderSource};

/// A scan as explicit combines. Slots `0..len` hold the inputs; step `k` creates slot
/// `len + k` as `combine(slot[lhs], slot[rhs])`; the result at position `p` is slot
/// `results[p]`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ScanOrder {
    /// The axis length.
    pub len: usize,
    /// `(lhs, rhs)` slot pairs, one new slot each.
    pub steps: Vec<(u32, u32)>,
    /// The slot holding each position's result.
    pub results: Vec<u32>,
    /// Whether the scan runs from the end of the axis.
    pub reverse: bool,
}

/// Builds a [`ScanOrder`] step by step.
struct Builder {
    len: usize,
    steps: Vec<(u32, u32)>,
}

impl Builder {
    fn combine(&mut self, lhs: u32, rhs: u32) -> u32 {
        self.steps.push((lhs, rhs));
        (self.len + self.steps.len() - 1) as u32
    }

    /// `prefix ∘ v`, or `v` without a prefix.
    fn after(&mut self, prefix: Option<u32>, v: u32) -> u32 {
        match prefix {
            Some(p) => self.combine(p, v),
            None => v,
        }
    }
}

impl ScanOrder {
    /// One combine per element in axis order (Triton's `TRITON_INTERPRET=1` order).
    pub fn sequential(len: usize, reverse: bool) -> Self {
        let mut b = Builder {
            len,
            steps: Vec::with_capacity(len.saturating_sub(1)),
        };
        let mut results = Vec::with_capacity(len);
        let mut acc = None;
        for p in 0..len as u32 {
            let r = b.after(acc, p);
            results.push(r);
            acc = Some(r);
        }
        ScanOrder {
            len,
            steps: b.steps,
            results,
            reverse: false,
        }
        .mirrored_if(reverse)
    }

    /// The order of a back-end [`ScanSchedule`], recorded by running the schedule on slot
    /// numbers.
    pub fn from_schedule(schedule: &ScanSchedule) -> Self {
        let len = schedule.len as usize;
        let mut steps: Vec<(u32, u32)> = Vec::new();
        let inputs: Vec<u32> = (0..len as u32).collect();
        let results = schedule.scan(&inputs, |a, b| {
            steps.push((a, b));
            (len + steps.len() - 1) as u32
        });
        ScanOrder {
            len,
            steps,
            results,
            reverse: schedule.reverse,
        }
    }

    /// Triton 3.6's GPU order for a forward (or, mirrored, reverse) scan of `len` elements
    /// distributed as `dist` (see the module docs).
    pub fn blocked(len: usize, dist: AxisDistribution, reverse: bool) -> Self {
        if len <= 1 {
            return Self::sequential(len, reverse);
        }
        // Only lanes and warps with distinct data take part.
        let spt = dist.size_per_thread.clamp(1, len);
        let lanes = dist.threads_per_warp.max(1).min(len.div_ceil(spt));
        let warps = dist.warps_per_cta.max(1).min(len.div_ceil(spt * lanes));
        let tile = spt * lanes * warps;
        if len % tile != 0 {
            // Power-of-two axes always tile; anything else has no GPU counterpart.
            return Self::sequential(len, reverse);
        }
        let blocks = len / tile;
        let pos = |b: usize, w: usize, l: usize, e: usize| {
            (b * tile + w * lanes * spt + l * spt + e) as u32
        };
        let mut bld = Builder {
            len,
            steps: Vec::with_capacity(3 * len),
        };
        let mut results = vec![0u32; len];
        // 1. In-thread prefixes S, indexed like positions.
        let mut s = vec![0u32; len];
        for b in 0..blocks {
            for w in 0..warps {
                for l in 0..lanes {
                    let mut acc = None;
                    for e in 0..spt {
                        let r = bld.after(acc, pos(b, w, l, e));
                        s[pos(b, w, l, e) as usize] = r;
                        acc = Some(r);
                    }
                }
            }
        }
        // 2. Lane scan of the thread totals: t[b][w][l].
        let mut t = vec![vec![vec![0u32; lanes]; warps]; blocks];
        for (b, tb) in t.iter_mut().enumerate() {
            for (w, tw) in tb.iter_mut().enumerate() {
                for (l, tl) in tw.iter_mut().enumerate() {
                    *tl = s[pos(b, w, l, spt - 1) as usize];
                }
                let mut d = 1;
                while d < lanes {
                    let prev = tw.clone();
                    for l in d..lanes {
                        tw[l] = bld.combine(prev[l - d], prev[l]);
                    }
                    d *= 2;
                }
            }
        }
        // 3. Warp and block carries.
        let mut total: Option<u32> = None;
        for (b, tb) in t.iter().enumerate() {
            let mut carry = total;
            for (w, tw) in tb.iter().enumerate() {
                // M[b,w]: the running total before warp w; none for the first thread.
                let prefix = carry;
                let mut last = vec![0u32; lanes];
                for (l, &tl) in tw.iter().enumerate() {
                    last[l] = bld.after(prefix, tl);
                    results[pos(b, w, l, spt - 1) as usize] = last[l];
                }
                for l in 0..lanes {
                    let before = if l > 0 { Some(last[l - 1]) } else { prefix };
                    for e in 0..spt - 1 {
                        let p = pos(b, w, l, e) as usize;
                        results[p] = bld.after(before, s[p]);
                    }
                }
                // The warp totals fold from the shared-memory copies (the lane-scan
                // totals), not from the carried values above.
                if warps > 1 {
                    carry = Some(bld.after(carry, tw[lanes - 1]));
                }
            }
            total = Some(if warps > 1 {
                carry.expect("at least one warp folded")
            } else {
                results[pos(b, 0, lanes - 1, spt - 1) as usize]
            });
        }
        ScanOrder {
            len,
            steps: bld.steps,
            results,
            reverse: false,
        }
        .mirrored_if(reverse)
    }

    /// The same computation on the mirrored axis: position `p` becomes `len − 1 − p`.
    fn mirrored_if(mut self, reverse: bool) -> Self {
        if !reverse {
            return self;
        }
        let n = self.len as u32;
        let map = |s: u32| if s < n { n - 1 - s } else { s };
        for st in &mut self.steps {
            *st = (map(st.0), map(st.1));
        }
        self.results = self.results.iter().rev().map(|&r| map(r)).collect();
        self.reverse = true;
        self
    }

    /// Whether every result is the combine of exactly its prefix (suffix when reverse),
    /// each combine joining adjacent ranges with the earlier-scanned one on the left.
    pub fn is_valid(&self) -> bool {
        // Each slot covers a range [lo, hi] of scan-order indices.
        let idx = |p: usize| if self.reverse { self.len - 1 - p } else { p };
        let mut range: Vec<(usize, usize)> = (0..self.len).map(|p| (idx(p), idx(p))).collect();
        for &(a, b) in &self.steps {
            let (Some(&ra), Some(&rb)) = (range.get(a as usize), range.get(b as usize)) else {
                return false;
            };
            if ra.1 + 1 != rb.0 {
                return false;
            }
            range.push((ra.0, rb.1));
        }
        self.results.len() == self.len
            && self
                .results
                .iter()
                .enumerate()
                .all(|(p, &r)| range.get(r as usize) == Some(&(0, idx(p))))
    }
}

/// The distribution along `axis` of a blocked layout.
fn axis_distribution(b: &BlockedLayout, axis: usize) -> Option<AxisDistribution> {
    Some(AxisDistribution {
        size_per_thread: *b.size_per_thread.get(axis)? as usize,
        threads_per_warp: *b.threads_per_warp.get(axis)? as usize,
        warps_per_cta: *b.warps_per_cta.get(axis)? as usize,
    })
}

/// The coalesced layout of the load whose value reaches `v` through element-wise ops
/// (casts, arithmetic on blocks of one shape), operand 0 first: the layout Triton's
/// layout propagation gives a scan of loaded data, used while the back end's layout
/// assignment does not cover scans.
fn feeding_load_layout(
    func: &Function,
    axis: &AxisAnalysis,
    v: Value,
    num_warps: u32,
) -> Option<BlockedLayout> {
    let shape = crate::data::shape_of(func.value_type(v))?;
    let mut stack = vec![v];
    let mut seen = 0;
    while let Some(v) = stack.pop() {
        seen += 1;
        if seen > 64 {
            return None;
        }
        let op = func.defining_op(v)?;
        let operands = func.op(op).operands();
        if let OpKind::Load { .. } = func.kind(op) {
            let ptr = *operands.first()?;
            let elem_bits = func.value_type(v).dtype()?.size_bytes()? * 8;
            let dims: Vec<u64> = shape.iter().map(|&d| d as u64).collect();
            return Some(coalesced_layout(&axis.get(ptr), &dims, elem_bits, num_warps).layout);
        }
        if func.kind(op).num_regions() > 0 {
            continue;
        }
        // Push in reverse so operand 0 is searched first.
        for &o in operands.iter().rev() {
            if crate::data::shape_of(func.value_type(o)).as_deref() == Some(&shape[..]) {
                stack.push(o);
            }
        }
    }
    None
}

/// The order of every `tt.scan` in `func`, computed once per launch: the back end's
/// [`ScanSchedule`] ([`ReductionOrderSource::Backend`]); Triton 3.6's order for the scan
/// operand's layout ([`ReductionOrderSource::Triton`]: the layout of the back end's
/// assignment, else of the feeding load, else Triton's default layout); or sequential.
pub fn scan_orders_for(
    source: &ReductionOrderSource,
    func: &Function,
    num_warps: u32,
) -> HashMap<OpId, ScanOrder> {
    let scans: Vec<(OpId, Vec<usize>, usize, bool)> = func
        .walk()
        .into_iter()
        .filter_map(|op| {
            let OpKind::Scan { axis, reverse } = func.kind(op) else {
                return None;
            };
            let input = *func.op(op).operands().first()?;
            let shape = crate::data::shape_of(func.value_type(input))?;
            Some((op, shape, *axis as usize, *reverse))
        })
        .collect();
    let assignment = match source {
        ReductionOrderSource::Triton | ReductionOrderSource::Backend if !scans.is_empty() => {
            crate::order::backend_layouts(func, num_warps)
        }
        ReductionOrderSource::BackendFor(target) if !scans.is_empty() => {
            crate::order::backend_layouts_for(func, num_warps, *target)
        }
        _ => None,
    };
    let mut axis: Option<AxisAnalysis> = None;
    let mut out = HashMap::new();
    for (op, shape, dim, reverse) in scans {
        let axis_ref = &mut axis;
        let len = shape[dim];
        let order = match source {
            // The schedule of the back end's layout: what its code combines (a layout
            // it cannot scan is refused there, so any order would do).
            ReductionOrderSource::Backend | ReductionOrderSource::BackendFor(_) => assignment
                .as_ref()
                .and_then(|a| a.scan_schedule(func, op).ok())
                .map(|s| ScanOrder::from_schedule(&s))
                .filter(|o| o.len == len && o.is_valid())
                .unwrap_or_else(|| ScanOrder::sequential(len, reverse)),
            ReductionOrderSource::Triton => {
                let blocked = match assignment
                    .as_ref()
                    .and_then(|a| a.operand_layout(func, op, 0))
                {
                    Some(Layout::Blocked(b)) => b.clone(),
                    _ => {
                        let dims: Vec<u64> = shape.iter().map(|&d| d as u64).collect();
                        let analysis = axis_ref.get_or_insert_with(|| AxisAnalysis::run(func));
                        feeding_load_layout(func, analysis, func.op(op).operands()[0], num_warps)
                            .unwrap_or_else(|| BlockedLayout::default_for(&dims, num_warps))
                    }
                };
                axis_distribution(&blocked, dim)
                    .map(|d| ScanOrder::blocked(len, d, reverse))
                    .filter(ScanOrder::is_valid)
                    .unwrap_or_else(|| ScanOrder::sequential(len, reverse))
            }
            _ => ScanOrder::sequential(len, reverse),
        };
        out.insert(op, order);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Evaluates an order symbolically: each result as a bracketed expression.
    fn exprs(o: &ScanOrder) -> Vec<String> {
        let mut slots: Vec<String> = (0..o.len).map(|i| i.to_string()).collect();
        for &(a, b) in &o.steps {
            let s = format!("({}+{})", slots[a as usize], slots[b as usize]);
            slots.push(s);
        }
        o.results
            .iter()
            .map(|&r| slots[r as usize].clone())
            .collect()
    }

    fn dist(spt: usize, lanes: usize, warps: usize) -> AxisDistribution {
        AxisDistribution {
            size_per_thread: spt,
            threads_per_warp: lanes,
            warps_per_cta: warps,
        }
    }

    #[test]
    fn every_order_is_a_valid_scan() {
        for len in [1, 2, 8, 64, 256, 1024, 4096] {
            for d in [
                dist(1, 32, 4),
                dist(8, 32, 4),
                dist(4, 8, 1),
                dist(2, 2, 2),
                dist(8, 4, 8),
            ] {
                for reverse in [false, true] {
                    let o = ScanOrder::blocked(len, d, reverse);
                    assert!(o.is_valid(), "{len} {d:?} reverse={reverse}");
                }
            }
            assert!(ScanOrder::sequential(len, false).is_valid());
            assert!(ScanOrder::sequential(len, true).is_valid());
        }
    }

    #[test]
    fn blocked_order_is_thread_then_lane_then_warp() {
        // 8 elements: 2 per thread, 2 lanes, 2 warps; one block.
        let e = exprs(&ScanOrder::blocked(8, dist(2, 2, 2), false));
        assert_eq!(e[0], "0");
        assert_eq!(e[1], "(0+1)");
        // Lane 1's total is lane 0's total then its own pair.
        assert_eq!(e[3], "((0+1)+(2+3))");
        // Lane 1's first element takes lane 0's finished total.
        assert_eq!(e[2], "((0+1)+2)");
        // Warp 1 starts from warp 0's total (via shared memory).
        assert_eq!(e[4], "(((0+1)+(2+3))+4)");
        assert_eq!(e[7], "(((0+1)+(2+3))+((4+5)+(6+7)))");
        // Four lanes: Hillis–Steele rounds at distances 1 then 2.
        let e = exprs(&ScanOrder::blocked(4, dist(1, 4, 1), false));
        assert_eq!(e, ["0", "(0+1)", "(0+(1+2))", "((0+1)+(2+3))"]);
        // Two blocks of one thread: the second block continues from the first's total.
        let e = exprs(&ScanOrder::blocked(4, dist(2, 1, 1), false));
        assert_eq!(e, ["0", "(0+1)", "((0+1)+2)", "((0+1)+(2+3))"]);
    }

    #[test]
    fn backend_schedule_is_tritons_blocked_order() {
        for len in [1u64, 2, 8, 256, 4096] {
            for reverse in [false, true] {
                let o = ScanOrder::from_schedule(&ScanSchedule::for_length(len, reverse));
                assert!(o.is_valid(), "{len} reverse={reverse}");
                assert_eq!(exprs(&o), exprs(&ScanOrder::sequential(len as usize, reverse)));
            }
        }
        // The back end's schedule of a blocked axis combines exactly as Triton's order
        // (`blocked`, checked against Triton's GPU results) for the same sizes.
        for (spt, lanes, warps, blocks) in [
            (1, 32, 4, 1),
            (4, 32, 8, 2),
            (4, 8, 1, 4),
            (2, 2, 2, 2),
            (8, 4, 8, 1),
            (1, 1, 4, 8),
        ] {
            for reverse in [false, true] {
                let s = ScanSchedule::for_sizes(spt, lanes, warps, blocks, reverse);
                let len = s.len as usize;
                let d = dist(spt as usize, lanes as usize, warps as usize);
                let o = ScanOrder::from_schedule(&s);
                assert!(o.is_valid());
                assert_eq!(exprs(&o), exprs(&ScanOrder::blocked(len, d, reverse)),
                    "{spt} {lanes} {warps} {blocks} reverse={reverse}");
            }
        }
    }

    #[test]
    fn reverse_mirrors() {
        let e = exprs(&ScanOrder::sequential(3, true));
        assert_eq!(e, ["((2+1)+0)", "(2+1)", "2"]);
        let e = exprs(&ScanOrder::blocked(4, dist(1, 4, 1), true));
        assert_eq!(e, ["((3+2)+(1+0))", "(3+(2+1))", "(3+2)", "3"]);
    }
}
