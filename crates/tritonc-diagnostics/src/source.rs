//! The source model: files, byte spans and line/column conversion.
//!
//! Every span in tritonc is a byte range into one [`SourceFile`] of a [`SourceMap`].
//! Editors speak UTF-16 columns, terminals and JSON speak UTF-8 columns; the
//! [`LineIndex`] gives both.

use std::path::{Path, PathBuf};
use std::sync::Arc;

/// Identifies one file in a [`SourceMap`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize)]
pub struct FileId(pub u32);

/// A half-open byte range `start..end` in one file.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize)]
pub struct Span {
    /// The file the range is in.
    pub file: FileId,
    /// First byte of the range.
    pub start: u32,
    /// One past the last byte of the range.
    pub end: u32,
}

impl Span {
    /// A span covering `start..end` in `file`.
    pub fn new(file: FileId, start: u32, end: u32) -> Self {
        debug_assert!(start <= end, "span start must not exceed end");
        Span { file, start, end }
    }

    /// An empty span at `offset`.
    pub fn point(file: FileId, offset: u32) -> Self {
        Span {
            file,
            start: offset,
            end: offset,
        }
    }

    /// The smallest span covering both (both must be in the same file; otherwise `self`).
    pub fn cover(self, other: Span) -> Span {
        if self.file != other.file {
            return self;
        }
        Span {
            file: self.file,
            start: self.start.min(other.start),
            end: self.end.max(other.end),
        }
    }

    /// Length in bytes.
    pub fn len(&self) -> u32 {
        self.end - self.start
    }

    /// Whether the span covers no bytes.
    pub fn is_empty(&self) -> bool {
        self.start == self.end
    }
}

/// A zero-based line and column. `col_utf8` counts bytes, `col_utf16` counts UTF-16 code units.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
pub struct LineCol {
    /// Zero-based line number.
    pub line: u32,
    /// Zero-based column in UTF-8 bytes.
    pub col_utf8: u32,
    /// Zero-based column in UTF-16 code units (what the language server protocol uses).
    pub col_utf16: u32,
}

/// Maps byte offsets to lines and columns.
#[derive(Debug, Clone)]
pub struct LineIndex {
    /// Byte offset at which each line starts; `line_starts[0] == 0`.
    line_starts: Vec<u32>,
}

impl LineIndex {
    /// Builds the index of `text`. Lines end at `\n`; a `\r` before it belongs to the line.
    pub fn new(text: &str) -> Self {
        let mut line_starts = vec![0];
        for (i, b) in text.bytes().enumerate() {
            if b == b'\n' {
                line_starts.push(i as u32 + 1);
            }
        }
        LineIndex { line_starts }
    }

    /// Number of lines (a trailing newline starts one more, empty line).
    pub fn line_count(&self) -> usize {
        self.line_starts.len()
    }

    /// Byte offset where zero-based `line` starts, if it exists.
    pub fn line_start(&self, line: u32) -> Option<u32> {
        self.line_starts.get(line as usize).copied()
    }

    /// Line and column of `offset` in `text` (the text this index was built from).
    /// Offsets past the end clamp to the end; offsets inside a UTF-8 sequence clamp back
    /// to its first byte.
    pub fn line_col(&self, text: &str, offset: u32) -> LineCol {
        let mut offset = (offset as usize).min(text.len());
        while !text.is_char_boundary(offset) {
            offset -= 1;
        }
        let line = match self.line_starts.binary_search(&(offset as u32)) {
            Ok(l) => l,
            Err(l) => l - 1,
        };
        let start = self.line_starts[line] as usize;
        let prefix = &text[start..offset];
        LineCol {
            line: line as u32,
            col_utf8: prefix.len() as u32,
            col_utf16: prefix.encode_utf16().count() as u32,
        }
    }

