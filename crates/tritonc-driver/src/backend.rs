//! The back end as the driver uses it: tile IR → PTX (tritonc-codegen, behind the `mlir`
//! feature) → cubin (ptxas, when one is found) → a bundle (tritonc-bundle).
//!
//! Without the `mlir` feature every entry point answers [`BackendError::Unavailable`]
//! (exit 4): the slim runner consumes bundles compiled elsewhere.

use tritonc_bundle::{Bundle, PtxasReport};
use tritonc_diagnostics::{Diagnostic, SourceMap};
use tritonc_ir::Function;
use tritonc_sema::Specialization;

use crate::cache::{CacheKey, CachedCode, KernelCache, KeyInputs, Lookup, Toolchain};
use crate::codes;
use crate::target::Target;
use std::io::Write;
use tritonc_toolchain::Ptxas;

/// How to compile.
#[derive(Debug, Clone, Copy)]
pub struct BackendOptions {
    /// The NVIDIA target.
    pub target: Target,
    /// Let the back end fuse `a*b + c` into `fma` (Triton's default).
    pub fp_fusion: bool,
    /// Assemble a cubin with ptxas when one is found.
    pub cubin: bool,
}

/// Why no bundle was produced.
#[derive(Debug)]
pub enum BackendError {
    /// This build has no back end, or the target has none (exit 4).
    Unavailable(String),
    /// The back end cannot lower this kernel yet, at the kernel's span (exit 4).
    Unsupported(Diagnostic),
    /// The back end produced code its own checks or ptxas reject: a bug (exit 70).
    Internal(String),
    /// The environment stopped the compile: ptxas cannot be run, or its scratch
    /// directory cannot be made, or its bounds are malformed (exit 2).
    Environment(Diagnostic),
    /// The variant asks for more than the target has (more threads per block than it
    /// allows): no code could ever launch (exit 2).
    TargetLimit(Diagnostic),
    /// ptxas ran past its time or memory bound (exit 5).
    Bound(Diagnostic),
    /// The process is shutting down (SIGINT/SIGTERM): ptxas was stopped.
    Interrupted,
}

/// Whether this build has the MLIR back end.
pub const AVAILABLE: bool = cfg!(feature = "mlir");

/// The message for builds without the back end.
pub fn unavailable_message(what: &str) -> String {
    format!(
        "{what} needs the MLIR back end, which is not available in this build (built \
         without the `mlir` feature); compile bundles with a full `tritonc compile … -o DIR` \
         and pass `--bundle DIR`"
    )
}

/// Where a variant's code came from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CacheUse {
    /// Compiled without the cache (`--no-cache`, or no cache directory).
    Off,
    /// Read from the cache.
    Hit,
    /// Compiled and stored.
    Stored,
    /// Compiled; the entry found was damaged (why) and has been replaced.
    Replaced(String),
    /// Compiled; storing it failed (why).
    NotStored(String),
}

/// A compiled variant: the bundle, and what ptxas said (or why there is no cubin).
#[derive(Debug)]
pub struct Compiled {
    /// The bundle.
    pub bundle: Bundle,
    /// A note for the user (`ptxas not found: PTX only`).
    pub note: Option<String>,
    /// Whether the cache was used.
    pub cache: CacheUse,
}

/// The back end for one invocation: options, the ptxas found, and the cache. Shared by
/// the compile worker threads.
#[derive(Debug)]
pub struct Backend {
    options: BackendOptions,
    /// ptxas when a cubin is asked for and one is found (`Err`: its bounds are malformed).
    ptxas: Option<Result<Ptxas, String>>,
    cache: Option<(KernelCache, Toolchain)>,
    /// `TRITONC_REGISTER_BUDGET` (`Err`: malformed).
    #[cfg_attr(not(feature = "mlir"), allow(dead_code))]
    register_budget: Result<u64, String>,
}

/// The variable that sets the back end's register budget (`E0517`).
pub const REGISTER_BUDGET_VAR: &str = "TRITONC_REGISTER_BUDGET";

