//! `tritonc lint`: front-end checks of every kernel under the given paths.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use rayon::prelude::*;
use tritonc_diagnostics::render::sort_diagnostics;
use tritonc_diagnostics::{Diagnostic, FileId, Severity, SourceMap};

use crate::cli::LintArgs;
use crate::exit::Exit;
use crate::frontend::analyze_file;
use crate::input::{add_source, path_not_found};
use crate::output::{Output, Stream};
use crate::{codes, frontend};

/// Runs `lint`.
pub fn run(args: &LintArgs, out: &Output) -> Exit {
    let mut input_errors: Vec<Diagnostic> = Vec::new();
    let files = collect_files(&args.paths, &mut input_errors);

    // Read in parallel, then register in path order so file ids are deterministic.
    let contents: Vec<(PathBuf, std::io::Result<Vec<u8>>)> = files
        .into_par_iter()
        .map(|path| {
            let bytes = std::fs::read(&path);
            (path, bytes)
        })
        .collect();
    let mut sources = SourceMap::new();
    let mut file_ids: Vec<FileId> = Vec::new();
    for (path, bytes) in contents {
        match add_source(&path, bytes, &mut sources) {
            Ok(file) => file_ids.push(file),
            Err(diagnostic) => input_errors.push(diagnostic),
        }
    }

    // The configuration closest to the first path applies to the run (ruff's discovery).
    let settings = match args
        .paths
        .first()
        .map(|p| tritonc_lint::Settings::discover(p))
    {
        Some(Ok((settings, _))) => settings,
        Some(Err(e)) => {
            input_errors.push(Diagnostic::error(
                codes::UNREADABLE_FILE,
                format!("cannot read `{}`: {}", e.path.display(), e.message),
            ));
            tritonc_lint::Settings::default()
        }
        None => tritonc_lint::Settings::default(),
    };
    let analyses: Vec<(frontend::FileAnalysis, Vec<Diagnostic>)> = file_ids
        .par_iter()
        .map(|&file| {
            let analysis = analyze_file(file, &sources);
            let source = sources.get(file);
            let report = tritonc_lint::lint_file(
                file,
                source.path(),
                source.text(),
                &analysis.module,
                &analysis.index,
                &settings,
            );
            // A kernel the front end already rejected needs no "not analysed" note.
            let rejected = analysis
                .diagnostics
                .iter()
                .any(|d| d.severity == Severity::Error);
            let lint: Vec<Diagnostic> = report
                .findings
                .into_iter()
                .map(|f| f.diagnostic)
                .filter(|d| !(rejected && d.code == tritonc_lint::registry::KERNEL_NOT_ANALYSED))
                .collect();
            (analysis, lint)
        })
        .collect();
    let kernels: usize = analyses.iter().map(|(a, _)| a.kernels.len()).sum();
    let mut findings: Vec<Diagnostic> = analyses
        .into_iter()
        .flat_map(|(a, lint)| a.diagnostics.into_iter().chain(lint))
        .collect();
    let files_with_findings: BTreeSet<FileId> = findings
        .iter()
        .filter_map(|d| d.primary_span().map(|s| s.file))
        .collect();

    let checked = file_ids.len();
    if checked == 0 && input_errors.is_empty() {
        input_errors.push(Diagnostic::warning(
            codes::NO_PYTHON_FILES,
            "no Python files found under the given paths",
        ));
    }

    let mut all = input_errors;
    let has_input_error = all.iter().any(|d| d.severity == Severity::Error);
    all.append(&mut findings);
    sort_diagnostics(&mut all, &sources);
    out.diagnostics(Stream::Stdout, &all, &sources);

    let errors = all.iter().filter(|d| d.severity == Severity::Error).count();
    let warnings = all
        .iter()
        .filter(|d| d.severity == Severity::Warning)
        .count();
    let finding_count = all
        .iter()
        .filter(|d| d.severity != Severity::Info && d.primary_span().is_some())
        .count();
    let summary = if finding_count == 0 && !has_input_error {
        format!(
            "All checks passed: {kernels} {} in {checked} {}",
            plural(kernels, "kernel", "kernels"),
            plural(checked, "file", "files")
        )
    } else {
        let mut parts = Vec::new();
        if errors > 0 {
            parts.push(format!("{errors} {}", plural(errors, "error", "errors")));
        }
        if warnings > 0 {
            parts.push(format!(
                "{warnings} {}",
                plural(warnings, "warning", "warnings")
            ));
        }
        let files = files_with_findings.len();
        if files == 0 {
            format!("Found {}", parts.join(" and "))
        } else {
            format!(
                "Found {} in {files} {}",
                parts.join(" and "),
                plural(files, "file", "files")
            )
        }
    };
    out.summary(Stream::Stdout, &summary);

    if has_input_error {
        Exit::InputError
    } else if finding_count > 0 {
        Exit::Findings
    } else {
        Exit::Success
    }
}

fn plural<'a>(n: usize, one: &'a str, many: &'a str) -> &'a str {
    if n == 1 {
        one
    } else {
        many
    }
}

/// The files to check: explicit file arguments always, `*.py` under directories
/// (honouring .gitignore and .ignore, skipping hidden entries), deduplicated and sorted.
fn collect_files(paths: &[PathBuf], errors: &mut Vec<Diagnostic>) -> Vec<PathBuf> {
    let mut files = BTreeSet::new();
    for path in paths {
        if path.is_file() {
            files.insert(path.clone());
        } else if path.is_dir() {
            walk_dir(path, &mut files, errors);
        } else if path.exists() {
            // A special file (FIFO, socket): read it as given.
            files.insert(path.clone());
        } else {
            errors.push(path_not_found(path));
        }
    }
    files.into_iter().collect()
}

fn walk_dir(dir: &Path, files: &mut BTreeSet<PathBuf>, errors: &mut Vec<Diagnostic>) {
    let walker = ignore::WalkBuilder::new(dir).require_git(false).build();
    for entry in walker {
        match entry {
            Ok(entry) => {
                let is_file = entry.file_type().is_some_and(|t| t.is_file());
                let is_py = entry.path().extension().is_some_and(|e| e == "py");
                if is_file && is_py {
                    // `./k.py` reads better as `k.py` in diagnostics.
                    let path = entry.into_path();
                    let path = path
                        .strip_prefix(".")
                        .map(Path::to_path_buf)
                        .unwrap_or(path);
                    files.insert(path);
                }
            }
            Err(err) => errors.push(Diagnostic::error(
                codes::UNREADABLE_FILE,
                format!("cannot walk `{}`: {err}", dir.display()),
            )),
        }
    }
}
