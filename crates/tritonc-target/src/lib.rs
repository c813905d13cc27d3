//! The one description of a GPU target, from the command line to code generation.
//!
//! A [`Target`] names the vendor and the architecture (an NVIDIA compute capability with
//! or without the architecture-specific `a` suffix, or an AMD `gfx` processor) and
//! answers what every stage asks of it: the lanes per warp (32 on NVIDIA, 64 on AMD's
//! wave64 CDNA GPUs), shared memory (LDS) per block, registers per thread, the chip and
//! feature names LLVM takes, and the form the specialization key records
//! (`cuda:90:32`, `hip:gfx942:64`).

use std::fmt;

/// The GPU vendor of a target.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Vendor {
    /// NVIDIA (CUDA, PTX, cubin).
    Nvidia,
    /// AMD (ROCm, AMDGCN, HSACO code objects).
    Amd,
}

/// The architecture of a target.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Arch {
    /// An NVIDIA compute capability as `major * 10 + minor` (90 for sm_90), with
    /// `arch_specific` for the `a` variants (`sm_90a`: the same capability plus
    /// instructions that run on that architecture only, such as `wgmma`).
    Nvidia {
        /// `major * 10 + minor`.
        capability: u32,
        /// The `a` suffix.
        arch_specific: bool,
    },
    /// An AMD GCN processor, its `gfx` number as the hexadecimal digits of its name
    /// (`0x942` for gfx942, `0x90a` for gfx90a).
    Amd {
        /// The digits after `gfx`, read as hexadecimal.
        gfx: u32,
    },
}

/// A compilation target.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Target {
    /// The architecture (and so the vendor).
    pub arch: Arch,
}

/// Every target the command line accepts, in the order `--help` lists them.
pub const TARGETS: &[Target] = &[
    Target::nvidia(80),
    Target::nvidia(86),
    Target::nvidia(89),
    Target::nvidia(90),
    Target::nvidia_arch_specific(90),
    Target::amd(0x90a),
    Target::amd(0x942),
];

impl Target {
    /// The NVIDIA target of compute capability `capability` (`90` for sm_90).
    pub const fn nvidia(capability: u32) -> Target {
        Target {
            arch: Arch::Nvidia {
                capability,
                arch_specific: false,
            },
        }
    }

    /// The architecture-specific NVIDIA target (`sm_90a` for `90`).
    pub const fn nvidia_arch_specific(capability: u32) -> Target {
        Target {
            arch: Arch::Nvidia {
                capability,
                arch_specific: true,
            },
        }
    }

    /// The AMD target `gfx` (`0x942` for gfx942).
    pub const fn amd(gfx: u32) -> Target {
        Target {
            arch: Arch::Amd { gfx },
        }
    }

    /// An NVIDIA target of compute capability `capability` (`Target::nvidia`; the name the
    /// specialization key's `cuda` backend has always used).
    pub const fn cuda(capability: u32) -> Target {
        Target::nvidia(capability)
    }

    /// The target called `name` among [`TARGETS`] (case-insensitive).
    pub fn parse(name: &str) -> Option<Target> {
        TARGETS
            .iter()
            .copied()
            .find(|t| t.name().eq_ignore_ascii_case(name.trim()))
    }

    /// The vendor.
    pub const fn vendor(&self) -> Vendor {
        match self.arch {
            Arch::Nvidia { .. } => Vendor::Nvidia,
            Arch::Amd { .. } => Vendor::Amd,
        }
    }

    /// Whether this is an NVIDIA target.
    pub const fn is_nvidia(&self) -> bool {
        matches!(self.arch, Arch::Nvidia { .. })
    }

    /// Whether this is an AMD target.
    pub const fn is_amd(&self) -> bool {
        matches!(self.arch, Arch::Amd { .. })
    }

    /// The NVIDIA compute capability (`90` for sm_90 and sm_90a); 0 on AMD, where no
    /// NVIDIA instruction is available.
    pub const fn capability(&self) -> u32 {
        match self.arch {
            Arch::Nvidia { capability, .. } => capability,
            Arch::Amd { .. } => 0,
        }
    }

