//! How a launch spec's kernel file resolves the names it imports from other files of its
//! project (`@jit` helpers, constexpr globals). The spec layer does not read projects
//! itself: [`SingleFile`] resolves the kernel's own module only, and `tritonc-driver`'s
//! project model is what `tritonc run`, `verify` and `compile --spec` pass, so a spec's
//! kernel resolves its helpers as `tritonc compile` and `lint` do.

use std::path::Path;

use tritonc_diagnostics::SourceMap;
use tritonc_sema::{ModuleScope, TritonVersion};
use tritonc_syntax::ast::Module;

/// A resolver of kernel-module scopes.
pub trait KernelScopes: std::fmt::Debug + Send + Sync {
    /// The scope of `module`, parsed from `kernel_path` (already in `sources`); files read
    /// on the way are added to `sources`.
    fn scope(&self, kernel_path: &Path, module: &Module, sources: &mut SourceMap) -> ModuleScope;

    /// The Triton language version whose rules apply to the kernel at `kernel_path` (3.6
    /// unless the resolver knows better: the driver resolves it as `tritonc compile` does).
    fn triton_version(&self, kernel_path: &Path) -> TritonVersion {
        let _ = kernel_path;
        TritonVersion::default()
    }
}

/// The kernel's own module only: imports from other files stay unresolved.
#[derive(Debug, Clone, Copy, Default)]
pub struct SingleFile;

impl KernelScopes for SingleFile {
    fn scope(&self, _: &Path, module: &Module, _: &mut SourceMap) -> ModuleScope {
        ModuleScope::from_module(module)
    }
}
