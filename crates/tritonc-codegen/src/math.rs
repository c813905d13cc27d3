//! Transcendental math lowered straight to NVVM intrinsics.
//!
//! Upstream `convert-gpu-to-nvvm` turns `math.exp` and friends into calls to libdevice's
//! `__nv_expf`, … which stay undefined externs in the PTX unless libdevice is linked.
//! tritonc instead emits the PTX approximation instructions through
//! `llvm.call_intrinsic`, as Triton does for fp32 (`exp` is `ex2.approx(x * log2 e)`);
//! the `math` dialect is never emitted for these functions.

use melior::ir::Value;

use crate::{body::BodyBuilder, error::CodegenError};

/// log2(e) rounded to f32: the factor turning `exp(x)` into `exp2(x * log2 e)`.
pub const LOG2_E: f32 = std::f32::consts::LOG2_E;

/// The LLVM intrinsic behind PTX `ex2.approx.f32` (overloaded, hence the `.f32` suffix).
pub const EX2_APPROX_F32: &str = "llvm.nvvm.ex2.approx.f32";
/// The LLVM intrinsic behind PTX `ex2.approx.ftz.f32`.
pub const EX2_APPROX_FTZ_F32: &str = "llvm.nvvm.ex2.approx.ftz.f32";
/// The LLVM intrinsic behind PTX `rsqrt.approx.f32`.
pub const RSQRT_APPROX_F32: &str = "llvm.nvvm.rsqrt.approx.f";

impl<'c, 'a> BodyBuilder<'c, 'a> {
    /// `2^x` for f32, `math.exp2` (`ex2.approx.ftz.f32`: max 2 ulp, subnormal inputs
    /// and results flushed to zero — Triton's lowering of `math.exp2`, which also spares
    /// the scaling that keeps subnormals).
    pub fn exp2_f32(&self, x: Value<'c, '_>) -> Result<Value<'c, 'a>, CodegenError> {
        self.call_intrinsic(EX2_APPROX_FTZ_F32, &[x], self.f32_type())
    }

    /// `e^x` for f32 as `ex2.approx.f32(x * log2 e)` (subnormals kept, as Triton's
    /// lowering of `math.exp`).
    pub fn exp_f32(&self, x: Value<'c, '_>) -> Result<Value<'c, 'a>, CodegenError> {
        let log2_e = self.const_f32(LOG2_E)?;
        let scaled = self.binary("arith.mulf", x, log2_e)?;
        self.call_intrinsic(EX2_APPROX_F32, &[scaled], self.f32_type())
    }

    /// `1 / sqrt(x)` for f32 (`rsqrt.approx.f32`).
    pub fn rsqrt_f32(&self, x: Value<'c, '_>) -> Result<Value<'c, 'a>, CodegenError> {
        self.call_intrinsic(RSQRT_APPROX_F32, &[x], self.f32_type())
    }
}
