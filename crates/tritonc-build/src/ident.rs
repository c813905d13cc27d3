//! Rust identifiers from kernel, parameter and target names.

/// Rust's reserved words (strict and reserved, 2021 edition).
const KEYWORDS: &[&str] = &[
    "as", "async", "await", "break", "const", "continue", "crate", "dyn", "else", "enum", "extern",
    "false", "fn", "for", "if", "impl", "in", "let", "loop", "match", "mod", "move", "mut", "pub",
    "ref", "return", "self", "Self", "static", "struct", "super", "trait", "true", "type",
    "unsafe", "use", "where", "while", "abstract", "become", "box", "do", "final", "macro",
    "override", "priv", "typeof", "unsized", "virtual", "yield", "try", "gen",
];

/// Keywords that cannot be raw identifiers.
const NOT_RAW: &[&str] = &["crate", "self", "Self", "super", "_"];

/// `name` as a Rust identifier: characters outside `[A-Za-z0-9_]` become `_`, a leading
/// digit gets a `_` in front, a keyword is written raw (`r#type`) or, where Rust forbids
/// that, with a trailing `_` (`self_`).
pub fn rust_identifier(name: &str) -> String {
    let mut s: String = name
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '_' {
                c
            } else {
                '_'
            }
        })
        .collect();
    if s.is_empty() || s.starts_with(|c: char| c.is_ascii_digit()) {
        s.insert(0, '_');
    }
    if NOT_RAW.contains(&s.as_str()) {
        s.push('_');
    } else if KEYWORDS.contains(&s.as_str()) {
        s.insert_str(0, "r#");
    }
    s
}

#[cfg(test)]
mod tests {
    use super::rust_identifier;

    #[test]
    fn names_become_identifiers() {
        assert_eq!(rust_identifier("x_ptr"), "x_ptr");
        assert_eq!(rust_identifier("BLOCK_SIZE"), "BLOCK_SIZE");
        assert_eq!(rust_identifier("type"), "r#type");
        assert_eq!(rust_identifier("self"), "self_");
        assert_eq!(rust_identifier("sm_90a-x"), "sm_90a_x");
        assert_eq!(rust_identifier("9lives"), "_9lives");
    }
}
