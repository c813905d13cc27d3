//! Triton's `#ttg.nvidia_mma` encoding: the accumulator layout of the tensor-core `mma.sync`
//! instructions (version 2, Ampere and later), `tensor<128x256xf32, #ttg.nvidia_mma<…>>`.
//!
//! One warp computes `instrShape` = 16×8 tiles of the result (`mma.sync.m16n8kK`); its
//! linear form is the instruction's fragment:
//! - registers: `[0, 1]` (the second column of a pair), `[8, 0]` (the lower eight rows);
//! - lanes: `[0, 2]`, `[0, 4]`, `[1, 0]`, `[2, 0]`, `[4, 0]` (four lanes per row, eight rows);
//! - warps: along N first (`[0, 8]`, `[0, 16]`, …, `warpsPerCTA[1]` of them), then along M
//!   (`[16, 0]`, …);
//! - then repetitions, N first (`[0, 8·wn]`, …), then M (`[16·wm, 0]`, …), until the shape
//!   is covered.
//!
//! So register `4·(j + TN·i) + f` of a thread is fragment element `f` (`c0…c3` of the PTX
//! ISA's m16n8 accumulator) of the warp's tile `(i, j)`, where `TN` is the number of N
//! tiles a warp holds: the order the back end's `mma.sync` calls fill them in. These are
//! the bases Triton 3.6 gives `#mma` v2 (its `linear_layouts` dump of a 128×256 block on
//! `warpsPerCTA = [2, 4]`: registers `[0,1] [8,0] [0,32] [0,64] [0,128] [32,0] [64,0]`).
//!
//! Version 3 is the accumulator of Hopper's `wgmma.mma_async.m64nNkK` (`instrShape =
//! [16, N, K]`): a warpgroup of four consecutive warps computes a 64×N tile, each warp
//! 16 of its rows, each thread the m16n8 fragment above for every 8 columns of N:
//! - registers: `[0, 1]`, `[8, 0]`, then `[0, 8]`, `[0, 16]`, … up to `[0, N/2]`;
//! - lanes as in version 2;
//! - warps: `[16, 0]`, `[32, 0]` (the warpgroup), then the other warps along M
//!   (`[64, 0]`, …), then along N (`[0, N]`, …);
//! - then repetitions, N first, then M.
//!
//! Register `4·j + f` of a warpgroup tile is then element `d[4·j + f]` of the wgmma's
//! accumulator fragment. These are Triton 3.6's bases (`scripts/triton_wgmma.py` and
//! its `linear_layouts` dump: `[4, 1]`, `[16, 128, 16]` on 128×128 has registers
//! `[0,1] [8,0] [0,8] [0,16] [0,32] [0,64] [64,0]`, warps `[16,0] [32,0]`; `[4, 2]`,
//! `[16, 64, 16]` has warps `[16,0] [32,0] [0,64]`).

use std::fmt;

use crate::layout::{LayoutError, LinearLayout};

/// The `mma.sync` accumulator layout (Triton's `#ttg.nvidia_mma`, version 2.0).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct MmaLayout {
    /// Major version (2: `mma.sync`; 3: `wgmma`).
    pub version_major: u32,
    /// Warps of the CTA along M and N.
    pub warps_per_cta: Vec<u32>,
    /// The tile one instruction computes: `[16, 8]` (version 2), `[16, N, K]` (version 3:
    /// one warp's rows of a `wgmma.m64nNkK`).
    pub instr_shape: Vec<u32>,
}

impl MmaLayout {
    /// A version-2 layout on `warps_per_cta` (`[wm, wn]`) warps.
    pub fn v2(warps_per_cta: [u32; 2]) -> Self {
        MmaLayout {
            version_major: 2,
            warps_per_cta: warps_per_cta.to_vec(),
            instr_shape: vec![16, 8],
        }
    }

    /// A version-3 (`wgmma`) layout on `warps_per_cta` (`[wm, wn]`, `wm` a multiple of
    /// four) warps whose instruction is `m64n{n}k{k}`.
    pub fn v3(warps_per_cta: [u32; 2], n: u32, k: u32) -> Self {
        MmaLayout {
            version_major: 3,
            warps_per_cta: warps_per_cta.to_vec(),
            instr_shape: vec![16, n, k],
        }
    }

