//! The Python drop-in `python/tritonc_rt/interpret.py` over this crate's library:
//! `python/tests/test_interpret.py`, run with the system `python3` against the
//! `libtritonc_pyinterp.so` cargo built beside this test.

use std::path::Path;
use std::process::Command;

#[test]
fn the_python_drop_in_tests_pass() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    // `cargo test` builds the crate's rlib only: build the cdylib the same way (same
    // target directory and profile), then find it beside target/<profile>/deps/.
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let built = Command::new(cargo)
        .args(["build", "-p", "tritonc-pyinterp", "--lib"])
        .current_dir(&root)
        .status()
        .expect("cargo runs");
    assert!(built.success(), "building libtritonc_pyinterp.so failed");
    let exe = std::env::current_exe().expect("the test binary's path");
    let lib = exe
        .parent()
        .and_then(Path::parent)
        .expect("target/<profile>")
        .join("libtritonc_pyinterp.so");
    assert!(lib.exists(), "{} was not built", lib.display());
    let out = Command::new("python3")
        .args(["-m", "unittest", "-v", "python/tests/test_interpret.py"])
        .current_dir(&root)
        .env("PYTHONDONTWRITEBYTECODE", "1")
        .env("TRITONC_INTERP_LIB", &lib)
        .env_remove("TRITONC_INTERPRET")
        .env_remove("TRITON_INTERPRET")
        .output()
        .expect("python3 on PATH (scripts/install-deps.sh installs it)");
    let text = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{text}");
    assert!(
        text.contains("Ran 18 tests") && text.contains("OK"),
        "{text}"
    );
}
