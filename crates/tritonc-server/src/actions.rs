//! Code actions: the fixes lint attaches to its findings, and `# noqa` suppressions.

use std::collections::HashMap;

use lsp_types::{
    CodeAction, CodeActionKind, CodeActionOrCommand, Range, TextEdit, Url, WorkspaceEdit,
};
use tritonc_lint::registry::UNUSED_SUPPRESSION;
use tritonc_lint::suppress::Suppressions;
use tritonc_lint::{Applicability, Finding};

use crate::check::Checked;
use crate::convert::{lsp_diagnostic, range_in, ranges_meet};
use crate::documents::Document;

/// The quick fixes for the findings whose primary range meets `range`: each finding's fix
/// (safe fixes preferred; unsafe ones say so in the title), then one "suppress" action per
/// rule and line.
pub fn code_actions(doc: &Document, uri: &Url, range: Range) -> Vec<CodeActionOrCommand> {
    let Some(checked) = doc.checked() else {
        return Vec::new();
    };
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
        if !ranges_meet(found_at, range) {
            continue;
        }
        let diagnostic = lsp_diagnostic(finding, checked, uri);
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
    fixes
        .into_iter()
        .chain(suppressions)
        .map(CodeActionOrCommand::CodeAction)
        .collect()
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
