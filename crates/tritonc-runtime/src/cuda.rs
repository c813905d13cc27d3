//! The CUDA backend: the driver API through cudarc's raw bindings, libcuda loaded at run
//! time; a device's retained primary context, module loading (cubin or PTX JIT), launches
//! and events.

use std::ffi::{c_char, c_int, c_uint, c_void, CStr, CString};
use std::sync::Arc;

use cudarc::driver::result::DriverError;
use cudarc::driver::sys;
use tritonc_bundle::{Bundle, BundleMeta};

use crate::args::{Grid, Stream};
use crate::backend::{Backend, DeviceApi, DeviceInfo, EventSeries, FunctionApi, LoadedFunction};
use crate::error::RuntimeError;
use crate::select::{check_ptx_driver, code_for_bundle, CodeChoice};

/// Every driver entry point the runtime calls; checked once at [`open`] so an old
/// driver gives [`RuntimeError::DriverTooOld`] instead of a panic mid-launch.
const REQUIRED_SYMBOLS: &[&str] = &[
    "cuInit",
    "cuDriverGetVersion",
    "cuDeviceGetCount",
    "cuDeviceGet",
    "cuDeviceGetName",
    "cuDeviceGetAttribute",
    "cuDeviceTotalMem_v2",
    "cuDevicePrimaryCtxRetain",
    "cuDevicePrimaryCtxRelease_v2",
    "cuCtxSetCurrent",
    "cuCtxSynchronize",
    "cuMemAlloc_v2",
    "cuMemFree_v2",
    "cuMemGetInfo_v2",
    "cuMemcpyHtoD_v2",
    "cuMemcpyDtoH_v2",
    "cuMemsetD8_v2",
    "cuModuleLoadDataEx",
    "cuModuleGetFunction",
    "cuModuleUnload",
    "cuFuncSetAttribute",
    "cuLaunchKernel",
    "cuEventCreate",
    "cuEventRecord",
    "cuEventSynchronize",
    "cuEventDestroy_v2",
    "cuGetErrorName",
    "cuGetErrorString",
];

/// Dynamic shared memory a kernel may use without opting in.
const DEFAULT_SHARED_LIMIT: u32 = 48 * 1024;

/// Whether the driver has `cuEventElapsedTime_v2` (set once by [`open`]).
static ELAPSED_V2: std::sync::OnceLock<bool> = std::sync::OnceLock::new();

/// Turns a driver status into a [`RuntimeError::Driver`] naming the call.
fn check(call: &'static str, r: sys::CUresult) -> Result<(), RuntimeError> {
    r.result().map_err(|e| driver_error(call, e))
}

fn driver_error(call: &'static str, e: DriverError) -> RuntimeError {
    if e.0 == sys::CUresult::CUDA_ERROR_ASSERT {
        return RuntimeError::DeviceAssert {
            status: "CUDA_ERROR_ASSERT",
            call,
        };
    }
    RuntimeError::Driver {
        call,
        code: error_name(e),
        message: e
            .error_string()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_else(|_| "unknown error".into()),
    }
}

fn error_name(e: DriverError) -> String {
    e.error_name()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_else(|_| format!("CUresult {}", e.0 as u32))
}

/// Whether libcuda can be loaded on this machine (no driver call is made).
pub(crate) fn driver_present() -> bool {
    // SAFETY: only tries to dlopen the library.
    unsafe { sys::is_culib_present() }
}

/// The retained primary context of one device; released when the last user drops it.
#[derive(Debug)]
struct Context {
    ctx: sys::CUcontext,
    dev: sys::CUdevice,
}

// SAFETY: a CUDA context handle may be used from any thread once made current there;
// every use goes through `bind`, which makes it current on the calling thread.
unsafe impl Send for Context {}
// SAFETY: as above; the driver API is thread-safe.
unsafe impl Sync for Context {}

impl Context {
    /// Makes the context current on the calling thread.
    fn bind(&self) -> Result<(), RuntimeError> {
        // SAFETY: `ctx` is a live retained primary context.
        check("cuCtxSetCurrent", unsafe { sys::cuCtxSetCurrent(self.ctx) })
    }
}

impl Drop for Context {
    fn drop(&mut self) {
        // SAFETY: retained in `open`; released exactly once here. Errors at teardown
        // have no one to go to.
        unsafe {
            let _ = sys::cuDevicePrimaryCtxRelease_v2(self.dev);
        }
    }
}

