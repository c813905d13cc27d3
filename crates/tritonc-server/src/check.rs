//! Checking one document: the front end's diagnostics and lint's findings, with the
//! configuration found from the document's directory, through the driver's
//! [`check_file`] — the function `tritonc lint` runs, so `@jit` helpers imported from the
//! project's other files resolve here as they do on the command line. A panic while
//! checking becomes an internal-error diagnostic; it never reaches the message loop.

use std::collections::HashMap;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use lsp_types::Url;
use tritonc_diagnostics::{Code, Diagnostic, FileId, Severity, SourceMap};
use tritonc_driver::check::check_file;
use tritonc_driver::project::Projects;
use tritonc_lint::settings::ConfigError;
use tritonc_lint::{Finding, Settings};

use crate::documents::Document;

/// The diagnostics of one document's text.
#[derive(Debug)]
pub struct Checked {
    /// The document (file id [`Checked::file`]) and any other file a label points into.
    pub sources: SourceMap,
    /// The document's id in `sources`.
    pub file: FileId,
    /// Front-end diagnostics and lint findings, in source order.
    pub findings: Vec<Finding>,
}

/// The code of diagnostics about the server itself (a crash while checking, an unreadable
/// configuration): they belong to no rule.
pub const NO_CODE: Code = Code("");

/// Settings per directory, read once until a configuration file changes.
#[derive(Debug, Default)]
pub struct SettingsCache {
    by_dir: HashMap<PathBuf, Result<Settings, ConfigError>>,
}

impl SettingsCache {
    /// Forgets every configuration read so far.
    pub fn clear(&mut self) {
        self.by_dir.clear();
    }

    /// The settings for files in `dir`, or the configuration error that hides them.
    fn for_dir(&mut self, dir: &Path) -> &Result<Settings, ConfigError> {
        self.by_dir
            .entry(dir.to_path_buf())
            .or_insert_with(|| tritonc_driver::config::discover(dir).map(|(s, _)| s))
    }
}

/// Whether `uri` names a configuration file lint reads.
pub fn is_config_file(uri: &Url) -> bool {
    uri.path().ends_with("/pyproject.toml") || uri.path().ends_with("/tritonc.toml")
}

/// Whether a document is checked: Python (by extension or language id) that mentions
/// triton. Other documents get an empty diagnostic list.
pub fn is_triton_python(uri: &Url, doc: &Document) -> bool {
    (uri.path().ends_with(".py") || doc.language_id() == "python") && doc.text().contains("triton")
}

/// Checks the current text of `doc`.
pub fn check_document(uri: &Url, doc: &Document, settings: &mut SettingsCache) -> Checked {
    let path = uri.to_file_path().ok();
    let display: PathBuf = path.clone().unwrap_or_else(|| PathBuf::from(uri.as_str()));
    let mut sources = SourceMap::new();
    let text: Arc<str> = Arc::from(doc.text());
    let file = sources.add(&display, text.clone());
    if !is_triton_python(uri, doc) {
        return Checked {
            sources,
            file,
            findings: Vec::new(),
        };
    }
    let mut findings = Vec::new();
    let resolved = match path.as_deref().and_then(Path::parent) {
        Some(dir) => settings.for_dir(dir).clone(),
        None => Ok(Settings::default()),
    };
    let settings = match resolved {
        Ok(s) => s,
        Err(err) => {
            findings.push(Finding::new(Diagnostic::error(
                NO_CODE,
                format!(
                    "cannot read the configuration `{}`: {}; lint uses the defaults",
                    err.path.display(),
                    err.message
                ),
            )));
            Settings::default()
        }
    };
    // Per-file ignores match the absolute path, relative to the configuration's directory.
    let on_disk = path.is_some();
    let absolute = path
        .as_deref()
        .and_then(|p| std::fs::canonicalize(p).ok())
        .or(path)
        .unwrap_or(display);
    // The project's other modules are read from disk (saved text); the document itself
    // is checked as edited. Their files follow the document's in `sources`.
    let projects = on_disk.then(|| Projects::new(FileId(sources.len() as u32)));
    findings.extend(guarded(|| {
        check_file(file, &sources, &absolute, &settings, projects.as_ref()).findings
    }));
    if let Some(p) = &projects {
        p.register(&mut sources);
    }
    findings.sort_by_key(|f| {
        (
            f.diagnostic.primary_span().map(|s| (s.start, s.end)),
            f.diagnostic.code,
        )
    });
    Checked {
        sources,
        file,
        findings,
    }
}

/// Runs `check`; a panic becomes one internal-error diagnostic.
pub fn guarded(check: impl FnOnce() -> Vec<Finding>) -> Vec<Finding> {
    match catch_unwind(AssertUnwindSafe(check)) {
        Ok(findings) => findings,
        Err(payload) => {
            let reason = payload
                .downcast_ref::<&str>()
                .map(|s| s.to_string())
                .or_else(|| payload.downcast_ref::<String>().cloned())
                .unwrap_or_else(|| "unknown panic".into());
            vec![Finding::new(
                Diagnostic::new(
                    Severity::Error,
                    NO_CODE,
                    format!("internal error while checking this file: {reason}"),
                )
                .with_note("this is a bug in tritonc; the file's other findings are missing"),
            )]
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_panic_becomes_an_internal_error_diagnostic() {
        let findings = guarded(|| panic!("lost invariant"));
        assert_eq!(findings.len(), 1);
        let d = &findings[0].diagnostic;
        assert_eq!(d.severity, Severity::Error);
        assert!(d.message.contains("lost invariant"), "{}", d.message);
    }

    #[test]
    fn only_python_that_mentions_triton_is_checked() {
        let py = Url::parse("file:///k/a.py").unwrap();
        let txt = Url::parse("file:///k/a.txt").unwrap();
        let kernel = Document::new("import triton\n".into(), 1, "python".into());
        let plain = Document::new("import torch\n".into(), 1, "python".into());
        let text_file = Document::new("import triton\n".into(), 1, "plaintext".into());
        assert!(is_triton_python(&py, &kernel));
        assert!(!is_triton_python(&py, &plain));
        assert!(!is_triton_python(&txt, &text_file));
    }
}
