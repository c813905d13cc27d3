//! Softmax of one row of up to 1024 fp32 elements per block: 256 threads (8 warps), four
//! elements per thread at a stride of 256 so that each load instruction is coalesced.

use melior::{ir::Location, Context};

use crate::{
    body::IntPredicate,
    error::CodegenError,
    module::{KernelModule, KernelParam},
    reduce::block_all_reduce,
};

/// The kernel's symbol (and PTX `.entry`) name.
pub const KERNEL_NAME: &str = "softmax_row";
/// Elements of a row one block handles (Triton's `BLOCK_SIZE`).
pub const BLOCK: u32 = 1024;
/// Warps per block (Triton's `num_warps`).
pub const NUM_WARPS: u32 = 8;
/// Threads per block.
pub const THREADS: u32 = NUM_WARPS * 32;
/// Elements each thread holds.
pub const PER_THREAD: u32 = BLOCK / THREADS;

/// Parameters: `x`, `out` (16-byte aligned fp32 pointers), then `row_stride`, `n_cols`
/// (`n_cols <= 1024`; the grid has one block per row).
pub const PARAMS: [KernelParam; 4] = [
    KernelParam::GlobalPtr { align: Some(16) },
    KernelParam::GlobalPtr { align: Some(16) },
    KernelParam::I32,
    KernelParam::I32,
];

/// Shared scratch of the max reduction (one f32 per warp).
const MAX_SCRATCH: &str = "softmax_max_scratch";
/// Shared scratch of the sum reduction; separate from the max one, so that no barrier is
/// needed between reading the max partials and writing the sum partials.
const SUM_SCRATCH: &str = "softmax_sum_scratch";

/// Builds the row-softmax kernel in `gpu.module @name`.
pub fn build<'c>(context: &'c Context, name: &str) -> Result<KernelModule<'c>, CodegenError> {
    let location = Location::new(context, "softmax.py", 1, 1);
    let kernels = KernelModule::new(context, name, location);
    let f32_type = melior::ir::Type::float32(context);
    kernels.add_shared_array(MAX_SCRATCH, f32_type, NUM_WARPS, location)?;
    kernels.add_shared_array(SUM_SCRATCH, f32_type, NUM_WARPS, location)?;
    kernels.add_kernel(KERNEL_NAME, &PARAMS, Some(THREADS), location, |b, args| {
        let [x, out, row_stride, n_cols] = args else {
            unreachable!("invariant: add_kernel passes one argument per entry of PARAMS");
        };
        let row = b.block_id_x()?;
        let thread = b.thread_id_x()?;
        let row_start = b.binary("arith.muli", row, *row_stride)?;
        let x_row = b.element_ptr(*x, row_start, f32_type)?;
        let out_row = b.element_ptr(*out, row_start, f32_type)?;
        let neg_inf = b.const_f32(f32::NEG_INFINITY)?;

        // Columns thread, thread + 256, …; masked-off columns read as -inf (exp gives 0).
        let mut columns = Vec::new();
        let mut values = Vec::new();
        for k in 0..PER_THREAD {
            let offset = b.const_i32((k * THREADS) as i32)?;
            let column = b.binary("arith.addi", thread, offset)?;
            let in_row = b.cmpi(IntPredicate::Slt, column, *n_cols)?;
            let loaded = b.if_else(
                in_row,
                &[f32_type],
                |then| {
                    Ok(vec![then.load(
                        then.element_ptr(x_row, column, f32_type)?,
                        f32_type,
                    )?])
                },
                |_| Ok(vec![neg_inf]),
            )?;
            columns.push((column, in_row));
            values.push(loaded[0]);
        }

        let mut row_max = values[0];
        for value in &values[1..] {
            row_max = b.binary("arith.maximumf", row_max, *value)?;
        }
        let row_max = block_all_reduce(b, row_max, "arith.maximumf", MAX_SCRATCH, NUM_WARPS)?;

        let mut exps = Vec::new();
        for value in &values {
            let shifted = b.binary("arith.subf", *value, row_max)?;
            exps.push(b.exp_f32(shifted)?);
        }
        let mut row_sum = exps[0];
        for e in &exps[1..] {
            row_sum = b.binary("arith.addf", row_sum, *e)?;
        }
        let row_sum = block_all_reduce(b, row_sum, "arith.addf", SUM_SCRATCH, NUM_WARPS)?;
        let one = b.const_f32(1.0)?;
        let inverse = b.binary("arith.divf", one, row_sum)?;

        for (e, (column, in_row)) in exps.iter().zip(columns) {
            let normalized = b.binary("arith.mulf", *e, inverse)?;
            b.if_else(
                in_row,
                &[],
                |then| {
                    then.store(normalized, then.element_ptr(out_row, column, f32_type)?)?;
                    Ok(Vec::new())
                },
                |_| Ok(Vec::new()),
            )?;
        }
        Ok(())
    })?;
    Ok(kernels)
}
