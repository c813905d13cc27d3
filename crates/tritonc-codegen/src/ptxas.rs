//! Running NVIDIA's `ptxas` on generated PTX: the real validator of PTX, and the source
//! of register and shared-memory figures (`-v`).

use std::path::{Path, PathBuf};

use tritonc_toolchain::Bounds;

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

/// A ptxas executable, run through `tritonc_toolchain`'s driver (bounded, cleaned up).
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
    /// scripts/install-deps.sh puts it), else wherever `tritonc_toolchain::locate` finds
    /// one, else none.
    pub fn locate(root: &Path) -> Option<Self> {
        if let Some(path) = std::env::var_os("TRITONC_PTXAS") {
            return Some(Self::at(path));
        }
        let installed = root.join(".tools/cuda/bin/ptxas");
        if installed.is_file() {
            return Some(Self::at(installed));
        }
        tritonc_toolchain::locate::find_ptxas().map(Self::at)
    }

    /// The executable's path.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Assembles `ptx` for `arch` (e.g. `sm_90`) with `-v`, discarding the cubin, under
    /// the bounds `TRITONC_PTXAS_TIMEOUT` and `TRITONC_PTXAS_MEMORY` set.
    pub fn check(&self, ptx: &str, arch: &str) -> Result<PtxasReport, CodegenError> {
        // The chip the PTX was compiled for (`sm_90a` for `sm_90`).
        let chip = tritonc_target::Target::parse(arch).map(|t| t.chip());
        let arch = chip.as_deref().unwrap_or(arch);
        let bounds = Bounds::from_env().map_err(CodegenError::PtxasBounds)?;
        let driver = tritonc_toolchain::Ptxas::new(&self.path, bounds);
        let assembled = driver.assemble(ptx, arch).map_err(|e| match e {
            tritonc_toolchain::PtxasError::Spawn { path, source } => {
                CodegenError::PtxasSpawn { path, source }
            }
            tritonc_toolchain::PtxasError::Failed { log, .. } => CodegenError::PtxasRejected {
                arch: arch.to_owned(),
                stderr: log,
            },
            other => CodegenError::Ptxas(other),
        })?;
        let log = assembled.log;
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
