//! Stage 3's large-input check (`[verify.large]`) without a GPU.
//!
//! - At the real size (2^31 + 5000 fp16 elements, 4 GiB per tensor, allocated as zero
//!   pages that stay unmapped) with the interpreter as the device: the sampled programs
//!   of the int32-offset kernel fault past the boundary, the int64 kernel's run clean.
//! - The comparison itself on small stand-ins (the boundary lowered to 4096 elements) with
//!   a device that runs the whole launch in the interpreter, and that can be made to
//!   differ at one element or to fault.

use std::path::{Path, PathBuf};

use tritonc_diagnostics::SourceMap;
use tritonc_verify::large::LABEL;
use tritonc_verify::{
    load_spec, verify, ByteRange, Check, ExecError, ExecErrorKind, Executor, InterpreterExecutor,
    OutputTensor, PreparedCase, RunStats, Stage, VerifyReport, VerifySpec,
};

fn repo(path: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../..")
        .join(path)
}

fn load(path: &Path) -> (VerifySpec, SourceMap) {
    let mut sources = SourceMap::new();
    let spec = load_spec(path, &mut sources).expect("the spec loads");
    (spec, sources)
}

fn run(path: &Path, spec: &VerifySpec, device: &mut dyn Executor) -> VerifyReport {
    let mut sources = SourceMap::new();
    verify(
        path,
        spec,
        &[Stage::EdgeCases],
        device,
        &mut sources,
        &mut |_| {},
    )
    .unwrap_or_else(|e| panic!("{}: {e:?}", path.display()))
}

fn large_checks(r: &VerifyReport) -> Vec<&Check> {
    r.checks.iter().filter(|c| c.case == LABEL).collect()
}

#[test]
fn int32_offsets_fault_past_two_to_the_31_elements_and_int64_offsets_do_not() {
    let planted = repo("crates/tritonc-verify/tests/fixtures/int32_offsets_large.toml");
    let (spec, _) = load(&planted);
    let r = run(&planted, &spec, &mut InterpreterExecutor::new(false, false));
    assert!(!r.passed, "{}", r.render());
    assert_eq!(r.failed_stages(), vec![Stage::EdgeCases]);
    let failed: Vec<&Check> = large_checks(&r).into_iter().filter(|c| !c.passed).collect();
    // 2^31 / 1024 = 2^21 is the first program whose `pid * 1024` wraps; the two after it
    // and the last one (2^21 + 4) are sampled too, and wrap as well.
    let boundary = failed
        .iter()
        .find(|c| c.output.starts_with("program 2097152 "))
        .unwrap_or_else(|| panic!("program 2^21 fails\n{}", r.render()));
    let note = boundary.note.as_deref().expect("a message");
    assert!(note.starts_with("E0601"), "{note}");
    assert!(note.contains("before the start of `x`"), "{note}");
    assert!(note.contains("tl.int64"), "{note}");
    for pid in ["2097153 ", "2097156 (last)"] {
        assert!(
            failed
                .iter()
                .any(|c| c.output.starts_with(&format!("program {pid}"))),
            "{pid}\n{}",
            r.render()
        );
    }
    // Programs below the boundary are right in int32 too.
    assert!(!failed
        .iter()
        .any(|c| c.output.starts_with("program 2097151 ")));
    // Everything else in stage 3 (the small launches) passes.
    assert!(r
        .checks
        .iter()
        .filter(|c| c.case != LABEL)
        .all(|c| c.passed));

    let example = repo("examples/vector_add_large.toml");
    let (spec, _) = load(&example);
    let r = run(&example, &spec, &mut InterpreterExecutor::new(false, false));
    assert!(r.passed, "{}", r.render());
    let large = large_checks(&r);
    assert_eq!(large.len(), 1, "{}", r.render());
    let note = large[0].note.as_deref().expect("a note");
    assert!(note.contains("ran in bounds"), "{note}");
    assert!(note.contains("2097152 (at element 2^31 of `x`)"), "{note}");
    assert!(
        note.contains("needs a device that runs the whole launch"),
        "{note}"
    );
}

#[test]
fn a_spec_without_a_large_launch_says_so() {
    let path = repo("examples/vector_add.toml");
    let (spec, _) = load(&path);
    let r = run(&path, &spec, &mut InterpreterExecutor::new(false, false));
    assert!(r.passed, "{}", r.render());
    let large = large_checks(&r);
    assert_eq!(large.len(), 1);
    assert!(large[0].not_declared && !large[0].not_applicable);
    let text = r.render();
    assert!(text.contains("not declared"), "{text}");
    assert!(text.contains("[verify.large]"), "{text}");
    // On the interpreter its comparisons with itself are not declared either.
    let not_declared = r.checks.iter().filter(|c| c.not_declared).count();
    assert!(
        text.trim_end()
            .ends_with(&format!("{not_declared} not declared")),
        "{text}"
    );
    let json = serde_json::to_value(&r).expect("serializes");
    let row = json["checks"]
        .as_array()
        .expect("checks")
        .iter()
        .find(|c| c["case"] == LABEL)
        .expect("the row is in the JSON");
    assert_eq!(row["not_declared"], true);
}

