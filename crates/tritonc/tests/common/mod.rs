//! The harness the end-to-end tests share: run the `tritonc` binary as a user would and
//! capture what it printed. Output is deterministic: the streams are pipes (no colour,
//! ASCII drawing) and `NO_COLOR` is set.

// Each test binary uses its own subset of these helpers.
#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::Command;

/// What one run of the binary produced.
pub struct Outcome {
    pub code: i32,
    pub stdout: String,
    pub stderr: String,
}

impl Outcome {
    /// The text a snapshot records: exit status, stdout and stderr together.
    pub fn transcript(&self) -> String {
        format!(
            "exit: {}\n--- stdout ---\n{}--- stderr ---\n{}",
            self.code, self.stdout, self.stderr
        )
    }
}

/// The repository root.
pub fn repo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// `crates/tritonc/tests/fixtures`.
pub fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures")
}

/// The compile cache of test runs: one per test binary run, never the user's.
pub fn test_cache_dir() -> PathBuf {
    std::env::temp_dir().join(format!("tritonc-test-cache-{}", std::process::id()))
}

/// Runs `tritonc ARGS` in `dir`.
pub fn tritonc_in(dir: &Path, args: &[&str]) -> Outcome {
    tritonc_with_env(dir, args, &[])
}

/// Runs `tritonc ARGS` in `dir` with the environment variables `env` set (the compile
/// cache is [`test_cache_dir`] unless `env` names another).
pub fn tritonc_with_env(dir: &Path, args: &[&str], env: &[(&str, &Path)]) -> Outcome {
    let mut command = Command::new(env!("CARGO_BIN_EXE_tritonc"));
    command
        .args(args)
        .current_dir(dir)
        .env("NO_COLOR", "1")
        .env_remove("CLICOLOR_FORCE")
        // The Triton version comes from the active environment otherwise.
        .env_remove("VIRTUAL_ENV")
        .env("TRITONC_CACHE_DIR", test_cache_dir());
    for (name, value) in env {
        command.env(name, value);
    }
    let output = command
        .output()
        .expect("the tritonc binary must be runnable");
    Outcome {
        code: output
            .status
            .code()
            .expect("tritonc must exit, not be killed by a signal"),
        stdout: String::from_utf8(output.stdout).expect("stdout must be UTF-8"),
        stderr: String::from_utf8(output.stderr).expect("stderr must be UTF-8"),
    }
}

/// Runs `tritonc ARGS` in the fixtures directory.
pub fn tritonc(args: &[&str]) -> Outcome {
    tritonc_in(&fixtures(), args)
}
