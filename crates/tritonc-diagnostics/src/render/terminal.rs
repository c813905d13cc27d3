//! The terminal renderer: rustc-style headers over miette's graphical snippets.
//!
//! miette draws the source snippets; the header reads `error[E0101]: message` because
//! the theme's severity "icon" is set to `error[E0101]:` for each report. Labels are
//! grouped by file: the primary label's file is drawn under the header, every other file
//! gets its own `note:` snippet (miette draws one source per report). Notes and help
//! follow, rustc-style.

use std::fmt;
use std::sync::Arc;

use miette::{
    GraphicalReportHandler, GraphicalTheme, LabeledSpan, MietteError, MietteSpanContents,
    SourceCode, SourceSpan, SpanContents, ThemeCharacters, ThemeStyles,
};

use super::severity_with_code;
use crate::{Diagnostic, FileId, Label, Severity, SourceFile, SourceMap};

/// How to draw terminal output. Tests use [`TerminalOptions::plain`] for deterministic text.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TerminalOptions {
    /// Emit ANSI colours.
    pub color: bool,
    /// Draw with Unicode box characters (else ASCII).
    pub unicode: bool,
    /// Wrap width in columns.
    pub width: usize,
}

impl TerminalOptions {
    /// No colour, ASCII art, the given width: stable text for snapshots and pipes.
    pub fn plain(width: usize) -> Self {
        TerminalOptions {
            color: false,
            unicode: false,
            width,
        }
    }

    /// Options for a stream: `is_terminal` says whether it is a TTY, `color` is the user's
    /// choice (`None` = auto: colour on a TTY unless `NO_COLOR` is set and non-empty).
    /// Unicode is drawn on TTYs only, as miette's default theme does.
    pub fn for_stream(is_terminal: bool, color: Option<bool>) -> Self {
        let no_color_env = std::env::var_os("NO_COLOR").is_some_and(|v| !v.is_empty());
        let color = color.unwrap_or(is_terminal && !no_color_env);
        TerminalOptions {
            color,
            unicode: is_terminal,
            width: 100,
        }
    }

    fn theme(&self, icon: &str) -> GraphicalTheme {
        let mut characters = if self.unicode {
            ThemeCharacters::unicode()
        } else {
            ThemeCharacters::ascii()
        };
        characters.error = icon.to_string();
        characters.warning = icon.to_string();
        characters.advice = icon.to_string();
        let styles = if self.color {
            ThemeStyles::ansi()
        } else {
            ThemeStyles::none()
        };
        GraphicalTheme { characters, styles }
    }

    fn handler(&self, icon: &str) -> GraphicalReportHandler {
        GraphicalReportHandler::new_themed(self.theme(icon))
            .with_width(self.width)
            // Messages stay on one line, as rustc prints them; only snippets use the width.
            .with_wrap_lines(false)
            .with_links(false)
            .with_urls(false)
            .with_context_lines(1)
    }
}

/// Renders one diagnostic as terminal text (ends with a newline).
pub fn render_terminal(
    diagnostic: &Diagnostic,
    sources: &SourceMap,
    options: &TerminalOptions,
) -> String {
    let groups = group_labels_by_file(diagnostic, sources);
    let mut out = String::new();

    // The header, with the labels of the first file (the primary label's).
    let (first, rest) = match groups.split_first() {
        Some((first, rest)) => (Some(first), rest),
        None => (None, &[][..]),
    };
    let head = SnippetReport {
        message: diagnostic.message.clone(),
        severity: miette_severity(diagnostic.severity),
        source: first.map(|g| FileSource(g.file.clone())),
        labels: first.map(|g| g.labels.clone()).unwrap_or_default(),
    };
    render_with(
        &options.handler(&format!("{}:", severity_with_code(diagnostic))),
        &head,
        &mut out,
    );

    // One `note:` snippet per further file.
    for group in rest {
        let (message, labels) = match group.labels.as_slice() {
            [only] if only.label().is_some() => {
                let message = only.label().unwrap_or_default().to_string();
                (
                    message,
                    vec![LabeledSpan::new_with_span(None, *only.inner())],
                )
            }
            labels => (
                format!("in {}", group.file.path().display()),
                labels.to_vec(),
            ),
        };
        let report = SnippetReport {
            message,
            severity: miette::Severity::Advice,
            source: Some(FileSource(group.file.clone())),
            labels,
        };
        render_with(&options.handler("note:"), &report, &mut out);
    }

    let paint = Paint {
        color: options.color,
    };
    for note in &diagnostic.notes {
        out.push_str(&format!("  {} {note}\n", paint.bold("note:")));
    }
    if let Some(help) = &diagnostic.help {
        out.push_str(&format!("  {} {help}\n", paint.help("help:")));
    }
    if let Some(fix) = &diagnostic.fix {
        if diagnostic.help.as_deref() != Some(fix.message.as_str()) {
            out.push_str(&format!("  {} {}\n", paint.help("help:"), fix.message));
        }
    }
    out
}

