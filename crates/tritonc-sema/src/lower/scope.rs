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
use crate::project::{absolute, scope_export, PathTarget, ProjectLink};
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
    /// `@jit(debug=True)` functions: launched as kernels, they run in debug mode (found
    /// by the same discovery as the functions, so a decorator reached through a
    /// project's re-export of `triton` counts).
    pub debug: Vec<String>,
    /// Module-level functions that are not `@jit` (host code, `libentry`-style wrappers).
    pub plain_functions: Vec<String>,
    /// `@triton.constexpr_function` / `@tl.constexpr` functions: plain Python kernels call
    /// at compile time (they resolve to a [`FunctionRef`] like `@jit` functions).
    pub constexpr_functions: IndexMap<String, Arc<FunctionDef>>,
    /// Module-level names kernels cannot read, for precise errors.
    pub hidden: IndexMap<String, HiddenGlobal>,
    /// The module's imports and aliases.
    pub resolver: NameResolver,
    /// The module's dotted name in its project (`None` for a file analysed on its own).
    pub name: Option<String>,
    /// Whether the module is a package's `__init__.py`.
    pub is_package: bool,
    /// The project whose other modules its imports reach.
    pub(crate) project: Option<ProjectLink>,
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

    /// The scope of a discovered module, on its own (imports of other project modules
    /// stay opaque; see [`crate::project::Project::root_scope`]).
    pub fn from_index(index: &ModuleIndex) -> ModuleScope {
        ModuleScope::build(index, None)
    }

    /// The scope of a discovered module, with its name and project when it has one.
    pub(crate) fn build(
        index: &ModuleIndex,
        project: Option<(String, bool, ProjectLink)>,
    ) -> ModuleScope {
        let mut scope = ModuleScope {
            resolver: index.resolver.clone(),
            ..ModuleScope::default()
        };
        if let Some((name, is_package, link)) = project {
            scope.name = Some(name);
            scope.is_package = is_package;
            scope.project = Some(link);
        }
        for f in index.functions.iter().filter(|f| !f.is_jit) {
            if f.is_constexpr_function {
                scope
                    .constexpr_functions
                    .insert(f.def.name.name.clone(), f.def.clone());
            } else {
                scope.plain_functions.push(f.def.name.name.clone());
            }
        }
        for k in &index.kernels {
            scope.functions.insert(k.name.clone(), k.def.clone());
            if k.jit.noinline {
                scope.noinline.push(k.name.clone());
            }
            if k.jit.debug == Some(true) {
                scope.debug.push(k.name.clone());
            }
        }
        // `alias = jit_function` at module level: Triton resolves the global to the same
        // `JITFunction` (or constexpr function).
        for (alias, target) in &index.aliases {
            if scope.functions.contains_key(alias) || scope.constexpr_functions.contains_key(alias) {
                continue;
            }
            if let Some(def) = scope.functions.get(target).cloned() {
                scope.functions.insert(alias.clone(), def);
            } else if let Some(def) = scope.constexpr_functions.get(target).cloned() {
                scope.constexpr_functions.insert(alias.clone(), def);
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
    /// global, or an import. `Err` for a global kernels may not read, or a name imported
    /// from a project module that lacks it.
    pub fn resolve(&self, name: &str, span: Span) -> Result<Option<Constexpr>, Diagnostic> {
        self.resolve_in(name, span, &mut Vec::new())
    }

    /// [`ModuleScope::resolve`] with the modules and paths this lookup already visited
    /// (star imports and re-exports may form cycles).
    pub(crate) fn resolve_in(
        &self,
        name: &str,
        span: Span,
        visited: &mut Vec<String>,
    ) -> Result<Option<Constexpr>, Diagnostic> {
        if self.functions.contains_key(name) || self.constexpr_functions.contains_key(name) {
            return Ok(Some(Constexpr::Function(FunctionRef {
                name: Arc::from(name),
                scope: None,
            })));
        }
        if let Some(v) = self.globals.get(name) {
            return Ok(Some(v.clone()));
        }
        if let Some(h) = self.hidden.get(name) {
            return Err(hidden_error(name, h, span));
        }
        let mut paths = self.resolver.resolve_name(name);
        if paths.is_empty() {
            return self.star_export(name, span, visited);
        }
        if let Some(project) = self.project.as_ref().and_then(ProjectLink::get) {
            let mut missing = None;
            for p in paths.iter_mut() {
                if tritonc_syntax::resolve::is_triton_path(p) {
                    continue;
                }
                let Some(abs) = self.absolute(p) else {
                    continue;
                };
                match project.resolve_path(&abs, span, visited)? {
                    PathTarget::Value(v) => return Ok(Some(v)),
                    PathTarget::Missing { module, attr } => {
                        missing.get_or_insert((abs.clone(), module, attr));
                    }
                    PathTarget::Outside => {}
                }
                *p = abs;
            }
            let triton = paths
                .iter()
                .find(|p| tritonc_syntax::resolve::is_triton_path(p));
            if let (None, Some((abs, module, attr))) = (triton, missing) {
                return Err(Diagnostic::error(
                    codes::UNDEFINED_NAME,
                    format!("`{name}` is imported as `{abs}`, but `{module}` has no `{attr}`"),
                )
                .with_primary(span, "used here")
                .with_note(format!(
                    "`{module}` is a module of this project; it defines no `@triton.jit` \
                     function, `tl.constexpr` global or import named `{attr}`"
                )));
            }
        }
        let first = &paths[0];
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

    /// `path` made absolute from this module (`.ops` in `pkg.mod` is `pkg.ops`); `None`
    /// for a relative path of a module without a name.
    fn absolute(&self, path: &str) -> Option<String> {
        match &self.name {
            Some(me) => absolute(path, me, self.is_package),
            None => (!path.starts_with('.')).then(|| path.to_string()),
        }
    }

    /// `name` as one of this module's `from M import *` modules in the project exports it.
    pub(crate) fn star_export(
        &self,
        name: &str,
        span: Span,
        visited: &mut Vec<String>,
    ) -> Result<Option<Constexpr>, Diagnostic> {
        let Some(project) = self.project.as_ref().and_then(ProjectLink::get) else {
            return Ok(None);
        };
        if let Some(me) = &self.name {
            visited.push(format!("*{me}"));
        }
        for m in self.resolver.star_modules() {
            let Some(abs) = self.absolute(m) else {
                continue;
            };
            let key = format!("*{abs}");
            if tritonc_syntax::resolve::is_triton_path(&abs) || visited.contains(&key) {
                continue;
            }
            visited.push(key);
            if let Some(scope) = project.scope(&abs) {
                if let Some(v) = scope_export(&scope, name, span, visited)? {
                    return Ok(Some(v));
                }
            }
        }
        Ok(None)
    }

    /// `module.attr` for a project module `module` (an absolute path): `None` when
    /// `module` is not in the project.
    pub(crate) fn project_attr(
        &self,
        module: &str,
        attr: &str,
        span: Span,
    ) -> Option<Result<Constexpr, Diagnostic>> {
        let project = self.project.as_ref().and_then(ProjectLink::get)?;
        let path = format!("{module}.{attr}");
        match project.resolve_path(&path, span, &mut Vec::new()) {
            Ok(PathTarget::Value(v)) => Some(Ok(v)),
            Ok(PathTarget::Missing { module, attr }) => Some(Err(Diagnostic::error(
                codes::UNKNOWN_ATTRIBUTE,
                format!("`{module}` has no `{attr}`"),
            )
            .with_primary(span, "no such name in this project module"))),
            Ok(PathTarget::Outside) => None,
            Err(d) => Some(Err(d)),
        }
    }

    /// Whether the absolute `path` names a module-level function of a project module that
    /// is not `@jit` (kernels cannot call it).
    pub(crate) fn is_plain_function(&self, path: &str) -> bool {
        let Some(project) = self.project.as_ref().and_then(ProjectLink::get) else {
            return false;
        };
        let Some((module, name)) = path.rsplit_once('.') else {
            return false;
        };
        project.scope(module).is_some_and(|s| {
            s.plain_functions.iter().any(|f| f == name) && !s.functions.contains_key(name)
        })
    }

    /// `name`'s key in inlining chains: qualified by the module when it has a name.
    pub(crate) fn qualified(&self, name: &str) -> String {
        match &self.name {
            Some(m) => format!("{m}.{name}"),
            None => name.to_string(),
        }
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
