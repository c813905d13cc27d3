//! `tritonc lint`: front-end checks and lint rules on every kernel under the given paths,
//! with per-file configuration, fixes and the output formats of `--output-format`.

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::path::{Path, PathBuf};
use std::sync::Mutex;

use rayon::prelude::*;
use tritonc_diagnostics::render::resolve_span;
use tritonc_diagnostics::render::sarif::{render_sarif, SarifOptions, SarifTool};
use tritonc_diagnostics::{Diagnostic, FileId, Format, Severity, SourceMap};
use tritonc_lint::fix::{apply_fixes, unified_diff, FixMode};
use tritonc_lint::settings::{ConfigError, Selection};
use tritonc_lint::{Applicability, Finding, Settings};

use crate::cli::{LintArgs, LintFormat};
use crate::codes;
use crate::exit::Exit;
use crate::input::{add_source, path_not_found};
use crate::output::{write_to, Output, Stream};
use crate::project::Projects;

/// How many times fixes are applied to one file before giving up on a fixed point (a fix
/// can expose another finding whose fix then applies).
const MAX_FIX_PASSES: usize = 8;

/// Runs `lint`: files are read, parsed and checked on a pool of one thread per core
/// whose stacks are large enough to parse on (no thread spawned per file).
pub fn run(args: &LintArgs, out: &Output) -> Exit {
    match tritonc_driver::jobs::parse_pool() {
        Some(pool) => pool.install(|| run_here(args, out)),
        None => run_here(args, out),
    }
}

