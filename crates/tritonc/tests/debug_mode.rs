//! Debug mode on the command line: `--debug`, `TRITON_DEBUG` (read as Triton reads it)
//! and `@triton.jit(debug=True)` compile device asserts in; without them they emit
//! nothing. `run --interpret` reports a failing assert as a finding (exit 1).

mod common;

use std::path::Path;
use std::process::Command;

use common::{repo_root, Outcome};

const GATHER_SIG: &str = "*fp32:16, *i32:16, *fp32:16, i32, i32, 128";

/// Runs `tritonc ARGS` in the repository root with `TRITON_DEBUG` set to `env` (unset
/// with `None`).
fn tritonc(args: &[&str], env: Option<&str>) -> Outcome {
    tritonc_in(&repo_root(), args, env)
}

fn tritonc_in(dir: &Path, args: &[&str], env: Option<&str>) -> Outcome {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_tritonc"));
    cmd.args(args)
        .current_dir(dir)
        .env("NO_COLOR", "1")
        .env_remove("CLICOLOR_FORCE")
        .env_remove("TRITON_DEBUG");
    if let Some(v) = env {
        cmd.env("TRITON_DEBUG", v);
    }
    let output = cmd.output().expect("the tritonc binary must be runnable");
    Outcome {
        code: output.status.code().expect("tritonc exits"),
        stdout: String::from_utf8(output.stdout).expect("UTF-8"),
        stderr: String::from_utf8(output.stderr).expect("UTF-8"),
    }
}

/// `tritonc compile examples/debug_assert.py --emit ttir` with `extra` arguments.
fn gather_ttir(extra: &[&str], env: Option<&str>) -> Outcome {
    let mut args = vec![
        "compile",
        "examples/debug_assert.py",
        "--signature",
        GATHER_SIG,
        "--emit",
        "ttir",
    ];
    args.extend_from_slice(extra);
    tritonc(&args, env)
}

#[test]
fn compile_debug_puts_the_assert_in_the_ttir() {
    let plain = gather_ttir(&[], None);
    assert_eq!(plain.code, 0, "{}", plain.transcript());
    assert!(!plain.stdout.contains("tt.assert"), "{}", plain.stdout);
    let debug = gather_ttir(&["--debug"], None);
    assert_eq!(debug.code, 0, "{}", debug.transcript());
    assert!(
        debug.stdout.contains("tt.assert %")
            && debug
                .stdout
                .contains("message = \"gather index out of bounds\""),
        "{}",
        debug.stdout
    );
    // Debug builds say that Triton's overflow checks are not added.
    assert!(debug.stderr.contains("E0343"), "{}", debug.stderr);
}

#[test]
fn triton_debug_turns_debug_mode_on_as_triton_reads_it() {
    // Triton's getenv_bool: 1, true, yes, y, on (any case) are on; 0 and others are off.
    for on in ["1", "true", "On", "y"] {
        let o = gather_ttir(&[], Some(on));
        assert!(
            o.stdout.contains("tt.assert"),
            "TRITON_DEBUG={on}: {}",
            o.stdout
        );
    }
    for off in ["0", "2", "false", ""] {
        let o = gather_ttir(&[], Some(off));
        assert!(
            !o.stdout.contains("tt.assert"),
            "TRITON_DEBUG={off}: {}",
            o.stdout
        );
    }
}

#[test]
fn the_decorator_turns_debug_mode_on() {
    let dir = std::env::temp_dir().join(format!("tritonc-cli-debug-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let src = std::fs::read_to_string(repo_root().join("examples/debug_assert.py"))
        .unwrap()
        .replace(
            "@triton.jit\ndef gather_kernel",
            "@triton.jit(debug=True)\ndef gather_kernel",
        );
    assert!(src.contains("@triton.jit(debug=True)"));
    std::fs::write(dir.join("k.py"), src).unwrap();
    let o = tritonc_in(
        &dir,
        &[
            "compile",
            "k.py",
            "--signature",
            GATHER_SIG,
            "--emit",
            "ttir",
        ],
        None,
    );
    std::fs::remove_dir_all(&dir).ok();
    assert_eq!(o.code, 0, "{}", o.transcript());
    assert!(o.stdout.contains("tt.assert"), "{}", o.stdout);
}

#[test]
fn run_interpret_reports_the_failing_assert_with_exit_1() {
    let o = tritonc(&["run", "examples/debug_assert.toml", "--interpret"], None);
    assert_eq!(o.code, 1, "{}", o.transcript());
    assert!(
        o.stderr
            .contains("error[E0607]: device assertion failed: gather index out of bounds"),
        "{}",
        o.stderr
    );
    assert!(o.stderr.contains("in program 31, lane 32"), "{}", o.stderr);
}

#[test]
fn run_debug_turns_on_asserts_a_spec_does_not_ask_for() {
    let spec = "crates/tritonc-spec/tests/fixtures/scalar_assert.toml";
    let plain = tritonc(&["run", spec, "--interpret"], None);
    assert_eq!(plain.code, 0, "{}", plain.transcript());
    let debug = tritonc(&["run", spec, "--interpret", "--debug"], None);
    assert_eq!(debug.code, 1, "{}", debug.transcript());
    assert!(
        debug
            .stderr
            .contains("device assertion failed: too many programs"),
        "{}",
        debug.stderr
    );
}
