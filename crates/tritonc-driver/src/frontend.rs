//! The one place the CLI calls the front end (tritonc-syntax): parse a file, discover its
//! kernels, check them against the accepted subset.
//!
//! Commands see only [`FileAnalysis`]; when the syntax crate's API changes shape, this
//! module is the only one to follow.

use std::path::Path;
use std::sync::Arc;

use tritonc_diagnostics::{Diagnostic, FileId, SourceMap, Span};
use tritonc_syntax::ast::Module;
use tritonc_syntax::discovery::JitBinding;
use tritonc_syntax::{discover, Kernel, ModuleIndex};

use crate::project::Projects;

/// A `@triton.jit` function found in a file.
#[derive(Debug, Clone)]
pub struct KernelSummary {
    /// The module-level name the kernel is reachable under.
    pub name: String,
    /// Where the kernel gets that name: the `def`'s name, or a `k = triton.jit(f)` line.
    pub name_span: Span,
    /// Everything discovery knows about the kernel (definition, jit options, autotune).
    pub kernel: Kernel,
}

/// What the front end found in one file.
#[derive(Debug)]
pub struct FileAnalysis {
    /// The parsed module (empty after a syntax error).
    pub module: Module,
    /// The module's functions, kernels and constexpr globals, as discovery found them.
    pub index: ModuleIndex,
    /// The `@triton.jit` functions, in source order.
    pub kernels: Vec<KernelSummary>,
    /// Syntax, discovery and accepted-subset diagnostics, in source order.
    pub diagnostics: Vec<Diagnostic>,
}

/// Parses `file`, discovers its kernels and checks each against the accepted subset.
/// With `project` (the command's projects and the file's path on disk), names the file
/// imports from a project module that re-exports Triton (`from pkg.triton_utils import
/// triton`) resolve to Triton's, so kernels decorated through them are found.
pub fn analyze_file(
    file: FileId,
    sources: &SourceMap,
    project: Option<(&Projects, &Path)>,
) -> FileAnalysis {
    let text = sources.get(file).text();
    let parsed = tritonc_syntax::parse_module(file, text);
    let index = match project {
        Some((projects, path)) => projects.discover(path, &parsed.module),
        None => discover(&parsed.module),
    };
    let mut diagnostics = parsed.diagnostics;
    diagnostics.extend(index.diagnostics.iter().cloned());

    let mut checked: Vec<&Arc<tritonc_syntax::ast::FunctionDef>> = Vec::new();
    let mut kernels = Vec::new();
    for kernel in &index.kernels {
        // A function rebound under two names is still checked once.
        if !checked.iter().any(|def| Arc::ptr_eq(def, &kernel.def)) {
            diagnostics.extend(tritonc_syntax::check_kernel_subset(&kernel.def));
            checked.push(&kernel.def);
        }
        let name_span = match kernel.binding {
            JitBinding::Decorator => kernel.def.name.span,
            JitBinding::Rebinding(span) => span,
        };
        kernels.push(KernelSummary {
            name: kernel.name.clone(),
            name_span,
            kernel: kernel.clone(),
        });
    }
    kernels.sort_by_key(|k| k.name_span.start);
    diagnostics.sort_by_key(|d| d.primary_span().map(|s| (s.start, s.end)));
    FileAnalysis {
        module: parsed.module,
        index,
        kernels,
        diagnostics,
    }
}
