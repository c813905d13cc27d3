//! The one options struct of a compile, and the request that carries it.
//!
//! [`Options`] holds every setting, beyond the kernel's source and signature, that decides
//! the code a variant compiles to. The compile cache keys on [`Options::key_text`] of
//! each variant's options (with the source and the specialization), so a setting added
//! here is part of every key without being listed anywhere else.

use tritonc_diagnostics::Diagnostic;
use tritonc_sema::{LaunchOptions, Specialization, TritonVersion};
use tritonc_syntax::Kernel;

use crate::backend::BackendOptions;
use crate::codes;
use crate::target::{Stage, Target};

/// Warps per program when nothing says otherwise (Triton's default).
pub const DEFAULT_NUM_WARPS: u32 = 4;
/// Pipelining stages when nothing says otherwise (Triton's default).
pub const DEFAULT_NUM_STAGES: u32 = 3;

/// Everything that decides how a kernel compiles, beyond its source and signature.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Options {
    /// The target.
    pub target: Target,
    /// Warps per program (a power of two, 1 to 32).
    pub num_warps: u32,
    /// Pipelining stages.
    pub num_stages: u32,
    /// Contract `a*b + c` into `fma` (Triton's default; off with `--no-fp-fusion`).
    pub fp_fusion: bool,
    /// Triton's debug mode (`--debug`, `TRITON_DEBUG`); a kernel's
    /// `@triton.jit(debug=True)` turns it on for that kernel.
    pub debug: bool,
    /// The Triton language version whose rules apply.
    pub triton_version: TritonVersion,
}

impl Options {
    /// Triton's defaults for `target`: 4 warps, 3 stages, fp fusion on, debug off, the
    /// default Triton version (3.6).
    pub fn new(target: Target) -> Options {
        Options {
            target,
            num_warps: DEFAULT_NUM_WARPS,
            num_stages: DEFAULT_NUM_STAGES,
            fp_fusion: true,
            debug: false,
            triton_version: TritonVersion::default(),
        }
    }

    /// The options one variant compiles with: warps, stages, debug mode, target and
    /// Triton version as its specialization fixed them (autotune configs and a kernel's
    /// `debug=True` change them per variant), the rest from `self`.
    pub fn for_variant(&self, spec: &Specialization) -> Options {
        Options {
            target: spec.options.target,
            num_warps: spec.options.num_warps,
            num_stages: spec.options.num_stages,
            debug: spec.options.debug,
            triton_version: spec.options.triton_version,
            fp_fusion: self.fp_fusion,
        }
    }

    /// The launch options sema specializes `kernel` with (its decorator may turn debug
    /// mode on).
    pub fn launch_options(&self, kernel: &Kernel) -> LaunchOptions {
        LaunchOptions {
            num_warps: self.num_warps,
            num_stages: self.num_stages,
            target: self.target,
            debug: self.debug || kernel.jit.debug == Some(true),
            triton_version: self.triton_version,
        }
    }

    /// The back end's options; `cubin`: assemble a cubin when ptxas is found.
    pub fn backend(&self, cubin: bool) -> BackendOptions {
        BackendOptions {
            target: self.target,
            fp_fusion: self.fp_fusion,
            cubin,
        }
    }

    /// The options as the compile cache's key records them: every field, by name.
    pub fn key_text(&self) -> String {
        format!("{self:?}")
    }
}

/// A compile request: the options, and what picks and specializes the kernels.
#[derive(Debug, Clone)]
pub struct Request {
    /// The options.
    pub options: Options,
    /// The launch signature for every selected kernel, in Triton's AOT syntax
    /// (`*fp32:16, i32, 1024`); without one, each kernel's signature comes from the
    /// project configuration, else from its annotations.
    pub signature: Option<String>,
    /// Whether [`Options::num_warps`] was set explicitly (it then wins over a
    /// configuration's `num_warps`).
    pub num_warps_given: bool,
    /// The stages to emit, in pipeline order, without duplicates (empty: a bundle per
    /// variant).
    pub stages: Vec<Stage>,
}

impl Request {
    /// A request for bundles with `options` and no signature.
    pub fn new(options: Options) -> Request {
        Request {
            options,
            signature: None,
            num_warps_given: false,
            stages: Vec::new(),
        }
    }
}

