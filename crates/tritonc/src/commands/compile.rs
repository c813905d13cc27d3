//! `tritonc compile`: select a kernel, validate the options, emit the requested stages.

use std::path::Path;

use tritonc_diagnostics::{Diagnostic, Severity, SourceMap, Span};
use tritonc_sema::{LaunchOptions, Specialization};

use crate::cli::CompileArgs;
use crate::codes;
use crate::exit::Exit;
use crate::frontend::{analyze_file, KernelSummary};
use crate::input::{not_a_file, read_source};
use crate::output::{write_to, Output, Stream};
use crate::target::{Stage, Target, Vendor, TARGETS};

/// What to compile, with every option validated.
#[derive(Debug, Clone)]
pub struct CompileRequest {
    /// The launch signature as written on the command line, if given.
    pub signature: Option<String>,
    /// Warps per program (a power of two, 1 to 32).
    pub num_warps: u32,
    /// Pipelining stages.
    pub num_stages: u32,
    /// The target.
    pub target: Target,
    /// The stages to emit, in pipeline order, without duplicates.
    pub stages: Vec<Stage>,
}

/// Why a stage produced no output.
#[derive(Debug)]
pub enum StageError {
    /// Errors in the kernel or its signature (exit 2).
    Diagnostics(Vec<Diagnostic>),
    /// The stage is not available in this build (exit 4); the message says what is missing.
    NotImplemented(String),
}

/// Lowers `kernel` to the tile IR and returns its textual form. This is where
/// `--emit ttir` meets tritonc-sema. `specialization` is the bound `--signature` (`None`
/// when none was given).
pub fn emit_ttir(
    kernel: &KernelSummary,
    specialization: Option<&Specialization>,
    request: &CompileRequest,
    sources: &SourceMap,
) -> Result<String, StageError> {
    let _ = (kernel, specialization, request, sources);
    Err(StageError::NotImplemented(
        "`--emit ttir` is not implemented yet: lowering to the tile IR is not available in this \
         build"
            .to_string(),
    ))
}

/// Runs `compile`.
pub fn run(args: &CompileArgs, out: &Output) -> Exit {
    let mut sources = SourceMap::new();
    let request = match validate_options(args) {
        Ok(request) => request,
        Err(diagnostics) => {
            out.diagnostics(Stream::Stderr, &diagnostics, &sources);
            return Exit::InputError;
        }
    };
    let kernel = match load_kernel(args, &mut sources) {
        Ok(kernel) => kernel,
        Err(diagnostics) => {
            out.diagnostics(Stream::Stderr, &diagnostics, &sources);
            return Exit::InputError;
        }
    };

    let specialization = match specialize(&kernel, &request, &mut sources) {
        Ok(specialization) => specialization,
        Err(diagnostics) => {
            out.diagnostics(Stream::Stderr, &diagnostics, &sources);
            return Exit::InputError;
        }
    };

    for &stage in &request.stages {
        let result = match stage {
            Stage::Ttir => emit_ttir(&kernel, specialization.as_ref(), &request, &sources),
            _ => Err(StageError::NotImplemented(format!(
                "`--emit {}` needs the {} back end, which is not available in this build yet",
                stage.name(),
                match request.target.vendor {
                    Vendor::Nvidia => "NVIDIA",
                    Vendor::Amd => "AMD",
                }
            ))),
        };
        match result {
            Ok(text) => {
                if let Err(diagnostic) =
                    write_stage(args.output_dir.as_deref(), &kernel, stage, &text)
                {
                    out.diagnostics(Stream::Stderr, &[diagnostic], &sources);
                    return Exit::InputError;
                }
            }
            Err(StageError::Diagnostics(diagnostics)) => {
                out.diagnostics(Stream::Stderr, &diagnostics, &sources);
                return Exit::InputError;
            }
            Err(StageError::NotImplemented(message)) => {
                let diagnostic = Diagnostic::error(codes::NOT_IMPLEMENTED, message);
                out.diagnostics(Stream::Stderr, &[diagnostic], &sources);
                return Exit::NotImplemented;
            }
        }
    }
    Exit::Success
}

/// Parses `--signature` (registered in `sources` as the file `<--signature>`, so its
/// errors point into it) and binds it to the kernel's parameters.
fn specialize(
    kernel: &KernelSummary,
    request: &CompileRequest,
    sources: &mut SourceMap,
) -> Result<Option<Specialization>, Vec<Diagnostic>> {
    let Some(text) = request.signature.as_deref() else {
        return Ok(None);
    };
    let file = sources.add("<--signature>", text.to_string());
    let items = tritonc_sema::spec::parse_signature(text, file)?;
    // Parameters that autotune configs or heuristics fill take no signature item.
    let found = &kernel.kernel;
    let mut meta: Vec<&str> = found.heuristics.iter().map(|h| h.name.as_str()).collect();
    if let Some(autotune) = &found.autotune {
        for config in &autotune.configs {
            meta.extend(config.kwargs.iter().map(|(name, _)| name.as_str()));
        }
    }
    meta.sort_unstable();
    meta.dedup();
    let target = match request.target.vendor {
        Vendor::Nvidia => tritonc_sema::Target::cuda(request.target.capability),
        Vendor::Amd => tritonc_sema::Target {
            backend: "hip".into(),
            arch: request.target.name.to_string(),
            warp_size: 64,
        },
    };
    let options = LaunchOptions {
        num_warps: request.num_warps,
        num_stages: request.num_stages,
        target,
    };
    let span = Span::new(file, 0, text.len() as u32);
    tritonc_sema::spec::bind_signature(&found.def, &items, &meta, options, span).map(Some)
}

