//! Records the commit the binary is built from (`TRITONC_GIT_COMMIT`), part of the
//! compile cache's toolchain identity. Outside a git checkout, or without git, nothing
//! is recorded. No `rerun-if-changed` is printed, so cargo runs this again whenever a
//! file of the package changes.
//!
//! On Linux the `tritonc` executable is linked as a position-dependent executable
//! (`-no-pie`): with statically linked LLVM/MLIR a PIE carries ~280,000 relative
//! relocations that the dynamic loader applies at every start (1–2 ms of a
//! `tritonc compile` of a few milliseconds; docs/benchmarks.md). libstdc++ is linked in
//! statically too (its archive's definitions take precedence over the shared library
//! LLVM's link flags name, which is then not needed): LLVM's ~17,000 references to its
//! type-info vtables are otherwise bound by the loader at every start (0.3–0.5 ms). GCC's
//! runtime library exception permits this. Test binaries keep the defaults.

use std::process::Command;

fn main() {
    let os = std::env::var("CARGO_CFG_TARGET_OS").unwrap_or_default();
    let env = std::env::var("CARGO_CFG_TARGET_ENV").unwrap_or_default();
    if os == "linux" && env == "gnu" {
        println!("cargo:rustc-link-arg-bins=-no-pie");
        // Only LLVM/MLIR (the `mlir` feature) needs libstdc++ at all.
        if std::env::var_os("CARGO_FEATURE_MLIR").is_some() {
            println!(
                "cargo:rustc-link-arg-bins=-Wl,--whole-archive,-l:libstdc++.a,--no-whole-archive"
            );
        }
    }
    let commit = Command::new("git")
        .args(["rev-parse", "--short=12", "HEAD"])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .ok()
        .filter(|o| o.status.success())
        .and_then(|o| String::from_utf8(o.stdout).ok())
        .map(|s| s.trim().to_string())
        .filter(|s| !s.is_empty());
    if let Some(commit) = commit {
        println!("cargo:rustc-env=TRITONC_GIT_COMMIT={commit}");
    }
}
