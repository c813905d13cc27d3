//! Which dots run on AMD's matrix cores (Triton 3.6's `tritonamdgpu-accelerate-matmul`
//! decision), with which `v_mfma_*` instruction, and on how many warps along M and N.
//!
//! A 2-D `tt.dot` on gfx942 (MFMA version 3) or gfx90a (version 2) takes the
//! `#ttg.amd_mfma` accumulator layout ([`MfmaLayout`]) when its operand and accumulator
//! types are an instruction's and its block holds whole instructions:
//!
//! | A, B | accumulator | 32×32 instruction | 16×16 instruction |
//! |---|---|---|---|
//! | fp16 | fp32, or fp16 (rounded after the dot) | `v_mfma_f32_32x32x8f16` | `v_mfma_f32_16x16x16f16` |
//! | bf16 | fp32 | `v_mfma_f32_32x32x8bf16_1k` | `v_mfma_f32_16x16x16bf16_1k` |
//! | fp32 | fp32 | `v_mfma_f32_32x32x2f32` | `v_mfma_f32_16x16x4f32` |
//! | int8 | int32 (gfx942) | `v_mfma_i32_32x32x16_i8` | `v_mfma_i32_16x16x32_i8` |
//! | int8 | int32 (gfx90a) | `v_mfma_i32_32x32x8i8` | `v_mfma_i32_16x16x16i8` |
//!
//! The instruction is 32×32 when `min(M, N) ≥ 32`, 16×16 when it is 16 to 31 (Triton's
//! `matrix_instr_nonkdim = 0`); smaller blocks, K not a multiple of the instruction's K,
//! bf16 accumulators, fp8 and 3-D dots stay on the FMA units, and so do dots that feed or
//! are fed by another dot (attention's chains, for which Triton picks other layouts).
//!
//! fp32 dots use the fp32 instruction whatever their `input_precision`: Triton 3.6's
//! default on AMD is `ieee` (its `tf32` exists on gfx942 only, as `v_mfma_*_xf32`, and is
//! refused on gfx942's predecessors), while tritonc's IR records `tf32` for a dot that
//! names no precision. The fp32 products are exact, so the result is at least as precise
//! as any precision asked for.
//!
//! Warps are placed as Triton's `warpsPerTile` does for MFMA (doubled along M while M has
//! at least as many instruction tiles per warp, counted in pairs, as N has, else along N;
//! swapped when the N warps would overhang N), and the layout is transposed
//! (`isTransposed = true`: each lane holds four N-consecutive results of a row, so stores
//! are vectors). Operands hold `kWidth = kDim · mDim / 64` K-consecutive elements per lane
//! (4 for 16-bit types, 8 for gfx942's int8, 1 for fp32). The fixtures of
//! scripts/triton_amd_dot_reference.py (tests/fixtures/triton_amd_dot) record Triton's
//! choices; the tests below compare every one.

use std::collections::HashMap;

use tritonc_ir::layout::Layout;
use tritonc_ir::{DType, Function, MfmaLayout, OpId, OpKind, Value};
use tritonc_target::Target;

use crate::assign::{is_elementwise, LayoutAssignment};

/// The MFMA version of `target` (2: gfx90a, 3: gfx942), or `None` when it has no matrix
/// cores tritonc drives.
pub fn mfma_version(target: &Target) -> Option<u32> {
    if !target.is_amd() {
        return None;
    }
    match target.chip().as_str() {
        "gfx90a" => Some(2),
        "gfx942" => Some(3),
        _ => None,
    }
}

/// `[mDim, nDim, kDim]` of the instruction for operands `a` and accumulator `acc` at
/// `non_k` (32 or 16) on MFMA `version`, or `None` when none takes them.
pub fn mfma_instr_shape(version: u32, a: DType, acc: DType, non_k: u32) -> Option<[u32; 3]> {
    let k = match (a, acc, non_k) {
        // An fp16 accumulator runs the fp32 instruction, rounded after the dot (Triton's).
        (DType::F16 | DType::BF16, DType::F32, 32) | (DType::F16, DType::F16, 32) => 8,
        (DType::F16 | DType::BF16, DType::F32, 16) | (DType::F16, DType::F16, 16) => 16,
        (DType::F32, DType::F32, 32) => 2,
        (DType::F32, DType::F32, 16) => 4,
        (DType::I8, DType::I32, 32) => {
            if version >= 3 {
                16
            } else {
                8
            }
        }
        (DType::I8, DType::I32, 16) => {
            if version >= 3 {
                32
            } else {
                16
            }
        }
        _ => return None,
    };
    Some([non_k, non_k, k])
}

