//! The HIP backend (the `hip` feature): AMD GPUs through the HIP runtime (libamdhip64,
//! linked through hip-sys); code objects (HSACO) loaded with `hipModuleLoadData`,
//! launched with `hipModuleLaunchKernel`, timed with HIP events.
//!
//! The bindings were generated from ROCm 5 headers and match Debian's HIP 5.2
//! (`libamdhip64.so.5`): the `hipError_t` values and the `hipDeviceProp_t` layout.

use std::ffi::{c_char, c_int, c_void, CStr, CString};
use std::sync::Arc;

use hip_sys::hiprt as sys;
use tritonc_bundle::Bundle;

use crate::args::{Grid, Stream};
use crate::backend::{Backend, DeviceApi, DeviceInfo, EventSeries, FunctionApi, LoadedFunction};
use crate::error::RuntimeError;
use crate::select::amd_code_for_device;

/// The runtime's name for an error code (`hipErrorNoDevice`).
fn error_name(e: sys::hipError_t) -> String {
    // SAFETY: hipGetErrorName returns a static NUL-terminated string for any code.
    unsafe { c_str(sys::hipGetErrorName(e)) }.unwrap_or_else(|| format!("hipError_t {}", e as u32))
}

/// The runtime's description of an error code.
fn error_string(e: sys::hipError_t) -> String {
    // SAFETY: as above.
    unsafe { c_str(sys::hipGetErrorString(e)) }.unwrap_or_else(|| "unknown error".into())
}

/// A C string the runtime owns, copied; `None` for a null pointer.
///
/// # Safety
/// `p` is null or points to a NUL-terminated string.
unsafe fn c_str(p: *const c_char) -> Option<String> {
    (!p.is_null()).then(|| CStr::from_ptr(p).to_string_lossy().into_owned())
}

/// The error's name, and its description when the runtime has one beyond the name
/// (HIP 5 describes some codes by their name alone).
fn describe(e: sys::hipError_t) -> String {
    let (name, text) = (error_name(e), error_string(e));
    if name == text {
        name
    } else {
        format!("{name}: {text}")
    }
}

/// Turns a HIP status into a [`RuntimeError::Hip`] naming the call.
fn check(call: &'static str, r: sys::hipError_t) -> Result<(), RuntimeError> {
    if r == sys::hipError_t::hipSuccess {
        Ok(())
    } else if r == sys::hipError_t::hipErrorAssert {
        Err(RuntimeError::DeviceAssert {
            status: "hipErrorAssert",
            call,
        })
    } else {
        Err(RuntimeError::Hip {
            call,
            code: error_name(r),
            message: error_string(r),
        })
    }
}

/// How many AMD GPUs the HIP runtime sees; no device, no `/dev/kfd` or no HSA runtime is
/// [`RuntimeError::NoHipDevice`].
pub(crate) fn device_count() -> Result<usize, RuntimeError> {
    let mut count: c_int = 0;
    // SAFETY: out-pointer is a local.
    let r = unsafe { sys::hipGetDeviceCount(&mut count) };
    if r != sys::hipError_t::hipSuccess {
        return Err(RuntimeError::NoHipDevice {
            reason: format!("hipGetDeviceCount failed with {}", describe(r)),
        });
    }
    if count <= 0 {
        return Err(RuntimeError::NoHipDevice {
            reason: "the HIP runtime reports no devices".into(),
        });
    }
    Ok(count as usize)
}

