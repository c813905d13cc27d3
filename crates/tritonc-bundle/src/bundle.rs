//! A bundle in memory, and its directory form on disk.

use std::fs;
use std::io;
use std::path::{Path, PathBuf};

use crate::amdgpu;
use crate::meta::{
    format_version_for, parse_gfx, parse_sm, BundleMeta, AMD_FORMAT_VERSION, FORMAT_VERSION,
};
use crate::ptx;

/// The metadata file inside a bundle directory.
pub const META_FILE: &str = "bundle.json";
/// The PTX file inside a bundle directory.
pub const PTX_FILE: &str = "kernel.ptx";
/// The cubin file inside a bundle directory (present when ptxas produced one).
pub const CUBIN_FILE: &str = "kernel.cubin";
/// The code object file inside an AMD bundle directory.
pub const HSACO_FILE: &str = "kernel.hsaco";
/// The extension `tritonc` gives bundle directories (`add_kernel-0123456789abcdef.tcb`).
pub const BUNDLE_EXTENSION: &str = "tcb";

/// One compiled kernel variant: its code and metadata.
#[derive(Debug, Clone, PartialEq)]
pub struct Bundle {
    /// The metadata.
    pub meta: BundleMeta,
    /// The PTX text (empty for an AMD target).
    pub ptx: String,
    /// The binary for `meta.target`: for an NVIDIA target the cubin ptxas produced from
    /// `ptx`, if any; for an AMD target the code object (HSACO), always present.
    pub cubin: Option<Vec<u8>>,
}

/// Why a bundle could not be read, written or trusted.
#[derive(Debug, thiserror::Error)]
pub enum BundleError {
    /// A file could not be read or written.
    #[error("{path}: {source}")]
    Io {
        /// The file.
        path: PathBuf,
        /// The I/O error.
        source: io::Error,
    },
    /// `bundle.json` is not valid metadata.
    #[error("{path}: malformed bundle metadata: {source}")]
    Json {
        /// The file.
        path: PathBuf,
        /// The parse error.
        source: serde_json::Error,
    },
    /// The metadata's format version is not the one this build reads.
    #[error(
        "{path}: bundle format version {found} is not supported (this build reads versions up to {supported}){hint}",
        hint = if *found > *supported { "; it was written by a newer tritonc" } else { "; recompile the kernel" }
    )]
    UnsupportedVersion {
        /// The file.
        path: PathBuf,
        /// The version found.
        found: u32,
        /// The newest version this build reads.
        supported: u32,
    },
    /// The metadata contradicts itself or the code.
    #[error("{path}: inconsistent bundle: {reason}")]
    Inconsistent {
        /// The bundle directory.
        path: PathBuf,
        /// What does not match.
        reason: String,
    },
}

