//! The runtime's error type and how each error maps onto the CLI's exit codes.

use std::fmt;

use tritonc_bundle::BundleError;

use crate::backend::Backend;
use crate::check::Violation;

/// The process exit status a CLI should use for an error (the table in `docs/cli.md`).
pub mod exit {
    /// The kernel's own check failed: a device-side assertion (debug mode).
    pub const FINDINGS: u8 = 1;
    /// Usage or input error: a refused launch, an unreadable or incompatible bundle.
    pub const INPUT_ERROR: u8 = 2;
    /// The driver, the GPU or enough device memory is not available.
    pub const UNAVAILABLE: u8 = 3;
    /// This build cannot do it: the backend was not compiled in (the `hip` feature).
    pub const NOT_IMPLEMENTED: u8 = 4;
    /// A bug in tritonc: the driver rejected code tritonc generated, or failed a call.
    pub const INTERNAL_ERROR: u8 = 70;
}

/// Everything that can go wrong between a bundle on disk and a finished launch.
#[derive(Debug, thiserror::Error)]
pub enum RuntimeError {
    /// libcuda could not be loaded: no NVIDIA driver on this machine.
    #[error("no NVIDIA driver: libcuda could not be loaded (searched {searched})")]
    NoDriver {
        /// The library names tried.
        searched: String,
    },
    /// The driver lacks an entry point the runtime needs: it is older than CUDA 12.0.
    #[error("the NVIDIA driver is too old: it has no `{symbol}` (CUDA 12.0 or newer is needed)")]
    DriverTooOld {
        /// The missing entry point.
        symbol: &'static str,
    },
    /// The driver loaded but reports no usable GPU.
    #[error("no CUDA GPU: {reason}")]
    NoDevice {
        /// What the driver said.
        reason: String,
    },
    /// The HIP runtime found no usable AMD GPU (no device, no kernel driver, or an
    /// ordinal past the number of GPUs).
    #[error("no AMD GPU / HIP runtime found: {reason}")]
    NoHipDevice {
        /// What the HIP runtime said.
        reason: String,
    },
    /// The bundle needs a backend this build does not have.
    #[error(
        "this build has no {backend} launcher for {vendor} GPUs: build with the `{feature}` \
         cargo feature{how}",
        vendor = backend.vendor(),
        feature = backend.feature(),
        how = match backend {
            Backend::Hip => " (`--features hip`; it links libamdhip64: Debian's `libamdhip64-dev`)",
            Backend::Cuda => " (on by default; it uses cudarc, which loads libcuda at run time)",
        }
    )]
    BackendNotBuilt {
        /// The backend asked for.
        backend: Backend,
    },
    /// A device ordinal past the number of GPUs.
    #[error("no CUDA GPU {ordinal}: this machine has {count}")]
    DeviceNotFound {
        /// The ordinal asked for.
        ordinal: usize,
        /// GPUs present.
        count: usize,
    },
    /// A bundle could not be read.
    #[error(transparent)]
    Bundle(#[from] BundleError),
    /// The bundle cannot run on this device or driver.
    #[error("bundle `{entry}` cannot run here: {reason}")]
    IncompatibleBundle {
        /// The kernel entry.
        entry: String,
        /// Why.
        reason: String,
    },
    /// The launch would break assumptions the bundle was compiled under.
    #[error("{0}")]
    LaunchRefused(LaunchRefusal),
    /// Several variants were offered and none accepts the arguments.
    #[error("{0}")]
    NoMatchingVariant(NoMatchingVariant),
    /// One named variant was launched with arguments it was not compiled for (a typed
    /// launch function `tritonc-build` generated); the error lists every variant.
    #[error("{0}")]
    SpecializationMiss(crate::variants::SpecializationMiss),
    /// The grid is empty or too large.
    #[error("invalid grid: {0}")]
    InvalidGrid(String),
    /// A host buffer does not match the device buffer it is copied to or from.
    #[error("buffer mismatch: {0}")]
    BufferMismatch(String),
    /// Device memory ran out.
    #[error(
        "out of device memory while allocating {requested} bytes ({free} of {total} bytes free)"
    )]
    OutOfMemory {
        /// Bytes asked for.
        requested: u64,
        /// Bytes free on the device at the time.
        free: u64,
        /// Device memory in total.
        total: u64,
    },
    /// The driver's JIT rejected the PTX.
    #[error("the driver rejected the PTX of `{entry}` ({code}):\n{log}")]
    Jit {
        /// The kernel entry.
        entry: String,
        /// The driver's error name.
        code: String,
        /// The JIT's error log.
        log: String,
    },
    /// A device-side assertion failed (`tl.device_assert` or `assert` compiled in debug
    /// mode): the driver reports `CUDA_ERROR_ASSERT` (HIP: `hipErrorAssert`), both 710, and
    /// the device printed the assert's message; the context cannot be used afterwards.
    #[error(
        "device-side assertion failed ({status} from {call}); see the kernel's stderr for \
         the message"
    )]
    DeviceAssert {
        /// The driver's name for the status (`CUDA_ERROR_ASSERT`, `hipErrorAssert`).
        status: &'static str,
        /// The driver call that reported it (usually a synchronization after the launch).
        call: &'static str,
    },
    /// Any other driver failure, including faults of a running kernel.
    #[error("CUDA driver call {call} failed: {code}: {message}")]
    Driver {
        /// The call.
        call: &'static str,
        /// The error name (`CUDA_ERROR_ILLEGAL_ADDRESS`).
        code: String,
        /// The driver's description.
        message: String,
    },
    /// A HIP runtime call failed, including faults of a running kernel.
    #[error("HIP runtime call {call} failed: {code}: {message}")]
    Hip {
        /// The call.
        call: &'static str,
        /// The error name (`hipErrorIllegalAddress`).
        code: String,
        /// The runtime's description.
        message: String,
    },
}

