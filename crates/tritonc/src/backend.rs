//! The back end as the CLI uses it: tile IR → PTX (tritonc-codegen, behind the `mlir`
//! feature) → cubin (ptxas, when one is found) → a bundle (tritonc-bundle).
//!
//! Without the `mlir` feature every entry point answers [`BackendError::Unavailable`]
//! (exit 4): the slim runner consumes bundles compiled elsewhere.

use std::path::PathBuf;
use std::process::Command;

use tritonc_bundle::{Bundle, PtxasReport};
use tritonc_diagnostics::{Diagnostic, SourceMap};
use tritonc_ir::Function;
use tritonc_sema::Specialization;

#[cfg(feature = "mlir")]
use crate::codes;
use crate::target::Target;

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

/// A compiled variant: the bundle, and what ptxas said (or why there is no cubin).
#[derive(Debug)]
pub struct Compiled {
    /// The bundle.
    pub bundle: Bundle,
    /// A note for the user (`ptxas not found: PTX only`).
    pub note: Option<String>,
}

/// Compiles `func` (lowered for `spec`) into a bundle. `constexpr_params` names the
/// kernel's `tl.constexpr` parameters.
#[cfg(feature = "mlir")]
pub fn compile_bundle(
    func: &Function,
    sources: &SourceMap,
    spec: &Specialization,
    constexpr_params: &[&str],
    options: &BackendOptions,
) -> Result<Compiled, BackendError> {
    use tritonc_codegen::{compile_to_ptx, CompileOptions, NvptxTarget};

    let target = options.target;
    if target.vendor != crate::target::Vendor::Nvidia {
        return Err(BackendError::Unavailable(format!(
            "the AMD back end (`--target {}`) is not available yet",
            target.name
        )));
    }
    let compile_options = CompileOptions {
        num_warps: spec.options.num_warps,
        fp_fusion: options.fp_fusion,
    };
    let compiled = compile_to_ptx(
        func,
        sources,
        &NvptxTarget::new(target.capability),
        &compile_options,
    )
    .map_err(|e| {
        let mut d = Diagnostic::error(
            codes::BACKEND_UNSUPPORTED,
            format!("the NVIDIA back end cannot compile `{}`: {e}", func.name),
        );
        if let Some(span) = e.span {
            d = d.with_primary(span, format!("{}", e.stage));
        }
        BackendError::Unsupported(d)
    })?;
    let mut ptx = compiled.ptx;
    if target.name.ends_with('a') {
        // Architecture-specific code: same instructions, `.target sm_90a`.
        let plain = format!(".target sm_{}", target.capability);
        ptx = ptx.replacen(&plain, &format!(".target {}", target.name), 1);
    }
    let params = tritonc_bundle::abi_in_declaration_order(spec, constexpr_params)
        .map_err(|e| BackendError::Internal(e.to_string()))?;
    let key = spec.key();
    let mut bundle = Bundle {
        meta: tritonc_bundle::BundleMeta {
            format_version: tritonc_bundle::FORMAT_VERSION,
            entry: compiled.name,
            target: target.name.to_string(),
            key_hash: key.hash_hex(),
            key,
            num_warps: compiled.num_warps,
            // Above 48 KiB the back end declares shared memory dynamic (`extern .shared`):
            // the launch must then pass its size.
            dynamic_shared_bytes: if compiled.dynamic_shared {
                compiled.shared_bytes
            } else {
                0
            },
            static_shared_bytes: if compiled.dynamic_shared {
                0
            } else {
                compiled.shared_bytes
            },
            params,
            hidden_params: Vec::new(),
            reduction_layouts: None,
            ptxas: None,
        },
        ptx,
        cubin: None,
    };
    let mut note = None;
    if options.cubin {
        match ptxas_path() {
            Some(ptxas) => {
                let (cubin, report) =
                    assemble(&ptxas, &bundle.ptx, target.name).map_err(BackendError::Internal)?;
                bundle.cubin = Some(cubin);
                bundle.meta.ptxas = Some(report);
            }
            None => {
                note = Some(
                    "ptxas not found ($TRITONC_PTXAS, PATH, $CUDA_HOME/bin, .tools/cuda/bin): \
                     the bundle carries PTX only, which the driver compiles at load"
                        .to_string(),
                )
            }
        }
    }
    bundle.validate().map_err(|e| {
        BackendError::Internal(format!("the generated bundle is inconsistent: {e}"))
    })?;
    Ok(Compiled { bundle, note })
}

/// Without the `mlir` feature there is no back end.
#[cfg(not(feature = "mlir"))]
pub fn compile_bundle(
    _func: &Function,
    _sources: &SourceMap,
    _spec: &Specialization,
    _constexpr_params: &[&str],
    _options: &BackendOptions,
) -> Result<Compiled, BackendError> {
    Err(BackendError::Unavailable(unavailable_message(
        "compiling to PTX",
    )))
}

