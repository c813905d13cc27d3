//! Lint-specific output: ruff's JSON shape and its concise one-line form. (The terminal,
//! GitHub and SARIF renderers are shared ones in tritonc-diagnostics.)

use serde::Serialize;
use tritonc_diagnostics::render::resolve_span;
use tritonc_diagnostics::{SourceMap, Span};

use crate::context::{Applicability, Finding};

/// Where each code's documentation is published.
pub const DOCS_URL: &str = "https://example.invalid/tritonc/docs/rules";

/// The documentation URL of `code`.
pub fn rule_url(code: &str) -> Option<String> {
    crate::REGISTRY
        .lookup(code)
        .map(|doc| format!("{DOCS_URL}/{}.md", doc.code.0))
}

#[derive(Serialize)]
struct RowCol {
    row: u32,
    column: u32,
}

#[derive(Serialize)]
struct JsonEdit {
    content: String,
    location: RowCol,
    end_location: RowCol,
}

#[derive(Serialize)]
struct JsonFix {
    applicability: Applicability,
    message: String,
    edits: Vec<JsonEdit>,
}

#[derive(Serialize)]
struct JsonFinding {
    code: Option<String>,
    message: String,
    filename: Option<String>,
    location: Option<RowCol>,
    end_location: Option<RowCol>,
    url: Option<String>,
    fix: Option<JsonFix>,
    noqa_row: Option<u32>,
    severity: &'static str,
}

fn row_cols(span: Span, sources: &SourceMap) -> Option<(String, RowCol, RowCol)> {
    let r = resolve_span(span, sources)?;
    Some((
        r.path.display().to_string(),
        RowCol {
            row: r.line,
            column: r.column_utf16,
        },
        RowCol {
            row: r.end_line,
            column: r.end_column_utf16,
        },
    ))
}

/// Findings as ruff's `--output-format json`: a list of objects with `code`, `message`,
/// `filename`, `location {row, column}`, `end_location`, `url`, `fix`, `noqa_row`
/// (columns are 1-based UTF-16 units, as in ruff). A diagnostic without a location has
/// `null` in `filename`, `location`, `end_location` and `noqa_row`.
pub fn render_json(findings: &[Finding], sources: &SourceMap) -> String {
    let rows: Vec<JsonFinding> = findings
        .iter()
        .map(|f| {
            let d = &f.diagnostic;
            let located = d
                .primary_span()
                .or_else(|| d.labels.first().map(|l| l.span))
                .and_then(|s| row_cols(s, sources));
            // A diagnostic without a location (a missing path) has nulls there.
            let (filename, location, end_location) = match located {
                Some((f, l, e)) => (Some(f), Some(l), Some(e)),
                None => (None, None, None),
            };
            let fix = d.fix.as_ref().map(|fix| JsonFix {
                applicability: f.applicability,
                message: fix.message.clone(),
                edits: fix
                    .edits
                    .iter()
                    .filter_map(|e| {
                        let (_, s, t) = row_cols(e.span, sources)?;
                        Some(JsonEdit {
                            content: e.replacement.clone(),
                            location: s,
                            end_location: t,
                        })
                    })
                    .collect(),
            });
            JsonFinding {
                code: (!d.code.0.is_empty()).then(|| d.code.0.to_string()),
                message: d.message.clone(),
                noqa_row: location.as_ref().map(|l| l.row),
                filename,
                location,
                end_location,
                url: rule_url(d.code.0),
                fix,
                severity: match d.severity {
                    tritonc_diagnostics::Severity::Error => "error",
                    tritonc_diagnostics::Severity::Warning => "warning",
                    tritonc_diagnostics::Severity::Info => "info",
                },
            }
        })
        .collect();
    serde_json::to_string_pretty(&rows).unwrap_or_else(|_| "[]".into()) + "\n"
}

/// One line per finding: `path:row:col: CODE [*] message` (`[*]` marks a fix that `--fix`
/// applies, as in ruff).
pub fn render_concise(findings: &[Finding], sources: &SourceMap) -> String {
    let mut out = String::new();
    for f in findings {
        let d = &f.diagnostic;
        let loc = d
            .primary_span()
            .or_else(|| d.labels.first().map(|l| l.span))
            .and_then(|s| row_cols(s, sources))
            .map(|(p, l, _)| format!("{p}:{}:{}: ", l.row, l.column))
            .unwrap_or_default();
        let marker = if d.fix.is_some() && f.applicability == Applicability::Safe {
            "[*] "
        } else {
            ""
        };
        let code = if d.code.0.is_empty() {
            String::new()
        } else {
            format!("{} ", d.code.0)
        };
        out.push_str(&format!("{loc}{code}{marker}{}\n", d.message));
    }
    out
}

