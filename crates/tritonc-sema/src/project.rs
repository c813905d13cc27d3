//! Cross-file resolution: the modules of the project a kernel file belongs to.
//!
//! Sema does no file I/O. A [`ModuleLoader`] (the CLI's reads the file system under the
//! project root) hands out parsed, discovered modules by dotted name; a [`Project`] turns
//! them into [`ModuleScope`]s, once each, and resolves dotted paths (`pkg.ops.exp2`,
//! `.ops.exp2` relative to the importing module) into values: `@jit` functions inlined with
//! their own scope and file, `X = tl.constexpr(...)` globals, re-exports and star imports.
//!
//! A path no loaded module contains is *outside the project*: it stays an opaque module
//! value, which generic analysis treats as unknown and specialized lowering reports when
//! the kernel uses it.

use std::cell::RefCell;
use std::collections::HashMap;
use std::sync::{Arc, Mutex, Weak};

use tritonc_diagnostics::{Diagnostic, Span};
use tritonc_syntax::resolve::is_triton_path;
use tritonc_syntax::ModuleIndex;

use crate::constexpr::attrs;
use crate::lower::ModuleScope;
use crate::value::{Constexpr, FunctionRef};

/// A module of the project, parsed and discovered.
#[derive(Debug)]
pub struct LoadedModule {
    /// Its dotted name (`pkg.ops`).
    pub name: String,
    /// Whether it is a package's `__init__.py` (relative imports start from it, not its
    /// parent).
    pub is_package: bool,
    /// What discovery found in it.
    pub index: ModuleIndex,
}

/// Hands out the project's modules by dotted name; `None` for a module outside the
/// project (or one that does not parse).
pub trait ModuleLoader: Send + Sync {
    /// The module `dotted` (`pkg.ops`), if the project has it.
    fn load(&self, dotted: &str) -> Option<Arc<LoadedModule>>;
}

/// The project's modules as scopes, built on first use and cached.
pub struct Project {
    loader: Box<dyn ModuleLoader>,
    scopes: Mutex<HashMap<String, Option<Arc<ModuleScope>>>>,
}

impl std::fmt::Debug for Project {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Project").finish_non_exhaustive()
    }
}

thread_local! {
    /// Modules whose scopes are being built on this thread, by project: a module that
    /// (through its imports) needs its own scope while it is built sees none.
    static BUILDING: RefCell<Vec<(usize, String)>> = const { RefCell::new(Vec::new()) };
}

/// How a module is linked to its project: cached scopes hold a weak link (the cache holds
/// them), scopes the caller builds hold the project alive.
#[derive(Debug, Clone)]
pub(crate) struct ProjectLink {
    weak: Weak<Project>,
    _owner: Option<Arc<Project>>,
}

impl ProjectLink {
    pub(crate) fn get(&self) -> Option<Arc<Project>> {
        self.weak.upgrade()
    }
}

/// What a dotted path stands for in a project.
pub(crate) enum PathTarget {
    /// A value of a project module.
    Value(Constexpr),
    /// The path goes into project module `module`, which has no `attr`.
    Missing {
        /// The deepest project module on the path.
        module: String,
        /// The name it lacks.
        attr: String,
    },
    /// No project module is on the path.
    Outside,
}

impl Project {
    /// A project over `loader`.
    pub fn new(loader: impl ModuleLoader + 'static) -> Arc<Project> {
        Arc::new(Project {
            loader: Box::new(loader),
            scopes: Mutex::new(HashMap::new()),
        })
    }

    /// The scope of the file being analysed, module `name` of this project, which may
    /// import the project's other modules.
    pub fn root_scope(
        self: &Arc<Self>,
        index: &ModuleIndex,
        name: &str,
        is_package: bool,
    ) -> ModuleScope {
        let link = ProjectLink {
            weak: Arc::downgrade(self),
            _owner: Some(self.clone()),
        };
        ModuleScope::build(index, Some((name.to_string(), is_package, link)))
    }

