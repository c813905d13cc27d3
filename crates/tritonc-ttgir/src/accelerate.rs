//! Which dots run on tensor cores (Triton's `tritongpu-accelerate-matmul` decision), and
//! on how many warps along M and N.
//!
//! A `tt.dot` takes the `mma.sync` accumulator layout ([`MmaLayout`], version 2) when the
//! target has it (`sm_80` and later) and its operand and accumulator types are an
//! instruction's:
//!
//! | A, B | accumulator | instruction |
//! |---|---|---|
//! | fp16, fp16 | fp32 | `mma.sync.m16n8k16.f32.f16.f16.f32` |
//! | bf16, bf16 | fp32 | `mma.sync.m16n8k16.f32.bf16.bf16.f32` |
//! | fp32, fp32 (`input_precision = tf32`) | fp32 | `mma.sync.m16n8k8.f32.tf32.tf32.f32` |
//! | fp32, fp32 (`tf32x3`) | fp32 | three sweeps of the tf32 instruction over split operands (Triton's `F32DotTC`, done in codegen's `lower/mma.rs`) |
//! | int8, int8 | int32 | `mma.sync.m16n8k32.s32.s8.s8.s32.satfinite` |
//! | fp8 e4m3 or e5m2 (both the same), sm_89+ | fp32 | widened to fp16 exactly, then `m16n8k16.f32.f16.f16.f32` (Triton's sm_90 choice) |
//!
//! and its block is 2-D with M ≥ 16, N ≥ 8 and K at least one instruction step. Every
//! other dot (fp16 accumulators, `ieee` fp32, fp8 before sm_89, 3-D, smaller blocks) stays
//! on the FMA units in a blocked layout.
//!
//! Warps are placed as Triton's `warpsPerTileV2` places them: doubled along M while M has
//! more 16-row tiles per warp than N has 16-column ones, else along N; a dot whose result
//! feeds the A operand of another dot (attention's `P·V`) puts every warp along M so the
//! rows a warp owns stay its own across both dots, and so does the second dot (whose A
//! then arrives in the first's accumulator layout, and is read from registers). A
//! `tf32x3` dot, which Triton splits into three chained dots before this decision, puts
//! every warp along the longer of M and N, as Triton's chained dots do (`[4, 1]` for a
//! 128×128 block on 4 warps).
//!
//! On capability 9.0 (`sm_90`, `sm_90a`: Hopper) a dot takes the `wgmma` accumulator
//! layout (version 3) instead where Triton 3.6's `tritongpu-accelerate-matmul` would:
//! `num_warps` a multiple of 4, M a multiple of 64, and the operand types of a `wgmma`
//! instruction (fp16, bf16 and tf32 into fp32, fp8 e4m3/e5m2 into fp32, int8 into
//! int32). An fp8 dot's `max_num_imprecise_acc` does not change the choice: above K (the
//! default on sm_90, 2^30) the instruction accumulates throughout, at most K the back end
//! adds partial `wgmma` sums of that many K elements into a separate fp32 accumulator, as
//! Triton's `WarpGroupDotOp::needsPartialAccumulator` code does. Its warps are Triton's `warpsPerTileV3`
//! (every warp along M for a chained dot; else four along M, then doubled along M while
//! M has more 16-row tiles, else along N) and its instruction's N the largest Triton
//! allows (`mmaVersionToInstrShape`); see `scripts/triton_wgmma.py` and its fixture.
//!
//! [`operand_shared_layout`] decides how a tensor-core operand is staged in shared memory
//! (the layout of the pipeline's buffers, and of the scratch a dot stages registers in);
//! [`wgmma_operand_layout`] does for a `wgmma` operand, which the instruction reads itself
//! through a matrix descriptor.

use tritonc_ir::layout::{Layout, LinearLayout};
use tritonc_ir::{DType, Function, InputPrecision, MmaLayout, OpId, OpKind, SharedLayout, Value};

use crate::assign::is_elementwise;

