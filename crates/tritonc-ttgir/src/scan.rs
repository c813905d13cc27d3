//! The order in which a scan (`tt.scan`: `tl.cumsum`, `tl.cumprod`,
//! `tl.associative_scan`) combines elements: the contract between GPU codegen and the
//! CPU interpreter.
//!
//! It is Triton 3.6's order (ScanOpToLLVM), which depends on how the layout spreads the
//! scanned axis. The axis bits of a block, lowest first, must be: register bits (the
//! `spt` contiguous elements of a thread), lane bits, warp bits, then register bits
//! again (the `blocks` repetitions of the `spt × lanes × warps` tile) — true of every
//! blocked layout. Position `q` (counted in scan order: from the end for
//! `reverse=True`) is `(b, w, l, e)` with `q = ((b·W + w)·L + l)·spt + e`. Writing `∘`
//! for the combiner, with the earlier-scanned operand on its left:
//!
//! 1. **In thread**: `S[b,w,l,e] = S[b,w,l,e−1] ∘ x[b,w,l,e]`.
//! 2. **Across lanes**: each thread's total `S[b,w,l,spt−1]` is scanned over the lanes
//!    with Hillis–Steele shuffle-up rounds at distances 1, 2, 4, …: lane `l ≥ d` takes
//!    `acc[l−d] ∘ acc[l]` — `T[b,w,l]`.
//! 3. **Across warps and blocks**: the running total `A` (through block `b−1`) goes
//!    first. With one warp along the axis the prefix of block `b` is `A`. With several,
//!    each warp's total `T[b,w,L−1]` goes through shared memory and every thread folds
//!    the totals of the warps before it onto `A`, left to right: `M[b,w] = ((A ∘
//!    T[b,0]) ∘ …) ∘ T[b,w−1]`; `A` for block `b+1` is that chain through all warps.
//!    Then `last[l] = M ∘ T[b,w,l]` (a thread's last element), and each other element
//!    takes the finished `last` of the lane before it (`M` in lane 0): `before ∘
//!    S[b,w,l,e]`. The very first thread of block 0 has no prefix. With one warp, `A`
//!    for block `b+1` is the last lane's `last`.
//!
//! [`ScanSchedule::steps`] says where each axis bit lives (register, lane, warp);
//! [`ScanSchedule::scan`] runs the algorithm on a slice of values for the interpreter.
//! Triton's own results decide it: the interpreter's `ScanOrder::blocked` (checked
//! against Triton 3.6 on a GPU by scripts/scan_fixture.py's fixture) builds the same
//! order from a blocked layout's sizes, and a test compares the two.
//!
//! ```
//! use tritonc_ttgir::ScanSchedule;
//! // 8 elements, one thread: a left-to-right chain.
//! let s = ScanSchedule::for_length(8, false);
//! assert_eq!(s.tree(3).to_string(), "(((0 + 1) + 2) + 3)");
//! let sums = s.scan(&[1, 2, 3, 4, 5, 6, 7, 8], |a, b| a + b);
//! assert_eq!(sums, vec![1, 3, 6, 10, 15, 21, 28, 36]);
//! let rev = ScanSchedule::for_length(4, true).scan(&[1, 2, 3, 4], |a, b| a + b);
//! assert_eq!(rev, vec![10, 9, 7, 4]);
//! // 2 per thread, 2 lanes, 2 warps: warp 1 starts from warp 0's total.
//! let s = ScanSchedule::for_sizes(2, 2, 2, 1, false);
//! assert_eq!(s.tree(4).to_string(), "(((0 + 1) + (2 + 3)) + 4)");
//! ```

use crate::layout::{LayoutError, LinearLayout};
use crate::reduction::CombineTree;

/// Which part of a thread's identity an axis bit of the scanned block lives in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ScanUnit {
    /// A register bit: both positions are in the same thread.
    Register,
    /// A lane bit: the value of the lane before comes by a shuffle.
    Lane,
    /// A warp bit: totals go through shared memory.
    Warp,
}

/// One axis bit of a scan: where it lives.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ScanStep {
    /// `2^j` for axis bit `j`.
    pub axis_offset: u64,
    /// Register, lane or warp.
    pub unit: ScanUnit,
    /// The register, lane or warp index bit (`1 << i`) that moves by `axis_offset`.
    pub index_mask: u32,
}

/// The sizes of the scanned axis as the layout spreads it (see the module docs).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ScanSizes {
    /// Contiguous elements per thread.
    pub spt: u64,
    /// Lanes holding distinct data along the axis.
    pub lanes: u64,
    /// Warps holding distinct data along the axis.
    pub warps: u64,
    /// Repetitions of the `spt × lanes × warps` tile.
    pub blocks: u64,
}

