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