/// The register budget `TRITONC_REGISTER_BUDGET` sets: a positive number of registers,
/// `none` (no budget, 0), or unset (the default, `tritonc_codegen::DEFAULT_REGISTER_BUDGET`,
/// 2^16).
pub fn register_budget_from(value: Option<&str>) -> Result<u64, String> {
    #[cfg(feature = "mlir")]
    const DEFAULT: u64 = tritonc_codegen::DEFAULT_REGISTER_BUDGET;
    #[cfg(not(feature = "mlir"))]
    const DEFAULT: u64 = 1 << 16;
    let Some(v) = value.map(str::trim) else {
        return Ok(DEFAULT);
    };
    if v.eq_ignore_ascii_case("none") {
        return Ok(0);
    }
    match v.replace('_', "").parse::<u64>() {
        Ok(n) if n > 0 => Ok(n),
        _ => Err(format!(
            "{REGISTER_BUDGET_VAR}={v:?} is not a positive number of registers or `none`"
        )),
    }
}

impl Backend {
    /// The back end for `options`, reading and writing `cache` when given (the toolchain
    /// is identified now, once: it is part of every key).
    pub fn new(options: BackendOptions, cache: Option<KernelCache>) -> Backend {
        let ptxas = if options.cubin {
            tritonc_toolchain::locate::find_ptxas()
        } else {
            None
        };
        let cache = cache.map(|c| {
            let toolchain = Toolchain::detect(ptxas.as_deref(), Some(&c.toolchain_dir()));
            (c, toolchain)
        });
        Backend {
            options,
            ptxas: ptxas.map(|p| Ptxas::with_env_bounds(p).map(with_slow_note)),
            cache,
            register_budget: register_budget_from(
                std::env::var(REGISTER_BUDGET_VAR).ok().as_deref(),
            ),
        }
    }

    /// Compiles `func` (lowered for `spec`) into a bundle, from the cache when it holds
    /// the variant. `constexpr_params` names the kernel's `tl.constexpr` parameters.
    pub fn compile(
        &self,
        func: &Function,
        sources: &SourceMap,
        spec: &Specialization,
        constexpr_params: &[&str],
    ) -> Result<Compiled, BackendError> {
        let target = self.options.target;
        let warps = spec.options.num_warps;
        crate::options::check_block_threads(
            warps,
            target,
            &format!("`num_warps = {warps}` for `{}`", func.name),
        )
        .map_err(|d| {
            BackendError::TargetLimit(match func.loc.known_span() {
                Some(span) => d.with_primary(span, "compiled with these warps"),
                None => d,
            })
        })?;
        let mut cache_use = CacheUse::Off;
        let mut key = None;
        if let Some((cache, toolchain)) = &self.cache {
            // What codegen reads: the variant's warps, stages, debug mode and Triton
            // version, this back end's target and fp fusion.
            let options = crate::options::Options {
                target,
                ..crate::options::Options {
                    fp_fusion: self.options.fp_fusion,
                    ..crate::options::Options::new(target)
                }
                .for_variant(spec)
            }
            .key_text();
            let specialization = spec.key().to_string();
            let inputs = KeyInputs {
                func,
                sources,
                specialization: &specialization,
                options: &options,
                cubin: self.ptxas.is_some(),
            };
            let hex = CacheKey::new(&inputs, toolchain).hex();
            match cache.get(&hex) {
                Lookup::Hit(code) => match bundle_of(code, spec, constexpr_params, &self.options) {
                    Ok(bundle) => {
                        return Ok(Compiled {
                            bundle,
                            note: self.note(),
                            cache: CacheUse::Hit,
                        })
                    }
                    // Intact but no valid bundle for this variant: compiled again, as for
                    // a damaged entry; a fresh compile reports what is wrong, if anything.
                    Err(_) => {
                        cache_use =
                            CacheUse::Replaced("the entry does not make a valid bundle".into())
                    }
                },
                Lookup::Miss => {}
                Lookup::Damaged(why) => cache_use = CacheUse::Replaced(why),
            }
            key = Some((cache, hex));
        }
        let code = self.generate(func, sources, spec)?;
        if let Some((cache, hex)) = key {
            cache_use = match (cache.put(&hex, &code), cache_use) {
                (Err(why), _) => CacheUse::NotStored(why),
                (Ok(()), CacheUse::Replaced(why)) => CacheUse::Replaced(why),
                (Ok(()), _) => CacheUse::Stored,
            };
        }
        let bundle = bundle_of(code, spec, constexpr_params, &self.options)?;
        Ok(Compiled {
            bundle,
            note: self.note(),
            cache: cache_use,
        })
    }

