//! Configuration: `[tool.tritonc.lint]` in `pyproject.toml` or `[lint]` in `tritonc.toml`,
//! found like ruff finds its configuration (the closest file walking up from the path
//! being checked; `tritonc.toml` wins over `pyproject.toml` in the same directory, and a
//! `pyproject.toml` without a `[tool.tritonc]` table is skipped).
//!
//! ```toml
//! [tool.tritonc.lint]
//! select = ["TRI1", "TRI201"]        # code prefixes; default: every rule
//! extend-select = ["TRI304"]
//! ignore = ["TRI203"]
//! per-file-ignores = { "tests/*" = ["TRI101"] }
//!
//! [tool.tritonc.lint.int32-offset-overflow]
//! max-tensor-elements = 4294967296   # default: unset (see TRI203)
//!
//! [tool.tritonc.kernels.softmax_kernel]
//! signature = "*fp16, *fp16, i32, i32, 1024"
//! ```

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::Deserialize;

/// Resolved lint settings.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Settings {
    /// Code prefixes to enable (empty: all).
    pub select: Vec<String>,
    /// Code prefixes to enable in addition to `select`.
    pub extend_select: Vec<String>,
    /// Code prefixes to disable.
    pub ignore: Vec<String>,
    /// The command line's selection, laid over the configuration's (see
    /// [`Settings::enabled`]).
    pub overrides: Selection,
    /// Glob pattern → code prefixes ignored in matching files.
    pub per_file_ignores: Vec<(String, Vec<String>)>,
    /// TRI203: the largest tensor, in elements, kernels are launched on, when the
    /// configuration says it; unset, each kernel's own code says whether its offsets can
    /// pass int32 (see the rule).
    pub max_tensor_elements: Option<u64>,
    /// Kernel name → launch signature.
    pub kernel_signatures: BTreeMap<String, String>,
    /// Kernel name → warps per program to compile it with (`tritonc compile`).
    pub kernel_num_warps: BTreeMap<String, u32>,
    /// `triton-version`: the Triton language version kernels are compiled against (unset:
    /// 3.6, or what the command line says).
    pub triton_version: Option<tritonc_sema::TritonVersion>,
    /// `triton-versions`: the Triton versions the project supports, a range from the
    /// oldest listed to the newest (TRI401 compares them; empty: not declared).
    pub triton_versions: Vec<tritonc_sema::TritonVersion>,
    /// The directory the configuration was found in (per-file-ignores are relative to it).
    pub root: Option<PathBuf>,
}

/// One layer of rule selection (the configuration's, or the command line's), resolved as
/// ruff resolves it: `select` (when given) replaces what the layers below selected,
/// `extend-select` and `ignore` adjust it, and within a layer the most specific selector
/// matching a code decides (`TRI101` over `TRI1` over `TRI` over `ALL`; `ignore` wins a
/// tie).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Selection {
    /// Selectors that replace the selection below (`None`: keep it).
    pub select: Option<Vec<String>>,
    /// Selectors to enable on top.
    pub extend_select: Vec<String>,
    /// Selectors to disable.
    pub ignore: Vec<String>,
}

impl Selection {
    /// Whether `code` is enabled after this layer, given whether it was before.
    fn apply(&self, code: &str, before: bool) -> bool {
        let specificity = |selector: &String| -> Option<usize> {
            if selector == "ALL" {
                Some(0)
            } else {
                code.starts_with(selector.as_str())
                    .then_some(selector.len())
            }
        };
        let enable = self
            .select
            .iter()
            .flatten()
            .chain(&self.extend_select)
            .filter_map(specificity)
            .max();
        let disable = self.ignore.iter().filter_map(specificity).max();
        let decided = match (enable, disable) {
            (Some(e), Some(d)) => Some(e > d),
            (Some(_), None) => Some(true),
            (None, Some(_)) => Some(false),
            (None, None) => None,
        };
        match (decided, &self.select) {
            (Some(on), _) => on,
            (None, Some(_)) => false,
            (None, None) => before,
        }
    }
}

/// Every lint code a selector can name (`TRI001`, `TRI002`, the rules).
pub fn lint_codes() -> Vec<&'static str> {
    crate::registry::REGISTRY
        .codes
        .iter()
        .map(|d| d.code.0)
        .collect()
}

