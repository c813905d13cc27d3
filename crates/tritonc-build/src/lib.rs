//! A `build.rs` helper: compiles Triton kernels from Python files ahead of time with
//! tritonc, for the targets a program runs on, and generates a typed Rust launch
//! function per compiled variant (docs/rust.md).
//!
//! ```no_run
//! // build.rs
//! fn main() -> Result<(), tritonc_build::Error> {
//!     tritonc_build::Build::new()
//!         .target("sm_80")
//!         .target("sm_90")
//!         .kernel(
//!             tritonc_build::Kernel::new("kernels/add.py", "add_kernel")
//!                 .signature("aligned", "*fp32:16, *fp32:16, *fp32:16, i32:16, 1024")
//!                 .signature("any", "*fp32, *fp32, *fp32, i32, 1024"),
//!         )
//!         .compile()?;
//!     Ok(())
//! }
//! ```
//!
//! and in the program, with `tritonc-runtime` as a dependency:
//!
//! ```ignore
//! include!(concat!(env!("OUT_DIR"), "/tritonc_kernels.rs"));
//! // add_kernel::Kernel::load(&device)?.aligned_sm_90(stream, grid, x, y, out, n)?;
//! ```
//!
//! For every kernel the generated file has a module named after it with:
//! - `BUNDLES`: the variants' bundles, built in with `include_bytes!`;
//! - `Kernel::load(&device)`: loads every variant that runs on the GPU;
//! - one method per variant taking the caller's stream, the grid and the variant's
//!   passed parameters, named and typed from its signature (pointers as
//!   `tritonc_runtime::DevicePtr`, integers at their width, floats as `f32`/`f64`;
//!   constexprs and `==1` integers are compiled in and left out). Arguments that break
//!   an assumption of the variant (`:16` alignment or divisibility, a pointee dtype)
//!   are refused before the launch with `RuntimeError::SpecializationMiss`, which names
//!   every variant that exists and which of them would accept the arguments;
//! - `Kernel::launch`, taking every source parameter, which launches the most
//!   specialized variant that accepts the arguments, or fails naming each variant with
//!   its reasons; `variant_for` answers the same question without a GPU.
//!
//! Kernels are compiled by the `tritonc` command (`TRITONC`, else `tritonc` on `PATH`;
//! `pip install tritonc` puts it there), through its content-addressed compile cache, so
//! a rebuild with unchanged inputs costs little. With the `in-process` feature (and no
//! `TRITONC` or [`Build::tritonc`]) they are compiled by tritonc-driver inside the build
//! script instead — the same function the command calls, through the same cache — which
//! links LLVM/MLIR 22 into the build script. Every variant must have a cubin: a
//! compile that could only produce PTX (no `ptxas` found) is an error unless
//! [`Build::allow_ptx_only`] is set. Cargo reruns the build script when a kernel file,
//! anything else in its directory (helpers it imports, `tritonc.toml`) or `TRITONC`
//! changes.

#![warn(missing_docs)]

mod codegen;
mod compile;
mod ident;

use std::path::{Path, PathBuf};

pub use codegen::{rust_source, BundlePath, CodegenError, KernelModule, VariantCode};
pub use ident::rust_identifier;
use tritonc_bundle::BundleError;

/// The generated file's name under the output directory.
pub const GENERATED_FILE: &str = "tritonc_kernels.rs";

/// A kernel to compile: which file, which kernel in it, and which specializations.
#[derive(Debug, Clone)]
pub struct Kernel {
    file: PathBuf,
    name: String,
    /// `(launch function name, signature)`; empty: the project configuration's.
    signatures: Vec<(Option<String>, String)>,
    num_warps: Option<u32>,
    num_stages: Option<u32>,
}

impl Kernel {
    /// Kernel `name` of `file`. Without [`Kernel::signature`] it is specialized as
    /// `tritonc compile` specializes it without `--signature`: by the project
    /// configuration (`tritonc.toml`, `[tool.tritonc]`) or its annotations.
    pub fn new(file: impl Into<PathBuf>, name: impl Into<String>) -> Kernel {
        Kernel {
            file: file.into(),
            name: name.into(),
            signatures: Vec::new(),
            num_warps: None,
            num_stages: None,
        }
    }

