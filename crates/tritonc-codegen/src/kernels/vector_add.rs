//! `out[i] = x[i] + y[i]` for `i < n`, one fp32 element per thread.

use melior::{ir::Location, Context};

use crate::{
    body::IntPredicate,
    error::CodegenError,
    module::{KernelModule, KernelParam},
};

/// The kernel's symbol (and PTX `.entry`) name.
pub const KERNEL_NAME: &str = "vector_add";

/// Parameters: `x`, `y`, `out` (16-byte aligned fp32 pointers), then `n`.
pub const PARAMS: [KernelParam; 4] = [
    KernelParam::GlobalPtr { align: Some(16) },
    KernelParam::GlobalPtr { align: Some(16) },
    KernelParam::GlobalPtr { align: Some(16) },
    KernelParam::I32,
];

/// Builds the vector-add kernel in `gpu.module @name`.
pub fn build<'c>(context: &'c Context, name: &str) -> Result<KernelModule<'c>, CodegenError> {
    let location = Location::new(context, "vector_add.py", 1, 1);
    let kernels = KernelModule::new(context, name, location);
    kernels.add_kernel(KERNEL_NAME, &PARAMS, None, location, |b, args| {
        let [x, y, out, n] = args else {
            unreachable!("invariant: add_kernel passes one argument per entry of PARAMS");
        };
        // i = blockIdx.x * blockDim.x + threadIdx.x
        let block = b.block_id_x()?;
        let block_dim = b.block_dim_x()?;
        let thread = b.thread_id_x()?;
        let block_start = b.binary("arith.muli", block, block_dim)?;
        let i = b.binary("arith.addi", block_start, thread)?;
        let in_bounds = b.cmpi(IntPredicate::Slt, i, *n)?;
        b.if_else(
            in_bounds,
            &[],
            |then| {
                let f32_type = then.f32_type();
                let x_i = then.load(then.element_ptr(*x, i, f32_type)?, f32_type)?;
                let y_i = then.load(then.element_ptr(*y, i, f32_type)?, f32_type)?;
                let sum = then.binary("arith.addf", x_i, y_i)?;
                then.store(sum, then.element_ptr(*out, i, f32_type)?)?;
                Ok(Vec::new())
            },
            |_| Ok(Vec::new()),
        )?;
        Ok(())
    })?;
    Ok(kernels)
}