    /// Whether this is a `wgmma` accumulator (version 3).
    pub fn is_wgmma(&self) -> bool {
        self.version_major == 3
    }

    /// The N of the instruction (8 for `mma.sync`).
    pub fn instr_n(&self) -> u32 {
        self.instr_shape[1]
    }

    /// Warps of the CTA.
    pub fn num_warps(&self) -> u32 {
        self.warps_per_cta.iter().product()
    }

    /// The rank (2).
    pub fn rank(&self) -> usize {
        self.warps_per_cta.len()
    }

    fn check(&self) -> Result<(), LayoutError> {
        match self.version_major {
            2 => {
                if self.warps_per_cta.len() != 2 || self.instr_shape != [16, 8] {
                    return Err(LayoutError::Malformed(
                        "an mma layout of version 2 is rank 2 with instrShape = [16, 8]".into(),
                    ));
                }
            }
            3 => {
                let ok = self.warps_per_cta.len() == 2
                    && self.warps_per_cta[0] % 4 == 0
                    && self.instr_shape.len() == 3
                    && self.instr_shape[0] == 16
                    && (8..=256).contains(&self.instr_shape[1])
                    && self.instr_shape[1] % 8 == 0
                    && matches!(self.instr_shape[2], 8 | 16 | 32);
                if !ok {
                    return Err(LayoutError::Malformed(
                        "an mma layout of version 3 is rank 2 with warpsPerCTA[0] a multiple of 4 and instrShape = [16, N, K] (N a multiple of 8 up to 256, K 8, 16 or 32)".into(),
                    ));
                }
            }
            v => {
                return Err(LayoutError::Malformed(format!(
                    "mma version {v} is not supported (2 or 3)"
                )))
            }
        }
        if self
            .warps_per_cta
            .iter()
            .any(|&w| w == 0 || !w.is_power_of_two())
        {
            return Err(LayoutError::Malformed("warps must be powers of two".into()));
        }
        Ok(())
    }

    /// The linear form of this layout on `shape` (`[M, N]`).
    pub fn to_linear(&self, shape: &[u64]) -> Result<LinearLayout, LayoutError> {
        self.check()?;
        if shape.len() != 2 {
            return Err(LayoutError::RankMismatch {
                layout: 2,
                shape: shape.len(),
            });
        }
        if let Some(&d) = shape.iter().find(|d| !d.is_power_of_two()) {
            return Err(LayoutError::NotPowerOfTwo(d));
        }
        let (wm, wn) = (
            u64::from(self.warps_per_cta[0]),
            u64::from(self.warps_per_cta[1]),
        );
        if self.is_wgmma() {
            return Ok(self.wgmma_linear(shape, wm, wn));
        }
        let mut registers = vec![vec![0, 1], vec![8, 0]];
        let lanes = vec![vec![0, 2], vec![0, 4], vec![1, 0], vec![2, 0], vec![4, 0]];
        let mut warps = Vec::new();
        let mut n = 8u64;
        while n < 8 * wn {
            warps.push(vec![0, n]);
            n *= 2;
        }
        let mut m = 16u64;
        while m < 16 * wm {
            warps.push(vec![m, 0]);
            m *= 2;
        }
        while n < shape[1] {
            registers.push(vec![0, n]);
            n *= 2;
        }
        while m < shape[0] {
            registers.push(vec![m, 0]);
            m *= 2;
        }
        Ok(LinearLayout::clamped(shape, registers, lanes, warps))
    }
}

impl MmaLayout {
    fn wgmma_linear(&self, shape: &[u64], wm: u64, wn: u64) -> LinearLayout {
        let instr_n = u64::from(self.instr_shape[1]);
        let mut registers = vec![vec![0, 1], vec![8, 0]];
        let mut c = 8u64;
        while c < instr_n {
            registers.push(vec![0, c]);
            c *= 2;
        }
        let lanes = vec![vec![0, 2], vec![0, 4], vec![1, 0], vec![2, 0], vec![4, 0]];
        let mut warps = Vec::new();
        let mut m = 16u64;
        while m < 16 * wm {
            warps.push(vec![m, 0]);
            m *= 2;
        }
        let mut n = instr_n;
        while n < instr_n * wn {
            warps.push(vec![0, n]);
            n *= 2;
        }
        while n < shape[1] {
            registers.push(vec![0, n]);
            n *= 2;
        }
        while m < shape[0] {
            registers.push(vec![m, 0]);
            m *= 2;
        }
        LinearLayout::clamped(shape, registers, lanes, warps)
    }
}

