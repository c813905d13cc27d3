//! The AST walker: lowers one `@triton.jit` kernel, with a [`Specialization`], to a tile-IR
//! function, the way Triton 3.6's `code_generator.py` does.
//!
//! [`LowerCx`] holds the function being built, the insertion block, the scopes and the
//! inlining chain. Statements are in `stmt.rs`, expressions in `expr.rs`; builtins live in
//! [`crate::builtins`] and receive the context.

mod expr;
mod stmt;

use indexmap::IndexMap;
use std::sync::Arc;
use tritonc_diagnostics::{Diagnostic, Span};
use tritonc_ir::{ArgAttrs, BlockId, Builder, Function, Location, Module, Type};
use tritonc_syntax::ast::{self, ExprKind, FunctionDef, StmtKind};

use crate::codes;
use crate::constexpr;
use crate::spec::{ArgSpec, Specialization};
use crate::value::{Constexpr, FunctionRef, SemaValue, TensorValue};

/// How deep `@jit` helpers may inline into each other.
const MAX_INLINE_DEPTH: usize = 64;

/// What a module offers kernels at compile time: its imports, constexpr globals and
/// `@jit` functions.
#[derive(Debug, Clone, Default)]
pub struct ModuleScope {
    /// Names bound at module level to compile-time values (imports, constexpr globals).
    pub globals: IndexMap<String, Constexpr>,
    /// `@jit` functions by name.
    pub functions: IndexMap<String, Arc<FunctionDef>>,
}

