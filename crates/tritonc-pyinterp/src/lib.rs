//! tritonc's interpreter behind a C ABI, for `python/tritonc_rt/interpret.py` (ctypes):
//! a `@triton.jit` kernel launched from Python as `kernel[grid](...)` on host tensors runs
//! here, from its source file, with Triton's argument specialization, bounds checks and
//! race detection. docs/python.md describes the Python side.
//!
//! The ABI: [`tritonc_interp_launch`] takes a JSON request ([`request::Request`]) and
//! the host buffers the tensors live in, runs the launch, writes the buffers back when it
//! succeeds and returns a JSON reply ([`request::Reply`]) the caller frees with
//! [`tritonc_interp_free`]. Parsed kernel files (per modification time) and lowered
//! kernels (per specialization) are cached for the life of the process.

pub mod launch;
pub mod request;

use std::ffi::{c_char, CStr, CString};

/// A host buffer: `len` bytes at `ptr`, readable and writable for the call.
#[repr(C)]
pub struct HostBuffer {
    /// The first byte.
    pub ptr: *mut u8,
    /// Its length in bytes.
    pub len: usize,
}

/// Runs the launch `request` (NUL-terminated JSON) over `n` host buffers and returns the
/// reply (NUL-terminated JSON, to free with [`tritonc_interp_free`]). Never unwinds: a
/// panic is a reply of kind `internal`.
///
/// # Safety
/// `request` must be a NUL-terminated string; `buffers` must point to `n` buffers, each
/// valid for reads and writes of `len` bytes for the call and not overlapping another.
#[no_mangle]
pub unsafe extern "C" fn tritonc_interp_launch(
    request: *const c_char,
    buffers: *const HostBuffer,
    n: usize,
) -> *mut c_char {
    let reply = std::panic::catch_unwind(|| {
        // SAFETY: the caller's contract.
        let text = unsafe { CStr::from_ptr(request) }.to_string_lossy();
        let req: request::Request = match serde_json::from_str(&text) {
            Ok(r) => r,
            Err(e) => {
                return request::Reply {
                    kind: "internal".into(),
                    message: format!("malformed request: {e}"),
                    ..Default::default()
                }
            }
        };
        let mut host: Vec<&mut [u8]> = (0..n)
            .map(|i| {
                // SAFETY: the caller's contract: n valid, disjoint buffers.
                let b = unsafe { &*buffers.add(i) };
                if b.len == 0 {
                    <&mut [u8]>::default()
                } else {
                    unsafe { std::slice::from_raw_parts_mut(b.ptr, b.len) }
                }
            })
            .collect();
        launch::run(&req, &mut host)
    })
    .unwrap_or_else(|p| request::Reply {
        kind: "internal".into(),
        message: format!(
            "the interpreter panicked: {}",
            p.downcast_ref::<String>()
                .map(String::as_str)
                .or_else(|| p.downcast_ref::<&str>().copied())
                .unwrap_or("(no message)")
        ),
        ..Default::default()
    });
    let json = serde_json::to_string(&reply).unwrap_or_else(|_| "{}".into());
    CString::new(json)
        .unwrap_or_else(|_| CString::new("{}").expect("no NUL"))
        .into_raw()
}

/// Frees a reply of [`tritonc_interp_launch`].
///
/// # Safety
/// `reply` must come from [`tritonc_interp_launch`] and be freed once.
#[no_mangle]
pub unsafe extern "C" fn tritonc_interp_free(reply: *mut c_char) {
    if !reply.is_null() {
        // SAFETY: the caller's contract.
        drop(unsafe { CString::from_raw(reply) });
    }
}
