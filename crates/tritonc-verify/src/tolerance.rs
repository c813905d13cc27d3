//! How far a result may be from the interpreter's, from docs/numerics.md: exact ops give
//! bit-identical results; approximate transcendentals, fp fusion, dots and scans have
//! stated per-element bounds, which grow with the reduction length and end in the
//! rounding of the stored dtype.

use serde::Serialize;
use tritonc_ir::ops::{BinaryOp, InputPrecision, OpKind};
use tritonc_ir::{DType, Function};

/// A tolerance: `|got − want| ≤ atol + rtol·|want|`; `exact` means bitwise (NaN
/// matches NaN).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Tolerance {
    /// Absolute part.
    pub atol: f64,
    /// Relative part.
    pub rtol: f64,
    /// Bit-for-bit comparison.
    pub exact: bool,
    /// Where the numbers come from (`exact ops`, `exp, reduction of 781`, `[verify]`).
    pub why: String,
}

impl Tolerance {
    /// Bitwise equality.
    pub fn exact(why: impl Into<String>) -> Tolerance {
        Tolerance {
            atol: 0.0,
            rtol: 0.0,
            exact: true,
            why: why.into(),
        }
    }

    /// A tolerance with the given parts.
    pub fn within(atol: f64, rtol: f64, why: impl Into<String>) -> Tolerance {
        Tolerance {
            atol,
            rtol,
            exact: false,
            why: why.into(),
        }
    }

    /// Whether `got` is acceptable for `want`.
    pub fn accepts(&self, got: f64, want: f64) -> bool {
        if got.is_nan() || want.is_nan() {
            return got.is_nan() && want.is_nan();
        }
        if self.exact {
            return got.to_bits() == want.to_bits();
        }
        if got.is_infinite() || want.is_infinite() {
            return got == want;
        }
        (got - want).abs() <= self.atol + self.rtol * want.abs()
    }
}

/// What in a kernel makes its results inexact against the interpreter.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct KernelNumerics {
    /// Approximate transcendentals (`exp`, `log`, `rsqrt`, `sqrt`, `sin`, libdevice calls).
    pub approx_math: Vec<String>,
    /// A float multiply and a float add/sub, which fp fusion may contract into `fma`.
    pub fusable: bool,
    /// The longest reduced axis (1 without reductions).
    pub reduction_len: u64,
    /// The longest float scan (its order differs from the interpreter's).
    pub float_scan_len: Option<u64>,
    /// The longest `K` of a float dot.
    pub dot_k: Option<u64>,
    /// Float atomics (their order on the GPU is unspecified).
    pub float_atomics: bool,
    /// The longest `K` of an fp32 dot computed in TF32 (`input_precision="tf32"`, the
    /// default). The interpreter replays tritonc's rounding of the inputs (round to
    /// nearest, ties away) exactly, so this matters only against an independent TF32
    /// implementation, which may truncate the inputs instead: see [`independent_tf32`].
    pub tf32_dot_k: Option<u64>,
    /// Set by [`independent_tf32`]: the reference rounds dot inputs to TF32 its own way.
    pub tf32_independent: bool,
    /// The longest `K` of a dot of fp8 operands.
    pub fp8_dot_k: Option<u64>,
    /// Set by [`reference_fp8_accumulation`]: the reference may accumulate fp8 products
    /// in fewer bits than fp32 (upstream Triton's sm_90 `wgmma`).
    pub fp8_independent: bool,
}

/// Marks `n` as compared against an independent TF32 implementation (upstream Triton's
/// tensor cores): each product of TF32-rounded inputs may then differ by up to
/// 2·2^-10 of its magnitude (both inputs truncated to 10 mantissa bits) between the two
/// sides, so a dot of length K allows K·2^-9 relative.
pub fn independent_tf32(n: &mut KernelNumerics) {
    n.tf32_independent = n.tf32_dot_k.is_some();
}

