//! Renderers: each output format is a small function over [`Diagnostic`]s and the
//! [`SourceMap`] their spans point into.
//!
//! | format | module | for |
//! |---|---|---|
//! | terminal | [`terminal`] | people (miette, rustc-like `error[CODE]: message`) |
//! | short | [`short`] | grep, editors' error parsers (`path:line:col: error[CODE]: message`) |
//! | JSON, JSON Lines | [`json`] | tools; the schema is in `docs/diagnostics.md` |
//! | GitHub | [`github`] | workflow annotations (`::error file=…`) |
//! | SARIF 2.1.0 | [`sarif`] | GitHub code scanning (needs the code catalog, so it is called directly) |

pub mod github;
pub mod json;
pub mod sarif;
pub mod short;
pub mod terminal;

use std::path::Path;

pub use terminal::{render_terminal, TerminalOptions};

use crate::{Diagnostic, SourceMap, Span};

/// An output format for a list of diagnostics.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Format {
    /// The miette report, for terminals.
    Terminal,
    /// One line per diagnostic: `path:line:col: error[CODE]: message`.
    Short,
    /// A JSON array of diagnostic objects.
    Json,
    /// One JSON diagnostic object per line.
    JsonLines,
    /// GitHub Actions workflow commands (`::error file=…::message`).
    Github,
}

impl Format {
    /// Every format, in the order the CLI lists them.
    pub const ALL: [Format; 5] = [
        Format::Terminal,
        Format::Short,
        Format::Json,
        Format::JsonLines,
        Format::Github,
    ];

    /// The name the CLI accepts for this format.
    pub fn name(self) -> &'static str {
        match self {
            Format::Terminal => "terminal",
            Format::Short => "short",
            Format::Json => "json",
            Format::JsonLines => "json-lines",
            Format::Github => "github",
        }
    }

    /// Whether the output is meant for programs (no summary lines may be mixed into it).
    pub fn is_machine_readable(self) -> bool {
        matches!(self, Format::Json | Format::JsonLines | Format::Github)
    }
}

/// Renders `diagnostics` in `format`. `terminal` is used only by [`Format::Terminal`].
/// The result ends with a newline unless it is empty (JSON always yields at least `[]`).
pub fn render(
    format: Format,
    diagnostics: &[Diagnostic],
    sources: &SourceMap,
    terminal: &TerminalOptions,
) -> String {
    match format {
        Format::Terminal => {
            let mut out = String::new();
            for (i, diagnostic) in diagnostics.iter().enumerate() {
                if i > 0 {
                    out.push('\n');
                }
                out.push_str(&render_terminal(diagnostic, sources, terminal));
            }
            out
        }
        Format::Short => diagnostics
            .iter()
            .map(|d| short::render_short(d, sources) + "\n")
            .collect(),
        Format::Json => json::render_json(diagnostics, sources) + "\n",
        Format::JsonLines => json::render_json_lines(diagnostics, sources),
        Format::Github => diagnostics
            .iter()
            .map(|d| github::render_github(d, sources) + "\n")
            .collect(),
    }
}

/// A span resolved against its file: the path and 1-based positions.
///
/// Lines and columns are 1-based; `column` counts UTF-8 bytes from the line start,
/// `column_utf16` counts UTF-16 code units (what editors and LSP speak).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ResolvedSpan<'a> {
    /// The file's display path.
    pub path: &'a Path,
    /// First byte.
    pub start: u32,
    /// One past the last byte.
    pub end: u32,
    /// 1-based line of `start`.
    pub line: u32,
    /// 1-based UTF-8 column of `start`.
    pub column: u32,
    /// 1-based UTF-16 column of `start`.
    pub column_utf16: u32,
    /// 1-based line of `end`.
    pub end_line: u32,
    /// 1-based UTF-8 column of `end`.
    pub end_column: u32,
    /// 1-based UTF-16 column of `end`.
    pub end_column_utf16: u32,
}

/// Resolves `span` against `sources`; `None` when its file is not in the map.
/// Offsets past the end of the file clamp to the end.
pub fn resolve_span(span: Span, sources: &SourceMap) -> Option<ResolvedSpan<'_>> {
    let file = sources.try_get(span.file)?;
    let len = file.text().len() as u32;
    let (start, end) = (
        span.start.min(len),
        span.end.min(len).max(span.start.min(len)),
    );
    let s = file.line_col(start);
    let e = file.line_col(end);
    Some(ResolvedSpan {
        path: file.path(),
        start,
        end,
        line: s.line + 1,
        column: s.col_utf8 + 1,
        column_utf16: s.col_utf16 + 1,
        end_line: e.line + 1,
        end_column: e.col_utf8 + 1,
        end_column_utf16: e.col_utf16 + 1,
    })
}

/// Sorts diagnostics by the path and offset of their primary span, then by code; those
/// without a location come first, in their original order.
pub fn sort_diagnostics(diagnostics: &mut [Diagnostic], sources: &SourceMap) {
    diagnostics.sort_by_cached_key(|d| {
        let location = d
            .primary_span()
            .or_else(|| d.labels.first().map(|l| l.span))
            .and_then(|span| resolve_span(span, sources).map(|r| (r.path.to_path_buf(), r.start)));
        (location, d.code)
    });
}

/// The span a one-location format reports: the primary label, or else the first label.
pub(crate) fn location_span(diagnostic: &Diagnostic) -> Option<Span> {
    diagnostic
        .primary_span()
        .or_else(|| diagnostic.labels.first().map(|l| l.span))
}

/// `error`, `warning` or `info`.
pub(crate) fn severity_word(severity: crate::Severity) -> &'static str {
    match severity {
        crate::Severity::Error => "error",
        crate::Severity::Warning => "warning",
        crate::Severity::Info => "info",
    }
}

/// `error[E0101]`, or `error` when the code is empty.
pub(crate) fn severity_with_code(diagnostic: &Diagnostic) -> String {
    let word = severity_word(diagnostic.severity);
    if diagnostic.code.0.is_empty() {
        word.to_string()
    } else {
        format!("{word}[{}]", diagnostic.code)
    }
}
