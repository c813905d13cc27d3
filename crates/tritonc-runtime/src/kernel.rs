//! Loaded kernels: module loading (cubin or PTX JIT), launch preparation and timing.

use std::ffi::{c_uint, c_void, CString};
use std::sync::Arc;
use std::time::Instant;

use cudarc::driver::sys;
use tritonc_bundle::{Bundle, BundleMeta, HiddenParamKind};

use crate::args::{Arg, Grid};
use crate::check::{check_and_marshal, ParamBuffer};
use crate::device::{check, driver_error, error_name, Context, Device, DeviceBuffer};
use crate::error::{LaunchRefusal, RuntimeError};
use crate::select::{code_for_device, CodeChoice};

/// Dynamic shared memory a kernel may use without opting in.
const DEFAULT_SHARED_LIMIT: u32 = 48 * 1024;

/// A bundle loaded on a device, ready to launch.
#[derive(Debug)]
pub struct Kernel {
    ctx: Arc<Context>,
    device: Device,
    module: sys::CUmodule,
    func: sys::CUfunction,
    meta: BundleMeta,
    code: CodeChoice,
    cubin_error: Option<String>,
}

impl Drop for Kernel {
    fn drop(&mut self) {
        // SAFETY: loaded in `Device::load` and unloaded once.
        unsafe {
            if sys::cuCtxSetCurrent(self.ctx.ctx) == sys::CUresult::CUDA_SUCCESS {
                let _ = sys::cuModuleUnload(self.module);
            }
        }
    }
}

impl Device {
    /// Loads a bundle: its cubin when it fits this GPU, else its PTX through the
    /// driver's JIT; opts into more than 48 KB of dynamic shared memory when the bundle
    /// needs it.
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
        let incompatible = |reason: String| RuntimeError::IncompatibleBundle {
            entry: meta.entry.clone(),
            reason,
        };
        let mut code = code_for_device(meta, bundle.cubin.is_some(), self.compute_capability())
            .map_err(incompatible)?;
        let shared = u64::from(meta.dynamic_shared_bytes) + u64::from(meta.static_shared_bytes);
        if shared > u64::from(self.max_shared_optin) {
            return Err(incompatible(format!(
                "it needs {shared} bytes of shared memory per block, the GPU allows {}",
                self.max_shared_optin
            )));
        }
        self.ctx.bind()?;
        let mut cubin_error = None;
        let module = match (code, &bundle.cubin) {
            (CodeChoice::Cubin, Some(cubin)) => match load_image(cubin.as_ptr().cast()) {
                Ok(m) => m,
                // A cubin the driver cannot use (built by a newer ptxas, say): fall back
                // to the PTX, and keep the reason for `Kernel::cubin_error`.
                Err(e) => {
                    cubin_error = Some(e.to_string());
                    code = CodeChoice::Ptx;
                    load_ptx(meta, &bundle.ptx)?
                }
            },
            _ => load_ptx(meta, &bundle.ptx)?,
        };
        let mut kernel = Kernel {
            ctx: Arc::clone(&self.ctx),
            device: self.clone(),
            module,
            func: std::ptr::null_mut(),
            meta: meta.clone(),
            code,
            cubin_error,
        };
        let entry = CString::new(meta.entry.as_str())
            .map_err(|_| incompatible("the entry name contains a NUL byte".into()))?;
        // SAFETY: `module` is loaded in the current context; out-pointer is a field.
        if let Err(e) =
            unsafe { sys::cuModuleGetFunction(&mut kernel.func, module, entry.as_ptr()) }.result()
        {
            return Err(incompatible(format!(
                "the module has no function `{}` ({})",
                meta.entry,
                error_name(e)
            )));
        }
        if meta.dynamic_shared_bytes > DEFAULT_SHARED_LIMIT {
            // SAFETY: `func` is a live function of this context.
            check("cuFuncSetAttribute", unsafe {
                sys::cuFuncSetAttribute(
                    kernel.func,
                    sys::CUfunction_attribute::CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                    meta.dynamic_shared_bytes as i32,
                )
            })?;
        }
        Ok(kernel)
    }
}

