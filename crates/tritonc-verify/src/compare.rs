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
        self.values
            .iter()
            .filter(|v| v.is_finite())
            .fold(0.0f64, |m, v| m.max(v.abs()))
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
    // disagreements first, then the largest excess over the tolerance.
    let mut worst: Option<(bool, f64, usize)> = None;
    for (i, (&g, &w)) in got.values.iter().zip(&want.values).enumerate() {
        let ok = tol.accepts(g, w);
        let (d, score) = if g.is_finite() && w.is_finite() {
            let d = (g - w).abs();
            c.max_abs = c.max_abs.max(d);
            if w != 0.0 {
                c.max_rel = c.max_rel.max(d / w.abs());
            }
            let bound = tol.atol + tol.rtol * w.abs();
            (d, if bound > 0.0 { d / bound } else { d })
        } else {
            (0.0, if ok { 0.0 } else { f64::INFINITY })
        };
        if !ok {
            c.mismatches += 1;
        }
        let key = (!ok, score);
        let better = match worst {
            None => true,
            Some((bad, s, _)) => key.0 && !bad || (key.0 == bad && score > s),
        };
        if better && (!ok || d > 0.0 || worst.is_none()) {
            worst = Some((!ok, score, i));
        }
    }
    c.worst = worst.map(|(_, _, i)| Worst {
        index: unflatten(i, &want.shape),
        got: got.values[i],
        want: want.values[i],
    });
    c
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