/// Where a finding is, as `(path, row, column)` (1-based, UTF-16 columns).
fn place(f: &Finding, sources: &SourceMap) -> Option<(String, u32, u32)> {
    let d = &f.diagnostic;
    d.primary_span()
        .or_else(|| d.labels.first().map(|l| l.span))
        .and_then(|s| row_cols(s, sources))
        .map(|(p, l, _)| (p, l.row, l.column))
}

fn code_of(f: &Finding) -> &'static str {
    f.diagnostic.code.0
}

/// pylint's parseable form, as ruff writes it: `path:row: [CODE] message`.
pub fn render_pylint(findings: &[Finding], sources: &SourceMap) -> String {
    let mut out = String::new();
    for f in findings {
        let at = place(f, sources)
            .map(|(p, row, _)| format!("{p}:{row}: "))
            .unwrap_or_default();
        out.push_str(&format!("{at}[{}] {}\n", code_of(f), f.diagnostic.message));
    }
    out
}

/// Azure Pipelines logging commands, as ruff writes them:
/// `##vso[task.logissue type=warning;sourcepath=…;linenumber=…;columnnumber=…;code=…;]message`.
pub fn render_azure(findings: &[Finding], sources: &SourceMap) -> String {
    let mut out = String::new();
    for f in findings {
        let kind = match f.diagnostic.severity {
            tritonc_diagnostics::Severity::Error => "error",
            _ => "warning",
        };
        let at = place(f, sources)
            .map(|(p, row, col)| format!("sourcepath={p};linenumber={row};columnnumber={col};"))
            .unwrap_or_default();
        // A message is one line; `;` and `]` end a property, not the message.
        let message = f.diagnostic.message.replace(['\r', '\n'], " ");
        out.push_str(&format!(
            "##vso[task.logissue type={kind};{at}code={};]{message}\n",
            code_of(f)
        ));
    }
    out
}

/// The findings grouped by file, as ruff's `grouped` format: the path, then one indented
/// `row:col CODE message` line per finding, a blank line between files.
pub fn render_grouped(findings: &[Finding], sources: &SourceMap) -> String {
    let mut groups: Vec<(String, Vec<String>)> = Vec::new();
    for f in findings {
        let (path, line) = match place(f, sources) {
            Some((p, row, col)) => (
                p,
                format!("  {row}:{col} {} {}", code_of(f), f.diagnostic.message),
            ),
            None => (
                String::new(),
                format!("  {} {}", code_of(f), f.diagnostic.message),
            ),
        };
        match groups.iter_mut().find(|(p, _)| *p == path) {
            Some((_, lines)) => lines.push(line),
            None => groups.push((path, vec![line])),
        }
    }
    let mut out = String::new();
    for (i, (path, lines)) in groups.iter().enumerate() {
        if i > 0 {
            out.push('\n');
        }
        out.push_str(&format!("{}:\n", if path.is_empty() { "-" } else { path }));
        for l in lines {
            out.push_str(l);
            out.push('\n');
        }
    }
    out
}

#[derive(Serialize)]
struct GitlabLines {
    begin: u32,
    end: u32,
}

#[derive(Serialize)]
struct GitlabLocation {
    path: String,
    lines: GitlabLines,
}

#[derive(Serialize)]
struct GitlabIssue {
    description: String,
    check_name: String,
    fingerprint: String,
    severity: &'static str,
    location: GitlabLocation,
}

/// A GitLab Code Quality report (a JSON array of issues with `description`, `check_name`,
/// `fingerprint`, `severity` and `location {path, lines {begin, end}}`), as ruff writes it.
/// Fingerprints are stable hashes of the code, path and message, made unique with a
/// counter when the same finding repeats in a file.
pub fn render_gitlab(findings: &[Finding], sources: &SourceMap) -> String {
    let mut seen: Vec<String> = Vec::new();
    let issues: Vec<GitlabIssue> = findings
        .iter()
        .map(|f| {
            let d = &f.diagnostic;
            let span = d
                .primary_span()
                .or_else(|| d.labels.first().map(|l| l.span))
                .and_then(|s| row_cols(s, sources));
            let (path, begin, end) =
                span.map(|(p, l, e)| (p, l.row, e.row))
                    .unwrap_or((String::new(), 1, 1));
            let base =
                tritonc_diagnostics::render::sarif::fingerprint(code_of(f), &path, &d.message);
            let n = seen.iter().filter(|s| **s == base).count();
            seen.push(base.clone());
            GitlabIssue {
                description: format!("{} {}", code_of(f), d.message).trim().to_string(),
                check_name: code_of(f).to_string(),
                fingerprint: if n == 0 { base } else { format!("{base}:{n}") },
                severity: match d.severity {
                    tritonc_diagnostics::Severity::Error => "critical",
                    tritonc_diagnostics::Severity::Warning => "major",
                    tritonc_diagnostics::Severity::Info => "info",
                },
                location: GitlabLocation {
                    path,
                    lines: GitlabLines { begin, end },
                },
            }
        })
        .collect();
    serde_json::to_string_pretty(&issues).unwrap_or_else(|_| "[]".into()) + "\n"
}
