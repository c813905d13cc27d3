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

/// A JUnit XML report, as ruff writes it: one `<testsuite>` per file (`package="org.tritonc"`),
/// one failing `<testcase name="org.tritonc.CODE">` per finding, its class name the path
/// without the extension and its `line`/`column` attributes the finding's place; a run
/// without findings is one passing case named `No errors found`.
pub fn render_junit(findings: &[Finding], sources: &SourceMap) -> String {
    use quick_junit::{NonSuccessKind, Report, TestCase, TestCaseStatus, TestSuite, XmlString};
    let mut report = Report::new("tritonc");
    let package = |suite: &mut TestSuite| {
        suite
            .extra
            .insert(XmlString::new("package"), XmlString::new("org.tritonc"));
    };
    if findings.is_empty() {
        let mut suite = TestSuite::new("tritonc");
        package(&mut suite);
        let mut case = TestCase::new("No errors found", TestCaseStatus::success());
        case.set_classname("tritonc");
        suite.add_test_case(case);
        report.add_test_suite(suite);
    } else {
        let mut groups: Vec<(String, Vec<(&Finding, Option<(u32, u32)>)>)> = Vec::new();
        for f in findings {
            let (path, at) = match place(f, sources) {
                Some((p, row, col)) => (p, Some((row, col))),
                None => (String::new(), None),
            };
            match groups.iter_mut().find(|(p, _)| *p == path) {
                Some((_, items)) => items.push((f, at)),
                None => groups.push((path, vec![(f, at)])),
            }
        }
        for (path, items) in groups {
            let mut suite = TestSuite::new(path.as_str());
            package(&mut suite);
            let p = std::path::Path::new(&path);
            let classname = match p.file_stem() {
                Some(stem) => p.with_file_name(stem).display().to_string(),
                None => path.clone(),
            };
            for (f, at) in items {
                let message = &f.diagnostic.message;
                let mut status = TestCaseStatus::non_success(NonSuccessKind::Failure);
                status.set_message(message.as_str());
                let (row, col) = at.unwrap_or((1, 1));
                status.set_description(format!("line {row}, col {col}, {message}"));
                let code = code_of(f);
                let name = if code.is_empty() {
                    "org.tritonc".to_string()
                } else {
                    format!("org.tritonc.{code}")
                };
                let mut case = TestCase::new(name, status);
                case.set_classname(classname.as_str());
                case.extra
                    .insert(XmlString::new("line"), XmlString::new(row.to_string()));
                case.extra
                    .insert(XmlString::new("column"), XmlString::new(col.to_string()));
                suite.add_test_case(case);
            }
            report.add_test_suite(suite);
        }
    }
    report.to_string().unwrap_or_default()
}

#[derive(Serialize)]
struct RdLine {
    line: u32,
    column: u32,
}

#[derive(Serialize)]
struct RdRange {
    start: RdLine,
    end: RdLine,
}

#[derive(Serialize)]
struct RdLocation {
    path: String,
    range: RdRange,
}

#[derive(Serialize)]
struct RdCode {
    value: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    url: Option<String>,
}

#[derive(Serialize)]
struct RdSuggestion {
    range: RdRange,
    text: String,
}

#[derive(Serialize)]
struct RdDiagnostic {
    message: String,
    location: RdLocation,
    code: RdCode,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    suggestions: Vec<RdSuggestion>,
}

#[derive(Serialize)]
struct RdSource {
    name: &'static str,
    url: &'static str,
}

#[derive(Serialize)]
struct RdResult {
    source: RdSource,
    severity: &'static str,
    diagnostics: Vec<RdDiagnostic>,
}

fn rd_range(l: RowCol, e: RowCol) -> RdRange {
    RdRange {
        start: RdLine {
            line: l.row,
            column: l.column,
        },
        end: RdLine {
            line: e.row,
            column: e.column,
        },
    }
}

/// reviewdog's diagnostic format (rdjson), as ruff writes it: `source {name, url}`,
/// `severity: "WARNING"` and one diagnostic per finding with `message`, `location {path,
/// range {start, end}}` (1-based lines and UTF-16 columns), `code {value, url}` and, for a
/// finding with a fix, its edits as `suggestions [{range, text}]`.
pub fn render_rdjson(findings: &[Finding], sources: &SourceMap) -> String {
    let diagnostics = findings
        .iter()
        .map(|f| {
            let d = &f.diagnostic;
            let (path, l, e) = d
                .primary_span()
                .or_else(|| d.labels.first().map(|l| l.span))
                .and_then(|s| row_cols(s, sources))
                .unwrap_or_else(|| {
                    (
                        String::new(),
                        RowCol { row: 1, column: 1 },
                        RowCol { row: 1, column: 1 },
                    )
                });
            let suggestions = d
                .fix
                .iter()
                .flat_map(|fix| &fix.edits)
                .filter_map(|edit| {
                    let (_, s, t) = row_cols(edit.span, sources)?;
                    Some(RdSuggestion {
                        range: rd_range(s, t),
                        text: edit.replacement.clone(),
                    })
                })
                .collect();
            RdDiagnostic {
                message: d.message.clone(),
                location: RdLocation {
                    path,
                    range: rd_range(l, e),
                },
                code: RdCode {
                    value: code_of(f).to_string(),
                    url: rule_url(code_of(f)),
                },
                suggestions,
            }
        })
        .collect();
    let result = RdResult {
        source: RdSource {
            name: "tritonc",
            url: env!("CARGO_PKG_REPOSITORY"),
        },
        severity: "WARNING",
        diagnostics,
    };
    serde_json::to_string_pretty(&result).unwrap_or_else(|_| "{}".into()) + "\n"
}