impl RuntimeError {
    /// The CLI exit status for this error (see [`exit`]).
    pub fn exit_code(&self) -> u8 {
        match self {
            RuntimeError::NoDriver { .. }
            | RuntimeError::DriverTooOld { .. }
            | RuntimeError::NoDevice { .. }
            | RuntimeError::NoHipDevice { .. }
            | RuntimeError::DeviceNotFound { .. }
            | RuntimeError::OutOfMemory { .. } => exit::UNAVAILABLE,
            RuntimeError::Bundle(_)
            | RuntimeError::IncompatibleBundle { .. }
            | RuntimeError::LaunchRefused(_)
            | RuntimeError::NoMatchingVariant(_)
            | RuntimeError::SpecializationMiss(_)
            | RuntimeError::InvalidGrid(_)
            | RuntimeError::BufferMismatch(_) => exit::INPUT_ERROR,
            RuntimeError::BackendNotBuilt { .. } => exit::NOT_IMPLEMENTED,
            RuntimeError::DeviceAssert { .. } => exit::FINDINGS,
            RuntimeError::Jit { .. } | RuntimeError::Driver { .. } | RuntimeError::Hip { .. } => {
                exit::INTERNAL_ERROR
            }
        }
    }
}

/// A launch refused before it reached the GPU, with every violated assumption.
#[derive(Debug, Clone, PartialEq)]
pub struct LaunchRefusal {
    /// The kernel's specialization, in its key's text form.
    pub variant: String,
    /// What the arguments break.
    pub violations: Vec<Violation>,
}

impl fmt::Display for LaunchRefusal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "launch refused: ")?;
        match self.violations.as_slice() {
            [one] => write!(f, "{one}")?,
            many => {
                write!(f, "{} assumptions broken", many.len())?;
                for v in many {
                    write!(f, "\n  - {v}")?;
                }
            }
        }
        write!(f, "\n  compiled variant: {}", self.variant)
    }
}

/// No variant among several accepts the launch: why each was refused.
#[derive(Debug, Clone, PartialEq)]
pub struct NoMatchingVariant {
    /// Per variant: its key text and why it was refused.
    pub refusals: Vec<(String, Vec<String>)>,
}

impl fmt::Display for NoMatchingVariant {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "launch refused: none of the {} compiled variant(s) accepts these arguments",
            self.refusals.len()
        )?;
        for (variant, why) in &self.refusals {
            write!(f, "\n  {variant}")?;
            for w in why {
                write!(f, "\n    - {w}")?;
            }
        }
        Ok(())
    }
}
