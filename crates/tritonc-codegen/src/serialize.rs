//! LLVM's half of the NVIDIA back end (cpp/nvptx.cpp): a `gpu.module` in the LLVM and
//! NVVM dialects becomes LLVM IR, is linked with libdevice when needed, optimized at O3
//! and compiled to PTX by LLVM's NVPTX back end.

use std::{ffi::c_void, path::PathBuf};

use melior::{ir::operation::OperationLike, StringRef};

use crate::{pipeline::LoweredModule, target::Target};

type Sink = unsafe extern "C" fn(user: *mut c_void, kind: i32, data: *const u8, len: usize);

extern "C" {
    fn tritoncNvptxCompile(
        gpu_module: mlir_sys::MlirOperation,
        chip: mlir_sys::MlirStringRef,
        features: mlir_sys::MlirStringRef,
        fp_fusion: bool,
        libraries: *const mlir_sys::MlirStringRef,
        num_libraries: usize,
        want_llvm_ir: bool,
        sink: Sink,
        user: *mut c_void,
    ) -> bool;
}

/// What cpp/nvptx.cpp hands back: kind 0 an error, 1 LLVM IR, 2 PTX.
#[derive(Default)]
struct Collected {
    error: Option<String>,
    llvm_ir: Option<String>,
    ptx: Option<String>,
}

unsafe extern "C" fn collect(user: *mut c_void, kind: i32, data: *const u8, len: usize) {
    // SAFETY: `user` is the `Collected` that `nvptx_compile` passes and outlives the call;
    // `data` points to `len` bytes that live for the duration of this callback.
    let (collected, bytes) = unsafe {
        (
            &mut *user.cast::<Collected>(),
            std::slice::from_raw_parts(data, len),
        )
    };
    let text = String::from_utf8_lossy(bytes).into_owned();
    match kind {
        1 => collected.llvm_ir = Some(text),
        2 => collected.ptx = Some(text),
        _ => collected.error = Some(text),
    }
}

/// Compiles `gpu_module` (already in the LLVM and NVVM dialects) to PTX for `target`,
/// linking the bitcode `libraries`; with `fp_fusion` LLVM may fuse any multiply and add
/// into an `fma` (Triton's `enable_fp_fusion`), without it none. Also returns the
/// optimized LLVM IR when `want_llvm_ir`. The error is LLVM's message (MLIR's diagnostics go to the context's
/// handlers).
pub fn nvptx_compile<'c: 'a, 'a>(
    gpu_module: impl OperationLike<'c, 'a>,
    target: &Target,
    fp_fusion: bool,
    libraries: &[PathBuf],
    want_llvm_ir: bool,
) -> Result<LoweredModule, String> {
    let (chip, features) = (target.chip(), crate::target::llvm_features(target));
    // The paths' bytes as they are (a path need not be UTF-8).
    let refs: Vec<mlir_sys::MlirStringRef> = libraries
        .iter()
        .map(|p| {
            let bytes = p.as_os_str().as_encoded_bytes();
            mlir_sys::MlirStringRef {
                data: bytes.as_ptr().cast(),
                length: bytes.len(),
            }
        })
        .collect();
    let mut collected = Collected::default();
    // SAFETY: the operation is live for the call; every string, the paths `refs` points
    // into and the `refs` array outlive it; `collect` only writes into `collected`, which
    // outlives the call.
    let ok = unsafe {
        tritoncNvptxCompile(
            gpu_module.to_raw(),
            StringRef::new(&chip).to_raw(),
            StringRef::new(&features).to_raw(),
            fp_fusion,
            refs.as_ptr(),
            refs.len(),
            want_llvm_ir,
            collect,
            (&mut collected as *mut Collected).cast(),
        )
    };
    match (ok, collected.ptx) {
        (true, Some(ptx)) => Ok(LoweredModule {
            ptx,
            llvm_ir: collected.llvm_ir,
        }),
        _ => Err(collected
            .error
            .unwrap_or_else(|| "LLVM produced no PTX".to_string())),
    }
}