impl Bundle {
    /// Checks the metadata against itself and the code: the format version for the
    /// target, the key hash, the target name, `num_warps`, parameter names against the
    /// key, the `.entry` parameter list (NVIDIA) or the code object's ELF header (AMD), and
    /// that the binary's sections lie inside it ([`Bundle::check_binary`]).
    pub fn validate(&self) -> Result<(), String> {
        let m = &self.meta;
        let expected = format_version_for(&m.target);
        if m.format_version != expected {
            return Err(format!(
                "format version {} (expected {expected} for target `{}`)",
                m.format_version, m.target
            ));
        }
        if m.key.hash_hex() != m.key_hash {
            return Err(format!(
                "key_hash {} does not match the key's hash {}",
                m.key_hash,
                m.key.hash_hex()
            ));
        }
        let amd = parse_gfx(&m.target).is_some();
        if !amd && parse_sm(&m.target).is_none() {
            return Err(format!(
                "target `{}` is neither of the form sm_XY nor an AMD gfx processor",
                m.target
            ));
        }
        if !m.num_warps.is_power_of_two() || m.num_warps > 32 {
            return Err(format!(
                "num_warps {} is not a power of two up to 32",
                m.num_warps
            ));
        }
        let names: Vec<&str> = m.params.iter().map(|p| p.name.as_str()).collect();
        let key_names: Vec<&str> = m.key.args.iter().map(|a| a.name.as_str()).collect();
        if names != key_names {
            return Err(format!(
                "parameters ({}) differ from the key's ({})",
                names.join(", "),
                key_names.join(", ")
            ));
        }
        if amd {
            // No PTX declares the entry's parameters, so the metadata's indices alone lay
            // out the launch's argument buffer: they must be 0..n, each once.
            for (pos, (index, _)) in m.ptx_params().iter().enumerate() {
                if *index as usize != pos {
                    return Err(format!(
                        "kernel parameter indices must be 0..{} without gaps; found {index} \
                         at position {pos}",
                        m.ptx_param_count()
                    ));
                }
            }
            return self.validate_code_object();
        }
        self.check_binary()?;
        if let Some(t) = ptx_target(&self.ptx) {
            // The PTX names the chip LLVM compiled for (`sm_90a` for `sm_90`).
            let chip = tritonc_target::Target::parse(&m.target).map_or_else(|| m.target.clone(), |x| x.chip());
            if t != m.target && t != chip {
                return Err(format!(
                    "the PTX says `.target {t}` but the metadata says `{}`",
                    m.target
                ));
            }
        }
        if let (Some(recorded), Some(needed)) =
            (m.min_driver_version, crate::min_driver_for_ptx(&self.ptx))
        {
            if recorded < needed {
                return Err(format!(
                    "min_driver_version {recorded} is older than the {needed} the PTX's \
                     `.version` needs"
                ));
            }
        }
        ptx::check_entry_abi(&self.ptx, m)
    }

    /// The oldest CUDA driver (as `cuDriverGetVersion` reports it) that can load the
    /// PTX: the metadata's `min_driver_version`, else what the PTX's `.version` needs;
    /// `None` for AMD bundles and PTX versions [`crate::min_driver_for_ptx_isa`] does
    /// not know.
    pub fn min_driver_version(&self) -> Option<u32> {
        self.meta
            .min_driver_version
            .or_else(|| crate::min_driver_for_ptx(&self.ptx))
    }

    /// The compute capability the NVIDIA code needs, e.g. `(9, 0, true)`: the PTX's
    /// `.target` directive where it names one (capability 9.0 is compiled for the
    /// architecture-specific `sm_90a`, which runs on capability 9.0 only, while the
    /// metadata's `target` keeps the name asked for, `sm_90`), else the metadata's target.
    /// `None` for AMD targets.
    pub fn code_capability(&self) -> Option<(u32, u32, bool)> {
        ptx_target(&self.ptx)
            .and_then(parse_sm)
            .or_else(|| self.meta.target_capability())
    }

    /// Checks that the binary (the cubin, or an AMD bundle's code object), if any, is an
    /// ELF file for its vendor's GPUs whose every section and segment lies inside its
    /// bytes: the driver is handed it by address alone and would read past a truncated
    /// or forged one. Part of [`Bundle::validate`]; loaders call it on bundles built by
    /// hand.
    pub fn check_binary(&self) -> Result<(), String> {
        let Some(code) = &self.cubin else {
            return Ok(());
        };
        if parse_gfx(&self.meta.target).is_some() {
            crate::elf::check_bounds(code, amdgpu::EM_AMDGPU, "the code object")
        } else {
            crate::elf::check_bounds(code, crate::elf::EM_CUDA, "the cubin")
        }
    }

    /// An AMD bundle carries an AMDGPU code object for its processor and no PTX.
    fn validate_code_object(&self) -> Result<(), String> {
        if !self.ptx.is_empty() {
            return Err(format!(
                "target `{}` is an AMD processor, but the bundle carries PTX",
                self.meta.target
            ));
        }
        match &self.cubin {
            None => Err(format!(
                "target `{}` is an AMD processor, but the bundle has no code object ({HSACO_FILE})",
                self.meta.target
            )),
            Some(code) => {
                amdgpu::check_code_object(code, &self.meta.target)?;
                self.check_binary()
            }
        }
    }

