//! Records the commit the driver is built from (`TRITONC_GIT_COMMIT`), part of the
//! compile cache's toolchain identity (`cache::Toolchain`). Outside a git checkout, or
//! without git, nothing is recorded. No `rerun-if-changed` is printed, so cargo runs this
//! again whenever a file of the package changes; the executable's own identity (size and
//! modification time) covers changes elsewhere.

use std::process::Command;

fn main() {
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
