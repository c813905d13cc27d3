//! Triton's `#ttg.amd_mfma` encoding: the accumulator layout of AMD's matrix-core `v_mfma_*`
//! instructions (CDNA2 `gfx90a`: version 2; CDNA3 `gfx942`: version 3), and the layouts of
//! a dot's operands under it (Triton's `#ttg.dot_op<{opIdx, parent = #mma, kWidth}>`).
//!
//! One wave (64 lanes) computes `instrShape = [mDim, nDim, kDim]` tiles (32×32 or 16×16) of
//! the result per instruction. With `isTransposed = true` (what Triton 3.6 picks for every
//! dot that is not the head of a chain) the instruction is issued as `Bᵀ·Aᵀ`, so each lane
//! holds four N-consecutive elements of one row:
//! - registers: `[0, 1]`, `[0, 2]`, then (32×32 only) `[0, 8]`, `[0, 16]`;
//! - lanes: `[1, 0]` … `[mDim/2, 0]` (a row each), then `[0, 4]` (and `[0, 8]` for 16×16);
//! - warps: along N first (`[0, nDim]`, …), then along M (`[mDim, 0]`, …);
//! - repetitions: N first (`[0, nDim·wn]`, …), then M (`[mDim·wm, 0]`, …).
//!
//! Without the transposition the roles of M and N swap (registers along M, lanes along N).
//!
//! An operand holds `kWidth` K-consecutive elements per lane and instruction (the A
//! register of `v_mfma`): A (`[M, K]`) has registers `[0, 1]` … `[0, kWidth/2]`, lanes
//! `[1, 0]` … `[mDim/2, 0]` then `[0, kWidth]`, `[0, 2·kWidth]`, … (the `64 / mDim` lane
//! groups cover `kDim = kWidth · 64 / mDim`), warps as the accumulator's with the N warps
//! replicating (zero bases), then repetitions along K (`[0, kDim]`, …) and along M
//! (`[mDim·wm, 0]`, …). B (`[K, N]`) is the mirror image. These are the bases Triton 3.6's
//! `to_linear_layout` gives (tests/fixtures/triton_amd_dot, by
//! scripts/triton_amd_dot_reference.py; the tests below and crates/tritonc-ir/tests).

use std::fmt;

use crate::layout::{LayoutError, LinearLayout};

/// The MFMA accumulator layout (Triton's `#ttg.amd_mfma`).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct MfmaLayout {
    /// 2 (CDNA2, gfx90a) or 3 (CDNA3, gfx942).
    pub version: u32,
    /// Warps of the CTA along M and N.
    pub warps_per_cta: Vec<u32>,
    /// `[mDim, nDim, kDim]` of the instruction.
    pub instr_shape: Vec<u32>,
    /// Whether the instruction is issued as `Bᵀ·Aᵀ` (each lane holds a row's N-run).
    pub is_transposed: bool,
}

impl MfmaLayout {
    /// Warps of the CTA.
    pub fn num_warps(&self) -> u32 {
        self.warps_per_cta.iter().product()
    }

    /// The rank (2).
    pub fn rank(&self) -> usize {
        self.warps_per_cta.len()
    }

    /// `mDim` (= `nDim`: 32 or 16).
    pub fn non_k_dim(&self) -> u64 {
        u64::from(self.instr_shape[0])
    }

    /// `kDim`: the elements along K one instruction takes.
    pub fn k_dim(&self) -> u64 {
        u64::from(self.instr_shape[2])
    }

    /// The `kWidth` of this layout's operands: K-consecutive elements per lane and
    /// instruction (`kDim · mDim / 64`).
    pub fn k_width(&self) -> u64 {
        self.k_dim() * self.non_k_dim() / 64
    }

    fn check(&self) -> Result<(), LayoutError> {
        if !matches!(self.version, 2 | 3) {
            return Err(LayoutError::Malformed(format!(
                "amd_mfma version {} is not supported (2 or 3)",
                self.version
            )));
        }
        let [m, n, k] = self.instr_shape[..] else {
            return Err(LayoutError::Malformed(
                "an amd_mfma instrShape has three entries".into(),
            ));
        };
        if !((m == 32 && n == 32) || (m == 16 && n == 16))
            || k == 0
            || !k.is_power_of_two()
            || u64::from(k) * u64::from(m) % 64 != 0
        {
            return Err(LayoutError::Malformed(format!(
                "amd_mfma instrShape [{m}, {n}, {k}] is not a 32x32 or 16x16 instruction"
            )));
        }
        if self.warps_per_cta.len() != 2
            || self
                .warps_per_cta
                .iter()
                .any(|&w| w == 0 || !w.is_power_of_two())
        {
            return Err(LayoutError::Malformed(
                "an amd_mfma layout is rank 2 with warps in powers of two".into(),
            ));
        }
        Ok(())
    }

