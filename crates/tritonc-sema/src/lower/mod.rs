//! The AST walker: lowers one `@triton.jit` kernel, with a [`Specialization`], to a tile-IR
//! function, the way Triton 3.6's `code_generator.py` does.
//!
//! [`LowerCx`] holds the function being built, the insertion block, the scopes and the
//! inlining chain. Statements are in `stmt.rs`, expressions in `expr.rs`; builtins live in
//! [`crate::builtins`] and receive the context.

mod expr;
mod scope;
mod stmt;

pub use scope::{path_value, HiddenGlobal, ModuleScope};

use std::sync::Arc;

use indexmap::IndexMap;
use tritonc_diagnostics::{Diagnostic, Span};
use tritonc_ir::{ArgAttrs, BlockId, Builder, Function, Location, Module, Type};
use tritonc_syntax::ast::{self, FunctionDef};

use crate::codes;
use crate::constexpr;
use crate::spec::{ArgSpec, Specialization};
use crate::value::{Constexpr, FunctionRef, SemaValue, TensorValue};

/// How deep `@jit` helpers may inline into each other.
const MAX_INLINE_DEPTH: usize = 64;

/// One function body being lowered (the kernel, or a helper inlined into it).
#[derive(Debug, Default)]
pub(crate) struct Frame {
    /// Local variables.
    pub vars: IndexMap<String, SemaValue>,
    /// Values of executed `return` statements (helpers), with their spans.
    pub returned: Option<(SemaValue, Span)>,
    /// Names annotated `tl.constexpr` in the body (cannot be reassigned).
    pub constexpr_locals: Vec<String>,
}

/// The state of lowering one kernel.
pub struct LowerCx<'m> {
    /// The function being built.
    pub func: Function,
    /// Where new ops go.
    pub block: BlockId,
    /// The current location (the span being lowered and the inlining chain).
    pub loc: Location,
    /// The kernel's module.
    pub(crate) module: &'m ModuleScope,
    /// The modules of the helpers being inlined, innermost last (`None`: the kernel's).
    pub(crate) scopes: Vec<Option<Arc<ModuleScope>>>,
    pub(crate) frames: Vec<Frame>,
    /// Inline call spans, innermost last.
    pub(crate) call_stack: Vec<Span>,
    /// The functions being lowered, kernel first (for recursion errors).
    pub(crate) inline_chain: Vec<String>,
    /// Warnings so far.
    pub(crate) warnings: Vec<Diagnostic>,
    /// Triton's debug mode: device asserts emit `tt.assert`.
    pub(crate) debug: bool,
    /// The Triton version whose rules apply.
    pub(crate) triton_version: crate::TritonVersion,
    /// How many branches of runtime `if`s enclose the statement being lowered (Triton
    /// generates code for both arms, so a `raise` there is always reached).
    pub(crate) runtime_branches: u32,
    /// Warps per program (`tl.extra.cuda.num_warps()`, `num_threads()`).
    pub(crate) num_warps: u32,
}

