//! Python source to tritonc's kernel AST.
//!
//! This crate is the front edge of tritonc. [`parse_module`] runs the Python parser
//! (rustpython-parser) over one file and converts its tree, once, into the kernel AST of
//! [`ast`]: plain owned data in which every node carries a byte
//! [`Span`](tritonc_diagnostics::Span) into the file. No other crate sees the parser's
//! types, so the parser can be replaced by rewriting `convert.rs` alone.
//!
//! The AST keeps every Python construct as a node — including those Triton rejects
//! (`break`, `lambda`, nested `def`, `try`, ...) — so that later stages can report them at
//! their span rather than lose them.
//!
//! Layout of the tree:
//! - [`ast::Module`] holds the top-level [`ast::Stmt`]s in source order: imports,
//!   function definitions (with decorators), assignments (constexpr globals), `if`/`try`
//!   blocks choosing imports, and everything else.
//! - [`ast::Stmt`] is `{ kind: StmtKind, span }`; [`ast::Expr`] is `{ kind: ExprKind, span }`.
//! - [`ast::FunctionDef`] has the name (with its own span), parameters with their
//!   [`ast::ParamKind`], annotations and defaults, decorators (outermost first), the return
//!   annotation and the body. It is shared through an `Arc` so that discovery can hand it
//!   out cheaply.
//! - Integer literals are `i128`; larger ones are kept as decimal text
//!   ([`ast::Constant::BigInt`]) for sema to reject.
//!
//! On top of the AST:
//! - [`discover`] builds a [`ModuleIndex`]: every module-level function, the
//!   `@triton.jit` [`Kernel`]s with their jit options, `@triton.autotune` configs
//!   (comprehensions over literal lists and ranges expanded) and `@triton.heuristics`
//!   entries, the module's constexpr globals, and a [`NameResolver`] that maps
//!   `tl.math.exp`, `libdevice.rsqrt` or an imported bare name to its dotted path
//!   (all alternatives when imports are chosen in a module-level `if`/`try`).
//! - [`check_kernel_subset`] reports, at their spans, the constructs Triton 3.6 rejects
//!   inside a `@triton.jit` body (`E01xx`); the table is verified against Triton 3.6 by
//!   the fixtures in `tests/fixtures/subset/`.
//! - [`codes()`] documents every code this crate emits (`codes::REGISTRY` for the CLI's
//!   catalog).
//!
//! This crate does no I/O and never panics on input text.

pub mod ast;
mod autotune;
pub mod codes;
mod convert;
pub mod discovery;
pub mod resolve;
mod subset;

pub use codes::codes;
pub use convert::{
    mark_parse_stack_thread, parse_module, parse_module_on_this_thread, ParsedModule, MAX_CHAIN,
    MAX_NESTING, PARSE_STACK_BYTES,
};
pub use discovery::{discover, discover_following, Kernel, ModuleIndex};
pub use resolve::{NameResolver, Reexport};
pub use subset::check_kernel_subset;
pub use tritonc_diagnostics::CodeDoc;