fn run_here(args: &LintArgs, out: &Output) -> Exit {
    let format = args
        .output_format
        .unwrap_or_else(|| LintFormat::from_global(out.format));
    let fix_mode = if args.unsafe_fixes {
        FixMode::Unsafe
    } else {
        FixMode::Safe
    };
    let mut input_errors: Vec<Diagnostic> = Vec::new();
    let files = collect_files(&args.paths, &mut input_errors);
    // Files named on the command line are checked whole, even when they cannot define a
    // kernel (their syntax errors are reported); walked ones only if they may.
    let named: BTreeSet<&Path> = args
        .paths
        .iter()
        .filter(|p| !p.is_dir())
        .map(PathBuf::as_path)
        .collect();
    let configs = ConfigResolver::new(args, &mut input_errors);

    // Read in parallel, then register in path order so file ids are deterministic.
    let contents: Vec<(PathBuf, std::io::Result<Vec<u8>>)> = files
        .into_par_iter()
        .map(|path| {
            let bytes = tritonc_spec::files::read_regular(&path);
            (path, bytes)
        })
        .collect();
    let mut texts: Vec<(PathBuf, String)> = Vec::new();
    let mut sources = SourceMap::new();
    for (path, bytes) in contents {
        let mut probe = SourceMap::new();
        match add_source(&path, bytes, &mut probe) {
            Ok(file) => texts.push((path, probe.get(file).text().to_string())),
            Err(diagnostic) => match probe.try_get(FileId(0)) {
                // A file that is not UTF-8 was added lossily decoded, so the diagnostic
                // can show its span: keep it.
                Some(file) => {
                    let id = sources.add(file.path(), file.text_arc());
                    input_errors.push(remap(diagnostic, id));
                }
                None => input_errors.push(diagnostic),
            },
        }
    }

    // Fixes run on each file alone, to a fixed point, before the reported lint pass.
    let mut fixed_total = 0usize;
    if args.fix || args.diff {
        let results: Vec<(usize, String)> = texts
            .par_iter()
            .map(|(path, text)| {
                let whole = named.contains(path.as_path());
                fix_file(path, text, &configs.for_file(path), fix_mode, whole)
            })
            .collect();
        let mut diffs = String::new();
        for ((path, text), (fixed, new_text)) in texts.iter_mut().zip(results) {
            if fixed == 0 {
                continue;
            }
            fixed_total += fixed;
            if args.diff {
                diffs.push_str(&unified_diff(&path.display().to_string(), text, &new_text));
            } else if let Err(err) = std::fs::write(&*path, &new_text) {
                input_errors.push(Diagnostic::error(
                    codes::CANNOT_WRITE_OUTPUT,
                    format!("cannot write the fixed `{}`: {err}", path.display()),
                ));
            } else {
                *text = new_text;
            }
        }
        if args.diff {
            input_errors.extend(configs.late_errors());
            write_to(Stream::Stdout, &diffs);
            if !input_errors.is_empty() {
                out.diagnostics(Stream::Stderr, &input_errors, &sources);
            }
            let noun = plural(fixed_total, "finding", "findings");
            let line = if fixed_total == 0 {
                "No fixes available".to_string()
            } else {
                format!("Would fix {fixed_total} {noun}")
            };
            if !out.quiet {
                write_to(Stream::Stderr, &format!("{line}\n"));
            }
            return if configs.has_error || input_errors.iter().any(is_error) {
                Exit::InputError
            } else if fixed_total > 0 && !args.exit_zero {
                Exit::Findings
            } else {
                Exit::Success
            };
        }
    }

    let mut file_ids = Vec::new();
    for (path, text) in &texts {
        file_ids.push(sources.add(path, text.as_str()));
    }
    // Helpers in the files' projects are read as lowering reaches them, under the ids that
    // follow the linted files'.
    let projects = Projects::new(FileId(sources.len() as u32));
    let results: Vec<(usize, Vec<Finding>)> = file_ids
        .par_iter()
        .map(|&file| {
            let path = sources.get(file).path();
            let settings = configs.for_file(path);
            lint_one(file, &sources, &settings, &projects, named.contains(path))
        })
        .collect();
    projects.register(&mut sources);
    let kernels: usize = results.iter().map(|(k, _)| k).sum();
    let mut findings: Vec<Finding> = results.into_iter().flat_map(|(_, f)| f).collect();

    let checked = file_ids.len();
    if checked == 0 && input_errors.is_empty() {
        input_errors.push(Diagnostic::warning(
            codes::NO_PYTHON_FILES,
            "no Python files found under the given paths",
        ));
    }
    // Configurations first read while linting (those of subdirectories) are reported too.
    input_errors.extend(configs.late_errors());
    let has_input_error = configs.has_error || input_errors.iter().any(is_error);
    let mut all: Vec<Finding> = input_errors.into_iter().map(Finding::new).collect();
    all.append(&mut findings);
    sort_findings(&mut all, &sources);

    if args.statistics {
        write_to(Stream::Stdout, &statistics(&all, fix_mode, format));
    } else {
        print_findings(format, out, &all, &sources, fix_mode);
    }

    let counted: Vec<&Finding> = all
        .iter()
        .filter(|f| f.diagnostic.severity != Severity::Info)
        .collect();
    let finding_count = counted
        .iter()
        .filter(|f| f.diagnostic.primary_span().is_some())
        .count();
    let summary = summary_lines(&counted, kernels, checked, fixed_total, args, fix_mode);
    if !out.quiet {
        let stream = if format.is_machine_readable() || args.statistics {
            Stream::Stderr
        } else {
            Stream::Stdout
        };
        write_to(stream, &summary);
    }

    if has_input_error {
        Exit::InputError
    } else if finding_count > 0 && !args.exit_zero {
        Exit::Findings
    } else {
        Exit::Success
    }
}

fn is_error(d: &Diagnostic) -> bool {
    d.severity == Severity::Error
}

/// Moves every span of `d` (built against a one-file map) to `file`.
fn remap(mut d: Diagnostic, file: FileId) -> Diagnostic {
    for label in &mut d.labels {
        label.span.file = file;
    }
    d
}

/// Front-end diagnostics and lint findings of one file, and how many kernels it has:
/// the driver's check, which the language server runs too. Unless `whole`, a file that
/// cannot define a kernel is not parsed ([`tritonc_driver::check::check_file_in_tree`]).
fn lint_one(
    file: FileId,
    sources: &SourceMap,
    settings: &Settings,
    projects: &Projects,
    whole: bool,
) -> (usize, Vec<Finding>) {
    let source = sources.get(file);
    // Per-file ignores match against the path relative to the configuration's directory,
    // which is absolute.
    let absolute = std::fs::canonicalize(source.path()).unwrap_or_else(|_| source.path().into());
    let check = if whole {
        tritonc_driver::check::check_file
    } else {
        tritonc_driver::check::check_file_in_tree
    };
    let checked = check(file, sources, &absolute, settings, Some(projects));
    (checked.kernels, checked.findings)
}

