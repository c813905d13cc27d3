//! `tritonc tune SPEC…`: every config of each spec's autotuned kernel compiled in
//! parallel (or read from `--bundle DIR`), run on the spec's shapes, checked, timed, and
//! the winner per key value written to the tuning table next to the bundles. The tuning
//! itself is the driver's (`tritonc_driver::tune`); this module reads the command line,
//! compiles, prints and picks the exit status.

use std::path::{Path, PathBuf};

use serde_json::json;
use tritonc_bundle::tuned::{find_table, ConfigOutcome, TuneEntry};
use tritonc_diagnostics::{Diagnostic, SourceMap};
use tritonc_driver::backend::{unavailable_message, BackendOptions, AVAILABLE};
use tritonc_driver::jobs::{backend_for, Job, Workers};
use tritonc_driver::options::Options;
use tritonc_driver::target::{Target, Vendor};
use tritonc_driver::tune::bench::{same_model_gpus, GpuBench, InterpreterBench, TuneBench};
use tritonc_driver::tune::dispatch::{bundle_for, show_key};
use tritonc_driver::tune::tuner::{self, Reference, Session};
use tritonc_driver::tune::cases;
use tritonc_runtime::{Backend, TimingMethod};
use tritonc_verify::{BundleDir, ExecErrorKind};

use crate::cli::{ReferenceArg, TuneArgs};
use crate::codes;
use crate::exit::Exit;
use crate::output::{write_to, Output, Stream};

/// Runs `tune`.
pub fn run(args: &TuneArgs, out: &Output) -> Exit {
    let mut sources = SourceMap::new();
    let fail = |d: Diagnostic, sources: &SourceMap, exit: Exit| {
        out.diagnostics(Stream::Stderr, &[d], sources);
        exit
    };
    let Some(target) = Target::parse(&args.target).filter(|t| t.vendor() == Vendor::Nvidia) else {
        return fail(
            Diagnostic::error(
                codes::UNKNOWN_TARGET,
                format!("`{}` is not an NVIDIA target tritonc tunes for", args.target),
            ),
            &sources,
            Exit::InputError,
        );
    };
    let mut keys = Vec::new();
    for k in &args.keys {
        match cases::parse_key_arg(k) {
            Ok(kv) => keys.push(kv),
            Err(m) => {
                return fail(
                    Diagnostic::error(codes::NOT_AUTOTUNED, format!("`--key`: {m}")),
                    &sources,
                    Exit::InputError,
                )
            }
        }
    }
    let specs = match spec_files(&args.specs) {
        Ok(s) => s,
        Err(d) => return fail(d, &sources, Exit::InputError),
    };
    if !args.interpret && args.bundle.is_none() && !AVAILABLE {
        return fail(
            Diagnostic::error(
                codes::NOT_IMPLEMENTED,
                unavailable_message("compiling the configs (give compiled ones with `--bundle DIR`)"),
            ),
            &sources,
            Exit::NotImplemented,
        );
    }
    let dir = args
        .bundle
        .clone()
        .or_else(|| args.output_dir.clone())
        .unwrap_or_else(|| PathBuf::from("tritonc-out"));
    let bundles = match &args.bundle {
        Some(d) => match BundleDir::read(d) {
            Ok(b) => Some(b.bundles),
            Err(m) => {
                return fail(
                    Diagnostic::error(codes::LAUNCH_REFUSED, format!("cannot read the bundles: {m}")),
                    &sources,
                    Exit::InputError,
                )
            }
        },
        None => None,
    };
    let method = TimingMethod {
        warmup: args.warmup as usize,
        rounds: args.rounds as usize,
        flush_bytes: args.flush_mib << 20,
    };
    let mut options = Options::new(target);
    options.fp_fusion = true;
    let mut reports = Vec::new();
    let mut exit = Exit::Success;
    for spec_path in &specs {
        match tune_spec(spec_path, args, &keys, &options, &dir, bundles.as_deref(), &method, &mut sources, out) {
            Ok(report) => reports.push(report),
            Err((ds, e)) => {
                out.diagnostics(Stream::Stderr, &ds, &sources);
                exit = worst(exit, e);
                if e == Exit::Unavailable {
                    break;
                }
            }
        }
    }
    if args.json {
        let text = serde_json::to_string_pretty(&json!({ "results": reports }))
            .unwrap_or_default();
        write_to(Stream::Stdout, &(text + "\n"));
    }
    exit
}