/// A device that runs the whole launch in the interpreter (affordable at stand-in
/// sizes), optionally changing one output element or failing like a faulting GPU.
struct WholeLaunch {
    /// `(buffer, element)` to corrupt after the launch.
    corrupt: Option<(u32, usize)>,
    /// A launch failure to report instead of results.
    fault: Option<String>,
}

impl Executor for WholeLaunch {
    fn describe(&mut self) -> String {
        "interpreter (whole launches)".into()
    }

    fn run(
        &mut self,
        case: &PreparedCase,
        runs: usize,
        each: &mut dyn FnMut(usize, Vec<OutputTensor>),
    ) -> Result<RunStats, ExecError> {
        InterpreterExecutor::new(false, false).run(case, runs, each)
    }

    fn runs_large_launches(&self) -> bool {
        true
    }

    fn run_gathering(
        &mut self,
        case: &PreparedCase,
        ranges: &[ByteRange],
    ) -> Result<Vec<Vec<u8>>, ExecError> {
        if let Some(f) = &self.fault {
            return Err(ExecError::new(ExecErrorKind::Failed, f.clone()));
        }
        let mut memory = case.launch.memory.clone();
        let opts = tritonc_interp::InterpOptions {
            num_warps: case.num_warps,
            ..Default::default()
        };
        tritonc_interp::launch(
            &case.function,
            &case.launch.runtime_args,
            case.launch.grid,
            &mut memory,
            &opts,
        )
        .map_err(|e| ExecError::new(ExecErrorKind::Failed, e.to_string()))?;
        if let Some((b, e)) = self.corrupt {
            // fp16: 2.0 added to the element's value by flipping a high exponent bit.
            let bytes = &mut memory.buffer_mut(tritonc_interp::BufferId(b)).bytes;
            bytes[2 * e + 1] ^= 0x40;
        }
        Ok(ranges
            .iter()
            .map(|r| memory.buffer(r.buffer).bytes[r.start..r.start + r.len].to_vec())
            .collect())
    }
}

/// vector_add_large with a stand-in boundary of 4096 elements, 10000 elements (10
/// programs of 1024), and no random samples: programs 0, 3, 4, 5 and 9 are compared.
fn stand_in() -> (PathBuf, VerifySpec) {
    let path = repo("examples/vector_add_large.toml");
    let (mut spec, _) = load(&path);
    let large = spec.config.large.as_mut().expect("declared");
    large.boundary = 4096;
    large.dims[0].1 = 10_000;
    large.random_programs = 0;
    (path, spec)
}

#[test]
fn the_whole_launch_is_compared_at_the_elements_the_sampled_programs_wrote() {
    let (path, spec) = stand_in();
    let clean = run(
        &path,
        &spec,
        &mut WholeLaunch {
            corrupt: None,
            fault: None,
        },
    );
    assert!(clean.passed, "{}", clean.render());
    let large = large_checks(&clean);
    assert_eq!(large.len(), 1, "{}", clean.render());
    let cmp = large[0].comparison.as_ref().expect("values compared");
    // Four whole blocks and the last one's 10000 - 9·1024 = 784 elements.
    assert_eq!(cmp.numel, 4 * 1024 + 784);
    assert_eq!(large[0].output, "out");
    assert!(large[0]
        .tolerance
        .as_deref()
        .is_some_and(|t| t.starts_with("bitwise")));
    let note = large[0].note.as_deref().expect("the programs are listed");
    assert!(
        note.contains("5 sampled programs: 0 (first), 3 (at element 4096 of `x`)"),
        "{note}"
    );

    // `out` is buffer 2. Element 4100 belongs to program 4 (sampled): caught, and
    // reported at its index in `out`.
    let differs = run(
        &path,
        &spec,
        &mut WholeLaunch {
            corrupt: Some((2, 4100)),
            fault: None,
        },
    );
    assert!(!differs.passed, "{}", differs.render());
    let c = large_checks(&differs)[0];
    let cmp = c.comparison.as_ref().expect("compared");
    assert_eq!(cmp.mismatches, 1);
    assert_eq!(
        cmp.worst.as_ref().map(|w| w.index.clone()),
        Some(vec![4100])
    );
    assert!(c.note.as_deref().is_some_and(|n| n.contains("tl.int64")));

    // Element 1500 belongs to program 1, which is not sampled: not compared.
    let unseen = run(
        &path,
        &spec,
        &mut WholeLaunch {
            corrupt: Some((2, 1500)),
            fault: None,
        },
    );
    assert!(unseen.passed, "{}", unseen.render());
}

