//! JSON output: one object per diagnostic, as an array or as JSON Lines.
//!
//! The schema is documented in `docs/diagnostics.md`; field order is fixed by the structs
//! below (serde writes fields in declaration order), so outputs diff cleanly.

use serde::Serialize;

use super::{location_span, resolve_span, severity_word};
use crate::{Diagnostic, SourceMap, Span};

/// A location in JSON: byte offsets plus 1-based lines and columns (UTF-8 and UTF-16).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct JsonSpan {
    /// First byte (0-based offset into the file).
    pub start: u32,
    /// One past the last byte.
    pub end: u32,
    /// 1-based line of `start`.
    pub line: u32,
    /// 1-based column of `start`, in UTF-8 bytes.
    pub column: u32,
    /// 1-based column of `start`, in UTF-16 code units.
    pub column_utf16: u32,
    /// 1-based line of `end`.
    pub end_line: u32,
    /// 1-based column of `end`, in UTF-8 bytes.
    pub end_column: u32,
    /// 1-based column of `end`, in UTF-16 code units.
    pub end_column_utf16: u32,
}

/// A labelled span in JSON.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct JsonLabel {
    /// The file's display path (`null` if the span's file is unknown).
    pub file: Option<String>,
    /// Where the label points (`null` if the span's file is unknown).
    pub span: Option<JsonSpan>,
    /// The label's text.
    pub message: Option<String>,
    /// Whether this is the primary label.
    pub primary: bool,
}

/// One edit of a fix in JSON.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct JsonEdit {
    /// The file's display path.
    pub file: Option<String>,
    /// The replaced range (empty for an insertion).
    pub span: Option<JsonSpan>,
    /// The new text.
    pub replacement: String,
}

/// A fix in JSON.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct JsonFix {
    /// What the fix does.
    pub message: String,
    /// The edits, in the order given.
    pub edits: Vec<JsonEdit>,
}

/// One diagnostic in JSON. `file` and `span` repeat the primary label's location (or the
/// first label's, if none is primary) so simple consumers need not search `labels`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct JsonDiagnostic {
    /// Stable code, e.g. `E0101`.
    pub code: String,
    /// `error`, `warning` or `info`.
    pub severity: &'static str,
    /// The problem, one sentence.
    pub message: String,
    /// Display path of the primary location's file (`null` when there is no location).
    pub file: Option<String>,
    /// The primary location (`null` when there is none).
    pub span: Option<JsonSpan>,
    /// Every label, primary and secondary, in the diagnostic's order.
    pub labels: Vec<JsonLabel>,
    /// `note:` lines.
    pub notes: Vec<String>,
    /// The `help:` line.
    pub help: Option<String>,
    /// A machine-applicable fix.
    pub fix: Option<JsonFix>,
}

impl JsonDiagnostic {
    /// Converts a diagnostic, resolving its spans against `sources`.
    pub fn new(diagnostic: &Diagnostic, sources: &SourceMap) -> Self {
        let (file, span) = match location_span(diagnostic) {
            Some(at) => located(at, sources),
            None => (None, None),
        };
        JsonDiagnostic {
            code: diagnostic.code.0.to_string(),
            severity: severity_word(diagnostic.severity),
            message: diagnostic.message.clone(),
            file,
            span,
            labels: diagnostic
                .labels
                .iter()
                .map(|label| {
                    let (file, span) = located(label.span, sources);
                    JsonLabel {
                        file,
                        span,
                        message: label.message.clone(),
                        primary: label.primary,
                    }
                })
                .collect(),
            notes: diagnostic.notes.clone(),
            help: diagnostic.help.clone(),
            fix: diagnostic.fix.as_ref().map(|fix| JsonFix {
                message: fix.message.clone(),
                edits: fix
                    .edits
                    .iter()
                    .map(|edit| {
                        let (file, span) = located(edit.span, sources);
                        JsonEdit {
                            file,
                            span,
                            replacement: edit.replacement.clone(),
                        }
                    })
                    .collect(),
            }),
        }
    }
}

fn located(span: Span, sources: &SourceMap) -> (Option<String>, Option<JsonSpan>) {
    match resolve_span(span, sources) {
        Some(r) => (
            Some(r.path.display().to_string()),
            Some(JsonSpan {
                start: r.start,
                end: r.end,
                line: r.line,
                column: r.column,
                column_utf16: r.column_utf16,
                end_line: r.end_line,
                end_column: r.end_column,
                end_column_utf16: r.end_column_utf16,
            }),
        ),
        None => (None, None),
    }
}

/// Renders diagnostics as a pretty-printed JSON array (no trailing newline).
pub fn render_json(diagnostics: &[Diagnostic], sources: &SourceMap) -> String {
    let values: Vec<JsonDiagnostic> = diagnostics
        .iter()
        .map(|d| JsonDiagnostic::new(d, sources))
        .collect();
    // Serializing plain structs of strings and integers cannot fail.
    serde_json::to_string_pretty(&values).expect("JSON diagnostics are always serializable")
}

/// Renders diagnostics as JSON Lines: one compact object per line, each line ending in `\n`.
pub fn render_json_lines(diagnostics: &[Diagnostic], sources: &SourceMap) -> String {
    let mut out = String::new();
    for diagnostic in diagnostics {
        let value = JsonDiagnostic::new(diagnostic, sources);
        out.push_str(
            &serde_json::to_string(&value).expect("JSON diagnostics are always serializable"),
        );
        out.push('\n');
    }
    out
}
