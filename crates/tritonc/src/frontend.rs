//! The one place the CLI calls the front end (tritonc-syntax): parse a file, find its
//! kernels, check them against the accepted subset.
//!
//! Commands see only [`FileAnalysis`]; when the syntax crate's discovery and subset
//! checker change shape, this module is the only one to follow.

use std::sync::Arc;

use tritonc_diagnostics::{Diagnostic, FileId, SourceMap, Span};
use tritonc_syntax::ast::{ExprKind, FunctionDef, Module, StmtKind};

/// A `@triton.jit` function found in a file.
#[derive(Debug, Clone)]
pub struct KernelSummary {
    /// The function's name.
    pub name: String,
    /// The span of the name in the `def` line.
    pub name_span: Span,
    /// The function itself.
    pub def: Arc<FunctionDef>,
}

/// What the front end found in one file.
#[derive(Debug)]
pub struct FileAnalysis {
    /// The parsed module (empty after a syntax error).
    pub module: Module,
    /// The `@triton.jit` functions, in source order.
    pub kernels: Vec<KernelSummary>,
    /// Syntax errors and accepted-subset violations, in source order.
    pub diagnostics: Vec<Diagnostic>,
}

/// Parses `file`, discovers its kernels and checks each against the accepted subset.
/// Diagnostics come out in source order.
pub fn analyze_file(file: FileId, sources: &SourceMap) -> FileAnalysis {
    let text = sources.get(file).text();
    let parsed = tritonc_syntax::parse_module(file, text);
    let mut analysis = FileAnalysis {
        module: parsed.module,
        kernels: Vec::new(),
        diagnostics: parsed.diagnostics,
    };
    for stmt in &analysis.module.body {
        if let StmtKind::FunctionDef(def) = &stmt.kind {
            if def.decorators.iter().any(is_jit_decorator) {
                analysis
                    .diagnostics
                    .extend(tritonc_syntax::check_kernel_subset(def));
                analysis.kernels.push(KernelSummary {
                    name: def.name.name.clone(),
                    name_span: def.name.span,
                    def: def.clone(),
                });
            }
        }
    }
    analysis
        .diagnostics
        .sort_by_key(|d| d.primary_span().map(|s| (s.start, s.end)));
    analysis
}

/// `@triton.jit`, `@jit`, `@triton.jit(...)` and friends. Provisional: import-aware
/// discovery belongs to tritonc-syntax and replaces this once it is available.
fn is_jit_decorator(decorator: &tritonc_syntax::ast::Expr) -> bool {
    let target = match &decorator.kind {
        ExprKind::Call(call) => &call.func,
        _ => decorator,
    };
    target
        .dotted_path()
        .is_some_and(|path| path == "jit" || path.ends_with(".jit"))
}
