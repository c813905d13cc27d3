//! Suppression comments: `# noqa: TRI101` and `# tritonc: ignore[TRI101]` on a line
//! suppress those codes on that line; on the `@triton.jit` line they suppress them in the
//! whole kernel. A bare `# noqa` suppresses every code on its line. Suppressions that
//! suppress nothing are reported (TRI002).

use tritonc_diagnostics::{Diagnostic, Fix, Span, TextEdit};

use crate::registry::UNUSED_SUPPRESSION;

/// One suppression comment.
#[derive(Debug, Clone)]
pub struct Suppression {
    /// 0-based line.
    pub line: usize,
    /// The codes (empty: every code).
    pub codes: Vec<String>,
    /// The comment's span.
    pub span: Span,
    /// Which codes were used (parallel to `codes`; one entry for a bare `noqa`).
    pub used: Vec<bool>,
    /// What removing the comment deletes: the comment with the blanks before it, up to a
    /// following comment (kept); the whole line when the comment is alone on it.
    pub removal: Span,
}

/// Every suppression comment of a file, by line.
#[derive(Debug, Default)]
pub struct Suppressions {
    /// The comments.
    pub items: Vec<Suppression>,
    line_starts: Vec<u32>,
}

impl Suppressions {
    /// Reads the comments of `text` (only `#` outside string literals on the same line are
    /// considered: a cheap scan that skips quotes).
    pub fn parse(file: tritonc_diagnostics::FileId, text: &str) -> Suppressions {
        let mut items = Vec::new();
        let mut line_starts = vec![0u32];
        let mut offset = 0u32;
        for (line_no, line) in text.split_inclusive('\n').enumerate() {
            if let Some(hash) = comment_start(line) {
                let comment = &line[hash..];
                let start = offset + hash as u32;
                let end = offset + line.trim_end_matches(['\n', '\r']).len() as u32;
                if let Some(codes) = parse_comment(comment) {
                    let n = codes.len().max(1);
                    let (from, to) = removal_range(line, hash);
                    let removal = Span::new(file, offset + from as u32, offset + to as u32);
                    items.push(Suppression {
                        line: line_no,
                        codes,
                        span: Span::new(file, start, end),
                        used: vec![false; n],
                        removal,
                    });
                }
            }
            offset += line.len() as u32;
            line_starts.push(offset);
        }
        Suppressions { items, line_starts }
    }

    /// The 0-based line of byte `offset`.
    pub fn line_of(&self, offset: u32) -> usize {
        self.line_starts
            .partition_point(|&s| s <= offset)
            .saturating_sub(1)
    }

    /// Whether `code` is suppressed on any of `lines`; marks the suppression used.
    pub fn suppresses(&mut self, code: &str, lines: &[usize]) -> bool {
        for s in &mut self.items {
            if !lines.contains(&s.line) {
                continue;
            }
            if s.codes.is_empty() {
                s.used[0] = true;
                return true;
            }
            if let Some(i) = s.codes.iter().position(|c| c.eq_ignore_ascii_case(code)) {
                s.used[i] = true;
                return true;
            }
        }
        false
    }

    /// TRI002 for every suppression (or code in one) that suppressed nothing, restricted to
    /// lint codes (`TRI…`); other tools' `noqa` codes are left alone.
    pub fn unused(&self) -> Vec<Diagnostic> {
        let mut out = Vec::new();
        for s in &self.items {
            let unused: Vec<&String> = s
                .codes
                .iter()
                .zip(&s.used)
                .filter(|(c, used)| !**used && c.to_ascii_uppercase().starts_with("TRI"))
                .map(|(c, _)| c)
                .collect();
            if unused.is_empty() {
                continue;
            }
            let list = unused
                .iter()
                .map(|c| format!("`{c}`"))
                .collect::<Vec<_>>()
                .join(", ");
            let mut d =
                Diagnostic::warning(UNUSED_SUPPRESSION, format!("unused suppression of {list}"))
                    .with_primary(s.span, "nothing to suppress here")
                    .with_help("remove the stale code from the comment");
            if unused.len() == s.codes.len() {
                d = d.with_fix(Fix {
                    message: "remove the suppression comment".into(),
                    edits: vec![TextEdit {
                        span: s.removal,
                        replacement: String::new(),
                    }],
                });
            }
            out.push(d);
        }
        out
    }
}

