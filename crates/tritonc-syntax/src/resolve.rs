//! Module-level name resolution: which dotted path each imported (or aliased) name
//! stands for.
//!
//! Paths are the module paths the imports name, followed verbatim: `tl.math.exp` with
//! `import triton.language as tl` is `triton.language.math.exp`; `tl.exp` is
//! `triton.language.exp`. Re-exports (`triton.language.exp` is `triton.language.math.exp`)
//! are Triton's API surface and are left to sema. Imports chosen inside a module-level
//! `if` or `try` are all recorded, in source order, as alternatives.

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
                .map(|base| format!("{base}.{}", attr.name))
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