    /// The feature suffix of the architecture's name: `a` for sm_90a, empty otherwise.
    pub const fn feature_suffix(&self) -> &'static str {
        match self.arch {
            Arch::Nvidia {
                arch_specific: true,
                ..
            } => "a",
            _ => "",
        }
    }

    /// The name as the command line and bundles write it: `sm_90`, `sm_90a`, `gfx942`.
    pub fn name(&self) -> String {
        match self.arch {
            Arch::Nvidia { capability, .. } => {
                format!("sm_{capability}{}", self.feature_suffix())
            }
            Arch::Amd { gfx } => format!("gfx{gfx:x}"),
        }
    }

    /// The processor name LLVM's back end takes (`-mcpu`): `sm_90a`, `gfx942`. Capability
    /// 9.0 is always compiled for `sm_90a`, as Triton does, so that Hopper's `wgmma`
    /// (which only the architecture-specific target has) is available to `sm_90` too.
    pub fn chip(&self) -> String {
        match self.arch {
            Arch::Nvidia { capability: 90, .. } => "sm_90a".to_owned(),
            _ => self.name(),
        }
    }

    /// Lanes per warp: 32 on NVIDIA, 64 on AMD's CDNA GPUs (wave64).
    pub const fn warp_size(&self) -> u32 {
        match self.arch {
            Arch::Nvidia { .. } => 32,
            Arch::Amd { .. } => 64,
        }
    }

    /// Bytes of shared memory one block may use: NVIDIA's opt-in maximum of the CUDA
    /// programming guide's table; 64 KiB of LDS per workgroup on gfx90a and gfx942.
    pub const fn shared_memory_per_block(&self) -> u64 {
        match self.arch {
            Arch::Nvidia { capability, .. } => match capability {
                // sm_120/121 (consumer Blackwell) have sm_86's 99 KiB; sm_87 (Orin) has
                // sm_80's 163 KiB.
                120 | 121 => 101_376,
                90.. => 232_448,
                80 | 87 => 166_912,
                86 | 89 => 101_376,
                75 => 65_536,
                70 | 72 => 98_304,
                _ => 49_152,
            },
            Arch::Amd { .. } => 65_536,
        }
    }

    /// Threads one block (CTA, work-group) may have: 1024 on every NVIDIA GPU and on
    /// gfx90a and gfx942, so at most 32 warps of 32 lanes, or 16 waves of 64. A kernel
    /// compiled for more can never launch (Triton 3.6 compiles `num_warps = 32` for
    /// gfx942, 2048 threads, into a code object whose `.max_flat_workgroup_size` is
    /// 1024: tests/fixtures/triton_amd_block_limit.json).
    pub const fn max_threads_per_block(&self) -> u32 {
        1024
    }

    /// The most warps (`num_warps`) a block may have: [`Target::max_threads_per_block`]
    /// over [`Target::warp_size`] (32 on NVIDIA, 16 on AMD's wave64 GPUs).
    pub const fn max_warps_per_block(&self) -> u32 {
        self.max_threads_per_block() / self.warp_size()
    }

    /// 32-bit registers one thread may use: 255 on NVIDIA; 512 vector registers per lane
    /// on gfx90a and gfx942 (256 architectural VGPRs and 256 accumulation AGPRs).
    pub const fn registers_per_thread(&self) -> u32 {
        match self.arch {
            Arch::Nvidia { .. } => 255,
            Arch::Amd { .. } => 512,
        }
    }

    /// Pointer parameters every kernel ends with, after those the launch passes: none on
    /// NVIDIA; on AMD the global and the profile scratch buffers Triton 3.6's AMD kernels
    /// end with (so that argument offsets match Triton's), passed null.
    pub const fn scratch_pointer_params(&self) -> u32 {
        match self.arch {
            Arch::Nvidia { .. } => 0,
            Arch::Amd { .. } => 2,
        }
    }

    /// The backend field of the specialization key: `cuda` or `hip` (Triton's
    /// `GPUTarget.backend`).
    pub const fn backend(&self) -> &'static str {
        match self.arch {
            Arch::Nvidia { .. } => "cuda",
            Arch::Amd { .. } => "hip",
        }
    }

    /// The arch field of the specialization key (Triton's `GPUTarget.arch`): `90`,
    /// `90a`, `gfx942`.
    pub fn key_arch(&self) -> String {
        match self.arch {
            Arch::Nvidia { capability, .. } => format!("{capability}{}", self.feature_suffix()),
            Arch::Amd { .. } => self.chip(),
        }
    }

    /// The target the specialization key's fields name, if any.
    pub fn from_key(backend: &str, arch: &str, warp_size: u32) -> Option<Target> {
        let target = match backend {
            "cuda" => {
                let (digits, arch_specific) = match arch.strip_suffix('a') {
                    Some(d) => (d, true),
                    None => (arch, false),
                };
                let capability = digits.parse().ok()?;
                Target {
                    arch: Arch::Nvidia {
                        capability,
                        arch_specific,
                    },
                }
            }
            "hip" => Target::amd(u32::from_str_radix(arch.strip_prefix("gfx")?, 16).ok()?),
            _ => return None,
        };
        (target.warp_size() == warp_size).then_some(target)
    }
}

