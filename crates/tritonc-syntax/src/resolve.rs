//! Module-level name resolution: which dotted path each imported (or aliased) name
//! stands for.
//!
//! Paths are the module paths the imports name, followed verbatim: `tl.math.exp` with
//! `import triton.language as tl` is `triton.language.math.exp`; `tl.exp` is
//! `triton.language.exp`. Re-exports (`triton.language.exp` is `triton.language.math.exp`)
//! are Triton's API surface and are left to sema. Imports chosen inside a module-level
//! `if` or `try` are all recorded, in source order, as alternatives.
//!
//! A name imported from another module of the project that re-exports Triton
//! (`from pkg.triton_utils import tl, triton`, where `pkg/triton_utils/__init__.py` runs
//! `import triton` when Triton is installed and binds placeholders otherwise) stands for
//! what that module binds: [`NameResolver::follow_reexports`] rewrites such bindings to the
//! Triton paths, given a lookup over the project (the driver's; this crate does no I/O).

use std::collections::HashMap;

use tritonc_diagnostics::Span;

use crate::ast::*;

/// One thing a module-level name may be bound to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NameBinding {
    /// The dotted path the name stands for (`triton.language`).
    pub path: String,
    /// The import alias (or assignment) that binds it.
    pub span: Span,
    /// Whether the binding sits inside a module-level `if`/`try` (one of several choices).
    pub conditional: bool,
}

/// Resolves names and attribute chains to dotted module paths.
#[derive(Debug, Clone, Default)]
pub struct NameResolver {
    bindings: HashMap<String, Vec<NameBinding>>,
    /// Modules imported with `from M import *`, searched for otherwise unbound names.
    star_modules: Vec<String>,
    /// Project modules bound to a name (by the path this module's imports write) with the
    /// names in them that re-export Triton: `compat.triton.jit` with `from pkg import
    /// compat` is `triton.jit` when `pkg/compat.py` imports `triton`.
    module_reexports: HashMap<String, HashMap<String, Vec<String>>>,
}

/// What a path one of a module's imports names stands for in the project
/// ([`NameResolver::follow_reexports`]).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub enum Reexport {
    /// Nothing Triton: the path is kept as written.
    #[default]
    None,
    /// A name another module binds to these Triton paths (`pkg.triton_utils.tl` is
    /// `triton.language`).
    Paths(Vec<String>),
    /// A module of the project, with the names in it that re-export Triton.
    Module(HashMap<String, Vec<String>>),
}

/// Whether `path` names something inside the `triton` package.
pub fn is_triton_path(path: &str) -> bool {
    path == "triton" || path.starts_with("triton.")
}

impl NameResolver {
    /// Collects the imports and module-level aliases (`libdevice = tl.extra.cuda.libdevice`)
    /// of `module`, including those inside module-level `if`/`try`/`with` blocks.
    pub fn from_module(module: &Module) -> Self {
        let mut r = NameResolver::default();
        r.collect(&module.body, false);
        r
    }

    fn bind(&mut self, name: &str, binding: NameBinding) {
        let slot = self.bindings.entry(name.to_string()).or_default();
        if binding.conditional {
            if !slot.iter().any(|b| b.path == binding.path) {
                slot.push(binding);
            }
        } else {
            *slot = vec![binding];
        }
    }

    fn collect(&mut self, stmts: &[Stmt], conditional: bool) {
        for stmt in stmts {
            match &stmt.kind {
                StmtKind::Import(aliases) => {
                    for a in aliases {
                        let (local, path) = match &a.asname {
                            Some(asname) => (asname.name.clone(), a.name.name.clone()),
                            // `import a.b.c` binds `a`, which then reaches `a.b.c`.
                            None => {
                                let root = a.name.name.split('.').next().unwrap_or("");
                                (root.to_string(), root.to_string())
                            }
                        };
                        self.bind(
                            &local,
                            NameBinding {
                                path,
                                span: a.span,
                                conditional,
                            },
                        );
                    }
                }
                StmtKind::ImportFrom {
                    module,
                    level,
                    names,
                } => {
                    let mut base = ".".repeat(*level as usize);
                    if let Some(m) = module {
                        base.push_str(&m.name);
                    }
                    for a in names {
                        if a.name.name == "*" {
                            self.star_modules.push(base.clone());
                            continue;
                        }
                        let local = a.asname.as_ref().unwrap_or(&a.name).name.clone();
                        let path = if base.ends_with('.') || base.is_empty() {
                            format!("{base}{}", a.name.name)
                        } else {
                            format!("{base}.{}", a.name.name)
                        };
                        self.bind(
                            &local,
                            NameBinding {
                                path,
                                span: a.span,
                                conditional,
                            },
                        );
                    }
                }
                // `exp = tl.exp` or `libdevice = tl.extra.cuda.libdevice`: an alias of a
                // path, as real kernel files write when choosing between versions.
                StmtKind::Assign { targets, value } if targets.len() == 1 => {
                    if let (Some(name), Some(path)) = (targets[0].as_name(), self.resolve(value)) {
                        let binding = NameBinding {
                            path,
                            span: stmt.span,
                            conditional,
                        };
                        self.bind(name, binding);
                    }
                }
                StmtKind::If { body, orelse, .. } => {
                    self.collect(body, true);
                    self.collect(orelse, true);
                }
                StmtKind::Try(t) => {
                    self.collect(&t.body, true);
                    for h in &t.handlers {
                        self.collect(&h.body, true);
                    }
                    self.collect(&t.orelse, true);
                    self.collect(&t.finalbody, conditional);
                }
                StmtKind::With { body, .. } => self.collect(body, conditional),
                _ => {}
            }
        }
    }

