//! The driver: plans the stages, prepares each case, runs it on the device and on the
//! interpreter, and turns every comparison into a [`Check`].

use std::path::Path;

use tritonc_diagnostics::{Diagnostic, SourceMap};
use tritonc_spec::LaunchSpec;

use crate::compare::{compare, OutputTensor};
use crate::config::{split_verify_table, VerifyConfig};
use crate::exec::{ExecError, ExecErrorKind, Executor, InterpreterExecutor, PreparedCase};
use crate::plan::{plan, Case, CaseKind, Stage};
use crate::report::{Check, VerifyReport};
use crate::tolerance::{analyze, derive, ulp, KernelNumerics, Tolerance};

/// A spec read for verification: the launch spec and its `[verify]` settings.
#[derive(Debug, Clone)]
pub struct VerifySpec {
    /// The launch spec.
    pub spec: LaunchSpec,
    /// The `[verify]` table.
    pub config: VerifyConfig,
    /// How the kernel file resolves its imports from other files (the kernel's own module
    /// only, unless the caller sets its project's).
    pub scopes: std::sync::Arc<dyn tritonc_spec::KernelScopes>,
}

/// Reads and parses a spec file (adding it to `sources`).
pub fn load_spec(path: &Path, sources: &mut SourceMap) -> Result<VerifySpec, Vec<Diagnostic>> {
    let text = tritonc_spec::files::read_regular_to_string(path).map_err(|e| {
        vec![Diagnostic::error(
            tritonc_spec::codes::UNREADABLE_FILE,
            format!("cannot read `{}`: {e}", path.display()),
        )]
    })?;
    let file = sources.add(path.to_path_buf(), text.as_str());
    let (masked, config) = split_verify_table(&text, file)?;
    let spec = tritonc_spec::parse(&masked, file)?;
    if let Err(msg) = crate::plan::check_vary_sizes(&spec, &config)
        .and_then(|()| crate::large::check_large(&spec, &config))
    {
        let mut d = Diagnostic::error(tritonc_spec::codes::MALFORMED_SPEC, msg);
        if let Some(span) = config.span {
            d = d.with_primary(span, "in this `[verify]` table");
        }
        return Err(vec![d]);
    }
    Ok(VerifySpec {
        spec,
        config,
        scopes: std::sync::Arc::new(tritonc_spec::SingleFile),
    })
}

/// Why verification could not run at all.
#[derive(Debug)]
pub enum VerifyError {
    /// The spec (or its kernel) is wrong: diagnostics into `sources`.
    Spec(Vec<Diagnostic>),
    /// The device cannot run anything (no GPU, no driver).
    Unavailable(String),
}

/// Where verification stands, for progress bars.
#[derive(Debug, Clone, PartialEq)]
pub struct Progress {
    /// Cases finished.
    pub done: usize,
    /// Cases planned.
    pub total: usize,
    /// The case starting now (`stage 3: sizes 127`), or `None` at the end.
    pub current: Option<String>,
}

