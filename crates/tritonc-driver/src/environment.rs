//! The Triton version of the project's Python environment.
//!
//! Without `--triton-version` or a configured `triton-version`, tritonc compiles for the
//! Triton a project runs: the `triton` package installed in the active virtual
//! environment (`$VIRTUAL_ENV`), else in `./.venv`; failing that, the Triton the
//! installed torch pins (torch 2.10–2.11 pin 3.6, 2.12–2.13 pin 3.7, 2.14 pins 3.8, 2.15
//! pins 3.9); else 3.6. Installed versions are read from the packages' metadata
//! directories (`site-packages/triton-3.7.0.dist-info/METADATA`), without running Python.

use std::fmt;
use std::path::{Path, PathBuf};

use tritonc_sema::TritonVersion;

/// Where the Triton version in effect comes from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum VersionSource {
    /// `--triton-version`.
    CommandLine,
    /// `triton-version` in this configuration file.
    Configuration(PathBuf),
    /// The `triton` package (this release) installed in this environment.
    TritonPackage { env: PathBuf, release: String },
    /// The Triton the `torch` package (this release) installed in this environment pins.
    TorchPin { env: PathBuf, release: String },
    /// Nothing says: the default.
    Default,
}

impl fmt::Display for VersionSource {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            VersionSource::CommandLine => f.write_str("--triton-version"),
            VersionSource::Configuration(p) => write!(f, "triton-version in {}", p.display()),
            VersionSource::TritonPackage { env, release } => {
                write!(f, "triton {release} installed in {}", env.display())
            }
            VersionSource::TorchPin { env, release } => {
                write!(
                    f,
                    "the Triton torch {release} pins, installed in {}",
                    env.display()
                )
            }
            VersionSource::Default => f.write_str("the default"),
        }
    }
}

/// The project's environment: `$VIRTUAL_ENV` (given as `virtual_env`) when set, else
/// `.venv` in `cwd` when it exists.
pub fn environment(virtual_env: Option<&Path>, cwd: &Path) -> Option<PathBuf> {
    match virtual_env.filter(|p| !p.as_os_str().is_empty()) {
        Some(active) => Some(active.to_path_buf()),
        None => Some(cwd.join(".venv")).filter(|p| p.is_dir()),
    }
}

/// The Triton version the environment `env` gives, and which of its packages says so:
/// its `triton` package when tritonc knows that version, else the pin of its `torch`.
pub fn environment_version(env: &Path) -> Option<(TritonVersion, VersionSource)> {
    if let Some(release) = installed_release(env, "triton") {
        if let Ok(v) = release.parse::<TritonVersion>() {
            let env = env.to_path_buf();
            return Some((v, VersionSource::TritonPackage { env, release }));
        }
    }
    let release = installed_release(env, "torch")?;
    let v = torch_pin(&release)?;
    let env = env.to_path_buf();
    Some((v, VersionSource::TorchPin { env, release }))
}

/// The Triton version of the process's environment (`$VIRTUAL_ENV`, else `./.venv`).
pub fn current_environment_version() -> Option<(TritonVersion, VersionSource)> {
    let virtual_env = std::env::var_os("VIRTUAL_ENV").map(PathBuf::from);
    let cwd = std::env::current_dir().ok()?;
    environment_version(&environment(virtual_env.as_deref(), &cwd)?)
}

/// The Triton version torch `release` pins (`2.12.0+cu126` → 3.7), for the torch
/// releases whose pins tritonc knows.
pub fn torch_pin(release: &str) -> Option<TritonVersion> {
    let mut parts = release.split(['.', '+']);
    let major: u32 = parts.next()?.parse().ok()?;
    let minor: u32 = parts
        .next()?
        .trim_end_matches(|c: char| !c.is_ascii_digit())
        .parse()
        .ok()?;
    match (major, minor) {
        (2, 10 | 11) => Some(TritonVersion::V3_6),
        (2, 12 | 13) => Some(TritonVersion::V3_7),
        (2, 14) => Some(TritonVersion::V3_8),
        (2, 15) => Some(TritonVersion::V3_9),
        _ => None,
    }
}

/// The release of `package` installed in the environment `env`: the `Version:` of its
/// `*.dist-info/METADATA` (or `*.egg-info/PKG-INFO`) in the environment's
/// site-packages (`lib/python3.X/site-packages`, or `Lib/site-packages`).
pub fn installed_release(env: &Path, package: &str) -> Option<String> {
    for site in site_packages(env) {
        let Ok(entries) = std::fs::read_dir(&site) else {
            continue;
        };
        let mut names: Vec<String> = entries
            .filter_map(Result::ok)
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .collect();
        names.sort();
        for name in names {
            let (stem, metadata) = if let Some(s) = name.strip_suffix(".dist-info") {
                (s, "METADATA")
            } else if let Some(s) = name.strip_suffix(".egg-info") {
                (s, "PKG-INFO")
            } else {
                continue;
            };
            // `triton-3.7.0`: the distribution name, normalized as the wheel spec does.
            let Some((dist, _)) = stem.split_once('-') else {
                continue;
            };
            if !dist.replace(['-', '.'], "_").eq_ignore_ascii_case(package) {
                continue;
            }
            let text = std::fs::read_to_string(site.join(&name).join(metadata)).ok();
            let version = text.as_deref().and_then(|t| {
                t.lines()
                    .take_while(|l| !l.is_empty())
                    .find_map(|l| l.strip_prefix("Version:"))
                    .map(|v| v.trim().to_string())
            });
            // The directory's name carries the version too.
            let from_name = stem.split_once('-').map(|(_, v)| v.to_string());
            if let Some(v) = version.or(from_name).filter(|v| !v.is_empty()) {
                return Some(v);
            }
        }
    }
    None
}

