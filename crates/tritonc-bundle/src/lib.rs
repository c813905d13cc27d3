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
//! This crate links neither LLVM nor CUDA.

mod bundle;
pub mod meta;
pub mod ptx;

pub use bundle::{
    list_bundle_dirs, ptx_target, Bundle, BundleError, BUNDLE_EXTENSION, CUBIN_FILE, META_FILE,
    PTX_FILE,
};
pub use meta::{
    abi_in_declaration_order, parse_sm, AbiFromSpecError, BundleMeta, ConstValue, HiddenParam,
    HiddenParamKind, ParamAbi, ParamRole, PtxParamKind, PtxasReport, FORMAT_VERSION,
};