    /// Adds a specialization: `signature` in Triton's AOT syntax (`"*fp16:16, i32, 1024"`,
    /// as `tritonc compile --signature` takes it), whose launch function is named `name`
    /// (with `_TARGET` appended when several targets are built, and the variant's hash
    /// when the signature leaves autotune configs open).
    pub fn signature(mut self, name: &str, signature: &str) -> Kernel {
        self.signatures
            .push((Some(name.to_string()), signature.to_string()));
        self
    }

    /// Warps per program (`--num-warps`; default: the project configuration's, else 4).
    pub fn num_warps(mut self, n: u32) -> Kernel {
        self.num_warps = Some(n);
        self
    }

    /// Software-pipelining stages (`--num-stages`; default 3).
    pub fn num_stages(mut self, n: u32) -> Kernel {
        self.num_stages = Some(n);
        self
    }
}

/// Everything that can stop a build. Its `Debug` form is its message, so that a build
/// script's `fn main() -> Result<(), tritonc_build::Error>` prints the message itself.
#[derive(thiserror::Error)]
pub enum Error {
    /// The `tritonc` command could not be started.
    #[error(
        "cannot run the tritonc compiler `{}`: {source}; install it (`pip install tritonc`, \
         or build it: `cargo install --path crates/tritonc`) or point TRITONC at it",
        program.display()
    )]
    NoCompiler {
        /// The program tried.
        program: PathBuf,
        /// Why it could not be started.
        source: std::io::Error,
    },
    /// `tritonc compile` failed; its diagnostics say why.
    #[error(
        "tritonc could not compile `{kernel}` of {} for {target} ({}):\n{stderr}",
        file.display(),
        status.map_or_else(|| "killed by a signal".to_string(), |c| format!("exit {c}"))
    )]
    CompileFailed {
        /// The kernel file.
        file: PathBuf,
        /// The kernel.
        kernel: String,
        /// The target.
        target: String,
        /// tritonc's exit status.
        status: Option<i32>,
        /// tritonc's diagnostics.
        stderr: String,
    },
    /// A variant has PTX but no cubin (no `ptxas` was found) and PTX-only variants were
    /// not allowed.
    #[error(
        "`{kernel}` for {target} was compiled to PTX only (no cubin){why}: a program would \
         then compile it in the driver at its first launch. Make ptxas available to tritonc \
         (TRITONC_PTXAS, or CUDA's bin directory on PATH), or call `allow_ptx_only(true)`"
    , why = if note.is_empty() { String::new() } else { format!(" — tritonc said: {note}") })]
    PtxOnly {
        /// The kernel.
        kernel: String,
        /// The target.
        target: String,
        /// What tritonc reported about it.
        note: String,
    },
    /// A bundle tritonc wrote could not be read.
    #[error(transparent)]
    Bundle(#[from] BundleError),
    /// A file or directory could not be read or written.
    #[error("{}: {source}", path.display())]
    Io {
        /// The path.
        path: PathBuf,
        /// The I/O error.
        source: std::io::Error,
    },
    /// The compiled variants do not make one launch API.
    #[error(transparent)]
    Codegen(#[from] CodegenError),
    /// The build is not configured: no kernel, no target, or no output directory.
    #[error("{0}")]
    Config(String),
}

impl std::fmt::Debug for Error {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        std::fmt::Display::fmt(self, f)
    }
}

/// What [`Build::compile`] generated.
#[derive(Debug, Clone)]
pub struct Generated {
    /// The generated Rust file.
    pub path: PathBuf,
    /// Per kernel, its launch functions (one per variant), in `BUNDLES` order.
    pub kernels: Vec<(String, Vec<String>)>,
}

