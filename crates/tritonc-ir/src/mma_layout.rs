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

use std::fmt;

use crate::layout::{LayoutError, LinearLayout};

/// The `mma.sync` accumulator layout (Triton's `#ttg.nvidia_mma`, version 2.0).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct MmaLayout {
    /// Major version (2: `mma.sync`).
    pub version_major: u32,
    /// Warps of the CTA along M and N.
    pub warps_per_cta: Vec<u32>,
    /// The tile one instruction computes: `[16, 8]`.
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

    /// Warps of the CTA.
    pub fn num_warps(&self) -> u32 {
        self.warps_per_cta.iter().product()
    }

    /// The rank (2).
    pub fn rank(&self) -> usize {
        self.warps_per_cta.len()
    }

    fn check(&self) -> Result<(), LayoutError> {
        if self.version_major != 2 {
            return Err(LayoutError::Malformed(format!(
                "mma version {} is not supported (only 2)",
                self.version_major
            )));
        }
        if self.warps_per_cta.len() != 2 || self.instr_shape != [16, 8] {
            return Err(LayoutError::Malformed(
                "an mma layout is rank 2 with instrShape = [16, 8]".into(),
            ));
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
    fn text_is_tritons() {
        assert_eq!(
            MmaLayout::v2([2, 4]).to_string(),
            "#ttg.nvidia_mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [2, 4], instrShape = [16, 8]}>"
        );
    }
}