fn load_image(image: *const c_void) -> Result<sys::CUmodule, RuntimeError> {
    let mut module: sys::CUmodule = std::ptr::null_mut();
    // SAFETY: `image` is a cubin in memory; no options.
    check("cuModuleLoadDataEx", unsafe {
        sys::cuModuleLoadDataEx(
            &mut module,
            image,
            0,
            std::ptr::null_mut(),
            std::ptr::null_mut(),
        )
    })?;
    Ok(module)
}

fn load_ptx(meta: &BundleMeta, ptx: &str) -> Result<sys::CUmodule, RuntimeError> {
    let text = CString::new(ptx).map_err(|_| RuntimeError::IncompatibleBundle {
        entry: meta.entry.clone(),
        reason: "the PTX contains a NUL byte".into(),
    })?;
    let mut log = vec![0u8; 16 * 1024];
    let mut options = [
        sys::CUjit_option::CU_JIT_ERROR_LOG_BUFFER,
        sys::CUjit_option::CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES,
    ];
    // The driver reads option values as pointer-sized slots: a pointer, then a size.
    let mut values = [log.as_mut_ptr().cast::<c_void>(), log.len() as *mut c_void];
    let mut module: sys::CUmodule = std::ptr::null_mut();
    // SAFETY: NUL-terminated PTX; two options with matching values; `log` outlives the call.
    let r = unsafe {
        sys::cuModuleLoadDataEx(
            &mut module,
            text.as_ptr().cast(),
            options.len() as c_uint,
            options.as_mut_ptr(),
            values.as_mut_ptr(),
        )
    };
    if let Err(e) = r.result() {
        let end = log.iter().position(|&b| b == 0).unwrap_or(log.len());
        let log = String::from_utf8_lossy(&log[..end]).trim().to_string();
        use sys::CUresult as R;
        return Err(match e.0 {
            R::CUDA_ERROR_UNSUPPORTED_PTX_VERSION | R::CUDA_ERROR_NO_BINARY_FOR_GPU => {
                RuntimeError::IncompatibleBundle {
                    entry: meta.entry.clone(),
                    reason: format!(
                        "the driver cannot compile its PTX ({}): {log}",
                        error_name(e)
                    ),
                }
            }
            R::CUDA_ERROR_OUT_OF_MEMORY => RuntimeError::OutOfMemory {
                requested: 0,
                free: 0,
                total: 0,
            },
            _ => RuntimeError::Jit {
                entry: meta.entry.clone(),
                code: error_name(e),
                log,
            },
        });
    }
    Ok(module)
}

impl Kernel {
    /// The bundle's metadata.
    pub fn meta(&self) -> &BundleMeta {
        &self.meta
    }

    /// Whether the cubin or the PTX was loaded.
    pub fn code(&self) -> CodeChoice {
        self.code
    }

    /// Why the bundle's cubin was not loaded, when the PTX was loaded in its place.
    pub fn cubin_error(&self) -> Option<&str> {
        self.cubin_error.as_deref()
    }

    /// Threads per block: `32 * num_warps`.
    pub fn block_threads(&self) -> u32 {
        32 * self.meta.num_warps
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
                        params.set(h.index as usize, buf.ptr().addr);
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

    /// Checks, marshals and launches (asynchronously: synchronize or copy back to wait).
    pub fn launch(&self, grid: Grid, args: &[Arg]) -> Result<(), RuntimeError> {
        self.prepare(grid, args)?.launch()
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
        self.kernel.ctx.bind()?;
        self.launch_bound()
    }

    /// Enqueues without making the context current (the caller did).
    fn launch_bound(&mut self) -> Result<(), RuntimeError> {
        let k = self.kernel;
        // SAFETY: `func` is live; `kernel_params` holds one pointer per `.entry`
        // parameter into `_params`, which this struct owns and never resizes.
        check("cuLaunchKernel", unsafe {
            sys::cuLaunchKernel(
                k.func,
                self.grid.x,
                self.grid.y,
                self.grid.z,
                k.block_threads(),
                1,
                1,
                k.meta.dynamic_shared_bytes,
                std::ptr::null_mut(),
                self.kernel_params.as_mut_ptr(),
                std::ptr::null_mut(),
            )
        })
    }

    /// Launches `n` times (after one untimed warm-up launch) and measures each launch:
    /// its GPU time between CUDA events around it, and the host time the launch call
    /// took. A second, event-free burst of `n` launches measures the host launch rate.
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
        self.kernel.ctx.bind()?;
        self.launch_bound()?;
        sync()?;
        let events = (0..=n)
            .map(|_| Event::new())
            .collect::<Result<Vec<_>, _>>()?;
        let mut host_us = Vec::with_capacity(n);
        events[0].record()?;
        for e in &events[1..] {
            let t = Instant::now();
            self.launch_bound()?;
            host_us.push(t.elapsed().as_secs_f64() * 1e6);
            e.record()?;
        }
        events[n].synchronize()?;
        let gpu_ms = events
            .windows(2)
            .map(|w| w[1].elapsed_since(&w[0]))
            .collect::<Result<Vec<_>, _>>()?;
        let t = Instant::now();
        for _ in 0..n {
            self.launch_bound()?;
        }
        let burst = t.elapsed().as_secs_f64() * 1e6 / n as f64;
        sync()?;
        Ok(LaunchTimings {
            gpu_ms,
            host_us,
            burst_host_us_per_launch: burst,
        })
    }
}

