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
