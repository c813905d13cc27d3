//! Loaded kernels, whatever the backend: loading a bundle, launch preparation (the
//! shared argument checks and marshalling), launches and timing.

use std::ffi::c_void;
use std::time::Instant;

use tritonc_bundle::{Bundle, BundleMeta, HiddenParamKind};

use crate::args::{Arg, Grid, Stream};
use crate::backend::FunctionApi;
use crate::check::{check_and_marshal, ParamBuffer};
use crate::device::{Device, DeviceBuffer};
use crate::error::{LaunchRefusal, RuntimeError};
use crate::select::{other_vendor, CodeChoice};

/// A bundle loaded on a device, ready to launch.
#[derive(Debug)]
pub struct Kernel {
    device: Device,
    function: Box<dyn FunctionApi>,
    meta: BundleMeta,
    code: CodeChoice,
    cubin_error: Option<String>,
}

impl Device {
    /// Loads a bundle. On CUDA: its cubin when it fits this GPU, else its PTX through the
    /// driver's JIT, opting into more than 48 KB of dynamic shared memory when the bundle
    /// needs it. On HIP: its code object, when it was built for this GPU's processor.
    /// A bundle for the other vendor's GPUs is [`RuntimeError::IncompatibleBundle`].
    ///
    /// ```no_run
    /// use std::path::Path;
    /// use tritonc_runtime::{Bundle, Device};
    ///
    /// let dev = Device::open(0)?;
    /// let bundle = Bundle::read_dir(Path::new("bundles/add_kernel-0123456789abcdef.tcb"))?;
    /// let kernel = dev.load(&bundle)?;
    /// println!("{} loaded from {:?}", kernel.meta().entry, kernel.code());
    /// # Ok::<(), tritonc_runtime::RuntimeError>(())
    /// ```
    pub fn load(&self, bundle: &Bundle) -> Result<Kernel, RuntimeError> {
        let meta = &bundle.meta;
        if let Some(reason) = other_vendor(meta, self) {
            return Err(RuntimeError::IncompatibleBundle {
                entry: meta.entry.clone(),
                reason,
            });
        }
        // The driver reads the binary by address alone: a hand-built bundle's is checked.
        bundle
            .check_binary()
            .map_err(|reason| RuntimeError::IncompatibleBundle {
                entry: meta.entry.clone(),
                reason,
            })?;
        let loaded = self.api.load(bundle, &self.info)?;
        Ok(Kernel {
            device: self.clone(),
            function: loaded.function,
            meta: meta.clone(),
            code: loaded.code,
            cubin_error: loaded.cubin_error,
        })
    }
}

impl Kernel {
    /// The bundle's metadata.
    pub fn meta(&self) -> &BundleMeta {
        &self.meta
    }

    /// The device it is loaded on.
    pub fn device(&self) -> Device {
        self.device.clone()
    }

    /// Which of the bundle's code was loaded.
    pub fn code(&self) -> CodeChoice {
        self.code
    }

    /// Why the bundle's cubin was not loaded, when the PTX was loaded in its place.
    pub fn cubin_error(&self) -> Option<&str> {
        self.cubin_error.as_deref()
    }

    /// Threads per block: the device's warp size times `num_warps` (`32 * num_warps` on
    /// NVIDIA, `64 * num_warps` on CDNA).
    pub fn block_threads(&self) -> u32 {
        self.device.warp_size().saturating_mul(self.meta.num_warps)
    }

    /// Checks `args` against the bundle's assumptions and marshals them, allocating
    /// the global scratch a hidden parameter asks for. The result launches with no
    /// further checks or allocation.
    pub fn prepare(&self, grid: Grid, args: &[Arg]) -> Result<PreparedLaunch<'_>, RuntimeError> {
        grid.check().map_err(RuntimeError::InvalidGrid)?;
        let mut params = check_and_marshal(&self.meta, args).map_err(|violations| {
            RuntimeError::LaunchRefused(LaunchRefusal {
                variant: self.meta.key.to_string(),
                violations,
            })
        })?;
        let mut scratch = Vec::new();
        for h in &self.meta.hidden_params {
            match h.kind {
                HiddenParamKind::GlobalScratch {
                    bytes_per_program, ..
                } => {
                    if bytes_per_program > 0 {
                        let total = bytes_per_program.saturating_mul(grid.programs());
                        let buf = self.device.alloc_zeroed(tritonc_ir::DType::I8, total)?;
                        if !params.set(h.index as usize, buf.ptr().addr) {
                            return Err(RuntimeError::IncompatibleBundle {
                                entry: self.meta.entry.clone(),
                                reason: format!(
                                    "its scratch parameter {} is not among the kernel's parameters",
                                    h.index
                                ),
                            });
                        }
                        scratch.push(buf);
                    }
                }
            }
        }
        let kernel_params = params.kernel_params();
        Ok(PreparedLaunch {
            kernel: self,
            _params: params,
            kernel_params,
            grid,
            _scratch: scratch,
        })
    }

    /// Checks, marshals and launches on the default stream (asynchronously:
    /// synchronize or copy back to wait).
    pub fn launch(&self, grid: Grid, args: &[Arg]) -> Result<(), RuntimeError> {
        self.prepare(grid, args)?.launch()
    }

    /// Checks, marshals and launches on the caller's `stream`, asynchronously. Pointer
    /// arguments may be any device memory of the kernel's context
    /// ([`DevicePtr`](crate::DevicePtr) says where and what it is); nothing is
    /// allocated, copied or synchronized.
    pub fn launch_on(&self, stream: Stream, grid: Grid, args: &[Arg]) -> Result<(), RuntimeError> {
        self.prepare(grid, args)?.launch_on(stream)
    }
}

