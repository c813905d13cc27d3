//! Our diagnostics as protocol diagnostics: ranges in UTF-16 columns, severities, the
//! rule's code and documentation URL, secondary labels as related information, tags.

use lsp_types::{
    CodeDescription, DiagnosticRelatedInformation, DiagnosticSeverity, DiagnosticTag, Location,
    NumberOrString, Position, Range, Url,
};
use tritonc_diagnostics::{Severity, Span};
use tritonc_lint::output::rule_url;
use tritonc_lint::registry::UNUSED_SUPPRESSION;
use tritonc_lint::Finding;

use crate::check::Checked;

/// The `source` of every diagnostic the server publishes.
pub const SOURCE: &str = "tritonc";

/// Every finding of `checked` as a protocol diagnostic of the document at `uri`.
pub fn lsp_diagnostics(checked: &Checked, uri: &Url) -> Vec<lsp_types::Diagnostic> {
    checked
        .findings
        .iter()
        .map(|f| lsp_diagnostic(f, checked, uri))
        .collect()
}

/// One finding as a protocol diagnostic. Notes and help follow the message on their own
/// lines (as rustc prints them); a primary span in another file puts the diagnostic at the
/// document's start with that span as related information.
pub fn lsp_diagnostic(finding: &Finding, checked: &Checked, uri: &Url) -> lsp_types::Diagnostic {
    let d = &finding.diagnostic;
    let primary = d.primary_span();
    let range = primary
        .filter(|s| s.file == checked.file)
        .and_then(|s| range_in(checked, s))
        .unwrap_or_default();
    let mut message = d.message.clone();
    for note in &d.notes {
        message.push_str("\nnote: ");
        message.push_str(note);
    }
    if let Some(help) = &d.help {
        message.push_str("\nhelp: ");
        message.push_str(help);
    }
    let mut related = Vec::new();
    for label in &d.labels {
        let elsewhere = label.span.file != checked.file;
        if label.primary && !elsewhere {
            continue;
        }
        if let Some(location) = location(checked, uri, label.span) {
            let text = label.message.clone().filter(|m| !m.is_empty());
            related.push(DiagnosticRelatedInformation {
                location,
                message: text.unwrap_or_else(|| d.message.clone()),
            });
        }
    }
    let code = (!d.code.0.is_empty()).then(|| NumberOrString::String(d.code.0.to_string()));
    let code_description = rule_url(d.code.0)
        .and_then(|u| Url::parse(&u).ok())
        .map(|href| CodeDescription { href });
    let tags = (d.code == UNUSED_SUPPRESSION).then(|| vec![DiagnosticTag::UNNECESSARY]);
    lsp_types::Diagnostic {
        range,
        severity: Some(severity(d.severity)),
        code,
        code_description,
        source: Some(SOURCE.into()),
        message,
        related_information: (!related.is_empty()).then_some(related),
        tags,
        data: None,
    }
}

/// The protocol severity of ours.
pub fn severity(severity: Severity) -> DiagnosticSeverity {
    match severity {
        Severity::Error => DiagnosticSeverity::ERROR,
        Severity::Warning => DiagnosticSeverity::WARNING,
        Severity::Info => DiagnosticSeverity::INFORMATION,
    }
}

/// The range of `span` in whichever file of `checked` holds it (UTF-16 columns).
pub fn range_in(checked: &Checked, span: Span) -> Option<Range> {
    let file = checked.sources.try_get(span.file)?;
    let len = file.text().len() as u32;
    let start = file.line_col(span.start.min(len));
    let end = file.line_col(span.end.min(len).max(span.start.min(len)));
    Some(Range::new(
        Position::new(start.line, start.col_utf16),
        Position::new(end.line, end.col_utf16),
    ))
}

/// Where `span` is: in the document itself, or in another file of the source map.
fn location(checked: &Checked, uri: &Url, span: Span) -> Option<Location> {
    let range = range_in(checked, span)?;
    let target = if span.file == checked.file {
        uri.clone()
    } else {
        let path = checked.sources.try_get(span.file)?.path();
        let absolute = std::fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf());
        Url::from_file_path(absolute).ok()?
    };
    Some(Location::new(target, range))
}

/// Whether two ranges overlap or touch (an empty range at a diagnostic's edge counts: a
/// cursor right after the span still asks for its fixes).
pub fn ranges_meet(a: Range, b: Range) -> bool {
    a.start <= b.end && b.start <= a.end
}

#[cfg(test)]
mod tests {
    use super::*;
    use tritonc_diagnostics::{Diagnostic, SourceMap};

    #[test]
    fn labels_in_other_files_become_related_locations() {
        let mut sources = SourceMap::new();
        let file = sources.add("/k/kernel.py", "x = 1\ny = 2\n");
        let helper = sources.add("/k/helpers.py", "def h():\n    é = 3\n");
        let d = Diagnostic::warning(tritonc_diagnostics::Code("TRI101"), "m")
            .with_primary(Span::new(file, 6, 11), "here")
            .with_secondary(Span::new(helper, 13, 18), "helper")
            .with_secondary(Span::new(file, 0, 1), "");
        let checked = Checked {
            sources,
            file,
            findings: vec![Finding::new(d)],
        };
        let uri = Url::parse("file:///k/kernel.py").unwrap();
        let out = lsp_diagnostics(&checked, &uri);
        let d = &out[0];
        assert_eq!(
            d.range,
            Range::new(Position::new(1, 0), Position::new(1, 5))
        );
        let related = d.related_information.as_ref().unwrap();
        assert_eq!(related.len(), 2);
        assert_eq!(related[0].location.uri.path(), "/k/helpers.py");
        // `    é = 3`: bytes 4..9 of line 1 are UTF-16 columns 4..8.
        assert_eq!(
            related[0].location.range,
            Range::new(Position::new(1, 4), Position::new(1, 8))
        );
        assert_eq!(related[0].message, "helper");
        // A label without text takes the diagnostic's message.
        assert_eq!(related[1].location.uri, uri);
        assert_eq!(related[1].message, "m");
        assert_eq!(d.code, Some(NumberOrString::String("TRI101".into())));
        assert!(d
            .code_description
            .as_ref()
            .unwrap()
            .href
            .as_str()
            .ends_with("TRI101.md"));
    }
}
