//! Semantic analysis: the kernel AST of `tritonc-syntax` to the tile IR of `tritonc-ir`,
//! with Triton 3.6's exact semantics.
//!
//! # Layout
//!
//! - [`value`]: what expressions evaluate to — [`Constexpr`] compile-time Python values and
//!   [`SemaValue`]s (IR values with their type, tuples, block pointers).
//! - [`constexpr`]: the one evaluator of compile-time Python (operators in
//!   [`constexpr::ops`], attributes in [`constexpr::attrs`], calls in [`constexpr::calls`]);
//!   [`constexpr::eval_expr`] works stand-alone over a [`constexpr::ConstEnv`].
//! - [`spec`]: signatures in Triton's AOT syntax and the [`SpecializationKey`].
//! - [`meta`]: specialization without a signature (annotations), autotune configs and
//!   heuristics expanded into [`meta::KernelVariant`]s.
//! - [`promote`]: binary promotion and broadcasting rules (`computation_type_impl`).
//! - [`lower`]: the AST walker (names, statements, control flow, `@jit` inlining) and the
//!   [`ModuleScope`] built from `tritonc-syntax`'s discovery.
//! - [`builtins`]: `tl.*` builtins and tensor methods, dispatched by canonical path.
//! - [`codes`]: the `E03xx`/`E04xx` diagnostic codes and their documentation.
//! - [`project`]: cross-file resolution: a [`ModuleLoader`] hands out the project's other
//!   modules (sema does no I/O), a [`Project`] builds and caches their scopes.
//! - [`generic`]: generic analysis (no signature) and its entry point
//!   [`generic::lower_kernel_generic`]; [`symbolic`]: the typing rules over unknowns.
//!
//! # Generic analysis
//!
//! ```ignore
//! let r = generic::lower_kernel_generic(&scope, kernel, &PartialSpecialization::default())?;
//! // r.module: tile IR with `!dtype<N>` dtypes and `tensor<BLOCKxi32>` symbolic dims
//! // r.params: (name, ArgSpec, ParamOrigin): what each parameter was taken to be, and why
//! // r.assumptions: soft errors (they depend on unknowns) and undecided merges, info-level
//! ```
//!
//! `Err` holds hard errors only: those that hold whatever the unknowns turn out to be.
//! Unknown constexprs are [`Constexpr::Symbolic`] values; autotune values common to every
//! config are known, differing ones symbolic with their candidates. Unknown values that
//! reach the IR are `tt.extern_elementwise {libname = "tritonc.generic"}` placeholder ops.

//!
//! # Cross-file resolution
//!
//! ```ignore
//! struct Loader; // parses and discovers `pkg/ops.py` for "pkg.ops", caching; no I/O in sema
//! impl ModuleLoader for Loader {
//!     fn load(&self, m: &str) -> Option<Arc<LoadedModule>> { todo!() }
//! }
//! let project = Project::new(Loader);
//! let scope = project.root_scope(&index, "pkg.kernels", /* is_package */ false);
//! // `from .ops import exp2`, `from pkg.ops import exp2`, `import pkg.ops as ops`,
//! // `from .consts import *` and re-exports through `__init__.py` now reach `pkg.ops`;
//! // its `@jit` helpers inline with their own scope and file.
//! ```
//!
//! A path no project module holds is opaque ([`Constexpr::Module`]): unknown in generic
//! analysis, `"… is defined outside the project tritonc can see"` when a kernel calls it.

pub mod builtins;
pub mod codes;
pub mod constexpr;
pub mod generic;
pub mod lower;
pub mod meta;
pub mod project;
pub mod promote;
pub mod spec;
pub mod symbolic;
pub mod value;
pub mod version;

pub use codes::codes;
pub use lower::{lower_kernel, lower_kernel_in, LowerCx, Lowered, ModuleScope};
pub use project::{LoadedModule, ModuleLoader, Project};
pub use spec::{ArgSpec, LaunchOptions, Specialization, SpecializationKey, Target};
pub use value::{BlockPtrValue, Constexpr, SemaValue, TensorDescValue, TensorValue};
pub use version::TritonVersion;