/// Opens CUDA GPU `ordinal`: loads libcuda, initializes the driver and retains the
/// device's primary context.
pub(crate) fn open(ordinal: usize) -> Result<(DeviceInfo, Arc<dyn DeviceApi>), RuntimeError> {
    if !driver_present() {
        return Err(RuntimeError::NoDriver {
            searched: cudarc::get_lib_name_candidates("cuda").join(", "),
        });
    }
    // SAFETY: the library is present (checked above), so `culib` does not panic;
    // looking a symbol up has no side effects.
    let lib = unsafe { sys::culib() };
    // SAFETY: a lookup only; the pointer is never called through this type.
    let has = |symbol: &str| unsafe { lib.get::<*const c_void>(symbol.as_bytes()) }.is_ok();
    for &symbol in REQUIRED_SYMBOLS {
        if !has(symbol) {
            return Err(RuntimeError::DriverTooOld { symbol });
        }
    }
    // CUDA 12.8 added `cuEventElapsedTime_v2`; CUDA 13 headers call only it. Either works.
    let v2 = has("cuEventElapsedTime_v2");
    if !v2 && !has("cuEventElapsedTime") {
        return Err(RuntimeError::DriverTooOld {
            symbol: "cuEventElapsedTime",
        });
    }
    let _ = ELAPSED_V2.set(v2);
    // SAFETY: every entry point below was found above; out-pointers are locals.
    unsafe {
        if let Err(e) = sys::cuInit(0).result() {
            return Err(RuntimeError::NoDevice {
                reason: format!(
                    "cuInit failed with {}: {}",
                    error_name(e),
                    e.error_string()
                        .map(|s| s.to_string_lossy().into_owned())
                        .unwrap_or_default()
                ),
            });
        }
        let mut version: c_int = 0;
        check("cuDriverGetVersion", sys::cuDriverGetVersion(&mut version))?;
        let mut count: c_int = 0;
        check("cuDeviceGetCount", sys::cuDeviceGetCount(&mut count))?;
        if count <= 0 {
            return Err(RuntimeError::NoDevice {
                reason: "the driver reports no devices".into(),
            });
        }
        if ordinal >= count as usize {
            return Err(RuntimeError::DeviceNotFound {
                ordinal,
                count: count as usize,
            });
        }
        let mut dev: sys::CUdevice = 0;
        check("cuDeviceGet", sys::cuDeviceGet(&mut dev, ordinal as c_int))?;
        let attr = |a: sys::CUdevice_attribute| -> Result<i32, RuntimeError> {
            let mut v: c_int = 0;
            check(
                "cuDeviceGetAttribute",
                sys::cuDeviceGetAttribute(&mut v, a, dev),
            )?;
            Ok(v)
        };
        use sys::CUdevice_attribute as A;
        let major = attr(A::CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR)?;
        let minor = attr(A::CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR)?;
        let max_shared_optin = attr(A::CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN)?;
        let mut name_buf = [0 as c_char; 256];
        check(
            "cuDeviceGetName",
            sys::cuDeviceGetName(name_buf.as_mut_ptr(), name_buf.len() as c_int, dev),
        )?;
        let name = CStr::from_ptr(name_buf.as_ptr())
            .to_string_lossy()
            .into_owned();
        let mut total: usize = 0;
        check(
            "cuDeviceTotalMem",
            sys::cuDeviceTotalMem_v2(&mut total, dev),
        )?;
        let mut ctx: sys::CUcontext = std::ptr::null_mut();
        check(
            "cuDevicePrimaryCtxRetain",
            sys::cuDevicePrimaryCtxRetain(&mut ctx, dev),
        )?;
        let ctx = Arc::new(Context { ctx, dev });
        ctx.bind()?;
        let (major, minor) = (major as u32, minor as u32);
        let info = DeviceInfo {
            backend: Backend::Cuda,
            ordinal,
            name,
            arch: format!("sm_{major}{minor}"),
            capability: (major, minor),
            total_memory: total as u64,
            max_shared: max_shared_optin.max(0) as u32,
            driver_version: version as u32,
            warp_size: 32,
        };
        Ok((info, Arc::new(CudaDevice { ctx })))
    }
}

/// An opened CUDA device.
#[derive(Debug)]
struct CudaDevice {
    ctx: Arc<Context>,
}

impl DeviceApi for CudaDevice {
    fn alloc(&self, bytes: u64, total_memory: u64) -> Result<u64, RuntimeError> {
        self.ctx.bind()?;
        let mut addr: sys::CUdeviceptr = 0;
        // SAFETY: out-pointer is a local; the context is current. A zero-byte request is
        // rounded up to one byte so every buffer has a distinct valid address.
        if let Err(e) = unsafe { sys::cuMemAlloc_v2(&mut addr, bytes.max(1) as usize) }.result() {
            if e.0 == sys::CUresult::CUDA_ERROR_OUT_OF_MEMORY {
                let (free, total) = self.memory_info().unwrap_or((0, total_memory));
                return Err(RuntimeError::OutOfMemory {
                    requested: bytes,
                    free,
                    total,
                });
            }
            return Err(driver_error("cuMemAlloc", e));
        }
        Ok(addr)
    }

