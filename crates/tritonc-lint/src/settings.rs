//! Configuration: `[tool.tritonc.lint]` in `pyproject.toml` or `[lint]` in `tritonc.toml`,
//! found like ruff finds its configuration (the closest file walking up from the path
//! being checked; `tritonc.toml` wins over `pyproject.toml` in the same directory, and a
//! `pyproject.toml` without a `[tool.tritonc]` table is skipped).
//!
//! ```toml
//! [tool.tritonc.lint]
//! select = ["TRI1", "TRI201"]        # code prefixes; default: every rule
//! ignore = ["TRI203"]
//! per-file-ignores = { "tests/*" = ["TRI101"] }
//!
//! [tool.tritonc.lint.int32-offset-overflow]
//! max-tensor-elements = 4294967296
//!
//! [tool.tritonc.kernels.softmax_kernel]
//! signature = "*fp16, *fp16, i32, i32, 1024"
//! ```

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::Deserialize;

/// The default of `max-tensor-elements`: 2^32 elements (logits of 32k tokens × 128k vocab).
pub const DEFAULT_MAX_TENSOR_ELEMENTS: u64 = 1 << 32;

/// Resolved lint settings.
#[derive(Debug, Clone, PartialEq)]
pub struct Settings {
    /// Code prefixes to enable (empty: all).
    pub select: Vec<String>,
    /// Code prefixes to disable.
    pub ignore: Vec<String>,
    /// Glob pattern → code prefixes ignored in matching files.
    pub per_file_ignores: Vec<(String, Vec<String>)>,
    /// TRI203: the largest tensor, in elements, kernels are launched on.
    pub max_tensor_elements: u64,
    /// Kernel name → launch signature.
    pub kernel_signatures: BTreeMap<String, String>,
    /// Kernel name → warps per program to compile it with (`tritonc compile`).
    pub kernel_num_warps: BTreeMap<String, u32>,
    /// The directory the configuration was found in (per-file-ignores are relative to it).
    pub root: Option<PathBuf>,
}

impl Default for Settings {
    fn default() -> Self {
        Settings {
            select: Vec::new(),
            ignore: Vec::new(),
            per_file_ignores: Vec::new(),
            max_tensor_elements: DEFAULT_MAX_TENSOR_ELEMENTS,
            kernel_signatures: BTreeMap::new(),
            kernel_num_warps: BTreeMap::new(),
            root: None,
        }
    }
}

#[derive(Debug, Default, Deserialize)]
#[serde(rename_all = "kebab-case")]
struct LintTable {
    select: Option<Vec<String>>,
    ignore: Option<Vec<String>>,
    extend_ignore: Option<Vec<String>>,
    per_file_ignores: Option<BTreeMap<String, Vec<String>>>,
    #[serde(rename = "int32-offset-overflow")]
    int32_offset_overflow: Option<OverflowTable>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(rename_all = "kebab-case")]
struct OverflowTable {
    max_tensor_elements: Option<u64>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct KernelTable {
    signature: Option<String>,
    num_warps: Option<u32>,
}

#[derive(Debug, Default, Deserialize)]
struct TritoncTable {
    lint: Option<LintTable>,
    kernels: Option<BTreeMap<String, KernelTable>>,
}

/// A configuration file that could not be read.
#[derive(Debug, Clone, PartialEq)]
pub struct ConfigError {
    /// The file.
    pub path: PathBuf,
    /// What is wrong.
    pub message: String,
}

impl Settings {
    /// Whether `code` is enabled for `path`.
    pub fn enabled(&self, code: &str, path: &Path) -> bool {
        let selected =
            self.select.is_empty() || self.select.iter().any(|p| code.starts_with(p.as_str()));
        if !selected || self.ignore.iter().any(|p| code.starts_with(p.as_str())) {
            return false;
        }
        let rel = self
            .root
            .as_ref()
            .and_then(|r| path.strip_prefix(r).ok())
            .unwrap_or(path);
        let rel = rel.to_string_lossy().replace('\\', "/");
        !self.per_file_ignores.iter().any(|(pat, codes)| {
            glob_match(pat, &rel) && codes.iter().any(|p| code.starts_with(p.as_str()))
        })
    }

    /// Parses the text of `path` (a `pyproject.toml` or `tritonc.toml`). `Ok(None)` for a
    /// `pyproject.toml` without a `[tool.tritonc]` table.
    pub fn from_file(path: &Path, text: &str) -> Result<Option<Settings>, ConfigError> {
        let err = |message: String| ConfigError {
            path: path.to_path_buf(),
            message,
        };
        let value: toml::Value = toml::from_str(text).map_err(|e| err(e.to_string()))?;
        let is_pyproject = path.file_name().is_some_and(|n| n == "pyproject.toml");
        let table = if is_pyproject {
            match value.get("tool").and_then(|t| t.get("tritonc")) {
                Some(t) => t.clone(),
                None => return Ok(None),
            }
        } else {
            value
        };
        let parsed: TritoncTable = table
            .try_into()
            .map_err(|e: toml::de::Error| err(e.to_string()))?;
        let lint = parsed.lint.unwrap_or_default();
        let mut s = Settings {
            root: path.parent().map(Path::to_path_buf),
            ..Settings::default()
        };
        s.select = lint.select.unwrap_or_default();
        s.ignore = lint.ignore.unwrap_or_default();
        s.ignore.extend(lint.extend_ignore.unwrap_or_default());
        s.per_file_ignores = lint
            .per_file_ignores
            .unwrap_or_default()
            .into_iter()
            .collect();
        for (pattern, _) in &s.per_file_ignores {
            glob_matcher(pattern).map_err(|e| {
                err(format!(
                    "per-file-ignores: invalid pattern `{pattern}`: {e}"
                ))
            })?;
        }
        if let Some(m) = lint
            .int32_offset_overflow
            .and_then(|o| o.max_tensor_elements)
        {
            s.max_tensor_elements = m;
        }
        for (name, k) in parsed.kernels.unwrap_or_default() {
            if let Some(n) = k.num_warps {
                s.kernel_num_warps.insert(name.clone(), n);
            }
            if let Some(sig) = k.signature {
                s.kernel_signatures.insert(name, sig);
            }
        }
        Ok(Some(s))
    }

