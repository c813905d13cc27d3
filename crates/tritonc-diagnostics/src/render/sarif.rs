//! SARIF 2.1.0, in the shape GitHub code scanning accepts: one run whose `tool.driver`
//! lists the rules (id, name, descriptions, help, helpUri), and one result per located
//! diagnostic with a `ruleId`, a level, a physical location (URI relative to the source
//! root, 1-based lines, UTF-16 columns), `partialFingerprints` and any fix.
//!
//! Diagnostics without a location (a missing path, say) are not results — GitHub rejects
//! results without a location — but tool notifications of the run's invocation.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use serde_json::{json, Value};

use super::{location_span, resolve_span, ResolvedSpan};
use crate::{Code, CodeCatalog, Diagnostic, Severity, SourceMap};

/// The SARIF schema URI GitHub validates against.
pub const SCHEMA: &str = "https://json.schemastore.org/sarif-2.1.0.json";

/// The tool that produced the run.
#[derive(Debug, Clone, Copy)]
pub struct SarifTool<'a> {
    /// `tool.driver.name`.
    pub name: &'a str,
    /// `tool.driver.version` (and `semanticVersion`).
    pub version: &'a str,
    /// `tool.driver.informationUri`.
    pub information_uri: &'a str,
}

/// What the renderer needs besides the diagnostics.
pub struct SarifOptions<'a> {
    /// The tool.
    pub tool: &'a SarifTool<'a>,
    /// Where rule names and descriptions come from.
    pub catalog: &'a CodeCatalog,
    /// The documentation URL of a code, if it has one.
    pub help_uri: &'a dyn Fn(&str) -> Option<String>,
    /// Codes listed in the rule table even when nothing reported them.
    pub always_listed: &'a [Code],
    /// The directory artifact URIs are made relative to (the `%SRCROOT%` base).
    pub base: Option<&'a Path>,
}

/// The SARIF level of a severity.
fn level(severity: Severity) -> &'static str {
    match severity {
        Severity::Error => "error",
        Severity::Warning => "warning",
        Severity::Info => "note",
    }
}