    /// Why the bundle has no cubin although one was asked for.
    fn note(&self) -> Option<String> {
        (self.options.cubin && self.ptxas.is_none()).then(|| {
            format!(
                "ptxas not found ({}): the bundle carries PTX only, which the driver compiles \
                 at load",
                tritonc_toolchain::locate::PTXAS_SEARCH
            )
        })
    }

    /// Code generation and ptxas: what a cache entry holds.
    #[cfg(feature = "mlir")]
    fn generate(
        &self,
        func: &Function,
        sources: &SourceMap,
        spec: &Specialization,
    ) -> Result<CachedCode, BackendError> {
        use tritonc_codegen::compile_to_ptx_in;

        let target = self.options.target;
        let options = self.codegen_options(spec)?;
        let compiled = with_context(|context| {
            compile_to_ptx_in(context, func, sources, &target, &options)
        })
        .map_err(|e| unsupported(func, &self.options.target, e))?;
        if target.is_amd() {
            // The code object is the whole output: no PTX, no ptxas.
            return Ok(CachedCode {
                entry: compiled.name,
                ptx: String::new(),
                num_warps: compiled.num_warps,
                shared_bytes: compiled.shared_bytes,
                dynamic_shared: compiled.dynamic_shared,
                cubin: compiled.code_object,
                ptxas: None,
                combine_orders: Some(compiled.combine_orders),
            });
        }
        let ptx = compiled.ptx;
        let (cubin, ptxas) = match &self.ptxas {
            Some(Ok(ptxas)) => {
                let (cubin, report) = assemble(ptxas, &ptx, &target.chip())?;
                (Some(cubin), Some(report))
            }
            Some(Err(malformed)) => {
                return Err(BackendError::Environment(
                    Diagnostic::error(codes::PTXAS_BOUND, malformed.clone()).with_help(
                        "the time bound is seconds (`600`, `90s`, `10m`), the memory bound a \
                         size (`16G`, `512M`); `none` removes a bound",
                    ),
                ))
            }
            None => (None, None),
        };
        Ok(CachedCode {
            entry: compiled.name,
            ptx,
            num_warps: compiled.num_warps,
            shared_bytes: compiled.shared_bytes,
            dynamic_shared: compiled.dynamic_shared,
            cubin,
            ptxas,
            combine_orders: Some(compiled.combine_orders),
        })
    }

    /// The text of an intermediate stage of one variant: `--emit mlir` (the per-thread
    /// MLIR before MLIR's pipeline) or `--emit llir` (LLVM IR after LLVM's
    /// optimizations). Never cached: these are for reading.
    #[cfg(feature = "mlir")]
    pub fn ir_text(
        &self,
        func: &Function,
        sources: &SourceMap,
        spec: &Specialization,
        stage: crate::target::Stage,
    ) -> Result<String, BackendError> {
        use tritonc_codegen::{compile_to_llvm_ir_in, compile_to_mlir, compile_to_ptx_in};

        let options = self.codegen_options(spec)?;
        let text = match stage {
            crate::target::Stage::Mlir => {
                let target = self.options.target;
                compile_to_mlir(func, sources, &target, &options)
            }
            crate::target::Stage::Llir => with_context(|context| {
                let target = self.options.target;
                compile_to_llvm_ir_in(context, func, sources, &target, &options)
            }),
            crate::target::Stage::Amdgcn => with_context(|context| {
                let target = self.options.target;
                compile_to_ptx_in(context, func, sources, &target, &options)
                    .map(|kernel| kernel.amdgcn.unwrap_or_default())
            }),
            other => {
                return Err(BackendError::Internal(format!(
                    "`{}` is not an intermediate stage of the back end",
                    other.name()
                )))
            }
        };
        text.map_err(|e| unsupported(func, &self.options.target, e))
    }

