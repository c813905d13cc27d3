//! Link settings of the `tritonc` executable (the commit it is built from is recorded by
//! `tritonc-driver`'s build script, for the compile cache).
//!
//! On Linux the `tritonc` executable is linked as a position-dependent executable
//! (`-no-pie`): with statically linked LLVM/MLIR a PIE carries ~280,000 relative
//! relocations that the dynamic loader applies at every start (1–2 ms of a
//! `tritonc compile` of a few milliseconds; docs/benchmarks.md). libstdc++ is linked in
//! statically too (its archive's definitions take precedence over the shared library
//! LLVM's link flags name, which is then not needed): LLVM's ~17,000 references to its
//! type-info vtables are otherwise bound by the loader at every start (0.3–0.5 ms). GCC's
//! runtime library exception permits this. Test binaries keep the defaults.
//!
//! The full binary and the slim runner (built without `mlir`) are both named `tritonc`;
//! built into one target directory, each would overwrite the other (and a full `tritonc`
//! replaced by the slim one answers `compile` with E0590). The slim runner builds into
//! `target/slim` (README): a slim build into the workspace's default `target/` and a full
//! build into `target/slim` are refused here. Other target directories
//! (`CARGO_TARGET_DIR`, `--target-dir`) are the builder's choice.

use std::path::{Path, PathBuf};

fn main() {
    check_target_dir();
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
}

#[path = "build/target_dir.rs"]
mod target_dir;

/// Refuses a build that would overwrite the other kind of `tritonc` (see the module doc).
fn check_target_dir() {
    let Some(out) = std::env::var_os("OUT_DIR").map(PathBuf::from) else {
        return;
    };
    let workspace = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let (Ok(out), Ok(workspace)) = (out.canonicalize(), workspace.canonicalize()) else {
        return;
    };
    let full = std::env::var_os("CARGO_FEATURE_MLIR").is_some();
    if let Some(why) = target_dir::refusal(&out, &workspace, full) {
        eprintln!("error: {why}");
        std::process::exit(1);
    }
}
