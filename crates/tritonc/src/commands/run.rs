//! `tritonc run SPEC`: one launch from a launch spec, on the GPU (a bundle from
//! `--bundle DIR`, or compiled now) or on the interpreter (`--interpret`); a summary of
//! every output, `--save DIR` writes them as `.npy`.

use std::path::Path;

use tritonc_diagnostics::{Diagnostic, SourceMap};
use tritonc_runtime::Backend;
use tritonc_verify::{
    ExecError, ExecErrorKind, Executor, GpuExecutor, InterpreterExecutor, OutputTensor,
    PreparedCase,
};

use crate::cli::RunArgs;
use crate::codes;
use crate::exit::Exit;
use crate::input::{not_a_file, path_not_found};
use crate::kernel_source::{self, KernelSource};
use crate::output::{write_to, Output, Stream};

/// Checks that the spec path is a file.
pub fn check_spec_path(spec: &Path) -> Result<(), Diagnostic> {
    if !spec.exists() {
        Err(path_not_found(spec))
    } else if spec.is_dir() {
        Err(not_a_file(spec))
    } else {
        Ok(())
    }
}

/// An executor error as a diagnostic and exit status.
pub fn exec_failure(e: &ExecError) -> (Diagnostic, Exit) {
    match e.kind {
        ExecErrorKind::Unavailable => (
            Diagnostic::error(
                codes::NO_GPU,
                format!("cannot run on the GPU: {}", e.message),
            )
            .with_help("run on the CPU interpreter with `--interpret`"),
            Exit::Unavailable,
        ),
        ExecErrorKind::Refused => (
            Diagnostic::error(codes::LAUNCH_REFUSED, e.message.clone()),
            Exit::InputError,
        ),
        ExecErrorKind::Race | ExecErrorKind::Failed => match &e.diagnostic {
            Some(d) => (d.clone(), Exit::Findings),
            None => (
                Diagnostic::error(codes::INTERNAL_FAILURE, e.message.clone()),
                Exit::InternalError,
            ),
        },
    }
}

/// Picks the GPU backend for the kernels of `source`: HIP when the bundles target AMD GPUs (`gfx…`) and none NVIDIA, CUDA
/// otherwise (a directory holding both runs its NVIDIA bundles; the AMD ones are set
/// aside). AMD bundles in a build without the `hip` feature are exit 4, naming it.
pub fn pick_gpu_backend(source: &mut KernelSource) -> Result<Backend, (Diagnostic, Exit)> {
    let KernelSource::Dir(dir) = source else {
        // Compiled on demand: the back end compiles for NVIDIA targets only.
        return Ok(Backend::Cuda);
    };
    let of = |b: &tritonc_bundle::Bundle| Backend::for_target(&b.meta.target);
    let amd: Vec<&str> = dir
        .bundles
        .iter()
        .filter(|b| of(b) == Some(Backend::Hip))
        .map(|b| b.meta.target.as_str())
        .collect();
    if amd.is_empty() {
        return Ok(Backend::Cuda);
    }
    if dir.bundles.iter().any(|b| of(b) != Some(Backend::Hip)) {
        dir.bundles.retain(|b| of(b) != Some(Backend::Hip));
        return Ok(Backend::Cuda);
    }
    let mut targets = amd;
    targets.sort_unstable();
    targets.dedup();
    if !Backend::Hip.is_built() {
        let d = Diagnostic::error(
            codes::NOT_IMPLEMENTED,
            format!(
                "the bundles in `{}` target AMD GPUs ({}), and this tritonc was built without \
                 the AMD launcher (the `hip` cargo feature)",
                dir.dir.display(),
                targets.join(", ")
            ),
        )
        .with_help(
            "build with `cargo build --release -p tritonc --features hip` (it links \
             libamdhip64: Debian's `libamdhip64-dev`), or run with `--interpret`",
        );
        return Err((d, Exit::NotImplemented));
    }
    Ok(Backend::Hip)
}