    fn check_shape(&self, shape: &[u64]) -> Result<(), LayoutError> {
        self.check()?;
        if shape.len() != 2 {
            return Err(LayoutError::RankMismatch {
                layout: 2,
                shape: shape.len(),
            });
        }
        match shape.iter().find(|d| !d.is_power_of_two()) {
            Some(&d) => Err(LayoutError::NotPowerOfTwo(d)),
            None => Ok(()),
        }
    }

    /// Bases `[v, 0]` (dim 0) or `[0, v]` (dim 1) for `v` = `from`, `2·from`, … below `to`.
    fn run(dim: usize, from: u64, to: u64, out: &mut Vec<Vec<u64>>) -> u64 {
        let mut v = from;
        while v < to {
            let mut b = vec![0, 0];
            b[dim] = v;
            out.push(b);
            v *= 2;
        }
        v
    }

    /// The warp bases: N first, then M; `zero` dims (an operand's other dim) replicate.
    fn warp_bases(&self, zero_m: bool, zero_n: bool) -> Vec<Vec<u64>> {
        let d = self.non_k_dim();
        let (wm, wn) = (
            u64::from(self.warps_per_cta[0]),
            u64::from(self.warps_per_cta[1]),
        );
        let mut warps = Vec::new();
        let mut n = Vec::new();
        Self::run(1, d, d * wn, &mut n);
        let mut m = Vec::new();
        Self::run(0, d, d * wm, &mut m);
        for (bases, zero) in [(n, zero_n), (m, zero_m)] {
            for b in bases {
                warps.push(if zero { vec![0, 0] } else { b });
            }
        }
        warps
    }

    /// The linear form of the accumulator on `shape` (`[M, N]`).
    pub fn to_linear(&self, shape: &[u64]) -> Result<LinearLayout, LayoutError> {
        self.check_shape(shape)?;
        let d = self.non_k_dim();
        let (wm, wn) = (
            u64::from(self.warps_per_cta[0]),
            u64::from(self.warps_per_cta[1]),
        );
        // `row` is the dim a lane's first bits run along, `run` the dim its registers do.
        let (row, run) = if self.is_transposed { (0, 1) } else { (1, 0) };
        let mut registers = Vec::new();
        let mut lanes = Vec::new();
        Self::run(run, 1, 4, &mut registers);
        Self::run(row, 1, d, &mut lanes);
        // The 64 / d lane groups, then (32x32) the register groups, along `run` from 4.
        let groups = 64 / d;
        let after_lanes = Self::run(run, 4, 4 * groups, &mut lanes);
        Self::run(run, after_lanes, d, &mut registers);
        let warps = self.warp_bases(false, false);
        Self::run(1, d * wn, shape[1], &mut registers);
        Self::run(0, d * wm, shape[0], &mut registers);
        Ok(LinearLayout::clamped(shape, registers, lanes, warps))
    }

    /// The linear form of operand `op_idx` (0: A as `[M, K]`, 1: B as `[K, N]`) under this
    /// layout (`#ttg.dot_op<{opIdx = op_idx, parent = self, kWidth = k_width}>`) on `shape`.
    pub fn operand_linear(
        &self,
        op_idx: usize,
        k_width: u64,
        shape: &[u64],
    ) -> Result<LinearLayout, LayoutError> {
        self.check_shape(shape)?;
        if op_idx > 1 || k_width == 0 || !k_width.is_power_of_two() {
            return Err(LayoutError::Malformed(format!(
                "a dot operand is opIdx 0 or 1 with a power-of-two kWidth (got {op_idx}, {k_width})"
            )));
        }
        let d = self.non_k_dim();
        let k_dim = k_width * (64 / d);
        let (k_axis, mn_axis) = if op_idx == 0 { (1, 0) } else { (0, 1) };
        let w_mn = u64::from(self.warps_per_cta[mn_axis]);
        let mut registers = Vec::new();
        let mut lanes = Vec::new();
        Self::run(k_axis, 1, k_width, &mut registers);
        Self::run(mn_axis, 1, d, &mut lanes);
        Self::run(k_axis, k_width, k_dim, &mut lanes);
        let warps = self.warp_bases(op_idx == 1, op_idx == 0);
        Self::run(k_axis, k_dim, shape[k_axis], &mut registers);
        Self::run(mn_axis, d * w_mn, shape[mn_axis], &mut registers);
        Ok(LinearLayout::clamped(shape, registers, lanes, warps))
    }
}