/// Runs `stages` of the verification of the spec at `spec_path` on `device`.
pub fn verify(
    spec_path: &Path,
    input: &VerifySpec,
    stages: &[Stage],
    device: &mut dyn Executor,
    sources: &mut SourceMap,
    progress: &mut dyn FnMut(Progress),
) -> Result<VerifyReport, VerifyError> {
    let the_plan = plan(&input.spec, &input.config, stages);
    let total = the_plan.cases.len();
    let mut report = VerifyReport {
        spec: spec_path.display().to_string(),
        kernel: input.spec.kernel_name.clone().unwrap_or_default(),
        device: device.describe(),
        stages: stages.to_vec(),
        checks: Vec::new(),
        skipped: the_plan.skipped.clone(),
        passed: true,
    };
    for (i, case) in the_plan.cases.iter().enumerate() {
        progress(Progress {
            done: i,
            total,
            current: Some(format!("stage {}: {}", case.stage.number(), case.label)),
        });
        // What to launch: the case's spec, except for a large case on a device that runs
        // it whole, which gets its initializers back (see `CaseKind::Large`).
        let mut to_launch = std::borrow::Cow::Borrowed(&case.spec);
        match &case.kind {
            CaseKind::NotApplicable { reason } => {
                report
                    .checks
                    .push(Check::not_applicable(case.stage, &case.label, reason));
                continue;
            }
            CaseKind::NotDeclared => {
                report.checks.push(Check::not_declared(
                    case.stage,
                    &case.label,
                    "the spec declares no `[verify.large]` launch, so offsets past 2^31 \
                     elements are not checked (declare one when the kernel is meant for \
                     such sizes; docs/verify.md)",
                ));
                continue;
            }
            CaseKind::Large {
                problem: Some(why), ..
            } => {
                report.checks.push(Check::outcome(
                    case.stage,
                    &case.label,
                    "-",
                    "-",
                    false,
                    why.clone(),
                ));
                continue;
            }
            CaseKind::Large { inits, .. } if device.runs_large_launches() => {
                to_launch = std::borrow::Cow::Owned(crate::large::restored(&case.spec, inits));
            }
            _ => {}
        }
        let prepared = match PreparedCase::prepare_in(
            &to_launch,
            spec_path,
            sources,
            &*input.scopes,
        ) {
            Ok(p) => p,
            // The spec as written must work; a variant that cannot be built is a finding.
            Err(diagnostics) if case.spec == input.spec => {
                return Err(VerifyError::Spec(diagnostics))
            }
            Err(diagnostics) => {
                let why = diagnostics
                    .iter()
                    .map(|d| d.message.clone())
                    .collect::<Vec<_>>()
                    .join("; ");
                // The spec decides which dims vary; a size variant it allows must work.
                let hint = if case.stage == Stage::EdgeCases
                    && case
                        .spec
                        .tensors
                        .iter()
                        .zip(&input.spec.tensors)
                        .any(|(a, b)| a.shape != b.shape)
                {
                    " (if the kernel needs some of these sizes, list the dims that may vary in `[verify] vary_sizes`)"
                } else {
                    ""
                };
                report.checks.push(Check::outcome(
                    case.stage,
                    &case.label,
                    "-",
                    "-",
                    false,
                    format!("this variant of the spec could not be prepared: {why}{hint}"),
                ));
                continue;
            }
        };
        if report.kernel.is_empty() {
            report.kernel = prepared.launch.kernel_name.clone();
        }
        run_case(case, &prepared, &input.config, device, &mut report.checks)?;
    }
    progress(Progress {
        done: total,
        total,
        current: None,
    });
    report.finish();
    Ok(report)
}

/// The tolerance for one output of a case against the interpreter.
pub(crate) fn tolerance_for(
    config: &VerifyConfig,
    numerics: &KernelNumerics,
    want: &OutputTensor,
) -> Tolerance {
    match (config.atol, config.rtol) {
        (None, None) => derive(numerics, want.dtype, want.max_abs()),
        (a, r) => Tolerance::within(a.unwrap_or(0.0), r.unwrap_or(0.0), "[verify] in the spec"),
    }
}

pub(crate) fn describe_tolerance(t: &Tolerance) -> String {
    if t.exact {
        format!("bitwise ({})", t.why)
    } else {
        format!("atol {:.3e} rtol {:.3e} ({})", t.atol, t.rtol, t.why)
    }
}

/// A device failure as a check, or the end of verification when nothing can run.
fn device_failure(case: &Case, e: ExecError) -> Result<Check, VerifyError> {
    if e.kind == ExecErrorKind::Unavailable {
        return Err(VerifyError::Unavailable(e.message));
    }
    Ok(Check::outcome(
        case.stage,
        &case.label,
        "-",
        "device",
        false,
        e.message,
    ))
}

