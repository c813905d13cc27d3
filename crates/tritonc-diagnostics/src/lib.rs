//! The diagnostic model shared by every stage of tritonc, and its renderers.
//!
//! A [`Diagnostic`] is plain data: a stable [`Code`], a [`Severity`], a message, labelled
//! spans (each in any file of the [`SourceMap`], so a label can point into a helper in
//! another file), notes, help and an optional machine-applicable [`Fix`]. Renderers
//! (terminal through miette, JSON, …) are small functions over it; nothing here does I/O
//! beyond writing to the `Write` it is handed.

pub mod registry;
pub mod render;
pub mod source;

pub use registry::{CatalogEntry, CodeCatalog, CodeDoc, CodeRegistry};
pub use render::{render, Format, TerminalOptions};
pub use source::{FileId, LineCol, LineIndex, SourceFile, SourceMap, Span};

/// How serious a diagnostic is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    /// Informational; never changes the exit code.
    Info,
    /// A likely bug; reported as a finding.
    Warning,
    /// The input cannot be processed as written.
    Error,
}

/// A stable diagnostic code such as `E0101` or `TRI101`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize)]
#[serde(transparent)]
pub struct Code(pub &'static str);

impl std::fmt::Display for Code {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.0)
    }
}

/// A span with an optional message. The primary label marks where the problem is;
/// secondary labels mark the spans that explain it.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct Label {
    /// Where the label points.
    pub span: Span,
    /// What the label says, if anything.
    pub message: Option<String>,
    /// Whether this is the primary label.
    pub primary: bool,
}

/// Replace the text under `span` with `replacement`.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct TextEdit {
    /// The text to replace (empty for an insertion).
    pub span: Span,
    /// The new text.
    pub replacement: String,
}

/// A suggested fix: a description and the edits that apply it.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct Fix {
    /// What the fix does, imperative ("pass `other=float('-inf')`").
    pub message: String,
    /// The edits; they must not overlap.
    pub edits: Vec<TextEdit>,
}

/// One diagnostic.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct Diagnostic {
    /// Stable code.
    pub code: Code,
    /// Severity.
    pub severity: Severity,
    /// The problem, stated in one sentence without a trailing period.
    pub message: String,
    /// Labelled spans; at most one is primary.
    pub labels: Vec<Label>,
    /// Facts the tool derived (`note:` lines).
    pub notes: Vec<String>,
    /// How to cure the problem (`help:` line).
    pub help: Option<String>,
    /// A machine-applicable fix, when one is known.
    pub fix: Option<Fix>,
}

impl Diagnostic {
    /// A diagnostic with the given severity, code and message and nothing else.
    pub fn new(severity: Severity, code: Code, message: impl Into<String>) -> Self {
        Diagnostic {
            code,
            severity,
            message: message.into(),
            labels: Vec::new(),
            notes: Vec::new(),
            help: None,
            fix: None,
        }
    }

    /// An error.
    pub fn error(code: Code, message: impl Into<String>) -> Self {
        Self::new(Severity::Error, code, message)
    }

    /// A warning.
    pub fn warning(code: Code, message: impl Into<String>) -> Self {
        Self::new(Severity::Warning, code, message)
    }

    /// Adds the primary label.
    pub fn with_primary(mut self, span: Span, message: impl Into<String>) -> Self {
        let message = message.into();
        self.labels.push(Label {
            span,
            message: (!message.is_empty()).then_some(message),
            primary: true,
        });
        self
    }

    /// Adds a secondary label.
    pub fn with_secondary(mut self, span: Span, message: impl Into<String>) -> Self {
        let message = message.into();
        self.labels.push(Label {
            span,
            message: (!message.is_empty()).then_some(message),
            primary: false,
        });
        self
    }

    /// Adds a `note:` line.
    pub fn with_note(mut self, note: impl Into<String>) -> Self {
        self.notes.push(note.into());
        self
    }

    /// Sets the `help:` line.
    pub fn with_help(mut self, help: impl Into<String>) -> Self {
        self.help = Some(help.into());
        self
    }

    /// Sets the fix.
    pub fn with_fix(mut self, fix: Fix) -> Self {
        self.fix = Some(fix);
        self
    }

    /// The primary label's span, if there is one.
    pub fn primary_span(&self) -> Option<Span> {
        self.labels.iter().find(|l| l.primary).map(|l| l.span)
    }
}
