//! `tritonc run`, `tritonc verify` and the back-end stages of `tritonc compile`, end to
//! end through the binary. GPU launches are not exercised here (CI has no GPU): the
//! interpreter stands in, and without a driver `run` must say so with exit 3.

use std::path::{Path, PathBuf};
use std::process::Command;

struct Outcome {
    code: i32,
    stdout: String,
    stderr: String,
}

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn tritonc(args: &[&str]) -> Outcome {
    let out = Command::new(env!("CARGO_BIN_EXE_tritonc"))
        .args(args)
        .current_dir(root())
        .env("NO_COLOR", "1")
        .output()
        .expect("the binary runs");
    Outcome {
        code: out.status.code().unwrap_or(-1),
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    }
}

const PLANTED: &str = "crates/tritonc-verify/tests/fixtures";

#[test]
fn run_interpret_prints_a_summary_per_output_and_saves_npy() {
    let dir = std::env::temp_dir().join(format!("tritonc-run-save-{}", std::process::id()));
    let o = tritonc(&[
        "run",
        "examples/vector_add.toml",
        "--interpret",
        "--save",
        dir.to_str().expect("utf-8 temp dir"),
    ]);
    assert_eq!(o.code, 0, "{}", o.stderr);
    assert!(
        o.stdout
            .contains("add_kernel on interpreter: grid (97, 1, 1)"),
        "{}",
        o.stdout
    );
    assert!(o.stdout.contains("out fp32[98432]"), "{}", o.stdout);
    let saved = std::fs::read(dir.join("out.npy")).expect("out.npy written");
    let a = tritonc_spec::npy::read(&saved).expect("a valid .npy");
    assert_eq!(a.shape, vec![98432]);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn run_on_a_machine_without_a_gpu_exits_3() {
    if tritonc_runtime::Device::driver_present() {
        return; // A GPU host: covered by the GPU run in docs/verify.md.
    }
    let o = tritonc(&[
        "run",
        "examples/vector_add.toml",
        "--bundle",
        "crates/tritonc/tests/fixtures",
    ]);
    assert_eq!(o.code, 3, "{}", o.stderr);
    assert!(o.stderr.contains("E0592"), "{}", o.stderr);
    assert!(o.stderr.contains("--interpret"), "{}", o.stderr);
}

#[test]
fn verify_interpret_catches_a_missing_other_in_stage_3_with_exit_1() {
    let spec = format!("{PLANTED}/sum_without_other.toml");
    let o = tritonc(&["verify", &spec, "--interpret", "--stages", "1,3"]);
    assert_eq!(o.code, 1, "{}{}", o.stdout, o.stderr);
    assert!(
        o.stdout.contains("stage 1 correctness: pass"),
        "{}",
        o.stdout
    );
    assert!(
        o.stdout.contains("stage 3 edge cases: FAIL"),
        "{}",
        o.stdout
    );
    assert!(o.stdout.contains("poisoned masked lanes"), "{}", o.stdout);
}

#[test]
fn verify_json_is_machine_readable() {
    let o = tritonc(&[
        "verify",
        "examples/vector_add.toml",
        "--interpret",
        "--stages",
        "1",
        "--json",
    ]);
    assert_eq!(o.code, 0, "{}", o.stderr);
    let v: serde_json::Value = serde_json::from_str(&o.stdout).expect("JSON on stdout");
    assert_eq!(v["passed"], true);
    assert_eq!(v["kernel"], "add_kernel");
    assert_eq!(v["checks"][0]["against"], "interpreter");
}

#[test]
fn verify_rejects_bad_stage_numbers() {
    let o = tritonc(&["verify", "examples/vector_add.toml", "--stages", "0,7"]);
    assert_eq!(o.code, 2);
    assert!(o.stderr.contains("`--stages`"), "{}", o.stderr);
}

#[cfg(feature = "mlir")]
#[test]
fn compile_emits_ptx_and_writes_bundles_for_a_spec() {
    let o = tritonc(&[
        "compile",
        "examples/vector_add.py",
        "--signature",
        "*fp32:16, *fp32:16, *fp32:16, i32:16, 1024",
        "--emit",
        "ptx",
    ]);
    assert_eq!(o.code, 0, "{}", o.stderr);
    assert!(o.stdout.contains(".entry add_kernel"), "{}", o.stdout);

    let dir = std::env::temp_dir().join(format!("tritonc-spec-bundles-{}", std::process::id()));
    let o = tritonc(&[
        "compile",
        "--spec",
        "examples/vector_add.toml",
        "-o",
        dir.to_str().expect("utf-8 temp dir"),
    ]);
    assert_eq!(o.code, 0, "{}", o.stderr);
    let bundles = tritonc_verify::BundleDir::read(&dir).expect("bundles readable");
    // The spec's variant (`n_elements` a multiple of 16) and the odd sizes' (not).
    let keys: Vec<String> = bundles
        .bundles
        .iter()
        .map(|b| b.meta.key.to_string())
        .collect();
    assert!(
        keys.iter().any(|k| k.contains("n_elements=i32:16")),
        "{keys:?}"
    );
    assert!(
        keys.iter().any(|k| k.contains("n_elements=i32,")),
        "{keys:?}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[cfg(not(feature = "mlir"))]
#[test]
fn the_slim_build_has_no_back_end() {
    let o = tritonc(&["compile", "--spec", "examples/vector_add.toml"]);
    assert_eq!(o.code, 4, "{}", o.stderr);
    assert!(o.stderr.contains("`mlir` feature"), "{}", o.stderr);
}
