//! Checking one file as `tritonc lint` and the language server both do: the front end's
//! diagnostics (syntax, discovery, the accepted subset), then lint's findings over the
//! kernels lowered in the file's project scope, so `@jit` helpers and constexpr globals
//! imported from the project's other files resolve in the editor as they do in CI.

use std::path::Path;

use tritonc_diagnostics::{FileId, Severity, SourceMap};
use tritonc_lint::registry::KERNEL_NOT_ANALYSED;
use tritonc_lint::{Finding, Settings};
use tritonc_sema::ModuleScope;

use crate::frontend::analyze_file;
use crate::project::Projects;

/// What checking one file found.
#[derive(Debug)]
pub struct FileCheck {
    /// How many `@triton.jit` kernels the file defines.
    pub kernels: usize,
    /// Front-end diagnostics, then lint findings.
    pub findings: Vec<Finding>,
}

/// Whether `text` may define a `@triton.jit` function: every way of reaching Triton's
/// `jit` (`@triton.jit`, `from triton import jit`, `triton.runtime.jit`, `tl.jit`…)
/// spells `jit` in the file. Checked before parsing: most of lint's time on a tree is the
/// parser's.
pub fn may_define_kernels(text: &str) -> bool {
    text.contains("jit")
}

/// [`check_file`] as `tritonc lint` runs it over a tree: a file that cannot define a
/// kernel ([`may_define_kernels`]) is not parsed, and gets only what lint reports
/// without kernels (suppression comments that suppress nothing). Such a file is still
/// parsed when another file imports from it.
pub fn check_file_in_tree(
    file: FileId,
    sources: &SourceMap,
    path: &Path,
    settings: &Settings,
    projects: Option<&Projects>,
) -> FileCheck {
    let source = sources.get(file);
    if may_define_kernels(source.text()) {
        return check_file(file, sources, path, settings, projects);
    }
    let whole = tritonc_diagnostics::Span::new(file, 0, source.text().len() as u32);
    let module = tritonc_syntax::ast::Module {
        body: Vec::new(),
        span: whole,
    };
    let index = tritonc_syntax::discover(&module);
    let report = tritonc_lint::lint_file_in(
        file,
        path,
        source.text(),
        (&module, &ModuleScope::from_index(&index)),
        &index,
        settings,
    );
    FileCheck {
        kernels: 0,
        findings: report.findings,
    }
}

/// Checks `file` of `sources`, whose path on disk is `path` (absolute: per-file ignores
/// match it relative to the configuration's directory, and the project's other modules
/// are found from it). With `projects`, names the file imports from its project resolve
/// through it; the files read for that are added to `sources` by
/// [`Projects::register`] once every file of the command is checked. Without, the file
/// is checked alone (a document not saved to disk).
pub fn check_file(
    file: FileId,
    sources: &SourceMap,
    path: &Path,
    settings: &Settings,
    projects: Option<&Projects>,
) -> FileCheck {
    let analysis = analyze_file(file, sources, projects.map(|p| (p, path)));
    let source = sources.get(file);
    // The Triton version `compile` would use for this file.
    let mut settings = settings.clone();
    settings.triton_version = Some(crate::config::settings_triton_version(&settings));
    let settings = &settings;
    let scope = match projects {
        Some(p) => p.scope(path, &analysis.module, &analysis.index, false),
        None => ModuleScope::from_index(&analysis.index),
    };
    let report = tritonc_lint::lint_file_in(
        file,
        path,
        source.text(),
        (&analysis.module, &scope),
        &analysis.index,
        settings,
    );
    // A kernel the front end already rejected needs no "not analysed" note.
    let rejected = analysis
        .diagnostics
        .iter()
        .any(|d| d.severity == Severity::Error);
    let kernels = analysis.kernels.len();
    let mut findings: Vec<Finding> = analysis.diagnostics.into_iter().map(Finding::new).collect();
    findings.extend(
        report
            .findings
            .into_iter()
            .filter(|f| !(rejected && f.diagnostic.code == KERNEL_NOT_ANALYSED)),
    );
    FileCheck { kernels, findings }
}
