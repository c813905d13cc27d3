//! Open documents: their text as the editor has it, and edits in UTF-16 positions.

use lsp_types::{Position, Range, TextDocumentContentChangeEvent};
use tritonc_diagnostics::LineIndex;

use crate::check::Checked;

/// One document the editor has open.
#[derive(Debug)]
pub struct Document {
    text: String,
    lines: LineIndex,
    version: i32,
    language_id: String,
    checked: Option<Checked>,
    stale: bool,
}

impl Document {
    /// A document opened with `text`; it is linted before its diagnostics are published.
    pub fn new(text: String, version: i32, language_id: String) -> Self {
        let lines = LineIndex::new(&text);
        Document {
            text,
            lines,
            version,
            language_id,
            checked: None,
            stale: true,
        }
    }

    /// The current text.
    pub fn text(&self) -> &str {
        &self.text
    }

    /// The line index of the current text.
    pub fn lines(&self) -> &LineIndex {
        &self.lines
    }

    /// The version the editor gave the current text.
    pub fn version(&self) -> i32 {
        self.version
    }

    /// The editor's language id (`python` for Python buffers).
    pub fn language_id(&self) -> &str {
        &self.language_id
    }

    /// The result of the last lint, if it ran on the current text.
    pub fn checked(&self) -> Option<&Checked> {
        self.checked.as_ref().filter(|_| !self.stale)
    }

    /// Whether the text (or the configuration) changed since the last lint.
    pub fn is_stale(&self) -> bool {
        self.stale
    }

    /// Asks for a new lint (a configuration file changed, or the file was saved).
    pub fn mark_stale(&mut self) {
        self.stale = true;
    }

    /// Stores the lint of the current text.
    pub fn set_checked(&mut self, checked: Checked) {
        self.checked = Some(checked);
        self.stale = false;
    }

    /// Applies the editor's changes in order: each range is in the text left by the
    /// previous change; a change without a range replaces the whole text.
    pub fn apply_changes(&mut self, version: i32, changes: Vec<TextDocumentContentChangeEvent>) {
        for change in changes {
            match change.range {
                None => self.text = change.text,
                Some(range) => {
                    let start = self.offset(range.start);
                    let end = self.offset(range.end).max(start);
                    self.text.replace_range(start..end, &change.text);
                }
            }
            self.lines = LineIndex::new(&self.text);
        }
        self.version = version;
        self.stale = true;
    }

    /// The byte offset of an editor position (UTF-16 column), clamped to the text and to
    /// character boundaries.
    pub fn offset(&self, position: Position) -> usize {
        let offset =
            self.lines
                .offset_utf16(&self.text, position.line, position.character) as usize;
        let mut offset = offset.min(self.text.len());
        while !self.text.is_char_boundary(offset) {
            offset -= 1;
        }
        offset
    }

    /// The editor position of a byte offset.
    pub fn position(&self, offset: u32) -> Position {
        let lc = self.lines.line_col(&self.text, offset);
        Position::new(lc.line, lc.col_utf16)
    }

    /// The editor range of a byte range.
    pub fn range(&self, start: u32, end: u32) -> Range {
        Range::new(self.position(start), self.position(end.max(start)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn change(
        range: Option<((u32, u32), (u32, u32))>,
        text: &str,
    ) -> TextDocumentContentChangeEvent {
        TextDocumentContentChangeEvent {
            range: range.map(|((l0, c0), (l1, c1))| {
                Range::new(Position::new(l0, c0), Position::new(l1, c1))
            }),
            range_length: None,
            text: text.into(),
        }
    }

    #[test]
    fn incremental_edits_use_utf16_columns() {
        // `𝄞` is two UTF-16 units and four bytes; `é` one unit and two bytes.
        let mut doc = Document::new("a𝄞é = 1\nb = 2\n".into(), 1, "python".into());
        // Replace `é` (UTF-16 columns 3..4 on line 0).
        doc.apply_changes(2, vec![change(Some(((0, 3), (0, 4))), "x")]);
        assert_eq!(doc.text(), "a𝄞x = 1\nb = 2\n");
        // Then a second change against the text the first one left.
        doc.apply_changes(3, vec![change(Some(((0, 4), (1, 1))), "")]);
        assert_eq!(doc.text(), "a𝄞x = 2\n");
        assert_eq!(doc.version(), 3);
        assert!(doc.is_stale());
    }

    #[test]
    fn several_changes_apply_in_order_and_full_replacement_resets() {
        let mut doc = Document::new("abc\n".into(), 1, "python".into());
        doc.apply_changes(
            2,
            vec![
                change(Some(((0, 0), (0, 0))), "X"),
                change(Some(((0, 4), (0, 4))), "Y"),
            ],
        );
        assert_eq!(doc.text(), "XabcY\n");
        doc.apply_changes(3, vec![change(None, "new\n")]);
        assert_eq!(doc.text(), "new\n");
    }

    #[test]
    fn out_of_range_positions_clamp_instead_of_panicking() {
        let mut doc = Document::new("ab\n".into(), 1, "python".into());
        // Past the last line, and a column inside a surrogate pair of no character.
        doc.apply_changes(2, vec![change(Some(((9, 9), (12, 0))), "!")]);
        assert_eq!(doc.text(), "ab\n!");
        let mut doc = Document::new("𝄞".into(), 1, "python".into());
        doc.apply_changes(2, vec![change(Some(((0, 1), (0, 1))), "x")]);
        assert!(doc.text().contains('𝄞'));
        // A reversed range is empty at its start.
        let mut doc = Document::new("abcd".into(), 1, "python".into());
        doc.apply_changes(2, vec![change(Some(((0, 3), (0, 1))), "-")]);
        assert_eq!(doc.text(), "abc-d");
    }
}