/// Runs `run`.
pub fn run(args: &RunArgs, out: &Output) -> Exit {
    let mut sources = SourceMap::new();
    if let Err(d) = check_spec_path(&args.spec) {
        out.diagnostics(Stream::Stderr, &[d], &sources);
        return Exit::InputError;
    }
    let mut input = match tritonc_verify::load_spec(&args.spec, &mut sources) {
        Ok(i) => i,
        Err(d) => {
            out.diagnostics(Stream::Stderr, &d, &sources);
            return Exit::InputError;
        }
    };
    input.spec.debug |= args.debug || super::compile::triton_debug_env();
    input.scopes = tritonc_driver::project::spec_scopes(args.triton_version);
    // An autotuned kernel whose spec leaves the tuned meta-parameters out: the tuning
    // table next to the bundles picks the config (docs/tune.md, "Dispatch").
    match tuned_config(args, &input.spec, &mut sources, &*input.scopes) {
        Ok(Some((spec, line))) => {
            out.summary(Stream::Stderr, &format!("note: {line}"));
            input.spec = spec;
        }
        Ok(None) => {}
        Err(d) => {
            out.diagnostics(Stream::Stderr, &d, &sources);
            return Exit::InputError;
        }
    }
    let case = match PreparedCase::prepare_in(&input.spec, &args.spec, &mut sources, &*input.scopes)
    {
        Ok(c) => c,
        Err(d) => {
            out.diagnostics(Stream::Stderr, &d, &sources);
            return Exit::InputError;
        }
    };
    let mut outputs = None;
    let (device, result) = if args.interpret {
        let target = kernel_source::interpret_target(args.bundle.as_deref(), &args.target);
        let mut interp = InterpreterExecutor::for_target(args.poison_masked, true, target);
        let bar = interpreter_progress(out);
        if let Some(bar) = &bar {
            let bar = bar.clone();
            interp.options.progress = Some(std::sync::Arc::new(move |done, total| {
                bar.set_length(total);
                bar.set_position(done);
            }));
        }
        let r = interp.run(&case, 1, &mut |_, o| outputs = Some(o));
        if let Some(bar) = bar {
            bar.finish_and_clear();
        }
        (interp.describe(), r)
    } else {
        if args.poison_masked {
            out.diagnostics(
                Stream::Stderr,
                &[Diagnostic::warning(
                    codes::NOT_IMPLEMENTED,
                    "`--poison-masked` applies to the interpreter (`--interpret`); the GPU \
                     zero-fills masked lanes",
                )],
                &sources,
            );
        }
        let mut source = match kernel_source::kernel_source(args.bundle.as_deref(), &args.target) {
            Ok(s) => s,
            Err((m, exit)) => {
                let code = if exit == Exit::NotImplemented {
                    codes::NOT_IMPLEMENTED
                } else {
                    codes::LAUNCH_REFUSED
                };
                out.diagnostics(Stream::Stderr, &[Diagnostic::error(code, m)], &sources);
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
        let mut gpu = GpuExecutor::on(backend, 0, source);
        if let Err(e) = gpu.open() {
            let (d, exit) = exec_failure(&e);
            out.diagnostics(Stream::Stderr, &[d], &sources);
            return exit;
        }
        let r = gpu.run(&case, 1, &mut |_, o| outputs = Some(o));
        (gpu.describe(), r)
    };
    match result {
        Ok(stats) => {
            if let Some(note) = stats.note {
                out.summary(Stream::Stderr, &format!("note: {note}"));
            }
        }
        Err(e) => {
            let (d, exit) = exec_failure(&e);
            out.diagnostics(Stream::Stderr, &[d], &sources);
            return exit;
        }
    }
    let outputs = outputs.unwrap_or_default();
    let [gx, gy, gz] = case.launch.grid;
    let mut text = format!(
        "{} on {device}: grid ({gx}, {gy}, {gz}), {} warps\n",
        case.launch.kernel_name, case.num_warps
    );
    for o in &outputs {
        let s = tritonc_spec::summarize(&o.values);
        text.push_str(&format!(
            "  {} {}{:?}: {s}\n",
            o.name,
            o.dtype.signature_name().unwrap_or("?"),
            o.shape
        ));
    }
    write_to(Stream::Stdout, &text);
    if let Some(dir) = &args.save {
        if let Err(d) = save(dir, &outputs) {
            out.diagnostics(Stream::Stderr, &[d], &sources);
            return Exit::InputError;
        }
    }
    Exit::Success
}

/// The spec completed with the tuned config, when the kernel is autotuned and the spec
/// leaves a tuned meta-parameter out (see `tritonc_driver::tune::dispatch`).
fn tuned_config(
    args: &RunArgs,
    spec: &tritonc_spec::LaunchSpec,
    sources: &mut SourceMap,
    scopes: &dyn tritonc_spec::KernelScopes,
) -> Result<Option<(tritonc_spec::LaunchSpec, String)>, Vec<Diagnostic>> {
    let Some(target) = tritonc_driver::target::Target::parse(&args.target) else {
        return Ok(None);
    };
    let options = tritonc_driver::options::Options::new(target);
    let bundles = match (&args.bundle, args.interpret) {
        (Some(dir), false) => tritonc_verify::BundleDir::read(dir).ok().map(|d| d.bundles),
        _ => None,
    };
    let device = if args.interpret {
        "interpreter".to_string()
    } else {
        let backend = match bundles.as_ref().and_then(|b| b.first()) {
            Some(b) => Backend::for_target(&b.meta.target).unwrap_or(Backend::Cuda),
            None => Backend::Cuda,
        };
        match tritonc_runtime::Device::open_on(backend, 0) {
            Ok(d) => d.name().to_string(),
            // No device: the launch below reports it.
            Err(_) => String::new(),
        }
    };
    tritonc_driver::tune::dispatch::tuned_launch(
        spec,
        &args.spec,
        sources,
        scopes,
        &options,
        args.bundle.as_deref(),
        bundles.as_deref(),
        &device,
    )
}

/// Writes each output to `dir/NAME.npy`.
pub fn save(dir: &Path, outputs: &[OutputTensor]) -> Result<(), Diagnostic> {
    let fail = |p: &Path, e: std::io::Error| {
        Diagnostic::error(
            codes::CANNOT_WRITE_OUTPUT,
            format!("cannot write `{}`: {e}", p.display()),
        )
    };
    std::fs::create_dir_all(dir).map_err(|e| fail(dir, e))?;
    for o in outputs {
        let buffer = tritonc_interp::Buffer::from_f64(&o.name, o.dtype, &o.values);
        let bytes = tritonc_spec::npy::write(&tritonc_spec::npy::NpyArray {
            dtype: o.dtype,
            shape: o.shape.clone(),
            bytes: buffer.bytes,
        });
        let path = dir.join(format!("{}.npy", o.name));
        std::fs::write(&path, bytes).map_err(|e| fail(&path, e))?;
    }
    Ok(())
}

/// A progress bar over the interpreter's programs, on an interactive stderr only (it shows
/// itself only when a run lasts long enough to need it).
fn interpreter_progress(out: &Output) -> Option<indicatif::ProgressBar> {
    use std::io::IsTerminal;
    if out.quiet || !std::io::stderr().is_terminal() {
        return None;
    }
    let bar = indicatif::ProgressBar::new(0);
    bar.set_style(
        indicatif::ProgressStyle::with_template("interpreting {bar:30} {pos}/{len} programs")
            .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar()),
    );
    Some(bar)
}