fn render_with(handler: &GraphicalReportHandler, report: &SnippetReport, out: &mut String) {
    let mut text = String::new();
    if handler.render_report(&mut text, report).is_err() {
        // miette fails only when a span cannot be read; fall back to the bare message.
        text = format!("  {}\n", report.message);
    }
    out.push_str(&text);
}

fn miette_severity(severity: Severity) -> miette::Severity {
    match severity {
        Severity::Error => miette::Severity::Error,
        Severity::Warning => miette::Severity::Warning,
        Severity::Info => miette::Severity::Advice,
    }
}

/// The labels that fall in one file, converted to miette spans.
struct FileLabels {
    file: Arc<SourceFile>,
    labels: Vec<LabeledSpan>,
}

/// Groups labels by file: the primary label's file first, then files in label order.
/// Labels whose file is not in the map are dropped (they cannot be drawn).
fn group_labels_by_file(diagnostic: &Diagnostic, sources: &SourceMap) -> Vec<FileLabels> {
    let mut order: Vec<FileId> = Vec::new();
    let primary_file = diagnostic.primary_span().map(|s| s.file);
    if let Some(file) = primary_file {
        order.push(file);
    }
    for label in &diagnostic.labels {
        if !order.contains(&label.span.file) {
            order.push(label.span.file);
        }
    }
    order
        .into_iter()
        .filter_map(|id| {
            let file = sources.try_get(id)?.clone();
            let labels = diagnostic
                .labels
                .iter()
                .filter(|l| l.span.file == id)
                .map(|l| to_miette_label(l, &file))
                .collect();
            Some(FileLabels { file, labels })
        })
        .collect()
}

fn to_miette_label(label: &Label, file: &SourceFile) -> LabeledSpan {
    let len = file.text().len();
    let start = (label.span.start as usize).min(len);
    let end = (label.span.end as usize).clamp(start, len);
    let span = SourceSpan::from(start..end);
    if label.primary {
        LabeledSpan::new_primary_with_span(label.message.clone(), span)
    } else {
        LabeledSpan::new_with_span(label.message.clone(), span)
    }
}

/// A [`SourceFile`] as miette source code, named by its display path.
#[derive(Debug)]
struct FileSource(Arc<SourceFile>);

impl SourceCode for FileSource {
    fn read_span<'a>(
        &'a self,
        span: &SourceSpan,
        context_lines_before: usize,
        context_lines_after: usize,
    ) -> Result<Box<dyn SpanContents<'a> + 'a>, MietteError> {
        let contents = self
            .0
            .text()
            .read_span(span, context_lines_before, context_lines_after)?;
        Ok(Box::new(MietteSpanContents::new_named(
            self.0.path().display().to_string(),
            contents.data(),
            *contents.span(),
            contents.line(),
            contents.column(),
            contents.line_count(),
        )))
    }
}

/// One miette report: a message and the labels of one file.
#[derive(Debug)]
struct SnippetReport {
    message: String,
    severity: miette::Severity,
    source: Option<FileSource>,
    labels: Vec<LabeledSpan>,
}

impl fmt::Display for SnippetReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for SnippetReport {}

impl miette::Diagnostic for SnippetReport {
    fn severity(&self) -> Option<miette::Severity> {
        Some(self.severity)
    }

    fn source_code(&self) -> Option<&dyn SourceCode> {
        self.source.as_ref().map(|s| s as &dyn SourceCode)
    }

    fn labels(&self) -> Option<Box<dyn Iterator<Item = LabeledSpan> + '_>> {
        if self.labels.is_empty() {
            None
        } else {
            Some(Box::new(self.labels.iter().cloned()))
        }
    }
}

/// Minimal ANSI styling for the lines drawn outside miette.
struct Paint {
    color: bool,
}

impl Paint {
    fn bold(&self, text: &str) -> String {
        self.style("1", text)
    }

    fn help(&self, text: &str) -> String {
        self.style("36", text)
    }

    fn style(&self, sgr: &str, text: &str) -> String {
        if self.color {
            format!("\u{1b}[{sgr}m{text}\u{1b}[0m")
        } else {
            text.to_string()
        }
    }
}
