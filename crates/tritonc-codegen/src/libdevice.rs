//! Finding NVIDIA's libdevice (`libdevice.10.bc`), the bitcode library of CUDA's math
//! functions (`__nv_erff`, `__nv_sinf`, …), linked into kernels that call functions no
//! PTX instruction computes.
//!
//! Searched in order: `$TRITONC_LIBDEVICE` (the file), `$CUDA_HOME/nvvm/libdevice/`,
//! `.tools/cuda/nvvm/libdevice/` next to the running executable's ancestors and in
//! this source tree (where `scripts/install-deps.sh` unpacks the `nvidia-nvvm` wheel),
//! then `/usr/local/cuda/nvvm/libdevice/`.

use std::path::{Path, PathBuf};

/// The file name of libdevice in every CUDA release since 9.
pub const LIBDEVICE_FILE: &str = "libdevice.10.bc";

/// Where `.tools` keeps libdevice, relative to a checkout.
const TOOLS_RELATIVE: &str = ".tools/cuda/nvvm/libdevice";

fn existing(path: PathBuf) -> Option<PathBuf> {
    path.is_file().then_some(path)
}

/// The libdevice bitcode to link, if one is found.
pub fn locate_libdevice() -> Option<PathBuf> {
    if let Some(p) = std::env::var_os("TRITONC_LIBDEVICE") {
        return existing(PathBuf::from(p));
    }
    if let Some(home) = std::env::var_os("CUDA_HOME") {
        if let Some(p) = existing(Path::new(&home).join("nvvm/libdevice").join(LIBDEVICE_FILE)) {
            return Some(p);
        }
    }
    if let Ok(exe) = std::env::current_exe() {
        for dir in exe.ancestors().skip(1) {
            if let Some(p) = existing(dir.join(TOOLS_RELATIVE).join(LIBDEVICE_FILE)) {
                return Some(p);
            }
        }
    }
    let source_tree = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    existing(source_tree.join(TOOLS_RELATIVE).join(LIBDEVICE_FILE))
        .or_else(|| existing(PathBuf::from("/usr/local/cuda/nvvm/libdevice").join(LIBDEVICE_FILE)))
}
