//! The NVIDIA target a kernel is compiled for: SM architecture and PTX ISA version.

use std::fmt;

/// An NVIDIA compute capability and the PTX ISA version to emit for it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct NvptxTarget {
    /// Compute capability as `major * 10 + minor` (80 for A100, 90 for H100/H200).
    pub sm: u32,
    /// PTX ISA version as `major * 10 + minor` (80 is PTX 8.0).
    pub ptx_version: u32,
}

impl NvptxTarget {
    /// The target for compute capability `sm` with the PTX ISA version [`Self::default_ptx_version`].
    pub fn new(sm: u32) -> Self {
        Self {
            sm,
            ptx_version: Self::default_ptx_version(sm),
        }
    }

    /// The PTX ISA version used when none is asked for: the oldest that every feature
    /// tritonc may emit for `sm` needs (8.0 for sm_90, whose `wgmma`, `setmaxnreg` and
    /// cluster instructions need it), 8.1 for sm_89 (fp8 `cvt`), and never older than 7.0
    /// (the sm_80 baseline).
    ///
    /// LLVM alone would pick 7.8 for sm_90: valid for plain code, but too old for Hopper's
    /// own instructions, so the choice is made here and passed as `+ptxNN`.
    pub fn default_ptx_version(sm: u32) -> u32 {
        match sm {
            90.. => 80,
            // sm_89 (Ada) needs 8.1 for its fp8 conversions (both directions).
            89 => 81,
            _ => 70,
        }
    }

    /// The chip name MLIR and ptxas use, e.g. `sm_90`.
    pub fn chip(&self) -> String {
        format!("sm_{}", self.sm)
    }

    /// The LLVM NVPTX feature string selecting the PTX ISA version, e.g. `+ptx80`.
    pub fn features(&self) -> String {
        format!("+ptx{}", self.ptx_version)
    }
}

impl fmt::Display for NvptxTarget {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "sm_{} (PTX {}.{})",
            self.sm,
            self.ptx_version / 10,
            self.ptx_version % 10
        )
    }
}