    fn free(&self, addr: u64) {
        // SAFETY: allocated by cuMemAlloc in this context and freed once. Errors at
        // teardown (a context already broken by a fault) have no one to go to.
        unsafe {
            if sys::cuCtxSetCurrent(self.ctx.ctx) == sys::CUresult::CUDA_SUCCESS {
                let _ = sys::cuMemFree_v2(addr);
            }
        }
    }

    fn memset(&self, addr: u64, value: u8, bytes: u64) -> Result<(), RuntimeError> {
        self.ctx.bind()?;
        // SAFETY: the caller's allocation spans `bytes` bytes.
        check("cuMemsetD8", unsafe {
            sys::cuMemsetD8_v2(addr, value, bytes as usize)
        })
    }

    fn copy_to_device(&self, addr: u64, src: &[u8]) -> Result<(), RuntimeError> {
        self.ctx.bind()?;
        // SAFETY: the allocation at `addr` spans `src.len()` bytes (checked by the caller).
        check("cuMemcpyHtoD", unsafe {
            sys::cuMemcpyHtoD_v2(addr, src.as_ptr().cast(), src.len())
        })
    }

    fn copy_to_host(&self, dst: &mut [u8], addr: u64) -> Result<(), RuntimeError> {
        self.ctx.bind()?;
        // SAFETY: the allocation at `addr` spans `dst.len()` bytes (checked by the caller).
        check("cuMemcpyDtoH", unsafe {
            sys::cuMemcpyDtoH_v2(dst.as_mut_ptr().cast(), addr, dst.len())
        })
    }

    fn memory_info(&self) -> Result<(u64, u64), RuntimeError> {
        self.ctx.bind()?;
        let (mut free, mut total) = (0usize, 0usize);
        // SAFETY: out-pointers are locals; the context is current.
        check("cuMemGetInfo", unsafe {
            sys::cuMemGetInfo_v2(&mut free, &mut total)
        })?;
        Ok((free as u64, total as u64))
    }

    fn synchronize(&self) -> Result<(), RuntimeError> {
        self.ctx.bind()?;
        // SAFETY: the context is current.
        check("cuCtxSynchronize", unsafe { sys::cuCtxSynchronize() })
    }

