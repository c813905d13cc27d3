//! The GPU side: a device with its primary context, device buffers and host copies,
//! over the CUDA driver API (cudarc's raw bindings, libcuda loaded at run time).

use std::ffi::{c_char, c_int, c_void, CStr};
use std::sync::Arc;

use cudarc::driver::result::DriverError;
use cudarc::driver::sys;
use tritonc_ir::DType;

use crate::args::{dtype_name, Arg, DevicePtr};
use crate::error::RuntimeError;

/// Every driver entry point the runtime calls; checked once at [`Device::open`] so an
/// old driver gives [`RuntimeError::DriverTooOld`] instead of a panic mid-launch.
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

/// Whether the driver has `cuEventElapsedTime_v2` (set once by [`Device::open`]).
pub(crate) static ELAPSED_V2: std::sync::OnceLock<bool> = std::sync::OnceLock::new();

/// Turns a driver status into a [`RuntimeError::Driver`] naming the call.
pub(crate) fn check(call: &'static str, r: sys::CUresult) -> Result<(), RuntimeError> {
    r.result().map_err(|e| driver_error(call, e))
}

pub(crate) fn driver_error(call: &'static str, e: DriverError) -> RuntimeError {
    RuntimeError::Driver {
        call,
        code: error_name(e),
        message: e
            .error_string()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_else(|_| "unknown error".into()),
    }
}

pub(crate) fn error_name(e: DriverError) -> String {
    e.error_name()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_else(|_| format!("CUresult {}", e.0 as u32))
}

/// The retained primary context of one device; released when the last user drops it.
#[derive(Debug)]
pub(crate) struct Context {
    pub(crate) ctx: sys::CUcontext,
    dev: sys::CUdevice,
}

// SAFETY: a CUDA context handle may be used from any thread once made current there;
// every use goes through `bind`, which makes it current on the calling thread.
unsafe impl Send for Context {}
// SAFETY: as above; the driver API is thread-safe.
unsafe impl Sync for Context {}

impl Context {
    /// Makes the context current on the calling thread.
    pub(crate) fn bind(&self) -> Result<(), RuntimeError> {
        // SAFETY: `ctx` is a live retained primary context.
        check("cuCtxSetCurrent", unsafe { sys::cuCtxSetCurrent(self.ctx) })
    }
}

impl Drop for Context {
    fn drop(&mut self) {
        // SAFETY: retained in `Device::open`; released exactly once here. Errors at
        // teardown have no one to go to.
        unsafe {
            let _ = sys::cuDevicePrimaryCtxRelease_v2(self.dev);
        }
    }
}

/// One CUDA GPU, ready for allocations and kernel loads.
///
/// ```no_run
/// let dev = tritonc_runtime::Device::open(0)?;
/// println!("{} (sm_{}{})", dev.name(), dev.compute_capability().0, dev.compute_capability().1);
/// # Ok::<(), tritonc_runtime::RuntimeError>(())
/// ```
#[derive(Debug, Clone)]
pub struct Device {
    pub(crate) ctx: Arc<Context>,
    ordinal: usize,
    name: String,
    cc: (u32, u32),
    total_memory: u64,
    pub(crate) max_shared_optin: u32,
    driver_version: u32,
}

impl Device {
    /// Whether libcuda can be loaded on this machine (no driver call is made).
    pub fn driver_present() -> bool {
        // SAFETY: only tries to dlopen the library.
        unsafe { sys::is_culib_present() }
    }

    /// Opens GPU `ordinal`: loads libcuda, initializes the driver and retains the
    /// device's primary context. Without a driver this is [`RuntimeError::NoDriver`];
    /// without a GPU, [`RuntimeError::NoDevice`].
    pub fn open(ordinal: usize) -> Result<Device, RuntimeError> {
        if !Device::driver_present() {
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
            Ok(Device {
                ctx,
                ordinal,
                name,
                cc: (major as u32, minor as u32),
                total_memory: total as u64,
                max_shared_optin: max_shared_optin.max(0) as u32,
                driver_version: version as u32,
            })
        }
    }

