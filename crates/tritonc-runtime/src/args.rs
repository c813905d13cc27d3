//! Host-side launch arguments: one [`Arg`] per source parameter of the kernel.

use std::fmt;

use tritonc_bundle::ConstValue;
use tritonc_ir::DType;

/// A device address with the dtype and extent of the memory behind it.
///
/// Built from a [`DeviceBuffer`](crate::DeviceBuffer) with
/// [`DeviceBuffer::ptr`](crate::DeviceBuffer::ptr), or by hand for memory the caller
/// owns (another library's allocation, a view at an offset).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DevicePtr {
    /// The device address.
    pub addr: u64,
    /// The element dtype of the memory.
    pub dtype: DType,
    /// Bytes reachable from `addr`.
    pub bytes: u64,
}

impl DevicePtr {
    /// The same memory `elements` elements further on (a view), or `None` past the end.
    pub fn offset(self, elements: u64) -> Option<DevicePtr> {
        let step = u64::from(self.dtype.size_bytes()?).checked_mul(elements)?;
        Some(DevicePtr {
            addr: self.addr.checked_add(step)?,
            dtype: self.dtype,
            bytes: self.bytes.checked_sub(step)?,
        })
    }
}

/// One launch argument, positional over the kernel's source parameters (constexpr
/// parameters included, as in a Python call `kernel[grid](x, y, out, n, BLOCK=1024)`).
#[derive(Debug, Clone, PartialEq)]
pub enum Arg {
    /// A tensor: its device address, dtype and extent.
    Pointer(DevicePtr),
    /// A Python int: checked against the parameter's dtype range, `:16` and `==1`.
    Int(i64),
    /// A Python float.
    Float(f64),
    /// A Python bool.
    Bool(bool),
    /// Any other compile-time value (a string, a dtype, `None`) for a constexpr parameter.
    Const(ConstValue),
    /// "Whatever the bundle was compiled with": allowed only for parameters the bundle
    /// folded (constexprs and integers specialized as 1), for runners that launch a
    /// bundle as it is.
    AsCompiled,
}

impl Arg {
    /// A pointer argument.
    pub fn ptr(p: DevicePtr) -> Arg {
        Arg::Pointer(p)
    }

    /// What kind of value this is, for messages.
    pub fn describe(&self) -> String {
        match self {
            Arg::Pointer(p) => format!("a pointer to {} at {:#x}", dtype_name(p.dtype), p.addr),
            Arg::Int(i) => format!("the int {i}"),
            Arg::Float(x) => format!("the float {x:?}"),
            Arg::Bool(b) => format!("the bool {}", if *b { "True" } else { "False" }),
            Arg::Const(c) => format!("the constant {c}"),
            Arg::AsCompiled => "the compiled-in value".into(),
        }
    }
}

impl fmt::Display for Arg {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.describe())
    }
}

/// A dtype's signature name (`fp32`), for messages.
pub(crate) fn dtype_name(d: DType) -> &'static str {
    d.signature_name().unwrap_or("?")
}

/// A stream of the caller's to launch on: a `CUstream` (or `cudaStream_t`, the same
/// handle) on CUDA, a `hipStream_t` on HIP. [`Stream::DEFAULT`] is the default (legacy)
/// stream.
///
/// The runtime never creates or destroys streams: the handle belongs to the caller, who
/// keeps it alive while launches are enqueued on it, in the context the kernel was loaded
/// in (a device's primary context, which the CUDA runtime and PyTorch use too).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[repr(transparent)]
pub struct Stream(*mut std::ffi::c_void);

impl Stream {
    /// The default stream (a null handle).
    pub const DEFAULT: Stream = Stream(std::ptr::null_mut());

    /// A stream from its raw handle.
    ///
    /// # Safety
    ///
    /// `handle` is null or a live stream of the context the kernels launched on it were
    /// loaded in, and stays alive until those launches have been enqueued.
    pub unsafe fn from_raw(handle: *mut std::ffi::c_void) -> Stream {
        Stream(handle)
    }

    /// The raw handle.
    pub fn as_raw(self) -> *mut std::ffi::c_void {
        self.0
    }
}

// SAFETY: a stream handle is an opaque token the driver accepts from any thread.
unsafe impl Send for Stream {}
// SAFETY: as above.
unsafe impl Sync for Stream {}

/// Launch grid: programs along x, y and z.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Grid {
    /// Programs along axis 0.
    pub x: u32,
    /// Programs along axis 1.
    pub y: u32,
    /// Programs along axis 2.
    pub z: u32,
}

impl Grid {
    /// A one-dimensional grid.
    pub fn x(x: u32) -> Grid {
        Grid { x, y: 1, z: 1 }
    }

    /// A three-dimensional grid.
    pub fn xyz(x: u32, y: u32, z: u32) -> Grid {
        Grid { x, y, z }
    }

    /// The number of programs (saturating at `u64::MAX`, which no valid grid reaches).
    pub fn programs(&self) -> u64 {
        u64::from(self.x)
            .saturating_mul(u64::from(self.y))
            .saturating_mul(u64::from(self.z))
    }

    /// Checks the CUDA limits: every axis at least 1; x below 2^31, y and z below 2^16.
    pub fn check(&self) -> Result<(), String> {
        if self.x == 0 || self.y == 0 || self.z == 0 {
            return Err(format!("grid {self} has an empty axis"));
        }
        if self.x > i32::MAX as u32 || self.y > 65535 || self.z > 65535 {
            return Err(format!(
                "grid {self} exceeds CUDA's limits (x < 2^31, y and z ≤ 65535)"
            ));
        }
        Ok(())
    }
}

impl fmt::Display for Grid {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "({}, {}, {})", self.x, self.y, self.z)
    }
}