fn run_case(
    case: &Case,
    prepared: &PreparedCase,
    config: &VerifyConfig,
    device: &mut dyn Executor,
    checks: &mut Vec<Check>,
) -> Result<(), VerifyError> {
    let mut numerics = analyze(&prepared.function);
    // On sm_80 and later the back end runs TF32 dots on the tensor cores, which use the
    // fp32 inputs' top 10 mantissa bits as they are (as Triton's do); the interpreter
    // rounds them to nearest. The device is then an independent TF32 implementation.
    crate::tolerance::independent_tf32(&mut numerics);
    let code_target = device.code_target(prepared);
    // On capability 9.0 fp8 dots run on `wgmma`, whose fp8 accumulation keeps about 14
    // bits of the running sum (as upstream Triton's code there, bit for bit): the device
    // then accumulates fp8 products as Triton does, not as the interpreter does.
    if code_target.is_some_and(|t| t.capability() == 90) {
        crate::tolerance::reference_fp8_accumulation(&mut numerics);
    }
    // The interpreter replays the reduction and scan orders of the device's code
    // (its bundle's target: wave64 on AMD, blocked dot results below sm_80).
    let oracle = InterpreterExecutor::for_target(false, false, code_target);
    let (stage, label) = (case.stage, case.label.as_str());
    match &case.kind {
        CaseKind::Compare { with_references } => {
            let want = match oracle.run_once(prepared) {
                Ok(w) => w,
                Err(e) => {
                    checks.push(Check::outcome(
                        stage,
                        label,
                        "-",
                        "interpreter",
                        false,
                        e.message,
                    ));
                    return Ok(());
                }
            };
            let mut got = None;
            let stats = device.run(prepared, 1, &mut |_, out| got = Some(out));
            let stats = match stats {
                Ok(s) => s,
                Err(e) => {
                    checks.push(device_failure(case, e)?);
                    return Ok(());
                }
            };
            let got = got.unwrap_or_default();
            if device.is_interpreter() {
                // The same computation twice: it ran without a fault, and that is all
                // this says. Only the `.npy` references below are independent.
                let declared: Vec<&str> = prepared
                    .launch
                    .tensors
                    .iter()
                    .filter(|t| t.output && t.reference.is_some() && *with_references)
                    .map(|t| t.name.as_str())
                    .collect();
                for w in &want {
                    let mut c = Check::not_declared(
                        stage,
                        label,
                        format!(
                            "no independent reference: the device is the interpreter, which \
                             is also the oracle, so comparing them would compare the \
                             interpreter with itself{}",
                            if declared.contains(&w.name.as_str()) {
                                " (the output's `reference` is checked on its own row)"
                            } else if *with_references {
                                "; declare `reference = \"….npy\"` for the output (computed \
                                 by an independent implementation), or verify on a GPU"
                            } else {
                                "; verify on a GPU"
                            }
                        ),
                    );
                    c.output = w.name.clone();
                    c.against = "interpreter (itself)".into();
                    checks.push(c);
                }
                if *with_references {
                    reference_checks(case, prepared, &got, checks);
                }
                return Ok(());
            }
            for (g, w) in got.iter().zip(&want) {
                let tol = tolerance_for(config, &numerics, w);
                let mut check = Check::compared(
                    stage,
                    label,
                    &w.name,
                    "interpreter",
                    compare(g, w, &tol),
                    describe_tolerance(&tol),
                );
                if let Some(note) = &stats.note {
                    check = check.with_note(note.clone());
                }
                checks.push(check);
            }
            if *with_references {
                reference_checks(case, prepared, &got, checks);
            }
        }
        CaseKind::PoisonVsNormal => {
            let poisoned = InterpreterExecutor::new(true, false);
            match (oracle.run_once(prepared), poisoned.run_once(prepared)) {
                (Ok(normal), Ok(poison)) => {
                    for (p, n) in poison.iter().zip(&normal) {
                        let tol = Tolerance::exact("masked lanes must not reach the outputs");
                        let mut c = Check::compared(
                            stage,
                            label,
                            &n.name,
                            "interpreter, lanes not poisoned",
                            compare(p, n, &tol),
                            describe_tolerance(&tol),
                        );
                        if !c.passed {
                            c = c.with_note(
                                "the output depends on masked-off lanes of a load without \
                                 `other=` (undefined in Triton; 0 on NVIDIA today): give the \
                                 load an `other=` that is neutral for what follows",
                            );
                        }
                        checks.push(c);
                    }
                }
                (Err(e), _) | (_, Err(e)) => {
                    checks.push(Check::outcome(
                        stage,
                        label,
                        "-",
                        "interpreter",
                        false,
                        e.message,
                    ));
                }
            }
        }
        CaseKind::NotApplicable { reason } => {
            checks.push(Check::not_applicable(stage, label, reason));
        }
        CaseKind::NotDeclared => {}
        CaseKind::Large { .. } => {
            let full = device.runs_large_launches();
            crate::large::run_large(case, prepared, config, &numerics, device, full, checks);
        }
        CaseKind::Repeat { runs } => {
            repeat_checks(case, prepared, config, &numerics, device, *runs, checks)?;
            let racy = InterpreterExecutor::new(false, true);
            checks.push(match racy.run_once(prepared) {
                Ok(_) => Check::outcome(
                    stage,
                    label,
                    "race check",
                    "interpreter",
                    true,
                    "no cross-program data race",
                ),
                Err(e) => {
                    Check::outcome(stage, label, "race check", "interpreter", false, e.message)
                }
            });
        }
        CaseKind::Stress { iterations } => {
            let before = checks.len();
            let stats = repeat_checks(
                case,
                prepared,
                config,
                &numerics,
                device,
                *iterations,
                checks,
            )?;
            if let Some(stats) = stats {
                let check = match stats.memory_used {
                    Some((first, last)) => {
                        let grew = last.saturating_sub(first);
                        Check::outcome(
                            stage,
                            label,
                            "device memory",
                            "launch 1",
                            grew <= config.stress_memory_slack,
                            format!(
                                "{} MiB in use after launch 1, {} MiB after launch {iterations} \
                                 (growth {grew} bytes, {} allowed)",
                                first >> 20,
                                last >> 20,
                                config.stress_memory_slack
                            ),
                        )
                    }
                    None => Check::outcome(
                        stage,
                        label,
                        "device memory",
                        "-",
                        true,
                        "the device does not report memory use",
                    ),
                };
                checks.push(check);
            }
            // Drift is judged against the interpreter too, not only against launch 1.
            if checks[before..].iter().all(|c| c.passed) {
                if let Ok(want) = oracle.run_once(prepared) {
                    let mut last = None;
                    if device
                        .run(prepared, 1, &mut |_, out| last = Some(out))
                        .is_ok()
                    {
                        for (g, w) in last.unwrap_or_default().iter().zip(&want) {
                            let tol = tolerance_for(config, &numerics, w);
                            checks.push(Check::compared(
                                stage,
                                label,
                                &w.name,
                                "interpreter",
                                compare(g, w, &tol),
                                describe_tolerance(&tol),
                            ));
                        }
                    }
                }
            }
        }
    }
    Ok(())
}

