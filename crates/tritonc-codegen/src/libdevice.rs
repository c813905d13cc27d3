//! Finding NVIDIA's libdevice (`libdevice.10.bc`), the bitcode library of CUDA's math
//! functions (`__nv_erff`, `__nv_sinf`, …), linked into kernels that call functions no
//! PTX instruction computes.
//!
//! The search is `tritonc_toolchain::locate` (never relative to the current directory):
//! `$TRITONC_LIBDEVICE` (the file); beside the running executable (its directory, or
//! `.tools/cuda/nvvm/libdevice/` in it or a directory above, where
//! `scripts/install-deps.sh` unpacks the `nvidia-nvvm` wheel); `$CUDA_HOME/nvvm/libdevice/`;
//! Triton's wheel in `$VIRTUAL_ENV`; `/usr/local/cuda/nvvm/libdevice/`; the source tree.

use std::path::PathBuf;

pub use tritonc_toolchain::locate::LIBDEVICE_FILE;

/// The libdevice bitcode to link, if one is found.
pub fn locate_libdevice() -> Option<PathBuf> {
    tritonc_toolchain::locate::find_libdevice()
}