/// Applies the fixes `mode` allows to one file until none applies; returns how many
/// findings were fixed and the new text.
fn fix_file(
    path: &Path,
    text: &str,
    settings: &Settings,
    mode: FixMode,
    whole: bool,
) -> (usize, String) {
    let mut current = text.to_string();
    let mut fixed = 0;
    for _ in 0..MAX_FIX_PASSES {
        let mut sources = SourceMap::new();
        let file = sources.add(path, current.as_str());
        let projects = Projects::new(FileId(sources.len() as u32));
        let (_, findings) = lint_one(file, &sources, settings, &projects, whole);
        // A file the parser rejects is never rewritten.
        if findings
            .iter()
            .any(|f| f.diagnostic.code.0.starts_with('E') && is_error(&f.diagnostic))
        {
            break;
        }
        let lint_only: Vec<Finding> = findings
            .into_iter()
            .filter(|f| f.diagnostic.code.0.starts_with("TRI"))
            .collect();
        let (new_text, n) = apply_fixes(&current, file, &lint_only, mode);
        if n == 0 || new_text == current {
            break;
        }
        fixed += n;
        current = new_text;
    }
    (fixed, current)
}

/// Settings per file: `--config`, or the closest configuration file (cached per
/// directory), with `--select`/`--ignore` laid over it.
struct ConfigResolver<'a> {
    args: &'a LintArgs,
    fixed: Option<Settings>,
    cache: Mutex<HashMap<PathBuf, Settings>>,
    errors: Mutex<Vec<ConfigError>>,
    has_error: bool,
}

impl<'a> ConfigResolver<'a> {
    fn new(args: &'a LintArgs, errors: &mut Vec<Diagnostic>) -> Self {
        let mut resolver = ConfigResolver {
            args,
            fixed: None,
            cache: Mutex::new(HashMap::new()),
            errors: Mutex::new(Vec::new()),
            has_error: false,
        };
        if let Some(path) = &args.config {
            let loaded = match tritonc_spec::files::read_regular_to_string(path) {
                Ok(text) => {
                    let absolute = std::fs::canonicalize(path).unwrap_or_else(|_| path.clone());
                    Settings::from_file(&absolute, &text).map(|s| {
                        s.unwrap_or_else(|| Settings {
                            root: absolute.parent().map(Path::to_path_buf),
                            ..Settings::default()
                        })
                    })
                }
                Err(err) => Err(ConfigError {
                    path: path.clone(),
                    message: err.to_string(),
                }),
            };
            match loaded {
                Ok(s) => resolver.fixed = Some(s),
                Err(e) => {
                    errors.push(config_error(&e));
                    resolver.has_error = true;
                    resolver.fixed = Some(Settings::default());
                }
            }
        } else {
            // Discover every configuration up front, so that errors are reported once.
            let mut dirs = BTreeSet::new();
            for p in &args.paths {
                dirs.insert(if p.is_dir() {
                    p.clone()
                } else {
                    p.parent().map(Path::to_path_buf).unwrap_or_default()
                });
            }
            for d in dirs {
                let _ = resolver.discover(&d);
            }
            let found = std::mem::take(&mut *lock(&resolver.errors));
            resolver.has_error = !found.is_empty();
            errors.extend(found.iter().map(config_error));
        }
        resolver
    }

    /// The errors of configurations read after [`ConfigResolver::new`], each file once.
    fn late_errors(&self) -> Vec<Diagnostic> {
        let mut seen = BTreeSet::new();
        std::mem::take(&mut *lock(&self.errors))
            .into_iter()
            .filter(|e| seen.insert((e.path.clone(), e.message.clone())))
            .map(|e| config_error(&e))
            .collect()
    }

    /// The settings of the configuration closest to `dir`, cached.
    fn discover(&self, dir: &Path) -> Settings {
        let key = if dir.as_os_str().is_empty() {
            PathBuf::from(".")
        } else {
            dir.to_path_buf()
        };
        if let Some(s) = lock(&self.cache).get(&key) {
            return s.clone();
        }
        let settings = match tritonc_driver::config::discover(&key) {
            Ok((s, _)) => s,
            Err(e) => {
                lock(&self.errors).push(e);
                Settings::default()
            }
        };
        lock(&self.cache).insert(key, settings.clone());
        settings
    }

