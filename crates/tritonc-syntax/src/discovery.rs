//! Kernel discovery: which module-level functions are `@triton.jit` kernels, with their
//! jit options, autotune configs and heuristics, plus the module's constexpr globals.

use std::collections::HashMap;
use std::sync::Arc;

use tritonc_diagnostics::{Diagnostic, Span};

use crate::ast::*;
use crate::autotune::{is_computed, read_configs, ConfigContext};
pub use crate::autotune::{TuningConfig, UnexpandedConfigs};
use crate::codes;
use crate::resolve::{NameResolver, Reexport};

/// Everything discovery found in one module.
#[derive(Debug, Clone)]
pub struct ModuleIndex {
    /// Resolves the module's imported names to dotted paths.
    pub resolver: NameResolver,
    /// Every module-level function (including those inside module-level `if`/`try`).
    pub functions: Vec<FunctionInfo>,
    /// The `@triton.jit` functions (kernels and device functions), in source order.
    pub kernels: Vec<Kernel>,
    /// Module-level constexpr globals and plain literal candidates.
    pub constexpr_globals: Vec<ConstexprGlobal>,
    /// Unconditional module-level `alias = name` statements, as (alias, name): gemlite's
    /// `next_power_of_2_triton = next_power_of_2_bitwise_triton` names a `@jit` function.
    pub aliases: Vec<(String, String)>,
    /// Problems with jit/autotune/heuristics arguments (`E02xx`).
    pub diagnostics: Vec<Diagnostic>,
}

impl ModuleIndex {
    /// The kernel bound to `name`, if any.
    pub fn kernel(&self, name: &str) -> Option<&Kernel> {
        self.kernels.iter().find(|k| k.name == name)
    }
}

/// One module-level function definition.
#[derive(Debug, Clone)]
pub struct FunctionInfo {
    /// The definition.
    pub def: Arc<FunctionDef>,
    /// Whether it is `@triton.jit` (decorated or rebound with `f = triton.jit(f)`).
    pub is_jit: bool,
    /// Whether it is decorated `@triton.constexpr_function` or `@tl.constexpr`: plain
    /// Python a kernel calls at compile time on constexpr arguments.
    pub is_constexpr_function: bool,
}

/// How a kernel became a `JITFunction`.
#[derive(Debug, Clone, PartialEq)]
pub enum JitBinding {
    /// By a decorator on the `def`.
    Decorator,
    /// By `name = triton.jit(f, ...)` at module level (the span of that statement).
    Rebinding(Span),
}

/// A `@triton.jit` function.
#[derive(Debug, Clone)]
pub struct Kernel {
    /// The module-level name the kernel is reachable under.
    pub name: String,
    /// The definition.
    pub def: Arc<FunctionDef>,
    /// How it was made a jit function.
    pub binding: JitBinding,
    /// The `triton.jit(...)` options.
    pub jit: JitOptions,
    /// `@triton.autotune(...)`, if present.
    pub autotune: Option<Autotune>,
    /// `@triton.heuristics({...})` entries, from every heuristics decorator, top first.
    pub heuristics: Vec<Heuristic>,
    /// Decorators tritonc does not know, kept as written.
    pub other_decorators: Vec<Expr>,
    /// Decorator arguments computed at import time (a module-level dict, a variable, a
    /// helper's result): valid Triton whose values tritonc does not know.
    pub opaque_arguments: Vec<OpaqueArgument>,
}

/// A jit/autotune/heuristics argument tritonc cannot read without running Python.
#[derive(Debug, Clone, PartialEq)]
pub struct OpaqueArgument {
    /// The argument as written.
    pub span: Span,
    /// What it configures (`do_not_specialize`, `heuristics`, ...).
    pub what: String,
}

/// A parameter named by `do_not_specialize` (as a name or an index).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ParamRef {
    /// The parameter's name (an index is resolved to it).
    pub name: String,
    /// Where the reference is written.
    pub span: Span,
}

