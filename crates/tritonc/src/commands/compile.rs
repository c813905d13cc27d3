//! `tritonc compile`: select a kernel, validate the options, emit the requested stages.

use std::path::{Path, PathBuf};

use tritonc_diagnostics::{Diagnostic, FileId, Severity, SourceMap, Span};
use tritonc_sema::meta::{self, BoundKernel};
use tritonc_sema::{LaunchOptions, ModuleScope};
use tritonc_syntax::Kernel;

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
    /// Whether `--num-warps` was given (it then wins over the project configuration).
    pub num_warps_given: bool,
    /// Pipelining stages.
    pub num_stages: u32,
    /// The target.
    pub target: Target,
    /// The stages to emit, in pipeline order, without duplicates (empty without
    /// `--emit`: then a bundle per variant is written).
    pub stages: Vec<Stage>,
    /// Contract `a*b + c` into `fma` (off with `--no-fp-fusion`).
    pub fp_fusion: bool,
    /// Triton's debug mode (`--debug`, `TRITON_DEBUG`); a kernel's `@triton.jit(debug=True)`
    /// turns it on for that kernel.
    pub debug: bool,
    /// The Triton language version: `--triton-version`, else the project configuration's
    /// `triton-version` (the configuration closest to the first file), else 3.6.
    pub triton_version: tritonc_sema::TritonVersion,
}

/// Why a stage produced no output.
#[derive(Debug)]
pub enum StageError {
    /// Errors in the kernel or its signature (exit 2).
    Diagnostics(Vec<Diagnostic>),
    /// The stage is not available in this build (exit 4); the message says what is missing.
    NotImplemented(String),
    /// The back end could not produce the stage (`--emit mlir`, `llir`).
    Backend(crate::backend::BackendError),
}

/// A kernel picked from its file, with the module scope sema resolves its names in.
#[derive(Debug)]
pub struct LoadedKernel {
    /// The kernel as discovery found it.
    pub summary: KernelSummary,
    /// The module's `@jit` functions, constexpr globals and imports.
    pub scope: ModuleScope,
}

/// One emitted specialization of a stage.
#[derive(Debug, Clone, PartialEq)]
pub struct StageOutput {
    /// For one of several autotune variants: its index and the config it comes from
    /// (`BLOCK_M=128, num_warps=8, num_stages=3`).
    pub variant: Option<(usize, String)>,
    /// The stage's text.
    pub text: String,
}

/// Lowers `kernel` to the tile IR and returns its textual form. This is where
/// `--emit ttir` meets tritonc-sema.
///
/// `bound` is the `--signature` bound to the kernel; without one the kernel is specialized
/// from its annotations. Meta-parameters the signature leaves open are filled by the
/// kernel's autotune configs (one output per config) and heuristics. Warnings go to
/// `warnings`.
pub fn emit_ttir(
    kernel: &LoadedKernel,
    bound: Option<&BoundKernel>,
    request: &CompileRequest,
    warnings: &mut Vec<Diagnostic>,
) -> Result<Vec<StageOutput>, StageError> {
    let found = &kernel.summary.kernel;
    let from_annotations;
    let bound = match bound {
        Some(b) => b,
        None => {
            from_annotations = meta::specialize_from_annotations(
                found,
                &kernel.scope,
                launch_options(request, found),
            )
            .map_err(StageError::Diagnostics)?;
            &from_annotations
        }
    };
    let variants =
        meta::expand_variants(found, &kernel.scope, bound).map_err(StageError::Diagnostics)?;
    let several = variants.len() > 1;
    let mut outputs = Vec::new();
    for (i, v) in variants.into_iter().enumerate() {
        let lowered = tritonc_sema::lower_kernel_in(&kernel.scope, &kernel.summary.name, &v.spec)
            .map_err(StageError::Diagnostics)?;
        warnings.extend(lowered.warnings);
        let text = tritonc_ir::print_module(&lowered.module, tritonc_ir::PrintOptions::default());
        outputs.push(StageOutput {
            variant: several.then(|| (i, v.label.unwrap_or_default())),
            text,
        });
    }
    Ok(outputs)
}

