//! The order in which a scan (`tt.scan`: `tl.cumsum`, `tl.cumprod`,
//! `tl.associative_scan`) combines elements: the contract between GPU codegen and the
//! CPU interpreter.
//!
//! A scan of length `L = 2^n` along `axis` runs one step per *axis bit* `j = 0, 1, …,
//! n-1`, lowest first. Before step `j` every position `p` holds `S[p]`, the scan of its
//! aligned block of `2^j` positions up to `p`, and `T[p]`, the total of that block.
//! Step `j` merges each *lower* block (bit `j` of `q` clear) with the *upper* block
//! next to it (bit set):
//!
//! ```text
//! upper positions:  S[p] = combine(T_lower, S[p])
//! every position:   T[p] = combine(T_lower, T_upper)
//! ```
//!
//! where `q = p` for a forward scan and `q = p XOR (L-1)` (the position counted from the
//! end) for `reverse=True`, so "lower" always means "earlier in scan order" and the
//! earlier operand is always on the left. Initially `S[p] = T[p] = x[p]`.
//!
//! The resulting combination tree of position `p` ([`ScanSchedule::tree`]) is
//! `combine(T_{j_k}, … combine(T_{j_1}, x[p]))` over the set bits `j_1 < … < j_k` of
//! `q`, where `T_j` is the total of the `2^j` positions just before `p`'s block at
//! level `j`, itself a balanced binary tree (`combine(left half, right half)`). The tree
//! does not depend on the layout: a step runs inside a thread when the axis bit is a
//! register bit, as a `shfl.sync.bfly` exchange of `T` when it is a lane bit, and through
//! shared memory when it is a warp bit ([`ScanSchedule::steps`] says which), but the
//! values combined and their order are the same. [`ScanSchedule::scan`] runs the
//! algorithm on a slice of values for the interpreter.
//!
//! ```
//! use tritonc_ttgir::ScanSchedule;
//! let s = ScanSchedule::for_length(8, false);
//! assert_eq!(s.tree(5).to_string(), "(((0 + 1) + (2 + 3)) + (4 + 5))");
//! let sums = s.scan(&[1, 2, 3, 4, 5, 6, 7, 8], |a, b| a + b);
//! assert_eq!(sums, vec![1, 3, 6, 10, 15, 21, 28, 36]);
//! let rev = ScanSchedule::for_length(4, true).scan(&[1, 2, 3, 4], |a, b| a + b);
//! assert_eq!(rev, vec![10, 9, 7, 4]);
//! ```

use crate::layout::{LayoutError, LinearLayout};
use crate::reduction::CombineTree;

/// Which part of a thread's identity an axis bit of the scanned block lives in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ScanUnit {
    /// A register bit: both blocks are in the same thread.
    Register,
    /// A lane bit: the partner block's total comes by `shfl.sync.bfly`.
    Lane,
    /// A warp bit: totals go through shared memory.
    Warp,
}

/// One step of a scan: the axis bit it merges and where that bit lives.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ScanStep {
    /// `2^j` for axis bit `j`.
    pub axis_offset: u64,
    /// Register, lane or warp.
    pub unit: ScanUnit,
    /// The register, lane or warp index bit (`1 << i`) that moves by `axis_offset`.
    pub index_mask: u32,
}

/// How a scan along one axis of a block combines its elements.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ScanSchedule {
    /// The scanned extent `L` (a power of two).
    pub len: u64,
    /// Whether the scan runs from the end (`reverse=True`).
    pub reverse: bool,
    /// The steps, lowest axis bit first (empty for a layout-free schedule).
    pub steps: Vec<ScanStep>,
}

impl ScanSchedule {
    /// The schedule of a scan of `len` elements, without layout facts (the combination
    /// order is the same for every layout).
    pub fn for_length(len: u64, reverse: bool) -> Self {
        ScanSchedule {
            len,
            reverse,
            steps: Vec::new(),
        }
    }