/// The options of `triton.jit(...)`.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct JitOptions {
    /// `do_not_specialize=[...]`.
    pub do_not_specialize: Vec<ParamRef>,
    /// `do_not_specialize_on_alignment=[...]`.
    pub do_not_specialize_on_alignment: Vec<ParamRef>,
    /// `noinline=True`.
    pub noinline: bool,
    /// `debug=...`, when given as a literal.
    pub debug: Option<bool>,
    /// Other keywords (`launch_metadata`, `repr`, ...), kept as written.
    pub other: Vec<Keyword>,
    /// The decorator or call the options come from.
    pub span: Option<Span>,
}

/// `@triton.autotune(configs=..., key=..., ...)`.
#[derive(Debug, Clone, PartialEq)]
pub struct Autotune {
    /// The configs tritonc could read (comprehensions over literals are expanded).
    pub configs: Vec<TuningConfig>,
    /// Config expressions that could not be expanded, with the reason.
    pub unexpanded: Vec<UnexpandedConfigs>,
    /// The `key=[...]` names as written, with their spans. A name may name no parameter of
    /// the kernel (Triton fails only at launch); check with [`FunctionDef::param`].
    pub key: Vec<(String, Span)>,
    /// Other keywords (`prune_configs_by`, `reset_to_zero`, `restore_value`, ...).
    pub other: Vec<Keyword>,
    /// The decorator.
    pub span: Span,
}

/// One `'NAME': fn` entry of `@triton.heuristics`.
#[derive(Debug, Clone, PartialEq)]
pub struct Heuristic {
    /// The meta-parameter it sets.
    pub name: String,
    /// The key's span.
    pub name_span: Span,
    /// The function of the launch arguments (usually `lambda args: ...`).
    pub value: Expr,
}

/// How a module-level constexpr global is written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ConstexprGlobalKind {
    /// `X: tl.constexpr = v`.
    Annotated,
    /// `X = tl.constexpr(v)`.
    Wrapped,
    /// `X = 3` (a literal): a candidate, readable only with
    /// `TRITON_ALLOW_NON_CONSTEXPR_GLOBALS=1`.
    Plain,
}

/// A module-level global a kernel may read as a constexpr.
#[derive(Debug, Clone, PartialEq)]
pub struct ConstexprGlobal {
    /// The global's name.
    pub name: Ident,
    /// Its value expression (for `Wrapped`, the argument of `tl.constexpr(...)`).
    pub value: Expr,
    /// How it is written.
    pub kind: ConstexprGlobalKind,
    /// Whether it is assigned inside a module-level `if`/`try`.
    pub conditional: bool,
    /// The assignment statement.
    pub span: Span,
}

const JIT_PATHS: &[&str] = &["triton.jit", "triton.runtime.jit", "triton.runtime.jit.jit"];
const AUTOTUNE_PATHS: &[&str] = &[
    "triton.autotune",
    "triton.runtime.autotune",
    "triton.runtime.autotuner.autotune",
];
const HEURISTICS_PATHS: &[&str] = &[
    "triton.heuristics",
    "triton.runtime.heuristics",
    "triton.runtime.autotuner.heuristics",
];
const CONFIG_PATHS: &[&str] = &[
    "triton.Config",
    "triton.runtime.Config",
    "triton.runtime.autotuner.Config",
];
const CONSTEXPR_FUNCTION_PATHS: &[&str] = &[
    "triton.constexpr_function",
    "triton.runtime.jit.constexpr_function",
];
const CONSTEXPR_PATHS: &[&str] = &[
    "triton.language.constexpr",
    "triton.language.core.constexpr",
    "triton.constexpr",
];

/// What a decorator is, as far as Triton is concerned.
enum DecoratorRole<'e> {
    Jit(Option<&'e Call>),
    Autotune(&'e Call),
    Heuristics(&'e Call),
    Other,
}

impl DecoratorRole<'_> {
    fn is_jit(&self) -> bool {
        matches!(self, DecoratorRole::Jit(_))
    }
}

/// Discovery state over one module.
struct Discoverer<'m> {
    resolver: NameResolver,
    /// Module-level names assigned exactly once, unconditionally (for `configs = [...]`).
    values: HashMap<&'m str, &'m Expr>,
    diagnostics: Vec<Diagnostic>,
    /// Opaque arguments of the kernel being read.
    opaque: Vec<OpaqueArgument>,
}