/// The K step of the `mma.sync` instruction a dot of these operand types would use, or
/// `None` when no instruction takes them.
pub fn mma_k_step(a: DType, b: DType, acc: DType, precision: InputPrecision) -> Option<u64> {
    match (a, b, acc) {
        (DType::F16, DType::F16, DType::F32) | (DType::BF16, DType::BF16, DType::F32) => Some(16),
        (DType::F32, DType::F32, DType::F32)
            if matches!(precision, InputPrecision::Tf32 | InputPrecision::Tf32x3) =>
        {
            Some(8)
        }
        (DType::I8, DType::I8, DType::I32) => Some(32),
        // Widened to fp16 first (exactly), as Triton 3.6's sm_90 code does.
        (DType::F8E4M3FN, DType::F8E4M3FN, DType::F32)
        | (DType::F8E5M2, DType::F8E5M2, DType::F32) => Some(16),
        _ => None,
    }
}

/// The tensor-core layout of `dot`'s result on a target of compute capability
/// `capability` (`0`: none), or `None` when it stays on the FMA units.
pub fn mma_layout_for(func: &Function, dot: OpId, num_warps: u32, capability: u32) -> Option<Layout> {
    if capability < 80 {
        return None;
    }
    let OpKind::Dot {
        input_precision, ..
    } = *func.kind(dot)
    else {
        return None;
    };
    let data = func.op(dot);
    let [a, b, _] = data.operands()[..] else {
        return None;
    };
    let r = data.results()[0];
    let dtype = |v: Value| func.value_type(v).dtype();
    let k_step = mma_k_step(dtype(a)?, dtype(b)?, dtype(r)?, input_precision)?;
    // fp8 MMAs exist from sm_89 (Ada) on.
    if dtype(a)?.bitwidth() == Some(8) && dtype(a)?.is_float() && capability < 89 {
        return None;
    }
    let shape = func.value_type(r).known_shape()?;
    let a_shape = func.value_type(a).known_shape()?;
    if shape.len() != 2 || a_shape.len() != 2 {
        return None;
    }
    let (m, n, k) = (shape[0], shape[1], a_shape[1]);
    if m < 16 || n < 8 || k < k_step || k % k_step != 0 {
        return None;
    }
    let split_fp32 = input_precision == InputPrecision::Tf32x3 && dtype(a)? == DType::F32;
    let chained = feeds_a_dot(func, r) || a_from_dot(func, a);
    if capability == 90 && !split_fp32 {
        // A `wgmma` multiplies 32 bytes of K per instruction.
        let wk = 32 / u64::from(dtype(a)?.size_bytes()?);
        if let Some(l) = wgmma_layout(m, n, wk, num_warps, chained, dtype(a)? == DType::I8)
            .filter(|_| k % wk == 0)
        {
            return Some(Layout::Mma(l));
        }
    }
    let warps = if chained {
        [num_warps.min((m / 16) as u32).max(1), 1]
    } else if split_fp32 {
        // Triton splits a tf32x3 dot into three chained dots before choosing warps, and
        // chained dots put every warp along the longer of M and N (`warpsPerTileV2`).
        let chained = if m >= n {
            [num_warps.min((m / 16) as u32).max(1), 1]
        } else {
            [1, num_warps.min((n / 8) as u32).max(1)]
        };
        if chained[0] * chained[1] == num_warps {
            chained
        } else {
            warps_per_tile(m, n, num_warps)
        }
    } else {
        warps_per_tile(m, n, num_warps)
    };
    if warps[0] * warps[1] != num_warps {
        // Fewer 16-row tiles than warps on a chained dot: keep every warp busy on FMA.
        return None;
    }
    Some(Layout::Mma(MmaLayout::v2(warps)))
}

