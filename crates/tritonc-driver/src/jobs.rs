//! The compile jobs of one compile: every variant of every kernel, compiled on a pool of
//! `-j N` threads through the cache, with results in job order.

use rayon::prelude::*;
use tritonc_diagnostics::{Diagnostic, SourceMap};
use tritonc_sema::Specialization;

use crate::backend::{Backend, BackendError, BackendOptions, CacheUse, Compiled};
use crate::cache::{self, KernelCache};
use crate::codes;

/// One variant to compile: the kernel lowered for it, the files its locations point
/// into, and what its bundle needs.
pub struct Job<'s> {
    /// The files of the kernel's locations.
    pub sources: &'s SourceMap,
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

/// A pool of one thread per core whose stacks are large enough to parse on
/// ([`tritonc_syntax::PARSE_STACK_BYTES`]): work run in it (`pool.install`) parses each
/// file on the worker itself instead of on a thread spawned per file. `None` when the
/// threads cannot be made; callers then run without it.
pub fn parse_pool() -> Option<rayon::ThreadPool> {
    rayon::ThreadPoolBuilder::new()
        .stack_size(tritonc_syntax::PARSE_STACK_BYTES)
        .thread_name(|i| format!("tritonc-check-{i}"))
        .start_handler(|_| tritonc_syntax::mark_parse_stack_thread())
        .build()
        .ok()
}

/// The back end for `options`, with the default cache directory (`TRITONC_CACHE_DIR`,
/// else the user's cache directory) unless `no_cache`.
pub fn backend_for(no_cache: bool, options: BackendOptions) -> Backend {
    let cache = if no_cache {
        None
    } else {
        cache::default_dir().map(KernelCache::new)
    };
    Backend::new(options, cache)
}

/// The threads of one `compile` (`-j N`, else one per core); with one, everything runs
/// on the calling thread.
pub struct Workers {
    pool: Option<rayon::ThreadPool>,
}

impl Workers {
    /// `jobs` threads (`-j N`), else one per core.
    pub fn new(jobs: Option<u32>) -> Workers {
        let threads = jobs.map_or_else(
            || std::thread::available_parallelism().map_or(1, std::num::NonZeroUsize::get),
            |n| n as usize,
        );
        let pool = (threads > 1)
            .then(|| {
                rayon::ThreadPoolBuilder::new()
                    .num_threads(threads)
                    .stack_size(WORKER_STACK_BYTES)
                    .thread_name(|i| format!("tritonc-compile-{i}"))
                    .build()
                    .ok()
            })
            .flatten();
        Workers { pool }
    }

    /// `f` of every item, computed on the workers, in the order of `items` whatever the
    /// scheduling, so that everything printed from the results is deterministic.
    pub fn map<T: Sync, R: Send>(&self, items: &[T], f: impl Fn(&T) -> R + Sync + Send) -> Vec<R> {
        match &self.pool {
            Some(pool) if items.len() > 1 => pool.install(|| items.par_iter().map(f).collect()),
            _ => items.iter().map(f).collect(),
        }
    }

    /// Compiles `jobs` (each worker thread with its own MLIR context, made on its first
    /// job and reused for the next); results in the order of `jobs`.
    pub fn compile(
        &self,
        backend: &Backend,
        jobs: &[Job<'_>],
    ) -> Vec<Result<Compiled, BackendError>> {
        self.map(jobs, |job| {
            let constexprs: Vec<&str> = job.constexprs.iter().map(String::as_str).collect();
            backend.compile(&job.func, job.sources, &job.spec, &constexprs)
        })
    }
}

/// A warning for a cache that could not be written (once per run).
pub fn unwritable_cache_warning(results: &[Result<Compiled, BackendError>]) -> Option<Diagnostic> {
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