/// The build: kernels, targets and where the generated code goes.
#[derive(Debug, Clone, Default)]
pub struct Build {
    kernels: Vec<Kernel>,
    targets: Vec<String>,
    tritonc: Option<PathBuf>,
    out_dir: Option<PathBuf>,
    allow_ptx_only: bool,
    cargo: Option<bool>,
}

impl Build {
    /// An empty build.
    pub fn new() -> Build {
        Build::default()
    }

    /// Adds a kernel.
    pub fn kernel(mut self, kernel: Kernel) -> Build {
        self.kernels.push(kernel);
        self
    }

    /// Adds a target (`sm_80`, `sm_90`, `sm_90a`, `gfx942`…); every kernel is compiled for
    /// each. At least one is needed.
    pub fn target(mut self, target: &str) -> Build {
        if !self.targets.iter().any(|t| t == target) {
            self.targets.push(target.to_string());
        }
        self
    }

    /// The `tritonc` program to run (default: `TRITONC`, else `tritonc` on `PATH`).
    pub fn tritonc(mut self, program: impl Into<PathBuf>) -> Build {
        self.tritonc = Some(program.into());
        self
    }

    /// Where the bundles and the generated file go (default: Cargo's `OUT_DIR`).
    pub fn out_dir(mut self, dir: impl Into<PathBuf>) -> Build {
        self.out_dir = Some(dir.into());
        self
    }

    /// Accepts variants that carry PTX but no cubin (default: refused, see
    /// [`Error::PtxOnly`]).
    pub fn allow_ptx_only(mut self, allow: bool) -> Build {
        self.allow_ptx_only = allow;
        self
    }

    /// Whether to print Cargo's `rerun-if-changed` and `warning` lines (default: when
    /// running under Cargo, i.e. when `OUT_DIR` is set).
    pub fn cargo_metadata(mut self, print: bool) -> Build {
        self.cargo = Some(print);
        self
    }

    /// The compiler: the program [`Build::tritonc`] named, else `TRITONC`; else, with the
    /// `in-process` feature, tritonc-driver in this process; else `tritonc` on `PATH`.
    fn compiler(&self) -> compile::Compiler {
        if let Some(p) = self
            .tritonc
            .clone()
            .or_else(|| std::env::var_os("TRITONC").map(PathBuf::from))
        {
            return compile::Compiler::Command(p);
        }
        #[cfg(feature = "in-process")]
        {
            compile::Compiler::InProcess
        }
        #[cfg(not(feature = "in-process"))]
        {
            compile::Compiler::Command(PathBuf::from("tritonc"))
        }
    }

    /// Compiles every kernel for every target and writes [`GENERATED_FILE`].
    pub fn compile(&self) -> Result<Generated, Error> {
        let out_dir_env = std::env::var_os("OUT_DIR").map(PathBuf::from);
        let cargo = self.cargo.unwrap_or(out_dir_env.is_some());
        let (out_dir, under_out_dir) = match (&self.out_dir, &out_dir_env) {
            (Some(d), Some(env)) => (d.clone(), d == env),
            (Some(d), None) => (d.clone(), false),
            (None, Some(env)) => (env.clone(), true),
            (None, None) => {
                return Err(Error::Config(
                    "no output directory: OUT_DIR is not set (not run by Cargo) and \
                     `out_dir` was not called"
                        .into(),
                ))
            }
        };
        if self.kernels.is_empty() {
            return Err(Error::Config("no kernel to compile: call `kernel`".into()));
        }
        if self.targets.is_empty() {
            return Err(Error::Config(
                "no target: call `target` (e.g. \"sm_90\")".into(),
            ));
        }
        let compiler = self.compiler();
        if cargo {
            println!("cargo:rerun-if-env-changed=TRITONC");
            if let Some(tritonc) = compiler.program() {
                if tritonc.components().count() > 1 {
                    println!("cargo:rerun-if-changed={}", tritonc.display());
                }
            }
        }
        let root = out_dir.join("tritonc");
        let mut modules: Vec<KernelModule> = Vec::new();
        for k in &self.kernels {
            if cargo {
                let watched = k
                    .file
                    .parent()
                    .filter(|p| !p.as_os_str().is_empty())
                    .unwrap_or(Path::new("."));
                println!("cargo:rerun-if-changed={}", k.file.display());
                println!("cargo:rerun-if-changed={}", watched.display());
            }
            let module =
                kernel_variants(self, k, &compiler, &root, under_out_dir, &out_dir, cargo)?;
            match modules.iter_mut().find(|m| m.kernel == module.kernel) {
                Some(m) => m.variants.extend(module.variants),
                None => modules.push(module),
            }
        }
        let source = rust_source(&modules)?;
        let path = out_dir.join(GENERATED_FILE);
        std::fs::write(&path, source).map_err(|source| Error::Io {
            path: path.clone(),
            source,
        })?;
        Ok(Generated {
            path,
            kernels: modules
                .iter()
                .map(|m| {
                    let fns = m.variants.iter().map(|v| v.function.clone()).collect();
                    (m.kernel.clone(), fns)
                })
                .collect(),
        })
    }
}

