//! Output summaries and comparison against references.

use std::fmt;

/// Statistics of one tensor.
#[derive(Debug, Clone, PartialEq)]
pub struct Summary {
    /// Elements.
    pub numel: usize,
    /// Smallest finite value.
    pub min: f64,
    /// Largest finite value.
    pub max: f64,
    /// Mean of the finite values.
    pub mean: f64,
    /// NaN count.
    pub nans: usize,
    /// ±inf count.
    pub infs: usize,
}

/// Summarizes values.
pub fn summarize(v: &[f64]) -> Summary {
    let finite: Vec<f64> = v.iter().copied().filter(|x| x.is_finite()).collect();
    let (min, max) = finite
        .iter()
        .fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), &x| {
            (a.min(x), b.max(x))
        });
    Summary {
        numel: v.len(),
        min,
        max,
        mean: if finite.is_empty() {
            f64::NAN
        } else {
            finite.iter().sum::<f64>() / finite.len() as f64
        },
        nans: v.iter().filter(|x| x.is_nan()).count(),
        infs: v.iter().filter(|x| x.is_infinite()).count(),
    }
}

impl fmt::Display for Summary {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "min {:.6e}  max {:.6e}  mean {:.6e}  nan {}  inf {}",
            self.min, self.max, self.mean, self.nans, self.infs
        )
    }
}

/// How an output compares to a reference: `|got - want| <= atol + rtol * |want|`, with
/// NaN matching NaN and infinities matching exactly.
#[derive(Debug, Clone, PartialEq)]
pub struct Comparison {
    /// Elements compared.
    pub numel: usize,
    /// Elements outside the tolerance.
    pub mismatches: usize,
    /// The first mismatch: index, got, want.
    pub first: Option<(usize, f64, f64)>,
    /// Largest absolute difference among finite pairs.
    pub max_abs: f64,
}

/// Compares `got` against `want`.
pub fn compare(got: &[f64], want: &[f64], atol: f64, rtol: f64) -> Comparison {
    let mut c = Comparison {
        numel: got.len(),
        mismatches: 0,
        first: None,
        max_abs: 0.0,
    };
    for (i, (&g, &w)) in got.iter().zip(want).enumerate() {
        let ok = if g.is_nan() || w.is_nan() {
            g.is_nan() && w.is_nan()
        } else if g.is_infinite() || w.is_infinite() {
            g == w
        } else {
            let d = (g - w).abs();
            c.max_abs = c.max_abs.max(d);
            d <= atol + rtol * w.abs()
        };
        if !ok {
            c.mismatches += 1;
            c.first.get_or_insert((i, g, w));
        }
    }
    if got.len() != want.len() {
        c.mismatches += got.len().abs_diff(want.len());
    }
    c
}