fn worst(a: Exit, b: Exit) -> Exit {
    if a == Exit::Success {
        b
    } else {
        a
    }
}

/// The spec files: each file named, and the `*.toml` directly in each directory named.
fn spec_files(paths: &[PathBuf]) -> Result<Vec<PathBuf>, Diagnostic> {
    let mut out = Vec::new();
    for p in paths {
        if p.is_dir() {
            let mut found: Vec<PathBuf> = std::fs::read_dir(p)
                .map_err(|e| {
                    Diagnostic::error(codes::UNREADABLE_FILE, format!("cannot read `{}`: {e}", p.display()))
                })?
                .filter_map(|e| e.ok().map(|e| e.path()))
                .filter(|f| f.extension().is_some_and(|x| x == "toml"))
                .collect();
            found.sort();
            out.extend(found);
        } else {
            super::run::check_spec_path(p)?;
            if p.extension().is_some_and(|x| x == "py") {
                return Err(Diagnostic::error(
                    codes::NOT_AUTOTUNED,
                    format!(
                        "`{}` is a kernel file: `tritonc tune` takes launch specs, which give the tuning shapes",
                        p.display()
                    ),
                )
                .with_help(
                    "write a launch spec (docs/launch-specs.md), or record one from a PyTorch program with `python -m tritonc_rt.capture`",
                ));
            }
            out.push(p.clone());
        }
    }
    Ok(out)
}

type Failure = (Vec<Diagnostic>, Exit);

