//! GitHub Actions workflow commands: `::error file=…,line=…,col=…,title=CODE::message`.
//!
//! GitHub turns each line into an annotation on the pull request's diff.

use super::{location_span, resolve_span};
use crate::{Diagnostic, Severity, SourceMap};

/// Renders one diagnostic as one workflow command (no trailing newline).
pub fn render_github(diagnostic: &Diagnostic, sources: &SourceMap) -> String {
    let command = match diagnostic.severity {
        Severity::Error => "error",
        Severity::Warning => "warning",
        Severity::Info => "notice",
    };
    let mut properties = Vec::new();
    if let Some(at) = location_span(diagnostic).and_then(|span| resolve_span(span, sources)) {
        properties.push(format!(
            "file={}",
            escape_property(&at.path.display().to_string())
        ));
        properties.push(format!("line={}", at.line));
        properties.push(format!("col={}", at.column));
        if at.end_line > at.line {
            properties.push(format!("endLine={}", at.end_line));
        } else if at.end_column > at.column {
            properties.push(format!("endColumn={}", at.end_column));
        }
    }
    if !diagnostic.code.0.is_empty() {
        properties.push(format!("title={}", escape_property(diagnostic.code.0)));
    }
    let mut message = diagnostic.message.clone();
    if let Some(help) = &diagnostic.help {
        message.push_str("\nhelp: ");
        message.push_str(help);
    }
    format!(
        "::{command} {}::{}",
        properties.join(","),
        escape_data(&message)
    )
}

/// Escapes a command's message: `%`, CR and LF.
fn escape_data(text: &str) -> String {
    text.replace('%', "%25")
        .replace('\r', "%0D")
        .replace('\n', "%0A")
}

/// Escapes a property value: as data, plus `:` and `,`.
fn escape_property(text: &str) -> String {
    escape_data(text).replace(':', "%3A").replace(',', "%2C")
}