/// Renders `diagnostics` as one SARIF log (pretty JSON, ending with a newline).
pub fn render_sarif(
    diagnostics: &[Diagnostic],
    sources: &SourceMap,
    options: &SarifOptions<'_>,
) -> String {
    let mut codes: BTreeSet<Code> = options.always_listed.iter().copied().collect();
    codes.extend(
        diagnostics
            .iter()
            .filter(|d| !d.code.0.is_empty())
            .map(|d| d.code),
    );
    let codes: Vec<Code> = codes.into_iter().collect();
    let rules: Vec<Value> = codes.iter().map(|c| rule(*c, options)).collect();

    let mut results = Vec::new();
    let mut notifications = Vec::new();
    // Occurrences of the same fingerprint get distinct suffixes, as GitHub's own
    // fingerprinting does (`hash:1`, `hash:2`, …).
    let mut occurrences: BTreeMap<String, u32> = BTreeMap::new();
    for d in diagnostics {
        let span = location_span(d);
        let located = span.and_then(|s| resolve_span(s, sources).map(|r| (s, r)));
        let Some((span, at)) = located else {
            notifications.push(json!({
                "level": level(d.severity),
                "message": { "text": message_text(d) },
                "descriptor": { "id": d.code.0 },
            }));
            continue;
        };
        let uri = artifact_uri(at.path, options.base);
        let line_text = sources
            .try_get(span.file)
            .map(|f| line_of(f.text(), at.start as usize))
            .unwrap_or_default();
        let hash = fingerprint(d.code.0, &uri, &line_text);
        let n = occurrences.entry(hash.clone()).or_insert(0);
        *n += 1;
        let mut result = json!({
            "ruleId": d.code.0,
            "level": level(d.severity),
            "message": { "text": message_text(d) },
            "locations": [{
                "physicalLocation": {
                    "artifactLocation": { "uri": uri, "uriBaseId": "%SRCROOT%" },
                    "region": region(&at),
                }
            }],
            "partialFingerprints": { "primaryLocationLineHash": format!("{hash}:{n}") },
        });
        if let Some(i) = codes.iter().position(|c| *c == d.code) {
            result["ruleIndex"] = json!(i);
        }
        let related: Vec<Value> = d
            .labels
            .iter()
            .filter(|l| !l.primary)
            .filter_map(|l| {
                let r = resolve_span(l.span, sources)?;
                Some(json!({
                    "physicalLocation": {
                        "artifactLocation": {
                            "uri": artifact_uri(r.path, options.base),
                            "uriBaseId": "%SRCROOT%",
                        },
                        "region": region(&r),
                    },
                    "message": { "text": l.message.clone().unwrap_or_default() },
                }))
            })
            .collect();
        if !related.is_empty() {
            result["relatedLocations"] = Value::Array(
                related
                    .into_iter()
                    .enumerate()
                    .map(|(i, mut v)| {
                        v["id"] = json!(i);
                        v
                    })
                    .collect(),
            );
        }
        if let Some(fix) = &d.fix {
            let mut changes: BTreeMap<String, Vec<Value>> = BTreeMap::new();
            for e in &fix.edits {
                if let Some(r) = resolve_span(e.span, sources) {
                    changes
                        .entry(artifact_uri(r.path, options.base))
                        .or_default()
                        .push(json!({
                            "deletedRegion": region(&r),
                            "insertedContent": { "text": e.replacement },
                        }));
                }
            }
            let changes: Vec<Value> = changes
                .into_iter()
                .map(|(uri, replacements)| {
                    json!({
                        "artifactLocation": { "uri": uri, "uriBaseId": "%SRCROOT%" },
                        "replacements": replacements,
                    })
                })
                .collect();
            if !changes.is_empty() {
                result["fixes"] = json!([{
                    "description": { "text": fix.message },
                    "artifactChanges": changes,
                }]);
            }
        }
        results.push(result);
    }

    let log = json!({
        "$schema": SCHEMA,
        "version": "2.1.0",
        "runs": [{
            "tool": {
                "driver": {
                    "name": options.tool.name,
                    "version": options.tool.version,
                    "semanticVersion": options.tool.version,
                    "informationUri": options.tool.information_uri,
                    "rules": rules,
                }
            },
            "invocations": [{
                "executionSuccessful": true,
                "toolExecutionNotifications": notifications,
            }],
            "originalUriBaseIds": {
                "%SRCROOT%": { "uri": base_uri(options.base) }
            },
            "columnKind": "utf16CodeUnits",
            "results": results,
        }]
    });
    // Serializing a `Value` cannot fail: every map key is a string.
    serde_json::to_string_pretty(&log).unwrap_or_default() + "\n"
}

/// A `reportingDescriptor` for `code`.
fn rule(code: Code, options: &SarifOptions<'_>) -> Value {
    let entry = options.catalog.lookup(code.0);
    let (name, summary, explanation) = match entry {
        Some(e) => (e.doc.name, e.doc.summary, e.doc.explanation),
        None => ("", "", ""),
    };
    let mut r = json!({
        "id": code.0,
        "name": name,
        "shortDescription": { "text": summary },
        "fullDescription": { "text": full_description(summary, explanation) },
        "help": { "text": explanation, "markdown": explanation },
        "properties": {
            "tags": [entry.map(|e| e.stage).unwrap_or("tritonc")],
        },
    });
    if let Some(uri) = (options.help_uri)(code.0) {
        r["helpUri"] = json!(uri);
    }
    r
}

/// The first paragraph of the explanation's "What it does" section, or the summary.
fn full_description(summary: &str, explanation: &str) -> String {
    let body = explanation
        .split_once("## What it does")
        .map(|(_, rest)| rest)
        .unwrap_or(explanation);
    let paragraph: Vec<&str> = body
        .trim_start()
        .lines()
        .take_while(|l| !l.trim().is_empty() && !l.starts_with('#'))
        .map(str::trim)
        .collect();
    if paragraph.is_empty() {
        summary.to_string()
    } else {
        paragraph.join(" ")
    }
}