impl ConfigContext for Discoverer<'_> {
    fn is_config_ctor(&self, func: &Expr) -> bool {
        self.is(func, CONFIG_PATHS)
    }
    fn module_value(&self, name: &str) -> Option<&Expr> {
        self.values.get(name).copied()
    }
}

/// Finds the kernels, functions and constexpr globals of `module`, resolving its names by
/// its own imports alone.
pub fn discover(module: &Module) -> ModuleIndex {
    discover_following(module, &|_| Reexport::None)
}

/// [`discover`], with names imported from modules that re-export Triton followed to the
/// Triton paths those modules bind (`reexported`, see
/// [`NameResolver::follow_reexports`]): `@triton.jit` spelled through
/// `from pkg.triton_utils import triton` is a kernel.
pub fn discover_following(module: &Module, reexported: &dyn Fn(&str) -> Reexport) -> ModuleIndex {
    let mut resolver = NameResolver::from_module(module);
    resolver.follow_reexports(reexported);
    let mut counts: HashMap<&str, usize> = HashMap::new();
    let mut values = HashMap::new();
    for s in &module.body {
        if let StmtKind::Assign { targets, value } = &s.kind {
            for t in targets {
                if let Some(n) = t.as_name() {
                    *counts.entry(n).or_default() += 1;
                    values.insert(n, value);
                }
            }
        }
    }
    values.retain(|n, _| counts.get(n) == Some(&1));
    let mut d = Discoverer {
        resolver,
        values,
        diagnostics: Vec::new(),
        opaque: Vec::new(),
    };

    let mut defs = Vec::new();
    collect_defs(&module.body, &mut defs);
    let mut functions = Vec::new();
    let mut kernels = Vec::new();
    for def in &defs {
        let kernel = d.decorated_kernel(def);
        let is_constexpr_function = kernel.is_none()
            && def
                .decorators
                .iter()
                .any(|dec| d.is(dec, CONSTEXPR_FUNCTION_PATHS) || d.is(dec, CONSTEXPR_PATHS));
        functions.push(FunctionInfo {
            def: def.clone(),
            is_jit: kernel.is_some(),
            is_constexpr_function,
        });
        kernels.extend(kernel);
    }
    // `name = triton.jit(f, ...)` at module level.
    for s in &module.body {
        let StmtKind::Assign { targets, value } = &s.kind else {
            continue;
        };
        let (Some(name), Some(call)) = (targets.first().and_then(Expr::as_name), value.as_call())
        else {
            continue;
        };
        if targets.len() != 1 || !d.is(&call.func, JIT_PATHS) {
            continue;
        }
        let Some(fname) = call.args.first().and_then(Expr::as_name) else {
            continue;
        };
        let Some(info) = functions
            .iter_mut()
            .rev()
            .find(|f| f.def.name.name == fname)
        else {
            continue;
        };
        info.is_jit = true;
        let def = info.def.clone();
        let jit = d.jit_options(Some(call), &def, call.func.span.cover(value.span));
        kernels.retain(|k: &Kernel| k.name != name);
        kernels.push(Kernel {
            name: name.to_string(),
            def,
            binding: JitBinding::Rebinding(s.span),
            jit,
            autotune: None,
            heuristics: Vec::new(),
            other_decorators: Vec::new(),
            opaque_arguments: std::mem::take(&mut d.opaque),
        });
    }
    // `@triton.jit` functions inside functions and classes are not kernels tritonc reads;
    // each is reported where it is defined.
    let mut nested = Vec::new();
    for def in &defs {
        nested_defs(&def.body, ("function", &def.name.name), &mut nested);
    }
    collect_classes(&module.body, &mut nested);
    for (def, (kind, container)) in nested {
        if !def.decorators.iter().any(|dec| d.role(dec).is_jit()) {
            continue;
        }
        let note = if kind == "class" {
            "Triton compiles it as a class attribute when it is launched; tritonc reads \
             module-level functions only"
        } else {
            "Triton compiles it when the enclosing function has run and it is launched; its \
             globals are then that call's local variables, which tritonc cannot know ahead of \
             time"
        };
        d.diagnostics.push(
            Diagnostic::warning(
                codes::NESTED_KERNEL,
                format!(
                    "`@triton.jit` function `{}` is defined inside {kind} `{container}`; \
                     tritonc checks and compiles module-level kernels only",
                    def.name.name
                ),
            )
            .with_primary(def.name.span, "not checked")
            .with_note(note)
            .with_help("define it at module level to have tritonc check and compile it"),
        );
    }
    let mut constexpr_globals = Vec::new();
    d.constexpr_globals(&module.body, false, &mut constexpr_globals);
    let aliases = module
        .body
        .iter()
        .filter_map(|s| match &s.kind {
            StmtKind::Assign { targets, value } if targets.len() == 1 => Some((
                targets[0].as_name()?.to_string(),
                value.as_name()?.to_string(),
            )),
            _ => None,
        })
        .collect();
    ModuleIndex {
        resolver: d.resolver,
        functions,
        kernels,
        constexpr_globals,
        aliases,
        diagnostics: d.diagnostics,
    }
}