#[allow(clippy::too_many_arguments)]
fn tune_spec(
    spec_path: &Path,
    args: &TuneArgs,
    keys: &[(String, serde_json::Value)],
    options: &Options,
    dir: &Path,
    bundles: Option<&[tritonc_bundle::Bundle]>,
    method: &TimingMethod,
    sources: &mut SourceMap,
    out: &Output,
) -> Result<serde_json::Value, Failure> {
    let input = |d| (d, Exit::InputError);
    let mut loaded = tritonc_verify::load_spec(spec_path, sources).map_err(input)?;
    loaded.scopes = tritonc_driver::project::spec_scopes(None);
    if !keys.is_empty() {
        loaded.spec = cases::with_key_values(&loaded.spec, keys)
            .map_err(|m| (vec![Diagnostic::error(codes::NOT_AUTOTUNED, m)], Exit::InputError))?;
    }
    let mut session =
        tuner::prepare_session(&loaded.spec, spec_path, sources, &*loaded.scopes, options)
            .map_err(input)?;
    out.diagnostics(Stream::Stderr, &session.warnings, sources);
    show_tri301(spec_path, &loaded.spec, sources, out);
    let kernel = session.tuned.kernel.clone();
    let started = std::time::Instant::now();
    // The variants: compiled now, or read from `--bundle DIR`.
    let mut compile_s = 0.0;
    if let Some(bundles) = bundles {
        for c in &mut session.candidates {
            if let Ok(case) = &c.case {
                c.bundle = bundle_for(case, bundles);
                if c.bundle.is_none() && !c.pruned {
                    c.case = Err(format!(
                        "`{}` holds no variant of this config; compile them with `tritonc tune {} --compile-only -o {}`",
                        dir.display(),
                        spec_path.display(),
                        dir.display()
                    ));
                }
            }
        }
    } else if !args.interpret {
        let t = std::time::Instant::now();
        compile_candidates(&mut session, options, args, sources, dir)?;
        compile_s = t.elapsed().as_secs_f64();
    }
    if args.compile_only {
        let compiled = session.candidates.iter().filter(|c| c.bundle.is_some()).count();
        out.summary(
            Stream::Stderr,
            &format!(
                "{kernel}: {compiled} of {} configs compiled into {} in {compile_s:.2} s",
                session.candidates.len(),
                dir.display()
            ),
        );
        return Ok(json!({
            "spec": spec_path.display().to_string(),
            "kernel": kernel,
            "compiled": compiled,
            "compile_s": compile_s,
        }));
    }
    // The benches: one per GPU of GPU 0's model, or interpreter workers.
    let (benches, device): (Vec<Box<dyn TuneBench + Send>>, String) = if args.interpret {
        let target = Target::parse(&args.target);
        let n = args.devices.unwrap_or(1) as usize;
        (
            (0..n)
                .map(|_| Box::new(InterpreterBench::new(target)) as Box<dyn TuneBench + Send>)
                .collect(),
            "interpreter".to_string(),
        )
    } else {
        let (ordinals, model) = same_model_gpus(Backend::Cuda, args.devices.map(|n| n as usize))
            .map_err(|e| {
                let exit = if e.kind == ExecErrorKind::Unavailable {
                    Exit::Unavailable
                } else {
                    Exit::InternalError
                };
                (
                    vec![Diagnostic::error(codes::NO_GPU, format!("cannot tune on the GPU: {}", e.message))
                        .with_help("compile the configs here with `--compile-only -o DIR` and tune on a GPU host with `--bundle DIR`; `--interpret` tests the tuning on the CPU")],
                    exit,
                )
            })?;
        (
            ordinals
                .into_iter()
                .map(|i| Box::new(GpuBench::new(Backend::Cuda, i)) as Box<dyn TuneBench + Send>)
                .collect(),
            model,
        )
    };
    let workers = benches.len();
    let mut table = tuner::table_for(&session, &device, &args.target, method);
    let earlier = find_table(dir, &kernel, &device, &session.digests());
    let reused = earlier
        .as_ref()
        .and_then(|t| t.entry(&session.key))
        .filter(|_| !args.force)
        .cloned();
    let (entry, tune_s, phases, reused) = match reused {
        Some(e) => (e, 0.0, tuner::Phases::default(), true),
        None => {
            let reference = match args.reference {
                ReferenceArg::First => Reference::FirstConfig,
                ReferenceArg::Interpreter => Reference::Interpreter,
            };
            let mut interp = InterpreterBench::new(Target::parse(&args.target));
            let tuned = tuner::tune(&session, benches, method, reference, &mut interp).map_err(|m| {
                (vec![Diagnostic::error(codes::LAUNCH_REFUSED, m)], Exit::Findings)
            })?;
            (tuned.entry, tuned.seconds, tuned.phases, false)
        }
    };
    let path = if reused {
        dir.join(table.file_name())
    } else {
        table.record(entry.clone());
        table.write_merged(dir).map_err(|e| {
            (
                vec![Diagnostic::error(
                    codes::CANNOT_WRITE_OUTPUT,
                    format!("cannot write the tuning table into `{}`: {e}", dir.display()),
                )],
                Exit::InputError,
            )
        })?
    };
    warn_wrong(&session, &entry, sources, out);
    if !args.json {
        write_to(Stream::Stdout, &report_text(&session, &entry, &device, workers, reused, &path));
    }
    let total_s = started.elapsed().as_secs_f64();
    Ok(json!({
        "spec": spec_path.display().to_string(),
        "kernel": kernel,
        "device": device,
        "workers": workers,
        "key": entry.key,
        "winner": entry.winner,
        "winner_label": session.candidates[entry.winner].config.label(),
        "winner_values": table.configs[entry.winner].values,
        "winner_num_warps": table.configs[entry.winner].num_warps,
        "winner_num_stages": table.configs[entry.winner].num_stages,
        "reused": reused,
        "reference": entry.reference,
        "outcomes": entry.outcomes,
        "labels": session.candidates.iter().map(|c| c.config.label()).collect::<Vec<_>>(),
        "compile_s": compile_s,
        "tune_s": tune_s,
        "tune_phases_s": phases,
        "total_s": total_s,
        "table": path.display().to_string(),
        "method": method.to_string(),
    }))
}