/// The `wgmma` accumulator layout of an `m`×`n` dot on `num_warps` warps whose
/// instruction takes `k_step` elements of K (Triton's `warpsPerTileV3` and
/// `mmaVersionToInstrShape`), or `None` when `wgmma` cannot compute it.
fn wgmma_layout(m: u64, n: u64, k_step: u64, num_warps: u32, chained: bool, int8: bool) -> Option<MmaLayout> {
    if num_warps % 4 != 0 || m % 64 != 0 || n % 8 != 0 {
        return None;
    }
    let warps = if chained {
        [num_warps, 1]
    } else {
        let mut ret = [4u32, 1u32];
        while ret[0] * ret[1] < num_warps {
            if m > 16 * u64::from(ret[0]) {
                ret[0] *= 2;
            } else {
                ret[1] *= 2;
            }
        }
        ret
    };
    // Warps beyond a warpgroup along both M and N are placed in an order not checked
    // against Triton's; they keep `mma.sync`.
    if warps[0] != 4 && warps[1] != 1 {
        return None;
    }
    let m_warps = (m / 16).max(1);
    let n_warps = (u64::from(num_warps) / m_warps).max(1);
    let max_n = (n / n_warps).max(8);
    const INT8_N: [u64; 16] = [224, 208, 192, 176, 160, 144, 128, 112, 96, 80, 64, 48, 32, 24, 16, 8];
    let instr_n = if int8 {
        INT8_N.iter().copied().find(|&c| n % c == 0 && c <= max_n)?
    } else {
        (1..=32u64).rev().map(|i| 8 * i).find(|&c| n % c == 0 && c <= max_n)?
    };
    // Every warpgroup's tile is whole instructions, and the warps fit the block.
    let wn = u64::from(warps[1]);
    if n % (instr_n * wn) != 0 || m % (16 * u64::from(warps[0])) != 0 || !instr_n.is_power_of_two() {
        return None;
    }
    Some(MmaLayout::v3(warps, instr_n as u32, k_step as u32))
}

/// Triton's `warpsPerTileV2` for a dot that feeds no other dot.
fn warps_per_tile(m: u64, n: u64, num_warps: u32) -> [u32; 2] {
    let mut ret = [1u32, 1u32];
    while ret[0] * ret[1] < num_warps {
        if m / 16 / u64::from(ret[0]) >= n / 16 / u64::from(ret[1]) {
            if u64::from(ret[0]) < m / 16 {
                ret[0] *= 2;
            } else {
                ret[1] *= 2;
            }
        } else {
            ret[1] *= 2;
        }
    }
    ret
}

/// Whether `a` (a dot's A operand) is computed from another dot's result through
/// elementwise ops and conversions: the second dot of a chain takes the first's warps.
fn a_from_dot(func: &Function, a: Value) -> bool {
    let mut work = vec![a];
    let mut seen = std::collections::HashSet::new();
    while let Some(v) = work.pop() {
        if !seen.insert(v) || seen.len() > 4096 {
            continue;
        }
        let Some(def) = func.defining_op(v) else {
            continue;
        };
        let kind = func.kind(def);
        if matches!(kind, OpKind::Dot { .. }) {
            return true;
        }
        if is_elementwise(kind) || matches!(kind, OpKind::ConvertLayout) {
            work.extend(func.op(def).operands().iter().copied());
        }
    }
    false
}

/// Whether `v` reaches operand 0 of a dot through elementwise ops and conversions.
fn feeds_a_dot(func: &Function, v: Value) -> bool {
    let mut work = vec![v];
    let mut seen = std::collections::HashSet::new();
    while let Some(v) = work.pop() {
        if !seen.insert(v) || seen.len() > 4096 {
            continue;
        }
        for u in func.uses(v) {
            let kind = func.kind(u.op);
            if matches!(kind, OpKind::Dot { .. }) && u.operand == 0 {
                return true;
            }
            if is_elementwise(kind) || matches!(kind, OpKind::ConvertLayout) {
                work.extend(func.op(u.op).results().iter().copied());
            }
        }
    }
    false
}