/// How a scan along one axis of a block combines its elements.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ScanSchedule {
    /// The scanned extent `L` (a power of two).
    pub len: u64,
    /// Whether the scan runs from the end (`reverse=True`).
    pub reverse: bool,
    /// One step per axis bit, lowest first: register bits, lane bits, warp bits, then
    /// register bits (empty for a layout-free schedule: one thread holds the axis).
    pub steps: Vec<ScanStep>,
}

impl ScanSchedule {
    /// The schedule of a scan of `len` elements held by one thread: a left-to-right
    /// chain.
    pub fn for_length(len: u64, reverse: bool) -> Self {
        ScanSchedule {
            len,
            reverse,
            steps: Vec::new(),
        }
    }

    /// The schedule of a blocked layout's axis with these sizes (powers of two), its
    /// register, lane and warp bits numbered from 0 in axis order.
    pub fn for_sizes(spt: u64, lanes: u64, warps: u64, blocks: u64, reverse: bool) -> Self {
        let mut steps = Vec::new();
        let mut off = 1u64;
        let mut push = |count: u64, unit: ScanUnit, first: u32| {
            for i in 0..count.trailing_zeros() {
                steps.push(ScanStep {
                    axis_offset: off,
                    unit,
                    index_mask: 1 << (first + i),
                });
                off *= 2;
            }
        };
        push(spt, ScanUnit::Register, 0);
        push(lanes, ScanUnit::Lane, 0);
        push(warps, ScanUnit::Warp, 0);
        push(blocks, ScanUnit::Register, spt.trailing_zeros());
        ScanSchedule {
            len: spt * lanes * warps * blocks,
            reverse,
            steps,
        }
    }

    /// The schedule of a scan along `axis` of a block in `linear`. Every axis bit must be
    /// one register, lane or warp bit, in the order register, lane, warp, register (true
    /// of blocked layouts).
    pub fn from_linear(
        linear: &LinearLayout,
        axis: usize,
        reverse: bool,
    ) -> Result<Self, LayoutError> {
        let len = *linear
            .shape
            .get(axis)
            .ok_or_else(|| LayoutError::Malformed(format!("no axis {axis}")))?;
        let mut steps = Vec::new();
        let find = |bases: &[Vec<u64>], off: u64| {
            bases.iter().position(|b| {
                b[axis] == off && b.iter().enumerate().all(|(d, &x)| d == axis || x == 0)
            })
        };
        let mut off = 1u64;
        while off < len {
            let step = if let Some(i) = find(&linear.registers, off) {
                (ScanUnit::Register, i)
            } else if let Some(i) = find(&linear.lanes, off) {
                (ScanUnit::Lane, i)
            } else if let Some(i) = find(&linear.warps, off) {
                (ScanUnit::Warp, i)
            } else {
                return Err(LayoutError::Malformed(format!(
                    "axis offset {off} of the scanned dim is not one register, lane or warp bit"
                )));
            };
            steps.push(ScanStep {
                axis_offset: off,
                unit: step.0,
                index_mask: 1 << step.1,
            });
            off *= 2;
        }
        // Bases mixing the axis with other dims would break the per-bit exchange.
        let mixed = [&linear.registers, &linear.lanes, &linear.warps]
            .iter()
            .flat_map(|l| l.iter())
            .any(|b| b[axis] != 0 && b.iter().enumerate().any(|(d, &x)| d != axis && x != 0));
        if mixed {
            return Err(LayoutError::Malformed(
                "a layout basis moves along the scanned dim and another at once".into(),
            ));
        }
        // Register, lane, warp, register: the rank of each unit may only grow.
        let rank = |s: &ScanStep, seen_thread: bool| match s.unit {
            ScanUnit::Register if !seen_thread => 0,
            ScanUnit::Lane => 1,
            ScanUnit::Warp => 2,
            ScanUnit::Register => 3,
        };
        let mut seen_thread = false;
        let mut last = 0;
        for s in &steps {
            let r = rank(s, seen_thread);
            seen_thread |= s.unit != ScanUnit::Register;
            if r < last {
                return Err(LayoutError::Malformed(
                    "the scanned dim's lane and warp bits are not in register, lane, warp order"
                        .into(),
                ));
            }
            last = r;
        }
        Ok(ScanSchedule {
            len,
            reverse,
            steps,
        })
    }

