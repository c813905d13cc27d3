//! The NVVM intrinsics the tile lowering names, as the AMD back end emits them.
//!
//! The lowering writes fp32 math as NVIDIA's approximation instructions (Triton's NVIDIA
//! choices, docs/numerics.md). On AMD each becomes what Triton's AMD back end emits for
//! the same op: LLVM's generic intrinsics, which the AMDGPU back end selects to
//! `v_exp_f32`, `v_log_f32`, `v_sqrt_f32` with their denormal scaling, or AMDGPU's own
//! (`v_rsq_f32`); fp32 division is the IEEE `fdiv`. An NVVM intrinsic without an entry
//! here is refused with its name, never passed to a back end that cannot select it.

/// What an NVVM intrinsic call becomes on AMD.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AmdgpuEquivalent {
    /// A call of this intrinsic instead.
    Intrinsic(&'static str),
    /// `arith.divf` (IEEE division).
    DivF,
    /// The high half of the double-width unsigned product.
    MulHiU,
}

/// The AMD form of the intrinsic `name`: `Ok(None)` for a target-independent intrinsic
/// (`llvm.fma.f32`), which stays as it is; an error for an NVVM intrinsic with none.
pub fn amdgpu_equivalent(name: &str) -> Result<Option<AmdgpuEquivalent>, String> {
    if !name.starts_with("llvm.nvvm.") {
        return Ok(None);
    }
    use AmdgpuEquivalent::*;
    Ok(Some(match name {
        "llvm.nvvm.ex2.approx.f32" | "llvm.nvvm.ex2.approx.f" => Intrinsic("llvm.exp2.f32"),
        // The flushing form: `v_exp_f32` as is, without the denormal scaling.
        "llvm.nvvm.ex2.approx.ftz.f32" => Intrinsic("llvm.amdgcn.exp2.f32"),
        "llvm.nvvm.lg2.approx.f" => Intrinsic("llvm.log2.f32"),
        "llvm.nvvm.sqrt.approx.f" => Intrinsic("llvm.sqrt.f32"),
        "llvm.nvvm.rsqrt.approx.f" => Intrinsic("llvm.amdgcn.rsq.f32"),
        "llvm.nvvm.div.full" => DivF,
        "llvm.nvvm.mulhi.ui" | "llvm.nvvm.mulhi.ull" => MulHiU,
        other => {
            return Err(format!(
                "`{other}` is an NVIDIA instruction with no AMD lowering yet"
            ))
        }
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nvvm_names_map_or_are_refused() {
        assert_eq!(amdgpu_equivalent("llvm.fma.f32"), Ok(None));
        assert_eq!(
            amdgpu_equivalent(crate::math::EX2_APPROX_F32),
            Ok(Some(AmdgpuEquivalent::Intrinsic("llvm.exp2.f32")))
        );
        assert_eq!(
            amdgpu_equivalent(crate::math::EX2_APPROX_FTZ_F32),
            Ok(Some(AmdgpuEquivalent::Intrinsic("llvm.amdgcn.exp2.f32")))
        );
        assert_eq!(
            amdgpu_equivalent(crate::math::RSQRT_APPROX_F32),
            Ok(Some(AmdgpuEquivalent::Intrinsic("llvm.amdgcn.rsq.f32")))
        );
        assert!(amdgpu_equivalent("llvm.nvvm.barrier0").is_err());
    }
}