/// The shared layout a tensor-core dot's operand `operand` (0: A as `[m, k]`, 1: B as
/// `[k, n]`) of shape `dims` is staged in, when its registers are `linear` and its
/// elements `elem_bytes` wide (as the `mma.sync` instruction reads them).
///
/// Rows run along K unless a 16-bit operand's registers run along its M or N dim (then
/// along that dim, read with `ldmatrix.trans`), or a 32-bit B operand's run along N (then
/// along N, its fragments read one word at a time), or an 8-bit B operand's run along N
/// (then along N, filled by `cp.async` as it arrives, its fragments gathered a byte at a
/// time, as Triton's `mma.sync` int8 code reads it). So the stores are vectors.
///
/// The rows are swizzled as Triton's `#ttg.swizzled_shared` for `mma.sync` operands:
/// chunks of 16 bytes (`vec`), `per_phase = max(1, 128 / row bytes)` rows per phase and
/// `max_phase = min(8 / per_phase, chunks per row)` phases. The eight 16-byte rows one
/// `ldmatrix` matrix reads, and the 16-byte chunks a warp's `cp.async` copies or vector
/// stores write, then fall in distinct bank groups, with no bytes spent on padding
/// (padded rows put every other row across a 128-byte line, which `cp.async` pays for in
/// extra shared-memory wavefronts). Rows narrower than two chunks keep 16-byte padding
/// instead.
///
/// The N-major B operands read a word (32-bit) or a byte (8-bit) at a time take
/// Triton's `#ttg.swizzled_shared` for them: chunks of 8 elements, `per_phase = max(1,
/// 128 / row bytes)`, `max_phase = (K of the instruction's fragment: 4 tf32, 16 int8) /
/// per_phase`. The four K rows of a tf32 fragment load (or the sixteen of an int8 one)
/// then move the eight columns a warp reads into distinct banks, with no padding (16
/// bytes a row, which pushed an int8 matmul's buffers past Triton's, and put two of a
/// byte gather's rows in the same banks). Rows of fewer than 8 elements keep padding (32
/// bytes for the 32-bit B, 16 for the 8-bit one).
pub fn operand_shared_layout(
    linear: &LinearLayout,
    operand: usize,
    dims: [u64; 2],
    elem_bytes: u64,
) -> SharedLayout {
    let outer = if operand == 0 { 0 } else { 1 };
    let inner = 1 - outer;
    let along_outer = linear.contiguous_registers(outer) > linear.contiguous_registers(inner);
    let trans = elem_bytes == 2 && along_outer;
    let scalar = elem_bytes == 4 && outer == 1 && along_outer;
    let gather8 = elem_bytes == 1 && outer == 1 && along_outer;
    let fast = if trans || scalar || gather8 { outer } else { inner };
    let order = vec![fast as u32, 1 - fast as u32];
    let elem_bytes = elem_bytes.max(1);
    let row_bytes = dims[fast] * elem_bytes;
    let chunks = row_bytes / 16;
    if !scalar && !gather8 && chunks >= 2 && row_bytes % 16 == 0 {
        let per_phase = (128 / row_bytes).max(1);
        let max_phase = (8 / per_phase).min(chunks).max(1);
        return SharedLayout {
            vec: (16 / elem_bytes) as u32,
            per_phase: per_phase as u32,
            max_phase: max_phase as u32,
            order,
            padding: None,
            nvmma: None,
        };
    }
    if (scalar || gather8) && dims[fast] % 8 == 0 {
        let per_phase = (128 / row_bytes).max(1);
        let fragment_k = if scalar { 4 } else { 16 };
        let max_phase = (fragment_k / per_phase).clamp(1, dims[fast] / 8);
        if max_phase > 1 {
            return SharedLayout {
                vec: 8,
                per_phase: per_phase as u32,
                max_phase: max_phase as u32,
                order,
                padding: None,
                nvmma: None,
            };
        }
    }
    let pad = if scalar { 8 } else { 16 / elem_bytes };
    // (gather8: 16 bytes, so `cp.async`'s 16-byte vectors stay aligned.)
    SharedLayout::padded(order, dims[fast] as u32, pad as u32)
}

