//! The codegen test binary (one binary: each links LLVM/MLIR, about 250 MB).

mod approx;
mod combine_orders;
mod debug_assert;
#[path = "../../../tritonc-ttgir/tests/fixtures/mod.rs"]
mod fixtures;
mod from_source;
mod grid_dep;
mod inline_asm;
mod reference_kernels;
mod tensor_cores;
mod tile_ir;
