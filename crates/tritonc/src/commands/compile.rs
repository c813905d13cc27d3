//! `tritonc compile`: validate the options, let the driver select and specialize the
//! kernels, emit the requested stages.

use std::path::{Path, PathBuf};

use tritonc_diagnostics::{Diagnostic, SourceMap};
use tritonc_driver::compile::KernelToCompile;
use tritonc_driver::frontend::KernelSummary;
use tritonc_driver::options::{
    check_block_threads, check_num_warps, valid_num_warps, Options, Request, DEFAULT_NUM_WARPS,
};
use tritonc_driver::stages::{stage_text, StageOutput};

use crate::cli::CompileArgs;
use crate::codes;
use crate::exit::Exit;
use crate::output::{write_to, Output, Stream};
use crate::target::{Stage, Target, Vendor, TARGETS};

pub use tritonc_driver::options::triton_debug_env;

/// Runs `compile`.
pub fn run(args: &CompileArgs, out: &Output) -> Exit {
    if args.show_settings {
        return match validate_options(args) {
            Ok(request) => {
                write_to(Stream::Stdout, &show_settings(args, &request));
                Exit::Success
            }
            Err(diagnostics) => {
                out.diagnostics(Stream::Stderr, &diagnostics, &SourceMap::new());
                Exit::InputError
            }
        };
    }
    if !args.spec.is_empty() {
        return super::compile_backend::compile_spec(args, &args.spec, out);
    }
    let mut sources = SourceMap::new();
    let request = match validate_options(args) {
        Ok(request) => request,
        Err(diagnostics) => {
            out.diagnostics(Stream::Stderr, &diagnostics, &sources);
            return Exit::InputError;
        }
    };
    if args.files.is_empty() {
        let d = Diagnostic::error(
            codes::NOT_A_FILE,
            "no kernel file given: pass FILE or `--spec SPEC`",
        );
        out.diagnostics(Stream::Stderr, &[d], &sources);
        return Exit::InputError;
    }
    let kernels = match tritonc_driver::compile::load(
        &args.files,
        args.kernel.as_deref(),
        &request,
        &mut sources,
    ) {
        Ok(kernels) => kernels,
        Err(diagnostics) => {
            out.diagnostics(Stream::Stderr, &diagnostics, &sources);
            return Exit::InputError;
        }
    };
    if let Err(d) = check_distinct_outputs(args, &request, &kernels) {
        out.diagnostics(Stream::Stderr, &[d], &sources);
        return Exit::InputError;
    }

    for &stage in &request.stages {
        for (kernel, bound) in &kernels {
            let exit = emit_text_stage(args, stage, (kernel, bound), &request, &sources, out);
            if exit != Exit::Success {
                return exit;
            }
        }
    }
    let wants_code = request.stages.is_empty()
        || request
            .stages
            .iter()
            .any(|s| matches!(s, Stage::Ptx | Stage::Cubin | Stage::C));
    if wants_code {
        return super::compile_backend::emit_code(args, &kernels, &request, &sources, out);
    }
    Exit::Success
}

/// With `--emit` and `-o DIR`, every kernel's files are `DIR/KERNEL.EXT`: two files
/// defining kernels of one name would overwrite each other's, so that is refused.
fn check_distinct_outputs(
    args: &CompileArgs,
    request: &Request,
    kernels: &[KernelToCompile],
) -> Result<(), Diagnostic> {
    // Bundles (no `--emit`, or `cubin`) are named by kernel and key hash: only two
    // different kernels of one name and specialization collide, which the back end checks
    // once they are compiled.
    let text_files = request
        .stages
        .iter()
        .any(|&s| !matches!(s, Stage::Cubin | Stage::C));
    let (Some(dir), true) = (&args.output_dir, text_files) else {
        return Ok(());
    };
    for (i, (a, _)) in kernels.iter().enumerate() {
        if let Some((b, _)) = kernels[..i]
            .iter()
            .find(|(b, _)| b.summary.name == a.summary.name)
        {
            return Err(Diagnostic::error(
                codes::CANNOT_WRITE_OUTPUT,
                format!(
                    "two kernels named `{}` would write the same files in `{}`",
                    a.summary.name,
                    dir.display()
                ),
            )
            .with_primary(b.summary.name_span, "one")
            .with_secondary(a.summary.name_span, "the other")
            .with_help("compile them into separate directories"));
        }
    }
    Ok(())
}

