//! Applying fixes to source text, and showing them as a unified diff.

use tritonc_diagnostics::TextEdit;

use crate::context::{Applicability, Finding};

/// Which fixes to apply.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FixMode {
    /// Safe fixes only (`--fix`).
    Safe,
    /// Safe and unsafe fixes (`--fix --unsafe-fixes`).
    Unsafe,
}

impl FixMode {
    /// Whether a fix of `a` is applied in this mode.
    pub fn allows(self, a: Applicability) -> bool {
        self == FixMode::Unsafe || a == Applicability::Safe
    }
}

/// Applies the fixes of `findings` (those in `file`, allowed by `mode`) to `text`. A fix
/// whose edits overlap an earlier one is skipped. Returns the new text and how many
/// findings were fixed.
pub fn apply_fixes(
    text: &str,
    file: tritonc_diagnostics::FileId,
    findings: &[Finding],
    mode: FixMode,
) -> (String, usize) {
    let mut chosen: Vec<&TextEdit> = Vec::new();
    let mut fixed = 0;
    for f in findings {
        let Some(fix) = &f.diagnostic.fix else {
            continue;
        };
        if !mode.allows(f.applicability) || fix.edits.iter().any(|e| e.span.file != file) {
            continue;
        }
        let overlaps = fix.edits.iter().any(|e| {
            chosen.iter().any(|c| {
                e.span.start < c.span.end && c.span.start < e.span.end
                    || (e.span.start == c.span.start && e.span.is_empty() && c.span.is_empty())
            })
        });
        if overlaps {
            continue;
        }
        chosen.extend(fix.edits.iter());
        fixed += 1;
    }
    chosen.sort_by_key(|e| (e.span.start, e.span.end));
    let mut out = String::with_capacity(text.len());
    let mut at = 0usize;
    for e in chosen {
        let (s, t) = (e.span.start as usize, e.span.end as usize);
        if s < at || t > text.len() {
            continue;
        }
        out.push_str(&text[at..s]);
        out.push_str(&e.replacement);
        at = t;
    }
    out.push_str(&text[at..]);
    (out, fixed)
}

/// A unified diff of `old` → `new` for `path`, with three lines of context.
pub fn unified_diff(path: &str, old: &str, new: &str) -> String {
    let a: Vec<&str> = old.split_inclusive('\n').collect();
    let b: Vec<&str> = new.split_inclusive('\n').collect();
    // Longest common subsequence table over lines (files are small; fixes are few).
    let (n, m) = (a.len(), b.len());
    let mut lcs = vec![vec![0u32; m + 1]; n + 1];
    for i in (0..n).rev() {
        for j in (0..m).rev() {
            lcs[i][j] = if a[i] == b[j] {
                lcs[i + 1][j + 1] + 1
            } else {
                lcs[i + 1][j].max(lcs[i][j + 1])
            };
        }
    }
    // The edit script: (kind, a index, b index).
    let mut script: Vec<(char, usize, usize)> = Vec::new();
    let (mut i, mut j) = (0, 0);
    while i < n || j < m {
        if i < n && j < m && a[i] == b[j] {
            script.push((' ', i, j));
            i += 1;
            j += 1;
        } else if i < n && (j == m || lcs[i + 1][j] >= lcs[i][j + 1]) {
            script.push(('-', i, j));
            i += 1;
        } else {
            script.push(('+', i, j));
            j += 1;
        }
    }
    if script.iter().all(|s| s.0 == ' ') {
        return String::new();
    }
    let mut out = format!("--- a/{path}\n+++ b/{path}\n");
    let changed: Vec<usize> = script
        .iter()
        .enumerate()
        .filter(|(_, s)| s.0 != ' ')
        .map(|(k, _)| k)
        .collect();
    let mut k = 0;
    while k < changed.len() {
        let start = changed[k].saturating_sub(3);
        let mut end = changed[k];
        // Hunks whose contexts would touch (at most six unchanged lines apart) merge.
        while k < changed.len() && changed[k] <= end + 7 {
            end = changed[k];
            k += 1;
        }
        let end = (end + 3).min(script.len() - 1);
        let hunk = &script[start..=end];
        let a_start = hunk[0].1;
        let b_start = hunk[0].2;
        let a_len = hunk.iter().filter(|s| s.0 != '+').count();
        let b_len = hunk.iter().filter(|s| s.0 != '-').count();
        out.push_str(&format!(
            "@@ -{},{} +{},{} @@\n",
            a_start + 1,
            a_len,
            b_start + 1,
            b_len
        ));
        for &(kind, ai, bj) in hunk {
            let line = if kind == '+' { b[bj] } else { a[ai] };
            out.push(kind);
            out.push_str(line);
            if !line.ends_with('\n') {
                out.push_str("\n\\ No newline at end of file\n");
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use tritonc_diagnostics::{Diagnostic, FileId, Fix, Span};

    fn finding(start: u32, end: u32, text: &str, safe: bool) -> Finding {
        let d = Diagnostic::warning(tritonc_diagnostics::Code("TRI000"), "m").with_fix(Fix {
            message: "f".into(),
            edits: vec![TextEdit {
                span: Span::new(FileId(0), start, end),
                replacement: text.into(),
            }],
        });
        if safe {
            Finding::safe(d)
        } else {
            Finding::new(d)
        }
    }

    #[test]
    fn safe_mode_skips_unsafe_and_overlaps() {
        let text = "abcdef\n";
        let fs = [
            finding(0, 1, "X", true),
            finding(0, 2, "Y", true),
            finding(3, 3, "Z", false),
        ];
        assert_eq!(
            apply_fixes(text, FileId(0), &fs, FixMode::Safe),
            ("Xbcdef\n".to_string(), 1)
        );
        assert_eq!(
            apply_fixes(text, FileId(0), &fs, FixMode::Unsafe),
            ("XbcZdef\n".to_string(), 2)
        );
    }

    #[test]
    fn diff_shows_changed_line() {
        let d = unified_diff("k.py", "a\nb\nc\n", "a\nB\nc\n");
        assert_eq!(
            d,
            "--- a/k.py\n+++ b/k.py\n@@ -1,3 +1,3 @@\n a\n-b\n+B\n c\n"
        );
    }
}