/// Marks `n` as compared against upstream Triton, which runs fp8 dots on Hopper's
/// `wgmma`, whose fp8 accumulation keeps about 14 bits of the sum, not fp32's 24: each of
/// the K additions of one dot may then lose 2^-13 of the running sum's magnitude,
/// K·2^-13 relative in all. (tritonc widens fp8 to fp16 exactly and accumulates in fp32,
/// as the interpreter does: against the interpreter nothing widens.)
pub fn reference_fp8_accumulation(n: &mut KernelNumerics) {
    n.fp8_independent = n.fp8_dot_k.is_some();
}

impl KernelNumerics {
    /// Whether every op is exact (bitwise agreement is the contract).
    pub fn is_exact(&self) -> bool {
        self.approx_math.is_empty()
            && !self.fusable
            && self.float_scan_len.is_none()
            && self.dot_k.is_none()
            && !self.float_atomics
    }
}

/// Reads the ops of `func` that decide its tolerance.
pub fn analyze(func: &Function) -> KernelNumerics {
    let mut n = KernelNumerics {
        reduction_len: 1,
        ..Default::default()
    };
    let (mut mul, mut add) = (false, false);
    for id in func.walk() {
        let op = func.op(id);
        let first_operand = op.operands().first().map(|&v| func.value_type(v));
        let float_operand = first_operand
            .and_then(|t| t.dtype())
            .is_some_and(|d| d.is_float());
        match &op.kind {
            OpKind::Math(m) => {
                let word = m.word();
                let exact = ["floor", "ceil", "abs", "fma", "trunc", "round"]
                    .iter()
                    .any(|e| word.ends_with(e));
                if !exact && !n.approx_math.iter().any(|w| w == word) {
                    n.approx_math.push(word.to_string());
                }
            }
            OpKind::ExternElementwise { .. } if !n.approx_math.iter().any(|w| w == "libdevice") => {
                n.approx_math.push("libdevice".into());
            }
            // fp32 `/` is `div.full.f32` on the GPU (2 ulp), as in Triton.
            OpKind::Binary(BinaryOp::DivF)
                if first_operand.and_then(|t| t.dtype()) == Some(DType::F32)
                    && !n.approx_math.iter().any(|w| w == "div.full") =>
            {
                n.approx_math.push("div.full".into());
            }
            OpKind::Binary(BinaryOp::MulF) => mul = true,
            OpKind::Binary(BinaryOp::AddF | BinaryOp::SubF) => add = true,
            OpKind::Reduce { axis } => {
                if let Some(len) = first_operand.and_then(|t| axis_len(t.dims(), *axis)) {
                    n.reduction_len = n.reduction_len.max(len);
                }
            }
            OpKind::Scan { axis, .. } if float_operand => {
                let len = first_operand
                    .and_then(|t| axis_len(t.dims(), *axis))
                    .unwrap_or(1);
                n.float_scan_len = Some(n.float_scan_len.unwrap_or(0).max(len));
            }
            OpKind::Dot {
                input_precision, ..
            } if float_operand => {
                let k = first_operand
                    .and_then(|t| t.known_shape())
                    .and_then(|s| s.last().copied())
                    .unwrap_or(1);
                n.dot_k = Some(n.dot_k.unwrap_or(0).max(k));
                let f32_operands = first_operand.and_then(|t| t.dtype()) == Some(DType::F32);
                if f32_operands && *input_precision == InputPrecision::Tf32 {
                    n.tf32_dot_k = Some(n.tf32_dot_k.unwrap_or(0).max(k));
                }
                if first_operand.and_then(|t| t.dtype()).is_some_and(|d| d.is_fp8()) {
                    n.fp8_dot_k = Some(n.fp8_dot_k.unwrap_or(0).max(k));
                }
            }
            OpKind::AtomicRmw { .. } | OpKind::AtomicCas { .. } => {
                let value_float = op
                    .operands()
                    .get(1)
                    .and_then(|&v| func.value_type(v).dtype())
                    .is_some_and(|d| d.is_float());
                n.float_atomics |= value_float;
            }
            _ => {}
        }
    }
    n.fusable = mul && add;
    n
}

