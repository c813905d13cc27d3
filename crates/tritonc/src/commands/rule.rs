//! `tritonc rule`: explain one diagnostic code, or list them all.

use serde::Serialize;
use tritonc_diagnostics::{CatalogEntry, Diagnostic, Format, SourceMap};

use crate::cli::RuleArgs;
use crate::codes::{self, catalog};
use crate::exit::Exit;
use crate::output::{write_to, Output, Stream};

/// A code as `rule --format json` prints it.
#[derive(Serialize)]
struct RuleJson<'a> {
    code: &'a str,
    name: &'a str,
    stage: &'a str,
    summary: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    explanation: Option<&'a str>,
}

impl<'a> RuleJson<'a> {
    fn new(entry: &'a CatalogEntry, with_explanation: bool) -> Self {
        RuleJson {
            code: entry.doc.code.0,
            name: entry.doc.name,
            stage: entry.stage,
            summary: entry.doc.summary,
            explanation: with_explanation.then_some(entry.doc.explanation),
        }
    }
}

/// Runs `rule`.
pub fn run(args: &RuleArgs, out: &Output) -> Exit {
    let catalog = catalog();
    let json = matches!(out.format, Format::Json | Format::JsonLines);
    if args.all {
        let entries = catalog.entries();
        let text = if json {
            let rows: Vec<RuleJson> = entries.iter().map(|e| RuleJson::new(e, false)).collect();
            to_json(&rows)
        } else {
            let width = entries.iter().map(|e| e.doc.name.len()).max().unwrap_or(0);
            entries
                .iter()
                .map(|e| {
                    format!(
                        "{:<7} {:<width$}  {}\n",
                        e.doc.code.0, e.doc.name, e.doc.summary
                    )
                })
                .collect()
        };
        write_to(Stream::Stdout, &text);
        return Exit::Success;
    }

    let code = args.code.as_deref().unwrap_or_default();
    // A code, or a name (`unmasked-block-access`) as ruff's `rule` accepts.
    let found = catalog.lookup(code).or_else(|| {
        catalog
            .entries()
            .into_iter()
            .find(|e| e.doc.name.eq_ignore_ascii_case(code.trim()))
    });
    match found {
        Some(entry) => {
            let text = if json {
                to_json(&RuleJson::new(&entry, true))
            } else {
                let doc = entry.doc;
                format!(
                    "# {} ({})\n\n{}.\n\n{}",
                    doc.code,
                    doc.name,
                    capitalize(doc.summary),
                    doc.explanation.trim_end().to_string() + "\n"
                )
            };
            write_to(Stream::Stdout, &text);
            Exit::Success
        }
        None => {
            let similar = catalog.codes_similar_to(code);
            let help = if similar.is_empty() {
                "`tritonc rule --all` lists every code".to_string()
            } else {
                let list: Vec<String> = similar.iter().map(|c| format!("`{c}`")).collect();
                format!(
                    "similar codes: {}; `tritonc rule --all` lists every code",
                    list.join(", ")
                )
            };
            let diagnostic = Diagnostic::error(
                codes::UNKNOWN_RULE_CODE,
                format!("no diagnostic code or rule name `{code}`"),
            )
            .with_help(help);
            out.diagnostics(Stream::Stderr, &[diagnostic], &SourceMap::new());
            Exit::InputError
        }
    }
}

fn to_json<T: Serialize>(value: &T) -> String {
    // Plain strings only: serialization cannot fail.
    serde_json::to_string_pretty(value).expect("rule documentation is always serializable") + "\n"
}

fn capitalize(text: &str) -> String {
    let mut chars = text.chars();
    match chars.next() {
        Some(first) => first.to_uppercase().chain(chars).collect(),
        None => String::new(),
    }
}
