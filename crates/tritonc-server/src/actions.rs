//! Code actions: the fixes lint attaches to its findings, `# noqa` suppressions, and one
//! action that applies every safe fix of the document (`source.fixAll.tritonc`).

use std::collections::HashMap;

use lsp_types::{
    CodeAction, CodeActionContext, CodeActionKind, CodeActionOrCommand, NumberOrString, Range,
    TextEdit, Url, WorkspaceEdit,
};
use tritonc_lint::fix::{apply_fixes, FixMode};
use tritonc_lint::registry::UNUSED_SUPPRESSION;
use tritonc_lint::suppress::Suppressions;
use tritonc_lint::{Applicability, Finding};

use crate::check::Checked;
use crate::convert::{lsp_diagnostic, range_in, ranges_meet, SOURCE};
use crate::documents::Document;

/// The kind of the action that applies every safe fix of a document.
pub fn fix_all_kind() -> CodeActionKind {
    CodeActionKind::new("source.fixAll.tritonc")
}

/// The code actions for a request on `range` of the document: quick fixes for the findings
/// whose primary range meets `range` or that the request's context names (editors send the
/// diagnostics of the cursor's line, whatever the column) — each finding's fix (safe fixes
/// preferred; unsafe ones say so in the title), then one "suppress" action per rule and
/// line — and the fix-all action when some safe fix applies. `context.only` limits the
/// kinds (`quickfix`, `source.fixAll`, or a prefix of either).
pub fn code_actions(
    doc: &Document,
    uri: &Url,
    range: Range,
    context: &CodeActionContext,
) -> Vec<CodeActionOrCommand> {
    let Some(checked) = doc.checked() else {
        return Vec::new();
    };
    let mut out = Vec::new();
    if wanted(context, &CodeActionKind::QUICKFIX) {
        out.extend(quick_fixes(doc, checked, uri, range, context));
    }
    if wanted(context, &fix_all_kind()) {
        out.extend(fix_all(doc, checked, uri));
    }
    out.into_iter()
        .map(CodeActionOrCommand::CodeAction)
        .collect()
}

/// Whether the request asks for actions of `kind`: no `only`, or an `only` entry that is
/// `kind` or one of its parents (`source` and `source.fixAll` cover
/// `source.fixAll.tritonc`).
fn wanted(context: &CodeActionContext, kind: &CodeActionKind) -> bool {
    let Some(only) = &context.only else {
        return true;
    };
    let kind = kind.as_str();
    only.iter().any(|k| {
        let k = k.as_str();
        kind == k
            || kind
                .strip_prefix(k)
                .is_some_and(|rest| rest.starts_with('.'))
    })
}

/// Whether the request's context carries `d` (the same code and range, from this server).
fn in_context(context: &CodeActionContext, d: &lsp_types::Diagnostic) -> bool {
    context.diagnostics.iter().any(|c| {
        c.range == d.range
            && c.code == d.code
            && c.source.as_deref().is_none_or(|s| s == SOURCE)
            && matches!(&c.code, Some(NumberOrString::String(_)))
    })
}

fn quick_fixes(
    doc: &Document,
    checked: &Checked,
    uri: &Url,
    range: Range,
    context: &CodeActionContext,
) -> Vec<CodeAction> {
    let mut fixes = Vec::new();
    let mut suppressions = Vec::new();
    let mut suppressed: Vec<(&str, usize)> = Vec::new();
    for finding in &checked.findings {
        let Some(primary) = finding.diagnostic.primary_span() else {
            continue;
        };
        if primary.file != checked.file {
            continue;
        }
        let Some(found_at) = range_in(checked, primary) else {
            continue;
        };
        let diagnostic = lsp_diagnostic(finding, checked, uri);
        if !ranges_meet(found_at, range) && !in_context(context, &diagnostic) {
            continue;
        }
        if let Some(action) = fix_action(finding, checked, uri, diagnostic.clone()) {
            fixes.push(action);
        }
        let code = finding.diagnostic.code.0;
        let line = found_at.start.line as usize;
        if is_suppressible(code) && !suppressed.contains(&(code, line)) {
            if let Some(edit) = suppression_edit(doc, code, line) {
                suppressed.push((code, line));
                suppressions.push(CodeAction {
                    title: format!("Suppress {code} on this line"),
                    kind: Some(CodeActionKind::QUICKFIX),
                    diagnostics: Some(vec![diagnostic]),
                    edit: Some(workspace_edit(uri, vec![edit])),
                    is_preferred: Some(false),
                    ..Default::default()
                });
            }
        }
    }
    fixes.into_iter().chain(suppressions).collect()
}

