//! The back-end stages of `tritonc compile`: `--emit ttgir`, `mlir`, `llir`, `ptx`,
//! `cubin`, the bundle
//! per variant (the default), and `--spec SPEC`, which compiles every variant
//! `tritonc verify SPEC` will launch. Variants compile in parallel (`-j N`) through the
//! compile cache (`--no-cache` bypasses it); results are reported in a fixed order.

use std::path::{Path, PathBuf};

use tritonc_diagnostics::{Diagnostic, SourceMap};
use tritonc_driver::compile::{lower_variants, KernelToCompile};
use tritonc_driver::jobs::{backend_for, unwritable_cache_warning, Job, Workers};
use tritonc_driver::options::Request;
use tritonc_driver::stages::StageOutput;
use tritonc_driver::variants::StageError;
use tritonc_sema::Specialization;

use crate::backend::{self, BackendError, CacheUse, Compiled};
use crate::cli::CompileArgs;
use crate::codes;
use crate::commands::compile::{validate_options, write_stage};
use crate::exit::Exit;
use crate::output::{Output, Stream};
use crate::target::Stage;

/// Where bundles go without `-o`.
pub const DEFAULT_BUNDLE_DIR: &str = "tritonc-out";

/// Reports a back-end error and returns its exit status.
fn backend_failure(e: BackendError, sources: &SourceMap, out: &Output) -> Exit {
    let (d, exit) = match e {
        BackendError::Unavailable(m) => (
            Diagnostic::error(codes::NOT_IMPLEMENTED, m),
            Exit::NotImplemented,
        ),
        BackendError::Unsupported(d) => (d, Exit::NotImplemented),
        BackendError::Environment(d) | BackendError::TargetLimit(d) => (d, Exit::InputError),
        BackendError::Bound(d) => (d, Exit::ResourceLimit),
        // The process ends by the signal; nothing to say.
        BackendError::Interrupted => return Exit::Interrupted,
        BackendError::Internal(m) => (
            Diagnostic::error(codes::INTERNAL_FAILURE, m),
            Exit::InternalError,
        ),
    };
    out.diagnostics(Stream::Stderr, &[d], sources);
    exit
}

/// Writes the bundle of `compiled` under `dir`; reports where on stderr, and whether it
/// came from the cache.
fn write_bundle(compiled: &Compiled, dir: &Path, out: &Output) -> Result<PathBuf, Diagnostic> {
    let bundle = &compiled.bundle;
    let path = tritonc_driver::compile::write_bundle(bundle, dir)?;
    let origin = match &compiled.cache {
        CacheUse::Hit => " (from the cache)".to_string(),
        CacheUse::Replaced(why) => format!(" (recompiled: the cache entry was damaged: {why})"),
        CacheUse::Off | CacheUse::Stored | CacheUse::NotStored(_) => String::new(),
    };
    out.summary(
        Stream::Stderr,
        &format!(
            "wrote {}: {}{origin}",
            path.display(),
            backend::describe(bundle)
        ),
    );
    Ok(path)
}