/// The message with its help line, as GitHub shows only `message.text`.
fn message_text(d: &Diagnostic) -> String {
    match &d.help {
        Some(help) => format!("{}\nhelp: {help}", d.message),
        None => d.message.clone(),
    }
}

/// A SARIF region: 1-based lines, UTF-16 columns, end column exclusive.
fn region(r: &ResolvedSpan<'_>) -> Value {
    json!({
        "startLine": r.line,
        "startColumn": r.column_utf16,
        "endLine": r.end_line,
        "endColumn": r.end_column_utf16,
    })
}

/// `path` relative to `base` when it lies under it, with `/` separators and the
/// characters a URI reference may not hold percent-encoded.
pub fn artifact_uri(path: &Path, base: Option<&Path>) -> String {
    let relative = match base {
        Some(b) if path.is_absolute() => path.strip_prefix(b).unwrap_or(path),
        _ => path,
    };
    let text = relative.to_string_lossy().replace('\\', "/");
    let text = text.strip_prefix("./").unwrap_or(&text);
    let mut out = String::with_capacity(text.len());
    for byte in text.bytes() {
        match byte {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'.' | b'_' | b'~' | b'/' => {
                out.push(byte as char)
            }
            _ => out.push_str(&format!("%{byte:02X}")),
        }
    }
    out
}

/// The `file://` URI of the base directory (with a trailing slash, as SARIF requires).
fn base_uri(base: Option<&Path>) -> String {
    match base {
        Some(b) => {
            let path = artifact_uri(b, None);
            let path = if path.starts_with('/') {
                path
            } else {
                format!("/{path}")
            };
            format!("file://{}/", path.trim_end_matches('/'))
        }
        None => "file:///".to_string(),
    }
}

/// The text of the line holding byte `offset`.
fn line_of(text: &str, offset: usize) -> String {
    let offset = offset.min(text.len());
    let start = text[..offset].rfind('\n').map_or(0, |i| i + 1);
    let end = text[offset..].find('\n').map_or(text.len(), |i| offset + i);
    text[start..end].to_string()
}

/// A stable hash (FNV-1a, 64 bits, hex) of the code, the file and the line's text with
/// whitespace collapsed: it survives edits elsewhere in the file and re-indentation, so
/// GitHub tracks the same alert across commits.
pub fn fingerprint(code: &str, uri: &str, line_text: &str) -> String {
    let normalized: Vec<&str> = line_text.split_whitespace().collect();
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    for part in [code, "\0", uri, "\0", &normalized.join(" ")] {
        for byte in part.bytes() {
            hash ^= u64::from(byte);
            hash = hash.wrapping_mul(0x0100_0000_01b3);
        }
    }
    format!("{hash:016x}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn uris_are_relative_and_encoded() {
        assert_eq!(
            artifact_uri(Path::new("/repo/k dir/a.py"), Some(Path::new("/repo"))),
            "k%20dir/a.py"
        );
        assert_eq!(artifact_uri(Path::new("./a.py"), None), "a.py");
        assert_eq!(base_uri(Some(Path::new("/repo"))), "file:///repo/");
    }

    #[test]
    fn fingerprints_ignore_indentation_but_not_content() {
        let a = fingerprint("TRI101", "k.py", "    x = tl.load(p)");
        assert_eq!(a, fingerprint("TRI101", "k.py", "x   = tl.load(p)  "));
        assert_ne!(a, fingerprint("TRI102", "k.py", "x = tl.load(p)"));
        assert_ne!(a, fingerprint("TRI101", "j.py", "x = tl.load(p)"));
        assert_eq!(a.len(), 16);
    }

    #[test]
    fn full_description_is_the_first_paragraph() {
        let e = "## What it does\nReports a thing\nover two lines.\n\nMore.\n## Why";
        assert_eq!(full_description("s", e), "Reports a thing over two lines.");
        assert_eq!(full_description("s", ""), "s");
    }
}