/// Checks a rule selector of `--select`, `--ignore`, `select`, `ignore`…: `ALL`, or a
/// lint code or a prefix of one that starts with `TRI` (`TRI`, `TRI1`, `TRI10`, `TRI101`),
/// in any case. Returns it upper-cased, or an error that names it and lists the valid
/// ones.
pub fn parse_selector(selector: &str) -> Result<String, String> {
    let normalized = selector.trim().to_ascii_uppercase();
    let codes = lint_codes();
    if normalized == "ALL"
        || (normalized.starts_with("TRI") && codes.iter().any(|c| c.starts_with(&normalized)))
    {
        return Ok(normalized);
    }
    Err(format!(
        "unknown rule selector `{selector}`; expected `ALL`, a code ({}) or a prefix of one \
         (`TRI`, `TRI1`, `TRI20`)",
        codes.join(", ")
    ))
}

#[derive(Debug, Default, Deserialize)]
#[serde(rename_all = "kebab-case", deny_unknown_fields)]
struct LintTable {
    select: Option<Vec<String>>,
    extend_select: Option<Vec<String>>,
    ignore: Option<Vec<String>>,
    extend_ignore: Option<Vec<String>>,
    per_file_ignores: Option<BTreeMap<String, Vec<String>>>,
    #[serde(rename = "int32-offset-overflow")]
    int32_offset_overflow: Option<OverflowTable>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(rename_all = "kebab-case", deny_unknown_fields)]
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
#[serde(deny_unknown_fields)]
struct TritoncTable {
    #[serde(rename = "triton-version")]
    triton_version: Option<String>,
    #[serde(rename = "triton-versions")]
    triton_versions: Option<Vec<String>>,
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
    /// Whether `code` is enabled for `path`: every code to begin with, then the
    /// configuration's selection (`select`, empty for none given; `extend-select`;
    /// `ignore`), then the command line's ([`Selection`] says how a layer applies), then
    /// `per-file-ignores`.
    pub fn enabled(&self, code: &str, path: &Path) -> bool {
        let configured = Selection {
            select: (!self.select.is_empty()).then(|| self.select.clone()),
            extend_select: self.extend_select.clone(),
            ignore: self.ignore.clone(),
        };
        if !self.overrides.apply(code, configured.apply(code, true)) {
            return false;
        }
        let rel = self
            .root
            .as_ref()
            .and_then(|r| path.strip_prefix(r).ok())
            .unwrap_or(path);
        let rel = rel.to_string_lossy().replace('\\', "/");
        !self.per_file_ignores.iter().any(|(pat, codes)| {
            glob_match(pat, &rel)
                && codes
                    .iter()
                    .any(|p| p == "ALL" || code.starts_with(p.as_str()))
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
        let prefix = if is_pyproject { "tool.tritonc" } else { "" };
        check_keys(
            &table,
            prefix,
            &["triton-version", "triton-versions", "lint", "kernels"],
        )
        .map_err(err)?;
        if let Some(lint) = table.get("lint") {
            let name = join_key(prefix, "lint");
            check_keys(lint, &name, LINT_KEYS).map_err(err)?;
            if let Some(o) = lint.get("int32-offset-overflow") {
                let name = join_key(&name, "int32-offset-overflow");
                check_keys(o, &name, &["max-tensor-elements"]).map_err(err)?;
            }
        }
        let parsed: TritoncTable = table
            .try_into()
            .map_err(|e: toml::de::Error| err(e.to_string()))?;
        let lint = parsed.lint.unwrap_or_default();
        let triton_version = match parsed.triton_version {
            None => None,
            Some(v) => Some(
                v.parse::<tritonc_sema::TritonVersion>()
                    .map_err(|e| err(format!("triton-version: {e}")))?,
            ),
        };
        let triton_versions = parsed
            .triton_versions
            .unwrap_or_default()
            .iter()
            .map(|v| {
                v.parse::<tritonc_sema::TritonVersion>()
                    .map_err(|e| err(format!("triton-versions: {e}")))
            })
            .collect::<Result<Vec<_>, ConfigError>>()?;
        let mut s = Settings {
            root: path.parent().map(Path::to_path_buf),
            triton_version,
            triton_versions,
            ..Settings::default()
        };
        let selectors = |key: &str, list: Option<Vec<String>>| {
            list.unwrap_or_default()
                .iter()
                .map(|c| parse_selector(c).map_err(|e| err(format!("{key}: {e}"))))
                .collect::<Result<Vec<String>, ConfigError>>()
        };
        s.select = selectors("select", lint.select)?;
        s.extend_select = selectors("extend-select", lint.extend_select)?;
        s.ignore = selectors("ignore", lint.ignore)?;
        s.ignore
            .extend(selectors("extend-ignore", lint.extend_ignore)?);
        for (pattern, codes) in lint.per_file_ignores.unwrap_or_default() {
            let codes = selectors(&format!("per-file-ignores `{pattern}`"), Some(codes))?;
            s.per_file_ignores.push((pattern, codes));
        }
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
            s.max_tensor_elements = Some(m);
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

/// The keys of `[tool.tritonc.lint]`.
const LINT_KEYS: &[&str] = &[
    "select",
    "extend-select",
    "ignore",
    "extend-ignore",
    "per-file-ignores",
    "int32-offset-overflow",
];

fn join_key(prefix: &str, key: &str) -> String {
    if prefix.is_empty() {
        key.to_string()
    } else {
        format!("{prefix}.{key}")
    }
}

/// An error naming the first key of `table` not in `allowed`, and listing those (a
/// misspelt key would otherwise be ignored). Values that are not tables are left to the
/// typed parse.
fn check_keys(table: &toml::Value, name: &str, allowed: &[&str]) -> Result<(), String> {
    let Some(table) = table.as_table() else {
        return Ok(());
    };
    match table.keys().find(|k| !allowed.contains(&k.as_str())) {
        None => Ok(()),
        Some(key) => {
            let list: Vec<String> = allowed.iter().map(|k| format!("`{k}`")).collect();
            let location = if name.is_empty() {
                "at the top level".to_string()
            } else {
                format!("in `[{name}]`")
            };
            Err(format!(
                "unknown key `{key}` {location}; expected one of {}",
                list.join(", ")
            ))
        }
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
        assert_eq!(s.max_tensor_elements, Some(1000));
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
    fn unknown_keys_are_errors_that_list_the_valid_ones() {
        let e = Settings::from_file(
            Path::new("/p/pyproject.toml"),
            "[tool.tritonc.lint]\nselct = [\"TRI1\"]\n",
        )
        .unwrap_err();
        assert_eq!(
            e.message,
            "unknown key `selct` in `[tool.tritonc.lint]`; expected one of `select`, \
             `extend-select`, `ignore`, `extend-ignore`, `per-file-ignores`, \
             `int32-offset-overflow`"
        );
        let e = Settings::from_file(Path::new("/p/tritonc.toml"), "[lnt]\n").unwrap_err();
        assert_eq!(
            e.message,
            "unknown key `lnt` at the top level; expected one of `triton-version`, \
             `triton-versions`, `lint`, `kernels`"
        );
        let e = Settings::from_file(
            Path::new("/p/tritonc.toml"),
            "[lint.int32-offset-overflow]\nmax-elements = 5\n",
        )
        .unwrap_err();
        assert!(
            e.message.starts_with(
                "unknown key `max-elements` in `[lint.int32-offset-overflow]`; expected one of \
                 `max-tensor-elements`"
            ),
            "{}",
            e.message
        );
        // Other tools' tables in pyproject.toml are not ours to check.
        assert!(Settings::from_file(
            Path::new("/p/pyproject.toml"),
            "[tool.ruff]\nfoo = 1\n[tool.tritonc.lint]\nselect = [\"TRI1\"]\n",
        )
        .is_ok());
    }

    #[test]
    fn unknown_rule_codes_in_the_configuration_are_errors() {
        for (key, text) in [
            ("select", "select = [\"TRI1\", \"TRI999\"]"),
            ("extend-select", "extend-select = [\"TRI999\"]"),
            ("ignore", "ignore = [\"TRI999\"]"),
            ("extend-ignore", "extend-ignore = [\"TRI999\"]"),
            (
                "per-file-ignores `tests/*`",
                "per-file-ignores = { \"tests/*\" = [\"TRI999\"] }",
            ),
        ] {
            let e = Settings::from_file(Path::new("/p/tritonc.toml"), &format!("[lint]\n{text}\n"))
                .unwrap_err();
            assert!(
                e.message.starts_with(&format!(
                    "{key}: unknown rule selector `TRI999`; expected `ALL`"
                )),
                "{}",
                e.message
            );
            assert!(e.message.contains("TRI101, TRI102"), "{}", e.message);
        }
        // A front-end code cannot be selected: only lint codes are filtered.
        let e = Settings::from_file(
            Path::new("/p/tritonc.toml"),
            "[lint]\nignore = [\"E0101\"]\n",
        )
        .unwrap_err();
        assert!(e.message.contains("`E0101`"), "{}", e.message);
    }

    #[test]
    fn selectors() {
        assert_eq!(parse_selector(" tri1 ").unwrap(), "TRI1");
        assert_eq!(parse_selector("all").unwrap(), "ALL");
        for ok in ["TRI", "TRI0", "TRI00", "TRI002", "TRI30", "TRI304"] {
            assert_eq!(parse_selector(ok).unwrap(), ok);
        }
        for bad in [
            "",
            "T",
            "TR",
            "TRI5",
            "TRI1011",
            "TRI105",
            "E0101",
            "unmasked-block-access",
        ] {
            assert!(parse_selector(bad).is_err(), "{bad}");
        }
    }

    fn on(s: &Settings, code: &str) -> bool {
        s.enabled(code, Path::new("/p/a.py"))
    }

    #[test]
    fn selection_follows_ruffs_layers_and_specificity() {
        let v = |c: &[&str]| c.iter().map(|c| c.to_string()).collect::<Vec<_>>();
        // Within a layer the more specific selector wins, in either direction.
        let s = Settings {
            select: v(&["TRI101"]),
            ignore: v(&["TRI1"]),
            ..Settings::default()
        };
        assert!(on(&s, "TRI101") && !on(&s, "TRI102") && !on(&s, "TRI203"));
        let s = Settings {
            select: v(&["TRI1"]),
            ignore: v(&["TRI101"]),
            ..Settings::default()
        };
        assert!(!on(&s, "TRI101") && on(&s, "TRI102") && !on(&s, "TRI203"));
        // extend-select adds to the configured select; ALL selects everything.
        let s = Settings {
            select: v(&["TRI1"]),
            extend_select: v(&["TRI203"]),
            ..Settings::default()
        };
        assert!(on(&s, "TRI101") && on(&s, "TRI203") && !on(&s, "TRI204"));
        let s = Settings {
            select: v(&["ALL"]),
            ignore: v(&["TRI2"]),
            ..Settings::default()
        };
        assert!(on(&s, "TRI002") && on(&s, "TRI304") && !on(&s, "TRI203"));
        // The command line's layer: extend-select re-enables what the configuration
        // ignored; ignore disables what it selected; select replaces it, ignores included.
        let configured = Settings {
            select: v(&["TRI101"]),
            ignore: v(&["TRI203"]),
            ..Settings::default()
        };
        let with = |overrides: Selection| Settings {
            overrides,
            ..configured.clone()
        };
        let s = with(Selection {
            extend_select: v(&["TRI203"]),
            ..Selection::default()
        });
        assert!(on(&s, "TRI101") && on(&s, "TRI203") && !on(&s, "TRI102"));
        let s = with(Selection {
            ignore: v(&["TRI1"]),
            ..Selection::default()
        });
        assert!(!on(&s, "TRI101"));
        let s = with(Selection {
            select: Some(v(&["TRI2"])),
            ..Selection::default()
        });
        assert!(!on(&s, "TRI101") && on(&s, "TRI203") && on(&s, "TRI201"));
        // per-file-ignores apply last.
        let s = Settings {
            root: Some("/p".into()),
            per_file_ignores: vec![("a.py".into(), v(&["ALL"]))],
            overrides: Selection {
                extend_select: v(&["TRI101"]),
                ..Selection::default()
            },
            ..Settings::default()
        };
        assert!(!on(&s, "TRI101"));
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

    #[test]
    fn triton_version_is_read_and_checked() {
        let p = Path::new("/p/pyproject.toml");
        let s = Settings::from_file(p, "[tool.tritonc]\ntriton-version = \"3.8\"\n")
            .unwrap()
            .unwrap();
        assert_eq!(s.triton_version, Some(tritonc_sema::TritonVersion::V3_8));
        let e = Settings::from_file(p, "[tool.tritonc]\ntriton-version = \"3.10\"\n").unwrap_err();
        assert!(
            e.message
                .starts_with("triton-version: unknown Triton version `3.10`"),
            "{}",
            e.message
        );
        let none = Settings::from_file(Path::new("/p/tritonc.toml"), "")
            .unwrap()
            .unwrap();
        assert_eq!(none.triton_version, None);
        assert!(none.triton_versions.is_empty());
        let range = Settings::from_file(
            p,
            "[tool.tritonc]\ntriton-versions = [\"3.6\", \"3.9.0\"]\n",
        )
        .unwrap()
        .unwrap();
        use tritonc_sema::TritonVersion::*;
        assert_eq!(range.triton_versions, vec![V3_6, V3_9]);
        let e = Settings::from_file(p, "[tool.tritonc]\ntriton-versions = [\"3.6\", \"4.0\"]\n")
            .unwrap_err();
        assert!(
            e.message
                .starts_with("triton-versions: unknown Triton version `4.0`"),
            "{}",
            e.message
        );
    }
}