    /// The settings for files under `start`: the closest configuration walking up, or the
    /// defaults when there is none.
    pub fn discover(start: &Path) -> Result<(Settings, Option<PathBuf>), ConfigError> {
        let start = if start.is_file() {
            // A bare file name's parent is "": the current directory.
            match start.parent() {
                Some(parent) if !parent.as_os_str().is_empty() => parent.to_path_buf(),
                _ => PathBuf::from("."),
            }
        } else {
            start.to_path_buf()
        };
        let abs = std::fs::canonicalize(&start).unwrap_or(start);
        for dir in abs.ancestors() {
            for name in ["tritonc.toml", "pyproject.toml"] {
                let candidate = dir.join(name);
                if let Ok(text) = std::fs::read_to_string(&candidate) {
                    if let Some(s) = Settings::from_file(&candidate, &text)? {
                        return Ok((s, Some(candidate)));
                    }
                }
            }
        }
        Ok((Settings::default(), None))
    }
}

/// The matcher of a `per-file-ignores` pattern: `*` and `?` within a path component,
/// `**` across components, `[...]` classes, as globset reads them with
/// `literal_separator`.
fn glob_matcher(pattern: &str) -> Result<globset::GlobMatcher, globset::Error> {
    Ok(globset::GlobBuilder::new(pattern)
        .literal_separator(true)
        .build()?
        .compile_matcher())
}

/// Whether `path` (relative, `/`-separated) matches `pattern`; a pattern without `/`
/// also matches the file name alone (`*.py` matches `deep/dir/file.py`, as in ruff). An
/// invalid pattern matches nothing (configurations are checked when read).
pub fn glob_match(pattern: &str, path: &str) -> bool {
    let Ok(matcher) = glob_matcher(pattern) else {
        return false;
    };
    matcher.is_match(path)
        || (!pattern.contains('/')
            && path
                .rsplit('/')
                .next()
                .is_some_and(|name| matcher.is_match(name)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pyproject_table_is_read_and_codes_filtered() {
        let text = r#"
[tool.tritonc.lint]
select = ["TRI1", "TRI2"]
ignore = ["TRI203"]
per-file-ignores = { "tests/*.py" = ["TRI101"] }
[tool.tritonc.lint.int32-offset-overflow]
max-tensor-elements = 1000
[tool.tritonc.kernels.k]
signature = "*fp16, 64"
num_warps = 8
"#;
        let s = Settings::from_file(Path::new("/p/pyproject.toml"), text)
            .unwrap()
            .unwrap();
        assert!(s.enabled("TRI101", Path::new("/p/src/a.py")));
        assert!(!s.enabled("TRI101", Path::new("/p/tests/a.py")));
        assert!(!s.enabled("TRI203", Path::new("/p/src/a.py")));
        assert!(!s.enabled("TRI304", Path::new("/p/src/a.py")));
        assert_eq!(s.max_tensor_elements, 1000);
        assert_eq!(s.kernel_signatures["k"], "*fp16, 64");
        assert_eq!(s.kernel_num_warps["k"], 8);
    }

    #[test]
    fn an_unknown_kernel_key_is_a_configuration_error() {
        let text = "[kernels.k]\nsignature = \"*fp16, 64\"\nnum_warp = 8\n";
        let e = Settings::from_file(Path::new("/p/tritonc.toml"), text).unwrap_err();
        assert!(e.message.contains("num_warp"), "{}", e.message);
    }

    #[test]
    fn pyproject_without_table_is_skipped() {
        assert!(
            Settings::from_file(Path::new("pyproject.toml"), "[tool.ruff]\n")
                .unwrap()
                .is_none()
        );
    }

    #[test]
    fn an_invalid_per_file_ignores_pattern_is_a_configuration_error() {
        let text = "[lint]\nper-file-ignores = { \"tests/[\" = [\"TRI101\"] }\n";
        let e = Settings::from_file(Path::new("/p/tritonc.toml"), text).unwrap_err();
        assert!(
            e.message.contains("invalid pattern `tests/[`"),
            "{}",
            e.message
        );
    }

    #[test]
    fn globs() {
        assert!(glob_match("tests/*.py", "tests/a.py"));
        assert!(!glob_match("tests/*.py", "tests/x/a.py"));
        assert!(glob_match("**/gen_*.py", "a/b/gen_x.py"));
        assert!(glob_match("*.py", "deep/dir/file.py"));
        assert!(glob_match("kernels/[ab].py", "kernels/a.py"));
        assert!(!glob_match("kernels/[ab].py", "kernels/c.py"));
        assert!(!glob_match("tests/[", "tests/["));
    }
}