fn sync() -> Result<(), RuntimeError> {
    // SAFETY: the caller made the context current.
    check("cuCtxSynchronize", unsafe { sys::cuCtxSynchronize() })
}

/// Per-launch measurements from [`PreparedLaunch::time_launches`].
#[derive(Debug, Clone, PartialEq)]
pub struct LaunchTimings {
    /// GPU time of each launch, in milliseconds (CUDA events around it).
    pub gpu_ms: Vec<f32>,
    /// Host time of each `cuLaunchKernel` call, in microseconds.
    pub host_us: Vec<f64>,
    /// Host time per launch over a burst of back-to-back launches, in microseconds.
    pub burst_host_us_per_launch: f64,
}

impl LaunchTimings {
    /// Median GPU time in milliseconds.
    pub fn median_gpu_ms(&self) -> f64 {
        median(self.gpu_ms.iter().map(|&x| f64::from(x)).collect())
    }

    /// Fastest GPU time in milliseconds.
    pub fn min_gpu_ms(&self) -> f64 {
        self.gpu_ms.iter().copied().fold(f32::INFINITY, f32::min) as f64
    }

    /// Median host time of one launch call, in microseconds.
    pub fn median_host_us(&self) -> f64 {
        median(self.host_us.clone())
    }
}

fn median(mut v: Vec<f64>) -> f64 {
    if v.is_empty() {
        return f64::NAN;
    }
    v.sort_by(f64::total_cmp);
    let m = v.len() / 2;
    if v.len() % 2 == 1 {
        v[m]
    } else {
        (v[m - 1] + v[m]) / 2.0
    }
}

/// A CUDA event on the default stream.
struct Event(sys::CUevent);

impl Event {
    fn new() -> Result<Event, RuntimeError> {
        let mut e: sys::CUevent = std::ptr::null_mut();
        // SAFETY: out-pointer is a local; the caller made the context current.
        check("cuEventCreate", unsafe {
            sys::cuEventCreate(&mut e, sys::CUevent_flags::CU_EVENT_DEFAULT as u32)
        })?;
        Ok(Event(e))
    }

    fn record(&self) -> Result<(), RuntimeError> {
        // SAFETY: live event; default stream.
        check("cuEventRecord", unsafe {
            sys::cuEventRecord(self.0, std::ptr::null_mut())
        })
    }

    fn synchronize(&self) -> Result<(), RuntimeError> {
        // SAFETY: live event.
        check("cuEventSynchronize", unsafe {
            sys::cuEventSynchronize(self.0)
        })
    }

    fn elapsed_since(&self, start: &Event) -> Result<f32, RuntimeError> {
        let mut ms = 0f32;
        // SAFETY: both events recorded and complete; out-pointer is a local.
        let r = if crate::device::ELAPSED_V2.get().copied().unwrap_or(false) {
            unsafe { sys::cuEventElapsedTime_v2(&mut ms, start.0, self.0) }
        } else {
            unsafe { sys::cuEventElapsedTime(&mut ms, start.0, self.0) }
        };
        r.result()
            .map_err(|e| driver_error("cuEventElapsedTime", e))?;
        Ok(ms)
    }
}

impl Drop for Event {
    fn drop(&mut self) {
        // SAFETY: created once, destroyed once.
        unsafe {
            let _ = sys::cuEventDestroy_v2(self.0);
        }
    }
}