/// Runs `compile`.
pub fn run(args: &CompileArgs, out: &Output) -> Exit {
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
    let mut kernels = Vec::new();
    for path in &args.files {
        let loaded = match load_kernels(path, args.kernel.as_deref(), &request, &mut sources) {
            Ok(loaded) => loaded,
            Err(diagnostics) => {
                out.diagnostics(Stream::Stderr, &diagnostics, &sources);
                return Exit::InputError;
            }
        };
        for kernel in loaded {
            let bound = match specialize(path, &kernel.summary, &request, &mut sources) {
                Ok(bound) => bound,
                Err(diagnostics) => {
                    out.diagnostics(Stream::Stderr, &diagnostics, &sources);
                    return Exit::InputError;
                }
            };
            kernels.push((kernel, bound));
        }
    }
    if let Err(d) = check_distinct_outputs(args, &request, &kernels) {
        out.diagnostics(Stream::Stderr, &[d], &sources);
        return Exit::InputError;
    }

    for &stage in &request.stages {
        for (kernel, bound) in &kernels {
            let exit =
                emit_text_stage(args, stage, kernel, bound.as_ref(), &request, &sources, out);
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
    request: &CompileRequest,
    kernels: &[(LoadedKernel, Option<BoundKernel>)],
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
    kernel: &LoadedKernel,
    bound: Option<&BoundKernel>,
    request: &CompileRequest,
    sources: &SourceMap,
    out: &Output,
) -> Exit {
    let mut warnings = Vec::new();
    let result = match stage {
        Stage::Ttir => emit_ttir(kernel, bound, request, &mut warnings),
        Stage::Ttgir => super::compile_backend::emit_ttgir(kernel, bound, request, &mut warnings),
        Stage::Mlir | Stage::Llir | Stage::Amdgcn => {
            super::compile_backend::emit_ir(kernel, bound, request, stage, sources, &mut warnings)
        }
        // Handled by the back end, once for both: one compilation gives the PTX and the
        // cubin.
        Stage::Ptx | Stage::Cubin | Stage::C => return Exit::Success,
    };
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

/// The sema launch options of a request for `kernel` (its decorator may turn debug mode on).
pub(crate) fn launch_options(request: &CompileRequest, kernel: &Kernel) -> LaunchOptions {
    let target = request.target;
    LaunchOptions {
        num_warps: request.num_warps,
        num_stages: request.num_stages,
        target,
        debug: request.debug || kernel.jit.debug == Some(true),
        triton_version: request.triton_version,
    }
}

/// Whether `TRITON_DEBUG` turns debug mode on, as Triton reads it (`1`, `true`, `yes`,
/// `y`, `on`, any case).
pub(crate) fn triton_debug_env() -> bool {
    std::env::var("TRITON_DEBUG").is_ok_and(|v| {
        matches!(
            v.to_ascii_lowercase().as_str(),
            "1" | "true" | "yes" | "y" | "on"
        )
    })
}

/// Parses the signature and binds it to the kernel's parameters: `--signature`, else the
/// kernel's `signature` in the project configuration closest to `path` (the
/// `[tool.tritonc.kernels.NAME]` table lint reads), else none (annotations and autotune
/// configs decide). The text is registered in `sources` (as `<--signature>`, or as the
/// configuration's path and key) so its errors point into it. Parameters that autotune
/// configs or heuristics fill take no item unless the signature lists every parameter.
fn specialize(
    path: &Path,
    kernel: &KernelSummary,
    request: &CompileRequest,
    sources: &mut SourceMap,
) -> Result<Option<BoundKernel>, Vec<Diagnostic>> {
    let mut configured_warps = None;
    let (name, text) = match request.signature.as_deref() {
        Some(text) => ("<--signature>".to_string(), text.to_string()),
        None => match configured_signature(path, &kernel.name)? {
            Some(found) => {
                configured_warps = found.num_warps;
                (found.name, found.signature)
            }
            None => return Ok(None),
        },
    };
    let text = text.as_str();
    let file = sources.add(name, text.to_string());
    let items = tritonc_sema::spec::parse_signature(text, file)?;
    let span = Span::new(file, 0, text.len() as u32);
    let mut options = launch_options(request, &kernel.kernel);
    if let (Some(n), false) = (configured_warps, request.num_warps_given) {
        options.num_warps = n;
    }
    meta::bind_kernel_signature(&kernel.kernel, &items, options, span).map(Some)
}

/// A kernel's specialization as the project configuration gives it.
struct ConfiguredKernel {
    /// The name the signature's text is registered under
    /// (`CONFIG [kernels.KERNEL] signature`).
    name: String,
    /// The signature.
    signature: String,
    /// `num_warps`, when the table sets it.
    num_warps: Option<u32>,
}

/// The signature (and `num_warps`) the project configuration closest to `path` gives
/// `kernel`.
fn configured_signature(
    path: &Path,
    kernel: &str,
) -> Result<Option<ConfiguredKernel>, Vec<Diagnostic>> {
    let (settings, config) =
        tritonc_lint::Settings::discover(path).map_err(|e| vec![super::lint::config_error(&e)])?;
    let (Some(config), Some(sig)) = (config, settings.kernel_signatures.get(kernel)) else {
        return Ok(None);
    };
    let num_warps = settings.kernel_num_warps.get(kernel).copied();
    if let Some(n) = num_warps.filter(|&n| !valid_num_warps(n)) {
        return Err(vec![Diagnostic::error(
            codes::INVALID_NUM_WARPS,
            format!(
                "`num_warps = {n}` in `[kernels.{kernel}]` of {} is not a power of two \
                 between 1 and 32",
                config.display()
            ),
        )
        .with_help(format!("use {}", nearest_warps(n)))]);
    }
    Ok(Some(ConfiguredKernel {
        name: format!("{} [kernels.{kernel}] signature", config.display()),
        signature: sig.clone(),
        num_warps,
    }))
}

/// Checks `--num-warps`, `--target` and `--emit`; reports every bad option at once.
pub(crate) fn validate_options(args: &CompileArgs) -> Result<CompileRequest, Vec<Diagnostic>> {
    let mut errors = Vec::new();
    let n = args.num_warps.unwrap_or(DEFAULT_NUM_WARPS);
    if !valid_num_warps(n) {
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
        Some(target) if errors.is_empty() => Ok(CompileRequest {
            signature: args.signature.clone(),
            num_warps: n,
            num_warps_given: args.num_warps.is_some(),
            num_stages: args.num_stages,
            target,
            stages,
            fp_fusion: !args.no_fp_fusion,
            debug: args.debug || triton_debug_env(),
            triton_version: args.triton_version.unwrap_or_else(|| {
                let start = args
                    .files
                    .first()
                    .or(args.spec.first())
                    .map_or(Path::new("."), PathBuf::as_path);
                tritonc_lint::Settings::discover(start)
                    .ok()
                    .and_then(|(s, _)| s.triton_version)
                    .unwrap_or_default()
            }),
        }),
        _ => Err(errors),
    }
}

/// Warps per program when neither `--num-warps` nor the configuration says (Triton's).
const DEFAULT_NUM_WARPS: u32 = 4;

/// Whether `n` warps per program is allowed: a power of two, 1 to 32.
fn valid_num_warps(n: u32) -> bool {
    n.is_power_of_two() && n <= 32
}

/// The power of two in 1..=32 closest to `n` (ties go up).
fn nearest_warps(n: u32) -> String {
    let best = [1u32, 2, 4, 8, 16, 32]
        .into_iter()
        .min_by_key(|&p| (p.abs_diff(n), u32::MAX - p))
        .unwrap_or(4);
    format!("`--num-warps {best}`")
}

/// Reads the file, checks it and picks the kernel (`wanted`, or the file's only one).
/// The kernels of `path` to compile: `--kernel NAME`, the file's only kernel, or, for a
/// file of several, every one of them when the project configuration gives each a
/// signature (and no `--signature` names one for all).
fn load_kernels(
    path: &Path,
    wanted: Option<&str>,
    request: &CompileRequest,
    sources: &mut SourceMap,
) -> Result<Vec<LoadedKernel>, Vec<Diagnostic>> {
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
    let all_configured = |kernels: &[KernelSummary]| {
        request.signature.is_none()
            && tritonc_lint::Settings::discover(path).is_ok_and(|(settings, config)| {
                config.is_some()
                    && kernels
                        .iter()
                        .all(|k| settings.kernel_signatures.contains_key(&k.name))
            })
    };
    let summaries = select_kernels(path, wanted, analysis.kernels, all_configured)?;
    // Helpers imported from the project's other modules are read now, so their files are
    // in `sources` before anything points into them.
    let projects = crate::project::Projects::new(FileId(sources.len() as u32));
    let scope = projects.scope(path, &analysis.module, &analysis.index, true);
    projects.register(sources);
    Ok(summaries
        .into_iter()
        .map(|summary| LoadedKernel {
            summary,
            scope: scope.clone(),
        })
        .collect())
}

/// `--kernel NAME`, the file's only kernel, or all of a file's kernels when
/// `all_configured` says the configuration specializes each one.
fn select_kernels(
    path: &Path,
    wanted: Option<&str>,
    mut kernels: Vec<KernelSummary>,
    all_configured: impl Fn(&[KernelSummary]) -> bool,
) -> Result<Vec<KernelSummary>, Vec<Diagnostic>> {
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
            Some(i) => Ok(vec![kernels.swap_remove(i)]),
            None => Err(vec![with_labels(
                Diagnostic::error(
                    codes::UNKNOWN_KERNEL,
                    format!("`{shown}` has no kernel named `{name}`"),
                ),
                &kernels,
            )
            .with_help(format!("the file defines: {names}"))]),
        },
        None if kernels.len() == 1 || all_configured(&kernels) => Ok(kernels),
        // `@jit` helpers another `@jit` function of the file uses are inlined there; the
        // entry points are the rest.
        None if {
            let entries = entry_points(&kernels);
            entries.len() < kernels.len() && (entries.len() == 1 || all_configured(&entries))
        } =>
        {
            Ok(entry_points(&kernels))
        }
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
        .with_help(format!(
            "pass `--kernel NAME`, or give every kernel a signature in the project \
             configuration (`[tool.tritonc.kernels.NAME]`) to compile them all; the file \
             defines: {names}"
        ))]),
    }
}

/// The kernels no other `@jit` function of the file names (helpers are named by the
/// functions they are inlined into).
fn entry_points(kernels: &[KernelSummary]) -> Vec<KernelSummary> {
    let used: std::collections::BTreeSet<String> = kernels
        .iter()
        .flat_map(|k| {
            let mut names = tritonc_sema::meta::names_read(&k.kernel.def);
            names.remove(&k.name);
            names
        })
        .collect();
    kernels
        .iter()
        .filter(|k| !used.contains(&k.name))
        .cloned()
        .collect()
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