    /// Without the `mlir` feature there is no back end.
    #[cfg(not(feature = "mlir"))]
    pub fn ir_text(
        &self,
        _func: &Function,
        _sources: &SourceMap,
        _spec: &Specialization,
        stage: crate::target::Stage,
    ) -> Result<String, BackendError> {
        Err(BackendError::Unavailable(unavailable_message(&format!(
            "`--emit {}`",
            stage.name()
        ))))
    }

    /// Without the `mlir` feature there is no back end.
    #[cfg(not(feature = "mlir"))]
    fn generate(
        &self,
        _func: &Function,
        _sources: &SourceMap,
        _spec: &Specialization,
    ) -> Result<CachedCode, BackendError> {
        Err(BackendError::Unavailable(unavailable_message(
            "compiling to PTX",
        )))
    }
}

impl Backend {
    /// The code generator's options for `spec`, with the register budget (a malformed
    /// `TRITONC_REGISTER_BUDGET` is an input error).
    #[cfg(feature = "mlir")]
    fn codegen_options(
        &self,
        spec: &Specialization,
    ) -> Result<tritonc_codegen::CompileOptions, BackendError> {
        let budget = self.register_budget.clone().map_err(|message| {
            BackendError::Environment(
                Diagnostic::error(codes::REGISTER_BUDGET, message)
                    .with_help("a number of registers (`131072`), or `none`"),
            )
        })?;
        Ok(tritonc_codegen::CompileOptions {
            register_budget: budget,
            ..codegen_options(spec, &self.options)
        })
    }
}

/// A code generator error as the diagnostic for "this kernel cannot be compiled yet",
/// or, for a kernel past the register budget, the bound it hit (exit 5).
#[cfg(feature = "mlir")]
fn unsupported(func: &Function, target: &Target, e: tritonc_codegen::CompileError) -> BackendError {
    if e.stage == tritonc_codegen::CompileStage::Budget {
        let mut d = Diagnostic::error(codes::REGISTER_BUDGET, e.message.clone())
            .with_note(
                "Triton allows blocks of up to 2^20 elements, but code this large takes LLVM \
                 and ptxas many minutes and gigabytes and spills nearly every value",
            )
            .with_help(format!(
                "use a smaller block (more programs) or more warps; to build it anyway, set \
                 {REGISTER_BUDGET_VAR}=none (`tritonc rule E0517`)"
            ));
        if let Some(span) = e.span {
            d = d.with_primary(span, "the largest block value");
        }
        return BackendError::Bound(d);
    }
    let vendor = match target.vendor() {
        crate::target::Vendor::Nvidia => "NVIDIA",
        crate::target::Vendor::Amd => "AMD",
    };
    let mut d = Diagnostic::error(
        codes::BACKEND_UNSUPPORTED,
        format!("the {vendor} back end cannot compile `{}`: {e}", func.name),
    );
    if let Some(span) = e.span {
        d = d.with_primary(span, format!("{}", e.stage));
    }
    BackendError::Unsupported(d)
}

/// The code generator's options for `spec`.
#[cfg(feature = "mlir")]
fn codegen_options(
    spec: &Specialization,
    options: &BackendOptions,
) -> tritonc_codegen::CompileOptions {
    tritonc_codegen::CompileOptions {
        num_warps: spec.options.num_warps,
        fp_fusion: options.fp_fusion,
        num_stages: spec.options.num_stages,
        waves_per_eu: 0,
        ..tritonc_codegen::CompileOptions::default()
    }
}

