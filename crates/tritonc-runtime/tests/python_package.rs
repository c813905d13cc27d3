//! The Python package `python/tritonc_rt` (docs/python.md): its own tests, run with the
//! system `python3`, pass (argument checks, variant choice, grids, the no-driver path
//! and the documented example up to the driver).

use std::path::Path;
use std::process::Command;

#[test]
fn the_python_package_tests_pass() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let out = Command::new("python3")
        .args([
            "-m",
            "unittest",
            "discover",
            "-v",
            "-s",
            "python/tests",
            "-p",
            "test_tritonc_rt.py",
        ])
        .current_dir(&root)
        .env("PYTHONDONTWRITEBYTECODE", "1")
        .output()
        .expect("python3 on PATH (scripts/install-deps.sh installs it)");
    let text = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{text}");
    assert!(text.contains("Ran 13 tests"), "{text}");
}

/// The launch path against a stand-in libcuda built with `cc` (its own process, since
/// the stand-in replaces the driver): the fast path launches and refuses exactly as the
/// general path does, and DLPack exports launch from their own address.
#[test]
fn the_python_launch_path_tests_pass() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let out = Command::new("python3")
        .args([
            "-m",
            "unittest",
            "discover",
            "-v",
            "-s",
            "python/tests",
            "-p",
            "test_launch_path.py",
        ])
        .current_dir(&root)
        .env("PYTHONDONTWRITEBYTECODE", "1")
        .output()
        .expect("python3 on PATH (scripts/install-deps.sh installs it)");
    let text = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{text}");
    assert!(text.contains("Ran 4 tests"), "{text}");
}