    /// Rewrites every binding whose path another module re-exports from Triton:
    /// `reexported(path)` answers, for a path as this module's imports write it
    /// (`vllm.triton_utils.tl`, `..triton_utils.triton`, `pkg.utils.tl.extra.cuda.libdevice`),
    /// the Triton paths it stands for in the module that defines it
    /// ([`Reexport::Paths`]), or, for a project module, the names in it that re-export
    /// Triton ([`Reexport::Module`]: attribute chains through it resolve to Triton's). A
    /// binding with several answers (a module that chooses between Triton spellings)
    /// becomes one conditional alternative per answer; the binding's span stays the import
    /// in this module.
    pub fn follow_reexports(&mut self, reexported: &dyn Fn(&str) -> Reexport) {
        let mut modules = Vec::new();
        for slot in self.bindings.values_mut() {
            let mut out: Vec<NameBinding> = Vec::with_capacity(slot.len());
            for b in slot.drain(..) {
                let answer = if is_triton_path(&b.path) {
                    Reexport::None
                } else {
                    reexported(&b.path)
                };
                let paths = match answer {
                    Reexport::Paths(paths) if !paths.is_empty() => paths,
                    Reexport::Module(names) => {
                        if !names.is_empty() {
                            modules.push((b.path.clone(), names));
                        }
                        out.push(b);
                        continue;
                    }
                    _ => {
                        out.push(b);
                        continue;
                    }
                };
                let conditional = b.conditional || paths.len() > 1;
                for path in paths {
                    if !out.iter().any(|o| o.path == path) {
                        out.push(NameBinding {
                            path,
                            span: b.span,
                            conditional,
                        });
                    }
                }
            }
            *slot = out;
        }
        self.module_reexports.extend(modules);
    }

    /// The names this module binds by imports and aliases (in no particular order).
    pub fn names(&self) -> impl Iterator<Item = &str> {
        self.bindings.keys().map(String::as_str)
    }

    /// Every binding of a module-level `name`, in source order (several when chosen
    /// inside `if`/`try`).
    pub fn bindings(&self, name: &str) -> &[NameBinding] {
        self.bindings.get(name).map_or(&[], Vec::as_slice)
    }

    /// The first path `expr` (a name or attribute chain) resolves to, if its root name is
    /// imported or aliased.
    pub fn resolve(&self, expr: &Expr) -> Option<String> {
        self.resolve_all(expr).into_iter().next()
    }

    /// Every path `expr` may resolve to, one per alternative binding of its root name.
    pub fn resolve_all(&self, expr: &Expr) -> Vec<String> {
        match &expr.kind {
            ExprKind::Name(n) => self.resolve_name(n),
            ExprKind::Attribute { value, attr } => self
                .resolve_all(value)
                .into_iter()
                .flat_map(|base| {
                    match self
                        .module_reexports
                        .get(&base)
                        .and_then(|names| names.get(&attr.name))
                    {
                        Some(paths) => paths.clone(),
                        None => vec![format!("{base}.{}", attr.name)],
                    }
                })
                .collect(),
            _ => Vec::new(),
        }
    }

    /// The Triton path `expr` resolves to, or `None` when it is not a Triton name.
    pub fn resolve_triton(&self, expr: &Expr) -> Option<String> {
        self.resolve_all(expr)
            .into_iter()
            .find(|p| is_triton_path(p))
    }

    /// The modules of `from M import *` statements, in source order (relative ones keep
    /// their leading dots).
    pub fn star_modules(&self) -> &[String] {
        &self.star_modules
    }

    /// Every path a bare `name` may stand for.
    pub fn resolve_name(&self, name: &str) -> Vec<String> {
        match self.bindings.get(name) {
            Some(bs) => bs.iter().map(|b| b.path.clone()).collect(),
            // Only Triton modules are assumed to export a star-imported name.
            None => self
                .star_modules
                .iter()
                .filter(|m| is_triton_path(m))
                .map(|m| format!("{m}.{name}"))
                .collect(),
        }
    }
}
