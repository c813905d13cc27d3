//! The GPU side, whatever the backend: a device, device buffers and host copies.

use std::sync::Arc;

use tritonc_ir::DType;

use crate::args::{dtype_name, Arg, DevicePtr};
use crate::backend::{default_backend, Backend, DeviceApi, DeviceInfo};
use crate::error::RuntimeError;

/// One GPU, ready for allocations and kernel loads: an NVIDIA GPU through CUDA, or an
/// AMD GPU through HIP (with the `hip` feature).
///
/// ```no_run
/// let dev = tritonc_runtime::Device::open(0)?;
/// println!("{} ({})", dev.name(), dev.arch());
/// # Ok::<(), tritonc_runtime::RuntimeError>(())
/// ```
#[derive(Debug, Clone)]
pub struct Device {
    pub(crate) api: Arc<dyn DeviceApi>,
    pub(crate) info: DeviceInfo,
}

impl Device {
    /// Whether libcuda can be loaded on this machine (no driver call is made).
    pub fn driver_present() -> bool {
        #[cfg(feature = "cuda")]
        {
            crate::cuda::driver_present()
        }
        #[cfg(not(feature = "cuda"))]
        {
            false
        }
    }

    /// Opens GPU `ordinal` of the [`default_backend`] (CUDA unless
    /// [`set_default_backend`](crate::set_default_backend) chose another). For CUDA: loads
    /// libcuda, initializes the driver and retains the device's primary context; without
    /// a driver this is [`RuntimeError::NoDriver`], without a GPU
    /// [`RuntimeError::NoDevice`].
    pub fn open(ordinal: usize) -> Result<Device, RuntimeError> {
        Device::open_on(default_backend(), ordinal)
    }

    /// Opens GPU `ordinal` through `backend`. HIP in a build without the `hip` feature is
    /// [`RuntimeError::BackendNotBuilt`]; HIP without an AMD GPU or its runtime is
    /// [`RuntimeError::NoHipDevice`].
    // Built with neither backend, every arm returns an error.
    #[cfg_attr(
        not(any(feature = "cuda", feature = "hip")),
        allow(unreachable_code, unused_variables)
    )]
    pub fn open_on(backend: Backend, ordinal: usize) -> Result<Device, RuntimeError> {
        let (info, api) = match backend {
            #[cfg(feature = "cuda")]
            Backend::Cuda => crate::cuda::open(ordinal)?,
            #[cfg(not(feature = "cuda"))]
            Backend::Cuda => return Err(RuntimeError::BackendNotBuilt { backend }),
            #[cfg(feature = "hip")]
            Backend::Hip => crate::hip::open(ordinal)?,
            #[cfg(not(feature = "hip"))]
            Backend::Hip => return Err(RuntimeError::BackendNotBuilt { backend }),
        };
        Ok(Device { api, info })
    }

    /// The API this device is driven through.
    pub fn backend(&self) -> Backend {
        self.info.backend
    }

    /// The device ordinal.
    pub fn ordinal(&self) -> usize {
        self.info.ordinal
    }

    /// The marketing name (`NVIDIA H200`, `AMD Instinct MI300X`).
    pub fn name(&self) -> &str {
        &self.info.name
    }

    /// The architecture as bundle targets name it: `sm_90`, `gfx942`.
    pub fn arch(&self) -> &str {
        &self.info.arch
    }

    /// `(major, minor)` as the API reports it: the compute capability on CUDA (`(9, 0)`
    /// for sm_90); HIP's `major`/`minor` device properties on AMD (`(9, 4)` for gfx942).
    pub fn compute_capability(&self) -> (u32, u32) {
        self.info.capability
    }

    /// Device memory in bytes.
    pub fn total_memory(&self) -> u64 {
        self.info.total_memory
    }

    /// The driver's version as it reports it (`13000` for CUDA 13.0; HIP's
    /// `hipDriverGetVersion`).
    pub fn driver_version(&self) -> u32 {
        self.info.driver_version
    }

    /// The most dynamic shared memory (LDS on AMD) one block may use, in bytes.
    pub fn max_shared_bytes(&self) -> u32 {
        self.info.max_shared
    }

    /// Threads per warp (wavefront on AMD): 32 on NVIDIA, 64 on CDNA GPUs.
    pub fn warp_size(&self) -> u32 {
        self.info.warp_size
    }

    /// `(free, total)` device memory in bytes.
    pub fn memory_info(&self) -> Result<(u64, u64), RuntimeError> {
        self.api.memory_info()
    }

    /// Waits for all work on the device; a kernel fault surfaces here.
    pub fn synchronize(&self) -> Result<(), RuntimeError> {
        self.api.synchronize()
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
            total: self.info.total_memory,
        })?;
        let addr = self.api.alloc(bytes, self.info.total_memory)?;
        let buf = DeviceBuffer {
            api: Arc::clone(&self.api),
            addr,
            bytes,
            dtype,
            len,
        };
        self.api.memset(addr, 0, bytes)?;
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
    api: Arc<dyn DeviceApi>,
    addr: u64,
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
        // SAFETY: every HostElement is plain data without padding, so its bytes may be
        // read; the slice covers exactly `data`.
        let bytes = unsafe {
            std::slice::from_raw_parts(data.as_ptr().cast::<u8>(), std::mem::size_of_val(data))
        };
        self.api.copy_to_device(self.addr, bytes)
    }

    /// Copies the buffer into `out` (same dtype and length); waits for prior work.
    pub fn copy_to_host<T: HostElement>(&self, out: &mut [T]) -> Result<(), RuntimeError> {
        self.check_host::<T>(out.len())?;
        // SAFETY: every HostElement is valid for any bits, so writing bytes into it is
        // sound; the slice covers exactly `out`.
        let bytes = unsafe {
            std::slice::from_raw_parts_mut(
                out.as_mut_ptr().cast::<u8>(),
                std::mem::size_of_val(out),
            )
        };
        self.api.copy_to_host(bytes, self.addr)
    }

    /// The buffer's contents as a vector; waits for prior work. Host memory too small
    /// for the copy is [`RuntimeError::BufferMismatch`], not an abort.
    pub fn to_vec<T: HostElement>(&self) -> Result<Vec<T>, RuntimeError> {
        let no_room = || {
            RuntimeError::BufferMismatch(format!(
                "the host cannot allocate {} bytes for a copy of the buffer",
                self.bytes
            ))
        };
        let n = usize::try_from(self.len).map_err(|_| no_room())?;
        let mut out = Vec::new();
        out.try_reserve_exact(n).map_err(|_| no_room())?;
        out.resize(n, T::default());
        self.copy_to_host(&mut out)?;
        Ok(out)
    }

    /// Sets every byte to `value` (e.g. to poison memory a kernel must not read).
    pub fn fill_bytes(&self, value: u8) -> Result<(), RuntimeError> {
        self.api.memset(self.addr, value, self.bytes)
    }
}

impl Drop for DeviceBuffer {
    fn drop(&mut self) {
        self.api.free(self.addr);
    }
}

/// A host element type with a Triton dtype; any bit pattern is a valid value, and the
/// type has no padding.
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