/// The MFMA layout of `dot`'s result on MFMA `version` (`None`: no matrix cores), or
/// `None` when it stays on the FMA units.
pub fn mfma_layout_for(func: &Function, dot: OpId, num_warps: u32, version: Option<u32>) -> Option<Layout> {
    let version = version?;
    let OpKind::Dot { .. } = func.kind(dot) else {
        return None;
    };
    let data = func.op(dot);
    let [a, b, _] = data.operands()[..] else {
        return None;
    };
    let r = data.results()[0];
    let dtype = |v: Value| func.value_type(v).dtype();
    let (a_ty, acc_ty) = (dtype(a)?, dtype(r)?);
    if dtype(b)? != a_ty {
        return None;
    }
    let shape = func.value_type(r).known_shape()?;
    let a_shape = func.value_type(a).known_shape()?;
    if shape.len() != 2 || a_shape.len() != 2 {
        return None;
    }
    let (m, n, k) = (shape[0], shape[1], a_shape[1]);
    let min = m.min(n);
    let non_k = if min >= 32 {
        32
    } else if min >= 16 {
        16
    } else {
        return None;
    };
    let instr = mfma_instr_shape(version, a_ty, acc_ty, non_k)?;
    if k % u64::from(instr[2]) != 0 {
        return None;
    }
    if feeds_a_dot(func, r) || a_from_dot(func, a) {
        return None;
    }
    Some(Layout::AmdMfma(MfmaLayout {
        version,
        warps_per_cta: warps_per_tile(m, n, num_warps, u64::from(non_k)).to_vec(),
        instr_shape: instr.to_vec(),
        is_transposed: true,
    }))
}

/// Stores of a value computed from an MFMA-layout value (a dot's result) by elementwise
/// ops (the epilogue's activation and cast) are done in that layout, as Triton 3.6's AMD
/// code does them: each lane's four N-consecutive results go out as one vector, the
/// pointers and masks are index math rebuilt in the layout, and the block makes no round
/// trip through LDS.
pub(crate) fn stores_in_mfma_layout(func: &Function, a: &LayoutAssignment) -> HashMap<OpId, Layout> {
    let mut stores = HashMap::new();
    for op in crate::control::code_ops(func) {
        if !matches!(func.kind(op), OpKind::Store { .. }) {
            continue;
        }
        let Some(&value) = func.op(op).operands().get(1) else {
            continue;
        };
        if let Some(l) = mfma_source(func, a, value) {
            stores.insert(op, l);
        }
    }
    stores
}

/// The MFMA layout `v` is computed from through elementwise ops, if any.
fn mfma_source(func: &Function, a: &LayoutAssignment, v: Value) -> Option<Layout> {
    let mut work = vec![v];
    let mut seen = std::collections::HashSet::new();
    while let Some(v) = work.pop() {
        if !seen.insert(v) || seen.len() > 256 {
            continue;
        }
        if let Some(l @ Layout::AmdMfma(_)) = a.layout(v) {
            return Some(l.clone());
        }
        let Some(def) = func.defining_op(v) else {
            continue;
        };
        if is_elementwise(func.kind(def)) {
            work.extend(func.op(def).operands().iter().copied());
        }
    }
    None
}

/// Triton's `warpsPerTile` for an MFMA dot of `non_k`×`non_k` instruction tiles.
fn warps_per_tile(m: u64, n: u64, num_warps: u32, non_k: u64) -> [u32; 2] {
    let mut ret = [1u32, 1u32];
    while ret[0] * ret[1] < num_warps {
        if m / (non_k * 2) / u64::from(ret[0]) >= n / non_k / u64::from(ret[1]) {
            if u64::from(ret[0]) < m / non_k {
                ret[0] *= 2;
            } else {
                ret[1] *= 2;
            }
        } else {
            ret[1] *= 2;
        }
    }
    if u64::from(ret[1]) * non_k > n {
        return [ret[1], ret[0]];
    }
    ret
}

/// Whether `a` (a dot's A operand) is computed from another dot's result through
/// elementwise ops and conversions.
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

/// Whether `v` reaches an operand of a dot (A or B) through elementwise ops and
/// conversions.
fn feeds_a_dot(func: &Function, v: Value) -> bool {
    let mut work = vec![v];
    let mut seen = std::collections::HashSet::new();
    while let Some(v) = work.pop() {
        if !seen.insert(v) || seen.len() > 4096 {
            continue;
        }
        for u in func.uses(v) {
            let kind = func.kind(u.op);
            if matches!(kind, OpKind::Dot { .. }) && u.operand < 2 {
                return true;
            }
            if is_elementwise(kind) || matches!(kind, OpKind::ConvertLayout) {
                work.extend(func.op(u.op).results().iter().copied());
            }
        }
    }
    false
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn versions_are_the_processors() {
        assert_eq!(mfma_version(&Target::amd(0x942)), Some(3));
        assert_eq!(mfma_version(&Target::amd(0x90a)), Some(2));
        assert_eq!(mfma_version(&Target::nvidia(90)), None);
    }

    #[test]
    fn warps_follow_the_rule() {
        // Hand-derived from the rule above (the fixtures check Triton's own choices).
        assert_eq!(warps_per_tile(128, 128, 4, 32), [2, 2]);
        assert_eq!(warps_per_tile(32, 32, 4, 32), [4, 1]);
        assert_eq!(warps_per_tile(16, 64, 4, 16), [1, 4]);
    }
}
