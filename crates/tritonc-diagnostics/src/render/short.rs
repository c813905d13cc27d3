//! The short format: one line per diagnostic, `path:line:col: error[CODE]: message`.

use super::{location_span, resolve_span, severity_with_code};
use crate::{Diagnostic, SourceMap};

/// Renders one diagnostic on one line (no trailing newline). Without a location the
/// line starts at the severity: `error[E0501]: message`.
pub fn render_short(diagnostic: &Diagnostic, sources: &SourceMap) -> String {
    let head = severity_with_code(diagnostic);
    let message = one_line(&diagnostic.message);
    match location_span(diagnostic).and_then(|span| resolve_span(span, sources)) {
        Some(at) => {
            format!(
                "{}:{}:{}: {head}: {message}",
                at.path.display(),
                at.line,
                at.column
            )
        }
        None => format!("{head}: {message}"),
    }
}

/// The message with line breaks folded to spaces, so one diagnostic stays one line.
fn one_line(message: &str) -> String {
    message
        .split(['\n', '\r'])
        .filter(|s| !s.is_empty())
        .collect::<Vec<_>>()
        .join(" ")
}
