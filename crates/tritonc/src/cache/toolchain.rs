//! The toolchain part of every cache key: tritonc itself, LLVM, ptxas and libdevice.

use std::path::Path;
use std::process::Command;

use blake3::{Hash, Hasher};

use super::key::field;

/// Everything besides the kernel that decides the generated code.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Toolchain {
    /// `tritonc`'s version.
    pub tritonc: String,
    /// The commit `tritonc` was built from, when the build saw a git checkout.
    pub commit: Option<String>,
    /// The running executable (size and modification time): a rebuilt binary, whose
    /// code generator may differ under the same version, starts afresh.
    pub executable: String,
    /// The LLVM the back end is linked with.
    pub llvm: String,
    /// `ptxas --version`, when a cubin is assembled.
    pub ptxas: Option<String>,
    /// libdevice's content hash, when one is found.
    pub libdevice: Option<String>,
}

impl Toolchain {
    /// The hash of every field.
    pub fn hash(&self) -> Hash {
        let mut h = Hasher::new();
        field(&mut h, "tritonc", self.tritonc.as_bytes());
        field(
            &mut h,
            "commit",
            self.commit.as_deref().unwrap_or("").as_bytes(),
        );
        field(&mut h, "executable", self.executable.as_bytes());
        field(&mut h, "llvm", self.llvm.as_bytes());
        field(
            &mut h,
            "ptxas",
            self.ptxas.as_deref().unwrap_or("").as_bytes(),
        );
        field(
            &mut h,
            "libdevice",
            self.libdevice.as_deref().unwrap_or("").as_bytes(),
        );
        h.finalize()
    }

    /// The toolchain of this process, with `ptxas` when a cubin is assembled.
    pub fn detect(ptxas: Option<&Path>) -> Toolchain {
        Toolchain {
            tritonc: env!("CARGO_PKG_VERSION").to_string(),
            commit: option_env!("TRITONC_GIT_COMMIT").map(str::to_string),
            executable: executable_identity(),
            llvm: llvm_version(),
            ptxas: ptxas.map(ptxas_version),
            libdevice: libdevice_identity(),
        }
    }
}

/// The running executable's size and modification time (empty if unknown).
fn executable_identity() -> String {
    let meta = std::env::current_exe().and_then(std::fs::metadata);
    match meta {
        Ok(m) => {
            let modified = m
                .modified()
                .ok()
                .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok())
                .map_or(0, |d| d.as_nanos());
            format!("{} bytes, modified {modified}", m.len())
        }
        Err(_) => String::new(),
    }
}

/// The version of the LLVM linked in (`22.1.0`).
#[cfg(feature = "mlir")]
fn llvm_version() -> String {
    extern "C" {
        /// LLVM's C API (llvm-c/Core.h): the version of the linked library.
        fn LLVMGetVersion(major: *mut u32, minor: *mut u32, patch: *mut u32);
    }
    let (mut major, mut minor, mut patch) = (0u32, 0u32, 0u32);
    // SAFETY: LLVMGetVersion only writes three integers through the pointers it is given,
    // which point to live locals.
    unsafe { LLVMGetVersion(&mut major, &mut minor, &mut patch) };
    format!("{major}.{minor}.{patch}")
}

#[cfg(not(feature = "mlir"))]
fn llvm_version() -> String {
    String::new()
}

/// The content hash of the libdevice code generation would link, if one is found.
fn libdevice_identity() -> Option<String> {
    #[cfg(feature = "mlir")]
    {
        let path = tritonc_codegen::locate_libdevice()?;
        let bytes = std::fs::read(path).ok()?;
        Some(blake3::hash(&bytes).to_hex().to_string())
    }
    #[cfg(not(feature = "mlir"))]
    {
        None
    }
}

/// `ptxas --version` (its whole output), or the path when it does not answer.
fn ptxas_version(ptxas: &Path) -> String {
    match Command::new(ptxas).arg("--version").output() {
        Ok(o) if o.status.success() => String::from_utf8_lossy(&o.stdout).trim().to_string(),
        _ => format!("unversioned {}", ptxas.display()),
    }
}
