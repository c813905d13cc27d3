//! Element-wise comparison of two results of one output tensor: the largest absolute
//! and relative errors, the mismatch count, and the worst element (by how far past the
//! tolerance it is) with its index and both values.

use serde::Serialize;
use tritonc_ir::DType;

use crate::tolerance::Tolerance;

/// One output tensor's values, widened to f64 in row-major view order.
#[derive(Debug, Clone, PartialEq)]
pub struct OutputTensor {
    /// The tensor's name in the spec.
    pub name: String,
    /// Its dtype.
    pub dtype: DType,
    /// Its shape.
    pub shape: Vec<usize>,
    /// Its values.
    pub values: Vec<f64>,
}

impl OutputTensor {
    /// The largest finite magnitude (the scale of absolute tolerances).
    pub fn max_abs(&self) -> f64 {
        use rayon::prelude::*;
        self.values
            .par_iter()
            .with_min_len(1 << 16)
            .filter(|v| v.is_finite())
            .fold(|| 0.0f64, |m, v| m.max(v.abs()))
            .reduce(|| 0.0f64, f64::max)
    }
}

/// The outcome of comparing `got` with `want`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Comparison {
    /// Elements compared.
    pub numel: usize,
    /// Elements outside the tolerance (or of a different shape: all).
    pub mismatches: usize,
    /// Largest `|got − want|` over finite pairs.
    pub max_abs: f64,
    /// Largest `|got − want| / |want|` over finite pairs with `want ≠ 0`.
    pub max_rel: f64,
    /// The worst element: a mismatch if there is one, else the largest difference.
    pub worst: Option<Worst>,
}

/// One element, for reports.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Worst {
    /// Its index in the tensor's shape.
    pub index: Vec<usize>,
    /// The value under test.
    pub got: f64,
    /// The expected value.
    pub want: f64,
}

impl Comparison {
    /// Whether every element is within the tolerance.
    pub fn passed(&self) -> bool {
        self.mismatches == 0
    }
}

/// The multi-dimensional index of flat row-major position `flat` in `shape`.
pub fn unflatten(mut flat: usize, shape: &[usize]) -> Vec<usize> {
    let mut index = vec![0; shape.len()];
    for (d, &n) in shape.iter().enumerate().rev() {
        if n > 0 {
            index[d] = flat % n;
            flat /= n;
        }
    }
    index
}

/// Compares element by element under `tol`.
pub fn compare(got: &OutputTensor, want: &OutputTensor, tol: &Tolerance) -> Comparison {
    let mut c = Comparison {
        numel: want.values.len(),
        mismatches: 0,
        max_abs: 0.0,
        max_rel: 0.0,
        worst: None,
    };
    if got.shape != want.shape || got.values.len() != want.values.len() {
        c.mismatches = want.values.len().max(got.values.len()).max(1);
        return c;
    }
    // The worst element: any mismatch beats any match; among mismatches NaN/inf
    // disagreements first, then the largest excess over the tolerance; on a tie the
    // first. Chunks in parallel (large outputs are tens of millions of elements), each
    // folded in order, then merged in order with the same rule.
    use rayon::prelude::*;
    const CHUNK: usize = 1 << 16;
    let parts: Vec<Part> = got
        .values
        .par_chunks(CHUNK)
        .zip(want.values.par_chunks(CHUNK))
        .enumerate()
        .map(|(k, (g, w))| Part::of(g, w, k * CHUNK, tol))
        .collect();
    let mut worst: Option<(bool, f64, usize)> = None;
    for p in parts {
        c.mismatches += p.mismatches;
        c.max_abs = c.max_abs.max(p.max_abs);
        c.max_rel = c.max_rel.max(p.max_rel);
        if let Some((bad, score, i)) = p.worst {
            if worse(worst, bad, score) {
                worst = Some((bad, score, i));
            }
        }
    }
    c.worst = worst.map(|(_, _, i)| Worst {
        index: unflatten(i, &want.shape),
        got: got.values[i],
        want: want.values[i],
    });
    c
}

/// Whether a candidate (`bad`: outside the tolerance; `score`: its excess) replaces the
/// worst so far: a mismatch beats a match, then a strictly larger score.
fn worse(so_far: Option<(bool, f64, usize)>, bad: bool, score: f64) -> bool {
    match so_far {
        None => true,
        Some((b, s, _)) => bad && !b || (bad == b && score > s),
    }
}

/// One chunk's share of a [`Comparison`].
struct Part {
    mismatches: usize,
    max_abs: f64,
    max_rel: f64,
    worst: Option<(bool, f64, usize)>,
}

