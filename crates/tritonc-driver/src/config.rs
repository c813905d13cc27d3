//! Configuration lookup: the `[tool.tritonc]` table of the `pyproject.toml` (or the
//! `tritonc.toml`) closest to a file, as every command and the language server read it.

use std::path::{Path, PathBuf};

use tritonc_diagnostics::Diagnostic;
use tritonc_lint::settings::ConfigError;
use tritonc_lint::Settings;
use tritonc_sema::TritonVersion;

use crate::codes;
use crate::environment::VersionSource;
use crate::options::check_num_warps;

/// The settings of the configuration closest to `path` (a file or a directory) and the
/// configuration file's path (`None`: no configuration, the defaults).
pub fn discover(path: &Path) -> Result<(Settings, Option<PathBuf>), ConfigError> {
    Settings::discover(path)
}

/// A configuration that cannot be read or parsed, as a diagnostic (`E0503`).
pub fn config_error(e: &ConfigError) -> Diagnostic {
    Diagnostic::error(
        codes::UNREADABLE_FILE,
        format!(
            "cannot read the configuration `{}`: {}",
            e.path.display(),
            e.message.trim_end()
        ),
    )
}

/// The Triton version the configuration closest to `path` sets (`triton-version`), if
/// it sets one and can be read, with the configuration's path.
pub fn configured_triton_version(path: &Path) -> Option<(TritonVersion, PathBuf)> {
    match discover(path) {
        Ok((settings, Some(config))) => settings.triton_version.map(|v| (v, config)),
        _ => None,
    }
}

/// The Triton version in effect for files at `path`, and where it comes from: `given`
/// (`--triton-version`), else the configuration's `triton-version`, else the project's
/// environment (`$VIRTUAL_ENV`, else `./.venv`: its `triton` package, else its torch's
/// pin; [`crate::environment`]), else 3.6. Every command resolves it here: `compile`,
/// `run`, `verify` and `compile --spec` (through [`crate::project::ProjectScopes`]),
/// `lint` and the language server (through [`settings_triton_version`]).
pub fn triton_version(given: Option<TritonVersion>, path: &Path) -> (TritonVersion, VersionSource) {
    resolve_triton_version(given, || configured_triton_version(path))
}

/// [`triton_version`] for settings already read (lint's, perhaps from `--config`): their
/// `triton-version`, else the environment, else 3.6.
pub fn settings_triton_version(settings: &Settings) -> TritonVersion {
    resolve_triton_version(None, || {
        settings
            .triton_version
            .map(|v| (v, settings.root.clone().unwrap_or_default()))
    })
    .0
}

fn resolve_triton_version(
    given: Option<TritonVersion>,
    configured: impl FnOnce() -> Option<(TritonVersion, PathBuf)>,
) -> (TritonVersion, VersionSource) {
    if let Some(v) = given {
        return (v, VersionSource::CommandLine);
    }
    if let Some((v, config)) = configured() {
        return (v, VersionSource::Configuration(config));
    }
    crate::environment::current_environment_version()
        .unwrap_or((TritonVersion::default(), VersionSource::Default))
}

/// A kernel's specialization as the project configuration gives it
/// (`[tool.tritonc.kernels.NAME]`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ConfiguredKernel {
    /// The name the signature's text is registered under in a source map
    /// (`CONFIG [kernels.KERNEL] signature`), so its errors point there.
    pub name: String,
    /// The signature.
    pub signature: String,
    /// `num_warps`, when the table sets it.
    pub num_warps: Option<u32>,
}

/// The signature (and `num_warps`) the configuration closest to `path` gives `kernel`;
/// `None` when it gives none.
pub fn configured_kernel(
    path: &Path,
    kernel: &str,
) -> Result<Option<ConfiguredKernel>, Vec<Diagnostic>> {
    let (settings, config) = discover(path).map_err(|e| vec![config_error(&e)])?;
    let (Some(config), Some(sig)) = (config, settings.kernel_signatures.get(kernel)) else {
        return Ok(None);
    };
    let num_warps = settings.kernel_num_warps.get(kernel).copied();
    if let Some(n) = num_warps {
        check_num_warps(
            n,
            &format!(
                "`num_warps = {n}` in `[kernels.{kernel}]` of {}",
                config.display()
            ),
        )
        .map_err(|d| vec![d])?;
    }
    Ok(Some(ConfiguredKernel {
        name: format!("{} [kernels.{kernel}] signature", config.display()),
        signature: sig.clone(),
        num_warps,
    }))
}