impl<'m> LowerCx<'m> {
    /// A builder at the insertion point with the current location at `span`.
    pub fn builder(&mut self, span: Span) -> Builder<'_> {
        let mut loc = Location::new(span);
        for c in self.call_stack.iter().rev() {
            loc = loc.inlined_at(*c);
        }
        let mut b = Builder::at_end(&mut self.func, self.block);
        b.set_loc(loc);
        b
    }

    /// The type of an IR value.
    pub fn type_of(&self, v: tritonc_ir::Value) -> Type {
        self.func.value_type(v).clone()
    }

    /// A runtime value with its type looked up.
    pub fn tensor(&self, v: tritonc_ir::Value) -> TensorValue {
        TensorValue {
            id: v,
            ty: self.type_of(v),
        }
    }

    /// The module of the function being lowered (a helper's own, while it is inlined).
    pub(crate) fn scope(&self) -> &ModuleScope {
        match self.scopes.last() {
            Some(Some(s)) => s,
            _ => self.module,
        }
    }

    /// A module-level value of the current module, with a function of a helper's module
    /// tied to that module (a bare [`FunctionRef`] means the kernel's module).
    pub(crate) fn anchor(&self, v: Constexpr) -> Constexpr {
        match (v, self.scopes.last()) {
            (Constexpr::Function(f), Some(Some(s))) if f.scope.is_none() => {
                Constexpr::Function(crate::value::FunctionRef {
                    name: f.name,
                    scope: Some(s.clone()),
                })
            }
            (v, _) => v,
        }
    }

    pub(crate) fn frame(&mut self) -> &mut Frame {
        self.frames.last_mut().expect("lowering always has a frame")
    }

    /// Looks a name up: locals, then the module (functions, constexpr globals, imports),
    /// then Python builtins.
    pub(crate) fn lookup(&self, name: &str, span: Span) -> Result<SemaValue, Diagnostic> {
        if let Some(v) = self.frames.last().and_then(|f| f.vars.get(name)) {
            return Ok(v.clone());
        }
        if let Some(v) = self.scope().resolve(name, span)? {
            return Ok(SemaValue::Const(self.anchor(v)));
        }
        if let Some(v) = constexpr::default_name(name) {
            // `tl`, `triton` and the launch-spec helpers must be imported in kernel files.
            if name != "triton" && name != "tl" && name != "next_pow2" && name != "cdiv" {
                return Ok(SemaValue::Const(v));
            }
        }
        let mut d = Diagnostic::error(
            codes::UNDEFINED_NAME,
            format!("name `{name}` is not defined"),
        )
        .with_primary(span, "not found in this scope");
        if name == "tl" || name == "triton" {
            d = d.with_help(format!(
                "import it: `import {}`",
                if name == "tl" {
                    "triton.language as tl"
                } else {
                    "triton"
                }
            ));
        }
        Err(d)
    }

    /// Records a warning (Triton's deprecation warnings and the like).
    pub(crate) fn warn(&mut self, d: Diagnostic) {
        self.warnings.push(d);
    }
}

/// A lowered kernel and the warnings lowering produced.
#[derive(Debug)]
pub struct Lowered {
    /// The one-function IR module.
    pub module: Module,
    /// Warnings, in the order they were found.
    pub warnings: Vec<Diagnostic>,
}

/// Lowers `kernel` of `module` under `spec` into a one-function IR module (warnings are
/// dropped; see [`lower_kernel_in`]).
pub fn lower_kernel(
    module: &ast::Module,
    kernel: &str,
    spec: &Specialization,
) -> Result<Module, Vec<Diagnostic>> {
    let scope = ModuleScope::from_module(module);
    lower_kernel_in(&scope, kernel, spec).map(|l| l.module)
}

/// Lowers `kernel`, a `@jit` function of `scope`, under `spec`.
pub fn lower_kernel_in(
    scope: &ModuleScope,
    kernel: &str,
    spec: &Specialization,
) -> Result<Lowered, Vec<Diagnostic>> {
    let Some(def) = scope.functions.get(kernel).cloned() else {
        let names: Vec<&str> = scope.functions.keys().map(String::as_str).collect();
        let mut d = Diagnostic::error(
            codes::KERNEL_NOT_FOUND,
            format!("no `@triton.jit` function named `{kernel}` in this file"),
        );
        if let Some(s) = crate::builtins::names::did_you_mean(kernel, names.iter().copied()) {
            d = d.with_help(format!("did you mean `{s}`?"));
        } else if !names.is_empty() {
            d = d.with_note(format!(
                "the file's @triton.jit functions: {}",
                names.join(", ")
            ));
        }
        return Err(vec![d]);
    };
    lower_function(scope, kernel, &def, spec).map_err(|d| vec![d])
}

