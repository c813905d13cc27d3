//! Running NVIDIA's `ptxas` on generated PTX: the real validator of PTX, and the source
//! of register and shared-memory figures (`-v`).

use std::{
    path::{Path, PathBuf},
    process::Command,
    sync::atomic::{AtomicU64, Ordering},
};

use crate::error::CodegenError;

/// What `ptxas -v` reports for one kernel.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct PtxasReport {
    /// Registers per thread.
    pub registers: Option<u32>,
    /// Static shared memory in bytes.
    pub shared_bytes: Option<u32>,
    /// The full `-v` output.
    pub log: String,
}

/// A ptxas executable.
#[derive(Clone, Debug)]
pub struct Ptxas {
    path: PathBuf,
}

impl Ptxas {
    /// ptxas at `path` (not checked until run).
    pub fn at(path: impl Into<PathBuf>) -> Self {
        Self { path: path.into() }
    }

    /// ptxas named by `TRITONC_PTXAS`, else `.tools/cuda/bin/ptxas` under `root` (where
    /// scripts/install-deps.sh puts it), else none.
    pub fn locate(root: &Path) -> Option<Self> {
        if let Some(path) = std::env::var_os("TRITONC_PTXAS") {
            return Some(Self::at(path));
        }
        let installed = root.join(".tools/cuda/bin/ptxas");
        installed.is_file().then(|| Self::at(installed))
    }

    /// The executable's path.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Assembles `ptx` for `arch` (e.g. `sm_90`) with `-v`, discarding the cubin.
    pub fn check(&self, ptx: &str, arch: &str) -> Result<PtxasReport, CodegenError> {
        static NEXT: AtomicU64 = AtomicU64::new(0);
        let stem = format!(
            "tritonc-{}-{}",
            std::process::id(),
            NEXT.fetch_add(1, Ordering::Relaxed)
        );
        let dir = std::env::temp_dir();
        let input = dir.join(format!("{stem}.ptx"));
        let output = dir.join(format!("{stem}.cubin"));
        let spawn_error = |source| CodegenError::PtxasSpawn {
            path: self.path.clone(),
            source,
        };
        std::fs::write(&input, ptx).map_err(spawn_error)?;
        let result = Command::new(&self.path)
            .arg(format!("-arch={arch}"))
            .arg("-v")
            .arg(&input)
            .arg("-o")
            .arg(&output)
            .output();
        let _ = std::fs::remove_file(&input);
        let _ = std::fs::remove_file(&output);
        let result = result.map_err(spawn_error)?;
        let log = format!(
            "{}{}",
            String::from_utf8_lossy(&result.stdout),
            String::from_utf8_lossy(&result.stderr)
        );
        if !result.status.success() {
            return Err(CodegenError::PtxasRejected {
                arch: arch.to_owned(),
                stderr: log,
            });
        }
        Ok(PtxasReport {
            registers: number_before(&log, " registers"),
            shared_bytes: number_before(&log, " bytes smem"),
            log,
        })
    }
}

/// The decimal number right before the first `suffix` in `log` (`Used 12 registers`).
fn number_before(log: &str, suffix: &str) -> Option<u32> {
    let end = log.find(suffix)?;
    let digits = log[..end].rsplit(|c: char| !c.is_ascii_digit()).next()?;
    digits.parse().ok()
}

#[cfg(test)]
mod tests {
    use super::number_before;

    #[test]
    fn reads_figures_from_a_ptxas_verbose_line() {
        let line = "ptxas info    : Used 12 registers, used 1 barriers, 64 bytes smem";
        assert_eq!(number_before(line, " registers"), Some(12));
        assert_eq!(number_before(line, " bytes smem"), Some(64));
        assert_eq!(number_before(line, " bytes stack"), None);
    }
}
