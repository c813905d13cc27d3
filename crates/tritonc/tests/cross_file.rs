//! End-to-end tests of cross-file resolution: a kernel file whose helpers, constexpr
//! globals and star imports live in other modules of its package
//! (`tests/fixtures/xfile/mypkg`).

use std::path::Path;
use std::process::Command;

/// Runs the binary in the fixture project; returns (exit code, stdout, stderr).
fn tritonc(args: &[&str]) -> (i32, String, String) {
    tritonc_in("xfile", args)
}

/// Runs the binary in fixture project `fixture`; returns (exit code, stdout, stderr).
fn tritonc_in(fixture: &str, args: &[&str]) -> (i32, String, String) {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures")
        .join(fixture);
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

// `tests/fixtures/reexport`: a package that imports Triton through its own
// `rpkg/triton_utils/__init__.py`, which imports `triton` when it is installed and binds
// placeholders otherwise (vllm's `vllm.triton_utils`). Triton 3.6 compiles every kernel
// of it; `rpkg/ops/scale_direct.py` is `scale.py` importing Triton itself.

const SCALE_SIG: &str = "*fp32:16, *fp32:16, i32, fp32, 64, False";

#[test]
fn a_kernel_decorated_through_a_reexport_of_triton_compiles_as_if_imported_directly() {
    let (code, via_reexport, err) = tritonc_in(
        "reexport",
        &[
            "compile",
            "rpkg/ops/scale.py",
            "--kernel",
            "scale_kernel",
            "--signature",
            SCALE_SIG,
            "--emit",
            "ttir",
        ],
    );
    assert_eq!(code, 0, "{err}");
    let (code, direct, err) = tritonc_in(
        "reexport",
        &[
            "compile",
            "rpkg/ops/scale_direct.py",
            "--kernel",
            "scale_kernel",
            "--signature",
            SCALE_SIG,
            "--emit",
            "ttir",
        ],
    );
    assert_eq!(code, 0, "{err}");
    // `tldevice.exp2` (libdevice, re-exported as `tldevice`) in the helper `_scaled`.
    assert!(via_reexport.contains("__nv_exp2f"), "{via_reexport}");
    assert_eq!(via_reexport, direct);
}

#[test]
fn autotune_and_heuristics_spelled_through_a_reexport_apply() {
    // `@triton.autotune` with two configs: one variant each.
    let (code, ir, err) = tritonc_in(
        "reexport",
        &[
            "compile",
            "rpkg/ops/scale.py",
            "--kernel",
            "tuned_copy_kernel",
            "--signature",
            "*fp32:16, *fp32:16, i32",
            "--emit",
            "ttir",
        ],
    );
    assert_eq!(code, 0, "{err}");
    assert_eq!(
        ir.matches("tt.func public @tuned_copy_kernel").count(),
        2,
        "{ir}"
    );
    assert!(
        ir.contains("end = 64 : i32") && ir.contains("end = 128 : i32"),
        "{ir}"
    );
    // `@triton.heuristics` sets `EVEN_N`: a signature that leaves it out asks the
    // heuristic, which needs the launch value of `n`.
    let (code, _, err) = tritonc_in(
        "reexport",
        &[
            "compile",
            "rpkg/ops/scale.py",
            "--kernel",
            "scale_kernel",
            "--signature",
            "*fp32:16, *fp32:16, i32, fp32, 64",
            "--emit",
            "ttir",
        ],
    );
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains("the heuristic for `EVEN_N` needs the value of `n`"),
        "{err}"
    );
}

#[test]
fn reexports_are_followed_through_relative_imports_chains_and_modules() {
    // `from ..compat import tl, triton`, where `compat` re-exports `rpkg.triton_utils`'s,
    // and `libdevice = tl.extra.cuda.libdevice`.
    let (code, ir, err) = tritonc_in(
        "reexport",
        &[
            "compile",
            "rpkg/ops/relative.py",
            "--kernel",
            "rsqrt_kernel",
            "--signature",
            "*fp32, *fp32, i32, 64",
            "--emit",
            "ttir",
        ],
    );
    assert_eq!(code, 0, "{err}");
    assert!(ir.contains("__nv_rsqrtf"), "{ir}");
    // `@compat.triton.jit` and `compat.tl.full(...)` through the module.
    let (code, ir, err) = tritonc_in(
        "reexport",
        &[
            "compile",
            "rpkg/ops/relative.py",
            "--kernel",
            "through_module_kernel",
            "--signature",
            "*fp32",
            "--emit",
            "ttir",
        ],
    );
    assert_eq!(code, 0, "{err}");
    assert!(ir.contains("arith.constant 2.0 : f32"), "{ir}");
}

#[test]
fn a_placeholder_decorator_makes_no_kernel() {
    let (code, _, err) = tritonc_in(
        "reexport",
        &[
            "compile",
            "rpkg/ops/placeholder_only.py",
            "--signature",
            "*fp32",
            "--emit",
            "ttir",
        ],
    );
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("E0506"), "{err}");
}

#[test]
fn lint_sees_kernels_decorated_through_a_reexport() {
    // scale.py: `_scaled`, `scale_kernel`, `tuned_copy_kernel`; scale_direct.py: two;
    // relative.py: two; debug_gather.py: one. `placeholder_only.py` has none.
    let (code, out, err) = tritonc_in("reexport", &["lint", "rpkg"]);
    assert_eq!(code, 0, "{out}{err}");
    assert!(out.contains("8 kernels in 10 files"), "{out}{err}");
    // Each is lowered (no "checked at the source level only" note).
    let (_, out, err) = tritonc_in(
        "reexport",
        &["lint", "--select", "ALL", "rpkg/ops/scale.py"],
    );
    assert!(!format!("{out}{err}").contains("TRI001"), "{out}{err}");
    assert!(out.contains("3 kernels in 1 file"), "{out}{err}");
}

#[test]
fn debug_true_through_a_reexport_of_triton_turns_debug_mode_on_for_run() {
    // `@triton.jit(debug=True)` spelled through `rpkg.triton_utils`: the spec does not ask
    // for debug mode, the decorator does, so the interpreter checks the device assert
    // (indices 4000..4095 of a 4000-element source) and stops there, as Triton's launcher
    // compiles the kernel with `debug=True`.
    let (code, out, err) = tritonc_in("reexport", &["run", "debug_gather.toml", "--interpret"]);
    assert_eq!(code, 1, "{out}{err}");
    assert!(
        err.contains("error[E0607]: device assertion failed: gather index out of bounds"),
        "{err}"
    );
    assert!(err.contains("in program 31, lane 32"), "{err}");
}
