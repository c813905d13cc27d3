//! Shared helpers for the lint tests: lint a source text and render its findings.

use std::path::Path;

use tritonc_diagnostics::render::{render_terminal, TerminalOptions};
use tritonc_diagnostics::SourceMap;
use tritonc_lint::{lint_file, Finding, Settings};

/// Lints `text` as the file `path` with `settings`.
pub fn lint_text(path: &str, text: &str, settings: &Settings) -> (Vec<Finding>, SourceMap) {
    let mut sources = SourceMap::new();
    let file = sources.add(path, text.to_string());
    let parsed = tritonc_syntax::parse_module(file, text);
    let index = tritonc_syntax::discover(&parsed.module);
    let report = lint_file(
        file,
        Path::new(path),
        text,
        &parsed.module,
        &index,
        settings,
    );
    let mut findings = report.findings;
    findings.sort_by_key(|f| {
        (
            f.diagnostic.primary_span().map(|s| s.start),
            f.diagnostic.code,
        )
    });
    (findings, sources)
}

/// Renders findings as plain terminal text.
pub fn render(findings: &[Finding], sources: &SourceMap) -> String {
    let opts = TerminalOptions::for_stream(false, Some(false));
    findings
        .iter()
        .map(|f| render_terminal(&f.diagnostic, sources, &opts))
        .collect::<Vec<_>>()
        .join("\n")
}

/// The codes of findings, with the 1-based line of each.
pub fn codes_and_lines(findings: &[Finding], sources: &SourceMap) -> Vec<(String, u32)> {
    findings
        .iter()
        .map(|f| {
            let line = f
                .diagnostic
                .primary_span()
                .and_then(|s| tritonc_diagnostics::render::resolve_span(s, sources))
                .map(|r| r.line)
                .unwrap_or(0);
            (f.diagnostic.code.0.to_string(), line)
        })
        .collect()
}
