//! C source for NVIDIA bundles: a header and a source file that embed each variant's
//! cubin and PTX and define one launch function per variant (`tritonc compile --emit c`;
//! docs/c.md).
//!
//! The generated code calls the CUDA driver API through `libcuda.so.1`, opened with
//! `dlopen` on the first launch, so it compiles without CUDA's headers and links without
//! `-lcuda`; a machine without a driver or a GPU gets a status code and a message, never
//! a crash. A launch function takes the variant's passed parameters, named and typed from
//! its signature (constexprs and `==1` integers are folded into the code and do not
//! appear), then checks the assumptions the variant was compiled under (`:16` pointers
//! and integers) before anything reaches the driver.

use std::fmt::Write as _;

use tritonc_ir::DType;

mod tuned;

use crate::meta::{parse_sm, HiddenParamKind, ParamRole, PtxParamKind};
use crate::{driver_version_name, Bundle};

/// The two files `--emit c` writes for one module.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CSources {
    /// The header's file name (`MODULE.h`), which the source includes.
    pub header_name: String,
    /// The header: types, status codes and one prototype per variant.
    pub header: String,
    /// The source file's name (`MODULE.c`).
    pub source_name: String,
    /// The source: the embedded binaries, the driver loader and the launch functions.
    pub source: String,
    /// What the generator left out and why (a tuning table it could not use), for the
    /// command to print.
    pub notes: Vec<String>,
}

/// Why C could not be generated.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("cannot generate C for `{variant}`: {reason}")]
pub struct CSourceError {
    /// The variant (its specialization key).
    pub variant: String,
    /// What is not supported.
    pub reason: String,
}

/// The launch function's name for a bundle: `KERNEL_HASH8`, where HASH8 is the first
/// eight digits of the bundle's key hash (`add_kernel_1aaae5f9`).
pub fn c_function_name(bundle: &Bundle) -> String {
    let hash: String = bundle.meta.key_hash.chars().take(8).collect();
    format!("{}_{hash}", c_identifier(&bundle.meta.key.kernel))
}

/// C for `bundles` (NVIDIA bundles, any number of kernels and variants) as module
/// `module`: `module` names the files and prefixes the module's own functions
/// (`MODULE_last_error`).
pub fn c_sources(module: &str, bundles: &[Bundle]) -> Result<CSources, CSourceError> {
    c_sources_tuned(module, bundles, &[])
}

/// [`c_sources`], plus tuned dispatch (docs/c.md, "Tuned kernels") for each autotuned
/// kernel that `tables` (`tritonc tune`'s tuning tables, any device models) cover:
/// `KERNEL_tuned_config(key…)` and `KERNEL_launch_config(config, grid, stream, …)`.
pub fn c_sources_tuned(
    module: &str,
    bundles: &[Bundle],
    tables: &[crate::tuned::TuneTable],
) -> Result<CSources, CSourceError> {
    let m = c_identifier(module);
    let mut variants = Vec::new();
    for (i, b) in bundles.iter().enumerate() {
        variants.push(Variant::of(b, i)?);
    }
    let mut names: Vec<&str> = variants.iter().map(|v| v.function.as_str()).collect();
    names.sort_unstable();
    if let Some(w) = names.windows(2).find(|w| w[0] == w[1]) {
        return Err(CSourceError {
            variant: w[0].to_string(),
            reason: "two variants have the same launch function name".into(),
        });
    }
    let mut notes = Vec::new();
    let mut plans = Vec::new();
    for (kernel, order) in dispatchers(&variants) {
        if let Some(p) = tuned::plan(&kernel, &order, &variants, bundles, tables, &mut notes) {
            plans.push((p, order[0]));
        }
    }
    for t in tables {
        let covered = bundles.iter().any(|b| b.meta.key.kernel == t.kernel);
        if !covered {
            notes.push(format!(
                "the tuning table of `{}` ({}) matches no kernel compiled here",
                t.kernel, t.device
            ));
        }
    }
    let mut header = header(&m, &variants);
    let mut source = source(&m, module, bundles, &variants);
    if !plans.is_empty() {
        let end = header.rfind("#ifdef __cplusplus").unwrap_or(header.len());
        let decls: String = plans.iter().map(|(p, first)| p.header(&m, &variants[*first])).collect();
        header.insert_str(end, &decls);
        source.push_str(&tuned::LOG2.replace("MODULE", &m));
        for (p, _) in &plans {
            source.push_str(&p.source(&m, &variants));
        }
    }
    Ok(CSources {
        header_name: format!("{module}.h"),
        header,
        source_name: format!("{module}.c"),
        source,
        notes,
    })
}

