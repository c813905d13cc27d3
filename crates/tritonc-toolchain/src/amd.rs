//! Where AMD's tools are: `ld.lld`, which links a relocatable AMDGPU object into a code
//! object (HSACO), and the ROCm device libraries (`ocml.bc`, `ockl.bc`), the bitcode of
//! AMD's math and kernel library. The search never looks at the current directory.
//!
//! ld.lld, in order: `$TRITONC_LLD` (taken as given); `/usr/lib/llvm-22/bin/ld.lld`
//! (Debian's `lld-22`, the LLVM tritonc links); `ld.lld-22` and `ld.lld` on `PATH`.
//!
//! The device libraries, in order: `$TRITONC_ROCM_DEVICE_LIBS` (a directory holding
//! `ocml.bc` and `ockl.bc`); Debian's `rocm-device-libs`
//! (`/usr/lib/x86_64-linux-gnu/amdgcn/bitcode`); ROCm (`$ROCM_PATH/amdgcn/bitcode`,
//! `/opt/rocm/amdgcn/bitcode`); Triton's wheel in `$VIRTUAL_ENV`
//! (`triton/backends/amd/lib`).

use std::ffi::OsString;
use std::path::{Path, PathBuf};

/// The device libraries linked into AMD kernels that call them, in link order.
pub const DEVICE_LIBRARIES: [&str; 2] = ["ocml.bc", "ockl.bc"];

/// The places searched for the device libraries, in words (for messages).
pub const DEVICE_LIBS_SEARCH: &str = "$TRITONC_ROCM_DEVICE_LIBS, \
     /usr/lib/x86_64-linux-gnu/amdgcn/bitcode (Debian's rocm-device-libs), \
     $ROCM_PATH/amdgcn/bitcode, /opt/rocm/amdgcn/bitcode, Triton's wheel in $VIRTUAL_ENV";

/// The places searched for ld.lld, in words (for messages).
pub const LLD_SEARCH: &str =
    "$TRITONC_LLD, /usr/lib/llvm-22/bin/ld.lld (Debian's lld-22), ld.lld-22 or ld.lld on PATH";

/// What the search looks at.
#[derive(Clone, Debug, Default)]
pub struct AmdSearch {
    /// `$TRITONC_LLD`.
    pub lld_var: Option<OsString>,
    /// `$TRITONC_ROCM_DEVICE_LIBS`.
    pub device_libs_var: Option<OsString>,
    /// `$ROCM_PATH`.
    pub rocm_path: Option<OsString>,
    /// `$PATH`.
    pub path: Option<OsString>,
    /// `$VIRTUAL_ENV`.
    pub virtual_env: Option<OsString>,
    /// Directories of the system searched before `PATH` (Debian's LLVM, Debian's and
    /// ROCm's device libraries).
    pub system: bool,
}

impl AmdSearch {
    /// This process's environment.
    pub fn from_env() -> AmdSearch {
        AmdSearch {
            lld_var: std::env::var_os("TRITONC_LLD"),
            device_libs_var: std::env::var_os("TRITONC_ROCM_DEVICE_LIBS"),
            rocm_path: std::env::var_os("ROCM_PATH"),
            path: std::env::var_os("PATH"),
            virtual_env: std::env::var_os("VIRTUAL_ENV"),
            system: true,
        }
    }

    /// ld.lld, if found.
    pub fn lld(&self) -> Option<PathBuf> {
        if let Some(p) = &self.lld_var {
            return (!p.is_empty()).then(|| PathBuf::from(p));
        }
        let mut candidates = Vec::new();
        if self.system {
            candidates.push(PathBuf::from("/usr/lib/llvm-22/bin/ld.lld"));
        }
        if let Some(path) = &self.path {
            for dir in std::env::split_paths(path).filter(|d| d.is_absolute()) {
                candidates.push(dir.join("ld.lld-22"));
                candidates.push(dir.join("ld.lld"));
            }
        }
        candidates.into_iter().find(|p| p.is_file())
    }

    /// The directory holding every file of [`DEVICE_LIBRARIES`], if found.
    pub fn device_libs(&self) -> Option<PathBuf> {
        let complete = |d: &Path| DEVICE_LIBRARIES.iter().all(|f| d.join(f).is_file());
        if let Some(p) = &self.device_libs_var {
            let p = PathBuf::from(p);
            return complete(&p).then_some(p);
        }
        let mut candidates = Vec::new();
        if self.system {
            candidates.push(PathBuf::from("/usr/lib/x86_64-linux-gnu/amdgcn/bitcode"));
        }
        if let Some(rocm) = &self.rocm_path {
            candidates.push(Path::new(rocm).join("amdgcn/bitcode"));
        }
        if self.system {
            candidates.push(PathBuf::from("/opt/rocm/amdgcn/bitcode"));
        }
        if let Some(venv) = &self.virtual_env {
            if let Ok(entries) = std::fs::read_dir(Path::new(venv).join("lib")) {
                let mut pythons: Vec<PathBuf> = entries.flatten().map(|e| e.path()).collect();
                pythons.sort();
                candidates.extend(
                    pythons
                        .into_iter()
                        .map(|p| p.join("site-packages/triton/backends/amd/lib")),
                );
            }
        }
        candidates.into_iter().find(|d| complete(d))
    }
}

/// ld.lld for this process.
pub fn find_lld() -> Option<PathBuf> {
    AmdSearch::from_env().lld()
}

/// The device-library directory for this process.
pub fn find_device_libs() -> Option<PathBuf> {
    AmdSearch::from_env().device_libs()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn variables_win_and_incomplete_directories_are_skipped() {
        let dir = std::env::temp_dir().join(format!("tritonc-amd-libs-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join("ocml.bc"), b"").unwrap();
        let search = AmdSearch {
            device_libs_var: Some(dir.clone().into()),
            ..Default::default()
        };
        // ockl.bc is missing: not a device-library directory.
        assert_eq!(search.device_libs(), None);
        std::fs::write(dir.join("ockl.bc"), b"").unwrap();
        assert_eq!(search.device_libs(), Some(dir.clone()));
        let search = AmdSearch {
            lld_var: Some("/somewhere/ld.lld".into()),
            ..Default::default()
        };
        assert_eq!(search.lld(), Some(PathBuf::from("/somewhere/ld.lld")));
        assert_eq!(AmdSearch::default().lld(), None);
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
