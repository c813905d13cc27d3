//! Outputs against the spec's independent references (`reference = "y_ref.npy"`).

use std::fmt;
use std::path::PathBuf;

use tritonc_diagnostics::Diagnostic;

use crate::codes;
use crate::parse::LaunchSpec;
use crate::run::Launch;
use crate::summary::{compare, Comparison};

/// The absolute tolerance when the spec gives none (NumPy's `allclose` default).
pub const DEFAULT_ATOL: f64 = 1e-8;
/// The relative tolerance when the spec gives none (NumPy's `allclose` default).
pub const DEFAULT_RTOL: f64 = 1e-5;

/// One output compared with its reference.
#[derive(Debug, Clone, PartialEq)]
pub struct ReferenceCheck {
    /// The output tensor's name.
    pub tensor: String,
    /// The reference file.
    pub path: PathBuf,
    /// The absolute tolerance used.
    pub atol: f64,
    /// The relative tolerance used.
    pub rtol: f64,
    /// The comparison.
    pub comparison: Comparison,
}

impl ReferenceCheck {
    /// Whether every element is within tolerance.
    pub fn passed(&self) -> bool {
        self.comparison.mismatches == 0
    }
}

impl fmt::Display for ReferenceCheck {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let c = &self.comparison;
        write!(
            f,
            "{} vs {}: {} of {} outside atol {:e} + rtol {:e}·|ref|, max |diff| {:.3e}",
            self.tensor,
            self.path.display(),
            c.mismatches,
            c.numel,
            self.atol,
            self.rtol,
            c.max_abs
        )?;
        if let Some((i, got, want)) = c.first {
            write!(f, "; first at flat index {i}: {got} vs {want}")?;
        }
        Ok(())
    }
}

/// Compares every tensor of `spec` that names a reference with its value in `launch`.
/// An unreadable reference, or one whose shape differs from its tensor's, is an error
/// at the tensor's table; values outside tolerance are reported in the checks.
pub fn check_references(
    spec: &LaunchSpec,
    launch: &Launch,
) -> Result<Vec<ReferenceCheck>, Vec<Diagnostic>> {
    let mut checks = Vec::new();
    let mut errors = Vec::new();
    for (t, ts) in launch.tensors.iter().zip(&spec.tensors) {
        let Some(path) = &t.reference else { continue };
        let error = |code, msg: String| {
            Diagnostic::error(code, msg).with_primary(ts.span, "the reference's tensor")
        };
        let bytes = match crate::files::read_regular(path) {
            Ok(b) => b,
            Err(e) => {
                errors.push(error(
                    codes::UNREADABLE_FILE,
                    format!("cannot read the reference `{}`: {e}", path.display()),
                ));
                continue;
            }
        };
        let array = match crate::npy::read(&bytes) {
            Ok(a) => a,
            Err(m) => {
                errors.push(error(
                    codes::BAD_TENSOR,
                    format!("`{}`: {m}", path.display()),
                ));
                continue;
            }
        };
        if array.shape != t.shape {
            errors.push(error(
                codes::BAD_TENSOR,
                format!(
                    "the reference `{}` has shape {:?} but `{}` is {:?}",
                    path.display(),
                    array.shape,
                    t.name,
                    t.shape
                ),
            ));
            continue;
        }
        let want = tritonc_interp::Buffer {
            name: String::new(),
            dtype: array.dtype,
            bytes: array.bytes,
        }
        .to_f64_vec();
        let (atol, rtol) = (
            t.atol.unwrap_or(DEFAULT_ATOL),
            t.rtol.unwrap_or(DEFAULT_RTOL),
        );
        checks.push(ReferenceCheck {
            tensor: t.name.clone(),
            path: path.clone(),
            atol,
            rtol,
            comparison: compare(&t.values(&launch.memory), &want, atol, rtol),
        });
    }
    if errors.is_empty() {
        Ok(checks)
    } else {
        Err(errors)
    }
}
