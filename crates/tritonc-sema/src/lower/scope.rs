//! What a module offers kernels at compile time, built from `tritonc-syntax`'s
//! [`ModuleIndex`]: its `@jit` functions, its `X = tl.constexpr(v)` globals, and its
//! imports through the index's [`NameResolver`] — the one answer to "what does this
//! module-level name stand for".

use std::sync::Arc;

use indexmap::IndexMap;
use tritonc_diagnostics::{Diagnostic, FileId, Span};
use tritonc_syntax::ast::{self, FunctionDef};
use tritonc_syntax::discovery::{ConstexprGlobalKind, ModuleIndex};
use tritonc_syntax::{discover, NameResolver};

use crate::builtins::names::module_attr;
use crate::codes;
use crate::constexpr::{self, ConstEnv};
use crate::value::{Constexpr, FunctionRef};

/// A module-level name a kernel may not read, and why.
#[derive(Debug, Clone)]
pub enum HiddenGlobal {
    /// `X: tl.constexpr = v` or `X = 3`: a Python global, not a Triton constexpr.
    NotConstexpr {
        /// How it is written.
        kind: ConstexprGlobalKind,
        /// The assignment.
        span: Span,
    },
    /// `X = tl.constexpr(v)` whose value tritonc cannot evaluate.
    Unevaluable(Diagnostic),
}

/// What a module offers kernels at compile time.
#[derive(Debug, Clone, Default)]
pub struct ModuleScope {
    /// `X = tl.constexpr(v)` globals, evaluated in source order.
    pub globals: IndexMap<String, Constexpr>,
    /// `@jit` functions by the module-level name they are reachable under.
    pub functions: IndexMap<String, Arc<FunctionDef>>,
    /// `@jit(noinline=True)` functions (tritonc inlines them anyway).
    pub noinline: Vec<String>,
    /// Module-level names kernels cannot read, for precise errors.
    pub hidden: IndexMap<String, HiddenGlobal>,
    /// The module's imports and aliases.
    pub resolver: NameResolver,
}

/// The compile-time value of a dotted path (`triton.language.float16`,
/// `triton.language.extra.libdevice`); `None` for a path into a modelled module that has
/// no such name.
pub fn path_value(path: &str) -> Option<Constexpr> {
    if path == "triton" || path == "builtins" {
        return Some(Constexpr::module(path));
    }
    let Some((module, attr)) = path.rsplit_once('.') else {
        // A plain top-level module (`math`, `torch`): opaque.
        return Some(Constexpr::module(path));
    };
    match module_attr(module, attr) {
        Ok(v) => v,
        // Modules tritonc does not model stay opaque modules; their uses are reported.
        Err(_) => Some(Constexpr::module(path)),
    }
}

impl ModuleScope {
    /// Parses nothing: discovers `module` and builds its scope.
    pub fn from_module(module: &ast::Module) -> ModuleScope {
        ModuleScope::from_index(&discover(module))
    }

    /// The scope of a discovered module.
    pub fn from_index(index: &ModuleIndex) -> ModuleScope {
        let mut scope = ModuleScope {
            resolver: index.resolver.clone(),
            ..ModuleScope::default()
        };
        for k in &index.kernels {
            scope.functions.insert(k.name.clone(), k.def.clone());
            if k.jit.noinline {
                scope.noinline.push(k.name.clone());
            }
        }
        for g in &index.constexpr_globals {
            let name = g.name.name.clone();
            if g.conditional
                && (scope.globals.contains_key(&name) || scope.hidden.contains_key(&name))
            {
                // Of imports chosen in an `if`/`try`, the first one stands.
                continue;
            }
            match g.kind {
                ConstexprGlobalKind::Wrapped => match constexpr::eval_expr(&g.value, &scope) {
                    Ok(v) => {
                        scope.hidden.shift_remove(&name);
                        scope.globals.insert(name, v);
                    }
                    Err(d) => {
                        scope.globals.shift_remove(&name);
                        scope.hidden.insert(name, HiddenGlobal::Unevaluable(d));
                    }
                },
                kind => {
                    scope.globals.shift_remove(&name);
                    scope
                        .hidden
                        .insert(name, HiddenGlobal::NotConstexpr { kind, span: g.span });
                }
            }
        }
        scope
    }

    /// What a module-level `name` stands for in a kernel: a `@jit` function, a constexpr
    /// global, or an import. `Err` for a global kernels may not read.
    pub fn resolve(&self, name: &str, span: Span) -> Result<Option<Constexpr>, Diagnostic> {
        if self.functions.contains_key(name) {
            return Ok(Some(Constexpr::Function(FunctionRef {
                name: Arc::from(name),
            })));
        }
        if let Some(v) = self.globals.get(name) {
            return Ok(Some(v.clone()));
        }
        if let Some(h) = self.hidden.get(name) {
            return Err(hidden_error(name, h, span));
        }
        let paths = self.resolver.resolve_name(name);
        let Some(first) = paths.first() else {
            return Ok(None);
        };
        if let Some(v) = paths.iter().find_map(|p| path_value(p)) {
            return Ok(Some(v));
        }
        let (module, attr) = first.rsplit_once('.').unwrap_or(("", first));
        Err(Diagnostic::error(
            codes::UNDEFINED_NAME,
            format!("`{name}` is imported as `{first}`, but `{module}` has no `{attr}`"),
        )
        .with_primary(span, "used here"))
    }
}

fn hidden_error(name: &str, h: &HiddenGlobal, span: Span) -> Diagnostic {
    match h {
        HiddenGlobal::NotConstexpr { kind, span: def } => {
            let d = Diagnostic::error(
                codes::NON_CONSTEXPR_GLOBAL,
                format!("kernels cannot read the global `{name}`: it is not a `tl.constexpr`"),
            )
            .with_primary(span, "read here")
            .with_secondary(*def, "defined here");
            match kind {
                ConstexprGlobalKind::Annotated => d
                    .with_note(
                        "annotating a global `tl.constexpr` does not make it one in Triton 3.6",
                    )
                    .with_help(format!("define it as `{name} = tl.constexpr(...)`")),
                _ => d.with_help(format!("wrap the value: `{name} = tl.constexpr(...)`")),
            }
        }
        HiddenGlobal::Unevaluable(cause) => {
            let mut d = Diagnostic::error(
                codes::NON_CONSTEXPR_GLOBAL,
                format!("the global `{name}` has no compile-time value"),
            )
            .with_primary(span, "read here");
            if let Some(s) = cause.primary_span() {
                d = d.with_secondary(s, cause.message.clone());
            }
            d
        }
    }
}

impl ConstEnv for ModuleScope {
    fn lookup(&self, name: &str) -> Option<Constexpr> {
        // The span only labels errors, which an environment lookup discards.
        match self.resolve(name, Span::point(FileId(0), 0)) {
            Ok(Some(v)) => Some(v),
            Ok(None) => constexpr::default_name(name),
            Err(_) => None,
        }
    }
}

/// Module-level names with the current function's constexpr locals in front.
pub(crate) struct LocalEnv<'a> {
    /// The module.
    pub module: &'a ModuleScope,
    /// Constexpr locals, shadowing the module.
    pub locals: IndexMap<String, Constexpr>,
}

impl ConstEnv for LocalEnv<'_> {
    fn lookup(&self, name: &str) -> Option<Constexpr> {
        self.locals
            .get(name)
            .cloned()
            .or_else(|| self.module.lookup(name))
    }
}