/// Every safe fix of the document applied at once, as `tritonc lint --fix` applies one
/// pass (a fix that overlaps an earlier one waits for the next request): one edit that
/// replaces the document's text. `None` when no safe fix applies, or the document has a
/// syntax error (a file the parser rejects is never rewritten).
fn fix_all(doc: &Document, checked: &Checked, uri: &Url) -> Option<CodeAction> {
    if checked.findings.iter().any(|f| {
        f.diagnostic.code.0.starts_with('E')
            && f.diagnostic.severity == tritonc_diagnostics::Severity::Error
    }) {
        return None;
    }
    let lint_only: Vec<Finding> = checked
        .findings
        .iter()
        .filter(|f| f.diagnostic.code.0.starts_with("TRI"))
        .cloned()
        .collect();
    let text = checked.sources.get(checked.file).text();
    if text != doc.text() {
        return None;
    }
    let (new_text, fixed) = apply_fixes(text, checked.file, &lint_only, FixMode::Safe);
    if fixed == 0 || new_text == text {
        return None;
    }
    let whole = doc.range(0, text.len() as u32);
    Some(CodeAction {
        title: "Fix all safe tritonc findings".into(),
        kind: Some(fix_all_kind()),
        edit: Some(workspace_edit(uri, vec![TextEdit::new(whole, new_text)])),
        ..Default::default()
    })
}

/// Lint rules can be suppressed; front-end errors and the unused-suppression report
/// cannot (the cure for the latter is its own fix).
fn is_suppressible(code: &str) -> bool {
    code.starts_with("TRI") && code != UNUSED_SUPPRESSION.0
}

/// The finding's fix as an action, when all its edits are in the document.
fn fix_action(
    finding: &Finding,
    checked: &Checked,
    uri: &Url,
    diagnostic: lsp_types::Diagnostic,
) -> Option<CodeAction> {
    let fix = finding.diagnostic.fix.as_ref()?;
    let mut edits = Vec::new();
    for e in &fix.edits {
        if e.span.file != checked.file {
            return None;
        }
        edits.push(TextEdit::new(
            range_in(checked, e.span)?,
            e.replacement.clone(),
        ));
    }
    let safe = finding.applicability == Applicability::Safe;
    let title = if safe {
        capitalized(&fix.message)
    } else {
        format!("{} (unsafe fix)", capitalized(&fix.message))
    };
    Some(CodeAction {
        title,
        kind: Some(CodeActionKind::QUICKFIX),
        diagnostics: Some(vec![diagnostic]),
        edit: Some(workspace_edit(uri, edits)),
        is_preferred: Some(safe),
        ..Default::default()
    })
}

fn capitalized(s: &str) -> String {
    let mut chars = s.chars();
    match chars.next() {
        Some(c) => c.to_uppercase().chain(chars).collect(),
        None => String::new(),
    }
}

fn workspace_edit(uri: &Url, edits: Vec<TextEdit>) -> WorkspaceEdit {
    WorkspaceEdit {
        changes: Some(HashMap::from([(uri.clone(), edits)])),
        ..Default::default()
    }
}