/// Opens AMD GPU `ordinal` and makes it current on the calling thread.
pub(crate) fn open(ordinal: usize) -> Result<(DeviceInfo, Arc<dyn DeviceApi>), RuntimeError> {
    let count = device_count()?;
    if ordinal >= count {
        return Err(RuntimeError::NoHipDevice {
            reason: format!("there is no device {ordinal}: the HIP runtime reports {count}"),
        });
    }
    let id = ordinal as c_int;
    let mut version: c_int = 0;
    let mut props = DeviceProps {
        prop: sys::hipDeviceProp_t::default(),
        _slack: [0; 4096],
    };
    // SAFETY: out-pointers are locals; `props.prop` has the layout of the linked runtime's
    // hipDeviceProp_t (see the module documentation), and a runtime that appends fields
    // writes them into `_slack`, inside the same allocation.
    unsafe {
        check("hipSetDevice", sys::hipSetDevice(id))?;
        check(
            "hipDriverGetVersion",
            sys::hipDriverGetVersion(&mut version),
        )?;
        check(
            "hipGetDeviceProperties",
            sys::hipGetDeviceProperties(&mut props.prop, id),
        )?;
    }
    let prop = &props.prop;
    let text = |chars: &[c_char]| {
        let bytes: Vec<u8> = chars
            .iter()
            .take_while(|&&c| c != 0)
            .map(|&c| c as u8)
            .collect();
        String::from_utf8_lossy(&bytes).into_owned()
    };
    // `gfx90a:sramecc+:xnack-`: the processor, then the target features it runs with.
    let arch = text(&prop.gcnArchName);
    let info = DeviceInfo {
        backend: Backend::Hip,
        ordinal,
        name: text(&prop.name),
        arch,
        capability: (prop.major.max(0) as u32, prop.minor.max(0) as u32),
        total_memory: prop.totalGlobalMem as u64,
        max_shared: u32::try_from(prop.sharedMemPerBlock).unwrap_or(u32::MAX),
        driver_version: version.max(0) as u32,
        warp_size: prop.warpSize.max(1) as u32,
    };
    Ok((info, Arc::new(HipDevice { id })))
}

/// `hipDeviceProp_t` with room after it, in case the linked HIP 5 release appends fields.
#[repr(C)]
struct DeviceProps {
    prop: sys::hipDeviceProp_t,
    _slack: [u8; 4096],
}

/// An opened AMD GPU.
#[derive(Debug)]
struct HipDevice {
    id: c_int,
}

impl HipDevice {
    /// Makes the device current on the calling thread.
    fn bind(&self) -> Result<(), RuntimeError> {
        // SAFETY: `id` was a valid ordinal when the device was opened.
        check("hipSetDevice", unsafe { sys::hipSetDevice(self.id) })
    }
}

impl DeviceApi for HipDevice {
    fn alloc(&self, bytes: u64, total_memory: u64) -> Result<u64, RuntimeError> {
        self.bind()?;
        let mut ptr: *mut c_void = std::ptr::null_mut();
        // SAFETY: out-pointer is a local. A zero-byte request is rounded up to one byte
        // so every buffer has a distinct valid address.
        let r = unsafe { sys::hipMalloc(&mut ptr, bytes.max(1) as usize) };
        if r == sys::hipError_t::hipErrorOutOfMemory {
            let (free, total) = self.memory_info().unwrap_or((0, total_memory));
            return Err(RuntimeError::OutOfMemory {
                requested: bytes,
                free,
                total,
            });
        }
        check("hipMalloc", r)?;
        Ok(ptr as u64)
    }

    fn free(&self, addr: u64) {
        // SAFETY: allocated by hipMalloc on this device and freed once. Errors at
        // teardown (a device already broken by a fault) have no one to go to.
        unsafe {
            if sys::hipSetDevice(self.id) == sys::hipError_t::hipSuccess {
                let _ = sys::hipFree(addr as *mut c_void);
            }
        }
    }

    fn memset(&self, addr: u64, value: u8, bytes: u64) -> Result<(), RuntimeError> {
        self.bind()?;
        // SAFETY: the caller's allocation spans `bytes` bytes.
        check("hipMemsetD8", unsafe {
            sys::hipMemsetD8(addr as *mut c_void, value, bytes as usize)
        })
    }

