//! The accepted-subset check against the table verified with Triton 3.6
//! (`tests/fixtures/subset/*.py`, each headed by `# expect:` and Triton's verdict).

use std::path::Path;

use tritonc_diagnostics::{FileId, Span};
use tritonc_syntax::ast::{FunctionDef, StmtKind};
use tritonc_syntax::{check_kernel_subset, parse_module};

const FILE: FileId = FileId(0);

fn kernel(module: &tritonc_syntax::ast::Module) -> &FunctionDef {
    module
        .body
        .iter()
        .find_map(|s| match &s.kind {
            StmtKind::FunctionDef(f) if f.name.name == "kernel" => Some(&**f),
            _ => None,
        })
        .expect("every fixture defines `kernel`")
}

#[test]
fn fixtures_match_triton_verdicts() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/subset");
    let mut checked = 0;
    let mut failures = Vec::new();
    for entry in std::fs::read_dir(&dir).unwrap() {
        let path = entry.unwrap().path();
        let name = path.file_name().unwrap().to_string_lossy().to_string();
        if !(name.starts_with("accept_") || name.starts_with("reject_")) {
            continue;
        }
        let src = std::fs::read_to_string(&path).unwrap();
        let expect = src
            .lines()
            .next()
            .unwrap()
            .strip_prefix("# expect: ")
            .unwrap()
            .trim();
        let triton = src.lines().nth(1).unwrap();
        // The table must agree with what Triton did when the fixture was written.
        let triton_accepts = triton.ends_with(": accepted");
        let expect_triton_accepts = expect == "accepted" || expect.ends_with("silently-accepted");
        assert_eq!(
            triton_accepts, expect_triton_accepts,
            "{name}: Triton's recorded verdict"
        );
        let parsed = parse_module(FILE, &src);
        assert!(
            parsed.diagnostics.is_empty(),
            "{name}: {:?}",
            parsed.diagnostics
        );
        let diags = check_kernel_subset(kernel(&parsed.module));
        let codes: Vec<&str> = diags.iter().map(|d| d.code.0).collect();
        let ok = if expect == "accepted" {
            codes.is_empty()
        } else {
            let code = expect.split_whitespace().next().unwrap();
            !codes.is_empty() && codes.iter().all(|c| *c == code)
        };
        if !ok {
            failures.push(format!("{name}: expected {expect}, got {codes:?}"));
        }
        checked += 1;
    }
    assert!(checked >= 40, "only {checked} fixtures found");
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

fn diags_of(src: &str) -> Vec<(String, String)> {
    let parsed = parse_module(FILE, src);
    assert!(parsed.diagnostics.is_empty());
    check_kernel_subset(kernel(&parsed.module))
        .into_iter()
        .map(|d| {
            let Span { start, end, .. } = d.primary_span().unwrap();
            (
                d.code.0.to_string(),
                src[start as usize..end as usize].to_string(),
            )
        })
        .collect()
}

#[test]
fn spans_point_at_the_construct() {
    let src = "def kernel(p, n):\n    for i in range(n):\n        if i > 2:\n            break\n    x = 0 < n < 4\n    y = [v for v in range(3) if v]\n    z = {**a}\n    p.attr, q[0] = 1, 2\n    w = (k := 3)\n    f(*t, **kw)\n";
    let got = diags_of(src);
    let want: Vec<(String, String)> = [
        ("E0101", "break"),
        ("E0107", "0 < n < 4"),
        ("E0115", "range(3)"),
        ("E0115", "v"),
        ("E0111", "{**a}"),
        ("E0117", "p.attr"),
        ("E0117", "q[0]"),
        ("E0116", "k := 3"),
        ("E0112", "**kw"),
    ]
    .iter()
    .map(|(c, t)| (c.to_string(), t.to_string()))
    .collect();
    assert_eq!(got, want);
}

#[test]
fn return_inside_loop_and_with_but_not_if() {
    let src = "def kernel(p, n):\n    if n:\n        return\n    while n:\n        return 1\n    with s():\n        return\n";
    let got = diags_of(src);
    assert_eq!(
        got,
        vec![
            ("E0118".to_string(), "return 1".to_string()),
            ("E0118".to_string(), "return".to_string())
        ]
    );
}

#[test]
fn every_code_has_documentation() {
    for doc in tritonc_syntax::codes() {
        assert!(doc.explanation.contains("## Example"), "{}", doc.code);
        assert!(doc.explanation.contains("## Use instead"), "{}", doc.code);
        assert!(!doc.summary.ends_with('.'), "{}", doc.code);
    }
    assert!(tritonc_syntax::codes::lookup("e0101").is_some());
}