impl ModuleScope {
    /// Collects imports of `triton`, constexpr globals and `@jit` functions of a module.
    pub fn from_module(module: &ast::Module) -> ModuleScope {
        let mut scope = ModuleScope::default();
        for stmt in &module.body {
            match &stmt.kind {
                StmtKind::Import(aliases) => {
                    for a in aliases {
                        let path = a.name.name.as_str();
                        match &a.asname {
                            Some(alias) => {
                                scope
                                    .globals
                                    .insert(alias.name.clone(), Constexpr::module(path));
                            }
                            None => {
                                let root = path.split('.').next().unwrap_or(path);
                                scope
                                    .globals
                                    .insert(root.to_string(), Constexpr::module(root));
                            }
                        }
                    }
                }
                StmtKind::ImportFrom {
                    module: Some(m),
                    level: 0,
                    names,
                } => {
                    for a in names {
                        let bound = a.asname.as_ref().unwrap_or(&a.name).name.clone();
                        let full = format!("{}.{}", m.name, a.name.name);
                        let value = match crate::builtins::names::module_attr(&m.name, &a.name.name)
                        {
                            Ok(Some(v)) => v,
                            _ => Constexpr::module(&full),
                        };
                        scope.globals.insert(bound, value);
                    }
                }
                StmtKind::FunctionDef(f) => {
                    let is_jit = f.decorators.iter().any(|d| {
                        let target = match &d.kind {
                            ExprKind::Call(c) => &c.func,
                            _ => d,
                        };
                        target
                            .dotted_path()
                            .is_some_and(|p| p == "jit" || p.ends_with(".jit"))
                    });
                    if is_jit {
                        scope.functions.insert(f.name.name.clone(), f.clone());
                    }
                }
                StmtKind::Assign { targets, value } if targets.len() == 1 => {
                    if let Some(name) = targets[0].as_name() {
                        let env = constexpr::MapEnv {
                            values: scope.globals.clone(),
                        };
                        // Only globals that evaluate at compile time are visible to kernels.
                        if let Ok(v) = constexpr::eval_expr(value, &env) {
                            scope.globals.insert(name.to_string(), v);
                        }
                    }
                }
                StmtKind::AnnAssign {
                    target,
                    value: Some(value),
                    ..
                } => {
                    if let Some(name) = target.as_name() {
                        let env = constexpr::MapEnv {
                            values: scope.globals.clone(),
                        };
                        if let Ok(v) = constexpr::eval_expr(value, &env) {
                            scope.globals.insert(name.to_string(), v);
                        }
                    }
                }
                _ => {}
            }
        }
        scope
    }
}

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
    pub(crate) module: &'m ModuleScope,
    pub(crate) frames: Vec<Frame>,
    /// Inline call spans, innermost last.
    pub(crate) call_stack: Vec<Span>,
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

    pub(crate) fn frame(&mut self) -> &mut Frame {
        self.frames.last_mut().expect("lowering always has a frame")
    }

    /// Looks a name up: locals, then module globals and `@jit` functions, then builtins.
    pub(crate) fn lookup(&self, name: &str, span: Span) -> Result<SemaValue, Diagnostic> {
        if let Some(v) = self.frames.last().and_then(|f| f.vars.get(name)) {
            return Ok(v.clone());
        }
        if let Some(v) = self.module.globals.get(name) {
            return Ok(SemaValue::Const(v.clone()));
        }
        if self.module.functions.contains_key(name) {
            return Ok(SemaValue::Const(Constexpr::Function(FunctionRef {
                name: Arc::from(name),
            })));
        }
        if let Some(v) = constexpr::default_name(name) {
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
}

/// Lowers `kernel` of `module` under `spec` into a one-function IR module.
pub fn lower_kernel(
    module: &ast::Module,
    kernel: &str,
    spec: &Specialization,
) -> Result<Module, Vec<Diagnostic>> {
    let scope = ModuleScope::from_module(module);
    let Some(def) = scope.functions.get(kernel).cloned() else {
        let names: Vec<&str> = scope.functions.keys().map(String::as_str).collect();
        let mut d = Diagnostic::error(
            codes::KERNEL_NOT_FOUND,
            format!("no `@triton.jit` function named `{kernel}` in this file"),
        )
        .with_primary(Span::point(module.span.file, 0), "");
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
    lower_function(&scope, &def, spec).map_err(|d| vec![d])
}

fn lower_function(
    scope: &ModuleScope,
    def: &FunctionDef,
    spec: &Specialization,
) -> Result<Module, Diagnostic> {
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
        frames: vec![frame],
        call_stack: Vec::new(),
    };
    cx.lower_body(&def.body)?;
    if let Some((v, span)) = cx.frames[0].returned.take() {
        if !matches!(v, SemaValue::Const(Constexpr::None)) {
            return Err(
                Diagnostic::error(codes::INVALID_RETURN, "a kernel cannot return a value")
                    .with_primary(span, "returned here")
                    .with_help("store the result through a pointer argument"),
            );
        }
    }
    let end = def.span;
    cx.builder(Span::point(end.file, end.end)).ret(&[]);
    let mut m = Module::new();
    m.functions.push(cx.func);
    Ok(m)
}

impl LowerCx<'_> {
    /// Inlines a call of `@jit` helper `name` with bound arguments; returns its value.
    pub(crate) fn inline_call(
        &mut self,
        name: &str,
        args: Vec<SemaValue>,
        kwargs: Vec<(String, SemaValue, Span)>,
        span: Span,
    ) -> Result<SemaValue, Diagnostic> {
        let def = self.module.functions.get(name).cloned().ok_or_else(|| {
            Diagnostic::error(
                codes::UNDEFINED_NAME,
                format!("`{name}` is not a @jit function"),
            )
            .with_primary(span, "")
        })?;
        if self.call_stack.len() >= MAX_INLINE_DEPTH {
            return Err(Diagnostic::error(
                codes::RECURSION_LIMIT,
                format!("@jit helpers nest more than {MAX_INLINE_DEPTH} deep"),
            )
            .with_primary(span, "while inlining this call"));
        }
        let mut frame = Frame::default();
        let mut args = args.into_iter();
        for p in &def.params {
            let v = if let Some(v) = args.next() {
                v
            } else if let Some((_, v, _)) = kwargs.iter().find(|(k, _, _)| *k == p.name.name) {
                v.clone()
            } else if let Some(d) = &p.default {
                SemaValue::Const(constexpr::eval_expr(
                    d,
                    &constexpr::MapEnv {
                        values: self.module.globals.clone(),
                    },
                )?)
            } else {
                return Err(Diagnostic::error(
                    codes::BAD_ARGUMENTS,
                    format!("`{name}()` is missing the argument `{}`", p.name.name),
                )
                .with_primary(span, "")
                .with_secondary(def.header_span, "declared here"));
            };
            frame.vars.insert(p.name.name.clone(), v);
        }
        if args.next().is_some() {
            return Err(Diagnostic::error(
                codes::BAD_ARGUMENTS,
                format!(
                    "`{name}()` takes {} argument(s), more were given",
                    def.params.len()
                ),
            )
            .with_primary(span, "")
            .with_secondary(def.header_span, "declared here"));
        }
        for (k, _, kspan) in &kwargs {
            if def.param(k).is_none() {
                return Err(Diagnostic::error(
                    codes::BAD_ARGUMENTS,
                    format!("`{name}()` has no parameter `{k}`"),
                )
                .with_primary(*kspan, "")
                .with_secondary(def.header_span, "declared here"));
            }
        }
        self.frames.push(frame);
        self.call_stack.push(span);
        let r = self.lower_body(&def.body);
        self.call_stack.pop();
        let frame = self
            .frames
            .pop()
            .expect("the helper's frame was pushed above");
        r?;
        Ok(frame
            .returned
            .map(|(v, _)| v)
            .unwrap_or(SemaValue::Const(Constexpr::None)))
    }
}

#[cfg(test)]
mod tests;
