//! Compiling kernel files to bundles: selection, specialization, variants, lowering, the
//! back end (code generation and ptxas) through the compile cache, and bundle writing.
//!
//! [`compile_file`] is the whole path in one call, for programs that compile kernels as
//! a build step; the `tritonc compile` command uses the steps ([`load`],
//! [`lower_variants`], [`crate::jobs::Workers::compile`]) to print stages in between.

use std::path::{Path, PathBuf};

use tritonc_bundle::Bundle;
use tritonc_diagnostics::{Diagnostic, SourceMap};
use tritonc_sema::meta::BoundKernel;
use tritonc_sema::Specialization;

use crate::backend::{BackendError, CacheUse};
use crate::codes;
use crate::jobs::{backend_for, Job, Workers};
use crate::options::Request;
use crate::select::{bind_signature, load_kernels, LoadedKernel};
use crate::variants::{constexpr_params, lower, variants, StageError};

/// A kernel picked from a file, with the signature bound to it (`None`: its annotations
/// and autotune configs specialize it).
pub type KernelToCompile = (LoadedKernel, Option<BoundKernel>);

/// Loads the kernels of every file in `paths` (see [`load_kernels`]) and binds each one's
/// signature (see [`bind_signature`]). The files, the project files they import and the
/// signatures' text are added to `sources`.
pub fn load(
    paths: &[PathBuf],
    kernel: Option<&str>,
    request: &Request,
    sources: &mut SourceMap,
) -> Result<Vec<KernelToCompile>, Vec<Diagnostic>> {
    let mut kernels = Vec::new();
    for path in paths {
        for loaded in load_kernels(path, kernel, request, sources)? {
            let bound = bind_signature(path, &loaded.summary, request, sources)?;
            kernels.push((loaded, bound));
        }
    }
    Ok(kernels)
}

/// One variant of one kernel, lowered to the tile IR.
#[derive(Debug)]
pub struct LoweredVariant {
    /// The index of its kernel in the list given to [`lower_variants`].
    pub kernel: usize,
    /// Its index and autotune config among the kernel's variants (`None`: the only one).
    pub label: Option<(usize, String)>,
    /// The kernel lowered for `spec`.
    pub func: tritonc_ir::Function,
    /// The specialization.
    pub spec: Specialization,
    /// The kernel's `tl.constexpr` parameters.
    pub constexprs: Vec<String>,
}

impl LoweredVariant {
    /// The compile job of this variant, whose locations point into `sources`.
    pub fn job<'s>(&self, sources: &'s SourceMap) -> Job<'s> {
        Job {
            sources,
            func: self.func.clone(),
            spec: self.spec.clone(),
            constexprs: self.constexprs.clone(),
        }
    }
}

/// Every variant of every kernel, lowered; sema's warnings go to `warnings`.
pub fn lower_variants(
    kernels: &[KernelToCompile],
    request: &Request,
    warnings: &mut Vec<Diagnostic>,
) -> Result<Vec<LoweredVariant>, StageError> {
    let mut out = Vec::new();
    for (k, (kernel, bound)) in kernels.iter().enumerate() {
        let constexprs = constexpr_params(kernel);
        for v in variants(kernel, bound.as_ref(), &request.options)? {
            let func = lower(kernel, &v.spec, warnings)?;
            out.push(LoweredVariant {
                kernel: k,
                label: v.label,
                func,
                spec: v.spec,
                constexprs: constexprs.clone(),
            });
        }
    }
    Ok(out)
}

/// One compiled variant.
#[derive(Debug)]
pub struct CompiledVariant {
    /// The kernel's name.
    pub kernel: String,
    /// Its index and autotune config among the kernel's variants (`None`: the only one).
    pub label: Option<(usize, String)>,
    /// The bundle: PTX, cubin (or AMD code object) and metadata. `bundle.meta.key` is the
    /// variant's specialization (argument types, hints, constexpr values, warps, stages,
    /// target, Triton version) and `bundle.meta.params` its launch ABI, in declaration
    /// order.
    pub bundle: Bundle,
    /// Whether the compile cache held it.
    pub cache: CacheUse,
    /// A note for the user, e.g. that ptxas was not found and the bundle is PTX only.
    pub note: Option<String>,
}