#[test]
fn a_faulting_launch_is_a_failure_with_the_reason_not_a_crash() {
    let (path, spec) = stand_in();
    let r = run(
        &path,
        &spec,
        &mut WholeLaunch {
            corrupt: None,
            fault: Some("CUDA_ERROR_ILLEGAL_ADDRESS: an illegal memory access".into()),
        },
    );
    assert!(!r.passed);
    let c = large_checks(&r)
        .into_iter()
        .find(|c| !c.passed)
        .expect("a failed large check");
    assert_eq!(c.against, "device");
    let note = c.note.as_deref().expect("the reason");
    assert!(note.contains("CUDA_ERROR_ILLEGAL_ADDRESS"), "{note}");
    assert!(note.contains("tl.int64"), "{note}");
}

#[test]
fn a_large_launch_that_is_not_large_fails_and_says_how_to_fix_it() {
    let (path, mut spec) = stand_in();
    spec.config.large.as_mut().expect("declared").dims[0].1 = 4000;
    let r = run(
        &path,
        &spec,
        &mut WholeLaunch {
            corrupt: None,
            fault: None,
        },
    );
    assert!(!r.passed);
    let c = large_checks(&r)[0];
    let note = c.note.as_deref().expect("why");
    assert!(note.contains("no tensor past 4096 elements"), "{note}");
    assert!(note.contains("raise its `dims`"), "{note}");
}

#[test]
fn the_large_launch_runs_last_and_is_reported_in_stage_3() {
    let path = repo("examples/vector_add_large.toml");
    let (spec, _) = load(&path);
    let p = tritonc_verify::plan(&spec.spec, &spec.config, &Stage::ALL);
    let last = p.cases.last().expect("cases");
    assert_eq!(last.label, LABEL);
    assert_eq!(last.stage, Stage::EdgeCases);
    // Planned with zero tensors (cheap to prepare for its specialization), the spec's
    // initializers kept to put back.
    let tritonc_verify::CaseKind::Large { inits, problem } = &last.kind else {
        panic!("{:?}", last.kind)
    };
    assert!(problem.is_none());
    assert!(last
        .spec
        .tensors
        .iter()
        .all(|t| t.init == tritonc_spec::parse::Init::Zeros));
    let back = tritonc_verify::large::restored(&last.spec, inits);
    assert_eq!(back.tensors[0].init, spec.spec.tensors[0].init);
    assert_ne!(back.tensors[0].shape, spec.spec.tensors[0].shape);

    // In a report, stage 3's rows come before stage 4's even though the case ran last.
    let (path, mut spec) = stand_in();
    spec.config.runs = 2;
    spec.config.stress_iterations = 2;
    let mut sources = SourceMap::new();
    let mut device = WholeLaunch {
        corrupt: None,
        fault: None,
    };
    let r = verify(
        &path,
        &spec,
        &Stage::ALL,
        &mut device,
        &mut sources,
        &mut |_| {},
    )
    .expect("verifies");
    assert!(r.passed, "{}", r.render());
    let stages: Vec<Stage> = r.checks.iter().map(|c| c.stage).collect();
    assert!(stages.windows(2).all(|w| w[0] <= w[1]), "{stages:?}");
    let large_at = r.checks.iter().position(|c| c.case == LABEL).expect("row");
    assert_eq!(r.checks[large_at + 1].stage, Stage::Determinism);
}

#[test]
fn verify_large_must_name_literal_dims_and_given_args() {
    let dir = std::env::temp_dir().join(format!("tritonc-large-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    std::fs::copy(
        repo("examples/vector_add_large.py"),
        dir.join("vector_add_large.py"),
    )
    .expect("copied");
    let text = std::fs::read_to_string(repo("examples/vector_add_large.toml")).expect("read");
    for (from, to, why) in [
        (
            "\"x.shape[0]\" = 2147488648",
            "\"out.shape[0]\" = 2147488648",
            "which is an expression",
        ),
        (
            "\"x.shape[0]\" = 2147488648",
            "\"z.shape[0]\" = 2147488648",
            "no tensor `z`",
        ),
        (
            "random_programs = 4",
            "random_programs = 4\nargs = { BLOCK = 4096 }",
            "`BLOCK`, which `[args]` does not give",
        ),
    ] {
        let path = dir.join("spec.toml");
        std::fs::write(&path, text.replace(from, to)).expect("written");
        let mut sources = SourceMap::new();
        let e = load_spec(&path, &mut sources).expect_err(to);
        assert!(e[0].message.contains(why), "{to}: {}", e[0].message);
    }
    let _ = std::fs::remove_dir_all(&dir);
}