    /// The schedule of a scan along `axis` of a block in `linear`. Every axis bit must be
    /// one register, lane or warp bit (true of blocked layouts).
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
        Ok(ScanSchedule {
            len,
            reverse,
            steps,
        })
    }

    fn real(&self, q: u64) -> u64 {
        if self.reverse {
            q ^ (self.len - 1)
        } else {
            q
        }
    }

    /// The balanced tree over the scan-order positions `[start, start + size)`.
    fn block_total(&self, start: u64, size: u64) -> CombineTree {
        if size == 1 {
            return CombineTree::Leaf(self.real(start));
        }
        let half = size / 2;
        CombineTree::Combine(
            Box::new(self.block_total(start, half)),
            Box::new(self.block_total(start + half, half)),
        )
    }

    /// The combination tree of the result at position `p` (leaves are positions).
    pub fn tree(&self, p: u64) -> CombineTree {
        let q = self.real(p);
        let mut s = CombineTree::Leaf(p);
        let mut j = 0;
        while (1u64 << j) < self.len {
            let size = 1u64 << j;
            if q & size != 0 {
                let lower = (q >> (j + 1)) << (j + 1);
                s = CombineTree::Combine(Box::new(self.block_total(lower, size)), Box::new(s));
            }
            j += 1;
        }
        s
    }

    /// Scans `values` (positions `0..len` in order) in this schedule's order.
    pub fn scan<T: Clone>(&self, values: &[T], mut combine: impl FnMut(T, T) -> T) -> Vec<T> {
        let n = values.len();
        // In scan order.
        let mut s: Vec<T> = (0..n as u64)
            .map(|q| values[self.real(q) as usize].clone())
            .collect();
        let mut t = s.clone();
        let mut size = 1usize;
        while size < n {
            let mut next_t = t.clone();
            for q in 0..n {
                let lower = q & !size;
                let upper = q | size;
                next_t[q] = combine(t[lower].clone(), t[upper].clone());
                if q & size != 0 {
                    s[q] = combine(t[lower].clone(), s[q].clone());
                }
            }
            t = next_t;
            size *= 2;
        }
        let mut out = s.clone();
        for q in 0..n {
            out[self.real(q as u64) as usize] = s[q].clone();
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn trees_follow_the_bitwise_merge() {
        let s = ScanSchedule::for_length(8, false);
        assert_eq!(s.tree(0).to_string(), "0");
        assert_eq!(s.tree(1).to_string(), "(0 + 1)");
        assert_eq!(s.tree(3).to_string(), "((0 + 1) + (2 + 3))");
        assert_eq!(
            s.tree(6).to_string(),
            "(((0 + 1) + (2 + 3)) + ((4 + 5) + 6))"
        );
        let r = ScanSchedule::for_length(4, true);
        assert_eq!(r.tree(3).to_string(), "3");
        assert_eq!(r.tree(0).to_string(), "((3 + 2) + (1 + 0))");
    }

    #[test]
    fn scan_matches_the_trees() {
        for reverse in [false, true] {
            let s = ScanSchedule::for_length(16, reverse);
            let strings: Vec<String> = (0..16).map(|k| k.to_string()).collect();
            let got = s.scan(&strings, |a, b| format!("({a} + {b})"));
            for p in 0..16 {
                assert_eq!(got[p as usize], s.tree(p).to_string());
            }
        }
    }

    #[test]
    fn non_commutative_combine_keeps_scan_order() {
        let s = ScanSchedule::for_length(8, false);
        let words: Vec<String> = "abcdefgh".chars().map(String::from).collect();
        let got = s.scan(&words, |a, b| a + &b);
        assert_eq!(got[7], "abcdefgh");
        assert_eq!(got[4], "abcde");
        let r = ScanSchedule::for_length(8, true).scan(&words, |a, b| a + &b);
        assert_eq!(r[0], "hgfedcba");
        assert_eq!(r[5], "hgf");
    }
}
