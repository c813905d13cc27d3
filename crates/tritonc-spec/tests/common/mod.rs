//! Shared helpers of the example tests: run a spec from `examples/`, read its tensors, and
//! the rounding units the bounds of docs/numerics.md are written in.

#![allow(dead_code)] // each test binary uses a different subset

use std::path::{Path, PathBuf};

use tritonc_diagnostics::SourceMap;
use tritonc_interp::InterpOptions;
use tritonc_spec::{run_spec_file, RunOutcome, TensorArg};

/// fp32 unit roundoff (half an ulp at 1).
pub const U32: f64 = 1.0 / (1u64 << 24) as f64;

/// A file under the repository's `examples/`.
pub fn example(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../examples")
        .join(name)
}

/// Runs a spec file on the interpreter; a failure panics with the diagnostics.
pub fn run_path(path: &Path) -> RunOutcome {
    let mut sources = SourceMap::new();
    match run_spec_file(path, &mut sources, &InterpOptions::default()) {
        Ok(o) => o,
        Err(ds) => panic!(
            "{}: {:#?}",
            path.display(),
            ds.iter().map(|d| &d.message).collect::<Vec<_>>()
        ),
    }
}

/// Runs `examples/<name>`.
pub fn run(name: &str) -> RunOutcome {
    run_path(&example(name))
}

/// A tensor of the launch by name.
pub fn tensor<'a>(o: &'a RunOutcome, name: &str) -> &'a TensorArg {
    o.launch
        .tensors
        .iter()
        .find(|t| t.name == name)
        .expect("tensor exists")
}

/// A tensor's elements widened to f64, row-major.
pub fn values(o: &RunOutcome, name: &str) -> Vec<f64> {
    tensor(o, name).values(&o.launch.memory)
}

/// Half an ulp of fp16 at |v| (relative 2^-11; 2^-25 in the subnormal range): the
/// rounding of a final fp16 store.
pub fn f16_half_ulp(v: f64) -> f64 {
    let v = v.abs().max(2f64.powi(-14));
    2f64.powi(v.log2().floor() as i32 - 11)
}

/// Asserts `|got - want| <= bound` for every element, naming the first offender, and
/// returns the largest ratio error / bound (a test can check it is not vacuous).
pub fn check(what: &str, got: &[f64], want: &[f64], bound: impl Fn(usize) -> f64) -> f64 {
    assert_eq!(got.len(), want.len(), "{what}: lengths");
    let mut worst = 0.0f64;
    for i in 0..got.len() {
        let (g, w, b) = (got[i], want[i], bound(i));
        assert!(
            (g - w).abs() <= b,
            "{what}[{i}]: got {g}, want {w}, |diff| {} > bound {b}",
            (g - w).abs()
        );
        if b > 0.0 {
            worst = worst.max((g - w).abs() / b);
        }
    }
    eprintln!("{what}: largest error / bound = {worst:.3}");
    worst
}