/// The shared layout a `wgmma` operand (`operand` 0: A as `[m, k]`, 1: B as `[k, n]`) of
/// shape `dims` is staged in, when its registers are `linear` and its elements
/// `elem_bytes` wide: Triton's `#ttg.nvmma_shared` with the widest swizzle (128, 64 or 32
/// bytes) that whole rows allow.
///
/// The rows run along K (*K-major*) unless a 16-bit operand's registers run along its M
/// or N dim (*MN-major*, which `wgmma` transposes for 16-bit types only) and every
/// instruction's M or N offset starts a column block (`mn_step`: 64 rows of A per
/// warpgroup, `instrShape[1]` columns of B), so one descriptor describes it.
pub fn wgmma_operand_layout(
    linear: &LinearLayout,
    operand: usize,
    dims: [u64; 2],
    elem_bytes: u64,
    mn_step: u64,
) -> SharedLayout {
    let k_dim = if operand == 0 { 1 } else { 0 };
    let mn_dim = 1 - k_dim;
    let swizzle = |elems: u64| -> Option<u64> {
        let bytes = elems * elem_bytes;
        [128u64, 64, 32].into_iter().find(|&s| bytes >= s && bytes % s == 0)
    };
    let along_mn = linear.contiguous_registers(mn_dim) > linear.contiguous_registers(k_dim);
    let mn_major = elem_bytes == 2
        && along_mn
        && swizzle(dims[mn_dim]).is_some_and(|s| {
            let w = s / elem_bytes;
            dims[mn_dim] <= w || mn_step % w == 0
        });
    let fast = if mn_major { mn_dim } else { k_dim };
    // K is at least one instruction step: 32 bytes.
    let s = swizzle(dims[fast]).unwrap_or(32);
    SharedLayout::nvmma(s as u32, fast == 0, (elem_bytes * 8) as u32)
}