/// The first two jobs that would write bundles of different kernels into one directory:
/// a bundle's directory is named by its kernel and specialization key, not by its code,
/// so two kernels of one name and specialization (in two files, or two specs) collide.
/// The same kernel compiled twice (its tile IR without locations is the same; the file
/// may be named two ways) writes an equivalent bundle and does not count.
fn clashing_bundles(
    jobs: &[Job<'_>],
    results: &[Result<Compiled, BackendError>],
) -> Option<(usize, usize)> {
    let code =
        |i: usize| tritonc_ir::print_function(&jobs[i].func, tritonc_ir::PrintOptions::default());
    let mut seen: std::collections::HashMap<String, usize> = Default::default();
    for (i, result) in results.iter().enumerate() {
        let Ok(compiled) = result else { continue };
        match seen.entry(compiled.bundle.dir_name()) {
            std::collections::hash_map::Entry::Vacant(v) => {
                v.insert(i);
            }
            std::collections::hash_map::Entry::Occupied(o) => {
                if code(*o.get()) != code(i) {
                    return Some((*o.get(), i));
                }
            }
        }
    }
    None
}

/// The error for two different bundles that would be written to `dir/NAME`.
fn bundle_clash(compiled: &Compiled, dir: &Path, what: &str) -> Diagnostic {
    Diagnostic::error(
        codes::CANNOT_WRITE_OUTPUT,
        format!(
            "{what} would write different bundles to the same `{}`",
            dir.join(compiled.bundle.dir_name()).display()
        ),
    )
    .with_help("compile them into separate directories")
}

/// `--emit ptx` / `cubin`, or no `--emit`: compile every variant of every kernel (in
/// parallel); print or write the PTX; write a bundle per variant to `-o DIR` (default
/// `tritonc-out/`) unless only PTX text was asked for on stdout.
pub fn emit_code(
    args: &CompileArgs,
    kernels: &[KernelToCompile],
    request: &Request,
    sources: &SourceMap,
    out: &Output,
) -> Exit {
    if !backend::AVAILABLE {
        return backend_failure(
            BackendError::Unavailable(backend::unavailable_message("`tritonc compile` to PTX")),
            sources,
            out,
        );
    }
    let emit_ptx = request.stages.contains(&Stage::Ptx);
    let emit_cubin = request.stages.contains(&Stage::Cubin);
    let emit_c = request.stages.contains(&Stage::C);
    if let (Some(dir), false) = (&args.tuned, emit_c) {
        let d = Diagnostic::error(
            codes::TUNE_TABLE_UNUSED,
            format!("`--tuned {}` is for `--emit c`: only generated C reads tuning tables at compile time", dir.display()),
        );
        out.diagnostics(Stream::Stderr, &[d], sources);
        return Exit::InputError;
    }
    let bundle_dir = match (&args.output_dir, request.stages.is_empty() || emit_cubin) {
        (Some(_), _) if emit_c && !emit_cubin => None,
        (Some(d), _) => Some(d.clone()),
        (None, true) => Some(PathBuf::from(DEFAULT_BUNDLE_DIR)),
        (None, false) => None,
    };
    let options = request.options.backend(bundle_dir.is_some() || emit_c);
    let mut warnings = Vec::new();
    let lowered = match lower_variants(kernels, request, &mut warnings) {
        Ok(l) => l,
        Err(e) => return stage_error(e, sources, out),
    };
    let jobs: Vec<Job<'_>> = lowered.iter().map(|v| v.job(sources)).collect();
    let owners: Vec<(usize, Option<(usize, String)>)> =
        lowered.into_iter().map(|v| (v.kernel, v.label)).collect();
    let backend = backend_for(args.no_cache, options);
    let results = Workers::new(args.jobs).compile(&backend, &jobs);
    if let (Some(dir), Some((a, b))) = (&bundle_dir, clashing_bundles(&jobs, &results)) {
        let (ka, kb) = (
            &kernels[owners[a].0].0.summary,
            &kernels[owners[b].0].0.summary,
        );
        let compiled = results[b]
            .as_ref()
            .expect("clashing_bundles returns compiled jobs");
        let d = bundle_clash(
            compiled,
            dir,
            &format!("two kernels named `{}` with one specialization", ka.name),
        )
        .with_primary(ka.name_span, "one")
        .with_secondary(kb.name_span, "the other");
        out.diagnostics(Stream::Stderr, &[d], sources);
        return Exit::InputError;
    }
    let cache_warning = unwritable_cache_warning(&results);
    let mut ptx_outputs: Vec<Vec<StageOutput>> = kernels.iter().map(|_| Vec::new()).collect();
    let mut c_bundles: Vec<Vec<tritonc_bundle::Bundle>> =
        kernels.iter().map(|_| Vec::new()).collect();
    for (result, (k, label)) in results.into_iter().zip(owners) {
        let compiled = match result {
            Ok(c) => c,
            Err(e) => return backend_failure(e, sources, out),
        };
        if let Some(note) = &compiled.note {
            if options.cubin {
                out.diagnostics(
                    Stream::Stderr,
                    &[Diagnostic::warning(codes::NOT_IMPLEMENTED, note.clone())],
                    sources,
                );
            }
        }
        if let Some(dir) = &bundle_dir {
            if let Err(d) = write_bundle(&compiled, dir, out) {
                out.diagnostics(Stream::Stderr, &[d], sources);
                return Exit::InputError;
            }
        }
        if emit_c {
            c_bundles[k].push(compiled.bundle.clone());
        }
        ptx_outputs[k].push(StageOutput {
            variant: label,
            text: compiled.bundle.ptx,
        });
    }
    // A text stage (ttir, ttgir) lowered the same variants before and printed their
    // warnings; only the cache's is new then.
    let text_stage_warned = request
        .stages
        .first()
        .is_some_and(|s| matches!(s, Stage::Ttir | Stage::Ttgir));
    if text_stage_warned {
        warnings.clear();
    }
    warnings.extend(cache_warning);
    if !warnings.is_empty() {
        out.diagnostics(Stream::Stderr, &warnings, sources);
    }
    if emit_c {
        let dir = args
            .output_dir
            .clone()
            .unwrap_or_else(|| PathBuf::from(DEFAULT_BUNDLE_DIR));
        if let Err(d) = write_c(kernels, c_bundles, &dir, args.tuned.as_deref(), sources, out) {
            out.diagnostics(Stream::Stderr, &[d], sources);
            return Exit::InputError;
        }
    }
    if emit_ptx {
        for ((kernel, _), outputs) in kernels.iter().zip(&ptx_outputs) {
            if let Err(d) = write_stage(
                args.output_dir.as_deref(),
                &kernel.summary,
                Stage::Ptx,
                outputs,
            ) {
                out.diagnostics(Stream::Stderr, &[d], sources);
                return Exit::InputError;
            }
        }
    }
    Exit::Success
}

/// `--emit c`: one header and source per input file, named by the file's stem
/// (`vector_add.py` → `DIR/vector_add.h`, `DIR/vector_add.c`), holding every variant of
/// its kernels.
fn write_c(
    kernels: &[KernelToCompile],
    bundles: Vec<Vec<tritonc_bundle::Bundle>>,
    dir: &Path,
    tuned: Option<&Path>,
    sources: &SourceMap,
    out: &Output,
) -> Result<(), Diagnostic> {
    let mut modules: Vec<(String, Vec<tritonc_bundle::Bundle>)> = Vec::new();
    for ((kernel, _), list) in kernels.iter().zip(bundles) {
        let file = sources.get(kernel.summary.name_span.file).path();
        let stem = file.file_stem().map_or_else(
            || "kernels".to_string(),
            |s| s.to_string_lossy().into_owned(),
        );
        let module = tritonc_bundle::c_source::c_identifier(&stem);
        match modules.iter_mut().find(|(m, _)| *m == module) {
            Some((_, all)) => all.extend(list),
            None => modules.push((module, list)),
        }
    }
    let cannot_write = |path: &Path, e: std::io::Error| {
        Diagnostic::error(
            codes::CANNOT_WRITE_OUTPUT,
            format!("cannot write `{}`: {e}", path.display()),
        )
    };
    std::fs::create_dir_all(dir).map_err(|e| cannot_write(dir, e))?;
    for (module, list) in modules {
        let mut tables = Vec::new();
        if let Some(tdir) = tuned {
            let mut kernels: Vec<&str> = list.iter().map(|b| b.meta.key.kernel.as_str()).collect();
            kernels.sort_unstable();
            kernels.dedup();
            for k in &kernels {
                tables.extend(tritonc_bundle::tuned::tables_in(tdir, k));
            }
            if tables.is_empty() {
                let d = Diagnostic::warning(
                    codes::TUNE_TABLE_UNUSED,
                    format!(
                        "no tuning table of {} in `{}` (`tritonc tune` writes `KERNEL.tune-*.json`): `{module}.c` has no tuned dispatch",
                        kernels.iter().map(|k| format!("`{k}`")).collect::<Vec<_>>().join(", "),
                        tdir.display()
                    ),
                );
                out.diagnostics(Stream::Stderr, &[d], sources);
            }
        }
        let c = tritonc_bundle::c_source::c_sources_tuned(&module, &list, &tables)
            .map_err(|e| Diagnostic::error(codes::NOT_IMPLEMENTED, e.to_string()))?;
        let notes: Vec<Diagnostic> = c
            .notes
            .iter()
            .map(|n| Diagnostic::warning(codes::TUNE_TABLE_UNUSED, n.clone()))
            .collect();
        if !notes.is_empty() {
            out.diagnostics(Stream::Stderr, &notes, sources);
        }
        for (name, text) in [(&c.header_name, &c.header), (&c.source_name, &c.source)] {
            let path = dir.join(name);
            std::fs::write(&path, text).map_err(|e| cannot_write(&path, e))?;
        }
        let functions: Vec<String> = list
            .iter()
            .map(tritonc_bundle::c_source::c_function_name)
            .collect();
        out.summary(
            Stream::Stderr,
            &format!(
                "wrote {} and {}: {}",
                dir.join(&c.header_name).display(),
                c.source_name,
                functions.join(", ")
            ),
        );
    }
    Ok(())
}

/// Reports why a stage produced no output and returns its exit status.
pub(crate) fn stage_error(e: StageError, sources: &SourceMap, out: &Output) -> Exit {
    match e {
        StageError::Backend(e) => backend_failure(e, sources, out),
        StageError::Diagnostics(d) => {
            out.diagnostics(Stream::Stderr, &d, sources);
            Exit::InputError
        }
        StageError::NotImplemented(m) => {
            out.diagnostics(
                Stream::Stderr,
                &[Diagnostic::error(codes::NOT_IMPLEMENTED, m)],
                sources,
            );
            Exit::NotImplemented
        }
    }
}

/// One launch spec, read and lowered for every variant `tritonc verify` launches.
struct PreparedSpec {
    /// The spec, the kernel file and what it imports.
    sources: SourceMap,
    /// What the summary line calls it: the kernel's name, else the spec's path.
    name: String,
    /// The distinct variants: kernel, specialization, constexpr parameters.
    variants: Vec<(tritonc_ir::Function, Specialization, Vec<String>)>,
}

/// Reads the spec at `path` and lowers the kernel for every distinct specialization the
/// five stages of `tritonc verify` launch, for the request's target and debug mode; the diagnostics (with the files
/// they point into) if the spec itself does not prepare.
fn prepare_spec(
    path: &Path,
    request: &Request,
) -> Result<PreparedSpec, (SourceMap, Vec<Diagnostic>)> {
    let mut sources = SourceMap::new();
    let mut input = match tritonc_verify::load_spec(path, &mut sources) {
        Ok(i) => i,
        Err(d) => return Err((sources, d)),
    };
    // `--debug` (or TRITON_DEBUG) turns debug mode on for every spec.
    input.spec.debug |= request.options.debug;
    let plan = tritonc_verify::plan(&input.spec, &input.config, &tritonc_verify::Stage::ALL);
    let mut seen_specs = Vec::new();
    let mut keys = Vec::new();
    let mut variants = Vec::new();
    for case in &plan.cases {
        if seen_specs.contains(&case.spec) {
            continue;
        }
        seen_specs.push(case.spec.clone());
        // Compiling needs the specialization, not the data: nothing is allocated.
        let mut prepared = match tritonc_verify::PreparedCase::prepare_shapes_in(
            &case.spec,
            path,
            &mut sources,
            // The version this compile resolved (`--show-settings` shows it).
            &tritonc_driver::project::ProjectScopes {
                triton_version: Some(request.options.triton_version),
            },
        ) {
            Ok(p) => p,
            // The spec itself must prepare; a variant that cannot is verify's finding.
            Err(d) if case.spec == input.spec => return Err((sources, d)),
            Err(_) => continue,
        };
        let spec = &mut prepared.launch.specialization;
        spec.options.target = request.options.target;
        let key = spec.key().hash_hex();
        if keys.contains(&key) {
            continue;
        }
        keys.push(key);
        variants.push((
            prepared.function,
            prepared.launch.specialization,
            prepared.constexpr_params,
        ));
    }
    let name = input
        .spec
        .kernel_name
        .clone()
        .unwrap_or_else(|| path.display().to_string());
    Ok(PreparedSpec {
        sources,
        name,
        variants,
    })
}

/// `tritonc compile --spec SPEC…`: every distinct specialization the five stages of
/// `tritonc verify SPEC` launch, for every spec, compiled into bundles under `-o DIR`.
/// The specs are prepared in parallel, then all their variants are compiled in parallel.
pub fn compile_spec(args: &CompileArgs, spec_paths: &[PathBuf], out: &Output) -> Exit {
    let request = match validate_options(args) {
        Ok(r) => r,
        Err(d) => {
            out.diagnostics(Stream::Stderr, &d, &SourceMap::new());
            return Exit::InputError;
        }
    };
    if !backend::AVAILABLE {
        return backend_failure(
            BackendError::Unavailable(backend::unavailable_message("`tritonc compile --spec`")),
            &SourceMap::new(),
            out,
        );
    }
    let dir = args
        .output_dir
        .clone()
        .unwrap_or_else(|| PathBuf::from(DEFAULT_BUNDLE_DIR));
    let workers = Workers::new(args.jobs);
    let mut specs = Vec::new();
    // In command-line order: the first spec that does not prepare is reported, as if
    // they had been read one after the other.
    for prepared in workers.map(spec_paths, |path| prepare_spec(path, &request)) {
        match prepared {
            Ok(p) => specs.push(p),
            Err((sources, d)) => {
                out.diagnostics(Stream::Stderr, &d, &sources);
                return Exit::InputError;
            }
        }
    }
    // The sources stay here while the jobs, which point into them, take the variants.
    let mut spec_sources = Vec::new();
    let mut summaries = Vec::new();
    let mut spec_variants = Vec::new();
    for spec in specs {
        spec_sources.push(spec.sources);
        summaries.push((spec.name, spec.variants.len()));
        spec_variants.push(spec.variants);
    }
    let jobs: Vec<Job<'_>> = spec_variants
        .into_iter()
        .zip(&spec_sources)
        .flat_map(|(variants, sources)| {
            variants
                .into_iter()
                .map(move |(func, spec, constexprs)| Job {
                    sources,
                    func,
                    spec,
                    constexprs,
                })
        })
        .collect();
    let backend = backend_for(args.no_cache, request.options.backend(true));
    let results = workers.compile(&backend, &jobs);
    if let Some((a, b)) = clashing_bundles(&jobs, &results) {
        // The spec each job belongs to, in job order (every spec prepared: one per path).
        let spec_of: Vec<&Path> = summaries
            .iter()
            .zip(spec_paths)
            .flat_map(|((_, count), path)| std::iter::repeat_n(path.as_path(), *count))
            .collect();
        let compiled = results[b]
            .as_ref()
            .expect("clashing_bundles returns compiled jobs");
        let what = format!(
            "`{}` and `{}` (two kernels named `{}` with one specialization)",
            spec_of[a].display(),
            spec_of[b].display(),
            compiled.bundle.meta.key.kernel
        );
        let d = bundle_clash(compiled, &dir, &what);
        out.diagnostics(Stream::Stderr, &[d], &SourceMap::new());
        return Exit::InputError;
    }
    if let Some(w) = unwritable_cache_warning(&results) {
        out.diagnostics(Stream::Stderr, &[w], &SourceMap::new());
    }
    let mut results = results.into_iter();
    let mut exit = Exit::Success;
    let mut warned_ptx_only = false;
    for ((name, count), sources) in summaries.iter().zip(&spec_sources) {
        let mut failed = false;
        let mut from_cache = 0;
        // Every result of the spec is taken, also after a failure, so the next spec
        // starts at its own.
        for result in results.by_ref().take(*count) {
            if failed {
                continue;
            }
            match result {
                Ok(c) => {
                    from_cache += usize::from(c.cache == CacheUse::Hit);
                    if let Some(note) = c.note.as_ref().filter(|_| !warned_ptx_only) {
                        warned_ptx_only = true;
                        out.diagnostics(
                            Stream::Stderr,
                            &[Diagnostic::warning(codes::NOT_IMPLEMENTED, note.clone())],
                            sources,
                        );
                    }
                    if let Err(d) = write_bundle(&c, &dir, out) {
                        out.diagnostics(Stream::Stderr, &[d], sources);
                        return Exit::InputError;
                    }
                }
                Err(e) => {
                    exit = exit.worst(backend_failure(e, sources, out));
                    failed = true;
                }
            }
        }
        if !failed {
            let cached = if from_cache > 0 {
                format!(" ({from_cache} from the cache)")
            } else {
                String::new()
            };
            out.summary(
                Stream::Stderr,
                &format!(
                    "compiled {} variant(s) of `{}` for {} into {}{cached}",
                    count,
                    name,
                    request.options.target.name(),
                    dir.display()
                ),
            );
        }
    }
    exit
}