    /// The device ordinal.
    pub fn ordinal(&self) -> usize {
        self.ordinal
    }

    /// The marketing name (`NVIDIA H200`).
    pub fn name(&self) -> &str {
        &self.name
    }

    /// Compute capability `(major, minor)`: `(9, 0)` for sm_90.
    pub fn compute_capability(&self) -> (u32, u32) {
        self.cc
    }

    /// Device memory in bytes.
    pub fn total_memory(&self) -> u64 {
        self.total_memory
    }

    /// The driver's CUDA version as the driver reports it (`13000` for 13.0).
    pub fn driver_version(&self) -> u32 {
        self.driver_version
    }

    /// The most dynamic shared memory one block may opt into, in bytes.
    pub fn max_shared_bytes(&self) -> u32 {
        self.max_shared_optin
    }

    /// `(free, total)` device memory in bytes.
    pub fn memory_info(&self) -> Result<(u64, u64), RuntimeError> {
        self.ctx.bind()?;
        let (mut free, mut total) = (0usize, 0usize);
        // SAFETY: out-pointers are locals; the context is current.
        check("cuMemGetInfo", unsafe {
            sys::cuMemGetInfo_v2(&mut free, &mut total)
        })?;
        Ok((free as u64, total as u64))
    }

    /// Waits for all work on the device; a kernel fault surfaces here.
    pub fn synchronize(&self) -> Result<(), RuntimeError> {
        self.ctx.bind()?;
        // SAFETY: the context is current.
        check("cuCtxSynchronize", unsafe { sys::cuCtxSynchronize() })
    }

    /// Allocates `len` elements of `dtype`, zero-filled.
    pub fn alloc_zeroed(&self, dtype: DType, len: u64) -> Result<DeviceBuffer, RuntimeError> {
        let elem =
            u64::from(dtype.size_bytes().ok_or_else(|| {
                RuntimeError::BufferMismatch(format!("dtype {dtype} has no size"))
            })?);
        let bytes = len.checked_mul(elem).ok_or(RuntimeError::OutOfMemory {
            requested: u64::MAX,
            free: 0,
            total: self.total_memory,
        })?;
        self.ctx.bind()?;
        let mut addr: sys::CUdeviceptr = 0;
        // SAFETY: out-pointer is a local; the context is current. A zero-byte request is
        // rounded up to one byte so every buffer has a distinct valid address.
        if let Err(e) = unsafe { sys::cuMemAlloc_v2(&mut addr, bytes.max(1) as usize) }.result() {
            if e.0 == sys::CUresult::CUDA_ERROR_OUT_OF_MEMORY {
                let (free, total) = self.memory_info().unwrap_or((0, self.total_memory));
                return Err(RuntimeError::OutOfMemory {
                    requested: bytes,
                    free,
                    total,
                });
            }
            return Err(driver_error("cuMemAlloc", e));
        }
        let buf = DeviceBuffer {
            ctx: Arc::clone(&self.ctx),
            addr,
            bytes,
            dtype,
            len,
        };
        // SAFETY: `addr` spans at least `bytes` bytes.
        check("cuMemsetD8", unsafe {
            sys::cuMemsetD8_v2(addr, 0, bytes as usize)
        })?;
        Ok(buf)
    }

    /// Allocates a buffer holding a copy of `data`.
    pub fn upload<T: HostElement>(&self, data: &[T]) -> Result<DeviceBuffer, RuntimeError> {
        let buf = self.alloc_zeroed(T::DTYPE, data.len() as u64)?;
        buf.copy_from_host(data)?;
        Ok(buf)
    }
}

/// A device allocation of `len` elements of one dtype, freed on drop.
#[derive(Debug)]
pub struct DeviceBuffer {
    ctx: Arc<Context>,
    addr: sys::CUdeviceptr,
    bytes: u64,
    dtype: DType,
    len: u64,
}

