//! GPU code generation for NVIDIA and AMD: builds MLIR (`gpu`, `llvm`, `nvvm`, `arith`,
//! `scf`) with melior, lowers it through MLIR's NVVM pipeline and LLVM's NVPTX back end
//! to PTX, and checks the PTX with ptxas; or, for AMD, through MLIR's ROCDL conversion
//! and LLVM's AMDGPU back end to AMDGCN and a code object linked by ld.lld
//! ([`amdgpu`]). See docs/backend-nvidia.md and docs/backend-amd.md for the toolchains,
//! the pipelines and the kernel ABIs.

pub mod amdgpu;
pub mod body;
pub mod combine_orders;
pub mod context;
pub mod error;
pub mod kernels;
pub mod libdevice;
pub mod lower;
pub mod math;
pub mod module;
pub mod pipeline;
pub mod ptxas;
pub mod reduce;
pub mod serialize;
pub mod target;

pub use body::BodyBuilder;
pub use context::codegen_context;
pub use error::CodegenError;
pub use libdevice::locate_libdevice;
pub use lower::{
    compile_to_llvm_ir_in, compile_to_mlir, compile_to_ptx, compile_to_ptx_in, AbiParam,
    CompileError, CompileOptions, CompileStage, CompiledKernel, DEFAULT_REGISTER_BUDGET,
};
pub use module::{KernelModule, KernelParam};
pub use pipeline::{lower_module, lower_to_ptx, nvvm_pipeline, rocdl_pipeline, LoweredModule};
pub use ptxas::{Ptxas, PtxasReport};
pub use target::{Arch, Target, Vendor};
