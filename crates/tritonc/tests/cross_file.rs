//! End-to-end tests of cross-file resolution: a kernel file whose helpers, constexpr
//! globals and star imports live in other modules of its package
//! (`tests/fixtures/xfile/mypkg`).

use std::path::Path;
use std::process::Command;

/// Runs the binary in the fixture project; returns (exit code, stdout, stderr).
fn tritonc(args: &[&str]) -> (i32, String, String) {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/xfile");
    let out = Command::new(env!("CARGO_BIN_EXE_tritonc"))
        .args(args)
        .current_dir(dir)
        .env("NO_COLOR", "1")
        .env_remove("CLICOLOR_FORCE")
        .output()
        .expect("the tritonc binary must be runnable");
    (
        out.status.code().expect("tritonc exits"),
        String::from_utf8(out.stdout).expect("UTF-8"),
        String::from_utf8(out.stderr).expect("UTF-8"),
    )
}

#[test]
fn helpers_globals_and_star_imports_of_other_files_compile() {
    let (code, ir, err) = tritonc(&[
        "compile",
        "mypkg/kernels.py",
        "--kernel",
        "square_kernel",
        "--signature",
        "*fp32, *fp32, i32",
        "--emit",
        "ttir",
    ]);
    assert_eq!(code, 0, "{err}");
    // `BLOCK_DEFAULT` comes from `consts.py` through a star import, `scaled` from
    // `ops.py` re-exported by `__init__.py`, and `scaled` reads `ops.py`'s own `_square`
    // and `SCALE = 3`.
    assert!(ir.contains("tensor<64xf32>"), "{ir}");
    assert!(ir.contains("arith.mulf %5, %5"), "{ir}");
    assert!(ir.contains("arith.constant 3.0 : f32"), "{ir}");
}

#[test]
fn an_error_in_a_helper_of_another_file_points_into_both_files() {
    let (code, _, err) = tritonc(&[
        "compile",
        "mypkg/kernels.py",
        "--kernel",
        "shift_kernel",
        "--signature",
        "*fp32, *fp32",
        "--emit",
        "ttir",
    ]);
    assert_ne!(code, 0);
    assert!(err.contains("bitwise operators need integers"), "{err}");
    assert!(err.contains("[mypkg/ops.py:19:12]"), "{err}");
    assert!(err.contains("[mypkg/kernels.py:20:24]"), "{err}");
    assert!(err.contains("in this call of `mypkg.ops.shifted`"), "{err}");
}

#[test]
fn a_call_outside_the_project_is_a_precise_error() {
    let (code, _, err) = tritonc(&[
        "compile",
        "mypkg/vendor_call.py",
        "--signature",
        "*fp32",
        "--emit",
        "ttir",
    ]);
    assert_ne!(code, 0);
    assert!(
        err.contains(
            "`other_package.kernels.helper` is defined outside the project tritonc can see"
        ),
        "{err}"
    );
}

#[test]
fn lint_analyses_kernels_whose_helpers_live_in_other_files() {
    let (_, out, err) = tritonc(&["lint", "mypkg/kernels.py"]);
    let all = format!("{out}{err}");
    // `square_kernel` lowers through `mypkg/ops.py`; `shift_kernel` reaches the helper
    // too, which is then what stops it.
    assert!(
        !all.contains("`square_kernel` was checked at the source level only"),
        "{all}"
    );
    assert!(
        all.contains("lowering stopped: bitwise operators need integers"),
        "{all}"
    );
}

#[test]
fn a_launch_spec_runs_a_kernel_whose_helpers_live_in_other_files() {
    let out = std::env::temp_dir().join(format!("tritonc-xfile-run-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&out);
    let (code, _, err) = tritonc(&[
        "run",
        "square.toml",
        "--interpret",
        "--save",
        out.to_str().expect("a UTF-8 path"),
    ]);
    assert_eq!(code, 0, "{err}");
    let bytes = std::fs::read(out.join("y.npy")).expect("the output was saved");
    let y = tritonc_spec::npy::read(&bytes).expect("a .npy");
    let got: Vec<f32> = y
        .bytes
        .chunks_exact(4)
        .map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect();
    // x = 0, 1, 2, …; `scaled` is `_square(x) * SCALE` with `SCALE = 3`.
    let want: Vec<f32> = (0..64).map(|i| 3.0 * (i * i) as f32).collect();
    assert_eq!(got, want);
    let _ = std::fs::remove_dir_all(&out);
}

#[test]
fn verify_and_compile_spec_take_the_same_helpers() {
    let (code, _, err) = tritonc(&["verify", "square.toml", "--interpret", "--stages", "1"]);
    assert_eq!(code, 0, "{err}");
    let out = std::env::temp_dir().join(format!("tritonc-xfile-spec-{}", std::process::id()));
    let (code, _, err) = tritonc(&[
        "compile",
        "--spec",
        "square.toml",
        "--no-cache",
        "-o",
        out.to_str().expect("a UTF-8 path"),
    ]);
    assert_eq!(code, 0, "{err}");
    let _ = std::fs::remove_dir_all(&out);
}