    /// The AMD code object, for a bundle whose target is an AMD processor.
    pub fn hsaco(&self) -> Option<&[u8]> {
        parse_gfx(&self.meta.target)?;
        self.cubin.as_deref()
    }

    /// Writes the bundle into directory `dir` (created if missing; files replaced).
    pub fn write_dir(&self, dir: &Path) -> Result<(), BundleError> {
        let io_err = |path: PathBuf| move |source| BundleError::Io { path, source };
        fs::create_dir_all(dir).map_err(io_err(dir.to_path_buf()))?;
        let meta_path = dir.join(META_FILE);
        let json =
            serde_json::to_string_pretty(&self.meta).map_err(|source| BundleError::Json {
                path: meta_path.clone(),
                source,
            })?;
        fs::write(&meta_path, json + "\n").map_err(io_err(meta_path.clone()))?;
        if parse_gfx(&self.meta.target).is_some() {
            let path = dir.join(HSACO_FILE);
            let code = self.cubin.as_deref().unwrap_or_default();
            return fs::write(&path, code).map_err(io_err(path));
        }
        let ptx_path = dir.join(PTX_FILE);
        fs::write(&ptx_path, &self.ptx).map_err(io_err(ptx_path))?;
        let cubin_path = dir.join(CUBIN_FILE);
        match &self.cubin {
            Some(bytes) => fs::write(&cubin_path, bytes).map_err(io_err(cubin_path))?,
            None => match fs::remove_file(&cubin_path) {
                Ok(()) => {}
                Err(e) if e.kind() == io::ErrorKind::NotFound => {}
                Err(source) => {
                    return Err(BundleError::Io {
                        path: cubin_path,
                        source,
                    })
                }
            },
        }
        Ok(())
    }

    /// Reads and validates the bundle in directory `dir`.
    pub fn read_dir(dir: &Path) -> Result<Bundle, BundleError> {
        let meta_path = dir.join(META_FILE);
        let text = fs::read_to_string(&meta_path).map_err(|source| BundleError::Io {
            path: meta_path.clone(),
            source,
        })?;
        let meta = parse_meta(&text, meta_path)?;
        if parse_gfx(&meta.target).is_some() {
            let path = dir.join(HSACO_FILE);
            let code = fs::read(&path).map_err(|source| BundleError::Io { path, source })?;
            return Bundle::checked(dir, meta, String::new(), Some(code));
        }
        let ptx_path = dir.join(PTX_FILE);
        let ptx = fs::read_to_string(&ptx_path).map_err(|source| BundleError::Io {
            path: ptx_path,
            source,
        })?;
        let cubin_path = dir.join(CUBIN_FILE);
        let cubin = match fs::read(&cubin_path) {
            Ok(b) => Some(b),
            Err(e) if e.kind() == io::ErrorKind::NotFound => None,
            Err(source) => {
                return Err(BundleError::Io {
                    path: cubin_path,
                    source,
                })
            }
        };
        Bundle::checked(dir, meta, ptx, cubin)
    }