/// Compiles every config not pruned, in parallel through the cache, and writes the
/// bundles into `dir`.
fn compile_candidates(
    session: &mut Session,
    options: &Options,
    args: &TuneArgs,
    sources: &SourceMap,
    dir: &Path,
) -> Result<(), Failure> {
    let backend = backend_for(
        args.no_cache,
        BackendOptions {
            target: options.target,
            fp_fusion: options.fp_fusion,
            cubin: true,
        },
    );
    let picked: Vec<usize> = (0..session.candidates.len())
        .filter(|&i| !session.candidates[i].pruned && session.candidates[i].case.is_ok())
        .collect();
    let jobs: Vec<Job<'_>> = picked
        .iter()
        .map(|&i| {
            let case = session.candidates[i].case.as_ref().expect("filtered");
            let mut spec = case.launch.specialization.clone();
            spec.options.target = options.target;
            Job {
                sources,
                func: case.function.clone(),
                spec,
                constexprs: case.constexpr_params.clone(),
            }
        })
        .collect();
    let results = Workers::new(args.jobs).compile(&backend, &jobs);
    for (i, r) in picked.into_iter().zip(results) {
        match r {
            Ok(c) => {
                tritonc_driver::compile::write_bundle(&c.bundle, dir)
                    .map_err(|d| (vec![d], Exit::InputError))?;
                session.candidates[i].bundle = Some(c.bundle);
            }
            Err(e) => {
                let d = tritonc_driver::compile::backend_error_diagnostic(&e);
                session.candidates[i].case = Err(format!("does not compile: {}", d.message));
            }
        }
    }
    Ok(())
}

/// Prints the kernel file's TRI301 findings (an autotuned reduction block): the lint
/// rule and the tuning's correctness check speak about the same hazard.
fn show_tri301(spec_path: &Path, spec: &tritonc_spec::LaunchSpec, sources: &mut SourceMap, out: &Output) {
    let path = spec_path
        .parent()
        .unwrap_or(Path::new("."))
        .join(&spec.kernel_file);
    let Ok(text) = std::fs::read_to_string(&path) else {
        return;
    };
    let abs = std::fs::canonicalize(&path).unwrap_or(path.clone());
    let file = sources.add(path, text.as_str());
    let settings = tritonc_lint::Settings {
        select: vec!["TRI301".into()],
        ..tritonc_lint::Settings::default()
    };
    let check = tritonc_driver::check::check_file(file, sources, &abs, &settings, None);
    let found: Vec<Diagnostic> = check
        .findings
        .into_iter()
        .map(|f| f.diagnostic)
        .filter(|d| d.code.0 == "TRI301")
        .collect();
    out.diagnostics(Stream::Stderr, &found, sources);
}

/// A warning per config whose answer differed.
fn warn_wrong(session: &Session, entry: &TuneEntry, sources: &SourceMap, out: &Output) {
    let mut ds = Vec::new();
    for (c, o) in session.candidates.iter().zip(&entry.outcomes) {
        if let ConfigOutcome::Wrong { detail } = o {
            ds.push(
                Diagnostic::warning(
                    codes::NOT_AUTOTUNED,
                    format!(
                        "config [{}] `{}` computes a different answer: not chosen",
                        c.config.index,
                        c.config.label()
                    ),
                )
                .with_primary(c.config.span, "this config")
                .with_note(detail.clone())
                .with_help(format!("checked against {}", entry.reference)),
            );
        }
    }
    out.diagnostics(Stream::Stderr, &ds, sources);
}

fn report_text(
    session: &Session,
    entry: &TuneEntry,
    device: &str,
    workers: usize,
    reused: bool,
    path: &Path,
) -> String {
    let mut s = format!(
        "{} for {} on {device}{}\n",
        session.tuned.kernel,
        show_key(&entry.key),
        if reused {
            " (from the tuning table: not tuned again)".to_string()
        } else if workers > 1 {
            format!(" ({workers} workers)")
        } else {
            String::new()
        }
    );
    for (i, (c, o)) in session.candidates.iter().zip(&entry.outcomes).enumerate() {
        let mark = if i == entry.winner { "*" } else { " " };
        let what = match o {
            ConfigOutcome::Timed { median_ms, .. } => format!("{median_ms:.4} ms"),
            ConfigOutcome::Pruned => "pruned".into(),
            ConfigOutcome::Wrong { .. } => "WRONG ANSWER (not chosen)".into(),
            ConfigOutcome::Failed { detail } => format!("failed: {detail}"),
        };
        s.push_str(&format!(" {mark} [{i}] {}: {what}\n", c.config.label()));
    }
    s.push_str(&format!(
        "winner: [{}] {}\ntable: {}\n",
        entry.winner,
        session.candidates[entry.winner].config.label(),
        path.display()
    ));
    s
}