    /// The settings for `path`.
    fn for_file(&self, path: &Path) -> Settings {
        let mut s = match &self.fixed {
            Some(s) => s.clone(),
            None => self.discover(path.parent().unwrap_or(Path::new("."))),
        };
        // The command line's selection is a layer over the configuration's: `--select`
        // replaces it (ignores included), the others adjust it. The selectors were
        // checked and upper-cased when the arguments were parsed.
        s.overrides = Selection {
            select: self.args.select.clone(),
            extend_select: self.args.extend_select.clone(),
            ignore: self
                .args
                .ignore
                .iter()
                .chain(&self.args.extend_ignore)
                .cloned()
                .collect(),
        };
        s
    }
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    // A poisoned lock means another thread panicked; the panic hook ends the process.
    m.lock().unwrap_or_else(|e| e.into_inner())
}

pub(crate) use tritonc_driver::config::config_error;

/// Sorts by path and offset of the primary span (located ones after those without a
/// location), then by code.
fn sort_findings(findings: &mut [Finding], sources: &SourceMap) {
    findings.sort_by_cached_key(|f| {
        let d = &f.diagnostic;
        let location = d
            .primary_span()
            .or_else(|| d.labels.first().map(|l| l.span))
            .and_then(|span| resolve_span(span, sources).map(|r| (r.path.to_path_buf(), r.start)));
        (location, d.code)
    });
}

/// Prints the findings in `format`.
fn print_findings(
    format: LintFormat,
    out: &Output,
    findings: &[Finding],
    sources: &SourceMap,
    mode: FixMode,
) {
    let diagnostics =
        || -> Vec<Diagnostic> { findings.iter().map(|f| f.diagnostic.clone()).collect() };
    let text = match format {
        LintFormat::Full => {
            let opts = out.terminal(Stream::Stdout);
            tritonc_diagnostics::render(Format::Terminal, &diagnostics(), sources, &opts)
        }
        LintFormat::Concise => {
            let shown: Vec<Finding> = findings
                .iter()
                .map(|f| {
                    let mut f = f.clone();
                    if mode.allows(f.applicability) {
                        f.applicability = Applicability::Safe;
                    }
                    f
                })
                .collect();
            tritonc_lint::output::render_concise(&shown, sources)
        }
        LintFormat::Json => tritonc_lint::output::render_json(findings, sources),
        LintFormat::JsonLines => {
            tritonc_diagnostics::render::json::render_json_lines(&diagnostics(), sources)
        }
        LintFormat::Sarif => {
            let tool = SarifTool {
                name: "tritonc",
                version: env!("CARGO_PKG_VERSION"),
                information_uri: tritonc_lint::output::DOCS_URL,
            };
            let base = std::env::current_dir().ok();
            render_sarif(
                &diagnostics(),
                sources,
                &SarifOptions {
                    tool: &tool,
                    catalog: &crate::codes::catalog(),
                    help_uri: &tritonc_lint::output::rule_url,
                    always_listed: &lint_codes(),
                    base: base.as_deref(),
                },
            )
        }
        LintFormat::Github => {
            let opts = out.terminal(Stream::Stdout);
            tritonc_diagnostics::render(Format::Github, &diagnostics(), sources, &opts)
        }
        LintFormat::Gitlab => tritonc_lint::output::render_gitlab(findings, sources),
        LintFormat::Pylint => tritonc_lint::output::render_pylint(findings, sources),
        LintFormat::Azure => tritonc_lint::output::render_azure(findings, sources),
        LintFormat::Grouped => tritonc_lint::output::render_grouped(findings, sources),
        LintFormat::Junit => tritonc_lint::output::render_junit(findings, sources),
        LintFormat::Rdjson => tritonc_lint::output::render_rdjson(findings, sources),
    };
    write_to(Stream::Stdout, &text);
}

/// Every lint code, listed in SARIF's rule table whether or not it was found (GitHub shows
/// the table as the tool's rules).
fn lint_codes() -> Vec<tritonc_diagnostics::Code> {
    tritonc_lint::REGISTRY
        .codes
        .iter()
        .map(|d| d.code)
        .collect()
}

/// One row of `--statistics` in JSON (ruff's fields).
#[derive(serde::Serialize)]
struct StatisticsRow<'a> {
    code: &'a str,
    name: &'a str,
    count: usize,
    fixable: bool,
}

