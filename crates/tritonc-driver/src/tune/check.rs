//! Checking a config's answer before it is timed: its outputs against the reference's
//! (the first config's, or the interpreter's), within the tolerance of the numerics
//! contract (docs/numerics.md) for the two kernels' operations together — configs sum in
//! different orders, so float results may differ by rounding, never by more. A config
//! whose answer differs (a reduction block smaller than the row it reduces) is reported
//! and never chosen.

use tritonc_verify::{analyze, compare, derive, KernelNumerics, OutputTensor, Tolerance};

/// The tolerance between the outputs of two configs' kernels.
pub fn tolerance_between(
    a: &tritonc_ir::Function,
    b: &tritonc_ir::Function,
    out: &OutputTensor,
    scale: f64,
) -> Tolerance {
    let (x, y) = (analyze(a), analyze(b));
    let mut n = KernelNumerics {
        approx_math: if x.approx_math.len() >= y.approx_math.len() {
            x.approx_math
        } else {
            y.approx_math
        },
        fusable: x.fusable || y.fusable,
        reduction_len: x.reduction_len.max(y.reduction_len),
        float_scan_len: x.float_scan_len.max(y.float_scan_len),
        dot_k: x.dot_k.max(y.dot_k),
        float_atomics: x.float_atomics || y.float_atomics,
        tf32_dot_k: x.tf32_dot_k.max(y.tf32_dot_k),
        tf32_independent: false,
        fp8_dot_k: x.fp8_dot_k.max(y.fp8_dot_k),
        fp8_independent: false,
    };
    // Exact ops in another order: float sums of different block shapes still round
    // differently.
    if n.is_exact() && n.reduction_len > 1 && out.dtype.is_float() {
        n.fusable = true;
    }
    derive(&n, out.dtype, scale)
}

/// `None` when every output of `got` matches `want`; else what differs, for the report.
pub fn differs(
    got: &[OutputTensor],
    want: &[OutputTensor],
    got_fn: &tritonc_ir::Function,
    want_fn: &tritonc_ir::Function,
) -> Option<String> {
    for w in want {
        let Some(g) = got.iter().find(|g| g.name == w.name) else {
            return Some(format!("`{}` is missing", w.name));
        };
        let tol = tolerance_between(got_fn, want_fn, w, w.max_abs());
        let c = compare(g, w, &tol);
        if !c.passed() {
            let at = c
                .worst
                .map(|x| format!("; worst at {:?}: {} where the reference has {}", x.index, x.got, x.want))
                .unwrap_or_default();
            return Some(format!(
                "`{}`: {} of {} elements differ from the reference ({}){at}",
                w.name, c.mismatches, c.numel, tol.why
            ));
        }
    }
    None
}