/// One variant's launch function.
struct Variant {
    function: String,
    /// `(C type, C name, what it is)` for each parameter, in `.entry` order.
    params: Vec<(&'static str, String, String)>,
    /// The assumptions the variant was compiled under, checked before a launch.
    checks: Vec<Check>,
    kernel: String,
    /// Folded parameters, for the comment.
    folded: Vec<String>,
    key: String,
    index: usize,
    sm: (u32, u32, bool),
    threads: u32,
    dynamic_shared: u32,
    min_driver: Option<u32>,
}

impl Variant {
    fn of(b: &Bundle, index: usize) -> Result<Variant, CSourceError> {
        let m = &b.meta;
        let err = |reason: String| CSourceError {
            variant: m.key.to_string(),
            reason,
        };
        // The capability the code needs (`sm_90a` for an `sm_90` bundle), see
        // `Bundle::code_capability`.
        let sm = parse_sm(&m.target).and(b.code_capability()).ok_or_else(|| {
            err(format!(
                "target `{}` is not an NVIDIA architecture",
                m.target
            ))
        })?;
        if b.ptx.is_empty() {
            return Err(err("the bundle carries no PTX".into()));
        }
        if !m.num_warps.is_power_of_two() || m.num_warps > 32 {
            return Err(err(format!(
                "num_warps {} is not a power of two up to 32",
                m.num_warps
            )));
        }
        let function = c_function_name(b);
        let mut params = Vec::new();
        let mut checks = Vec::new();
        let mut folded = Vec::new();
        let mut passed: Vec<(u32, &'static str, String, String)> = Vec::new();
        let mut used = vec![
            "grid".to_string(),
            "stream".to_string(),
            "params".to_string(),
        ];
        for (pos, p) in m.params.iter().enumerate() {
            match &p.role {
                ParamRole::Constexpr(v) => folded.push(format!("{} = {v}", p.name)),
                ParamRole::EqualToOne => folded.push(format!("{} = 1 (==1)", p.name)),
                ParamRole::Passed { index, kind } => {
                    let mut name = c_identifier(&p.name);
                    if used.contains(&name) || name.starts_with("tritonc_") {
                        name = format!("arg{pos}_{name}");
                    }
                    used.push(name.clone());
                    let (ty, what) = match kind {
                        PtxParamKind::Pointer { pointee, align } => {
                            if *align > 1 {
                                checks.push(Check {
                                    violated: format!("{name} % {align}u != 0"),
                                    message: format!(
                                        "`{}` was specialized as {align}-byte aligned (:{align}), but its address 0x%llx is not a multiple of {align}",
                                        c_string_text(&p.name)
                                    ),
                                    value: name.clone(),
                                });
                            }
                            let what = format!(
                                "device address of {}{}",
                                dtype_name(*pointee),
                                if *align > 1 {
                                    format!(", {align}-byte aligned")
                                } else {
                                    String::new()
                                }
                            );
                            ("unsigned long long", what)
                        }
                        PtxParamKind::Scalar {
                            dtype,
                            divisibility,
                        } => {
                            let ty = c_scalar_type(*dtype)
                                .ok_or_else(|| err(format!("`{}` has dtype {dtype}", p.name)))?;
                            if let Some(d) = divisibility.filter(|d| *d > 1) {
                                let cast = if ty.starts_with('u') {
                                    "unsigned long long"
                                } else {
                                    "long long"
                                };
                                let fmt = if ty.starts_with('u') { "%llu" } else { "%lld" };
                                checks.push(Check {
                                    violated: format!("({cast}){name} % {d} != 0"),
                                    message: format!(
                                        "`{}` was specialized as divisible by {d} (:{d}), but it is {fmt}",
                                        c_string_text(&p.name)
                                    ),
                                    value: format!("({cast}){name}"),
                                });
                            }
                            if *dtype == DType::I1 {
                                checks.push(Check {
                                    violated: format!("{name} > 1"),
                                    message: format!(
                                        "`{}` is a boolean (i1): pass 0 or 1, not %u",
                                        c_string_text(&p.name)
                                    ),
                                    value: format!("(unsigned){name}"),
                                });
                            }
                            let what = match dtype {
                                DType::F16 | DType::BF16 => {
                                    format!("{}, as its bits", dtype_name(*dtype))
                                }
                                DType::F8E4M3FN
                                | DType::F8E5M2
                                | DType::F8E4M3FNUZ
                                | DType::F8E5M2FNUZ
                                | DType::F8E4M3B11FNUZ => {
                                    format!("{}, as its bits", dtype_name(*dtype))
                                }
                                _ => match divisibility.filter(|d| *d > 1) {
                                    Some(d) => format!("{}, divisible by {d}", dtype_name(*dtype)),
                                    None => dtype_name(*dtype),
                                },
                            };
                            (ty, what)
                        }
                    };
                    passed.push((*index, ty, name, what));
                }
            }
        }
        for h in &m.hidden_params {
            match h.kind {
                HiddenParamKind::GlobalScratch {
                    bytes_per_program: 0,
                    ..
                } => passed.push((
                    h.index,
                    "unsigned long long",
                    format!("tritonc_hidden{}", h.index),
                    String::new(),
                )),
                HiddenParamKind::GlobalScratch { .. } => return Err(err(
                    "the kernel needs a global scratch area, which generated C does not allocate"
                        .into(),
                )),
            }
        }
        passed.sort_by_key(|(i, ..)| *i);
        for (pos, (i, ..)) in passed.iter().enumerate() {
            if *i as usize != pos {
                return Err(err(format!("parameter index {i} at position {pos}")));
            }
        }
        for (_, ty, name, what) in passed {
            params.push((ty, name, what));
        }
        Ok(Variant {
            function,
            params,
            checks,
            kernel: c_identifier(&m.key.kernel),
            folded,
            key: m.key.to_string(),
            index,
            sm,
            threads: 32 * m.num_warps,
            dynamic_shared: m.dynamic_shared_bytes,
            min_driver: b.min_driver_version(),
        })
    }

    /// `tritonc_status NAME(tritonc_grid grid, void *stream, …)`.
    fn prototype(&self) -> String {
        self.prototype_named(&self.function)
    }

    /// The prototype under another name.
    fn prototype_named(&self, function: &str) -> String {
        let mut s = format!("tritonc_status {function}(tritonc_grid grid, void *stream");
        for (ty, name, _) in &self.params {
            if name.starts_with("tritonc_hidden") {
                continue;
            }
            let _ = write!(s, ", {ty} {name}");
        }
        s.push(')');
        s
    }
}

const COMMON_TYPES: &str = r#"#ifndef TRITONC_AOT_COMMON
#define TRITONC_AOT_COMMON
/* Programs along each axis of the launch grid (CUDA's grid of blocks). */
typedef struct tritonc_grid {
    unsigned int x, y, z;
} tritonc_grid;

/* What a launch function returns; the module's MODULE_last_error() says why it
   failed. */
typedef enum tritonc_status {
    TRITONC_SUCCESS = 0,
    /* An argument breaks an assumption the variant was compiled under (a `:16`
       pointer's alignment, a `:16` integer's divisibility) or the grid is too large.
       Nothing was launched. */
    TRITONC_INVALID_ARGUMENT = 1,
    /* libcuda.so.1 could not be loaded: no NVIDIA driver on this machine. */
    TRITONC_NO_DRIVER = 2,
    /* The driver is older than the code needs (or lacks an entry point). */
    TRITONC_DRIVER_TOO_OLD = 3,
    /* The driver found no CUDA device. */
    TRITONC_NO_DEVICE = 4,
    /* Neither the cubin nor the PTX runs on the current device. */
    TRITONC_NO_CODE_FOR_DEVICE = 5,
    /* A driver call failed (the message names it and its error). */
    TRITONC_CUDA_ERROR = 6
} tritonc_status;
#endif
"#;

fn header(m: &str, variants: &[Variant]) -> String {
    let guard = format!("TRITONC_{}_H", m.to_ascii_uppercase());
    let mut s = String::new();
    let _ = writeln!(
        s,
        "/* Generated by tritonc from compiled kernels; do not edit. */\n\
         #ifndef {guard}\n#define {guard}\n\n#include <stddef.h>\n#include <stdint.h>\n\n\
         #ifdef __cplusplus\nextern \"C\" {{\n#endif\n"
    );
    s.push_str(COMMON_TYPES);
    let _ = writeln!(
        s,
        "\n/* Why the last function of this module called on this thread failed\n   \
         (empty after a success). */\nconst char *{m}_last_error(void);\n\n\
         /* Device memory in the calling thread's current context (none: device 0's\n   \
         primary context), for programs that manage none of their own; a launch takes\n   \
         any device address, from cudaMalloc, cuMemAlloc or a framework's allocator. */\n\
         tritonc_status {m}_malloc(unsigned long long *ptr, size_t bytes);\n\
         tritonc_status {m}_free(unsigned long long ptr);\n\
         tritonc_status {m}_copy_to_device(unsigned long long dst, const void *src, size_t bytes);\n\
         tritonc_status {m}_copy_to_host(void *dst, unsigned long long src, size_t bytes);\n\
         /* Waits for the context's work (cuCtxSynchronize). */\n\
         tritonc_status {m}_synchronize(void);\n"
    );
    for v in variants {
        let _ = writeln!(s, "/* {}", v.key);
        let (major, minor, specific) = v.sm;
        let _ = writeln!(
            s,
            " * Compiled for sm_{major}{minor}{}; {} threads per program.",
            if specific { "a" } else { "" },
            v.threads
        );
        if let Some(d) = v.min_driver {
            let _ = writeln!(
                s,
                " * Its PTX needs a CUDA {} driver or newer to be compiled at load.",
                driver_version_name(d)
            );
        }
        if !v.folded.is_empty() {
            let _ = writeln!(s, " * Folded into the code: {}.", v.folded.join(", "));
        }
        for (_, name, what) in &v.params {
            if !what.is_empty() {
                let _ = writeln!(s, " *   {name}: {what}");
            }
        }
        let _ = writeln!(
            s,
            " * `stream` is a CUstream / cudaStream_t (NULL: the default stream); the\n \
             * launch runs in the calling thread's current context (none: device 0's\n \
             * primary context, made current). */\n{};\n",
            v.prototype()
        );
    }
    for (kernel, order) in dispatchers(variants) {
        let first = &variants[order[0]];
        let names: Vec<&str> = order
            .iter()
            .map(|&i| variants[i].function.as_str())
            .collect();
        let _ = writeln!(
            s,
            "/* `{kernel}`: launches the most specialized of {} whose assumptions the\n \
             * arguments meet; when none does, fails as {} does. */\n{};\n",
            names.join(", "),
            names[names.len() - 1],
            first.prototype_named(&kernel)
        );
    }
    let _ = writeln!(s, "#ifdef __cplusplus\n}}\n#endif\n\n#endif /* {guard} */");
    s
}

/// The kernels that get a dispatching function: those whose variants all take the same
/// parameters. Each with its variants, most assumptions first (ties in input order).
fn dispatchers(variants: &[Variant]) -> Vec<(String, Vec<usize>)> {
    let mut kernels: Vec<String> = variants.iter().map(|v| v.kernel.clone()).collect();
    kernels.dedup();
    kernels.sort();
    kernels.dedup();
    let mut out = Vec::new();
    for kernel in kernels {
        let mut order: Vec<usize> = (0..variants.len())
            .filter(|&i| variants[i].kernel == kernel)
            .collect();
        let signature = |v: &Variant| -> Vec<(&str, String)> {
            v.params.iter().map(|(t, n, _)| (*t, n.clone())).collect()
        };
        let same = order
            .iter()
            .all(|&i| signature(&variants[i]) == signature(&variants[order[0]]));
        let clash = variants.iter().any(|v| v.function == kernel);
        if !same || clash {
            continue;
        }
        order.sort_by_key(|&i| std::cmp::Reverse(variants[i].checks.len()));
        out.push((kernel, order));
    }
    out
}

/// The driver loader and the launch path shared by every variant of the module. `MODULE`
/// is replaced by the module's identifier.
const RUNTIME: &str = r#"
/* The CUDA driver API, declared here so that no CUDA header is needed. */
typedef int tritonc_cu_result;
typedef int tritonc_cu_device;
typedef void *tritonc_cu_context;
typedef void *tritonc_cu_module;
typedef void *tritonc_cu_function;

#define TRITONC_CUDA_SUCCESS 0
#define TRITONC_CUDA_ERROR_NO_DEVICE 100
#define TRITONC_CUDA_ERROR_INSUFFICIENT_DRIVER 35
#define TRITONC_ATTR_CC_MAJOR 75
#define TRITONC_ATTR_CC_MINOR 76
#define TRITONC_FUNC_ATTR_MAX_DYNAMIC_SHARED 8
#define TRITONC_CONTEXT_SLOTS 8

static struct {
    tritonc_cu_result (*cuInit)(unsigned int);
    tritonc_cu_result (*cuDriverGetVersion)(int *);
    tritonc_cu_result (*cuGetErrorName)(tritonc_cu_result, const char **);
    tritonc_cu_result (*cuDeviceGetCount)(int *);
    tritonc_cu_result (*cuDeviceGet)(tritonc_cu_device *, int);
    tritonc_cu_result (*cuDeviceGetAttribute)(int *, int, tritonc_cu_device);
    tritonc_cu_result (*cuDevicePrimaryCtxRetain)(tritonc_cu_context *, tritonc_cu_device);
    tritonc_cu_result (*cuCtxGetCurrent)(tritonc_cu_context *);
    tritonc_cu_result (*cuCtxSetCurrent)(tritonc_cu_context);
    tritonc_cu_result (*cuCtxGetDevice)(tritonc_cu_device *);
    tritonc_cu_result (*cuModuleLoadData)(tritonc_cu_module *, const void *);
    tritonc_cu_result (*cuModuleGetFunction)(tritonc_cu_function *, tritonc_cu_module, const char *);
    tritonc_cu_result (*cuFuncSetAttribute)(tritonc_cu_function, int, int);
    tritonc_cu_result (*cuLaunchKernel)(tritonc_cu_function, unsigned int, unsigned int,
                                        unsigned int, unsigned int, unsigned int, unsigned int,
                                        unsigned int, void *, void **, void **);
    tritonc_cu_result (*cuMemAlloc_v2)(unsigned long long *, size_t);
    tritonc_cu_result (*cuMemFree_v2)(unsigned long long);
    tritonc_cu_result (*cuMemcpyHtoD_v2)(unsigned long long, const void *, size_t);
    tritonc_cu_result (*cuMemcpyDtoH_v2)(void *, unsigned long long, size_t);
    tritonc_cu_result (*cuCtxSynchronize)(void);
    tritonc_cu_result (*cuDeviceGetName)(char *, int, tritonc_cu_device);
    int version;
} tritonc_cu_MODULE;

static pthread_once_t tritonc_cu_once_MODULE = PTHREAD_ONCE_INIT;
static tritonc_status tritonc_cu_status_MODULE = TRITONC_SUCCESS;
static char tritonc_cu_error_MODULE[512];
static _Thread_local char tritonc_error_MODULE[1024];

const char *MODULE_last_error(void) { return tritonc_error_MODULE; }

static tritonc_status tritonc_fail_MODULE(tritonc_status status, const char *format, ...) {
    va_list args;
    va_start(args, format);
    vsnprintf(tritonc_error_MODULE, sizeof tritonc_error_MODULE, format, args);
    va_end(args);
    return status;
}

static const char *tritonc_cu_name_MODULE(tritonc_cu_result r) {
    const char *name = NULL;
    if (tritonc_cu_MODULE.cuGetErrorName == NULL || tritonc_cu_MODULE.cuGetErrorName(r, &name) != 0 || name == NULL)
        return "an unknown CUDA error";
    return name;
}

static void tritonc_cu_load_MODULE(void) {
    void *lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
    tritonc_cu_result r;
    if (lib == NULL) {
        const char *why = dlerror();
        tritonc_cu_status_MODULE = TRITONC_NO_DRIVER;
        snprintf(tritonc_cu_error_MODULE, sizeof tritonc_cu_error_MODULE,
                 "no NVIDIA driver: libcuda.so.1 could not be loaded (%s)", why ? why : "not found");
        return;
    }
#define TRITONC_SYMBOL(name)                                                              \
    do {                                                                                  \
        *(void **)&tritonc_cu_MODULE.name = dlsym(lib, #name);                            \
        if (tritonc_cu_MODULE.name == NULL) {                                             \
            tritonc_cu_status_MODULE = TRITONC_DRIVER_TOO_OLD;                            \
            snprintf(tritonc_cu_error_MODULE, sizeof tritonc_cu_error_MODULE,             \
                     "the NVIDIA driver has no `%s`: it is too old", #name);              \
            return;                                                                       \
        }                                                                                 \
    } while (0)
    TRITONC_SYMBOL(cuInit);
    TRITONC_SYMBOL(cuDriverGetVersion);
    TRITONC_SYMBOL(cuGetErrorName);
    TRITONC_SYMBOL(cuDeviceGetCount);
    TRITONC_SYMBOL(cuDeviceGet);
    TRITONC_SYMBOL(cuDeviceGetAttribute);
    TRITONC_SYMBOL(cuDevicePrimaryCtxRetain);
    TRITONC_SYMBOL(cuCtxGetCurrent);
    TRITONC_SYMBOL(cuCtxSetCurrent);
    TRITONC_SYMBOL(cuCtxGetDevice);
    TRITONC_SYMBOL(cuModuleLoadData);
    TRITONC_SYMBOL(cuModuleGetFunction);
    TRITONC_SYMBOL(cuFuncSetAttribute);
    TRITONC_SYMBOL(cuLaunchKernel);
    TRITONC_SYMBOL(cuMemAlloc_v2);
    TRITONC_SYMBOL(cuMemFree_v2);
    TRITONC_SYMBOL(cuMemcpyHtoD_v2);
    TRITONC_SYMBOL(cuMemcpyDtoH_v2);
    TRITONC_SYMBOL(cuCtxSynchronize);
    TRITONC_SYMBOL(cuDeviceGetName);
#undef TRITONC_SYMBOL
    r = tritonc_cu_MODULE.cuInit(0);
    if (r != TRITONC_CUDA_SUCCESS) {
        tritonc_cu_status_MODULE = r == TRITONC_CUDA_ERROR_NO_DEVICE ? TRITONC_NO_DEVICE
                                 : r == TRITONC_CUDA_ERROR_INSUFFICIENT_DRIVER ? TRITONC_DRIVER_TOO_OLD
                                 : TRITONC_CUDA_ERROR;
        snprintf(tritonc_cu_error_MODULE, sizeof tritonc_cu_error_MODULE,
                 r == TRITONC_CUDA_ERROR_NO_DEVICE ? "no CUDA device: cuInit failed with %s"
                                                   : "cuInit failed with %s",
                 tritonc_cu_name_MODULE(r));
        return;
    }
    r = tritonc_cu_MODULE.cuDriverGetVersion(&tritonc_cu_MODULE.version);
    if (r != TRITONC_CUDA_SUCCESS) {
        tritonc_cu_status_MODULE = TRITONC_CUDA_ERROR;
        snprintf(tritonc_cu_error_MODULE, sizeof tritonc_cu_error_MODULE,
                 "cuDriverGetVersion failed with %s", tritonc_cu_name_MODULE(r));
    }
}

/* A compiled variant: its code and, per context it was loaded in, its function. */
struct tritonc_variant_MODULE {
    const char *name;
    const char *entry;
    const unsigned char *cubin;
    size_t cubin_size;
    const unsigned char *ptx;
    int sm_major, sm_minor, arch_specific;
    unsigned int threads, dynamic_shared;
    int min_driver;
    pthread_mutex_t lock;
    unsigned int loaded;
    tritonc_cu_context contexts[TRITONC_CONTEXT_SLOTS];
    tritonc_cu_function functions[TRITONC_CONTEXT_SLOTS];
};

#define TRITONC_CALL(call)                                                                     \
    do {                                                                                       \
        tritonc_cu_result r_ = (call);                                                         \
        if (r_ != TRITONC_CUDA_SUCCESS)                                                        \
            return tritonc_fail_MODULE(TRITONC_CUDA_ERROR, "%s: %s failed with %s", v->name,   \
                                       #call, tritonc_cu_name_MODULE(r_));                     \
    } while (0)

/* Loads the variant in context `ctx` on `device` (called with v->lock held). */
static tritonc_status tritonc_load_MODULE(struct tritonc_variant_MODULE *v, tritonc_cu_context ctx,
                                          tritonc_cu_device device, tritonc_cu_function *out) {
    int major = 0, minor = 0, cubin_fits, ptx_fits;
    tritonc_cu_module module = NULL;
    tritonc_cu_result cubin_result = TRITONC_CUDA_SUCCESS;
    if (v->loaded == TRITONC_CONTEXT_SLOTS)
        return tritonc_fail_MODULE(TRITONC_CUDA_ERROR, "%s: loaded in %d contexts already",
                                   v->name, TRITONC_CONTEXT_SLOTS);
    TRITONC_CALL(tritonc_cu_MODULE.cuDeviceGetAttribute(&major, TRITONC_ATTR_CC_MAJOR, device));
    TRITONC_CALL(tritonc_cu_MODULE.cuDeviceGetAttribute(&minor, TRITONC_ATTR_CC_MINOR, device));
    /* A cubin runs on its major architecture at an equal or newer minor; PTX on any
       equal or newer device; code for an `a` target only on exactly that device. */
    cubin_fits = v->cubin != NULL && major == v->sm_major &&
                 (v->arch_specific ? minor == v->sm_minor : minor >= v->sm_minor);
    ptx_fits = v->arch_specific ? (major == v->sm_major && minor == v->sm_minor)
                                : major * 10 + minor >= v->sm_major * 10 + v->sm_minor;
    if (cubin_fits) {
        cubin_result = tritonc_cu_MODULE.cuModuleLoadData(&module, v->cubin);
        if (cubin_result != TRITONC_CUDA_SUCCESS)
            module = NULL;
    }
    if (module == NULL) {
        tritonc_cu_result r;
        if (!ptx_fits)
            return tritonc_fail_MODULE(TRITONC_NO_CODE_FOR_DEVICE,
                                       "%s: compiled for sm_%d%d%s, but the device is sm_%d%d",
                                       v->name, v->sm_major, v->sm_minor,
                                       v->arch_specific ? "a" : "", major, minor);
        if (v->min_driver > 0 && tritonc_cu_MODULE.version < v->min_driver)
            return tritonc_fail_MODULE(
                TRITONC_DRIVER_TOO_OLD,
                "%s: the PTX needs a CUDA %d.%d driver or newer, but this driver supports CUDA "
                "%d.%d%s%s",
                v->name, v->min_driver / 1000, v->min_driver % 1000 / 10,
                tritonc_cu_MODULE.version / 1000, tritonc_cu_MODULE.version % 1000 / 10,
                cubin_result != TRITONC_CUDA_SUCCESS ? "; the cubin failed to load with " : "",
                cubin_result != TRITONC_CUDA_SUCCESS ? tritonc_cu_name_MODULE(cubin_result) : "");
        r = tritonc_cu_MODULE.cuModuleLoadData(&module, v->ptx);
        if (r != TRITONC_CUDA_SUCCESS)
            return tritonc_fail_MODULE(TRITONC_CUDA_ERROR, "%s: loading the PTX failed with %s",
                                       v->name, tritonc_cu_name_MODULE(r));
    }
    TRITONC_CALL(tritonc_cu_MODULE.cuModuleGetFunction(out, module, v->entry));
    if (v->dynamic_shared > 48 * 1024)
        TRITONC_CALL(tritonc_cu_MODULE.cuFuncSetAttribute(*out, TRITONC_FUNC_ATTR_MAX_DYNAMIC_SHARED,
                                                          (int)v->dynamic_shared));
    v->contexts[v->loaded] = ctx;
    v->functions[v->loaded] = *out;
    v->loaded++;
    return TRITONC_SUCCESS;
}

/* Loads the driver and makes sure the calling thread has a current context. */
static tritonc_status tritonc_context_MODULE(const char *who, tritonc_cu_context *ctx_out,
                                             tritonc_cu_device *device_out) {
    tritonc_cu_context ctx = NULL;
    tritonc_cu_device device = 0;
    tritonc_cu_result r;
    pthread_once(&tritonc_cu_once_MODULE, tritonc_cu_load_MODULE);
    if (tritonc_cu_status_MODULE != TRITONC_SUCCESS)
        return tritonc_fail_MODULE(tritonc_cu_status_MODULE, "%s: %s", who, tritonc_cu_error_MODULE);
#define TRITONC_CTX_CALL(call)                                                                 \
    do {                                                                                       \
        r = (call);                                                                            \
        if (r != TRITONC_CUDA_SUCCESS)                                                         \
            return tritonc_fail_MODULE(TRITONC_CUDA_ERROR, "%s: %s failed with %s", who, #call,\
                                       tritonc_cu_name_MODULE(r));                             \
    } while (0)
    TRITONC_CTX_CALL(tritonc_cu_MODULE.cuCtxGetCurrent(&ctx));
    if (ctx == NULL) {
        int count = 0;
        TRITONC_CTX_CALL(tritonc_cu_MODULE.cuDeviceGetCount(&count));
        if (count == 0)
            return tritonc_fail_MODULE(TRITONC_NO_DEVICE, "%s: no CUDA device", who);
        TRITONC_CTX_CALL(tritonc_cu_MODULE.cuDeviceGet(&device, 0));
        TRITONC_CTX_CALL(tritonc_cu_MODULE.cuDevicePrimaryCtxRetain(&ctx, device));
        TRITONC_CTX_CALL(tritonc_cu_MODULE.cuCtxSetCurrent(ctx));
    } else {
        TRITONC_CTX_CALL(tritonc_cu_MODULE.cuCtxGetDevice(&device));
    }
#undef TRITONC_CTX_CALL
    if (ctx_out != NULL)
        *ctx_out = ctx;
    if (device_out != NULL)
        *device_out = device;
    return TRITONC_SUCCESS;
}

static tritonc_status tritonc_launch_MODULE(struct tritonc_variant_MODULE *v, tritonc_grid grid,
                                            void *stream, void **params) {
    tritonc_cu_context ctx = NULL;
    tritonc_cu_device device = 0;
    tritonc_cu_function function = NULL;
    tritonc_status status;
    unsigned int i;
    tritonc_error_MODULE[0] = '\0';
    if (grid.y > 65535 || grid.z > 65535 || grid.x > 2147483647u)
        return tritonc_fail_MODULE(TRITONC_INVALID_ARGUMENT,
                                   "%s: grid (%u, %u, %u) exceeds CUDA's limits (2^31-1, 65535, 65535)",
                                   v->name, grid.x, grid.y, grid.z);
    /* As Triton does, a grid with no programs launches nothing. */
    if (grid.x == 0 || grid.y == 0 || grid.z == 0)
        return TRITONC_SUCCESS;
    status = tritonc_context_MODULE(v->name, &ctx, &device);
    if (status != TRITONC_SUCCESS)
        return status;
    pthread_mutex_lock(&v->lock);
    for (i = 0; i < v->loaded; i++)
        if (v->contexts[i] == ctx)
            function = v->functions[i];
    if (function == NULL)
        status = tritonc_load_MODULE(v, ctx, device, &function);
    pthread_mutex_unlock(&v->lock);
    if (status != TRITONC_SUCCESS)
        return status;
    TRITONC_CALL(tritonc_cu_MODULE.cuLaunchKernel(function, grid.x, grid.y, grid.z, v->threads, 1, 1,
                                                  v->dynamic_shared, stream, params, NULL));
    return TRITONC_SUCCESS;
}
#undef TRITONC_CALL

/* Memory helpers for programs that manage no CUDA memory of their own. */
#define TRITONC_HELPER(who, call)                                                              \
    do {                                                                                       \
        tritonc_cu_result r_;                                                                  \
        tritonc_status s_;                                                                     \
        tritonc_error_MODULE[0] = '\0';                                                        \
        s_ = tritonc_context_MODULE(who, NULL, NULL);                                          \
        if (s_ != TRITONC_SUCCESS)                                                             \
            return s_;                                                                         \
        r_ = (call);                                                                           \
        if (r_ != TRITONC_CUDA_SUCCESS)                                                        \
            return tritonc_fail_MODULE(TRITONC_CUDA_ERROR, "%s failed with %s", who,           \
                                       tritonc_cu_name_MODULE(r_));                            \
        return TRITONC_SUCCESS;                                                                \
    } while (0)

tritonc_status MODULE_malloc(unsigned long long *ptr, size_t bytes) {
    TRITONC_HELPER("cuMemAlloc", tritonc_cu_MODULE.cuMemAlloc_v2(ptr, bytes));
}
tritonc_status MODULE_free(unsigned long long ptr) {
    TRITONC_HELPER("cuMemFree", tritonc_cu_MODULE.cuMemFree_v2(ptr));
}
tritonc_status MODULE_copy_to_device(unsigned long long dst, const void *src, size_t bytes) {
    TRITONC_HELPER("cuMemcpyHtoD", tritonc_cu_MODULE.cuMemcpyHtoD_v2(dst, src, bytes));
}
tritonc_status MODULE_copy_to_host(void *dst, unsigned long long src, size_t bytes) {
    TRITONC_HELPER("cuMemcpyDtoH", tritonc_cu_MODULE.cuMemcpyDtoH_v2(dst, src, bytes));
}
tritonc_status MODULE_synchronize(void) {
    TRITONC_HELPER("cuCtxSynchronize", tritonc_cu_MODULE.cuCtxSynchronize());
}
#undef TRITONC_HELPER
"#;

fn source(m: &str, module: &str, bundles: &[Bundle], variants: &[Variant]) -> String {
    let mut s = String::new();
    let _ = writeln!(
        s,
        "/* Generated by tritonc from compiled kernels; do not edit. Build with a C11\n   \
         compiler; link with -ldl -pthread on C libraries older than glibc 2.34. */\n\
         #ifndef _POSIX_C_SOURCE\n#define _POSIX_C_SOURCE 200809L\n#endif\n\
         #include \"{module}.h\"\n\n#include <dlfcn.h>\n#include <pthread.h>\n\
         #include <stdarg.h>\n#include <stddef.h>\n#include <stdio.h>\n#include <string.h>"
    );
    s.push_str(&RUNTIME.replace("MODULE", m));
    for (v, b) in variants.iter().zip(bundles) {
        let i = v.index;
        let _ = writeln!(s, "\n/* {} */", v.key);
        if let Some(cubin) = &b.cubin {
            let _ = writeln!(
                s,
                "static _Alignas(16) const unsigned char tritonc_cubin{i}_{m}[{}] = {{",
                cubin.len()
            );
            bytes(&mut s, cubin);
            s.push_str("};\n");
        }
        let mut ptx = b.ptx.as_bytes().to_vec();
        ptx.push(0);
        let _ = writeln!(
            s,
            "static const unsigned char tritonc_ptx{i}_{m}[{}] = {{",
            ptx.len()
        );
        bytes(&mut s, &ptx);
        s.push_str("};\n");
        let (major, minor, specific) = v.sm;
        let (cubin, cubin_size) = match &b.cubin {
            Some(c) => (format!("tritonc_cubin{i}_{m}"), c.len()),
            None => ("NULL".to_string(), 0),
        };
        let _ = writeln!(
            s,
            "static struct tritonc_variant_{m} tritonc_variant{i}_{m} = {{\n    \
             \"{name}\", \"{entry}\", {cubin}, {cubin_size}, tritonc_ptx{i}_{m},\n    \
             {major}, {minor}, {specific}, {threads}, {dynamic}, {driver},\n    \
             PTHREAD_MUTEX_INITIALIZER, 0, {{0}}, {{0}}}};\n",
            name = v.function,
            entry = b.meta.entry,
            specific = specific as u8,
            threads = v.threads,
            dynamic = v.dynamic_shared,
            driver = v.min_driver.unwrap_or(0),
        );
        let _ = writeln!(s, "{} {{", v.prototype());
        for (ty, name, _) in &v.params {
            if name.starts_with("tritonc_hidden") {
                let _ = writeln!(s, "    {ty} {name} = 0;");
            }
        }
        for c in &v.checks {
            let _ = writeln!(
                s,
                "    if ({}) return tritonc_fail_{m}(TRITONC_INVALID_ARGUMENT, \"{}: {}\", {});",
                c.violated, v.function, c.message, c.value
            );
        }
        if v.params.is_empty() {
            let _ = writeln!(s, "    void **params = NULL;");
        } else {
            let list: Vec<String> = v.params.iter().map(|(_, n, _)| format!("&{n}")).collect();
            let _ = writeln!(s, "    void *params[] = {{{}}};", list.join(", "));
        }
        let _ = writeln!(
            s,
            "    return tritonc_launch_{m}(&tritonc_variant{i}_{m}, grid, stream, params);\n}}"
        );
    }
    for (kernel, order) in dispatchers(variants) {
        let first = &variants[order[0]];
        let _ = writeln!(s, "\n{} {{", first.prototype_named(&kernel));
        s.push_str(&dispatch_chain(variants, &order, first, "    "));
        s.push_str("}\n");
    }
    s
}

/// C statements (each line indented by `indent`) that launch the first of `order`'s
/// variants (most specialized first) whose assumptions the arguments meet, and else the
/// last one, which then reports what is broken; the arguments are `first`'s parameters.
fn dispatch_chain(variants: &[Variant], order: &[usize], first: &Variant, indent: &str) -> String {
    let args: Vec<&str> = first
        .params
        .iter()
        .filter(|(_, n, _)| !n.starts_with("tritonc_hidden"))
        .map(|(_, n, _)| n.as_str())
        .collect();
    let call = |v: &Variant| {
        let mut c = format!("{}(grid, stream", v.function);
        for a in &args {
            let _ = write!(c, ", {a}");
        }
        c.push(')');
        c
    };
    let mut s = String::new();
    for &i in &order[..order.len() - 1] {
        let v = &variants[i];
        let ok = if v.checks.is_empty() {
            "1".to_string()
        } else {
            let broken: Vec<&str> = v.checks.iter().map(|c| c.violated.as_str()).collect();
            format!("!({})", broken.join(" || "))
        };
        let _ = writeln!(s, "{indent}if ({ok}) return {};", call(v));
    }
    let _ = writeln!(s, "{indent}return {};", call(&variants[order[order.len() - 1]]));
    s
}

/// One assumption of a variant, as C.
struct Check {
    /// A C expression over the parameters, true when the assumption is broken.
    violated: String,
    /// A printf format saying how, with one conversion for `value`.
    message: String,
    /// The C expression the message prints.
    value: String,
}

/// `text` for a C string literal: printable ASCII with `"`, `\\`, `%` escaped, other
/// characters as `?`.
fn c_string_text(text: &str) -> String {
    let mut s = String::new();
    for c in text.chars() {
        match c {
            '"' => s.push_str("\\\""),
            '\\' => s.push_str("\\\\"),
            '%' => s.push_str("%%"),
            ' '..='~' => s.push(c),
            _ => s.push('?'),
        }
    }
    s
}

/// `bytes` as C initializer lines, 16 to a line.
fn bytes(s: &mut String, bytes: &[u8]) {
    for chunk in bytes.chunks(16) {
        s.push_str("   ");
        for b in chunk {
            let _ = write!(s, " {b},");
        }
        s.push('\n');
    }
}

/// The C type a scalar parameter of `dtype` is passed as: the `.param` width, with 16-
/// and 8-bit floats as their bits.
fn c_scalar_type(dtype: DType) -> Option<&'static str> {
    use DType::*;
    Some(match dtype {
        I1 | U8 => "uint8_t",
        I8 => "int8_t",
        I16 => "int16_t",
        U16 => "uint16_t",
        I32 => "int32_t",
        U32 => "uint32_t",
        I64 => "int64_t",
        U64 => "uint64_t",
        F16 | BF16 => "uint16_t",
        F32 => "float",
        F64 => "double",
        F8E4M3FN | F8E5M2 | F8E4M3FNUZ | F8E5M2FNUZ | F8E4M3B11FNUZ => "uint8_t",
        Var(_) => return None,
    })
}

fn dtype_name(d: DType) -> String {
    d.signature_name().unwrap_or("?").to_string()
}

const C_KEYWORDS: &[&str] = &[
    "auto",
    "bool",
    "break",
    "case",
    "char",
    "const",
    "continue",
    "default",
    "do",
    "double",
    "else",
    "enum",
    "extern",
    "float",
    "for",
    "goto",
    "if",
    "inline",
    "int",
    "long",
    "register",
    "restrict",
    "return",
    "short",
    "signed",
    "sizeof",
    "static",
    "struct",
    "switch",
    "typedef",
    "union",
    "unsigned",
    "void",
    "volatile",
    "while",
    "alignas",
    "alignof",
    "true",
    "false",
    "nullptr",
    "class",
    "new",
    "delete",
    "this",
    "template",
    "typename",
    "namespace",
    "private",
    "public",
    "protected",
    "virtual",
    "operator",
    "friend",
    "throw",
    "try",
    "catch",
];

/// `name` as a C identifier: characters other than ASCII letters, digits and `_`
/// become `_`; a leading digit, a C or C++ keyword or an empty name gets a prefix.
pub fn c_identifier(name: &str) -> String {
    let mut s: String = name
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '_' {
                c
            } else {
                '_'
            }
        })
        .collect();
    if s.is_empty()
        || s.starts_with(|c: char| c.is_ascii_digit())
        || C_KEYWORDS.contains(&s.as_str())
    {
        s.insert_str(0, "k_");
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn identifiers_are_valid_c() {
        assert_eq!(c_identifier("add_kernel"), "add_kernel");
        assert_eq!(c_identifier("vector-add"), "vector_add");
        assert_eq!(c_identifier("int"), "k_int");
        assert_eq!(c_identifier("2d"), "k_2d");
        assert_eq!(c_identifier("é"), "_");
        assert_eq!(c_identifier(""), "k_");
    }
}