/// Emits one text stage (ttir, ttgir, mlir, llir) of one kernel; the code stages (ptx,
/// cubin) are left to the back end, which compiles every kernel at once.
fn emit_text_stage(
    args: &CompileArgs,
    stage: Stage,
    (kernel, bound): (
        &tritonc_driver::select::LoadedKernel,
        &Option<tritonc_sema::meta::BoundKernel>,
    ),
    request: &Request,
    sources: &SourceMap,
    out: &Output,
) -> Exit {
    if matches!(stage, Stage::Ptx | Stage::Cubin | Stage::C) {
        // Handled by the back end, once for both: one compilation gives the PTX and the
        // cubin.
        return Exit::Success;
    }
    let mut warnings = Vec::new();
    let result = stage_text(
        kernel,
        bound.as_ref(),
        &request.options,
        stage,
        sources,
        &mut warnings,
    );
    // Every stage lowers the same variants: the first prints their warnings.
    if !warnings.is_empty() && request.stages.first() == Some(&stage) {
        out.diagnostics(Stream::Stderr, &warnings, sources);
    }
    match result {
        Ok(outputs) => {
            if let Err(diagnostic) =
                write_stage(args.output_dir.as_deref(), &kernel.summary, stage, &outputs)
            {
                out.diagnostics(Stream::Stderr, &[diagnostic], sources);
                return Exit::InputError;
            }
            Exit::Success
        }
        Err(e) => super::compile_backend::stage_error(e, sources, out),
    }
}

/// The file whose configuration and environment decide the settings: the first FILE or
/// SPEC, else the current directory.
fn settings_start(args: &CompileArgs) -> &Path {
    args.files
        .first()
        .or(args.spec.first())
        .map_or(Path::new("."), PathBuf::as_path)
}

/// `--show-settings`: what the compile would use, one `key: value` line each, with where
/// the Triton version comes from.
fn show_settings(args: &CompileArgs, request: &Request) -> String {
    let start = settings_start(args);
    let o = &request.options;
    let config = match tritonc_driver::config::discover(start) {
        Ok((_, Some(path))) => path.display().to_string(),
        Ok((_, None)) => "none".to_string(),
        Err(e) => format!("unreadable ({})", e.path.display()),
    };
    let (_, source) = tritonc_driver::config::triton_version(args.triton_version, start);
    let mut text = format!(
        "configuration: {config}\ntarget: {}\nnum-warps: {}{}\nnum-stages: {}\n\
         fp-fusion: {}\ndebug: {}\ntriton-version: {} (from {source})\n",
        o.target.name(),
        o.num_warps,
        if request.num_warps_given {
            ""
        } else {
            " (a kernel's configured `num_warps` wins)"
        },
        o.num_stages,
        o.fp_fusion,
        o.debug,
        o.triton_version,
    );
    if let Some(sig) = &request.signature {
        text.push_str(&format!("signature: {sig}\n"));
    }
    text
}