/// The byte range of `line` that removing its suppression deletes: the `#` segment that
/// holds the suppression up to the next `#` when another comment follows it; otherwise
/// from the end of what precedes it (code or an earlier comment) to the end of the line;
/// the whole line when nothing else is on it.
fn removal_range(line: &str, hash: usize) -> (usize, usize) {
    let body_end = line.trim_end_matches(['\n', '\r']).len();
    let hashes: Vec<usize> = line[hash..body_end]
        .match_indices('#')
        .map(|(i, _)| hash + i)
        .collect();
    let own = hashes
        .iter()
        .position(|&h| {
            let next = hashes.iter().find(|&&n| n > h).copied().unwrap_or(body_end);
            parse_comment(&line[h..next]).is_some()
        })
        .unwrap_or(0);
    let at = hashes[own];
    if let Some(&next) = hashes.get(own + 1) {
        return (at, next);
    }
    let before = line[..at].trim_end().len();
    if before == 0 {
        (0, line.len())
    } else {
        (before, body_end)
    }
}

/// The byte offset of a `#` that starts a comment (outside quotes), if any.
fn comment_start(line: &str) -> Option<usize> {
    let mut quote: Option<char> = None;
    let mut prev = '\0';
    for (i, c) in line.char_indices() {
        match quote {
            Some(q) if c == q && prev != '\\' => quote = None,
            Some(_) => {}
            None if c == '\'' || c == '"' => quote = Some(c),
            None if c == '#' => return Some(i),
            None => {}
        }
        prev = c;
    }
    None
}

/// The codes a comment suppresses: `Some(vec![])` for a bare `# noqa`.
fn parse_comment(comment: &str) -> Option<Vec<String>> {
    let mut codes = Vec::new();
    let mut found = false;
    for part in comment.split('#').skip(1) {
        let part = part.trim();
        let lower = part.to_ascii_lowercase();
        if lower.starts_with("noqa") {
            found = true;
            let rest = &part[4..];
            if let Some(list) = rest.trim_start().strip_prefix(':') {
                codes.extend(split_codes(list));
            } else if rest.trim().is_empty() {
                return Some(Vec::new());
            }
        } else if let Some(rest) = lower.strip_prefix("tritonc:") {
            let rest = rest.trim_start();
            if let Some(list) = rest.strip_prefix("ignore[") {
                found = true;
                let end = list.find(']').unwrap_or(list.len());
                let original = &part[part.len() - rest.len() + 7..];
                codes.extend(split_codes(&original[..end.min(original.len())]));
            }
        }
    }
    found.then_some(codes)
}

fn split_codes(list: &str) -> Vec<String> {
    list.split([',', ' '])
        .map(|c| c.trim())
        .take_while(|c| c.is_empty() || c.chars().all(|ch| ch.is_ascii_alphanumeric()))
        .filter(|c| !c.is_empty())
        .map(str::to_string)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use tritonc_diagnostics::FileId;

    #[test]
    fn removal_keeps_other_comments_and_code() {
        let cases = [
            ("x = 1  # noqa: TRI101\n", "x = 1\n"),
            ("x = 1  # noqa: TRI101  # keep\n", "x = 1  # keep\n"),
            ("x = 1  # keep  # noqa: TRI101\n", "x = 1  # keep\n"),
            ("    # noqa: TRI101\ny\n", "y\n"),
        ];
        for (text, want) in cases {
            let s = Suppressions::parse(FileId(0), text);
            let r = s.items[0].removal;
            let got = format!("{}{}", &text[..r.start as usize], &text[r.end as usize..]);
            assert_eq!(got, want, "{text:?}");
        }
    }

    #[test]
    fn both_spellings_and_bare_noqa() {
        let text = "a = 1  # noqa: TRI101, TRI102\nb = 2  # tritonc: ignore[TRI103]\nc = '#noqa'  # noqa\nd = 4\n";
        let mut s = Suppressions::parse(FileId(0), text);
        assert_eq!(s.items.len(), 3);
        assert_eq!(s.items[0].codes, vec!["TRI101", "TRI102"]);
        assert_eq!(s.items[1].codes, vec!["TRI103"]);
        assert!(s.items[2].codes.is_empty());
        assert!(s.suppresses("TRI101", &[0]));
        assert!(!s.suppresses("TRI101", &[1]));
        assert!(s.suppresses("TRI999", &[2]));
        assert!(!s.suppresses("TRI101", &[3]));
        let unused = s.unused();
        assert_eq!(unused.len(), 2, "{unused:?}");
        assert!(unused[0].message.contains("TRI102"));
        assert!(unused[1].message.contains("TRI103"));
    }
}