    fn copy_to_device(&self, addr: u64, src: &[u8]) -> Result<(), RuntimeError> {
        self.bind()?;
        // SAFETY: the allocation at `addr` spans `src.len()` bytes (checked by the caller);
        // the runtime only reads `src`, whatever the binding's mutability says.
        check("hipMemcpyHtoD", unsafe {
            sys::hipMemcpyHtoD(addr as *mut c_void, src.as_ptr() as *mut c_void, src.len())
        })
    }

    fn copy_to_host(&self, dst: &mut [u8], addr: u64) -> Result<(), RuntimeError> {
        self.bind()?;
        // SAFETY: the allocation at `addr` spans `dst.len()` bytes (checked by the caller).
        check("hipMemcpyDtoH", unsafe {
            sys::hipMemcpyDtoH(dst.as_mut_ptr().cast(), addr as *mut c_void, dst.len())
        })
    }

    fn memory_info(&self) -> Result<(u64, u64), RuntimeError> {
        self.bind()?;
        let (mut free, mut total) = (0usize, 0usize);
        // SAFETY: out-pointers are locals.
        check("hipMemGetInfo", unsafe {
            sys::hipMemGetInfo(&mut free, &mut total)
        })?;
        Ok((free as u64, total as u64))
    }

    fn synchronize(&self) -> Result<(), RuntimeError> {
        self.bind()?;
        // SAFETY: no arguments.
        check("hipDeviceSynchronize", unsafe {
            sys::hipDeviceSynchronize()
        })
    }

    fn load(&self, bundle: &Bundle, info: &DeviceInfo) -> Result<LoadedFunction, RuntimeError> {
        let meta = &bundle.meta;
        let incompatible = |reason: String| RuntimeError::IncompatibleBundle {
            entry: meta.entry.clone(),
            reason,
        };
        let code =
            amd_code_for_device(meta, bundle.cubin.is_some(), &info.arch).map_err(incompatible)?;
        let image = bundle
            .cubin
            .as_deref()
            .ok_or_else(|| incompatible("it carries no code object".into()))?;
        let shared = u64::from(meta.dynamic_shared_bytes) + u64::from(meta.static_shared_bytes);
        if shared > u64::from(info.max_shared) {
            return Err(incompatible(format!(
                "it needs {shared} bytes of shared memory (LDS) per block, the GPU allows {}",
                info.max_shared
            )));
        }
        let entry = CString::new(meta.entry.as_str())
            .map_err(|_| incompatible("the entry name contains a NUL byte".into()))?;
        self.bind()?;
        let mut module: sys::hipModule_t = std::ptr::null_mut();
        // SAFETY: `image` is a complete code object in memory, alive for the call.
        let r = unsafe { sys::hipModuleLoadData(&mut module, image.as_ptr().cast()) };
        match r {
            sys::hipError_t::hipSuccess => {}
            sys::hipError_t::hipErrorOutOfMemory => {
                return Err(RuntimeError::OutOfMemory {
                    requested: image.len() as u64,
                    free: 0,
                    total: info.total_memory,
                })
            }
            sys::hipError_t::hipErrorInvalidImage
            | sys::hipError_t::hipErrorInvalidKernelFile
            | sys::hipError_t::hipErrorNoBinaryForGpu
            | sys::hipError_t::hipErrorSharedObjectInitFailed => {
                return Err(incompatible(format!(
                    "the HIP runtime cannot load its code object ({})",
                    describe(r)
                )))
            }
            _ => check("hipModuleLoadData", r)?,
        }
        let mut function = HipFunction {
            device: self.id,
            module,
            func: std::ptr::null_mut(),
        };
        // SAFETY: `module` is loaded; out-pointer is a field.
        let r = unsafe { sys::hipModuleGetFunction(&mut function.func, module, entry.as_ptr()) };
        if r != sys::hipError_t::hipSuccess {
            return Err(incompatible(format!(
                "the code object has no kernel `{}` ({})",
                meta.entry,
                error_name(r)
            )));
        }
        Ok(LoadedFunction {
            function: Box::new(function),
            code,
            cubin_error: None,
        })
    }

