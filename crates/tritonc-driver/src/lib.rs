//! The tritonc driver: the one way into the compiler for every front end of it — the
//! `tritonc` commands (`compile`, `lint`, `run`, `verify`), the language server, and
//! programs that compile kernels as a build step.
//!
//! # What it does
//!
//! - **Project model** ([`project`]): a kernel file's project root (the nearest ancestor
//!   without `__init__.py`, or a configured root) and its other modules, read from disk
//!   once, so `@jit` helpers and constexpr globals imported from other files resolve.
//! - **Configuration** ([`config`]): the `[tool.tritonc]` table closest to a file
//!   (`pyproject.toml` or `tritonc.toml`): lint settings, kernel signatures and warps, the
//!   Triton version — else the one the project's environment installs ([`environment`]).
//! - **Checking** ([`check::check_file`]): front-end diagnostics and lint findings of one
//!   file in its project scope — what `tritonc lint` prints and the language server
//!   publishes, from the same function.
//! - **Kernel selection** ([`select`]) and **variants** ([`variants`]): which kernels of
//!   a file compile, the signature each is specialized with, and its autotune variants
//!   lowered to the tile IR.
//! - **Options** ([`options::Options`]): every setting that decides the code, one struct,
//!   recorded whole in the compile cache's key.
//! - **Stages** ([`target::Stage`], [`stages::stage_text`]): the printable stages.
//! - **Tuning** ([`tune`]): `tritonc tune`'s configs, pruning, checked runs, timing on a
//!   GPU or the interpreter, the winners' table, and the dispatch rule `run` follows.
//! - **Back end** ([`backend`], behind the `mlir` feature): code generation, ptxas
//!   through `tritonc-toolchain`, bundles; the compile **cache** ([`cache`]) and the
//!   parallel compile **jobs** ([`jobs`]).
//!
//! # Compiling a file
//!
//! ```no_run
//! use std::path::Path;
//! use tritonc_driver::options::{Options, Request};
//! use tritonc_driver::target::Target;
//!
//! let target = Target::parse("sm_90").unwrap();
//! let mut request = Request::new(Options::new(target));
//! request.signature = Some("*fp32:16, *fp32:16, i32, 1024".into());
//! let compiled = tritonc_driver::compile::compile_file(
//!     Path::new("kernels/add.py"), Some("add_kernel"), &request, false, None,
//! ).map_err(|f| f.error).unwrap();
//! for v in &compiled.variants {
//!     let dir = tritonc_driver::compile::write_bundle(&v.bundle, Path::new("out")).unwrap();
//!     println!("{} {}: {}", v.kernel, v.bundle.meta.key, dir.display());
//! }
//! ```

// A `Diagnostic` is the error value of every fallible step here by design; it is built
// only on the cold path, so its size (well over clippy's 128 bytes) costs nothing.
#![allow(clippy::result_large_err)]

pub mod backend;
pub mod cache;
pub mod check;
pub mod codes;
pub mod compile;
pub mod config;
pub mod environment;
pub mod frontend;
pub mod input;
pub mod jobs;
pub mod options;
pub mod project;
pub mod select;
pub mod stages;
pub mod target;
pub mod tune;
pub mod variants;
