//! Every example spec stays consistent under stage 3's size variants: each variant its
//! `[verify] vary_sizes` allows prepares, and the ones that used to read or write past a
//! buffer run clean on the interpreter.

use std::path::{Path, PathBuf};

use tritonc_diagnostics::SourceMap;
use tritonc_verify::{load_spec, plan, verify, CaseKind, InterpreterExecutor, PreparedCase, Stage};

fn examples() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples")
}

#[test]
fn every_size_variant_of_every_example_prepares() {
    let mut specs: Vec<PathBuf> = std::fs::read_dir(examples())
        .expect("examples/ exists")
        .map(|e| e.expect("readable entry").path())
        .filter(|p| p.extension().is_some_and(|e| e == "toml"))
        .collect();
    specs.sort();
    assert!(specs.len() >= 16, "{specs:?}");
    for path in &specs {
        let mut sources = SourceMap::new();
        let input =
            load_spec(path, &mut sources).unwrap_or_else(|e| panic!("{}: {e:?}", path.display()));
        let p = plan(&input.spec, &input.config, &[Stage::EdgeCases]);
        for case in &p.cases {
            match &case.kind {
                CaseKind::NotApplicable { reason } => assert!(!reason.is_empty()),
                _ => {
                    if let Err(d) = PreparedCase::prepare(&case.spec, path, &mut sources) {
                        let msgs: Vec<&str> = d.iter().map(|d| d.message.as_str()).collect();
                        panic!("{} / {}: {msgs:?}", path.display(), case.label);
                    }
                }
            }
        }
    }
}

#[test]
fn the_examples_that_vary_dependent_sizes_run_stage_3_clean() {
    for name in [
        "matmul.toml",
        "matmul_tf32.toml",
        "layer_norm_bwd_dx.toml",
        "rotary.toml",
    ] {
        let path = examples().join(name);
        let mut sources = SourceMap::new();
        let input = load_spec(&path, &mut sources).expect("the spec loads");
        let mut device = InterpreterExecutor::new(false, false);
        let r = verify(
            &path,
            &input,
            &[Stage::EdgeCases],
            &mut device,
            &mut sources,
            &mut |_| {},
        )
        .unwrap_or_else(|e| panic!("{name}: {e:?}"));
        assert!(r.passed, "{}", r.render());
        // Every size variant either ran or says why it does not apply.
        for label in ["sizes 127", "sizes 33", "1×1", "1×N"] {
            assert!(
                r.checks.iter().any(|c| c.case == label),
                "{name}: no row for {label}\n{}",
                r.render()
            );
        }
    }
}
