//! Where ptxas and libdevice are. The search never looks at the current directory: a
//! tritonc started anywhere finds the same tools.
//!
//! ptxas, in order: `$TRITONC_PTXAS` (set and empty: no ptxas); beside the running executable (`ptxas` in its
//! directory, or `.tools/cuda/bin/ptxas` in the directory of the executable or one above,
//! where `scripts/install-deps.sh` unpacks NVIDIA's wheels); `$CUDA_HOME/bin/ptxas`;
//! `ptxas` on `PATH`; Triton's wheel in the active virtual environment
//! (`$VIRTUAL_ENV/lib/python3.*/site-packages/triton/backends/nvidia/bin/ptxas`);
//! `/usr/local/cuda/bin/ptxas`; the source tree tritonc was built from.
//!
//! libdevice (`libdevice.10.bc`), in order: `$TRITONC_LIBDEVICE`; beside the executable
//! (its directory, or `.tools/cuda/nvvm/libdevice/` in the directory of the executable or
//! one above); `$CUDA_HOME/nvvm/libdevice/`; Triton's wheel
//! (`triton/backends/nvidia/lib/`); `/usr/local/cuda/nvvm/libdevice/`; the source tree.

use std::ffi::OsString;
use std::path::{Path, PathBuf};

/// The file name of libdevice in every CUDA release since 9.
pub const LIBDEVICE_FILE: &str = "libdevice.10.bc";

/// The places searched for ptxas, in order, in words (for messages).
pub const PTXAS_SEARCH: &str = "$TRITONC_PTXAS, beside the tritonc executable (or \
     .tools/cuda/bin above it), $CUDA_HOME/bin, PATH, Triton's wheel in $VIRTUAL_ENV, \
     /usr/local/cuda/bin";

/// What the search looks at: the process's environment, or a made-up one in tests.
#[derive(Clone, Debug, Default)]
pub struct Search {
    /// `$TRITONC_PTXAS`.
    pub ptxas_var: Option<OsString>,
    /// `$TRITONC_LIBDEVICE`.
    pub libdevice_var: Option<OsString>,
    /// The running executable.
    pub exe: Option<PathBuf>,
    /// `$CUDA_HOME`.
    pub cuda_home: Option<OsString>,
    /// `$PATH`.
    pub path: Option<OsString>,
    /// `$VIRTUAL_ENV`.
    pub virtual_env: Option<OsString>,
    /// System-wide CUDA (`/usr/local/cuda`).
    pub system_cuda: Option<PathBuf>,
    /// The source tree tritonc was built from (for `cargo run` and tests).
    pub source_tree: Option<PathBuf>,
}

impl Search {
    /// This process's environment.
    pub fn from_env() -> Search {
        Search {
            ptxas_var: std::env::var_os("TRITONC_PTXAS"),
            libdevice_var: std::env::var_os("TRITONC_LIBDEVICE"),
            exe: std::env::current_exe().ok(),
            cuda_home: std::env::var_os("CUDA_HOME"),
            path: std::env::var_os("PATH"),
            virtual_env: std::env::var_os("VIRTUAL_ENV"),
            system_cuda: Some(PathBuf::from("/usr/local/cuda")),
            source_tree: Some(Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")),
        }
    }

    /// ptxas, if found. `$TRITONC_PTXAS` is taken as given (a wrong one is reported
    /// when ptxas is run, not replaced by another); set and empty, it means no ptxas
    /// (bundles carry PTX only).
    pub fn ptxas(&self) -> Option<PathBuf> {
        if let Some(p) = &self.ptxas_var {
            return (!p.is_empty()).then(|| PathBuf::from(p));
        }
        let mut candidates = Vec::new();
        if let Some(exe) = &self.exe {
            if let Some(dir) = exe.parent() {
                candidates.push(dir.join("ptxas"));
                candidates.extend(dir.ancestors().map(|d| d.join(".tools/cuda/bin/ptxas")));
            }
        }
        if let Some(home) = &self.cuda_home {
            candidates.push(Path::new(home).join("bin/ptxas"));
        }
        if let Some(path) = &self.path {
            // An empty entry means the current directory to a shell; not to tritonc.
            candidates.extend(
                std::env::split_paths(path)
                    .filter(|d| d.is_absolute())
                    .map(|d| d.join("ptxas")),
            );
        }
        candidates.extend(wheel_files(self.virtual_env.as_deref(), "bin/ptxas"));
        if let Some(cuda) = &self.system_cuda {
            candidates.push(cuda.join("bin/ptxas"));
        }
        if let Some(tree) = &self.source_tree {
            candidates.push(tree.join(".tools/cuda/bin/ptxas"));
        }
        candidates.into_iter().find(|p| is_executable(p))
    }

    /// libdevice, if found (`$TRITONC_LIBDEVICE` only when it names a file).
    pub fn libdevice(&self) -> Option<PathBuf> {
        if let Some(p) = &self.libdevice_var {
            let p = PathBuf::from(p);
            return p.is_file().then_some(p);
        }
        let mut candidates = Vec::new();
        if let Some(exe) = &self.exe {
            if let Some(dir) = exe.parent() {
                candidates.push(dir.join(LIBDEVICE_FILE));
                candidates.extend(dir.ancestors().map(|d| {
                    d.join(".tools/cuda/nvvm/libdevice")
                        .join(LIBDEVICE_FILE)
                }));
            }
        }
        if let Some(home) = &self.cuda_home {
            candidates.push(Path::new(home).join("nvvm/libdevice").join(LIBDEVICE_FILE));
        }
        candidates.extend(wheel_files(
            self.virtual_env.as_deref(),
            &format!("lib/{LIBDEVICE_FILE}"),
        ));
        if let Some(cuda) = &self.system_cuda {
            candidates.push(cuda.join("nvvm/libdevice").join(LIBDEVICE_FILE));
        }
        if let Some(tree) = &self.source_tree {
            candidates.push(
                tree.join(".tools/cuda/nvvm/libdevice")
                    .join(LIBDEVICE_FILE),
            );
        }
        candidates.into_iter().find(|p| p.is_file())
    }
}

/// ptxas for this process ([`Search::ptxas`] over the environment).
pub fn find_ptxas() -> Option<PathBuf> {
    Search::from_env().ptxas()
}

/// libdevice for this process ([`Search::libdevice`] over the environment).
pub fn find_libdevice() -> Option<PathBuf> {
    Search::from_env().libdevice()
}

/// `FILE` under Triton's NVIDIA back end in every `python3.*` of a virtual environment.
fn wheel_files(venv: Option<&std::ffi::OsStr>, file: &str) -> Vec<PathBuf> {
    let Some(venv) = venv else { return Vec::new() };
    let lib = Path::new(venv).join("lib");
    let Ok(entries) = std::fs::read_dir(&lib) else {
        return Vec::new();
    };
    let mut pythons: Vec<PathBuf> = entries
        .flatten()
        .filter(|e| e.file_name().to_string_lossy().starts_with("python3"))
        .map(|e| e.path())
        .collect();
    pythons.sort();
    pythons
        .into_iter()
        .map(|p| p.join("site-packages/triton/backends/nvidia").join(file))
        .collect()
}

/// A regular file someone may execute.
fn is_executable(path: &Path) -> bool {
    let Ok(meta) = std::fs::metadata(path) else {
        return false;
    };
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        meta.is_file() && meta.permissions().mode() & 0o111 != 0
    }
    #[cfg(not(unix))]
    {
        meta.is_file()
    }
}