/// The shared layout operand `operand` of a dot in the accumulator layout `mma` is
/// staged in: [`wgmma_operand_layout`] for `wgmma`, else [`operand_shared_layout`].
pub fn operand_layout_for(
    mma: &MmaLayout,
    linear: &LinearLayout,
    operand: usize,
    dims: [u64; 2],
    elem_bytes: u64,
) -> SharedLayout {
    if mma.is_wgmma() {
        let mn_step = if operand == 0 { 64 } else { u64::from(mma.instr_n()) };
        wgmma_operand_layout(linear, operand, dims, elem_bytes, mn_step)
    } else {
        operand_shared_layout(linear, operand, dims, elem_bytes)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn operand_swizzles_are_tritons() {
        // Triton 3.6's `#ttg.swizzled_shared` for the fp16 operands of the K loop of
        // crates/tritonc-ttgir/tests/fixtures/pipeline/k_loop.py on sm_80: 32x32 tiles
        // (64-byte rows) vec 8, perPhase 2, maxPhase 4; 64x64 and 128x64 (128-byte rows)
        // vec 8, perPhase 1, maxPhase 8.
        let k_major = |m: u64, k: u64| LinearLayout {
            shape: vec![m, k],
            registers: vec![vec![0, 1], vec![0, 2], vec![0, 4]],
            lanes: vec![vec![0, 8], vec![1, 0], vec![2, 0], vec![4, 0], vec![8, 0]],
            warps: Vec::new(),
        };
        for (dims, want) in [([32, 32], (8, 2, 4)), ([64, 64], (8, 1, 8)), ([128, 64], (8, 1, 8))] {
            let l = operand_shared_layout(&k_major(dims[0], dims[1]), 0, dims, 2);
            assert_eq!((l.vec, l.per_phase, l.max_phase), want, "{dims:?}");
            assert_eq!(l.order, vec![1, 0]);
            assert!(l.padding.is_none());
            l.check(&dims).unwrap();
        }
        // The N-major B operands read a word or a byte at a time: Triton 3.6's
        // `#shared1` of bench/tc's tf32 matmul (32x128 fp32: vec 8, perPhase 1, maxPhase
        // 4) and int8 matmul (64x128 int8: vec 8, perPhase 1, maxPhase 16).
        let n_major = |k: u64, n: u64| LinearLayout {
            shape: vec![k, n],
            registers: vec![vec![0, 1], vec![0, 2]],
            lanes: vec![vec![0, 4], vec![0, 8], vec![0, 16], vec![0, 32], vec![1, 0]],
            warps: Vec::new(),
        };
        for (dims, bytes, want) in [([32, 128], 4, (8, 1, 4)), ([64, 128], 1, (8, 1, 16))] {
            let l = operand_shared_layout(&n_major(dims[0], dims[1]), 1, dims, bytes);
            assert_eq!((l.vec, l.per_phase, l.max_phase), want, "{dims:?}");
            assert_eq!(l.order, vec![1, 0]);
            assert!(l.padding.is_none());
            l.check(&dims).unwrap();
        }
        // Rows of fewer than 8 elements keep padding.
        let l = operand_shared_layout(&n_major(32, 4), 1, [32, 4], 4);
        assert_eq!(l.padding.map(|p| p.pad), Some(8));
    }

    #[test]
    fn wgmma_choices_are_tritons() {
        // tests/fixtures/triton/wgmma.json (scripts/triton_wgmma.py): warpsPerCTA and
        // instrShape of Triton 3.6's `#mma` version 3.
        let l = |m, n, k, w, int8| wgmma_layout(m, n, k, w, false, int8).map(|l| (l.warps_per_cta, l.instr_shape));
        assert_eq!(l(128, 256, 16, 8, false), Some((vec![8, 1], vec![16, 256, 16])));
        assert_eq!(l(128, 128, 16, 4, false), Some((vec![4, 1], vec![16, 128, 16])));
        assert_eq!(l(128, 128, 16, 8, false), Some((vec![8, 1], vec![16, 128, 16])));
        assert_eq!(l(64, 64, 16, 4, false), Some((vec![4, 1], vec![16, 64, 16])));
        assert_eq!(l(64, 256, 16, 4, false), Some((vec![4, 1], vec![16, 256, 16])));
        assert_eq!(l(256, 128, 16, 8, false), Some((vec![8, 1], vec![16, 128, 16])));
        assert_eq!(l(128, 128, 32, 4, true), Some((vec![4, 1], vec![16, 128, 32])));
        assert_eq!(l(128, 128, 8, 4, false), Some((vec![4, 1], vec![16, 128, 8])));
        // Too few rows or warps: `mma.sync` (Triton's version 2).
        assert_eq!(l(32, 32, 16, 4, false), None);
        assert_eq!(l(64, 64, 16, 2, false), None);
    }

    #[test]
    fn wgmma_operands_are_tritons() {
        // The fixture's shared layouts: fp16 A 128x64 and B 64x256 (N-contiguous loads)
        // in 128-byte swizzles, B not transposed; a 32-wide K gives A a 64-byte swizzle;
        // B loaded K-contiguous is transposed.
        let k_fast = |m: u64, k: u64| LinearLayout {
            shape: vec![m, k],
            registers: vec![vec![0, 1], vec![0, 2], vec![0, 4]],
            lanes: vec![vec![0, 8], vec![1, 0], vec![2, 0], vec![4, 0], vec![8, 0]],
            warps: Vec::new(),
        };
        let a = wgmma_operand_layout(&k_fast(128, 64), 0, [128, 64], 2, 64);
        assert_eq!(a, SharedLayout::nvmma(128, false, 16));
        let a = wgmma_operand_layout(&k_fast(128, 32), 0, [128, 32], 2, 64);
        assert_eq!(a, SharedLayout::nvmma(64, false, 16));
        let b = wgmma_operand_layout(&k_fast(64, 256), 1, [64, 256], 2, 256);
        assert_eq!(b, SharedLayout::nvmma(128, false, 16));
        let k_rows = |k: u64, n: u64| LinearLayout {
            shape: vec![k, n],
            registers: vec![vec![1, 0], vec![2, 0], vec![4, 0]],
            lanes: vec![vec![8, 0], vec![0, 1], vec![0, 2], vec![0, 4], vec![0, 8]],
            warps: Vec::new(),
        };
        let b = wgmma_operand_layout(&k_rows(64, 128), 1, [64, 128], 2, 128);
        assert_eq!(b, SharedLayout::nvmma(128, true, 16));
        // 8-bit operands are always K-major: fp8 64x128 B loaded N-contiguous.
        let b = wgmma_operand_layout(&k_fast(64, 128), 1, [64, 128], 1, 128);
        assert_eq!(b, SharedLayout::nvmma(64, true, 8));
    }

    #[test]
    fn warps_are_tritons() {
        // Triton 3.6's `#mma` for the 128x256 fp16 matmul on 8 warps is warpsPerCTA [2, 4].
        assert_eq!(warps_per_tile(128, 256, 8), [2, 4]);
        assert_eq!(warps_per_tile(128, 128, 4), [2, 2]);
        assert_eq!(warps_per_tile(64, 64, 4), [2, 2]);
        assert_eq!(warps_per_tile(16, 64, 4), [1, 4]);
    }
}
