//! The AMD back end's LLVM half (cpp/amdgpu.cpp) and what surrounds it: a `gpu.module` in
//! the LLVM and ROCDL dialects becomes LLVM IR for `amdgcn-amd-amdhsa`, linked with the
//! ROCm device libraries when it calls them, optimized at O3 and compiled by LLVM's
//! AMDGPU back end into AMDGCN assembly and a relocatable object, which [`link`] links
//! into a code object with ld.lld. [`intrinsics`] maps the NVVM intrinsics the tile
//! lowering names to their AMDGPU equivalents.

pub mod intrinsics;
pub mod link;
pub mod ocml;

use std::{ffi::c_void, path::PathBuf};

use melior::{ir::operation::OperationLike, StringRef};

use crate::target::{Arch, Target};

type Sink = unsafe extern "C" fn(user: *mut c_void, kind: i32, data: *const u8, len: usize);

extern "C" {
    #[allow(clippy::too_many_arguments)]
    fn tritoncAmdgpuCompile(
        gpu_module: mlir_sys::MlirOperation,
        chip: mlir_sys::MlirStringRef,
        isa_version: u32,
        threads: u32,
        waves_per_eu: u32,
        fp_fusion: bool,
        libraries: *const mlir_sys::MlirStringRef,
        num_libraries: usize,
        want_llvm_ir: bool,
        sink: Sink,
        user: *mut c_void,
    ) -> bool;
}

/// What LLVM gives for one AMD module.
#[derive(Debug, Clone, Default)]
pub struct AmdgpuOutput {
    /// The AMDGCN assembly (`--emit amdgcn`).
    pub assembly: String,
    /// The relocatable ELF object, input of [`link::link_code_object`].
    pub object: Vec<u8>,
    /// LLVM IR after LLVM's optimizations, when asked for.
    pub llvm_ir: Option<String>,
}

#[derive(Default)]
struct Collected {
    error: Option<String>,
    llvm_ir: Option<String>,
    assembly: Option<String>,
    object: Option<Vec<u8>>,
}

unsafe extern "C" fn collect(user: *mut c_void, kind: i32, data: *const u8, len: usize) {
    // SAFETY: `user` is the `Collected` that `amdgpu_compile` passes and outlives the
    // call; `data` points to `len` bytes that live for the duration of this callback.
    let (collected, bytes) = unsafe {
        (
            &mut *user.cast::<Collected>(),
            std::slice::from_raw_parts(data, len),
        )
    };
    match kind {
        1 => collected.llvm_ir = Some(String::from_utf8_lossy(bytes).into_owned()),
        2 => collected.assembly = Some(String::from_utf8_lossy(bytes).into_owned()),
        3 => collected.object = Some(bytes.to_vec()),
        _ => collected.error = Some(String::from_utf8_lossy(bytes).into_owned()),
    }
}

/// The device libraries' `__oclc_ISA_version` of an AMD target: major·1000 + minor·100
/// + stepping, the digits of its `gfx` name (gfx942 → 9402, gfx90a → 9010).
pub fn isa_version(target: &Target) -> u32 {
    match target.arch {
        Arch::Amd { gfx } => {
            let (major, minor, stepping) = (gfx >> 8, (gfx >> 4) & 0xf, gfx & 0xf);
            major * 1000 + minor * 100 + stepping
        }
        Arch::Nvidia { .. } => 0,
    }
}

/// AMD's launch options as LLVM takes them.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct AmdgpuOptions {
    /// Threads per work-group (`num_warps · 64`).
    pub threads: u32,
    /// Triton's `waves_per_eu` (0: no hint).
    pub waves_per_eu: u32,
    /// Triton's `enable_fp_fusion`.
    pub fp_fusion: bool,
}

/// Compiles `gpu_module` (already in the LLVM and ROCDL dialects) for `target`, linking
/// the bitcode `libraries` when the kernel calls into them.
pub fn amdgpu_compile<'c: 'a, 'a>(
    gpu_module: impl OperationLike<'c, 'a>,
    target: &Target,
    options: AmdgpuOptions,
    libraries: &[PathBuf],
    want_llvm_ir: bool,
) -> Result<AmdgpuOutput, String> {
    let chip = target.chip();
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
    // SAFETY: the operation is live for the call; `chip`, the paths `refs` points into
    // and `refs` outlive it; `collect` only writes into `collected`, which outlives it.
    let ok = unsafe {
        tritoncAmdgpuCompile(
            gpu_module.to_raw(),
            StringRef::new(&chip).to_raw(),
            isa_version(target),
            options.threads,
            options.waves_per_eu,
            options.fp_fusion,
            refs.as_ptr(),
            refs.len(),
            want_llvm_ir,
            collect,
            (&mut collected as *mut Collected).cast(),
        )
    };
    match (ok, collected.assembly, collected.object) {
        (true, Some(assembly), Some(object)) => Ok(AmdgpuOutput {
            assembly,
            object,
            llvm_ir: collected.llvm_ir,
        }),
        _ => Err(collected
            .error
            .unwrap_or_else(|| "LLVM produced no AMDGPU code".to_string())),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn isa_versions_follow_the_gfx_digits() {
        assert_eq!(isa_version(&Target::amd(0x942)), 9402);
        assert_eq!(isa_version(&Target::amd(0x90a)), 9010);
    }
}
