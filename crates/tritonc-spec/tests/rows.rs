//! Row-wise examples (cross-entropy, rotary embedding) on the interpreter against f64
//! references written from the math, within bounds derived from docs/numerics.md
//! (u = 2^-24, the fp32 unit roundoff).

mod common;

use common::{check, f16_half_ulp, run, values, U32};

#[test]
fn cross_entropy_matches_f64_reference() {
    let o = run("cross_entropy.toml");
    let (logits, labels) = (values(&o, "logits"), values(&o, "labels"));
    let (loss, lse) = (values(&o, "loss"), values(&o, "lse"));
    let (rows, vocab) = (24, 5000);
    let (mut want_lse, mut want_loss, mut bound) = (vec![], vec![], vec![]);
    for r in 0..rows {
        let row = &logits[r * vocab..(r + 1) * vocab];
        let m = row.iter().cloned().fold(f64::NEG_INFINITY, f64::max);
        let lo = row.iter().cloned().fold(f64::INFINITY, f64::min);
        let l = m + row.iter().map(|x| (x - m).exp()).sum::<f64>().ln();
        want_lse.push(l);
        // Relative error of s = Σ exp(x − m): each x − m rounds (u·|x − m|, amplified by
        // exp's derivative into the same relative error), exp is correctly rounded (u),
        // each chunk's tree sum has depth ≤ 4 + 5 + 3 = 12 (1024 logits on 8 warps), and
        // the five chunks rescale and add (3u each). log turns it into an absolute error,
        // then two roundings at |lse|.
        let rel_s = (m - lo + 1.0 + 12.0 + 15.0) * U32;
        bound.push(rel_s + 2.0 * U32 * l.abs());
        let label = labels[r];
        want_loss.push(if label == -100.0 {
            0.0
        } else {
            l - row[label as usize]
        });
    }
    check("lse", &lse, &want_lse, |r| bound[r]);
    let worst = check("loss", &loss, &want_loss, |r| {
        bound[r] + U32 * want_loss[r].abs()
    });
    assert!(worst > 0.01, "the bound is vacuous: worst {worst}");
    assert_eq!(loss[3], 0.0);
    assert_eq!(loss[17], 0.0);
}

#[test]
fn rotary_matches_f64_reference() {
    let o = run("rotary.toml");
    let (q, cos, sin, out) = (
        values(&o, "q"),
        values(&o, "cos"),
        values(&o, "sin"),
        values(&o, "out"),
    );
    let (tokens, heads, dim) = (64, 12, 128);
    let half = dim / 2;
    let mut want = vec![0.0; q.len()];
    let mut bound = vec![0.0; q.len()];
    for t in 0..tokens {
        for h in 0..heads {
            let base = (t * heads + h) * dim;
            for d in 0..half {
                let (c, s) = (cos[t * half + d], sin[t * half + d]);
                let (q1, q2) = (q[base + d], q[base + half + d]);
                want[base + d] = q1 * c - q2 * s;
                want[base + half + d] = q2 * c + q1 * s;
                // fma(a, b, ±(p·q)): the product p·q rounds (u·|p q|), the fma rounds once
                // (u·|result|); then the fp16 store.
                let mag = (q1 * c).abs() + (q2 * s).abs();
                bound[base + d] = f16_half_ulp(want[base + d]) + 2.0 * U32 * mag;
                bound[base + half + d] = f16_half_ulp(want[base + half + d]) + 2.0 * U32 * mag;
            }
        }
    }
    let worst = check("out", &out, &want, |i| bound[i]);
    assert!(worst > 0.1, "the bound is vacuous: worst {worst}");
}