/// `runs` device runs compared with the first: bitwise for deterministic kernels, else
/// within the tolerance. Returns the device's statistics (None after a failure).
fn repeat_checks(
    case: &Case,
    prepared: &PreparedCase,
    config: &VerifyConfig,
    numerics: &KernelNumerics,
    device: &mut dyn Executor,
    runs: usize,
    checks: &mut Vec<Check>,
) -> Result<Option<crate::exec::RunStats>, VerifyError> {
    let mut first: Option<Vec<OutputTensor>> = None;
    // Per output: the worst comparison over the runs, and the run it came from.
    let mut worst: Vec<Option<(crate::compare::Comparison, usize, Tolerance)>> = Vec::new();
    let result = device.run(prepared, runs, &mut |i, out| {
        let Some(base) = &first else {
            worst = vec![None; out.len()];
            first = Some(out);
            return;
        };
        for (k, (g, w)) in out.iter().zip(base).enumerate() {
            let tol = if config.deterministic {
                Tolerance::exact("deterministic kernel")
            } else {
                tolerance_for(config, numerics, w)
            };
            let c = compare(g, w, &tol);
            let replace = match &worst[k] {
                None => true,
                Some((old, _, _)) => c.mismatches > old.mismatches || c.max_abs > old.max_abs,
            };
            if replace {
                worst[k] = Some((c, i + 1, tol));
            }
        }
    });
    let stats = match result {
        Ok(s) => s,
        Err(e) => {
            checks.push(device_failure(case, e)?);
            return Ok(None);
        }
    };
    let names: Vec<String> = first
        .unwrap_or_default()
        .iter()
        .map(|o| o.name.clone())
        .collect();
    for (name, w) in names.iter().zip(worst) {
        if let Some((c, run, tol)) = w {
            let mut check = Check::compared(
                case.stage,
                &case.label,
                name,
                "run 1",
                c,
                describe_tolerance(&tol),
            );
            if !check.passed {
                check = check.with_note(format!(
                    "run {run} differs from run 1{}",
                    if config.deterministic {
                        " (declare `deterministic = false` under `[verify]` if the kernel \
                         uses float atomics)"
                    } else {
                        ""
                    }
                ));
            }
            checks.push(check);
        }
    }
    Ok(Some(stats))
}

/// The device's outputs against the spec's `.npy` references.
fn reference_checks(
    case: &Case,
    prepared: &PreparedCase,
    got: &[OutputTensor],
    checks: &mut Vec<Check>,
) {
    for t in prepared.launch.tensors.iter().filter(|t| t.output) {
        let Some(path) = &t.reference else { continue };
        let shown = path
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_else(|| path.display().to_string());
        let Some(g) = got.iter().find(|o| o.name == t.name) else {
            continue;
        };
        let want = std::fs::read(path)
            .map_err(|e| e.to_string())
            .and_then(|bytes| tritonc_spec::npy::read(&bytes));
        let want = match want {
            Ok(a) => OutputTensor {
                name: t.name.clone(),
                dtype: a.dtype,
                shape: a.shape.clone(),
                values: tritonc_interp::Buffer {
                    name: t.name.clone(),
                    dtype: a.dtype,
                    bytes: a.bytes,
                }
                .to_f64_vec(),
            },
            Err(e) => {
                checks.push(Check::outcome(
                    case.stage,
                    &case.label,
                    &t.name,
                    &shown,
                    false,
                    format!("cannot read the reference `{}`: {e}", path.display()),
                ));
                continue;
            }
        };
        let tol = match (t.atol, t.rtol) {
            (None, None) => Tolerance::within(
                ulp(t.dtype) * want.max_abs(),
                2.0 * ulp(t.dtype),
                "one ulp of the output dtype (no atol/rtol in the spec)",
            ),
            (a, r) => Tolerance::within(a.unwrap_or(0.0), r.unwrap_or(0.0), "the spec's atol/rtol"),
        };
        checks.push(Check::compared(
            case.stage,
            &case.label,
            &t.name,
            &shown,
            compare(g, &want, &tol),
            describe_tolerance(&tol),
        ));
    }
}
