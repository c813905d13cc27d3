//! The verifier against planted defects and a clean kernel, with the interpreter as the
//! device under test (no GPU needed): each defect must fail exactly the stage that is
//! meant to catch it.

use std::path::{Path, PathBuf};

use tritonc_diagnostics::SourceMap;
use tritonc_runtime::{select_variant, RuntimeError};
use tritonc_verify::{
    launch_args, load_spec, verify, InterpreterExecutor, PreparedCase, Stage, VerifyReport,
};

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures")
        .join(name)
}

fn example(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../examples")
        .join(name)
}

/// Verifies `path` with the interpreter standing in for the GPU, with few repetitions.
fn run(path: &Path, stages: &[Stage]) -> VerifyReport {
    let mut sources = SourceMap::new();
    let mut spec = load_spec(path, &mut sources).expect("the spec loads");
    spec.config.runs = 3;
    spec.config.stress_iterations = 3;
    let mut device = InterpreterExecutor::new(false, false);
    match verify(path, &spec, stages, &mut device, &mut sources, &mut |_| {}) {
        Ok(r) => r,
        Err(e) => panic!("{}: {e:?}", path.display()),
    }
}

#[test]
fn a_correct_kernel_passes_every_stage() {
    let r = run(&example("vector_add.toml"), &Stage::ALL);
    assert!(r.passed, "{}", r.render());
    // Every stage ran something.
    for s in Stage::ALL {
        assert!(
            r.checks.iter().any(|c| c.stage == s),
            "stage {s} has no check"
        );
    }
    // The interpreter against itself is no check: stage 1 says it had no independent
    // reference rather than passing.
    let c = r
        .checks
        .iter()
        .find(|c| c.stage == Stage::Correctness)
        .expect("a stage 1 check");
    assert!(c.not_declared, "{}", r.render());
    assert!(c.comparison.is_none() && c.tolerance.is_none(), "{c:?}");
}

#[test]
fn a_wrong_fill_value_fails_stage_1_against_the_reference_only() {
    let r = run(&fixture("wrong_fill.toml"), &[Stage::Correctness]);
    assert!(!r.passed);
    let interp = r
        .checks
        .iter()
        .find(|c| c.against.starts_with("interpreter"))
        .expect("a row against the interpreter");
    // The interpreter runs the same (wrong) kernel: its agreement is no evidence, and
    // the row says so instead of passing.
    assert!(interp.not_declared, "{}", r.render());
    assert!(interp.comparison.is_none());
    let reference = r
        .checks
        .iter()
        .find(|c| c.against == "wrong_fill_ref.npy")
        .expect("a check against the .npy reference");
    assert!(!reference.passed);
    let cmp = reference.comparison.as_ref().expect("values compared");
    // Every row of negative numbers got the fill value 0 as its maximum.
    assert_eq!(cmp.mismatches, 4);
    let worst = cmp.worst.as_ref().expect("a worst element");
    assert_eq!(worst.got, 0.0);
    assert!(worst.want < -1.0);
}

#[test]
fn a_missing_other_before_a_reduction_fails_stage_3_on_poisoned_lanes() {
    let r = run(
        &fixture("sum_without_other.toml"),
        &[Stage::Correctness, Stage::EdgeCases],
    );
    assert!(
        r.checks
            .iter()
            .filter(|c| c.stage == Stage::Correctness)
            .all(|c| c.passed),
        "{}",
        r.render()
    );
    let poison = r
        .checks
        .iter()
        .find(|c| c.case == "poisoned masked lanes")
        .expect("the poison check");
    assert!(!poison.passed, "{}", r.render());
    assert_eq!(r.failed_stages(), vec![Stage::EdgeCases]);
    let worst = poison.comparison.as_ref().and_then(|c| c.worst.clone());
    assert!(worst.expect("worst").got.is_nan());
}

#[test]
fn a_lost_update_race_fails_stage_4_in_the_race_check() {
    let r = run(&fixture("lost_update.toml"), &[Stage::Determinism]);
    let race = r
        .checks
        .iter()
        .find(|c| c.output == "race check")
        .expect("the race check");
    assert!(!race.passed);
    assert!(
        race.note.as_deref().is_some_and(|n| n.contains("E0602")),
        "{:?}",
        race.note
    );
}

#[test]
fn a_bundle_for_aligned_pointers_refuses_a_misaligned_launch() {
    let mut sources = SourceMap::new();
    let prepare = |path: &Path, sources: &mut SourceMap| {
        let spec = load_spec(path, sources).expect("loads");
        PreparedCase::prepare(&spec.spec, path, sources).expect("prepares")
    };
    let aligned = prepare(&example("vector_add.toml"), &mut sources);
    let misaligned = prepare(&fixture("misaligned_add.toml"), &mut sources);
    // The bundle compiled for the aligned launch: `x_ptr` is `*fp32:16`.
    let key = aligned.launch.specialization.key();
    assert!(key.to_string().contains("*fp32:16"), "{key}");
    let params =
        tritonc_bundle::abi_in_declaration_order(&aligned.launch.specialization, &["BLOCK_SIZE"])
            .expect("an ABI");
    let bundle = tritonc_bundle::Bundle {
        meta: tritonc_bundle::BundleMeta {
            format_version: tritonc_bundle::FORMAT_VERSION,
            entry: "add_kernel".into(),
            target: "sm_90".into(),
            key_hash: key.hash_hex(),
            key,
            num_warps: 4,
            dynamic_shared_bytes: 0,
            static_shared_bytes: 0,
            params,
            hidden_params: vec![],
            reduction_layouts: None,
            ptxas: None,
            min_driver_version: None,
        },
        ptx: String::new(),
        cubin: None,
    };
    // Device buffers at 256-byte boundaries, as cuMemAlloc gives them.
    let base = |id: tritonc_interp::BufferId| 0x7f00_0000_0000 + (u64::from(id.0) << 24);
    let ok = launch_args(&aligned, base).expect("arguments");
    assert_eq!(
        select_variant(std::slice::from_ref(&bundle), &ok, Some((9, 0))).expect("accepted"),
        0
    );
    let bad = launch_args(&misaligned, base).expect("arguments");
    match select_variant(std::slice::from_ref(&bundle), &bad, Some((9, 0))) {
        Err(e @ RuntimeError::LaunchRefused(_)) => {
            let text = e.to_string();
            assert!(text.contains("x_ptr") && text.contains(":16"), "{text}");
            assert_eq!(e.exit_code(), 2);
        }
        other => panic!("expected a refusal, got {other:?}"),
    }
}
