//! `verify --interpret`: the device is the interpreter, which is also the oracle. Its
//! comparisons with the interpreter are the same computation twice and must never be
//! reported as passes; only independent references (`.npy`) are checked.

use std::path::{Path, PathBuf};

use tritonc_diagnostics::SourceMap;
use tritonc_verify::{load_spec, verify, InterpreterExecutor, Stage, VerifyReport};

fn examples() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples")
}

fn verify_on_interpreter(path: &Path) -> VerifyReport {
    let mut sources = SourceMap::new();
    let input = load_spec(path, &mut sources).expect("the spec loads");
    let mut device = InterpreterExecutor::new(false, false);
    verify(
        path,
        &input,
        &[Stage::Correctness],
        &mut device,
        &mut sources,
        &mut |_| {},
    )
    .unwrap_or_else(|e| panic!("{e:?}"))
}

#[test]
fn stage_1_without_a_reference_says_nothing_independent_was_checked() {
    let r = verify_on_interpreter(&examples().join("vector_add.toml"));
    let stage1: Vec<_> = r
        .checks
        .iter()
        .filter(|c| c.stage == Stage::Correctness)
        .collect();
    assert!(!stage1.is_empty(), "{}", r.render());
    for c in &stage1 {
        assert!(
            c.not_declared,
            "a self-comparison counted as a check: {c:?}"
        );
        assert!(c.comparison.is_none(), "{c:?}");
    }
    assert!(stage1.iter().any(|c| c.output == "out"), "{}", r.render());
    let text = r.render();
    assert!(text.contains("correctness: nothing checked"), "{text}");
    assert!(!text.contains("correctness: pass"), "{text}");
    assert!(text.contains("NOTHING CHECKED: 1 checks"), "{text}");
    assert!(!text.contains("PASS"), "{text}");
    assert!(text.contains("no independent reference"), "{text}");
}

#[test]
fn stage_1_with_a_reference_checks_the_reference_only() {
    let dir = std::env::temp_dir().join(format!("tritonc-interp-only-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    std::fs::copy(examples().join("vector_add.py"), dir.join("vector_add.py")).expect("copy");
    // A wrong reference (all zeros): an independent check that must fail.
    let spec = std::fs::read_to_string(examples().join("vector_add.toml"))
        .expect("spec")
        .replace(
            "output = true\n",
            "output = true\nreference = \"zeros.npy\"\n",
        );
    std::fs::write(dir.join("spec.toml"), spec).expect("write spec");
    let zeros = tritonc_spec::npy::NpyArray {
        dtype: tritonc_ir::DType::F32,
        shape: vec![98432],
        bytes: vec![0; 98432 * 4],
    };
    std::fs::write(dir.join("zeros.npy"), tritonc_spec::npy::write(&zeros)).expect("npy");
    let r = verify_on_interpreter(&dir.join("spec.toml"));
    let compared: Vec<_> = r.checks.iter().filter(|c| c.comparison.is_some()).collect();
    assert_eq!(compared.len(), 1, "{}", r.render());
    assert!(
        compared[0].against.contains("zeros.npy"),
        "{:?}",
        compared[0]
    );
    assert!(!r.passed, "{}", r.render());
}
