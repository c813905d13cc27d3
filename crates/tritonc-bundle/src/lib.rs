//! Compiled-kernel bundles: what the back end writes and the runtime loads.
//!
//! A bundle is one compiled variant of one kernel: its PTX, the cubin when ptxas produced
//! one, and [`BundleMeta`]: the format version, the `.entry` name, the target (`sm_90`),
//! the [`SpecializationKey`](tritonc_sema::SpecializationKey), `num_warps`, dynamic shared
//! memory, and the argument ABI — for every source parameter, whether it was folded as a
//! constexpr, folded as equal to one, or passed (at which `.entry` position, as what).
//!
//! On disk a bundle is a directory (see `docs/runtime.md`):
//!
//! ```text
//! add_kernel-0123456789abcdef.tcb/
//!   bundle.json     metadata (BundleMeta, pretty JSON)
//!   kernel.ptx      PTX text
//!   kernel.cubin    optional: ptxas output for the same target
//! ```
//!
//! An AMD bundle (target `gfx90a`, `gfx942`, …; format version 2) holds the same metadata
//! and the AMDGPU code object instead of PTX and cubin:
//!
//! ```text
//! add_kernel-0123456789abcdef.tcb/
//!   bundle.json     metadata, "format_version": 2, "target": "gfx942"
//!   kernel.hsaco    the code object (an AMDGPU ELF), loaded as is
//! ```
//!
//! In memory its code object is [`Bundle::cubin`] (the binary for the target) and its
//! PTX is empty; [`Bundle::hsaco`] reads it by its name.
//!
//! This crate links neither LLVM nor CUDA.

mod amdgpu;
mod bundle;
pub mod c_source;
mod driver;
mod elf;
pub mod meta;
pub mod ptx;
pub mod tuned;

pub use bundle::{
    list_bundle_dirs, ptx_target, Bundle, BundleError, BUNDLE_EXTENSION, CUBIN_FILE, HSACO_FILE,
    META_FILE, PTX_FILE,
};
pub use driver::{driver_version_name, min_driver_for_ptx, min_driver_for_ptx_isa, ptx_isa_version};
pub use meta::{
    abi_in_declaration_order, format_version_for, parse_gfx, parse_sm, AbiFromSpecError,
    BundleMeta, ConstValue, HiddenParam, HiddenParamKind, ParamAbi, ParamRole, PtxParamKind,
    PtxasReport, AMD_FORMAT_VERSION, FORMAT_VERSION,
};