impl fmt::Display for Target {
    /// The specialization key's form, `backend:arch:warp_size` (`cuda:90:32`).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}:{}:{}",
            self.backend(),
            self.key_arch(),
            self.warp_size()
        )
    }
}

/// The serialized form: `{"backend": "cuda", "arch": "90", "warp_size": 32}`.
#[derive(serde::Serialize, serde::Deserialize)]
struct KeyForm {
    backend: String,
    arch: String,
    warp_size: u32,
}

impl serde::Serialize for Target {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        KeyForm {
            backend: self.backend().to_string(),
            arch: self.key_arch(),
            warp_size: self.warp_size(),
        }
        .serialize(serializer)
    }
}

impl<'de> serde::Deserialize<'de> for Target {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let form = KeyForm::deserialize(deserializer)?;
        Target::from_key(&form.backend, &form.arch, form.warp_size).ok_or_else(|| {
            serde::de::Error::custom(format!(
                "unknown target {}:{}:{}",
                form.backend, form.arch, form.warp_size
            ))
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip() {
        for target in TARGETS {
            assert_eq!(Target::parse(&target.name()), Some(*target));
            let key = target.to_string();
            let mut parts = key.split(':');
            let (b, a, w) = (
                parts.next().unwrap(),
                parts.next().unwrap(),
                parts.next().unwrap(),
            );
            assert_eq!(Target::from_key(b, a, w.parse().unwrap()), Some(*target));
            let json = serde_json::to_string(target).unwrap();
            assert_eq!(serde_json::from_str::<Target>(&json).unwrap(), *target);
        }
        assert_eq!(
            Target::parse("SM_90A").map(|t| t.name()).as_deref(),
            Some("sm_90a")
        );
        assert!(Target::parse("sm_75").is_none());
    }

    #[test]
    fn key_forms() {
        assert_eq!(Target::nvidia(90).to_string(), "cuda:90:32");
        assert_eq!(Target::nvidia_arch_specific(90).to_string(), "cuda:90a:32");
        assert_eq!(Target::amd(0x942).to_string(), "hip:gfx942:64");
        assert_eq!(Target::amd(0x90a).chip(), "gfx90a");
        assert_eq!(
            serde_json::to_string(&Target::nvidia(80)).unwrap(),
            r#"{"backend":"cuda","arch":"80","warp_size":32}"#
        );
        // A warp size the architecture does not have is no target.
        assert_eq!(Target::from_key("hip", "gfx942", 32), None);
        assert_eq!(Target::from_key("rocm", "gfx942", 64), None);
    }

    #[test]
    fn limits() {
        assert_eq!(Target::amd(0x942).warp_size(), 64);
        assert_eq!(Target::nvidia(90).warp_size(), 32);
        assert_eq!(Target::nvidia(80).shared_memory_per_block(), 166_912);
        assert_eq!(Target::nvidia(87).shared_memory_per_block(), 166_912);
        assert_eq!(Target::nvidia(89).shared_memory_per_block(), 101_376);
        assert_eq!(Target::nvidia(100).shared_memory_per_block(), 232_448);
        assert_eq!(Target::nvidia(120).shared_memory_per_block(), 101_376);
        assert_eq!(Target::amd(0x90a).shared_memory_per_block(), 65_536);
        assert_eq!(Target::amd(0x942).capability(), 0);
        assert_eq!(Target::nvidia_arch_specific(90).capability(), 90);
    }
}