    /// The sizes of the axis: `spt`, `lanes`, `warps`, `blocks` (their product is `len`).
    pub fn sizes(&self) -> ScanSizes {
        if self.steps.is_empty() {
            return ScanSizes {
                spt: self.len.max(1),
                lanes: 1,
                warps: 1,
                blocks: 1,
            };
        }
        let mut sizes = ScanSizes {
            spt: 1,
            lanes: 1,
            warps: 1,
            blocks: 1,
        };
        let mut seen_thread = false;
        for s in &self.steps {
            match s.unit {
                ScanUnit::Register if !seen_thread => sizes.spt *= 2,
                ScanUnit::Register => sizes.blocks *= 2,
                ScanUnit::Lane => {
                    seen_thread = true;
                    sizes.lanes *= 2;
                }
                ScanUnit::Warp => {
                    seen_thread = true;
                    sizes.warps *= 2;
                }
            }
        }
        sizes
    }

    /// The steps of one unit, in axis order; for registers, `high` picks the repetition
    /// bits instead of the in-thread ones.
    pub fn unit_steps(&self, unit: ScanUnit, high: bool) -> Vec<ScanStep> {
        let mut seen_thread = false;
        let mut out = Vec::new();
        for s in &self.steps {
            let is_high = seen_thread;
            seen_thread |= s.unit != ScanUnit::Register;
            if s.unit == unit && (unit != ScanUnit::Register || is_high == high) {
                out.push(*s);
            }
        }
        out
    }

    fn real(&self, q: u64) -> u64 {
        if self.reverse {
            q ^ (self.len - 1)
        } else {
            q
        }
    }

    /// The combination tree of the result at position `p` (leaves are positions).
    pub fn tree(&self, p: u64) -> CombineTree {
        let leaves: Vec<CombineTree> = (0..self.len).map(CombineTree::Leaf).collect();
        self.scan(&leaves, |a, b| CombineTree::Combine(Box::new(a), Box::new(b)))
            .swap_remove(p as usize)
    }