impl fmt::Display for MfmaLayout {
    /// `#ttg.amd_mfma<{version = 3, warpsPerCTA = [2, 2], instrShape = [32, 32, 8], isTransposed = true}>`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let list = |v: &[u32]| v.iter().map(u32::to_string).collect::<Vec<_>>().join(", ");
        write!(
            f,
            "#ttg.amd_mfma<{{version = {}, warpsPerCTA = [{}], instrShape = [{}], isTransposed = {}}}>",
            self.version,
            list(&self.warps_per_cta),
            list(&self.instr_shape),
            self.is_transposed
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn v(x: &[[u64; 2]]) -> Vec<Vec<u64>> {
        x.iter().map(|b| b.to_vec()).collect()
    }

    fn layout(instr: [u32; 3], warps: [u32; 2], transposed: bool) -> MfmaLayout {
        MfmaLayout {
            version: 3,
            warps_per_cta: warps.to_vec(),
            instr_shape: instr.to_vec(),
            is_transposed: transposed,
        }
    }

    /// Without the transposition (not chosen by Triton 3.6 for a single dot, but valid
    /// ttgir): Triton's `to_linear_layout` of `#ttg.amd_mfma<{version = 3, warpsPerCTA =
    /// [2, 2], instrShape = [32, 32, 8], isTransposed = false}>` on 128x128 and of the
    /// 16x16 one on [4, 2] warps, 64x64.
    #[test]
    fn untransposed_bases_are_tritons() {
        let l = layout([32, 32, 8], [2, 2], false)
            .to_linear(&[128, 128])
            .unwrap();
        assert_eq!(
            l.registers,
            v(&[[1, 0], [2, 0], [8, 0], [16, 0], [0, 64], [64, 0]])
        );
        assert_eq!(
            l.lanes,
            v(&[[0, 1], [0, 2], [0, 4], [0, 8], [0, 16], [4, 0]])
        );
        assert_eq!(l.warps, v(&[[0, 32], [32, 0]]));
        let l = layout([16, 16, 16], [4, 2], false)
            .to_linear(&[64, 64])
            .unwrap();
        assert_eq!(l.registers, v(&[[1, 0], [2, 0], [0, 32]]));
        assert_eq!(l.lanes, v(&[[0, 1], [0, 2], [0, 4], [0, 8], [4, 0], [8, 0]]));
        assert_eq!(l.warps, v(&[[0, 16], [16, 0], [32, 0]]));
    }

    #[test]
    fn k_width_follows_the_instruction() {
        assert_eq!(layout([32, 32, 8], [2, 2], true).k_width(), 4);
        assert_eq!(layout([16, 16, 16], [2, 2], true).k_width(), 4);
        assert_eq!(layout([32, 32, 2], [2, 2], true).k_width(), 1);
        assert_eq!(layout([32, 32, 16], [2, 2], true).k_width(), 8);
        assert_eq!(layout([16, 16, 4], [2, 2], true).k_width(), 1);
    }

    #[test]
    fn text_is_tritons() {
        assert_eq!(
            layout([32, 32, 8], [2, 2], true).to_string(),
            "#ttg.amd_mfma<{version = 3, warpsPerCTA = [2, 2], instrShape = [32, 32, 8], isTransposed = true}>"
        );
    }

    #[test]
    fn malformed_layouts_are_refused() {
        assert!(layout([32, 16, 8], [2, 2], true).to_linear(&[64, 64]).is_err());
        assert!(layout([4, 64, 4], [2, 2], true).to_linear(&[64, 64]).is_err());
        assert!(layout([32, 32, 8], [3, 1], true).to_linear(&[64, 64]).is_err());
        let mut l = layout([32, 32, 8], [2, 2], true);
        l.version = 1;
        assert!(l.to_linear(&[64, 64]).is_err());
    }
}
