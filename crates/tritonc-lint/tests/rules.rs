//! Rule fixtures: each line marked `# expect: CODE` must get exactly that finding, and no
//! other line may get one. The rendered diagnostics are snapshotted.

mod common;

use std::collections::BTreeSet;

use tritonc_lint::Settings;

fn expected(text: &str) -> BTreeSet<(String, u32)> {
    let mut out = BTreeSet::new();
    for (i, line) in text.lines().enumerate() {
        if let Some(at) = line.find("# expect: ") {
            for code in line[at + 10..].split(',') {
                out.insert((code.trim().to_string(), i as u32 + 1));
            }
        }
    }
    out
}

fn check_fixture(name: &str, settings: &Settings) {
    let path = format!("tests/fixtures/{name}");
    let text = std::fs::read_to_string(&path).expect("fixture exists");
    let (findings, sources) = common::lint_text(&path, &text, settings);
    let got: BTreeSet<(String, u32)> = common::codes_and_lines(&findings, &sources)
        .into_iter()
        .filter(|(c, _)| c != "TRI001")
        .collect();
    let want = expected(&text);
    assert_eq!(got, want, "\n{}", common::render(&findings, &sources));
    let not_analysed: Vec<String> = findings
        .iter()
        .filter(|f| f.diagnostic.code.0 == "TRI001")
        .map(|f| format!("{} {:?}", f.diagnostic.message, f.diagnostic.notes))
        .collect();
    assert!(
        not_analysed.is_empty() || name == "tri2xx_3xx.py",
        "{not_analysed:#?}"
    );
    insta::assert_snapshot!(name, common::render(&findings, &sources));
}

#[test]
fn tri101_unmasked_block_access() {
    check_fixture("tri101.py", &without_tri203());
}

#[test]
fn tri102_tri103_masked_lanes() {
    check_fixture("tri102_103.py", &without_tri203());
}

#[test]
fn tri2xx_tri3xx() {
    // A project whose tensors can pass 2^31 elements: TRI203 checks every kernel.
    let mut settings = Settings {
        max_tensor_elements: Some(1 << 32),
        ..Settings::default()
    };
    // The configured signature makes the pointer dtypes known, so TRI204 can judge them.
    settings
        .kernel_signatures
        .insert("tf32_dot".into(), "*fp32, *fp32, *fp32, 32".into());
    check_fixture("tri2xx_3xx.py", &settings);
}

#[test]
fn tri201_tri202_tri204_dtypes_from_the_source() {
    // No configured signature: annotations, casts, `dtype=` arguments and constexpr
    // defaults say the dtypes.
    check_fixture("tri20x_source_dtypes.py", &without_tri203());
}

fn without_tri203() -> Settings {
    Settings {
        ignore: vec!["TRI203".into()],
        ..Settings::default()
    }
}