/// The bundle of generated `code` for `spec`: built the same way on a cache hit and a
/// miss, so both write the same bytes.
fn bundle_of(
    code: CachedCode,
    spec: &Specialization,
    constexpr_params: &[&str],
    options: &BackendOptions,
) -> Result<Bundle, BackendError> {
    let params = tritonc_bundle::abi_in_declaration_order(spec, constexpr_params)
        .map_err(|e| BackendError::Internal(e.to_string()))?;
    let key = spec.key();
    let amd = options.target.is_amd();
    // AMD kernels end with Triton's global and profile scratch pointers (passed null).
    let hidden_params = if amd {
        let passed = params.iter().filter(|p| p.role.is_passed()).count() as u32;
        (0..options.target.scratch_pointer_params())
            .map(|i| tritonc_bundle::HiddenParam {
                index: passed + i,
                kind: tritonc_bundle::HiddenParamKind::GlobalScratch {
                    bytes_per_program: 0,
                    align: 1,
                },
            })
            .collect()
    } else {
        Vec::new()
    };
    let bundle = Bundle {
        meta: tritonc_bundle::BundleMeta {
            format_version: if amd {
                tritonc_bundle::AMD_FORMAT_VERSION
            } else {
                tritonc_bundle::FORMAT_VERSION
            },
            entry: code.entry,
            target: options.target.name(),
            key_hash: key.hash_hex(),
            key,
            num_warps: code.num_warps,
            // Above 48 KiB the back end declares shared memory dynamic (`extern .shared`):
            // the launch must then pass its size.
            dynamic_shared_bytes: if code.dynamic_shared {
                code.shared_bytes
            } else {
                0
            },
            static_shared_bytes: if code.dynamic_shared {
                0
            } else {
                code.shared_bytes
            },
            params,
            hidden_params,
            reduction_layouts: code.combine_orders,
            ptxas: code.ptxas,
            min_driver_version: if amd {
                None
            } else {
                tritonc_bundle::min_driver_for_ptx(&code.ptx)
            },
        },
        ptx: code.ptx,
        cubin: code.cubin,
    };
    bundle.validate().map_err(|e| {
        BackendError::Internal(format!("the generated bundle is inconsistent: {e}"))
    })?;
    Ok(bundle)
}

/// Compiles `func` (lowered for `spec`) into a bundle, without the cache.
/// `constexpr_params` names the kernel's `tl.constexpr` parameters.
pub fn compile_bundle(
    func: &Function,
    sources: &SourceMap,
    spec: &Specialization,
    constexpr_params: &[&str],
    options: &BackendOptions,
) -> Result<Compiled, BackendError> {
    Backend::new(*options, None).compile(func, sources, spec, constexpr_params)
}

#[cfg(feature = "mlir")]
thread_local! {
    /// This thread's MLIR context, made on its first compile and reused for the next
    /// (`melior::Context` is neither `Send` nor `Sync`: one per worker thread).
    ///
    /// Never destroyed: the compile pool's threads exit on their own after the pool is
    /// dropped, possibly while the process exits, and destroying a context then would
    /// race LLVM's static destructors. The memory goes back with the process.
    static CONTEXT: std::mem::ManuallyDrop<melior::Context> =
        std::mem::ManuallyDrop::new(new_context());
}

/// Contexts are created one at a time: creation reaches into MLIR's process-wide
/// registries (the passes, registered by the first), which are not made for concurrent
/// writers.
#[cfg(feature = "mlir")]
static CONTEXT_CREATION: std::sync::Mutex<()> = std::sync::Mutex::new(());

#[cfg(feature = "mlir")]
fn new_context() -> melior::Context {
    let _only_one = CONTEXT_CREATION
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    tritonc_codegen::codegen_context()
}

/// Runs `f` with this thread's MLIR context.
#[cfg(feature = "mlir")]
fn with_context<R>(f: impl FnOnce(&melior::Context) -> R) -> R {
    CONTEXT.with(|context| f(context))
}

/// How long ptxas runs before tritonc says that it is still running.
const SLOW_PTXAS: std::time::Duration = std::time::Duration::from_secs(30);