impl DeviceBuffer {
    /// The address, dtype and extent, for a launch argument or a view.
    pub fn ptr(&self) -> DevicePtr {
        DevicePtr {
            addr: self.addr,
            dtype: self.dtype,
            bytes: self.bytes,
        }
    }

    /// The buffer as a pointer argument.
    pub fn arg(&self) -> Arg {
        Arg::Pointer(self.ptr())
    }

    /// The element dtype.
    pub fn dtype(&self) -> DType {
        self.dtype
    }

    /// The number of elements.
    pub fn len(&self) -> u64 {
        self.len
    }

    /// Whether the buffer holds no elements.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Size in bytes.
    pub fn bytes(&self) -> u64 {
        self.bytes
    }

    fn check_host<T: HostElement>(&self, n: usize) -> Result<(), RuntimeError> {
        if T::DTYPE != self.dtype || n as u64 != self.len {
            return Err(RuntimeError::BufferMismatch(format!(
                "host data is {n} × {}, the device buffer {} × {}",
                dtype_name(T::DTYPE),
                self.len,
                dtype_name(self.dtype)
            )));
        }
        Ok(())
    }

    /// Copies `data` (same dtype and length) into the buffer; waits for the copy.
    pub fn copy_from_host<T: HostElement>(&self, data: &[T]) -> Result<(), RuntimeError> {
        self.check_host::<T>(data.len())?;
        self.ctx.bind()?;
        // SAFETY: `data` spans `bytes` bytes (length and dtype checked above).
        check("cuMemcpyHtoD", unsafe {
            sys::cuMemcpyHtoD_v2(self.addr, data.as_ptr().cast(), self.bytes as usize)
        })
    }

    /// Copies the buffer into `out` (same dtype and length); waits for prior work.
    pub fn copy_to_host<T: HostElement>(&self, out: &mut [T]) -> Result<(), RuntimeError> {
        self.check_host::<T>(out.len())?;
        self.ctx.bind()?;
        // SAFETY: `out` spans `bytes` bytes; every HostElement is valid for any bits.
        check("cuMemcpyDtoH", unsafe {
            sys::cuMemcpyDtoH_v2(out.as_mut_ptr().cast(), self.addr, self.bytes as usize)
        })
    }

    /// The buffer's contents as a vector; waits for prior work.
    pub fn to_vec<T: HostElement>(&self) -> Result<Vec<T>, RuntimeError> {
        let mut out = vec![T::default(); self.len as usize];
        self.copy_to_host(&mut out)?;
        Ok(out)
    }

    /// Sets every byte to `value` (e.g. to poison memory a kernel must not read).
    pub fn fill_bytes(&self, value: u8) -> Result<(), RuntimeError> {
        self.ctx.bind()?;
        // SAFETY: the allocation spans `bytes` bytes.
        check("cuMemsetD8", unsafe {
            sys::cuMemsetD8_v2(self.addr, value, self.bytes as usize)
        })
    }
}

impl Drop for DeviceBuffer {
    fn drop(&mut self) {
        // SAFETY: allocated by cuMemAlloc in this context and freed once. Errors at
        // teardown (a context already broken by a fault) have no one to go to.
        unsafe {
            if sys::cuCtxSetCurrent(self.ctx.ctx) == sys::CUresult::CUDA_SUCCESS {
                let _ = sys::cuMemFree_v2(self.addr);
            }
        }
    }
}

/// A host element type with a Triton dtype; any bit pattern is a valid value.
pub trait HostElement: Copy + Default + 'static {
    /// The dtype of device buffers holding this type.
    const DTYPE: DType;
}

macro_rules! host_elements {
    ($($t:ty => $d:ident),* $(,)?) => {
        $(impl HostElement for $t { const DTYPE: DType = DType::$d; })*
    };
}

host_elements!(
    i8 => I8, i16 => I16, i32 => I32, i64 => I64,
    u8 => U8, u16 => U16, u32 => U32, u64 => U64,
    f32 => F32, f64 => F64, half::f16 => F16, half::bf16 => BF16,
);
