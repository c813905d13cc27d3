//! What one thread's code holds, counted on the GPU IR before any code is built.
//!
//! Code generation gives every element a thread holds of every block value its own SSA
//! value (`lower`'s register lists), so the per-thread code grows with the block: an
//! elementwise kernel with `BLOCK = 2**20` (Triton's largest block) and 4 warps holds
//! 8192 elements of each value per thread, and LLVM's optimizations and instruction
//! selection over that straight-line code run for minutes, in process, where no time
//! bound can stop them. [`thread_footprint`] counts the 32-bit registers of every block
//! value the GPU IR defines; the back end compares the count with its budget before it
//! starts (`tritonc_codegen`'s `CompileOptions::register_budget`).

use tritonc_ir::{Function, OpId, Type};

/// The registers one thread's code defines, counted over the GPU IR's block values.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct ThreadFootprint {
    /// 32-bit registers per thread of every block value an op defines, summed over the
    /// function's ops (an op in a loop body counts once: code, not executions). Each is
    /// at least one instruction of the per-thread code.
    pub total_registers: u64,
    /// The block value with the most registers per thread, and the op defining it.
    pub largest: Option<(u64, OpId)>,
}

/// 32-bit registers one thread holds of a block value of type `ty` (0 for scalars,
/// shared buffers and blocks without an encoding or a known shape).
pub fn registers_per_thread(ty: &Type) -> u64 {
    let (Some(layout), Some(shape)) = (ty.encoding(), ty.known_shape()) else {
        return 0;
    };
    let Ok(linear) = layout.to_linear(&shape) else {
        return 0;
    };
    let words = u64::from(ty.elem().bitwidth().unwrap_or(32).div_ceil(32).max(1));
    u64::from(linear.num_registers()) * words
}

/// The footprint of `func`, a GPU-IR function (every block with an encoding).
pub fn thread_footprint(func: &Function) -> ThreadFootprint {
    let mut out = ThreadFootprint::default();
    for op in func.walk() {
        for &result in func.op(op).results() {
            let n = registers_per_thread(func.value_type(result));
            out.total_registers = out.total_registers.saturating_add(n);
            if n > 0 && out.largest.is_none_or(|(most, _)| n > most) {
                out.largest = Some((n, op));
            }
        }
    }
    out
}