/// Checks `--num-warps`, `--target` and `--emit`; reports every bad option at once.
fn validate_options(args: &CompileArgs) -> Result<CompileRequest, Vec<Diagnostic>> {
    let mut errors = Vec::new();
    let n = args.num_warps;
    if !(n.is_power_of_two() && n <= 32) {
        errors.push(
            Diagnostic::error(
                codes::INVALID_NUM_WARPS,
                format!("`--num-warps {n}` is not a power of two between 1 and 32"),
            )
            .with_help(format!("use {}", nearest_warps(n))),
        );
    }
    let target = Target::parse(&args.target);
    if target.is_none() {
        let names: Vec<&str> = TARGETS.iter().map(|t| t.name).collect();
        errors.push(
            Diagnostic::error(
                codes::UNKNOWN_TARGET,
                format!("unknown target `{}`", args.target),
            )
            .with_help(format!("known targets: {}", names.join(", "))),
        );
    }
    let mut stages = Vec::new();
    for name in &args.emit {
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
    match target {
        Some(target) if errors.is_empty() => Ok(CompileRequest {
            signature: args.signature.clone(),
            num_warps: n,
            num_stages: args.num_stages,
            target,
            stages,
        }),
        _ => Err(errors),
    }
}

/// The power of two in 1..=32 closest to `n` (ties go up).
fn nearest_warps(n: u32) -> String {
    let best = [1u32, 2, 4, 8, 16, 32]
        .into_iter()
        .min_by_key(|&p| (p.abs_diff(n), u32::MAX - p))
        .unwrap_or(4);
    format!("`--num-warps {best}`")
}

/// Reads the file, checks it and picks the kernel.
fn load_kernel(
    args: &CompileArgs,
    sources: &mut SourceMap,
) -> Result<KernelSummary, Vec<Diagnostic>> {
    let path = args.file.as_path();
    if path.is_dir() {
        return Err(vec![not_a_file(path)]);
    }
    let file = read_source(path, sources).map_err(|d| vec![d])?;
    if sources.get(file).text().trim().is_empty() {
        return Err(vec![Diagnostic::error(
            codes::EMPTY_FILE,
            format!("`{}` is empty", path.display()),
        )
        .with_help(
            "point `tritonc compile` at the file that defines the kernel",
        )]);
    }
    let analysis = analyze_file(file, sources);
    if analysis
        .diagnostics
        .iter()
        .any(|d| d.severity == Severity::Error)
    {
        return Err(analysis.diagnostics);
    }
    select_kernel(path, args.kernel.as_deref(), analysis.kernels)
}

/// `--kernel NAME`, or the file's only kernel.
fn select_kernel(
    path: &Path,
    wanted: Option<&str>,
    mut kernels: Vec<KernelSummary>,
) -> Result<KernelSummary, Vec<Diagnostic>> {
    let shown = path.display();
    if kernels.is_empty() {
        return Err(vec![Diagnostic::error(
            codes::NO_KERNELS,
            format!("`{shown}` defines no `@triton.jit` kernel"),
        )
        .with_help("decorate the kernel with `@triton.jit`")]);
    }
    let names = kernels
        .iter()
        .map(|k| format!("`{}`", k.name))
        .collect::<Vec<_>>()
        .join(", ");
    let with_labels = |mut d: Diagnostic, kernels: &[KernelSummary]| {
        for k in kernels {
            d = d.with_secondary(k.name_span, "a kernel");
        }
        d
    };
    match wanted {
        Some(name) => match kernels.iter().position(|k| k.name == name) {
            Some(i) => Ok(kernels.swap_remove(i)),
            None => Err(vec![with_labels(
                Diagnostic::error(
                    codes::UNKNOWN_KERNEL,
                    format!("`{shown}` has no kernel named `{name}`"),
                ),
                &kernels,
            )
            .with_help(format!("the file defines: {names}"))]),
        },
        None if kernels.len() == 1 => Ok(kernels.remove(0)),
        None => Err(vec![with_labels(
            Diagnostic::error(
                codes::AMBIGUOUS_KERNEL,
                format!(
                    "`{shown}` defines {} kernels; which one to compile?",
                    kernels.len()
                ),
            ),
            &kernels,
        )
        .with_help(format!("pass `--kernel NAME`; the file defines: {names}"))]),
    }
}

/// Prints a text stage to stdout, or writes it to `DIR/KERNEL.EXT`.
fn write_stage(
    dir: Option<&Path>,
    kernel: &KernelSummary,
    stage: Stage,
    text: &str,
) -> Result<(), Diagnostic> {
    let Some(dir) = dir else {
        write_to(Stream::Stdout, text);
        return Ok(());
    };
    let path = dir.join(format!("{}.{}", kernel.name, stage.extension()));
    std::fs::create_dir_all(dir)
        .and_then(|()| std::fs::write(&path, text))
        .map_err(|err| {
            Diagnostic::error(
                codes::CANNOT_WRITE_OUTPUT,
                format!("cannot write `{}`: {err}", path.display()),
            )
        })
}
