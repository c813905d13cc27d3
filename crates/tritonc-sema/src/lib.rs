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

pub mod builtins;
pub mod codes;
pub mod constexpr;
pub mod generic;
pub mod lower;
pub mod meta;
pub mod promote;
pub mod spec;
pub mod symbolic;
pub mod value;

pub use codes::codes;
pub use lower::{lower_kernel, lower_kernel_in, LowerCx, Lowered, ModuleScope};
pub use spec::{ArgSpec, LaunchOptions, Specialization, SpecializationKey, Target};
pub use value::{BlockPtrValue, Constexpr, SemaValue, TensorValue};