    /// Scans `values` (positions `0..len` in order) in this schedule's order.
    pub fn scan<T: Clone>(&self, values: &[T], mut combine: impl FnMut(T, T) -> T) -> Vec<T> {
        let n = values.len();
        if n == 0 {
            return Vec::new();
        }
        let ScanSizes {
            spt,
            lanes,
            warps,
            blocks,
        } = self.sizes();
        let (spt, lanes, warps, blocks) =
            (spt as usize, lanes as usize, warps as usize, blocks as usize);
        let pos = |b: usize, w: usize, l: usize, e: usize| ((b * warps + w) * lanes + l) * spt + e;
        // In scan order.
        let x: Vec<T> = (0..n as u64)
            .map(|q| values[self.real(q) as usize].clone())
            .collect();
        let after = |combine: &mut dyn FnMut(T, T) -> T, prefix: &Option<T>, v: T| match prefix {
            Some(p) => combine(p.clone(), v),
            None => v,
        };
        let mut out: Vec<Option<T>> = vec![None; n];
        let mut total: Option<T> = None;
        for b in 0..blocks {
            // 1. In-thread prefixes; 2. the lane scan of the thread totals.
            let mut s: Vec<Vec<Vec<T>>> = Vec::with_capacity(warps);
            let mut t: Vec<Vec<T>> = Vec::with_capacity(warps);
            for w in 0..warps {
                let mut sw = Vec::with_capacity(lanes);
                for l in 0..lanes {
                    let mut acc: Option<T> = None;
                    let mut sl = Vec::with_capacity(spt);
                    for e in 0..spt {
                        let r = after(&mut combine, &acc, x[pos(b, w, l, e)].clone());
                        sl.push(r.clone());
                        acc = Some(r);
                    }
                    sw.push(sl);
                }
                let mut tw: Vec<T> = sw.iter().map(|sl| sl[spt - 1].clone()).collect();
                let mut d = 1;
                while d < lanes {
                    let prev = tw.clone();
                    for l in d..lanes {
                        tw[l] = combine(prev[l - d].clone(), prev[l].clone());
                    }
                    d *= 2;
                }
                s.push(sw);
                t.push(tw);
            }
            // 3. Warp and block carries.
            let mut carry = total.clone();
            for w in 0..warps {
                let prefix = carry.clone();
                let mut last: Vec<T> = Vec::with_capacity(lanes);
                for l in 0..lanes {
                    let v = after(&mut combine, &prefix, t[w][l].clone());
                    out[pos(b, w, l, spt - 1)] = Some(v.clone());
                    last.push(v);
                }
                for l in 0..lanes {
                    let before = if l > 0 {
                        Some(last[l - 1].clone())
                    } else {
                        prefix.clone()
                    };
                    for e in 0..spt - 1 {
                        out[pos(b, w, l, e)] =
                            Some(after(&mut combine, &before, s[w][l][e].clone()));
                    }
                }
                // The warp totals fold from their shared-memory copies (the lane-scan
                // totals), not from the carried values above.
                if warps > 1 {
                    carry = Some(after(&mut combine, &carry, t[w][lanes - 1].clone()));
                }
            }
            total = if warps > 1 {
                carry
            } else {
                out[pos(b, 0, lanes - 1, spt - 1)].clone()
            };
        }
        let mut result: Vec<Option<T>> = vec![None; n];
        for (q, v) in out.into_iter().enumerate() {
            result[self.real(q as u64) as usize] = v;
        }
        result
            .into_iter()
            .map(|v| v.expect("invariant: every position gets a result"))
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_thread_is_a_chain() {
        let s = ScanSchedule::for_length(4, false);
        assert_eq!(s.tree(0).to_string(), "0");
        assert_eq!(s.tree(3).to_string(), "(((0 + 1) + 2) + 3)");
        let r = ScanSchedule::for_length(4, true);
        assert_eq!(r.tree(3).to_string(), "3");
        assert_eq!(r.tree(0).to_string(), "(((3 + 2) + 1) + 0)");
    }

    #[test]
    fn lanes_scan_by_hillis_steele_and_warps_fold_left_to_right() {
        // 1 per thread, 4 lanes: distances 1 then 2.
        let s = ScanSchedule::for_sizes(1, 4, 1, 1, false);
        assert_eq!(s.tree(2).to_string(), "(0 + (1 + 2))");
        assert_eq!(s.tree(3).to_string(), "((0 + 1) + (2 + 3))");
        // 1 per thread, 1 lane, 4 warps: the warp totals fold as a chain.
        let s = ScanSchedule::for_sizes(1, 1, 4, 1, false);
        assert_eq!(s.tree(3).to_string(), "(((0 + 1) + 2) + 3)");
        // Two blocks of one warp of 2 lanes × 2: block 1 starts from block 0's last.
        let s = ScanSchedule::for_sizes(2, 2, 1, 2, false);
        assert_eq!(s.tree(4).to_string(), "(((0 + 1) + (2 + 3)) + 4)");
        assert_eq!(
            s.tree(7).to_string(),
            "(((0 + 1) + (2 + 3)) + ((4 + 5) + (6 + 7)))"
        );
        // Lane 1's first element takes lane 0's finished last element.
        assert_eq!(s.tree(6).to_string(), "((((0 + 1) + (2 + 3)) + (4 + 5)) + 6)");
    }

    #[test]
    fn scan_matches_the_trees_and_sums() {
        for reverse in [false, true] {
            let s = ScanSchedule::for_sizes(2, 4, 2, 2, reverse);
            assert_eq!(s.len, 32);
            let strings: Vec<String> = (0..32).map(|k| k.to_string()).collect();
            let got = s.scan(&strings, |a, b| format!("({a} + {b})"));
            for p in 0..32 {
                assert_eq!(got[p as usize], s.tree(p).to_string());
            }
            let ints: Vec<u64> = (1..=32).collect();
            let sums = s.scan(&ints, |a, b| a + b);
            for p in 0..32usize {
                let want: u64 = if reverse {
                    ints[p..].iter().sum()
                } else {
                    ints[..=p].iter().sum()
                };
                assert_eq!(sums[p], want, "{p} reverse={reverse}");
            }
        }
    }

    #[test]
    fn non_commutative_combine_keeps_scan_order() {
        let s = ScanSchedule::for_sizes(1, 2, 2, 2, false);
        let words: Vec<String> = "abcdefgh".chars().map(String::from).collect();
        let got = s.scan(&words, |a, b| a + &b);
        assert_eq!(got[7], "abcdefgh");
        assert_eq!(got[4], "abcde");
        let r = ScanSchedule::for_sizes(1, 2, 2, 2, true).scan(&words, |a, b| a + &b);
        assert_eq!(r[0], "hgfedcba");
        assert_eq!(r[5], "hgf");
    }

    #[test]
    fn sizes_follow_the_unit_order() {
        let s = ScanSchedule::for_sizes(4, 32, 2, 4, false);
        assert_eq!(
            s.sizes(),
            ScanSizes {
                spt: 4,
                lanes: 32,
                warps: 2,
                blocks: 4
            }
        );
        assert_eq!(s.unit_steps(ScanUnit::Register, true).len(), 2);
        assert_eq!(s.unit_steps(ScanUnit::Register, false).len(), 2);
        assert_eq!(s.unit_steps(ScanUnit::Register, true)[0].index_mask, 4);
    }
}