/// Every `def` of `module` at any depth (module level, inside functions and classes and
/// their blocks), in source order of discovery: module-level definitions first, then the
/// nested ones. A launcher that knows a function's first line (Python's
/// `co_firstlineno`, the line of its first decorator) finds the one it means among them,
/// including a `@triton.jit` function defined inside another function.
pub fn every_def(module: &Module) -> Vec<Arc<FunctionDef>> {
    let mut defs = Vec::new();
    collect_defs(&module.body, &mut defs);
    let mut nested = Vec::new();
    for def in &defs {
        nested_defs(&def.body, ("function", &def.name.name), &mut nested);
    }
    collect_classes(&module.body, &mut nested);
    let nested: Vec<Arc<FunctionDef>> = nested.into_iter().map(|(def, _)| def).collect();
    defs.extend(nested);
    defs
}

/// A `def` and what it is nested in (`"function"` or `"class"`, and its name).
type NestedDef<'m> = (Arc<FunctionDef>, (&'static str, &'m str));

/// Every `def` in `stmts` (a function's or class's body) at any depth, with its innermost
/// enclosing function or class.
fn nested_defs<'m>(
    stmts: &'m [Stmt],
    within: (&'static str, &'m str),
    out: &mut Vec<NestedDef<'m>>,
) {
    for s in stmts {
        match &s.kind {
            StmtKind::FunctionDef(f) => {
                out.push((f.clone(), within));
                nested_defs(&f.body, ("function", &f.name.name), out);
            }
            StmtKind::ClassDef(c) => nested_defs(&c.body, ("class", &c.name.name), out),
            StmtKind::If { body, orelse, .. }
            | StmtKind::For { body, orelse, .. }
            | StmtKind::While { body, orelse, .. } => {
                nested_defs(body, within, out);
                nested_defs(orelse, within, out);
            }
            StmtKind::With { body, .. } => nested_defs(body, within, out),
            StmtKind::Try(t) => {
                nested_defs(&t.body, within, out);
                for h in &t.handlers {
                    nested_defs(&h.body, within, out);
                }
                nested_defs(&t.orelse, within, out);
                nested_defs(&t.finalbody, within, out);
            }
            _ => {}
        }
    }
}

/// The `def`s inside module-level classes (looking inside module-level blocks).
fn collect_classes<'m>(stmts: &'m [Stmt], out: &mut Vec<NestedDef<'m>>) {
    for s in stmts {
        match &s.kind {
            StmtKind::ClassDef(c) => nested_defs(&c.body, ("class", &c.name.name), out),
            StmtKind::If { body, orelse, .. } => {
                collect_classes(body, out);
                collect_classes(orelse, out);
            }
            StmtKind::Try(t) => {
                collect_classes(&t.body, out);
                for h in &t.handlers {
                    collect_classes(&h.body, out);
                }
                collect_classes(&t.orelse, out);
                collect_classes(&t.finalbody, out);
            }
            StmtKind::With { body, .. } => collect_classes(body, out),
            _ => {}
        }
    }
}