/// Everything one [`compile_file`] produced.
#[derive(Debug)]
pub struct Compiled {
    /// The variants, kernel by kernel, in variant order.
    pub variants: Vec<CompiledVariant>,
    /// Warnings (sema's, the cache's).
    pub warnings: Vec<Diagnostic>,
    /// The files the diagnostics point into.
    pub sources: SourceMap,
}

/// Why [`compile_file`] produced nothing.
#[derive(Debug)]
pub struct CompileFailure {
    /// What went wrong: errors in the file or its signatures, or the back end's.
    pub error: StageError,
    /// The files the diagnostics point into.
    pub sources: SourceMap,
}

/// Compiles the kernels of `path` for `request` into bundles, through the compile cache
/// unless `no_cache`: the kernel named `kernel` (else the file's only kernel or entry
/// point, or every kernel the project configuration gives a signature), specialized by
/// `request.signature` (else the configuration's signature, else the annotations), every
/// autotune variant. A cubin is assembled when ptxas is found. `jobs` bounds the compile
/// threads (default: one per core).
pub fn compile_file(
    path: &Path,
    kernel: Option<&str>,
    request: &Request,
    no_cache: bool,
    jobs: Option<u32>,
) -> Result<Compiled, CompileFailure> {
    let mut sources = SourceMap::new();
    let kernels = match load(&[path.to_path_buf()], kernel, request, &mut sources) {
        Ok(k) => k,
        Err(d) => {
            return Err(CompileFailure {
                error: StageError::Diagnostics(d),
                sources,
            })
        }
    };
    let mut warnings = Vec::new();
    let lowered = match lower_variants(&kernels, request, &mut warnings) {
        Ok(l) => l,
        Err(error) => return Err(CompileFailure { error, sources }),
    };
    let backend = backend_for(no_cache, request.options.backend(true));
    let results = {
        let compile_jobs: Vec<Job<'_>> = lowered.iter().map(|v| v.job(&sources)).collect();
        Workers::new(jobs).compile(&backend, &compile_jobs)
    };
    warnings.extend(crate::jobs::unwritable_cache_warning(&results));
    let mut variants = Vec::new();
    for (result, v) in results.into_iter().zip(lowered) {
        match result {
            Ok(c) => variants.push(CompiledVariant {
                kernel: kernels[v.kernel].0.summary.name.clone(),
                label: v.label,
                bundle: c.bundle,
                cache: c.cache,
                note: c.note,
            }),
            Err(e) => {
                return Err(CompileFailure {
                    error: StageError::Backend(e),
                    sources,
                })
            }
        }
    }
    Ok(Compiled {
        variants,
        warnings,
        sources,
    })
}

/// Writes `bundle` to its directory under `dir` (`DIR/KERNEL-HASH/`, named by kernel and
/// specialization key) and returns that directory.
pub fn write_bundle(bundle: &Bundle, dir: &Path) -> Result<PathBuf, Diagnostic> {
    let path = dir.join(bundle.dir_name());
    bundle.write_dir(&path).map_err(|e| {
        Diagnostic::error(
            codes::CANNOT_WRITE_OUTPUT,
            format!("cannot write the bundle `{}`: {e}", path.display()),
        )
    })?;
    Ok(path)
}

/// The bundle's error as a diagnostic, for callers that report one list.
pub fn backend_error_diagnostic(e: &BackendError) -> Diagnostic {
    match e {
        BackendError::Unavailable(m) => Diagnostic::error(codes::NOT_IMPLEMENTED, m.clone()),
        BackendError::Internal(m) => Diagnostic::error(codes::INTERNAL_FAILURE, m.clone()),
        BackendError::Unsupported(d)
        | BackendError::Environment(d)
        | BackendError::TargetLimit(d)
        | BackendError::Bound(d) => {
            d.clone()
        }
        BackendError::Interrupted => Diagnostic::error(
            codes::INTERNAL_FAILURE,
            "interrupted: the process is stopping",
        ),
    }
}