/// A launch with its arguments checked and marshalled: launching it is one driver call.
#[derive(Debug)]
pub struct PreparedLaunch<'k> {
    kernel: &'k Kernel,
    /// Owns the memory `kernel_params` points into.
    _params: ParamBuffer,
    kernel_params: Vec<*mut c_void>,
    grid: Grid,
    _scratch: Vec<DeviceBuffer>,
}

impl PreparedLaunch<'_> {
    /// Enqueues the kernel on the default stream.
    pub fn launch(&mut self) -> Result<(), RuntimeError> {
        self.launch_on(Stream::DEFAULT)
    }

    /// Enqueues the kernel on `stream`.
    pub fn launch_on(&mut self, stream: Stream) -> Result<(), RuntimeError> {
        self.kernel.function.bind()?;
        self.launch_bound_on(stream)
    }

    /// The device the kernel is loaded on.
    pub(crate) fn device(&self) -> Device {
        self.kernel.device.clone()
    }

    /// Makes the kernel's device current on the calling thread.
    pub(crate) fn bind(&self) -> Result<(), RuntimeError> {
        self.kernel.function.bind()
    }

    /// [`Self::launch_bound`] for the timing loop.
    pub(crate) fn launch_bound_default(&mut self) -> Result<(), RuntimeError> {
        self.launch_bound()
    }

    /// Enqueues on the default stream without making the device current (the caller did).
    fn launch_bound(&mut self) -> Result<(), RuntimeError> {
        self.launch_bound_on(Stream::DEFAULT)
    }

    fn launch_bound_on(&mut self, stream: Stream) -> Result<(), RuntimeError> {
        let k = self.kernel;
        // `kernel_params` holds one pointer per kernel parameter into `_params`, which
        // this struct owns and never resizes.
        k.function.launch_bound(
            self.grid,
            k.block_threads(),
            k.meta.dynamic_shared_bytes,
            stream,
            &mut self.kernel_params,
        )
    }

    /// Launches `n` times (after one untimed warm-up launch) and measures each launch:
    /// its GPU time between events around it, and the host time the launch call took.
    /// A second, event-free burst of `n` launches measures the host launch rate.
    ///
    /// ```no_run
    /// # fn f(kernel: &tritonc_runtime::Kernel, args: &[tritonc_runtime::Arg]) -> Result<(), tritonc_runtime::RuntimeError> {
    /// let mut launch = kernel.prepare(tritonc_runtime::Grid::x(4096), args)?;
    /// let t = launch.time_launches(100)?;
    /// println!("median {:.3} ms on the GPU, {:.2} µs per launch on the host",
    ///          t.median_gpu_ms(), t.burst_host_us_per_launch);
    /// # Ok(()) }
    /// ```
    pub fn time_launches(&mut self, n: usize) -> Result<LaunchTimings, RuntimeError> {
        let n = n.max(1);
        let kernel = self.kernel;
        let function = &kernel.function;
        function.bind()?;
        self.launch_bound()?;
        function.synchronize_bound()?;
        let events = kernel.device.api.events(n + 1)?;
        let mut host_us = Vec::with_capacity(n);
        events.record(0)?;
        for i in 1..=n {
            let t = Instant::now();
            self.launch_bound()?;
            host_us.push(t.elapsed().as_secs_f64() * 1e6);
            events.record(i)?;
        }
        events.synchronize(n)?;
        let gpu_ms = (1..=n)
            .map(|i| events.elapsed_ms(i - 1, i))
            .collect::<Result<Vec<_>, _>>()?;
        let t = Instant::now();
        for _ in 0..n {
            self.launch_bound()?;
        }
        let burst = t.elapsed().as_secs_f64() * 1e6 / n as f64;
        function.synchronize_bound()?;
        Ok(LaunchTimings {
            gpu_ms,
            host_us,
            burst_host_us_per_launch: burst,
        })
    }
}

/// Per-launch measurements from [`PreparedLaunch::time_launches`].
#[derive(Debug, Clone, PartialEq)]
pub struct LaunchTimings {
    /// GPU time of each launch, in milliseconds (GPU events around it).
    pub gpu_ms: Vec<f32>,
    /// Host time of each launch call, in microseconds.
    pub host_us: Vec<f64>,
    /// Host time per launch over a burst of back-to-back launches, in microseconds.
    pub burst_host_us_per_launch: f64,
}

impl LaunchTimings {
    /// Median GPU time in milliseconds.
    pub fn median_gpu_ms(&self) -> f64 {
        crate::timing::median(&self.gpu_ms.iter().map(|&x| f64::from(x)).collect::<Vec<_>>())
    }

    /// Fastest GPU time in milliseconds.
    pub fn min_gpu_ms(&self) -> f64 {
        self.gpu_ms.iter().copied().fold(f32::INFINITY, f32::min) as f64
    }

    /// Median host time of one launch call, in microseconds.
    pub fn median_host_us(&self) -> f64 {
        crate::timing::median(&self.host_us)
    }
}
