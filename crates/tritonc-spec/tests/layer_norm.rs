//! The three LayerNorm kernels on the interpreter against f64 references written from the
//! math, within bounds derived from docs/numerics.md (u = 2^-24, the fp32 unit roundoff).
//!
//! A reduction over n elements combines in a tree (docs/numerics.md, the order rule) whose
//! depth is at most the in-thread run plus log2(lanes) plus log2(warps): for 1000 columns on
//! 4 warps that is 8 + 5 + 2 = 15, so a sum of f32 terms errs by at most 16u·Σ|terms|.

mod common;

use common::{check, f16_half_ulp, run, values, U32};

const TREE: f64 = 16.0;

#[test]
fn layer_norm_forward_matches_f64_reference() {
    let o = run("layer_norm_fwd.toml");
    let (x, w, b) = (values(&o, "x"), values(&o, "w"), values(&o, "b"));
    let (y, mean, rstd) = (values(&o, "y"), values(&o, "mean"), values(&o, "rstd"));
    let (rows, cols) = (64, 1000);
    let (mut want_y, mut want_mean, mut want_rstd) = (vec![0.0; rows * cols], vec![], vec![]);
    let (mut mean_err, mut y_bound) = (vec![], vec![0.0; rows * cols]);
    for r in 0..rows {
        let row = &x[r * cols..(r + 1) * cols];
        let m = row.iter().sum::<f64>() / cols as f64;
        let var = row.iter().map(|v| (v - m) * (v - m)).sum::<f64>() / cols as f64;
        let rs = 1.0 / (var + 1e-5).sqrt();
        // The sum's tree error, then the division.
        let dm =
            TREE * U32 * row.iter().map(|v| v.abs()).sum::<f64>() / cols as f64 + U32 * m.abs();
        want_mean.push(m);
        want_rstd.push(rs);
        mean_err.push(dm);
        for c in 0..cols {
            let xh = (row[c] - m) * rs;
            want_y[r * cols + c] = xh * w[c] + b[c];
            // The mean's error shifts every centered value (its first-order effect on the
            // variance cancels: the centered values sum to 0); rstd errs by ≤ 32u relative
            // (variance: 2u centering, u square, 16u tree, u division; then ε add, sqrt,
            // reciprocal); four more roundings in y; the fp16 store.
            y_bound[r * cols + c] = f16_half_ulp(want_y[r * cols + c])
                + w[c] * rs * dm
                + 40.0 * U32 * ((xh * w[c]).abs() + b[c].abs());
        }
    }
    check("mean", &mean, &want_mean, |r| mean_err[r]);
    check("rstd", &rstd, &want_rstd, |r| 32.0 * U32 * want_rstd[r]);
    let worst = check("y", &y, &want_y, |i| y_bound[i]);
    assert!(worst > 0.1, "the bound is vacuous: worst {worst}");
}

#[test]
fn layer_norm_backward_dx_matches_f64_reference() {
    let o = run("layer_norm_bwd_dx.toml");
    let (x, dy, w) = (values(&o, "x"), values(&o, "dy"), values(&o, "w"));
    let (mean, rstd) = (values(&o, "mean"), values(&o, "rstd"));
    let (dx, dwp, dbp) = (
        values(&o, "dx"),
        values(&o, "dw_partial"),
        values(&o, "db_partial"),
    );
    let (rows, cols, per_program) = (100, 1000, 16);
    let n = cols as f64;
    let mut want_dx = vec![0.0; rows * cols];
    let mut dx_bound = vec![0.0; rows * cols];
    let programs = rows.div_ceil(per_program);
    let (mut want_dw, mut want_db) = (vec![0.0; programs * cols], vec![0.0; programs * cols]);
    let (mut dw_abs, mut db_abs) = (vec![0.0; programs * cols], vec![0.0; programs * cols]);
    for r in 0..rows {
        let xh: Vec<f64> = (0..cols)
            .map(|c| (x[r * cols + c] - mean[r]) * rstd[r])
            .collect();
        let g: Vec<f64> = (0..cols).map(|c| w[c] * dy[r * cols + c]).collect();
        // dL/dx of y = x̂·w + b with x̂ = (x − μ)·rstd, for the saved μ and rstd:
        // rstd · (g − mean(g) − x̂ · mean(x̂ g)).
        let c1 = (0..cols).map(|c| xh[c] * g[c]).sum::<f64>() / n;
        let c2 = g.iter().sum::<f64>() / n;
        let dc1 = (TREE + 8.0) * U32 * (0..cols).map(|c| (xh[c] * g[c]).abs()).sum::<f64>() / n
            + U32 * c1.abs();
        let dc2 = (TREE + 8.0) * U32 * g.iter().map(|v| v.abs()).sum::<f64>() / n + U32 * c2.abs();
        for c in 0..cols {
            let i = r * cols + c;
            want_dx[i] = rstd[r] * (g[c] - c2 - xh[c] * c1);
            // x̂ errs by 3u relative, g by u; c1 and c2 by their sums' tree error; five more
            // roundings in dx; the fp16 store.
            dx_bound[i] = f16_half_ulp(want_dx[i])
                + rstd[r]
                    * (8.0 * U32 * (g[c].abs() + (xh[c] * c1).abs() + c2.abs())
                        + xh[c].abs() * dc1
                        + dc2);
            let p = r / per_program;
            want_dw[p * cols + c] += dy[i] * xh[c];
            want_db[p * cols + c] += dy[i];
            dw_abs[p * cols + c] += (dy[i] * xh[c]).abs();
            db_abs[p * cols + c] += dy[i].abs();
        }
    }
    let worst = check("dx", &dx, &want_dx, |i| dx_bound[i]);
    assert!(worst > 0.1, "the bound is vacuous: worst {worst}");
    // ≤ 16 f32 additions in row order per partial, each term with x̂'s 3u: 20u·Σ|terms|.
    check("dw_partial", &dwp, &want_dw, |i| 20.0 * U32 * dw_abs[i]);
    check("db_partial", &dbp, &want_db, |i| 20.0 * U32 * db_abs[i]);
}

#[test]
fn layer_norm_backward_dwdb_matches_f64_reference() {
    let o = run("layer_norm_bwd_dwdb.toml");
    let (dwp, dbp, dw, db) = (
        values(&o, "dw_partial"),
        values(&o, "db_partial"),
        values(&o, "dw"),
        values(&o, "db"),
    );
    let (rows, cols) = (70, 1000);
    for (name, part, got) in [("dw", &dwp, &dw), ("db", &dbp, &db)] {
        let want: Vec<f64> = (0..cols)
            .map(|c| (0..rows).map(|r| part[r * cols + c]).sum())
            .collect();
        let abs: Vec<f64> = (0..cols)
            .map(|c| (0..rows).map(|r| part[r * cols + c].abs()).sum())
            .collect();
        // Three row chunks added element-wise, then a tree over BLOCK_M = 32 rows (depth
        // ≤ 32 even if fully sequential): ≤ 36u·Σ|p|; then the fp16 store.
        let worst = check(name, got, &want, |c| {
            f16_half_ulp(want[c]) + 36.0 * U32 * abs[c]
        });
        assert!(worst > 0.1, "the bound is vacuous: worst {worst}");
    }
}