fn lower_function(
    scope: &ModuleScope,
    name: &str,
    def: &FunctionDef,
    spec: &Specialization,
) -> Result<Lowered, Diagnostic> {
    let mut arg_types = Vec::new();
    let mut attrs = Vec::new();
    for (_, s) in &spec.params {
        match s {
            ArgSpec::Pointer {
                pointee,
                divisibility,
                ..
            } => {
                arg_types.push(Type::ptr(*pointee));
                attrs.push(ArgAttrs {
                    divisibility: *divisibility,
                });
            }
            ArgSpec::Scalar {
                dtype,
                divisibility,
            } => {
                arg_types.push(Type::Scalar(*dtype));
                attrs.push(ArgAttrs {
                    divisibility: *divisibility,
                });
            }
            ArgSpec::Constexpr(_) => {}
        }
    }
    let mut func = Function::new(def.name.name.clone(), arg_types, Vec::new());
    func.arg_attrs = attrs;
    func.loc = Location::new(def.header_span);
    let block = func.entry_block();
    let args = func.args().to_vec();
    let mut frame = Frame::default();
    let mut next_arg = args.into_iter();
    for (name, s) in &spec.params {
        let v = match s {
            ArgSpec::Constexpr(c) => SemaValue::Const(c.clone()),
            _ => {
                let id = next_arg
                    .next()
                    .expect("one IR argument per runtime parameter");
                SemaValue::Tensor(TensorValue {
                    id,
                    ty: func.value_type(id).clone(),
                })
            }
        };
        frame.vars.insert(name.clone(), v);
    }
    let mut cx = LowerCx {
        func,
        block,
        loc: Location::new(def.span),
        module: scope,
        scopes: Vec::new(),
        frames: vec![frame],
        call_stack: Vec::new(),
        inline_chain: vec![scope.qualified(name)],
        warnings: Vec::new(),
        debug: spec.options.debug,
        triton_version: spec.options.triton_version,
        num_warps: spec.options.num_warps,
        runtime_branches: 0,
    };
    cx.lower_body(&def.body)?;
    if let Some((v, span)) = cx.frames[0].returned.take() {
        // Generic analysis also analyses `@jit` device functions on their own.
        if !matches!(v, SemaValue::Const(Constexpr::None)) && !crate::generic::active() {
            return Err(
                Diagnostic::error(codes::INVALID_RETURN, "a kernel cannot return a value")
                    .with_primary(span, "returned here")
                    .with_help("store the result through a pointer argument"),
            );
        }
    }
    if cx.debug {
        if let Some(w) = crate::builtins::debug::overflow_checks_warning(&cx.func) {
            cx.warn(w);
        }
    }
    let end = def.span;
    cx.builder(Span::point(end.file, end.end)).ret(&[]);
    let mut module = Module::new();
    module.functions.push(cx.func);
    // Triton's TTIR rewrites that change results (`acc + dot(a, b)` into the dot). Generic
    // mode's IR keeps unknowns the verifier does not accept, so it is verified only when
    // specialized.
    tritonc_ir::passes::ttir_passes()
        .verify_each(cfg!(debug_assertions) && !crate::generic::active())
        .run(&mut module)
        .map_err(|mut errors| errors.swap_remove(0))?;
    Ok(Lowered {
        module,
        warnings: cx.warnings,
    })
}

