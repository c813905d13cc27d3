//! The code registry: the documentation of every diagnostic code, per stage.
//!
//! Each stage that emits diagnostics (syntax, sema, lint, the CLI's input checks) owns one
//! static [`CodeRegistry`]; a [`CodeCatalog`] looks codes up across all of them. The
//! explanation text is what `tritonc rule CODE` prints, so it is written as a small
//! Markdown page: what the code means, an `## Example` that triggers it and a
//! `## Use instead` section with the cure.

use crate::Code;

/// The documentation of one diagnostic code.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
pub struct CodeDoc {
    /// The stable code, e.g. `E0101`.
    pub code: Code,
    /// A kebab-case name, e.g. `unsupported-break`.
    pub name: &'static str,
    /// One line, without a trailing period: what the diagnostic reports.
    pub summary: &'static str,
    /// Markdown: what it means, `## Example`, `## Use instead`.
    pub explanation: &'static str,
}

/// The codes one stage emits.
#[derive(Debug, Clone, Copy)]
pub struct CodeRegistry {
    /// The stage the codes belong to (`syntax`, `sema`, `lint`, `input`).
    pub stage: &'static str,
    /// The codes, in any order.
    pub codes: &'static [CodeDoc],
}

impl CodeRegistry {
    /// A registry of `codes` owned by `stage`.
    pub const fn new(stage: &'static str, codes: &'static [CodeDoc]) -> Self {
        CodeRegistry { stage, codes }
    }

    /// The documentation of `code` (ASCII case-insensitive), if this registry has it.
    pub fn lookup(&self, code: &str) -> Option<&'static CodeDoc> {
        self.codes
            .iter()
            .find(|doc| doc.code.0.eq_ignore_ascii_case(code))
    }
}

/// One code found in a [`CodeCatalog`], with the stage that owns it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
pub struct CatalogEntry {
    /// The stage that owns the code.
    pub stage: &'static str,
    /// The code's documentation.
    #[serde(flatten)]
    pub doc: &'static CodeDoc,
}

/// Every registry of the tool, looked up together.
#[derive(Debug, Clone, Default)]
pub struct CodeCatalog {
    registries: Vec<CodeRegistry>,
}

impl CodeCatalog {
    /// An empty catalog.
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds a registry.
    pub fn with(mut self, registry: CodeRegistry) -> Self {
        self.registries.push(registry);
        self
    }

    /// Adds a registry in place.
    pub fn add(&mut self, registry: CodeRegistry) {
        self.registries.push(registry);
    }

    /// The documentation of `code` (ASCII case-insensitive) in the first registry that has it.
    pub fn lookup(&self, code: &str) -> Option<CatalogEntry> {
        self.registries.iter().find_map(|registry| {
            registry.lookup(code).map(|doc| CatalogEntry {
                stage: registry.stage,
                doc,
            })
        })
    }

    /// Every code of every registry, sorted by code.
    pub fn entries(&self) -> Vec<CatalogEntry> {
        let mut all: Vec<CatalogEntry> = self
            .registries
            .iter()
            .flat_map(|registry| {
                registry.codes.iter().map(|doc| CatalogEntry {
                    stage: registry.stage,
                    doc,
                })
            })
            .collect();
        all.sort_by_key(|e| e.doc.code);
        all
    }

    /// Codes documented more than once across the registries (should be empty).
    pub fn duplicate_codes(&self) -> Vec<Code> {
        let entries = self.entries();
        let mut dups: Vec<Code> = entries
            .windows(2)
            .filter(|pair| pair[0].doc.code == pair[1].doc.code)
            .map(|pair| pair[0].doc.code)
            .collect();
        dups.dedup();
        dups
    }

    /// Documented codes that differ from `code` only in the last character, for
    /// "did you mean" hints (`E0109` suggests `E0101`..`E0108`).
    pub fn codes_similar_to(&self, code: &str) -> Vec<Code> {
        let stem_len = code.len().saturating_sub(1);
        let stem = code.get(..stem_len).unwrap_or("");
        if stem.is_empty() {
            return Vec::new();
        }
        self.entries()
            .into_iter()
            .map(|e| e.doc.code)
            .filter(|c| c.0.len() == code.len() && c.0[..stem_len].eq_ignore_ascii_case(stem))
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    static A: &[CodeDoc] = &[
        CodeDoc {
            code: Code("E0102"),
            name: "b",
            summary: "b",
            explanation: "b",
        },
        CodeDoc {
            code: Code("E0101"),
            name: "a",
            summary: "a",
            explanation: "a",
        },
    ];
    static B: &[CodeDoc] = &[CodeDoc {
        code: Code("E0501"),
        name: "c",
        summary: "c",
        explanation: "c",
    }];

    #[test]
    fn lookup_spans_registries_and_ignores_case() {
        let catalog = CodeCatalog::new()
            .with(CodeRegistry::new("syntax", A))
            .with(CodeRegistry::new("input", B));
        assert_eq!(catalog.lookup("e0501").map(|e| e.stage), Some("input"));
        assert_eq!(catalog.lookup("E0101").map(|e| e.doc.name), Some("a"));
        assert!(catalog.lookup("E9999").is_none());
        let codes: Vec<_> = catalog.entries().iter().map(|e| e.doc.code.0).collect();
        assert_eq!(codes, ["E0101", "E0102", "E0501"]);
        assert!(catalog.duplicate_codes().is_empty());
        assert_eq!(
            catalog.codes_similar_to("E0109"),
            [Code("E0101"), Code("E0102")]
        );
    }

    #[test]
    fn duplicates_are_found() {
        let catalog = CodeCatalog::new()
            .with(CodeRegistry::new("x", A))
            .with(CodeRegistry::new("y", A));
        assert_eq!(catalog.duplicate_codes(), [Code("E0101"), Code("E0102")]);
    }
}