/// `ptxas` that says on stderr, once per run past [`SLOW_PTXAS`] (or a quarter of a
/// shorter time bound), that it is still running and what bounds it: a long assembly (a
/// very large block) is not silent.
fn with_slow_note(ptxas: Ptxas) -> Ptxas {
    let bound = ptxas.bounds().time_text();
    let after = ptxas
        .bounds()
        .time
        .map_or(SLOW_PTXAS, |t| (t / 4).min(SLOW_PTXAS));
    ptxas.with_notice(after, move |what, elapsed| {
        // A closed stderr is no reason to stop the compile.
        let _ = writeln!(
            std::io::stderr(),
            "note: `{what}` is still running after {:.1} s (its time bound: {bound}, \
             TRITONC_PTXAS_TIMEOUT)",
            elapsed.as_secs_f64()
        );
    })
}

/// Runs `ptxas -arch=ARCH -v` on `ptx` through the one ptxas driver
/// (`tritonc_toolchain::Ptxas`: a scratch directory of its own, the time and memory
/// bounds, killed on shutdown); returns the cubin and the `-v` report.
///
/// The report drops ptxas's timing line, so it is the same on every run. A ptxas that
/// cannot be run or a scratch directory that cannot be made is
/// [`BackendError::Environment`]; a bound hit is [`BackendError::Bound`]; PTX that
/// ptxas rejects, a crash or a missing cubin is [`BackendError::Internal`].
pub fn assemble(
    ptxas: &Ptxas,
    ptx: &str,
    arch: &str,
) -> Result<(Vec<u8>, PtxasReport), BackendError> {
    use tritonc_toolchain::PtxasError;
    let assembled = ptxas.assemble(ptx, arch).map_err(|e| match e {
        PtxasError::Spawn { ref source, .. } => {
            let code = if source.kind() == std::io::ErrorKind::NotFound {
                codes::PATH_NOT_FOUND
            } else {
                codes::UNREADABLE_FILE
            };
            BackendError::Environment(Diagnostic::error(code, e.to_string()).with_help(
                "point TRITONC_PTXAS at ptxas, or unset it to search beside tritonc, \
                 $CUDA_HOME/bin, PATH and /usr/local/cuda/bin",
            ))
        }
        PtxasError::Scratch { .. } => {
            BackendError::Environment(Diagnostic::error(codes::CANNOT_WRITE_OUTPUT, e.to_string()))
        }
        PtxasError::TimedOut { .. } | PtxasError::OutOfMemory { .. } => BackendError::Bound(
            Diagnostic::error(codes::PTXAS_BOUND, e.to_string()).with_help(
                "a kernel this large is usually a block size larger than meant; \
                 `tritonc rule E0515` explains the bounds",
            ),
        ),
        PtxasError::Interrupted => BackendError::Interrupted,
        PtxasError::Failed { log, .. } => BackendError::Internal(format!(
            "ptxas rejected the generated PTX for {arch}:\n{log}"
        )),
        PtxasError::Crashed { .. } | PtxasError::NoCubin { .. } => {
            BackendError::Internal(e.to_string())
        }
    })?;
    let report = PtxasReport::parse(&reproducible_log(&assembled.log));
    Ok((assembled.cubin, report))
}

/// ptxas's report without its timing line (`Compile time = 3.1 ms`), which would make
/// two compiles of the same kernel write different bundles.
fn reproducible_log(log: &str) -> String {
    log.lines()
        .filter(|line| !line.contains(": Compile time = "))
        .flat_map(|line| [line, "\n"])
        .collect()
}

/// One line about a bundle: where it went and what ptxas reported.
pub fn describe(bundle: &Bundle) -> String {
    let mut s = format!("{} ({}", bundle.meta.key, bundle.meta.target);
    match &bundle.meta.ptxas {
        Some(r) => s.push_str(&format!(
            ", {} registers, {} bytes spill stores, {} bytes spill loads, {} bytes smem",
            r.registers, r.spill_stores, r.spill_loads, r.shared_bytes
        )),
        None if bundle.meta.format_version == tritonc_bundle::AMD_FORMAT_VERSION => {
            s.push_str(&format!(
                ", code object of {} bytes",
                bundle.cubin.as_ref().map_or(0, Vec::len)
            ))
        }
        None => s.push_str(", PTX only"),
    }
    s.push(')');
    s
}