/// Whether the configuration closest to `path` gives every one of `kernels` a signature.
pub fn configures_all(path: &Path, kernels: &[&str]) -> bool {
    discover(path).is_ok_and(|(settings, config)| {
        config.is_some()
            && kernels
                .iter()
                .all(|k| settings.kernel_signatures.contains_key(*k))
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use tritonc_diagnostics::SourceMap;
    use tritonc_spec::KernelScopes;

    /// A kernel Triton 3.9 refuses (block pointers were removed) and 3.6 accepts.
    const KERNEL: &str = "import triton\nimport triton.language as tl\n\n\n@triton.jit\ndef copy_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr):\n    p = tl.make_block_ptr(x_ptr, (n,), (1,), (0,), (BLOCK,), (0,))\n    tl.store(y_ptr + tl.arange(0, BLOCK), tl.load(p, boundary_check=(0,)))\n";

    const SPEC: &str = "kernel = \"k.py\"\ngrid = [1]\n\n[tensors.x]\nshape = [100]\ndtype = \"float32\"\n\n[tensors.y]\nshape = [128]\ndtype = \"float32\"\noutput = true\n\n[args]\nx_ptr = \"x\"\ny_ptr = \"y\"\nn = 100\nBLOCK = 128\n";

    /// A project whose configuration says `triton-version = "3.9"`.
    fn project(name: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!("tritonc-version-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join("tritonc.toml"), "triton-version = \"3.9\"\n").unwrap();
        std::fs::write(dir.join("k.py"), KERNEL).unwrap();
        std::fs::write(dir.join("k.toml"), SPEC).unwrap();
        dir
    }

    /// The lowering error of the spec's kernel under `scopes`, if any.
    fn spec_error(dir: &Path, scopes: &crate::project::ProjectScopes) -> Option<String> {
        let path = dir.join("k.toml");
        let mut sources = SourceMap::new();
        let file = sources.add(path.clone(), SPEC.to_string());
        let spec = tritonc_spec::parse(SPEC, file).unwrap();
        let (launch, _, module) =
            tritonc_spec::prepare_in(&spec, &path, &mut sources, scopes).unwrap();
        tritonc_spec::lower(&spec, &launch, &module)
            .err()
            .map(|ds| ds[0].message.clone())
    }

    #[test]
    fn run_and_verify_specialize_for_the_version_compile_uses() {
        let dir = project("spec");
        let kernel = dir.join("k.py");
        assert_eq!(triton_version(None, &kernel).0, TritonVersion::V3_9);
        let scopes = crate::project::ProjectScopes::default();
        assert_eq!(scopes.triton_version(&kernel), TritonVersion::V3_9);
        let e = spec_error(&dir, &scopes).expect("3.9 refuses block pointers");
        assert!(e.contains("removed in Triton 3.9"), "{e}");
        // `--triton-version 3.6` wins over the configuration, as for `compile`.
        let given = crate::project::ProjectScopes {
            triton_version: Some(TritonVersion::V3_6),
        };
        assert_eq!(spec_error(&dir, &given), None);
        std::fs::remove_dir_all(dir).unwrap();
    }

    #[test]
    fn lint_lowers_with_the_version_compile_uses() {
        let dir = project("lint");
        // With the kernel's signature configured, lint lowers it as `compile` would (no
        // generic fallback, which would take the unknown pointer types as assumptions).
        std::fs::write(
            dir.join("tritonc.toml"),
            "triton-version = \"3.9\"\n\n[kernels.copy_kernel]\nsignature = \"*fp32, *fp32, i32, 128\"\n",
        )
        .unwrap();
        let path = dir.join("k.py");
        let mut sources = SourceMap::new();
        let file = sources.add(path.clone(), KERNEL.to_string());
        let not_analysed = |settings: &Settings| {
            crate::check::check_file(file, &sources, &path, settings, None)
                .findings
                .into_iter()
                .filter(|f| f.diagnostic.code.0 == "TRI001")
                .flat_map(|f| f.diagnostic.notes)
                .collect::<Vec<_>>()
        };
        let (settings, _) = discover(&path).unwrap();
        assert_eq!(settings_triton_version(&settings), TritonVersion::V3_9);
        let notes = not_analysed(&settings);
        assert!(
            notes.iter().any(|n| n.contains("removed in Triton 3.9")),
            "{notes:?}"
        );
        let mut v36 = settings.clone();
        v36.triton_version = Some(TritonVersion::V3_6);
        assert_eq!(not_analysed(&v36), Vec::<String>::new());
        std::fs::remove_dir_all(dir).unwrap();
    }
}
