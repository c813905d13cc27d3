//! Which target directory each kind of `tritonc` builds into (used by `build.rs`, and by
//! the tests through `#[path]`). The full binary and the slim runner (without `mlir`) are
//! both named `tritonc`: one target directory for both would let each overwrite the other.

use std::path::Path;

/// Why a build whose `OUT_DIR` is `out` must not go on (`None`: it may). `workspace` is
/// the workspace root, `full` whether the `mlir` feature is on. Only the workspace's
/// default `target/` and its `target/slim` are policed; other target directories are the
/// builder's choice.
pub fn refusal(out: &Path, workspace: &Path, full: bool) -> Option<&'static str> {
    let target = workspace.join("target");
    let slim = target.join("slim");
    if !full && out.starts_with(&target) && !out.starts_with(&slim) {
        Some(
            "the slim runner (`--no-default-features`) would overwrite the full `tritonc` in \
             target/; build it into its own directory: add `--target-dir target/slim` (the \
             binary is then target/slim/release/tritonc)",
        )
    } else if full && out.starts_with(&slim) {
        Some(
            "target/slim holds the slim runner; build the full `tritonc` (with the `mlir` \
             feature) into the default target/ directory",
        )
    } else {
        None
    }
}