fn axis_len(dims: &[tritonc_ir::Dim], axis: u32) -> Option<u64> {
    dims.get(axis as usize)?.known()
}

/// One unit in the last place of `d` at 1.0 (the relative size of one rounding step).
pub fn ulp(d: DType) -> f64 {
    match d {
        DType::F16 => 2f64.powi(-10),
        DType::BF16 => 2f64.powi(-7),
        DType::F32 => 2f64.powi(-23),
        DType::F64 => 2f64.powi(-52),
        DType::F8E4M3FN | DType::F8E4M3FNUZ => 2f64.powi(-3),
        DType::F8E5M2 | DType::F8E5M2FNUZ => 2f64.powi(-2),
        _ => 0.0,
    }
}

/// The tolerance for an output of dtype `out` whose largest reference magnitude is
/// `scale`, for a kernel with numerics `n`:
///
/// - every op exact → bitwise;
/// - otherwise a relative bound in f32 ulps per element (approximate math 16 ulps,
///   fusion 2, a dot `K`, a scan `n`), times `1 + ⌈log2 L⌉` for a reduction of length
///   `L` (the depth of the combine tree each element's error can pass through), plus
///   one ulp of the stored dtype (a tiny difference can flip its rounding); the absolute
///   part is the same bound times `scale` (cancellation makes small results lose
///   relative accuracy, never more than the bound of the largest term).
pub fn derive(n: &KernelNumerics, out: DType, scale: f64) -> Tolerance {
    if n.is_exact() {
        return Tolerance::exact("exact ops");
    }
    let mut ulps = 0.0;
    let mut why = Vec::new();
    if !n.approx_math.is_empty() {
        ulps += 16.0;
        why.push(n.approx_math.join(" "));
    }
    if n.fusable {
        ulps += 2.0;
        why.push("fma fusion".to_string());
    }
    if let Some(k) = n.dot_k {
        ulps += k as f64;
        why.push(format!("dot K={k}"));
    }
    if let Some(len) = n.float_scan_len {
        ulps += len as f64;
        why.push(format!("scan of {len}"));
    }
    if n.float_atomics {
        ulps += 16.0;
        why.push("float atomics".to_string());
    }
    // TF32 input rounding against an independent implementation: K·2^-9 relative, i.e.
    // K·2^14 f32 ulps (2^-23 each).
    if let (true, Some(k)) = (n.tf32_independent, n.tf32_dot_k) {
        ulps += k as f64 * 2f64.powi(14);
        why.push(format!("independent TF32 rounding, K={k}"));
    }
    // fp8 products accumulated in about 14 bits by the reference: K·2^-13 relative, i.e.
    // K·2^10 f32 ulps.
    if let (true, Some(k)) = (n.fp8_independent, n.fp8_dot_k) {
        ulps += k as f64 * 2f64.powi(10);
        why.push(format!("fp8 accumulation of the reference, K={k}"));
    }
    let depth = if n.reduction_len > 1 {
        why.push(format!("reduction of {}", n.reduction_len));
        1.0 + (n.reduction_len as f64).log2().ceil()
    } else {
        1.0
    };
    let compute = ulps * depth * ulp(DType::F32);
    if !out.is_float() {
        // Integers computed from inexact floats can land one step off.
        return Tolerance::within(1.0, 0.0, why.join(", "));
    }
    let rtol = compute + ulp(out);
    let atol = rtol * if scale.is_finite() { scale } else { 0.0 };
    Tolerance::within(atol, rtol, why.join(", "))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fp8_dots_widen_only_against_an_independent_implementation() {
        let mut n = KernelNumerics {
            reduction_len: 1,
            dot_k: Some(32),
            fp8_dot_k: Some(32),
            ..Default::default()
        };
        let own = derive(&n, DType::F32, 5.0);
        independent_tf32(&mut n);
        assert_eq!(derive(&n, DType::F32, 5.0).atol, own.atol);
        reference_fp8_accumulation(&mut n);
        let against = derive(&n, DType::F32, 5.0);
        // 32·2^-13 of the largest output (5): 0.0195, against 33 ulps on its own.
        assert!(own.atol < 1e-4, "{}", own.atol);
        assert!(against.atol > 0.019 && against.atol < 0.03, "{}", against.atol);
        assert!(against.why.contains("fp8 accumulation of the reference, K=32"));
    }

    #[test]
    fn tf32_dots_widen_only_against_an_independent_tf32_implementation() {
        let mut n = KernelNumerics {
            reduction_len: 1,
            dot_k: Some(32),
            tf32_dot_k: Some(32),
            ..Default::default()
        };
        let own = derive(&n, DType::F32, 1.0);
        independent_tf32(&mut n);
        let independent = derive(&n, DType::F32, 1.0);
        // Against the interpreter (same rounding): K f32 ulps plus one output ulp.
        assert!(
            (own.rtol - 33.0 * 2f64.powi(-23)).abs() < 1e-15,
            "{}",
            own.rtol
        );
        // Against Triton's tensor cores: K·2^-9 more.
        let extra = independent.rtol - own.rtol;
        assert!((extra - 32.0 * 2f64.powi(-9)).abs() < 1e-12, "{extra}");
        // An observed H200 difference (0.035 at |c| ≈ 23, K = 32) fits; a wrong element
        // (off by 2) does not.
        assert!(independent.accepts(0.325_795, 0.303_64));
        let scaled = derive(&n, DType::F32, 23.0);
        assert!(scaled.accepts(0.325_795, 0.303_64));
        assert!(!scaled.accepts(2.3, 0.3));
    }

    #[test]
    fn exact_kernels_compare_bitwise_and_nan_matches_nan() {
        let t = derive(&KernelNumerics::default(), DType::F32, 1.0);
        assert!(t.exact);
        assert!(t.accepts(f64::NAN, f64::NAN));
        assert!(t.accepts(1.5, 1.5));
        assert!(!t.accepts(1.5, 1.5 + 1e-12));
        assert!(!t.accepts(0.0, -0.0), "bitwise: the sign of zero counts");
        assert!(!t.accepts(f64::NAN, 1.0));
    }

    #[test]
    fn tolerance_grows_with_reduction_length_and_narrow_outputs() {
        let base = KernelNumerics {
            approx_math: vec!["math.exp".into()],
            reduction_len: 1,
            ..Default::default()
        };
        let short = derive(&base, DType::F32, 1.0);
        let long = derive(
            &KernelNumerics {
                reduction_len: 1024,
                ..base.clone()
            },
            DType::F32,
            1.0,
        );
        // 16 ulps; then 16 ulps × (1 + log2 1024) = 176, each plus the output's ulp.
        assert_eq!(short.rtol, 17.0 * 2f64.powi(-23));
        assert_eq!(long.rtol, 177.0 * 2f64.powi(-23));
        let half = derive(&base, DType::F16, 1.0);
        assert!(half.rtol > 2f64.powi(-10) && half.rtol < 2f64.powi(-9));
        assert!(!half.exact);
        // The absolute part scales with the largest reference value.
        assert_eq!(derive(&base, DType::F32, 8.0).atol, 8.0 * short.rtol);
    }

    #[test]
    fn fusion_alone_makes_a_kernel_inexact() {
        let n = KernelNumerics {
            fusable: true,
            reduction_len: 1,
            ..Default::default()
        };
        let t = derive(&n, DType::F32, 2.0);
        assert!(!t.exact);
        assert_eq!(t.rtol, 3.0 * 2f64.powi(-23));
        assert!(t.accepts(1.0 + 2.0 * 2f64.powi(-23), 1.0));
        assert!(!t.accepts(1.0 + 2f64.powi(-18), 1.0));
        assert!(t.accepts(f64::INFINITY, f64::INFINITY));
        assert!(!t.accepts(f64::INFINITY, f64::NEG_INFINITY));
    }
}
