//! docs/faults.md, the fault table, names the test that covers each row; every name it
//! gives exists. `module::name` must be a `fn name` in a test file or source module of
//! that name anywhere under `crates/` (`a::…::b` is `fn b` in `a`), and a named `.rs`
//! path must exist: a renamed or removed test fails here, not silently in the table.

use std::path::{Path, PathBuf};

#[test]
fn every_test_the_fault_table_names_exists() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let table = std::fs::read_to_string(root.join("docs/faults.md")).expect("docs/faults.md");
    // Every `.rs` file under crates/, by its stem (tests/faults.rs is `faults`).
    let mut files: Vec<PathBuf> = Vec::new();
    let mut dirs = vec![root.join("crates")];
    while let Some(dir) = dirs.pop() {
        for entry in std::fs::read_dir(&dir).expect("readable").flatten() {
            let path = entry.path();
            if path.is_dir() {
                if !path.ends_with("fixtures") && !path.ends_with("snapshots") {
                    dirs.push(path);
                }
            } else if path.extension().is_some_and(|e| e == "rs") {
                files.push(path);
            }
        }
    }
    let defines = |module: &str, name: &str| {
        files.iter().any(|f| {
            f.file_stem().is_some_and(|s| s == module)
                && std::fs::read_to_string(f).is_ok_and(|t| t.contains(&format!("fn {name}(")))
        })
    };
    let (mut checked, mut missing) = (0, Vec::new());
    for line in table.lines().filter(|l| l.starts_with('|')) {
        let Some(cell) = line.trim_end_matches('|').rsplit('|').next() else {
            continue;
        };
        for quoted in cell.split('`').skip(1).step_by(2) {
            if quoted.ends_with(".rs") {
                checked += 1;
                if !root.join(quoted).is_file() {
                    missing.push(quoted.to_string());
                }
                continue;
            }
            let parts: Vec<&str> = quoted.split("::").collect();
            let (Some(module), Some(name)) = (parts.first(), parts.last()) else {
                continue;
            };
            let is_ident = |s: &str| {
                !s.is_empty()
                    && s.chars()
                        .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_')
            };
            if parts.len() < 2 || !is_ident(module) || !is_ident(name) {
                continue;
            }
            checked += 1;
            if !defines(module, name) {
                missing.push(quoted.to_string());
            }
        }
    }
    assert!(
        checked >= 60,
        "only {checked} test names found in docs/faults.md"
    );
    assert!(
        missing.is_empty(),
        "docs/faults.md names tests that do not exist: {missing:#?}"
    );
}