/// Checks `--num-warps`, `--target` and `--emit`; reports every bad option at once.
pub(crate) fn validate_options(args: &CompileArgs) -> Result<Request, Vec<Diagnostic>> {
    let mut errors = Vec::new();
    let n = args.num_warps.unwrap_or(DEFAULT_NUM_WARPS);
    if let Err(d) = check_num_warps(n, &format!("`--num-warps {n}`")) {
        errors.push(d);
    }
    let target = Target::parse(&args.target);
    if let (Some(t), Some(n)) = (target, args.num_warps) {
        if valid_num_warps(n) {
            if let Err(d) = check_block_threads(n, t, &format!("`--num-warps {n}`")) {
                errors.push(d);
            }
        }
    }
    if target.is_none() {
        let names: Vec<String> = TARGETS.iter().map(|t| t.name()).collect();
        errors.push(
            Diagnostic::error(
                codes::UNKNOWN_TARGET,
                format!("unknown target `{}`", args.target),
            )
            .with_help(format!("known targets: {}", names.join(", "))),
        );
    }
    let mut stages = Vec::new();
    for name in args.emit.as_deref().unwrap_or_default() {
        match Stage::parse(name) {
            Some(stage) => stages.push(stage),
            None => {
                let names: Vec<&str> = Stage::ALL.iter().map(|s| s.name()).collect();
                errors.push(
                    Diagnostic::error(
                        codes::UNKNOWN_EMIT_STAGE,
                        format!("unknown stage `{}` in `--emit`", name.trim()),
                    )
                    .with_help(format!("stages: {}", names.join(", "))),
                );
            }
        }
    }
    stages.sort();
    stages.dedup();
    if let Some(target) = target {
        for &stage in &stages {
            let other_vendor = match target.vendor() {
                Vendor::Amd => matches!(stage, Stage::Ptx | Stage::Cubin | Stage::C),
                Vendor::Nvidia => stage == Stage::Amdgcn,
            };
            if other_vendor {
                errors.push(
                    Diagnostic::error(
                        codes::UNKNOWN_EMIT_STAGE,
                        format!(
                            "`--emit {}` is not a stage of `--target {}`",
                            stage.name(),
                            target.name()
                        ),
                    )
                    .with_help(
                        "NVIDIA targets emit ptx, cubin and c; AMD targets emit amdgcn (the \
                         bundle holds the code object); every target emits ttir, ttgir, \
                         mlir and llir",
                    ),
                );
            }
        }
    }
    match target {
        Some(target) if errors.is_empty() => Ok(Request {
            options: Options {
                target,
                num_warps: n,
                num_stages: args.num_stages,
                fp_fusion: !args.no_fp_fusion,
                debug: args.debug || triton_debug_env(),
                triton_version: tritonc_driver::config::triton_version(
                    args.triton_version,
                    settings_start(args),
                )
                .0,
            },
            signature: args.signature.clone(),
            num_warps_given: args.num_warps.is_some(),
            stages,
        }),
        _ => Err(errors),
    }
}

/// Prints a text stage to stdout, or writes it to `DIR/KERNEL.EXT` (`DIR/KERNEL.I.EXT`
/// for autotune variant `I`). Each variant is preceded by a comment naming it, in the
/// stage's own comment syntax (`;` in LLVM IR, `//` elsewhere), so the text still parses.
pub(crate) fn write_stage(
    dir: Option<&Path>,
    kernel: &KernelSummary,
    stage: Stage,
    outputs: &[StageOutput],
) -> Result<(), Diagnostic> {
    let Some(dir) = dir else {
        let mut text = String::new();
        for o in outputs {
            if let Some((i, label)) = &o.variant {
                text.push_str(&format!(
                    "{} {} variant {i} of {}: {label}\n",
                    stage.comment(),
                    kernel.name,
                    outputs.len()
                ));
            }
            text.push_str(&o.text);
        }
        write_to(Stream::Stdout, &text);
        return Ok(());
    };
    std::fs::create_dir_all(dir).map_err(|err| {
        Diagnostic::error(
            codes::CANNOT_WRITE_OUTPUT,
            format!("cannot create `{}`: {err}", dir.display()),
        )
    })?;
    for o in outputs {
        let name = match &o.variant {
            Some((i, _)) => format!("{}.{i}.{}", kernel.name, stage.extension()),
            None => format!("{}.{}", kernel.name, stage.extension()),
        };
        let path = dir.join(name);
        let text = match &o.variant {
            Some((i, label)) => format!(
                "{} {} variant {i}: {label}\n{}",
                stage.comment(),
                kernel.name,
                o.text
            ),
            None => o.text.clone(),
        };
        std::fs::write(&path, text).map_err(|err| {
            Diagnostic::error(
                codes::CANNOT_WRITE_OUTPUT,
                format!("cannot write `{}`: {err}", path.display()),
            )
        })?;
    }
    Ok(())
}