/// The edit that suppresses `code` on 0-based `line`: the code added to the line's
/// `# noqa: …` or `# tritonc: ignore[…]` list, or a new `# noqa: CODE` at the line's end.
/// `None` where a comment cannot go (a line continued with `\`).
pub fn suppression_edit(doc: &Document, code: &str, line: usize) -> Option<TextEdit> {
    let text = doc.text();
    let start = doc.lines().line_start(line as u32)? as usize;
    let end = doc
        .lines()
        .line_start(line as u32 + 1)
        .map_or(text.len(), |s| s as usize);
    let body = text[start..end].trim_end_matches(['\n', '\r']);
    let body_end = start + body.len();
    let existing = Suppressions::parse(tritonc_diagnostics::FileId(0), text)
        .items
        .into_iter()
        .find(|s| s.line == line);
    let insert_at = match existing {
        Some(s) if s.codes.is_empty() => return None,
        Some(s) => {
            let comment = &text[s.span.start as usize..s.span.end as usize];
            list_end(comment).map(|at| (s.span.start as usize + at, format!(", {code}")))
        }
        None => None,
    };
    let (at, insertion) = match insert_at {
        Some(found) => found,
        None => {
            if body.trim_end().ends_with('\\') {
                return None;
            }
            (body_end, format!("  # noqa: {code}"))
        }
    };
    let position = doc.position(at as u32);
    Some(TextEdit::new(Range::new(position, position), insertion))
}

/// The byte offset in `comment` just after the last code of its `noqa:` list or inside
/// its `tritonc: ignore[…]` brackets.
fn list_end(comment: &str) -> Option<usize> {
    let mut offset = 0;
    for segment in comment.split_inclusive('#') {
        let seg_start = offset;
        offset += segment.len();
        let lower = segment.to_ascii_lowercase();
        let trimmed = lower.trim_start();
        let lead = lower.len() - trimmed.len();
        if let Some(rest) = trimmed.strip_prefix("noqa") {
            let after = rest.trim_start();
            if let Some(list) = after.strip_prefix(':') {
                let list_start = seg_start + lead + 4 + (rest.len() - after.len()) + 1;
                return codes_end(list).map(|e| list_start + e);
            }
        } else if let Some(rest) = trimmed.strip_prefix("tritonc:") {
            let after = rest.trim_start();
            if after.starts_with("ignore[") {
                let open = seg_start + lead + 8 + (rest.len() - after.len()) + "ignore[".len();
                return comment[open..].find(']').map(|close| open + close);
            }
        }
    }
    None
}

/// The end of the last code in a `noqa:` list (codes are alphanumeric words separated by
/// commas and blanks; the list stops at the first other word).
fn codes_end(list: &str) -> Option<usize> {
    let mut end = None;
    let mut at = 0;
    for piece in list.split_inclusive([',', ' ']) {
        let token = piece.trim_end_matches([',', ' ']);
        if !token.is_empty() {
            if !token.chars().all(|c| c.is_ascii_alphanumeric()) {
                break;
            }
            end = Some(at + token.len());
        }
        at += piece.len();
    }
    end
}

#[cfg(test)]
mod tests {
    use super::*;

    fn suppressed(text: &str, code: &str, line: usize) -> Option<String> {
        let doc = Document::new(text.into(), 1, "python".into());
        let edit = suppression_edit(&doc, code, line)?;
        let at = doc.offset(edit.range.start);
        let mut out = text.to_string();
        out.insert_str(at, &edit.new_text);
        Some(out)
    }

    #[test]
    fn suppression_goes_at_the_end_of_the_line_or_into_the_existing_list() {
        assert_eq!(
            suppressed("a\n    x = f(é)\nb\n", "TRI101", 1).unwrap(),
            "a\n    x = f(é)  # noqa: TRI101\nb\n"
        );
        assert_eq!(
            suppressed("x = 1  # noqa: TRI102  # keep\n", "TRI101", 0).unwrap(),
            "x = 1  # noqa: TRI102, TRI101  # keep\n"
        );
        assert_eq!(
            suppressed("x = 1  # tritonc: ignore[TRI102]\n", "TRI101", 0).unwrap(),
            "x = 1  # tritonc: ignore[TRI102, TRI101]\n"
        );
        assert_eq!(
            suppressed("x = 1  # keep\r\n", "TRI101", 0).unwrap(),
            "x = 1  # keep  # noqa: TRI101\r\n"
        );
        // A bare `noqa` already suppresses everything; a continued line takes no comment.
        assert_eq!(suppressed("x = 1  # noqa\n", "TRI101", 0), None);
        assert_eq!(suppressed("x = 1 + \\\n  2\n", "TRI101", 0), None);
    }
}