impl Part {
    fn of(got: &[f64], want: &[f64], start: usize, tol: &Tolerance) -> Part {
        let mut p = Part {
            mismatches: 0,
            max_abs: 0.0,
            max_rel: 0.0,
            worst: None,
        };
        for (j, (&g, &w)) in got.iter().zip(want).enumerate() {
            let ok = tol.accepts(g, w);
            let (d, score) = if g.is_finite() && w.is_finite() {
                let d = (g - w).abs();
                p.max_abs = p.max_abs.max(d);
                if w != 0.0 {
                    p.max_rel = p.max_rel.max(d / w.abs());
                }
                let bound = tol.atol + tol.rtol * w.abs();
                (d, if bound > 0.0 { d / bound } else { d })
            } else {
                (0.0, if ok { 0.0 } else { f64::INFINITY })
            };
            if !ok {
                p.mismatches += 1;
            }
            if worse(p.worst, !ok, score) && (!ok || d > 0.0 || p.worst.is_none()) {
                p.worst = Some((!ok, score, start + j));
            }
        }
        p
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn t(values: Vec<f64>, shape: Vec<usize>) -> OutputTensor {
        OutputTensor {
            name: "y".into(),
            dtype: DType::F32,
            shape,
            values,
        }
    }

    #[test]
    fn indices_unflatten_row_major() {
        assert_eq!(unflatten(0, &[3, 4]), vec![0, 0]);
        assert_eq!(unflatten(7, &[3, 4]), vec![1, 3]);
        assert_eq!(unflatten(11, &[3, 4]), vec![2, 3]);
        assert_eq!(unflatten(5, &[6]), vec![5]);
    }

    #[test]
    fn the_worst_element_is_the_mismatch_furthest_past_the_bound() {
        let want = t(vec![1.0, 2.0, 100.0, 4.0, 5.0, 6.0], vec![2, 3]);
        let got = t(vec![1.0, 2.1, 100.5, 4.0, 5.0, 6.0], vec![2, 3]);
        let tol = Tolerance::within(0.0, 0.01, "test");
        let c = compare(&got, &want, &tol);
        // 2.1 vs 2.0 is 5× past its bound (0.02); 100.5 vs 100 is inside (bound 1.0).
        assert_eq!(c.mismatches, 1);
        let w = c.worst.expect("a worst element");
        assert_eq!(w.index, vec![0, 1]);
        assert_eq!((w.got, w.want), (2.1, 2.0));
        assert!((c.max_abs - 0.5).abs() < 1e-12);
        assert!((c.max_rel - 0.05).abs() < 1e-12);
    }

    #[test]
    fn across_chunks_the_first_of_equal_worst_mismatches_wins() {
        // Three chunks' worth; equal excesses at 70000 and 140000 (different chunks),
        // a smaller one at 10, an in-tolerance difference at 5.
        let want: Vec<f64> = (0..200_000).map(|i| 1.0 + (i % 7) as f64).collect();
        let mut got = want.clone();
        got[5] += 1e-9;
        got[10] += 0.5 * want[10];
        got[70_000] = want[70_000] * 3.0;
        got[140_000] = want[140_000] * 3.0;
        let shape = vec![200_000];
        let tol = Tolerance::within(0.0, 0.01, "test");
        let c = compare(&t(got, shape.clone()), &t(want.clone(), shape), &tol);
        assert_eq!(c.mismatches, 3);
        assert_eq!(want[70_000], want[140_000], "equal values, equal excess");
        assert_eq!(c.worst.expect("worst").index, vec![70_000]);
        assert!((c.max_rel - 2.0).abs() < 1e-12);
    }

    #[test]
    fn nan_where_a_number_is_expected_is_the_worst() {
        let want = t(vec![1.0, 2.0, 3.0], vec![3]);
        let got = t(vec![1.5, f64::NAN, 3.0], vec![3]);
        let c = compare(&got, &want, &Tolerance::within(0.0, 0.01, "test"));
        assert_eq!(c.mismatches, 2);
        assert_eq!(c.worst.expect("worst").index, vec![1]);
    }

    #[test]
    fn a_shape_difference_fails_everything() {
        let c = compare(
            &t(vec![1.0; 4], vec![4]),
            &t(vec![1.0; 4], vec![2, 2]),
            &Tolerance::exact("test"),
        );
        assert!(!c.passed());
        assert_eq!(c.mismatches, 4);
    }

    #[test]
    fn identical_results_pass_with_zero_error() {
        let a = t(vec![0.25, -3.0, f64::NAN], vec![3]);
        let c = compare(&a, &a.clone(), &Tolerance::exact("test"));
        assert!(c.passed());
        assert_eq!((c.max_abs, c.max_rel), (0.0, 0.0));
    }
}