    /// A bundle from the contents of its files, validated as [`Bundle::read_dir`]
    /// validates one: for a bundle built into a program with `include_bytes!`.
    /// `ptx` is `kernel.ptx` (empty for an AMD bundle), `binary` is `kernel.cubin` when
    /// the bundle has one (an AMD bundle's `kernel.hsaco`). Errors name the files as
    /// `(embedded)/bundle.json` and so on.
    ///
    /// ```
    /// # fn f() -> Result<(), tritonc_bundle::BundleError> {
    /// # let (meta, ptx, cubin): (&[u8], &[u8], &[u8]) = (b"{}", b"", b"");
    /// // let meta = include_bytes!("../bundles/add_kernel-0123456789abcdef.tcb/bundle.json");
    /// // … kernel.ptx, kernel.cubin the same way
    /// let bundle = tritonc_bundle::Bundle::from_bytes(meta, ptx, Some(cubin));
    /// assert!(bundle.is_err()); // `{}` is no bundle metadata
    /// # Ok(()) }
    /// ```
    pub fn from_bytes(
        meta_json: &[u8],
        ptx: &[u8],
        binary: Option<&[u8]>,
    ) -> Result<Bundle, BundleError> {
        let dir = Path::new("(embedded)");
        let meta_path = dir.join(META_FILE);
        let text = std::str::from_utf8(meta_json).map_err(|e| BundleError::Io {
            path: meta_path.clone(),
            source: io::Error::new(io::ErrorKind::InvalidData, e),
        })?;
        let meta = parse_meta(text, meta_path)?;
        let ptx = String::from_utf8(ptx.to_vec()).map_err(|e| BundleError::Io {
            path: dir.join(PTX_FILE),
            source: io::Error::new(io::ErrorKind::InvalidData, e),
        })?;
        Bundle::checked(dir, meta, ptx, binary.map(<[u8]>::to_vec))
    }

    /// A bundle read from `dir`, validated.
    fn checked(
        dir: &Path,
        meta: BundleMeta,
        ptx: String,
        cubin: Option<Vec<u8>>,
    ) -> Result<Bundle, BundleError> {
        let bundle = Bundle { meta, ptx, cubin };
        bundle
            .validate()
            .map_err(|reason| BundleError::Inconsistent {
                path: dir.to_path_buf(),
                reason,
            })?;
        Ok(bundle)
    }

    /// The directory name `tritonc` gives this bundle: `KERNEL-HASH.tcb`.
    pub fn dir_name(&self) -> String {
        format!(
            "{}-{}.{BUNDLE_EXTENSION}",
            self.meta.key.kernel, self.meta.key_hash
        )
    }
}

/// Parses `bundle.json` (read from `meta_path`), its version first, so that a future
/// format is reported as such rather than as whatever field it renamed.
fn parse_meta(text: &str, meta_path: PathBuf) -> Result<BundleMeta, BundleError> {
    let raw: serde_json::Value = serde_json::from_str(text).map_err(|source| BundleError::Json {
        path: meta_path.clone(),
        source,
    })?;
    let found = raw.get("format_version").and_then(|v| v.as_u64());
    match found {
        Some(v) if v == FORMAT_VERSION as u64 || v == AMD_FORMAT_VERSION as u64 => {}
        Some(v) => {
            return Err(BundleError::UnsupportedVersion {
                path: meta_path,
                found: u32::try_from(v).unwrap_or(u32::MAX),
                supported: AMD_FORMAT_VERSION,
            })
        }
        None => {
            return Err(BundleError::Inconsistent {
                path: meta_path,
                reason: "no numeric `format_version`".into(),
            })
        }
    }
    serde_json::from_value(raw).map_err(|source| BundleError::Json {
        path: meta_path,
        source,
    })
}

/// The `.target` of a PTX module (`sm_90`), if it declares one.
pub fn ptx_target(ptx: &str) -> Option<&str> {
    ptx.lines().find_map(|l| {
        let rest = l.trim_start().strip_prefix(".target")?;
        rest.split([',', ' ', '\t'])
            .find(|t| !t.is_empty())
            .map(str::trim)
    })
}

/// Every bundle directory directly under `dir` (those holding a `bundle.json`), sorted.
pub fn list_bundle_dirs(dir: &Path) -> Result<Vec<PathBuf>, BundleError> {
    let entries = fs::read_dir(dir).map_err(|source| BundleError::Io {
        path: dir.to_path_buf(),
        source,
    })?;
    let mut out = Vec::new();
    for e in entries {
        let e = e.map_err(|source| BundleError::Io {
            path: dir.to_path_buf(),
            source,
        })?;
        let p = e.path();
        if p.join(META_FILE).is_file() {
            out.push(p);
        }
    }
    out.sort();
    Ok(out)
}
