//! Cross-thread reductions: a `shfl.sync` butterfly within a warp, then shared memory
//! across the warps of a block.

use melior::ir::{Value, ValueLike};

use crate::{
    body::{BodyBuilder, IntPredicate, SHARED_ADDRESS_SPACE},
    error::CodegenError,
};

/// Threads per warp on every NVIDIA GPU tritonc targets.
pub const WARP_SIZE: u32 = 32;

/// Combines `value` over the 32 lanes of the warp with the binary arith op `combine`
/// (`arith.maximumf`, `arith.addf`, …); every lane gets the result.
///
/// Five butterfly steps (lane masks 16, 8, 4, 2, 1) leave the full result in every lane,
/// so no broadcast follows.
pub fn warp_all_reduce<'c, 'a>(
    builder: &BodyBuilder<'c, 'a>,
    value: Value<'c, 'a>,
    combine: &str,
) -> Result<Value<'c, 'a>, CodegenError> {
    butterfly(builder, value, combine, WARP_SIZE)
}

/// Butterfly over groups of `width` lanes (a power of two ≤ 32).
fn butterfly<'c, 'a>(
    builder: &BodyBuilder<'c, 'a>,
    mut value: Value<'c, 'a>,
    combine: &str,
    width: u32,
) -> Result<Value<'c, 'a>, CodegenError> {
    let mut lane_mask = width / 2;
    while lane_mask > 0 {
        let other = builder.shuffle_xor(value, lane_mask as i32)?;
        value = builder.binary(combine, value, other)?;
        lane_mask /= 2;
    }
    Ok(value)
}

/// Combines `value` over all threads of a block of `num_warps` warps; every thread gets
/// the result.
///
/// Each warp reduces with shuffles; lane 0 writes the warp's partial to the shared array
/// `scratch` (at least `num_warps` elements of `value`'s type, one per warp); after a
/// barrier every warp reads the partials (lane `l` reads partial `l % num_warps`) and
/// reduces them with a narrower butterfly. `scratch` must not be reused before another
/// barrier. `num_warps` is a power of two ≤ 32.
pub fn block_all_reduce<'c, 'a>(
    builder: &BodyBuilder<'c, 'a>,
    value: Value<'c, 'a>,
    combine: &str,
    scratch: &str,
    num_warps: u32,
) -> Result<Value<'c, 'a>, CodegenError> {
    debug_assert!(num_warps.is_power_of_two() && num_warps <= WARP_SIZE);
    let warp_partial = warp_all_reduce(builder, value, combine)?;
    if num_warps == 1 {
        return Ok(warp_partial);
    }
    let tid = builder.thread_id_x()?;
    let lane_bits = builder.const_i32(WARP_SIZE as i32 - 1)?;
    let lane = builder.binary("arith.andi", tid, lane_bits)?;
    let warp_shift = builder.const_i32(WARP_SIZE.trailing_zeros() as i32)?;
    let warp = builder.binary("arith.shrui", tid, warp_shift)?;
    let element = value.r#type();

    let zero = builder.const_i32(0)?;
    let is_lane_zero = builder.cmpi(IntPredicate::Eq, lane, zero)?;
    builder.if_else(
        is_lane_zero,
        &[],
        |then| {
            let base = then.address_of(scratch, SHARED_ADDRESS_SPACE)?;
            let slot = then.element_ptr(base, warp, element)?;
            then.store(warp_partial, slot)?;
            Ok(Vec::new())
        },
        |_| Ok(Vec::new()),
    )?;
    builder.barrier()?;

    let warp_bits = builder.const_i32(num_warps as i32 - 1)?;
    let source_warp = builder.binary("arith.andi", lane, warp_bits)?;
    let base = builder.address_of(scratch, SHARED_ADDRESS_SPACE)?;
    let slot = builder.element_ptr(base, source_warp, element)?;
    let partial = builder.load(slot, element)?;
    butterfly(builder, partial, combine, num_warps)
}
