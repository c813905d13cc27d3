//! The GPU APIs behind [`Device`](crate::Device): which one a device speaks, and the few
//! raw operations each implements. Everything above them — argument checks and
//! marshalling, variant selection, buffers, launch preparation and timing — is shared.

use std::ffi::c_void;
use std::fmt;
use std::sync::atomic::{AtomicU8, Ordering};

use tritonc_bundle::{parse_gfx, parse_sm, Bundle};

use crate::args::{Grid, Stream};
use crate::error::RuntimeError;
use crate::select::CodeChoice;

/// A GPU programming interface the runtime can launch through.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Backend {
    /// NVIDIA GPUs through the CUDA driver API (libcuda, loaded at run time).
    Cuda,
    /// AMD GPUs through the HIP runtime (libamdhip64; only with the `hip` cargo feature).
    Hip,
}

impl Backend {
    /// The backend that runs code for `target`: CUDA for `sm_XY`, HIP for `gfx…`.
    pub fn for_target(target: &str) -> Option<Backend> {
        if parse_sm(target).is_some() {
            Some(Backend::Cuda)
        } else if parse_gfx(target).is_some() {
            Some(Backend::Hip)
        } else {
            None
        }
    }

    /// Whether this build can launch through the backend (HIP needs the `hip` feature).
    pub fn is_built(self) -> bool {
        match self {
            Backend::Cuda => cfg!(feature = "cuda"),
            Backend::Hip => cfg!(feature = "hip"),
        }
    }

    /// The cargo feature of this crate that builds the backend.
    pub fn feature(self) -> &'static str {
        match self {
            Backend::Cuda => "cuda",
            Backend::Hip => "hip",
        }
    }

    /// The GPU vendor, for messages: `NVIDIA`, `AMD`.
    pub fn vendor(self) -> &'static str {
        match self {
            Backend::Cuda => "NVIDIA",
            Backend::Hip => "AMD",
        }
    }
}

impl fmt::Display for Backend {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Backend::Cuda => "CUDA",
            Backend::Hip => "HIP",
        })
    }
}

/// The backend [`Device::open`](crate::Device::open) uses (0: CUDA, 1: HIP).
static DEFAULT_BACKEND: AtomicU8 = AtomicU8::new(0);

/// Sets the backend [`Device::open`](crate::Device::open) opens for the rest of the
/// process (CUDA unless set). For a driver that serves one kind of bundle per process
/// and hands devices to code that calls `Device::open`; a caller that knows the backend
/// uses [`Device::open_on`](crate::Device::open_on) instead.
pub fn set_default_backend(backend: Backend) {
    DEFAULT_BACKEND.store(backend as u8, Ordering::Relaxed);
}

/// The backend [`Device::open`](crate::Device::open) uses.
pub fn default_backend() -> Backend {
    match DEFAULT_BACKEND.load(Ordering::Relaxed) {
        0 => Backend::Cuda,
        _ => Backend::Hip,
    }
}

/// What a backend reports about a device when it opens it.
#[derive(Debug, Clone)]
pub(crate) struct DeviceInfo {
    pub(crate) backend: Backend,
    pub(crate) ordinal: usize,
    pub(crate) name: String,
    /// The architecture as targets name it: `sm_90`, `gfx942`.
    pub(crate) arch: String,
    /// `(major, minor)` as the API reports it (CUDA's compute capability; HIP's
    /// `hipDeviceProp_t::major/minor`).
    pub(crate) capability: (u32, u32),
    pub(crate) total_memory: u64,
    /// The most shared memory (LDS on AMD) one block may use, in bytes.
    pub(crate) max_shared: u32,
    pub(crate) driver_version: u32,
    /// Threads per warp (wavefront on AMD): 32 on NVIDIA, 64 on CDNA.
    pub(crate) warp_size: u32,
}

/// The raw device operations of one backend, on one opened device. Addresses are
/// device addresses as `u64`; every call makes the device current on the calling thread
/// first, so a `Device` can be used from any thread.
pub(crate) trait DeviceApi: Send + Sync + fmt::Debug {
    /// Allocates `bytes` (at least one); running out is [`RuntimeError::OutOfMemory`].
    fn alloc(&self, bytes: u64, total_memory: u64) -> Result<u64, RuntimeError>;
    /// Frees an allocation; errors at teardown have no one to go to.
    fn free(&self, addr: u64);
    /// Sets `bytes` bytes at `addr` to `value`.
    fn memset(&self, addr: u64, value: u8, bytes: u64) -> Result<(), RuntimeError>;
    /// Copies host bytes to `addr`; waits for the copy.
    fn copy_to_device(&self, addr: u64, src: &[u8]) -> Result<(), RuntimeError>;
    /// Copies device bytes at `addr` to the host; waits for prior work.
    fn copy_to_host(&self, dst: &mut [u8], addr: u64) -> Result<(), RuntimeError>;
    /// `(free, total)` device memory in bytes.
    fn memory_info(&self) -> Result<(u64, u64), RuntimeError>;
    /// Waits for all work on the device.
    fn synchronize(&self) -> Result<(), RuntimeError>;
    /// Loads the bundle's code and looks its entry up. The bundle's target belongs to
    /// this backend (the caller checked).
    fn load(&self, bundle: &Bundle, info: &DeviceInfo) -> Result<LoadedFunction, RuntimeError>;
    /// `n` timing events on the default stream.
    fn events(&self, n: usize) -> Result<Box<dyn EventSeries>, RuntimeError>;
}

/// A kernel function with its module, as a backend loaded it.
#[derive(Debug)]
pub(crate) struct LoadedFunction {
    pub(crate) function: Box<dyn FunctionApi>,
    pub(crate) code: CodeChoice,
    pub(crate) cubin_error: Option<String>,
}

/// One loaded kernel entry; unloads its module on drop.
pub(crate) trait FunctionApi: Send + Sync + fmt::Debug {
    /// Makes the function's device current on the calling thread.
    fn bind(&self) -> Result<(), RuntimeError>;
    /// Enqueues one launch on `stream`; the caller made the device current. `params`
    /// holds one pointer per kernel parameter to its value.
    fn launch_bound(
        &self,
        grid: Grid,
        block_threads: u32,
        dynamic_shared_bytes: u32,
        stream: Stream,
        params: &mut [*mut c_void],
    ) -> Result<(), RuntimeError>;
    /// Waits for the device; the caller made it current.
    fn synchronize_bound(&self) -> Result<(), RuntimeError>;
}

/// Timing events recorded on the default stream.
pub(crate) trait EventSeries {
    /// Records event `i`.
    fn record(&self, i: usize) -> Result<(), RuntimeError>;
    /// Waits until event `i` completed.
    fn synchronize(&self, i: usize) -> Result<(), RuntimeError>;
    /// Milliseconds between events `from` and `to` (both complete).
    fn elapsed_ms(&self, from: usize, to: usize) -> Result<f32, RuntimeError>;
}