/// Whether `n` warps per program is allowed: a power of two, 1 to 32.
pub fn valid_num_warps(n: u32) -> bool {
    n.is_power_of_two() && n <= 32
}

/// The power of two in 1..=32 closest to `n` (ties go up).
pub fn nearest_num_warps(n: u32) -> u32 {
    [1u32, 2, 4, 8, 16, 32]
        .into_iter()
        .min_by_key(|&p| (p.abs_diff(n), u32::MAX - p))
        .unwrap_or(DEFAULT_NUM_WARPS)
}

/// `E0509` for `n` warps named by `what` (`` `--num-warps 6` ``), or nothing when `n`
/// is allowed.
pub fn check_num_warps(n: u32, what: &str) -> Result<(), Diagnostic> {
    if valid_num_warps(n) {
        return Ok(());
    }
    Err(Diagnostic::error(
        codes::INVALID_NUM_WARPS,
        format!("{what} is not a power of two between 1 and 32"),
    )
    .with_help(format!("use `--num-warps {}`", nearest_num_warps(n))))
}

/// `E0509` when `n` warps make a block of more threads than `target` allows
/// ([`Target::max_threads_per_block`]: 1024, so at most 16 warps of 64 lanes on gfx90a
/// and gfx942), or nothing. Such a kernel can never launch: Triton 3.6 compiles it for
/// AMD anyway, into a code object limited to 1024 threads, and the launch fails on the
/// device; tritonc refuses it when it compiles. `what` names where `n` comes from.
pub fn check_block_threads(n: u32, target: Target, what: &str) -> Result<(), Diagnostic> {
    let threads = u64::from(n) * u64::from(target.warp_size());
    let limit = target.max_threads_per_block();
    if threads <= u64::from(limit) {
        return Ok(());
    }
    let most = target.max_warps_per_block();
    Err(Diagnostic::error(
        codes::INVALID_NUM_WARPS,
        format!(
            "{what} makes blocks of {threads} threads on {} ({} lanes per warp), past the \
             {limit} threads a block may have",
            target.name(),
            target.warp_size()
        ),
    )
    .with_note(format!(
        "a launch of such a block fails on the device; Triton compiles it for {} without a \
         word, into a code object that holds at most {limit} threads per block",
        target.name()
    ))
    .with_help(format!("use at most {most} warps for {}", target.name())))
}

/// Whether `TRITON_DEBUG` turns debug mode on, as Triton reads it (`1`, `true`, `yes`,
/// `y`, `on`, any case).
pub fn triton_debug_env() -> bool {
    std::env::var("TRITON_DEBUG").is_ok_and(|v| {
        matches!(
            v.to_ascii_lowercase().as_str(),
            "1" | "true" | "yes" | "y" | "on"
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_field_is_in_the_key_text() {
        let base = Options::new(Target::parse("sm_90").expect("a known target"));
        let changed = [
            Options {
                num_warps: 8,
                ..base
            },
            Options {
                num_stages: 4,
                ..base
            },
            Options {
                fp_fusion: false,
                ..base
            },
            Options {
                debug: true,
                ..base
            },
            Options {
                target: Target::parse("sm_80").expect("a known target"),
                ..base
            },
            Options {
                triton_version: "3.9".parse().expect("a known version"),
                ..base
            },
        ];
        for c in changed {
            assert_ne!(c.key_text(), base.key_text(), "{c:?}");
        }
    }

    #[test]
    fn nearest_warps() {
        assert_eq!(nearest_num_warps(6), 8);
        assert_eq!(nearest_num_warps(3), 4);
        assert_eq!(nearest_num_warps(100), 32);
        assert!(check_num_warps(6, "`--num-warps 6`").is_err());
        assert!(check_num_warps(8, "`--num-warps 8`").is_ok());
        let gfx942 = Target::parse("gfx942").expect("a known target");
        let sm_90 = Target::parse("sm_90").expect("a known target");
        assert!(check_block_threads(16, gfx942, "`num_warps = 16`").is_ok());
        let e = check_block_threads(32, gfx942, "`num_warps = 32`").unwrap_err();
        assert!(e.message.contains("2048 threads on gfx942"), "{}", e.message);
        assert!(check_block_threads(32, sm_90, "`num_warps = 32`").is_ok());
        assert!(check_block_threads(64, sm_90, "`num_warps = 64`").is_err());
    }
}
