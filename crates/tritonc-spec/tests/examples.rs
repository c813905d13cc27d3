//! Each example kernel run on the interpreter from its launch spec, against a reference
//! computed here in f64 from the math (not from the kernel), within the bounds of
//! docs/numerics.md.

mod common;

use common::{f16_half_ulp, run, values};

#[test]
fn vector_add_is_exact() {
    let o = run("vector_add.toml");
    let (x, y, out) = (values(&o, "x"), values(&o, "y"), values(&o, "out"));
    for i in 0..x.len() {
        // fp32 add of fp32 inputs is one correctly rounded op.
        assert_eq!(out[i], (x[i] as f32 + y[i] as f32) as f64, "element {i}");
    }
    assert_eq!(o.report.programs, 97);
}

#[test]
fn softmax_matches_f64_reference() {
    let o = run("softmax.toml");
    let (x, y) = (values(&o, "x"), values(&o, "y"));
    let (rows, cols) = (1823, 781);
    let mut worst = 0.0f64;
    for r in 0..rows {
        let row = &x[r * cols..(r + 1) * cols];
        let m = row.iter().cloned().fold(f64::NEG_INFINITY, f64::max);
        let s: f64 = row.iter().map(|v| (v - m).exp()).sum();
        for c in 0..cols {
            let want = (row[c] - m).exp() / s;
            let got = y[r * cols + c];
            // fp32 exp/sum/div errors (a few fp32 ulps, sum of 781 terms) are far below
            // the fp16 rounding of the store: allow that rounding plus 2^-20 relative.
            let bound = f16_half_ulp(want) + want * 2f64.powi(-20) + 1e-9;
            worst = worst.max((got - want).abs() / bound);
            assert!(
                (got - want).abs() <= bound,
                "row {r} col {c}: {got} vs {want}"
            );
        }
    }
    assert!(worst <= 1.0);
}

#[test]
fn cumsum_int_is_exact() {
    let o = run("cumsum.toml");
    let (x, out) = (values(&o, "x"), values(&o, "out"));
    let cols = 300;
    for r in 0..1000 {
        let mut acc = 0.0;
        for c in 0..cols {
            acc += x[r * cols + c];
            assert_eq!(out[r * cols + c], acc, "row {r} col {c}");
        }
    }
}

#[test]
fn rms_norm_matches_f64_reference() {
    let o = run("rms_norm.toml");
    let (x, w, y, rstd) = (
        values(&o, "x"),
        values(&o, "w"),
        values(&o, "y"),
        values(&o, "rstd"),
    );
    let cols = 4096;
    for r in 0..512 {
        let row = &x[r * cols..(r + 1) * cols];
        let ms: f64 = row.iter().map(|v| v * v).sum::<f64>() / cols as f64;
        let want_rstd = 1.0 / (ms + 1e-6).sqrt();
        // fp32 sum of 4096 squares in a tree: relative error below 2^-24 * log2(4096) * 2.
        assert!((rstd[r] - want_rstd).abs() <= want_rstd * 2e-6, "row {r}");
        for c in 0..cols {
            let want = row[c] * want_rstd * w[c];
            let got = y[r * cols + c];
            assert!(
                (got - want).abs() <= f16_half_ulp(want) + want.abs() * 4e-6 + 1e-7,
                "{r},{c}"
            );
        }
    }
}

#[test]
fn dropout_keeps_about_half_and_scales_by_two() {
    let o = run("dropout.toml");
    let (x, out) = (values(&o, "x"), values(&o, "out"));
    let kept = out.iter().filter(|&&v| v != 0.0).count();
    assert!((4700..5300).contains(&kept), "{kept} of 10000 kept");
    for i in 0..x.len() {
        assert!(
            out[i] == 0.0 || out[i] == (x[i] as f32 * 2.0) as f64,
            "element {i}"
        );
    }
    // Same seed, same mask: run again.
    let again = run("dropout.toml");
    assert_eq!(values(&again, "out"), out);
}