    /// The scope of project module `dotted`, built once; `None` outside the project or
    /// while that module's own scope is being built (an import cycle).
    pub fn scope(self: &Arc<Self>, dotted: &str) -> Option<Arc<ModuleScope>> {
        if let Some(cached) = self.lock().get(dotted) {
            return cached.clone();
        }
        let key = (Arc::as_ptr(self) as usize, dotted.to_string());
        if BUILDING.with(|b| b.borrow().contains(&key)) {
            return None;
        }
        let loaded = self.loader.load(dotted);
        let scope = loaded.map(|m| {
            BUILDING.with(|b| b.borrow_mut().push(key.clone()));
            let link = ProjectLink {
                weak: Arc::downgrade(self),
                _owner: None,
            };
            let s = ModuleScope::build(&m.index, Some((m.name.clone(), m.is_package, link)));
            BUILDING.with(|b| b.borrow_mut().retain(|k| *k != key));
            Arc::new(s)
        });
        // Another thread may have built it meanwhile; the first one stands.
        self.lock()
            .entry(dotted.to_string())
            .or_insert(scope)
            .clone()
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<String, Option<Arc<ModuleScope>>>> {
        // A panic while holding the lock leaves a usable map (entries are whole).
        self.scopes.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// What the absolute dotted `path` stands for: the deepest project module on it, then
    /// the names after it looked up there (re-exports and star imports followed).
    pub(crate) fn resolve_path(
        self: &Arc<Self>,
        path: &str,
        span: Span,
        visited: &mut Vec<String>,
    ) -> Result<PathTarget, Diagnostic> {
        if is_triton_path(path) || visited.iter().any(|v| v == path) || visited.len() > 32 {
            return Ok(PathTarget::Outside);
        }
        visited.push(path.to_string());
        let parts: Vec<&str> = path.split('.').collect();
        for i in (1..=parts.len()).rev() {
            let module = parts[..i].join(".");
            let Some(scope) = self.scope(&module) else {
                continue;
            };
            let Some(first) = parts.get(i) else {
                return Ok(PathTarget::Value(Constexpr::module(&module)));
            };
            let Some(mut value) = scope_export(&scope, first, span, visited)? else {
                return Ok(PathTarget::Missing {
                    module,
                    attr: first.to_string(),
                });
            };
            for (k, attr) in parts[i + 1..].iter().enumerate() {
                value = match &value {
                    Constexpr::Module(m) if !is_triton_path(m) => {
                        let rest = parts[i + 1 + k..].join(".");
                        return self.resolve_path(&format!("{m}.{rest}"), span, visited);
                    }
                    v => attrs::get_attr(v, attr, span)?,
                };
            }
            return Ok(PathTarget::Value(value));
        }
        Ok(PathTarget::Outside)
    }
}

/// What module `scope` exports under `name`: its `@jit` functions, constexpr globals,
/// imports and star imports (each module visited once per lookup).
pub(crate) fn scope_export(
    scope: &Arc<ModuleScope>,
    name: &str,
    span: Span,
    visited: &mut Vec<String>,
) -> Result<Option<Constexpr>, Diagnostic> {
    if scope.functions.contains_key(name) || scope.constexpr_functions.contains_key(name) {
        return Ok(Some(Constexpr::Function(FunctionRef {
            name: Arc::from(name),
            scope: Some(scope.clone()),
        })));
    }
    if scope.plain_functions.iter().any(|f| f == name) {
        // Host code: opaque (generic analysis goes on; a call is reported).
        let module = scope.name.as_deref().unwrap_or("");
        return Ok(Some(Constexpr::module(&format!("{module}.{name}"))));
    }
    Ok(match scope.resolve_in(name, span, visited)? {
        Some(Constexpr::Function(f)) if f.scope.is_none() => {
            Some(Constexpr::Function(FunctionRef {
                name: f.name,
                scope: Some(scope.clone()),
            }))
        }
        other => other,
    })
}

/// The absolute module path of a possibly relative `path` (`..ops.exp2`) imported by
/// module `importer`; `None` when it climbs above the project's top level.
pub fn absolute(path: &str, importer: &str, is_package: bool) -> Option<String> {
    let level = path.bytes().take_while(|&b| b == b'.').count();
    if level == 0 {
        return Some(path.to_string());
    }
    let mut base: Vec<&str> = importer.split('.').collect();
    if !is_package {
        base.pop();
    }
    for _ in 1..level {
        base.pop()?;
    }
    let rest = &path[level..];
    if base.is_empty() {
        return (!rest.is_empty()).then(|| rest.to_string());
    }
    Some(if rest.is_empty() {
        base.join(".")
    } else {
        format!("{}.{rest}", base.join("."))
    })
}

#[cfg(test)]
mod tests;