    fn events(&self, n: usize) -> Result<Box<dyn EventSeries>, RuntimeError> {
        self.bind()?;
        let mut events = HipEvents(Vec::with_capacity(n));
        for _ in 0..n {
            let mut e: sys::hipEvent_t = std::ptr::null_mut();
            // SAFETY: out-pointer is a local.
            check("hipEventCreate", unsafe { sys::hipEventCreate(&mut e) })?;
            events.0.push(e);
        }
        Ok(Box::new(events))
    }
}

/// A loaded code object and its kernel.
#[derive(Debug)]
struct HipFunction {
    device: c_int,
    module: sys::hipModule_t,
    func: sys::hipFunction_t,
}

// SAFETY: module and function handles are process-wide in HIP and usable from any
// thread on which their device is current (`bind`).
unsafe impl Send for HipFunction {}
// SAFETY: as above; the HIP runtime is thread-safe.
unsafe impl Sync for HipFunction {}

impl Drop for HipFunction {
    fn drop(&mut self) {
        // SAFETY: loaded in `load` and unloaded once.
        unsafe {
            if sys::hipSetDevice(self.device) == sys::hipError_t::hipSuccess {
                let _ = sys::hipModuleUnload(self.module);
            }
        }
    }
}

impl FunctionApi for HipFunction {
    fn bind(&self) -> Result<(), RuntimeError> {
        // SAFETY: `device` was a valid ordinal when the kernel was loaded.
        check("hipSetDevice", unsafe { sys::hipSetDevice(self.device) })
    }

    fn launch_bound(
        &self,
        grid: Grid,
        block_threads: u32,
        dynamic_shared_bytes: u32,
        stream: Stream,
        params: &mut [*mut c_void],
    ) -> Result<(), RuntimeError> {
        // SAFETY: `func` is live; `params` holds one pointer per kernel argument into
        // memory the caller owns for the duration of the call (HIP copies the values
        // into the kernel's argument segment at launch).
        check("hipModuleLaunchKernel", unsafe {
            sys::hipModuleLaunchKernel(
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
        // SAFETY: no arguments.
        check("hipDeviceSynchronize", unsafe {
            sys::hipDeviceSynchronize()
        })
    }
}

/// HIP events on the default stream.
struct HipEvents(Vec<sys::hipEvent_t>);

impl EventSeries for HipEvents {
    fn record(&self, i: usize) -> Result<(), RuntimeError> {
        // SAFETY: live event; default stream.
        check("hipEventRecord", unsafe {
            sys::hipEventRecord(self.0[i], std::ptr::null_mut())
        })
    }

    fn synchronize(&self, i: usize) -> Result<(), RuntimeError> {
        // SAFETY: live event.
        check("hipEventSynchronize", unsafe {
            sys::hipEventSynchronize(self.0[i])
        })
    }

    fn elapsed_ms(&self, from: usize, to: usize) -> Result<f32, RuntimeError> {
        let mut ms = 0f32;
        // SAFETY: both events recorded and complete; out-pointer is a local.
        check("hipEventElapsedTime", unsafe {
            sys::hipEventElapsedTime(&mut ms, self.0[from], self.0[to])
        })?;
        Ok(ms)
    }
}

impl Drop for HipEvents {
    fn drop(&mut self) {
        for &e in &self.0 {
            // SAFETY: created once, destroyed once.
            unsafe {
                let _ = sys::hipEventDestroy(e);
            }
        }
    }
}

#[cfg(test)]
mod assert_tests {
    use super::*;

    #[test]
    fn a_device_assert_is_its_own_error_with_exit_1() {
        assert_eq!(sys::hipError_t::hipErrorAssert as u32, 710);
        let e = check("hipDeviceSynchronize", sys::hipError_t::hipErrorAssert).unwrap_err();
        assert!(matches!(
            e,
            RuntimeError::DeviceAssert {
                status: "hipErrorAssert",
                call: "hipDeviceSynchronize"
            }
        ));
        assert_eq!(e.exit_code(), 1);
    }
}