impl LowerCx<'_> {
    /// Inlines a call of `@jit` helper `name` with bound arguments; returns its value.
    ///
    /// Every helper is inlined, `@triton.jit(noinline=True)` ones too: Triton keeps those
    /// as `tt.call`s, but the result is the same computation and tritonc's IR has no calls.
    pub(crate) fn inline_call(
        &mut self,
        f: &FunctionRef,
        args: Vec<SemaValue>,
        kwargs: Vec<(String, SemaValue, Span)>,
        span: Span,
    ) -> Result<SemaValue, Diagnostic> {
        let name: &str = &f.name;
        let home: &ModuleScope = f.scope.as_deref().unwrap_or(self.module);
        let key = home.qualified(name);
        let def = home.functions.get(name).cloned().ok_or_else(|| {
            Diagnostic::error(
                codes::UNDEFINED_NAME,
                format!("`{name}` is not a @jit function"),
            )
            .with_primary(span, "")
        })?;
        if let Some(pos) = self.inline_chain.iter().position(|f| *f == key) {
            // Triton would emit a recursive `tt.call` whose inlining never ends.
            let mut chain: Vec<&str> = self.inline_chain[pos..]
                .iter()
                .map(String::as_str)
                .collect();
            chain.push(&key);
            return Err(Diagnostic::error(
                codes::RECURSION_LIMIT,
                format!("`{name}` calls itself: {}", chain.join(" -> ")),
            )
            .with_primary(span, "recursive call")
            .with_secondary(def.header_span, format!("`{name}` defined here"))
            .with_note("@jit functions are inlined, so they cannot recurse")
            .with_help("rewrite the recursion as a loop over `tl.static_range`"));
        }
        if self.call_stack.len() >= MAX_INLINE_DEPTH {
            return Err(Diagnostic::error(
                codes::RECURSION_LIMIT,
                format!("@jit helpers nest more than {MAX_INLINE_DEPTH} deep"),
            )
            .with_primary(span, "while inlining this call"));
        }
        // Defaults and the body read the helper's own module.
        self.scopes.push(f.scope.clone());
        let frame = match self.bind_call_args(name, &def, args, kwargs, span) {
            Ok(frame) => frame,
            Err(d) => {
                self.scopes.pop();
                return Err(d);
            }
        };
        self.frames.push(frame);
        self.call_stack.push(span);
        self.inline_chain.push(key.clone());
        let r = self.lower_body(&def.body);
        self.inline_chain.pop();
        self.call_stack.pop();
        self.scopes.pop();
        let frame = self
            .frames
            .pop()
            .expect("the helper's frame was pushed above");
        r.map_err(|d| {
            // An error inside a helper of another file also points at the call here.
            match d.primary_span() {
                Some(p) if p.file != span.file => {
                    d.with_secondary(span, format!("in this call of `{key}`"))
                }
                _ => d,
            }
        })?;
        match frame.returned {
            None => Ok(SemaValue::Const(Constexpr::None)),
            // Triton 3.6 `decay`s a returned Python number (or constexpr number) to a 0-d
            // tensor, tuples item by item; from 3.7 on it stays a constexpr.
            Some((v, at)) if !self.triton_version.at_least(crate::TritonVersion::V3_7) => {
                self.decay_returned(v, at)
            }
            Some((v, _)) => Ok(v),
        }
    }

    /// A returned value as Triton 3.6 returns it from a `@jit` helper: numbers become 0-d
    /// tensors.
    fn decay_returned(&mut self, v: SemaValue, span: Span) -> Result<SemaValue, Diagnostic> {
        match v {
            SemaValue::Const(Constexpr::Int(_) | Constexpr::Float(_) | Constexpr::Bool(_)) => {
                crate::builtins::arith::to_tensor(self, v, span).map(SemaValue::Tensor)
            }
            SemaValue::Tuple(_) | SemaValue::Const(Constexpr::Tuple(_)) => {
                let items = v
                    .tuple_items()
                    .expect("a tuple has items")
                    .into_iter()
                    .map(|i| self.decay_returned(i, span))
                    .collect::<Result<Vec<_>, _>>()?;
                Ok(SemaValue::tuple(items))
            }
            other => Ok(other),
        }
    }

    /// Binds a helper call's arguments to its parameters, Python's way: positional, then
    /// keywords, then defaults (evaluated in the module's scope).
    fn bind_call_args(
        &mut self,
        name: &str,
        def: &FunctionDef,
        args: Vec<SemaValue>,
        kwargs: Vec<(String, SemaValue, Span)>,
        span: Span,
    ) -> Result<Frame, Diagnostic> {
        let declared = |d: Diagnostic| d.with_secondary(def.header_span, "declared here");
        if args.len() > def.params.len() {
            return Err(declared(
                Diagnostic::error(
                    codes::BAD_ARGUMENTS,
                    format!(
                        "`{name}()` takes {} argument(s) but {} were given",
                        def.params.len(),
                        args.len()
                    ),
                )
                .with_primary(span, ""),
            ));
        }
        for (i, (k, _, kspan)) in kwargs.iter().enumerate() {
            let Some(pos) = def.params.iter().position(|p| p.name.name == *k) else {
                return Err(declared(
                    Diagnostic::error(
                        codes::BAD_ARGUMENTS,
                        format!("`{name}()` has no parameter `{k}`"),
                    )
                    .with_primary(*kspan, ""),
                ));
            };
            if pos < args.len() || kwargs[..i].iter().any(|(o, _, _)| o == k) {
                return Err(declared(
                    Diagnostic::error(
                        codes::BAD_ARGUMENTS,
                        format!("`{name}()` got multiple values for `{k}`"),
                    )
                    .with_primary(*kspan, ""),
                ));
            }
        }
        let mut frame = Frame::default();
        let mut args = args.into_iter();
        for p in &def.params {
            let v = if let Some(v) = args.next() {
                v
            } else if let Some((_, v, _)) = kwargs.iter().find(|(k, _, _)| *k == p.name.name) {
                v.clone()
            } else if let Some(d) = &p.default {
                let v = constexpr::eval_expr(d, self.scope())?;
                SemaValue::Const(self.anchor(v))
            } else {
                return Err(declared(
                    Diagnostic::error(
                        codes::BAD_ARGUMENTS,
                        format!("`{name}()` is missing the argument `{}`", p.name.name),
                    )
                    .with_primary(span, ""),
                ));
            };
            frame.vars.insert(p.name.name.clone(), v);
        }
        Ok(frame)
    }
}

#[cfg(test)]
mod control_flow_tests;
#[cfg(test)]
mod tests;
