//! Linking an AMDGPU relocatable object into a code object (HSACO) with ld.lld, as
//! Triton and hipcc do (`ld.lld -shared`): the loader (HIP's `hipModuleLoadData`) takes
//! the shared object.

use std::path::Path;
use std::process::Command;

/// Links `object` with the ld.lld at `lld`; returns the code object's bytes. The object
/// and the output live in a scratch directory of their own, removed afterwards.
pub fn link_code_object(lld: &Path, object: &[u8]) -> Result<Vec<u8>, String> {
    let dir = scratch_dir()?;
    let result = (|| {
        let input = dir.join("kernel.o");
        let output = dir.join("kernel.hsaco");
        std::fs::write(&input, object)
            .map_err(|e| format!("cannot write {}: {e}", input.display()))?;
        let run = Command::new(lld)
            .arg("-shared")
            .arg("--no-undefined")
            .arg("-o")
            .arg(&output)
            .arg(&input)
            .output()
            .map_err(|e| format!("cannot run {}: {e}", lld.display()))?;
        if !run.status.success() {
            return Err(format!(
                "{} failed ({}): {}",
                lld.display(),
                run.status,
                String::from_utf8_lossy(&run.stderr).trim()
            ));
        }
        std::fs::read(&output).map_err(|e| format!("cannot read {}: {e}", output.display()))
    })();
    let _ = std::fs::remove_dir_all(&dir);
    result
}

/// A fresh directory under the system's temporary directory.
fn scratch_dir() -> Result<std::path::PathBuf, String> {
    use std::sync::atomic::{AtomicU64, Ordering};
    static NEXT: AtomicU64 = AtomicU64::new(0);
    let dir = std::env::temp_dir().join(format!(
        "tritonc-lld-{}-{}",
        std::process::id(),
        NEXT.fetch_add(1, Ordering::Relaxed)
    ));
    std::fs::create_dir_all(&dir).map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
    Ok(dir)
}