/// Module-level `def`s, looking inside module-level `if`/`try`/`with` blocks.
fn collect_defs(stmts: &[Stmt], out: &mut Vec<Arc<FunctionDef>>) {
    for s in stmts {
        match &s.kind {
            StmtKind::FunctionDef(f) => out.push(f.clone()),
            StmtKind::If { body, orelse, .. } => {
                collect_defs(body, out);
                collect_defs(orelse, out);
            }
            StmtKind::Try(t) => {
                collect_defs(&t.body, out);
                for h in &t.handlers {
                    collect_defs(&h.body, out);
                }
                collect_defs(&t.orelse, out);
                collect_defs(&t.finalbody, out);
            }
            StmtKind::With { body, .. } => collect_defs(body, out),
            _ => {}
        }
    }
}

impl<'m> Discoverer<'m> {
    fn is(&self, expr: &Expr, paths: &[&str]) -> bool {
        self.resolver
            .resolve_all(expr)
            .iter()
            .any(|p| paths.contains(&p.as_str()))
    }

    fn role<'e>(&self, decorator: &'e Expr) -> DecoratorRole<'e> {
        match &decorator.kind {
            ExprKind::Call(call) if self.is(&call.func, JIT_PATHS) => {
                DecoratorRole::Jit(Some(call))
            }
            ExprKind::Call(call) if self.is(&call.func, AUTOTUNE_PATHS) => {
                DecoratorRole::Autotune(call)
            }
            ExprKind::Call(call) if self.is(&call.func, HEURISTICS_PATHS) => {
                DecoratorRole::Heuristics(call)
            }
            _ if self.is(decorator, JIT_PATHS) => DecoratorRole::Jit(None),
            _ => DecoratorRole::Other,
        }
    }

    /// Records an argument computed at import time: valid Triton, unknown to tritonc.
    fn opaque(&mut self, span: Span, what: &str) {
        self.opaque.push(OpaqueArgument {
            span,
            what: what.to_string(),
        });
    }

    fn malformed(
        &mut self,
        code: tritonc_diagnostics::Code,
        span: Span,
        message: String,
        help: &str,
    ) {
        self.diagnostics.push(
            Diagnostic::error(code, message)
                .with_primary(span, "")
                .with_help(help),
        );
    }

    fn decorated_kernel(&mut self, def: &Arc<FunctionDef>) -> Option<Kernel> {
        let roles: Vec<DecoratorRole> = def.decorators.iter().map(|d| self.role(d)).collect();
        let jit_at = roles
            .iter()
            .position(|r| matches!(r, DecoratorRole::Jit(_)))?;
        let mut kernel = Kernel {
            name: def.name.name.clone(),
            def: def.clone(),
            binding: JitBinding::Decorator,
            jit: JitOptions::default(),
            autotune: None,
            heuristics: Vec::new(),
            other_decorators: Vec::new(),
            opaque_arguments: Vec::new(),
        };
        self.opaque.clear();
        for (i, (decorator, role)) in def.decorators.iter().zip(&roles).enumerate() {
            match role {
                DecoratorRole::Jit(call) if i == jit_at => {
                    kernel.jit = self.jit_options(*call, def, decorator.span);
                }
                DecoratorRole::Jit(_) => kernel.other_decorators.push(decorator.clone()),
                DecoratorRole::Autotune(_) | DecoratorRole::Heuristics(_) if i > jit_at => {
                    self.diagnostics.push(
                        Diagnostic::error(
                            codes::DECORATOR_ORDER,
                            "`@triton.jit` must be the innermost Triton decorator",
                        )
                        .with_primary(decorator.span, "applied before `@triton.jit`")
                        .with_secondary(def.decorators[jit_at].span, "`@triton.jit` is above it")
                        .with_help("move `@triton.jit` directly above `def`"),
                    );
                    kernel.other_decorators.push(decorator.clone());
                }
                DecoratorRole::Autotune(call) => {
                    if kernel.autotune.is_none() {
                        kernel.autotune = Some(self.autotune(call, decorator.span));
                    } else {
                        kernel.other_decorators.push(decorator.clone());
                    }
                }
                DecoratorRole::Heuristics(call) => {
                    let entries = self.heuristics(call, decorator.span);
                    kernel.heuristics.extend(entries);
                }
                DecoratorRole::Other => kernel.other_decorators.push(decorator.clone()),
            }
        }
        kernel.opaque_arguments = std::mem::take(&mut self.opaque);
        Some(kernel)
    }

    fn jit_options(&mut self, call: Option<&Call>, def: &FunctionDef, span: Span) -> JitOptions {
        let mut opts = JitOptions {
            span: Some(span),
            ..JitOptions::default()
        };
        let Some(call) = call else { return opts };
        // `triton.jit(fn)` as a call names the function positionally; options are keywords.
        for extra in call.args.iter().skip(usize::from(
            call.args.first().is_some_and(|a| a.as_name().is_some()),
        )) {
            self.malformed(
                codes::MALFORMED_JIT,
                extra.span,
                "`triton.jit` takes its options as keyword arguments".into(),
                "write `@triton.jit(noinline=True)`",
            );
        }
        for k in &call.keywords {
            let Some(name) = &k.name else {
                self.opaque(k.span, "jit options");
                continue;
            };
            match name.name.as_str() {
                "do_not_specialize" => opts.do_not_specialize = self.param_refs(&k.value, def),
                "do_not_specialize_on_alignment" => {
                    opts.do_not_specialize_on_alignment = self.param_refs(&k.value, def)
                }
                "noinline" | "debug" => {
                    let value = match k.value.as_constant() {
                        Some(Constant::Bool(b)) => Some(*b),
                        Some(Constant::None) => None,
                        _ if is_computed(&k.value) => {
                            self.opaque(k.value.span, &name.name);
                            None
                        }
                        _ => {
                            self.malformed(
                                codes::MALFORMED_JIT,
                                k.value.span,
                                format!("`{}` must be `True` or `False`", name.name),
                                "use a literal boolean",
                            );
                            None
                        }
                    };
                    if name.name == "noinline" {
                        opts.noinline = value.unwrap_or(false);
                    } else {
                        opts.debug = value;
                    }
                }
                _ => opts.other.push(k.clone()),
            }
        }
        opts
    }

    fn param_refs(&mut self, value: &Expr, def: &FunctionDef) -> Vec<ParamRef> {
        let value = match value.as_name().and_then(|n| self.values.get(n).copied()) {
            Some(v) => v,
            None => value,
        };
        let (ExprKind::List(items) | ExprKind::Tuple(items)) = &value.kind else {
            if is_computed(value) {
                // `['T', 'scale'] if IS_HOPPER else ['T']`: decided at import time.
                self.opaque(value.span, "do_not_specialize");
                return Vec::new();
            }
            self.malformed(
                codes::MALFORMED_JIT,
                value.span,
                "expected a list of parameter names or indices".into(),
                "write e.g. `do_not_specialize=[\"n\"]`",
            );
            return Vec::new();
        };
        let mut out = Vec::new();
        for item in items {
            let name = match (item.as_str_literal(), item.as_int_literal()) {
                (Some(s), _) => def.param(s).map(|p| p.name.name.clone()),
                (None, Some(i)) => usize::try_from(i)
                    .ok()
                    .and_then(|i| def.params.get(i))
                    .map(|p| p.name.name.clone()),
                _ => None,
            };
            match name {
                Some(name) => out.push(ParamRef {
                    name,
                    span: item.span,
                }),
                // Triton 3.6 tests each parameter for membership (`i in do_not_specialize
                // or name in do_not_specialize`), so a name or index that matches none
                // is ignored: a warning, not an error.
                None if item.as_str_literal().is_some() || item.as_int_literal().is_some() => {
                    self.diagnostics.push(
                        Diagnostic::warning(
                            codes::MALFORMED_JIT,
                            format!(
                                "`{}` has no such parameter; Triton ignores this entry",
                                def.name.name
                            ),
                        )
                        .with_primary(item.span, "matches no parameter")
                        .with_help("name a parameter of the kernel, by name or by index"),
                    )
                }
                None => self.malformed(
                    codes::MALFORMED_JIT,
                    item.span,
                    "expected a parameter name or index".into(),
                    "name a parameter of the kernel, by name or by index",
                ),
            }
        }
        out
    }

    fn autotune(&mut self, call: &Call, span: Span) -> Autotune {
        let mut tune = Autotune {
            configs: Vec::new(),
            unexpanded: Vec::new(),
            key: Vec::new(),
            other: Vec::new(),
            span,
        };
        let mut configs = call.args.first();
        let mut key = call.args.get(1);
        for k in &call.keywords {
            match k.name.as_ref().map(|n| n.name.as_str()) {
                Some("configs") => configs = Some(&k.value),
                Some("key") => key = Some(&k.value),
                _ => tune.other.push(k.clone()),
            }
        }
        match configs {
            Some(configs) => {
                let list = read_configs(self, configs, 0);
                for (span, what) in list.malformed {
                    self.malformed(
                        codes::MALFORMED_AUTOTUNE,
                        span,
                        format!("autotune config: {what}"),
                        "write `triton.Config({\"BLOCK\": 128}, num_warps=4, num_stages=3)`",
                    );
                }
                tune.configs = list.configs;
                tune.unexpanded = list.unexpanded;
            }
            None => self.malformed(
                codes::MALFORMED_AUTOTUNE,
                span,
                "`triton.autotune` needs `configs`".into(),
                "pass `configs=[triton.Config(...), ...]`",
            ),
        }
        match key {
            Some(Expr {
                kind: ExprKind::List(items) | ExprKind::Tuple(items),
                ..
            }) => {
                for item in items {
                    match item.as_str_literal() {
                        // A name that is no parameter is kept too: Triton accepts the
                        // decorator and fails only at launch, so that is a lint finding.
                        Some(name) => tune.key.push((name.to_string(), item.span)),
                        None if is_computed(item) => self.opaque(item.span, "autotune key"),
                        None => self.malformed(
                            codes::MALFORMED_AUTOTUNE,
                            item.span,
                            "autotune keys must be string literals".into(),
                            "write the parameter name in quotes",
                        ),
                    }
                }
            }
            Some(other) if is_computed(other) => self.opaque(other.span, "autotune key"),
            Some(other) => self.malformed(
                codes::MALFORMED_AUTOTUNE,
                other.span,
                "autotune `key` must be a list of parameter names".into(),
                "write e.g. `key=[\"n_elements\"]`",
            ),
            None => self.malformed(
                codes::MALFORMED_AUTOTUNE,
                span,
                "`triton.autotune` needs `key`".into(),
                "pass `key=[...]` (it may be empty)",
            ),
        }
        tune
    }

    fn heuristics(&mut self, call: &Call, span: Span) -> Vec<Heuristic> {
        let arg = call
            .args
            .first()
            .or_else(|| call.keyword("values").map(|k| &k.value));
        let mut out = Vec::new();
        match arg {
            Some(arg) => self.heuristic_entries(arg, 0, &mut out),
            None => self.malformed(
                codes::MALFORMED_HEURISTICS,
                span,
                "`triton.heuristics` expects a dict of parameter name to function".into(),
                "write `@triton.heuristics({\"BLOCK\": lambda args: ...})`",
            ),
        }
        out
    }

    /// The entries of a heuristics dict: a literal, a module-level dict assigned once, or
    /// a dict merging those with `**`. Anything computed otherwise is opaque.
    fn heuristic_entries(&mut self, arg: &Expr, depth: u32, out: &mut Vec<Heuristic>) {
        let arg = match arg.as_name().and_then(|n| self.values.get(n).copied()) {
            Some(value) if depth < 8 => value,
            _ => arg,
        };
        let ExprKind::Dict(entries) = &arg.kind else {
            if is_computed(arg) {
                self.opaque(arg.span, "heuristics");
                return;
            }
            self.malformed(
                codes::MALFORMED_HEURISTICS,
                arg.span,
                "`triton.heuristics` expects a dict of parameter name to function".into(),
                "write `@triton.heuristics({\"BLOCK\": lambda args: ...})`",
            );
            return;
        };
        for e in entries {
            let Some(key) = &e.key else {
                // `{**BASE, 'X': ...}`
                self.heuristic_entries(&e.value, depth + 1, out);
                continue;
            };
            match key.as_str_literal() {
                Some(name) => out.push(Heuristic {
                    name: name.to_string(),
                    name_span: key.span,
                    value: e.value.clone(),
                }),
                None if is_computed(key) => self.opaque(key.span, "heuristics key"),
                None => self.malformed(
                    codes::MALFORMED_HEURISTICS,
                    key.span,
                    "heuristics keys must be string literals".into(),
                    "write the meta-parameter name in quotes",
                ),
            }
        }
    }

    fn constexpr_globals(
        &self,
        stmts: &'m [Stmt],
        conditional: bool,
        out: &mut Vec<ConstexprGlobal>,
    ) {
        for s in stmts {
            match &s.kind {
                StmtKind::AnnAssign {
                    target,
                    annotation,
                    value: Some(value),
                } => {
                    if let (Some(name), true) =
                        (target.as_name(), self.is(annotation, CONSTEXPR_PATHS))
                    {
                        // `X: tl.constexpr = tl.constexpr(3)` binds a `constexpr` object,
                        // which Triton 3.6 reads like `X = tl.constexpr(3)`; only the
                        // annotation alone (`X: tl.constexpr = 3`) leaves a plain value.
                        let (value, kind) = match self.unwrap_constexpr(value) {
                            Some(inner) => (inner.clone(), ConstexprGlobalKind::Wrapped),
                            None => (value.clone(), ConstexprGlobalKind::Annotated),
                        };
                        out.push(ConstexprGlobal {
                            name: Ident {
                                name: name.to_string(),
                                span: target.span,
                            },
                            value,
                            kind,
                            conditional,
                            span: s.span,
                        });
                    }
                }
                StmtKind::Assign { targets, value } if targets.len() == 1 => {
                    let Some(name) = targets[0].as_name() else {
                        continue;
                    };
                    let ident = Ident {
                        name: name.to_string(),
                        span: targets[0].span,
                    };
                    if let Some(inner) = self.unwrap_constexpr(value) {
                        out.push(ConstexprGlobal {
                            name: ident,
                            value: inner.clone(),
                            kind: ConstexprGlobalKind::Wrapped,
                            conditional,
                            span: s.span,
                        });
                    } else if is_plain_literal(value) {
                        out.push(ConstexprGlobal {
                            name: ident,
                            value: value.clone(),
                            kind: ConstexprGlobalKind::Plain,
                            conditional,
                            span: s.span,
                        });
                    }
                }
                StmtKind::If { body, orelse, .. } => {
                    self.constexpr_globals(body, true, out);
                    self.constexpr_globals(orelse, true, out);
                }
                StmtKind::Try(t) => {
                    self.constexpr_globals(&t.body, true, out);
                    for h in &t.handlers {
                        self.constexpr_globals(&h.body, true, out);
                    }
                    self.constexpr_globals(&t.orelse, true, out);
                }
                _ => {}
            }
        }
    }

    /// The argument of `tl.constexpr(v)`, if `value` is that call.
    fn unwrap_constexpr<'e>(&self, value: &'e Expr) -> Option<&'e Expr> {
        let call = value.as_call()?;
        (self.is(&call.func, CONSTEXPR_PATHS) && call.args.len() == 1 && call.keywords.is_empty())
            .then(|| &call.args[0])
    }
}

/// A number, bool or string literal (with an optional sign).
fn is_plain_literal(e: &Expr) -> bool {
    match &e.kind {
        ExprKind::Constant(c) => matches!(
            c,
            Constant::Int(_)
                | Constant::BigInt(_)
                | Constant::Float(_)
                | Constant::Bool(_)
                | Constant::Str(_)
        ),
        ExprKind::UnaryOp {
            op: UnaryOp::Neg | UnaryOp::Pos,
            operand,
        } => {
            matches!(
                operand.kind,
                ExprKind::Constant(Constant::Int(_) | Constant::Float(_))
            )
        }
        _ => false,
    }
}
