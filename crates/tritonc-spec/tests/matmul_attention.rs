//! The dot-based examples (matmul, flash attention) on the interpreter against f64
//! references written from the math, within bounds derived from docs/numerics.md.

mod common;

use common::{check, f16_half_ulp, run, values, U32};

#[test]
fn matmul_fp16_matches_f64_reference() {
    let o = run("matmul.toml");
    let (a, b, c) = (values(&o, "a"), values(&o, "b"), values(&o, "c"));
    let (m, n, k) = (150, 130, 100);
    let mut want = vec![0.0; m * n];
    let mut abs = vec![0.0; m * n];
    for i in 0..m {
        for j in 0..n {
            for l in 0..k {
                want[i * n + j] += a[i * k + l] * b[l * n + j];
                abs[i * n + j] += (a[i * k + l] * b[l * n + j]).abs();
            }
        }
    }
    // fp16 × fp16 products are exact in f32 (22 significant bits); the dot accumulates them
    // in f32, K roundings of at most u each: |Δ| ≤ K·u·Σ|a b| (γ_K). Then the fp16 store
    // rounds once more: half an fp16 ulp.
    let worst = check("c", &c, &want, |i| {
        f16_half_ulp(want[i]) + k as f64 * U32 * abs[i]
    });
    assert!(worst > 0.1, "the bound is vacuous: worst {worst}");
}

/// Rounds an f32 to TF32 (10 mantissa bits), nearest with ties away from zero
/// (`cvt.rna.tf32.f32`), as docs/numerics.md specifies for `input_precision = "tf32"`.
fn to_tf32(x: f64) -> f64 {
    let bits = (x as f32).to_bits();
    f32::from_bits(bits.wrapping_add(0x1000) & !0x1fff) as f64
}

#[test]
fn matmul_fp32_rounds_inputs_to_tf32() {
    let o = run("matmul_tf32.toml");
    let (a, b, c) = (values(&o, "a"), values(&o, "b"), values(&o, "c"));
    let (m, n, k) = (150, 130, 100);
    let (mut want, mut exact, mut abs) = (vec![0.0; m * n], vec![0.0; m * n], vec![0.0; m * n]);
    for i in 0..m {
        for j in 0..n {
            for l in 0..k {
                let (x, y) = (a[i * k + l], b[l * n + j]);
                want[i * n + j] += to_tf32(x) * to_tf32(y);
                exact[i * n + j] += x * y;
                abs[i * n + j] += (x * y).abs();
            }
        }
    }
    // tf32 × tf32 products are exact in f32 (22 bits); K f32 accumulations: γ_K·Σ|a b|.
    let bound = |i: usize| k as f64 * U32 * abs[i];
    check("c", &c, &want, bound);
    // Not vacuous: the unrounded fp32 product is farther away than the bound (tf32 keeps
    // 11 of 24 significant bits, ~2^-11 relative per input).
    let off = (0..c.len())
        .filter(|&i| (c[i] - exact[i]).abs() > bound(i))
        .count();
    assert!(
        off > c.len() / 2,
        "only {off} of {} differ from the fp32 product",
        c.len()
    );
}

/// softmax(Q Kᵀ · scale) V per (batch, head), in f64; with `causal`, query i sees keys ≤ i.
/// Returns the output and, per element, the softmax-weighted mean of |v| (the scale of
/// the errors) and the largest scaled |q|·|k| of the row.
fn attention_reference(
    q: &[f64],
    k: &[f64],
    v: &[f64],
    heads: usize,
    seq: usize,
    d: usize,
    causal: bool,
) -> (Vec<f64>, Vec<f64>, Vec<f64>) {
    let scale = (d as f64).powf(-0.5);
    let mut out = vec![0.0; heads * seq * d];
    let mut wabs = vec![0.0; heads * seq * d];
    let mut smax = vec![0.0; heads * seq];
    for h in 0..heads {
        let base = h * seq * d;
        for i in 0..seq {
            let keys = if causal { i + 1 } else { seq };
            let mut s = vec![0.0; keys];
            for (j, sj) in s.iter_mut().enumerate() {
                let (mut dot, mut mag) = (0.0, 0.0);
                for e in 0..d {
                    let p = q[base + i * d + e] * k[base + j * d + e];
                    dot += p;
                    mag += p.abs();
                }
                *sj = dot * scale;
                smax[h * seq + i] = f64::max(smax[h * seq + i], mag * scale);
            }
            let mx = s.iter().cloned().fold(f64::NEG_INFINITY, f64::max);
            let w: Vec<f64> = s.iter().map(|x| (x - mx).exp()).collect();
            let l: f64 = w.iter().sum();
            for e in 0..d {
                let (mut acc, mut mag) = (0.0, 0.0);
                for j in 0..keys {
                    acc += w[j] * v[base + j * d + e];
                    mag += w[j] * v[base + j * d + e].abs();
                }
                out[base + i * d + e] = acc / l;
                wabs[base + i * d + e] = mag / l;
            }
        }
    }
    (out, wabs, smax)
}

fn check_attention(spec: &str, causal: bool) {
    let o = run(spec);
    let (q, k, v, got) = (
        values(&o, "q"),
        values(&o, "k"),
        values(&o, "v"),
        values(&o, "o"),
    );
    let (heads, seq, d) = (2, 200, 64);
    let (want, wabs, smax) = attention_reference(&q, &k, &v, heads, seq, d, causal);
    let vmax = v.iter().fold(0.0f64, |m, x| m.max(x.abs()));
    // Error budget (u = 2^-24), per output element with W = Σ_j w_j |v_j| / Σ_j w_j:
    // - p is rounded to fp16 before the second dot while l_i sums the unrounded p:
    //   ≤ 2^-11 relative per weight (2^-25 absolute below the fp16 normal range),
    //   so ≤ 2^-11·W + seq·2^-25·max|v|;
    // - scores: 64 exact fp16 products summed in f32 and two f32 scalings, error
    //   ≤ 66u·S (S = scale·Σ|q k|), turned into a relative weight error by exp2 (ln 2 per
    //   unit of base-2 score, twice: the score and the running max), plus the rescaling by
    //   alpha (≤ 32u over all key blocks);
    // - the f32 accumulation of p·v over ≤ seq keys (γ_seq) and the final division (u);
    // - the fp16 store: half an ulp.
    let worst = check("o", &got, &want, |i| {
        let row = i / d;
        // ln 2 · (an error in base-2 units) is the same error in natural units.
        let score_rel = 2.0 * 66.0 * U32 * smax[row] + 32.0 * U32;
        f16_half_ulp(want[i])
            + wabs[i] * (2f64.powi(-11) + 2.0 * score_rel + (seq as f64 + 2.0) * U32)
            + seq as f64 * 2f64.powi(-25) * vmax
    });
    assert!(worst > 0.05, "the bound is vacuous: worst {worst}");
}

#[test]
fn flash_attention_matches_f64_reference() {
    check_attention("flash_attention.toml", false);
}

#[test]
fn causal_flash_attention_matches_f64_reference() {
    check_attention("flash_attention_causal.toml", true);
}