    fn load(&self, bundle: &Bundle, info: &DeviceInfo) -> Result<LoadedFunction, RuntimeError> {
        let meta = &bundle.meta;
        let incompatible = |reason: String| RuntimeError::IncompatibleBundle {
            entry: meta.entry.clone(),
            reason,
        };
        let mut code =
            code_for_bundle(bundle, info.capability).map_err(incompatible)?;
        let shared = u64::from(meta.dynamic_shared_bytes) + u64::from(meta.static_shared_bytes);
        if shared > u64::from(info.max_shared) {
            return Err(incompatible(format!(
                "it needs {shared} bytes of shared memory per block, the GPU allows {}",
                info.max_shared
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
                    check_ptx_driver(bundle, info.driver_version).map_err(|reason| {
                        incompatible(format!("its cubin did not load ({e}), and {reason}"))
                    })?;
                    cubin_error = Some(e.to_string());
                    code = CodeChoice::Ptx;
                    load_ptx(meta, &bundle.ptx)?
                }
            },
            _ => {
                check_ptx_driver(bundle, info.driver_version).map_err(incompatible)?;
                load_ptx(meta, &bundle.ptx)?
            }
        };
        let mut function = CudaFunction {
            ctx: Arc::clone(&self.ctx),
            module,
            func: std::ptr::null_mut(),
        };
        let entry = CString::new(meta.entry.as_str())
            .map_err(|_| incompatible("the entry name contains a NUL byte".into()))?;
        // SAFETY: `module` is loaded in the current context; out-pointer is a field.
        if let Err(e) =
            unsafe { sys::cuModuleGetFunction(&mut function.func, module, entry.as_ptr()) }.result()
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
                    function.func,
                    sys::CUfunction_attribute::CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                    meta.dynamic_shared_bytes as i32,
                )
            })?;
        }
        Ok(LoadedFunction {
            function: Box::new(function),
            code,
            cubin_error,
        })
    }

    fn events(&self, n: usize) -> Result<Box<dyn EventSeries>, RuntimeError> {
        self.ctx.bind()?;
        let mut events = CudaEvents(Vec::with_capacity(n));
        for _ in 0..n {
            let mut e: sys::CUevent = std::ptr::null_mut();
            // SAFETY: out-pointer is a local; the context is current.
            check("cuEventCreate", unsafe {
                sys::cuEventCreate(&mut e, sys::CUevent_flags::CU_EVENT_DEFAULT as u32)
            })?;
            events.0.push(e);
        }
        Ok(Box::new(events))
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

/// A loaded module and its kernel entry.
#[derive(Debug)]
struct CudaFunction {
    ctx: Arc<Context>,
    module: sys::CUmodule,
    func: sys::CUfunction,
}

// SAFETY: module and function handles belong to the context, usable from any thread on
// which it is current (`bind`).
unsafe impl Send for CudaFunction {}
// SAFETY: as above; the driver API is thread-safe.
unsafe impl Sync for CudaFunction {}

impl Drop for CudaFunction {
    fn drop(&mut self) {
        // SAFETY: loaded in `load` and unloaded once.
        unsafe {
            if sys::cuCtxSetCurrent(self.ctx.ctx) == sys::CUresult::CUDA_SUCCESS {
                let _ = sys::cuModuleUnload(self.module);
            }
        }
    }
}

impl FunctionApi for CudaFunction {
    fn bind(&self) -> Result<(), RuntimeError> {
        self.ctx.bind()
    }

    fn launch_bound(
        &self,
        grid: Grid,
        block_threads: u32,
        dynamic_shared_bytes: u32,
        stream: Stream,
        params: &mut [*mut c_void],
    ) -> Result<(), RuntimeError> {
        // SAFETY: `func` is live; `params` holds one pointer per `.entry` parameter into
        // memory the caller owns for the duration of the call.
        check("cuLaunchKernel", unsafe {
            sys::cuLaunchKernel(
                self.func,
                grid.x,
                grid.y,
                grid.z,
                block_threads,
                1,
                1,
                dynamic_shared_bytes,
                stream.as_raw().cast(),
                params.as_mut_ptr(),
                std::ptr::null_mut(),
            )
        })
    }

    fn synchronize_bound(&self) -> Result<(), RuntimeError> {
        // SAFETY: the caller made the context current.
        check("cuCtxSynchronize", unsafe { sys::cuCtxSynchronize() })
    }
}

/// CUDA events on the default stream.
struct CudaEvents(Vec<sys::CUevent>);

impl EventSeries for CudaEvents {
    fn record(&self, i: usize) -> Result<(), RuntimeError> {
        // SAFETY: live event; default stream.
        check("cuEventRecord", unsafe {
            sys::cuEventRecord(self.0[i], std::ptr::null_mut())
        })
    }

    fn synchronize(&self, i: usize) -> Result<(), RuntimeError> {
        // SAFETY: live event.
        check("cuEventSynchronize", unsafe {
            sys::cuEventSynchronize(self.0[i])
        })
    }

    fn elapsed_ms(&self, from: usize, to: usize) -> Result<f32, RuntimeError> {
        let mut ms = 0f32;
        // SAFETY: both events recorded and complete; out-pointer is a local.
        let r = if ELAPSED_V2.get().copied().unwrap_or(false) {
            unsafe { sys::cuEventElapsedTime_v2(&mut ms, self.0[from], self.0[to]) }
        } else {
            unsafe { sys::cuEventElapsedTime(&mut ms, self.0[from], self.0[to]) }
        };
        r.result()
            .map_err(|e| driver_error("cuEventElapsedTime", e))?;
        Ok(ms)
    }
}

impl Drop for CudaEvents {
    fn drop(&mut self) {
        for &e in &self.0 {
            // SAFETY: created once, destroyed once.
            unsafe {
                let _ = sys::cuEventDestroy_v2(e);
            }
        }
    }
}

#[cfg(test)]
mod assert_tests {
    use super::*;

    #[test]
    fn a_device_assert_is_its_own_error_with_exit_1() {
        // CUDA_ERROR_ASSERT is 710 in the driver API; no driver call is needed to map it.
        assert_eq!(sys::CUresult::CUDA_ERROR_ASSERT as u32, 710);
        let e = driver_error(
            "cuEventSynchronize",
            DriverError(sys::CUresult::CUDA_ERROR_ASSERT),
        );
        assert!(matches!(
            e,
            RuntimeError::DeviceAssert {
                status: "CUDA_ERROR_ASSERT",
                call: "cuEventSynchronize"
            }
        ));
        assert_eq!(e.exit_code(), 1);
        assert_eq!(
            e.to_string(),
            "device-side assertion failed (CUDA_ERROR_ASSERT from cuEventSynchronize); see \
             the kernel's stderr for the message"
        );
    }
}