/// ptxas: `$TRITONC_PTXAS`, else `ptxas` on `PATH`, else `$CUDA_HOME/bin/ptxas`, else
/// `.tools/cuda/bin/ptxas` (scripts/install-deps.sh) in this directory or one above.
pub fn ptxas_path() -> Option<PathBuf> {
    if let Some(p) = std::env::var_os("TRITONC_PTXAS") {
        return Some(PathBuf::from(p));
    }
    if let Some(path) = std::env::var_os("PATH") {
        for dir in std::env::split_paths(&path) {
            let p = dir.join("ptxas");
            if p.is_file() {
                return Some(p);
            }
        }
    }
    if let Some(home) = std::env::var_os("CUDA_HOME") {
        let p = PathBuf::from(home).join("bin/ptxas");
        if p.is_file() {
            return Some(p);
        }
    }
    let cwd = std::env::current_dir().ok()?;
    cwd.ancestors()
        .map(|d| d.join(".tools/cuda/bin/ptxas"))
        .find(|p| p.is_file())
}

/// Runs `ptxas -arch=ARCH -v` on `ptx`; returns the cubin and the `-v` report.
pub fn assemble(
    ptxas: &std::path::Path,
    ptx: &str,
    arch: &str,
) -> Result<(Vec<u8>, PtxasReport), String> {
    let dir = std::env::temp_dir().join(format!("tritonc-ptxas-{}", std::process::id()));
    std::fs::create_dir_all(&dir).map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
    static NEXT: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
    let n = NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let input = dir.join(format!("k{n}.ptx"));
    let output = dir.join(format!("k{n}.cubin"));
    std::fs::write(&input, ptx).map_err(|e| format!("cannot write {}: {e}", input.display()))?;
    let result = Command::new(ptxas)
        .arg(format!("-arch={arch}"))
        .arg("-v")
        .arg(&input)
        .arg("-o")
        .arg(&output)
        .output()
        .map_err(|e| format!("cannot run `{}`: {e}", ptxas.display()));
    let cubin = std::fs::read(&output);
    let _ = std::fs::remove_dir_all(&dir);
    let result = result?;
    let log = format!(
        "{}{}",
        String::from_utf8_lossy(&result.stdout),
        String::from_utf8_lossy(&result.stderr)
    );
    if !result.status.success() {
        return Err(format!(
            "ptxas rejected the generated PTX for {arch}:\n{log}"
        ));
    }
    let cubin = cubin.map_err(|e| format!("ptxas wrote no cubin: {e}"))?;
    Ok((cubin, PtxasReport::parse(&log)))
}

/// One line about a bundle: where it went and what ptxas reported.
pub fn describe(bundle: &Bundle) -> String {
    let mut s = format!("{} ({}", bundle.meta.key, bundle.meta.target);
    match &bundle.meta.ptxas {
        Some(r) => s.push_str(&format!(
            ", {} registers, {} bytes spill stores, {} bytes spill loads, {} bytes smem",
            r.registers, r.spill_stores, r.spill_loads, r.shared_bytes
        )),
        None => s.push_str(", PTX only"),
    }
    s.push(')');
    s
}

/// Bundles compiled on demand for each case (`tritonc run`/`verify` without `--bundle`).
#[derive(Debug, Clone, Copy)]
pub struct CompilingSource {
    /// How to compile.
    pub options: BackendOptions,
}

impl tritonc_verify::BundleSource for CompilingSource {
    fn bundles_for(&mut self, case: &tritonc_verify::PreparedCase) -> Result<Vec<Bundle>, String> {
        let constexprs: Vec<&str> = case.constexpr_params.iter().map(String::as_str).collect();
        let mut spec = case.launch.specialization.clone();
        spec.options.target = tritonc_sema::Target::cuda(self.options.target.capability);
        compile_bundle(
            &case.function,
            &SourceMap::new(),
            &spec,
            &constexprs,
            &self.options,
        )
        .map(|c| vec![c.bundle])
        .map_err(|e| match e {
            BackendError::Unavailable(m) | BackendError::Internal(m) => m,
            BackendError::Unsupported(d) => d.message,
        })
    }
}

/// Where `run` and `verify` take kernels from: a bundle directory or the back end.
pub enum KernelSource {
    /// `--bundle DIR`.
    Dir(tritonc_verify::BundleDir),
    /// Compiled on demand.
    Compile(CompilingSource),
}

impl tritonc_verify::BundleSource for KernelSource {
    fn bundles_for(&mut self, case: &tritonc_verify::PreparedCase) -> Result<Vec<Bundle>, String> {
        match self {
            KernelSource::Dir(d) => d.bundles_for(case),
            KernelSource::Compile(c) => c.bundles_for(case),
        }
    }
}

/// The kernel source for `--bundle DIR` (read now) or, without it, the back end for
/// `target`; an error message with its exit status otherwise.
pub fn kernel_source(
    bundle: Option<&std::path::Path>,
    target: &str,
) -> Result<KernelSource, (String, crate::exit::Exit)> {
    use crate::exit::Exit;
    if let Some(dir) = bundle {
        return tritonc_verify::BundleDir::read(dir)
            .map(KernelSource::Dir)
            .map_err(|m| (format!("cannot read the bundles: {m}"), Exit::InputError));
    }
    if !AVAILABLE {
        return Err((
            unavailable_message("running a kernel from its source on the GPU"),
            Exit::NotImplemented,
        ));
    }
    let target = Target::parse(target)
        .filter(|t| t.vendor == crate::target::Vendor::Nvidia)
        .ok_or_else(|| {
            (
                format!("`{target}` is not an NVIDIA target"),
                Exit::InputError,
            )
        })?;
    Ok(KernelSource::Compile(CompilingSource {
        options: BackendOptions {
            target,
            fp_fusion: true,
            cubin: false,
        },
    }))
}
