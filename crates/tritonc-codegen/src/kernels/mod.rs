//! Hand-built reference kernels: the vertical slice that pins down the module shape,
//! the ABI and the pass pipeline before the tile IR lowering exists.

pub mod softmax_row;
pub mod vector_add;
