//! What the NVIDIA back end derives from a [`Target`]: the PTX ISA version, LLVM's
//! NVPTX feature string, the name diagnostics give the target.

pub use tritonc_target::{Arch, Target, Vendor};

/// The PTX ISA version (`major * 10 + minor`) emitted for `target`: the oldest that every
/// feature tritonc may emit for it needs (8.0 for sm_90 and sm_90a, whose `wgmma`,
/// `setmaxnreg` and cluster instructions need it), 8.1 for sm_89 (fp8 `cvt`), and never
/// older than 7.0 (the sm_80 baseline).
///
/// LLVM alone would pick 7.8 for sm_90: valid for plain code, but too old for Hopper's
/// own instructions, so the choice is made here and passed as `+ptxNN`.
pub fn ptx_version(target: &Target) -> u32 {
    match target.capability() {
        90.. => 80,
        // sm_89 (Ada) needs 8.1 for its fp8 conversions (both directions).
        89 => 81,
        _ => 70,
    }
}

/// The LLVM feature string for `target`: `+ptx80` selects the PTX ISA version on NVIDIA;
/// none on AMD (the processor name says everything).
pub fn llvm_features(target: &Target) -> String {
    match target.vendor() {
        Vendor::Nvidia => format!("+ptx{}", ptx_version(target)),
        Vendor::Amd => String::new(),
    }
}

/// The target as diagnostics name it: `sm_90 (PTX 8.0)`, `gfx942`.
pub fn describe(target: &Target) -> String {
    match target.vendor() {
        Vendor::Nvidia => {
            let v = ptx_version(target);
            format!("{} (PTX {}.{})", target.name(), v / 10, v % 10)
        }
        Vendor::Amd => target.chip(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ptx_versions_and_names() {
        assert_eq!(llvm_features(&Target::nvidia(90)), "+ptx80");
        assert_eq!(llvm_features(&Target::nvidia_arch_specific(90)), "+ptx80");
        assert_eq!(llvm_features(&Target::nvidia(89)), "+ptx81");
        assert_eq!(llvm_features(&Target::nvidia(80)), "+ptx70");
        assert_eq!(describe(&Target::nvidia(80)), "sm_80 (PTX 7.0)");
        assert_eq!(describe(&Target::nvidia_arch_specific(90)), "sm_90a (PTX 8.0)");
        assert_eq!(describe(&Target::amd(0x942)), "gfx942");
    }
}