/// The site-packages directories of `env`.
fn site_packages(env: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    if let Ok(entries) = std::fs::read_dir(env.join("lib")) {
        let mut pythons: Vec<PathBuf> = entries
            .filter_map(Result::ok)
            .filter(|e| e.file_name().to_string_lossy().starts_with("python"))
            .map(|e| e.path().join("site-packages"))
            .filter(|p| p.is_dir())
            .collect();
        pythons.sort();
        out.extend(pythons);
    }
    let windows = env.join("Lib").join("site-packages");
    if windows.is_dir() {
        out.push(windows);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A fake environment under `root` with `packages` (name, release) installed.
    fn fake_env(root: &Path, packages: &[(&str, &str)]) -> PathBuf {
        let site = root.join("lib/python3.12/site-packages");
        std::fs::create_dir_all(&site).unwrap();
        for (name, release) in packages {
            let info = site.join(format!("{name}-{release}.dist-info"));
            std::fs::create_dir_all(&info).unwrap();
            std::fs::write(
                info.join("METADATA"),
                format!("Metadata-Version: 2.1\nName: {name}\nVersion: {release}\n\nbody\n"),
            )
            .unwrap();
        }
        root.to_path_buf()
    }

    fn scratch(name: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!("tritonc-env-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        dir
    }

    #[test]
    fn torch_pins() {
        assert_eq!(torch_pin("2.10.0"), Some(TritonVersion::V3_6));
        assert_eq!(torch_pin("2.11.1+cu128"), Some(TritonVersion::V3_6));
        assert_eq!(torch_pin("2.12.0"), Some(TritonVersion::V3_7));
        assert_eq!(torch_pin("2.13.0rc1"), Some(TritonVersion::V3_7));
        assert_eq!(torch_pin("2.14.0"), Some(TritonVersion::V3_8));
        assert_eq!(torch_pin("2.15.0.dev20270101"), Some(TritonVersion::V3_9));
        assert_eq!(torch_pin("2.9.1"), None);
        assert_eq!(torch_pin("3.0.0"), None);
    }

    #[test]
    fn the_triton_package_wins_over_the_torch_pin() {
        let dir = scratch("both");
        let env = fake_env(
            &dir.join("venv"),
            &[("torch", "2.12.0"), ("triton", "3.8.1")],
        );
        let (v, source) = environment_version(&env).unwrap();
        assert_eq!(v, TritonVersion::V3_8);
        assert_eq!(
            source,
            VersionSource::TritonPackage {
                env,
                release: "3.8.1".into()
            }
        );
        std::fs::remove_dir_all(dir).unwrap();
    }

    #[test]
    fn torch_alone_gives_its_pin() {
        let dir = scratch("torch");
        let env = fake_env(&dir.join(".venv"), &[("torch", "2.14.0+cu128")]);
        let found = environment(None, &dir).unwrap();
        assert_eq!(found, env);
        let (v, source) = environment_version(&found).unwrap();
        assert_eq!(v, TritonVersion::V3_8);
        assert_eq!(
            source.to_string(),
            format!(
                "the Triton torch 2.14.0+cu128 pins, installed in {}",
                env.display()
            )
        );
        std::fs::remove_dir_all(dir).unwrap();
    }

    #[test]
    fn virtual_env_comes_before_dot_venv() {
        let dir = scratch("order");
        fake_env(&dir.join(".venv"), &[("triton", "3.6.0")]);
        let active = fake_env(&dir.join("active"), &[("triton", "3.9.0")]);
        let env = environment(Some(&active), &dir).unwrap();
        assert_eq!(env, active);
        assert_eq!(environment_version(&env).unwrap().0, TritonVersion::V3_9);
        std::fs::remove_dir_all(dir).unwrap();
    }

    #[test]
    fn unknown_versions_and_empty_environments_say_nothing() {
        let dir = scratch("unknown");
        let old = fake_env(&dir.join("old"), &[("triton", "3.4.0"), ("torch", "2.8.0")]);
        let empty = fake_env(&dir.join("empty"), &[("numpy", "2.0.0")]);
        assert_eq!(environment_version(&old), None);
        assert_eq!(environment_version(&empty), None);
        assert_eq!(environment(None, &dir.join("nowhere")), None);
        std::fs::remove_dir_all(dir).unwrap();
    }

    #[test]
    fn an_unknown_triton_falls_back_to_the_torch_pin() {
        let dir = scratch("fallback");
        let env = fake_env(&dir.join("e"), &[("torch", "2.15.0"), ("triton", "3.10.0")]);
        assert_eq!(environment_version(&env).unwrap().0, TritonVersion::V3_9);
        std::fs::remove_dir_all(dir).unwrap();
    }
}
