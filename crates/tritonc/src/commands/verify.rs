//! `tritonc verify SPEC`: the five stages (tritonc-verify) on the GPU, with a progress
//! bar, a table per stage or `--json`, and exit 1 on any failure.

use std::io::IsTerminal;

use indicatif::{ProgressBar, ProgressStyle};
use tritonc_diagnostics::{Diagnostic, SourceMap};
use tritonc_verify::{
    parse_stages, verify, Executor, GpuExecutor, InterpreterExecutor, VerifyError,
};

use crate::cli::VerifyArgs;
use crate::codes;
use crate::commands::run::{check_spec_path, exec_failure, pick_gpu_backend};
use crate::exit::Exit;
use crate::kernel_source;
use crate::output::{write_to, Output, Stream};

/// Runs `verify`.
pub fn run(args: &VerifyArgs, out: &Output) -> Exit {
    let mut sources = SourceMap::new();
    if let Err(d) = check_spec_path(&args.spec) {
        out.diagnostics(Stream::Stderr, &[d], &sources);
        return Exit::InputError;
    }
    let stages = match parse_stages(&args.stages) {
        Ok(s) => s,
        Err(m) => {
            out.diagnostics(
                Stream::Stderr,
                &[Diagnostic::error(
                    codes::UNKNOWN_EMIT_STAGE,
                    format!("`--stages`: {m}"),
                )],
                &sources,
            );
            return Exit::InputError;
        }
    };
    let mut input = match tritonc_verify::load_spec(&args.spec, &mut sources) {
        Ok(i) => i,
        Err(d) => {
            out.diagnostics(Stream::Stderr, &d, &sources);
            return Exit::InputError;
        }
    };
    input.spec.debug |= args.debug || super::compile::triton_debug_env();
    // The kernel's helpers from other project files resolve as in `compile` and `lint`.
    input.scopes = tritonc_driver::project::spec_scopes(args.triton_version);
    let mut interp;
    let mut gpu;
    let device: &mut dyn Executor = if args.interpret {
        let target = kernel_source::interpret_target(args.bundle.as_deref(), &args.target);
        interp = InterpreterExecutor::for_target(false, false, target);
        &mut interp
    } else {
        let mut source = match kernel_source::kernel_source(args.bundle.as_deref(), &args.target) {
            Ok(s) => s,
            Err((m, exit)) => {
                out.diagnostics(
                    Stream::Stderr,
                    &[Diagnostic::error(codes::NOT_IMPLEMENTED, m)],
                    &sources,
                );
                return exit;
            }
        };
        let backend = match pick_gpu_backend(&mut source) {
            Ok(backend) => backend,
            Err((d, exit)) => {
                out.diagnostics(Stream::Stderr, &[d], &sources);
                return exit;
            }
        };
        gpu = GpuExecutor::on(backend, 0, source);
        if let Err(e) = gpu.open() {
            let (d, exit) = exec_failure(&e);
            out.diagnostics(Stream::Stderr, &[d], &sources);
            return exit;
        }
        &mut gpu
    };
    let bar = if out.quiet || args.json || !std::io::stderr().is_terminal() {
        ProgressBar::hidden()
    } else {
        let bar = ProgressBar::new(0);
        bar.set_style(
            ProgressStyle::with_template("{bar:30} {pos}/{len} {msg}")
                .unwrap_or_else(|_| ProgressStyle::default_bar()),
        );
        bar
    };
    let result = verify(
        &args.spec,
        &input,
        &stages,
        device,
        &mut sources,
        &mut |p| {
            bar.set_length(p.total as u64);
            bar.set_position(p.done as u64);
            if let Some(m) = p.current {
                bar.set_message(m);
            }
        },
    );
    bar.finish_and_clear();
    let mut report = match result {
        Ok(r) => r,
        Err(VerifyError::Spec(d)) => {
            out.diagnostics(Stream::Stderr, &d, &sources);
            return Exit::InputError;
        }
        Err(VerifyError::Unavailable(m)) => {
            let d = Diagnostic::error(codes::NO_GPU, format!("cannot run on the GPU: {m}"))
                .with_help("`tritonc verify --interpret` checks what needs no GPU");
            out.diagnostics(Stream::Stderr, &[d], &sources);
            return Exit::Unavailable;
        }
    };
    if args.against.as_deref() == Some("triton") {
        match tritonc_verify::triton::compare_with_triton(
            &args.spec,
            &input,
            device,
            &args.python,
            &mut sources,
        ) {
            Ok(checks) => report.checks.extend(checks),
            Err(m) => report.checks.push(tritonc_verify::Check::outcome(
                tritonc_verify::Stage::Correctness,
                "spec",
                "-",
                "triton",
                false,
                m,
            )),
        }
        report.finish();
    }
    if args.json {
        let text = serde_json::to_string_pretty(&report).unwrap_or_else(|e| {
            format!("{{\"error\": \"the report could not be serialized: {e}\"}}")
        });
        write_to(Stream::Stdout, &format!("{text}\n"));
    } else {
        write_to(Stream::Stdout, &report.render());
    }
    if report.passed {
        Exit::Success
    } else {
        Exit::Findings
    }
}