/// `--statistics`: one line per code, most frequent first; a JSON array of
/// `{code, name, count, fixable}` with `json`, one such object per line with `json-lines`.
fn statistics(findings: &[Finding], mode: FixMode, format: LintFormat) -> String {
    let mut counts: BTreeMap<&'static str, (usize, bool)> = BTreeMap::new();
    for f in findings {
        let d = &f.diagnostic;
        if d.code.0.is_empty() {
            continue;
        }
        let e = counts.entry(d.code.0).or_insert((0, false));
        e.0 += 1;
        e.1 |= d.fix.is_some() && mode.allows(f.applicability);
    }
    let mut rows: Vec<(&str, usize, bool)> =
        counts.into_iter().map(|(c, (n, x))| (c, n, x)).collect();
    rows.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(b.0)));
    let catalog = crate::codes::catalog();
    let name = |code: &str| catalog.lookup(code).map(|e| e.doc.name).unwrap_or("");
    let json_rows = || -> Vec<StatisticsRow> {
        rows.iter()
            .map(|&(code, count, fixable)| StatisticsRow {
                code,
                name: name(code),
                count,
                fixable,
            })
            .collect()
    };
    // Plain strings and numbers only: serialization cannot fail.
    const SERIALIZABLE: &str = "statistics rows are always serializable";
    match format {
        LintFormat::Json => {
            return serde_json::to_string_pretty(&json_rows()).expect(SERIALIZABLE) + "\n";
        }
        LintFormat::JsonLines => {
            return json_rows()
                .iter()
                .map(|r| serde_json::to_string(r).expect(SERIALIZABLE) + "\n")
                .collect();
        }
        _ => {}
    }
    let mut text = String::new();
    for (code, n, fixable) in rows {
        let name = name(code);
        let marker = if fixable { "[*]" } else { "[ ]" };
        text.push_str(&format!("{n:>5}\t{code:<7}\t{marker} {name}\n"));
    }
    text
}

/// The closing lines: what was found and fixed, and which fixes are available.
fn summary_lines(
    counted: &[&Finding],
    kernels: usize,
    checked: usize,
    fixed: usize,
    args: &LintArgs,
    mode: FixMode,
) -> String {
    let errors = counted.iter().filter(|f| is_error(&f.diagnostic)).count();
    let warnings = counted.len() - errors;
    let files: BTreeSet<FileId> = counted
        .iter()
        .filter_map(|f| f.diagnostic.primary_span().map(|s| s.file))
        .collect();
    let fixed_note = if fixed > 0 {
        format!(" ({fixed} fixed)")
    } else {
        String::new()
    };
    let mut text = if counted.is_empty() {
        if fixed > 0 {
            format!(
                "Found {fixed} {} ({fixed} fixed, 0 remaining)\n",
                plural(fixed, "finding", "findings")
            )
        } else {
            format!(
                "All checks passed: {kernels} {} in {checked} {}\n",
                plural(kernels, "kernel", "kernels"),
                plural(checked, "file", "files")
            )
        }
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
        if files.is_empty() {
            format!("Found {}{fixed_note}\n", parts.join(" and "))
        } else {
            format!(
                "Found {} in {} {}{fixed_note}\n",
                parts.join(" and "),
                files.len(),
                plural(files.len(), "file", "files")
            )
        }
    };
    if !args.fix {
        let fixable = counted
            .iter()
            .filter(|f| f.diagnostic.fix.is_some() && mode.allows(f.applicability))
            .count();
        let hidden = counted
            .iter()
            .filter(|f| f.diagnostic.fix.is_some() && !mode.allows(f.applicability))
            .count();
        if fixable > 0 {
            let option = if args.unsafe_fixes {
                "`--fix --unsafe-fixes`"
            } else {
                "`--fix`"
            };
            text.push_str(&format!("[*] {fixable} fixable with {option}"));
            if hidden > 0 {
                text.push_str(&format!(" ({hidden} more with `--unsafe-fixes`)"));
            }
            text.push('\n');
        } else if hidden > 0 {
            text.push_str(&format!(
                "{hidden} {} available with `--fix --unsafe-fixes`\n",
                plural(hidden, "fix", "fixes")
            ));
        }
    }
    text
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
            // A special file (FIFO, socket, device): reading it reports what it is
            // (E0502) at once, without waiting for a writer.
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
