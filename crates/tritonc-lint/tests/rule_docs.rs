//! `docs/rules/` is generated from the rules' documentation; this test keeps it in sync.
//! Run with `TRITONC_BLESS_DOCS=1` to rewrite the pages.

use std::path::Path;

fn page(doc: &tritonc_diagnostics::CodeDoc) -> String {
    format!(
        "# {} ({})\n\n{}.\n\n{}",
        doc.code,
        doc.name,
        capitalize(doc.summary),
        doc.explanation
    )
}

fn capitalize(s: &str) -> String {
    let mut c = s.chars();
    c.next()
        .map(|f| f.to_uppercase().collect::<String>() + c.as_str())
        .unwrap_or_default()
}

#[test]
fn docs_rules_match_the_rule_documentation() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../docs/rules");
    let bless = std::env::var_os("TRITONC_BLESS_DOCS").is_some();
    let mut index = String::from("# Lint rules\n\n| code | name | summary |\n|---|---|---|\n");
    for doc in tritonc_lint::REGISTRY.codes {
        let text = page(doc);
        let path = dir.join(format!("{}.md", doc.code));
        index.push_str(&format!(
            "| [{}]({}.md) | {} | {} |\n",
            doc.code, doc.code, doc.name, doc.summary
        ));
        if bless {
            std::fs::create_dir_all(&dir).unwrap();
            std::fs::write(&path, &text).unwrap();
        } else {
            let on_disk = std::fs::read_to_string(&path).unwrap_or_default();
            assert_eq!(
                on_disk,
                text,
                "{} is stale: run with TRITONC_BLESS_DOCS=1",
                path.display()
            );
        }
        for section in [
            "## What it does",
            "## Why is this bad?",
            "## Example",
            "## Use instead",
        ] {
            assert!(
                doc.explanation.contains(section),
                "{} lacks {section}",
                doc.code
            );
        }
    }
    let index_path = dir.join("README.md");
    if bless {
        std::fs::write(&index_path, &index).unwrap();
    } else {
        assert_eq!(
            std::fs::read_to_string(&index_path).unwrap_or_default(),
            index
        );
    }
}
