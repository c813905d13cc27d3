//! Hover over a rule code in a suppression comment: the rule's documentation.

use lsp_types::{Hover, HoverContents, MarkupContent, MarkupKind, Position};
use tritonc_lint::suppress::Suppressions;
use tritonc_lint::REGISTRY;

use crate::documents::Document;

/// The documentation of the lint code under `position`, when it lies in a `# noqa` or
/// `# tritonc: ignore[…]` comment.
pub fn hover(doc: &Document, position: Position) -> Option<Hover> {
    let text = doc.text();
    let offset = doc.offset(position);
    let comment = Suppressions::parse(tritonc_diagnostics::FileId(0), text)
        .items
        .into_iter()
        .find(|s| s.span.start as usize <= offset && offset <= s.span.end as usize)?;
    let (start, end) = word_at(text, offset, comment.span.start as usize)?;
    let rule = REGISTRY.lookup(&text[start..end])?;
    let mut value = format!("**{}** `{}`: {}\n\n", rule.code, rule.name, rule.summary);
    value.push_str(rule.explanation);
    if let Some(url) = tritonc_lint::output::rule_url(rule.code.0) {
        value.push_str(&format!("\n\n[Documentation]({url})"));
    }
    Some(Hover {
        contents: HoverContents::Markup(MarkupContent {
            kind: MarkupKind::Markdown,
            value,
        }),
        range: Some(doc.range(start as u32, end as u32)),
    })
}

/// The alphanumeric word around `offset`, not reaching before `floor`.
fn word_at(text: &str, offset: usize, floor: usize) -> Option<(usize, usize)> {
    let is_word = |c: char| c.is_ascii_alphanumeric();
    let start = text[floor..offset]
        .char_indices()
        .rev()
        .take_while(|&(_, c)| is_word(c))
        .last()
        .map_or(offset, |(i, _)| floor + i);
    let end = offset
        + text[offset..]
            .char_indices()
            .find(|&(_, c)| !is_word(c))
            .map_or(text.len() - offset, |(i, _)| i);
    (start < end).then_some((start, end))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hover_on_a_suppressed_code_shows_its_rule() {
        let text = "x = f(é)  # noqa: TRI103, TRI101\ny = TRI101\n";
        let doc = Document::new(text.into(), 1, "python".into());
        // UTF-16 column 27 is inside the second code (`é` is one unit, two bytes).
        let h = hover(&doc, Position::new(0, 27)).expect("a hover on TRI101");
        let HoverContents::Markup(m) = h.contents else {
            panic!("markdown hover expected");
        };
        assert!(
            m.value.starts_with("**TRI101** `unmasked-block-access`"),
            "{}",
            m.value
        );
        let range = h.range.unwrap();
        assert_eq!((range.start.character, range.end.character), (26, 32));
        // The same code outside a comment has no hover.
        assert!(hover(&doc, Position::new(1, 6)).is_none());
    }
}
