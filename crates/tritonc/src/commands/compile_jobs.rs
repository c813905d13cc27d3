//! The compile jobs of one `tritonc compile`: every variant of every kernel, compiled on
//! a pool of `-j N` threads through the cache, with results in job order.

use rayon::prelude::*;
use tritonc_diagnostics::{Diagnostic, SourceMap};
use tritonc_sema::Specialization;

use crate::backend::{self, Backend, BackendError, BackendOptions, CacheUse, Compiled};
use crate::cache::{self, KernelCache};
use crate::cli::CompileArgs;
use crate::codes;

/// One variant to compile: the kernel lowered for it and what its bundle needs.
pub(crate) struct Job {
    /// The kernel lowered for `spec`.
    pub func: tritonc_ir::Function,
    /// The specialization.
    pub spec: Specialization,
    /// The kernel's `tl.constexpr` parameters.
    pub constexprs: Vec<String>,
}

/// Stack size of a compile worker: the main thread's usual 8 MiB, since LLVM's passes
/// recurse over the IR.
const WORKER_STACK_BYTES: usize = 8 << 20;

/// The back end of `compile`, with the cache unless `--no-cache`.
pub(crate) fn backend_for(args: &CompileArgs, options: BackendOptions) -> Backend {
    let cache = if args.no_cache {
        None
    } else {
        cache::default_dir().map(KernelCache::new)
    };
    Backend::new(options, cache)
}

/// `-j N`, else one thread per core.
pub(crate) fn thread_count(args: &CompileArgs) -> usize {
    args.jobs.map_or_else(
        || std::thread::available_parallelism().map_or(1, std::num::NonZeroUsize::get),
        |n| n as usize,
    )
}

/// Compiles `jobs` on up to `threads` threads (each with its own MLIR context, reused
/// across its jobs); the results come back in the order of `jobs`, whatever the
/// scheduling, so everything printed afterwards is deterministic.
pub(crate) fn compile_jobs(
    backend: &Backend,
    sources: &SourceMap,
    jobs: &[Job],
    threads: usize,
) -> Vec<Result<Compiled, BackendError>> {
    let compile = |job: &Job| {
        let constexprs: Vec<&str> = job.constexprs.iter().map(String::as_str).collect();
        backend.compile(&job.func, sources, &job.spec, &constexprs)
    };
    let threads = threads.min(jobs.len());
    if threads <= 1 {
        return jobs.iter().map(compile).collect();
    }
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .stack_size(WORKER_STACK_BYTES)
        .thread_name(|i| format!("tritonc-compile-{i}"))
        .build();
    match pool {
        Ok(pool) => {
            // Every worker makes its context before any compiles (see prepare_thread).
            pool.broadcast(|_| backend::prepare_thread());
            pool.install(|| jobs.par_iter().map(compile).collect())
        }
        Err(_) => jobs.iter().map(compile).collect(),
    }
}

/// A warning for a cache that could not be written (once per run).
pub(crate) fn unwritable_cache_warning(
    results: &[Result<Compiled, BackendError>],
) -> Option<Diagnostic> {
    results.iter().find_map(|r| match r {
        Ok(Compiled {
            cache: CacheUse::NotStored(why),
            ..
        }) => Some(
            Diagnostic::warning(
                codes::CANNOT_WRITE_OUTPUT,
                format!("the compile cache is not written: {why}"),
            )
            .with_help("set TRITONC_CACHE_DIR to a writable directory, or pass `--no-cache`"),
        ),
        _ => None,
    })
}