impl fmt::Display for MmaLayout {
    /// `#ttg.nvidia_mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [2, 4], instrShape = [16, 8]}>`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let list = |v: &[u32]| v.iter().map(u32::to_string).collect::<Vec<_>>().join(", ");
        write!(
            f,
            "#ttg.nvidia_mma<{{versionMajor = {}, versionMinor = 0, warpsPerCTA = [{}], instrShape = [{}]}}>",
            self.version_major,
            list(&self.warps_per_cta),
            list(&self.instr_shape)
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bases_are_tritons_for_128x256_on_2x4_warps() {
        let l = MmaLayout::v2([2, 4]).to_linear(&[128, 256]).unwrap();
        let v = |x: &[[u64; 2]]| x.iter().map(|b| b.to_vec()).collect::<Vec<_>>();
        assert_eq!(
            l.registers,
            v(&[[0, 1], [8, 0], [0, 32], [0, 64], [0, 128], [32, 0], [64, 0]])
        );
        assert_eq!(l.lanes, v(&[[0, 2], [0, 4], [1, 0], [2, 0], [4, 0]]));
        assert_eq!(l.warps, v(&[[0, 8], [0, 16], [16, 0]]));
    }

    #[test]
    fn every_element_has_one_holder() {
        let l = MmaLayout::v2([4, 1]).to_linear(&[64, 32]).unwrap();
        let mut seen = std::collections::HashSet::new();
        for warp in 0..4 {
            for lane in 0..32 {
                for register in 0..l.num_registers() {
                    let c = l.coords(crate::layout::ThreadRegister {
                        warp,
                        lane,
                        register,
                    });
                    assert!(seen.insert(c));
                }
            }
        }
        assert_eq!(seen.len(), 64 * 32);
    }

    #[test]
    fn wgmma_bases_are_tritons() {
        // Triton 3.6's `linear_layouts` for `#mma` version 3.
        let v = |x: &[[u64; 2]]| x.iter().map(|b| b.to_vec()).collect::<Vec<_>>();
        let l = MmaLayout::v3([4, 1], 128, 16).to_linear(&[128, 128]).unwrap();
        assert_eq!(
            l.registers,
            v(&[[0, 1], [8, 0], [0, 8], [0, 16], [0, 32], [0, 64], [64, 0]])
        );
        assert_eq!(l.lanes, v(&[[0, 2], [0, 4], [1, 0], [2, 0], [4, 0]]));
        assert_eq!(l.warps, v(&[[16, 0], [32, 0]]));
        let l = MmaLayout::v3([4, 2], 64, 16).to_linear(&[128, 128]).unwrap();
        assert_eq!(
            l.registers,
            v(&[[0, 1], [8, 0], [0, 8], [0, 16], [0, 32], [64, 0]])
        );
        assert_eq!(l.warps, v(&[[16, 0], [32, 0], [0, 64]]));
        let l = MmaLayout::v3([8, 1], 256, 16).to_linear(&[128, 256]).unwrap();
        assert_eq!(
            l.registers,
            v(&[[0, 1], [8, 0], [0, 8], [0, 16], [0, 32], [0, 64], [0, 128]])
        );
        assert_eq!(l.warps, v(&[[16, 0], [32, 0], [64, 0]]));
        assert_eq!(
            MmaLayout::v3([8, 1], 256, 16).to_string(),
            "#ttg.nvidia_mma<{versionMajor = 3, versionMinor = 0, warpsPerCTA = [8, 1], instrShape = [16, 256, 16]}>"
        );
        assert!(MmaLayout::v3([2, 1], 64, 16).to_linear(&[64, 64]).is_err());
    }

    #[test]
    fn text_is_tritons() {
        assert_eq!(
            MmaLayout::v2([2, 4]).to_string(),
            "#ttg.nvidia_mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [2, 4], instrShape = [16, 8]}>"
        );
    }
}