/// Compiles one kernel's specializations for every target.
fn kernel_variants(
    build: &Build,
    k: &Kernel,
    compiler: &compile::Compiler,
    root: &Path,
    under_out_dir: bool,
    out_dir: &Path,
    cargo: bool,
) -> Result<KernelModule, Error> {
    let signatures: Vec<(Option<&str>, Option<&str>)> = if k.signatures.is_empty() {
        vec![(None, None)]
    } else {
        k.signatures
            .iter()
            .map(|(n, s)| (n.as_deref(), Some(s.as_str())))
            .collect()
    };
    let several_targets = build.targets.len() > 1;
    let mut variants: Vec<VariantCode> = Vec::new();
    for (si, (name, signature)) in signatures.iter().enumerate() {
        for target in &build.targets {
            let out = root.join(format!("{}-{si}-{target}", rust_identifier(&k.name)));
            let job = compile::CompileJob {
                file: &k.file,
                kernel: &k.name,
                signature: *signature,
                target,
                num_warps: k.num_warps,
                num_stages: k.num_stages,
                out: &out,
            };
            let compiled = compile::compile(compiler, &job)?;
            if cargo {
                for w in &compiled.warnings {
                    println!("cargo:warning=tritonc: {w}");
                }
            }
            let several_variants = compiled.bundles.len() > 1;
            for (dir, bundle) in compiled.bundles {
                if bundle.cubin.is_none() && !build.allow_ptx_only {
                    return Err(Error::PtxOnly {
                        kernel: k.name.clone(),
                        target: target.clone(),
                        note: compiled.warnings.join(" "),
                    });
                }
                if variants
                    .iter()
                    .any(|v| v.bundle.meta.key_hash == bundle.meta.key_hash)
                {
                    continue; // Two signatures that specialize alike: one variant.
                }
                let hash8: String = bundle.meta.key_hash.chars().take(8).collect();
                let function = match name {
                    Some(n) => {
                        let mut f = rust_identifier(n);
                        if several_targets {
                            f = format!("{f}_{}", rust_identifier(target));
                        }
                        if several_variants {
                            f = format!("{f}_{hash8}");
                        }
                        f
                    }
                    None => format!("{}_{hash8}", rust_identifier(target)),
                };
                let dir = if under_out_dir {
                    let rel = dir.strip_prefix(out_dir).unwrap_or(&dir);
                    BundlePath::OutDir(
                        rel.components()
                            .map(|c| c.as_os_str().to_string_lossy().into_owned())
                            .collect::<Vec<_>>()
                            .join("/"),
                    )
                } else {
                    BundlePath::Absolute(std::path::absolute(&dir).map_err(|source| Error::Io {
                        path: dir.clone(),
                        source,
                    })?)
                };
                variants.push(VariantCode {
                    function,
                    bundle,
                    dir,
                });
            }
        }
    }
    Ok(KernelModule {
        kernel: k.name.clone(),
        source: k.file.display().to_string(),
        variants,
    })
}