    /// Byte offset of a zero-based line and UTF-16 column (what editors send), clamped to
    /// the line's end.
    pub fn offset_utf16(&self, text: &str, line: u32, col_utf16: u32) -> u32 {
        let Some(start) = self.line_start(line) else {
            return text.len() as u32;
        };
        let end = self.line_start(line + 1).unwrap_or(text.len() as u32);
        let line_text = &text[start as usize..end as usize];
        let mut units = 0u32;
        for (i, ch) in line_text.char_indices() {
            if units >= col_utf16 || ch == '\n' {
                return start + i as u32;
            }
            units += ch.len_utf16() as u32;
        }
        end
    }
}

/// One source file: its path, its text and its line index.
#[derive(Debug)]
pub struct SourceFile {
    path: PathBuf,
    text: Arc<str>,
    lines: LineIndex,
}

impl SourceFile {
    /// A file with the given display path and text.
    pub fn new(path: impl Into<PathBuf>, text: impl Into<Arc<str>>) -> Self {
        let text = text.into();
        let lines = LineIndex::new(&text);
        SourceFile {
            path: path.into(),
            text,
            lines,
        }
    }

    /// The path shown in diagnostics.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The full text.
    pub fn text(&self) -> &str {
        &self.text
    }

    /// The shared text (cheap to clone).
    pub fn text_arc(&self) -> Arc<str> {
        self.text.clone()
    }

    /// The line index.
    pub fn lines(&self) -> &LineIndex {
        &self.lines
    }

    /// Line and column of a byte offset.
    pub fn line_col(&self, offset: u32) -> LineCol {
        self.lines.line_col(&self.text, offset)
    }

    /// The text a span covers (empty if the span is out of range).
    pub fn slice(&self, span: Span) -> &str {
        self.text
            .get(span.start as usize..span.end as usize)
            .unwrap_or("")
    }
}

/// All files of one session; [`FileId`]s index into it.
#[derive(Debug, Default)]
pub struct SourceMap {
    files: Vec<Arc<SourceFile>>,
}

impl SourceMap {
    /// An empty map.
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds a file and returns its id.
    pub fn add(&mut self, path: impl Into<PathBuf>, text: impl Into<Arc<str>>) -> FileId {
        let id = FileId(self.files.len() as u32);
        self.files.push(Arc::new(SourceFile::new(path, text)));
        id
    }

    /// The file with this id. Panics if the id came from another map (an invariant breach).
    pub fn get(&self, id: FileId) -> &Arc<SourceFile> {
        self.files
            .get(id.0 as usize)
            .expect("FileId must come from this SourceMap")
    }

    /// The file with this id, if it exists.
    pub fn try_get(&self, id: FileId) -> Option<&Arc<SourceFile>> {
        self.files.get(id.0 as usize)
    }

    /// The id of the file added under `path`, if any.
    pub fn find(&self, path: &Path) -> Option<FileId> {
        self.files
            .iter()
            .position(|f| f.path == path)
            .map(|i| FileId(i as u32))
    }

    /// Number of files.
    pub fn len(&self) -> usize {
        self.files.len()
    }

    /// Whether the map holds no files.
    pub fn is_empty(&self) -> bool {
        self.files.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn line_col_ascii_and_utf16() {
        let text = "ab\nçé𝄞x\n";
        let idx = LineIndex::new(text);
        assert_eq!(idx.line_count(), 3);
        let x = text.find('x').unwrap() as u32;
        let lc = idx.line_col(text, x);
        assert_eq!(lc.line, 1);
        // ç (2 bytes) + é (2 bytes) + 𝄞 (4 bytes) = 8 bytes; 1 + 1 + 2 UTF-16 units.
        assert_eq!(lc.col_utf8, 8);
        assert_eq!(lc.col_utf16, 4);
        assert_eq!(idx.offset_utf16(text, 1, 4), x);
    }

    #[test]
    fn line_col_clamps() {
        let text = "é";
        let idx = LineIndex::new(text);
        assert_eq!(idx.line_col(text, 1).col_utf8, 0);
        assert_eq!(idx.line_col(text, 99).col_utf8, 2);
    }
}
