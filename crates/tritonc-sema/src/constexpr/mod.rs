//! The constexpr evaluator: compile-time Python over [`Constexpr`] values.
//!
//! There is one set of semantics for compile-time Python, used everywhere: kernel bodies
//! (the lowering calls [`ops`], [`attrs`] and [`calls`] for constant operands), module
//! globals, autotune configs, `@triton.heuristics` lambdas and launch-spec expressions
//! (`"x.shape[1]"`, `"next_pow2(x.shape[1])"`). [`eval_expr`] evaluates one expression
//! stand-alone over a [`ConstEnv`] of named values.

pub mod attrs;
pub mod calls;
pub mod isinstance;
pub mod ops;

use indexmap::IndexMap;
use tritonc_diagnostics::{Diagnostic, Span};
use tritonc_syntax::ast::{
    Comprehension, ComprehensionKind, Constant, Expr, ExprKind, FStringPart, FunctionDef, Param,
    ParamKind, Stmt, StmtKind,
};

use crate::codes;
use crate::value::{Constexpr, HostObject};

/// Named values an expression can refer to.
pub trait ConstEnv {
    /// The value of `name`, if it is defined.
    fn lookup(&self, name: &str) -> Option<Constexpr>;
}

/// An environment of a fixed set of names, falling back to the Python builtins and the
/// `triton` / `tl` modules under their usual aliases.
#[derive(Debug, Clone, Default)]
pub struct MapEnv {
    /// The names, in definition order.
    pub values: IndexMap<String, Constexpr>,
}

impl MapEnv {
    /// An environment with only the default names.
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds or replaces a name.
    pub fn with(mut self, name: &str, value: Constexpr) -> Self {
        self.values.insert(name.to_string(), value);
        self
    }
}

impl ConstEnv for MapEnv {
    fn lookup(&self, name: &str) -> Option<Constexpr> {
        self.values
            .get(name)
            .cloned()
            .or_else(|| default_name(name))
    }
}

/// The names every standalone evaluation sees unless the environment shadows them:
/// Python builtins, `triton`, `tl`/`triton.language`, and `next_pow2` (launch specs).
pub fn default_name(name: &str) -> Option<Constexpr> {
    match name {
        "triton" => Some(Constexpr::module("triton")),
        "tl" => Some(Constexpr::module("triton.language")),
        "next_pow2" => Some(Constexpr::builtin("triton.next_power_of_2")),
        "cdiv" => Some(Constexpr::builtin("triton.cdiv")),
        "None" => Some(Constexpr::None),
        "True" => Some(Constexpr::Bool(true)),
        "False" => Some(Constexpr::Bool(false)),
        n => crate::builtins::names::module_attr("builtins", n)
            .ok()
            .flatten(),
    }
}

/// An error at `span` with the constexpr-evaluation code.
pub fn const_error(span: Span, message: impl Into<String>) -> Diagnostic {
    let message = message.into();
    Diagnostic::error(
        codes::CONSTEXPR_ERROR,
        format!("compile-time evaluation failed: {message}"),
    )
    .with_primary(span, "")
}

/// The value of a literal.
pub fn literal(c: &Constant, span: Span) -> Result<Constexpr, Diagnostic> {
    Ok(match c {
        Constant::None => Constexpr::None,
        Constant::Bool(b) => Constexpr::Bool(*b),
        Constant::Int(v) => Constexpr::Int(*v),
        Constant::Float(f) => Constexpr::Float(*f),
        Constant::Str(s) => Constexpr::Str(s.clone()),
        Constant::BigInt(_) => {
            return Err(const_error(
                span,
                "integer literal does not fit in 128 bits",
            ))
        }
        Constant::Complex { .. } | Constant::Bytes(_) | Constant::Ellipsis => {
            return Err(Diagnostic::error(
                codes::UNSUPPORTED_CONSTRUCT,
                "complex, bytes and `...` literals are not supported in Triton code",
            )
            .with_primary(span, ""))
        }
    })
}

/// Evaluates `expr` as compile-time Python over `env`.
pub fn eval_expr(expr: &Expr, env: &dyn ConstEnv) -> Result<Constexpr, Diagnostic> {
    Evaluator {
        env,
        locals: Vec::new(),
    }
    .eval(expr)
}

/// Calls a lambda expression (`lambda args: ...`, as in `@triton.heuristics`) with `args`.
pub fn call_lambda(
    lambda: &Expr,
    args: &[Constexpr],
    env: &dyn ConstEnv,
) -> Result<Constexpr, Diagnostic> {
    let ExprKind::Lambda { params, body } = &lambda.kind else {
        return Err(
            Diagnostic::error(codes::CONSTEXPR_ERROR, "expected a lambda expression")
                .with_primary(lambda.span, ""),
        );
    };
    let positional: Vec<_> = params
        .iter()
        .filter(|p| matches!(p.kind, ParamKind::Positional | ParamKind::PositionalOnly))
        .collect();
    let var_keyword = var_keyword_param(params);
    if positional.len() + usize::from(var_keyword.is_some()) != params.len()
        || positional.len() != args.len()
    {
        return Err(Diagnostic::error(
            codes::BAD_ARGUMENTS,
            format!(
                "the lambda takes {} parameter(s) but is called with {}",
                params.len(),
                args.len()
            ),
        )
        .with_primary(lambda.span, ""));
    }
    let mut locals: Vec<(String, Constexpr)> = positional
        .iter()
        .map(|p| p.name.name.clone())
        .zip(args.iter().cloned())
        .collect();
    if let Some(p) = var_keyword {
        locals.push((p.name.name.clone(), empty_dict()));
    }
    Evaluator { env, locals }.eval(body)
}

/// A trailing `**kwargs` parameter, if `params` ends with one.
fn var_keyword_param(params: &[Param]) -> Option<&Param> {
    params.last().filter(|p| p.kind == ParamKind::VarKeyword)
}

/// `{}`: what a `**kwargs` parameter holds when the caller passes no extra keywords.
fn empty_dict() -> Constexpr {
    Constexpr::Object(std::sync::Arc::new(HostObject {
        type_name: "dict".into(),
        fields: IndexMap::new(),
    }))
}

/// Statements a `@triton.constexpr_function` body may run before it returns.
const MAX_CONSTEXPR_FUNCTION_STEPS: usize = 10_000;

/// Calls a `@triton.constexpr_function` (or `@tl.constexpr`-decorated) Python function at
/// compile time, as Triton 3.6 does: the arguments are unwrapped constexpr values, the
/// body runs as plain Python, the result becomes a constexpr.
///
/// The body may assign names, branch with `if`, and `return`; anything else is reported
/// at its span. `env` is the function's module (its globals and imports).
pub fn call_function_def(
    def: &FunctionDef,
    args: &[Constexpr],
    kwargs: &[(String, Constexpr)],
    env: &dyn ConstEnv,
    span: Span,
) -> Result<Constexpr, Diagnostic> {
    let name = &def.name.name;
    let positional: Vec<&Param> = def
        .params
        .iter()
        .filter(|p| matches!(p.kind, ParamKind::Positional | ParamKind::PositionalOnly))
        .collect();
    let var_keyword = var_keyword_param(&def.params);
    if positional.len() + usize::from(var_keyword.is_some()) != def.params.len() {
        return Err(Diagnostic::error(
            codes::UNSUPPORTED_CONSTRUCT,
            format!("`{name}`: `*args` and keyword-only parameters are not supported in a compile-time function"),
        )
        .with_primary(def.header_span, "")
        .with_secondary(span, "called here"));
    }
    if args.len() > positional.len() {
        return Err(Diagnostic::error(
            codes::BAD_ARGUMENTS,
            format!(
                "`{name}` takes {} argument(s) but is called with {}",
                positional.len(),
                args.len()
            ),
        )
        .with_primary(span, "")
        .with_secondary(def.header_span, "defined here"));
    }
    let mut locals: Vec<(String, Constexpr)> = Vec::new();
    for (i, p) in positional.iter().enumerate() {
        let pname = &p.name.name;
        let v = if let Some(a) = args.get(i) {
            a.clone()
        } else if let Some((_, v)) = kwargs.iter().find(|(k, _)| k == pname) {
            v.clone()
        } else if let Some(d) = &p.default {
            eval_expr(d, env)?
        } else {
            return Err(Diagnostic::error(
                codes::BAD_ARGUMENTS,
                format!("`{name}` is missing the argument `{pname}`"),
            )
            .with_primary(span, "")
            .with_secondary(p.span, "parameter declared here"));
        };
        locals.push((pname.clone(), v));
    }
    if let Some((k, _)) = kwargs
        .iter()
        .find(|(k, _)| !positional.iter().any(|p| &p.name.name == k))
    {
        return Err(Diagnostic::error(
            codes::BAD_ARGUMENTS,
            format!("`{name}` has no parameter `{k}`"),
        )
        .with_primary(span, ""));
    }
    if let Some(p) = var_keyword {
        locals.push((p.name.name.clone(), empty_dict()));
    }
    let mut ev = Evaluator { env, locals };
    let mut steps = 0;
    Ok(ev.run(&def.body, &mut steps)?.unwrap_or(Constexpr::None))
}

/// Evaluation state: the environment and the parameters of an enclosing lambda.
struct Evaluator<'a> {
    env: &'a dyn ConstEnv,
    locals: Vec<(String, Constexpr)>,
}

impl Evaluator<'_> {
    fn lookup(&self, name: &str, span: Span) -> Result<Constexpr, Diagnostic> {
        if let Some((_, v)) = self.locals.iter().rev().find(|(n, _)| n == name) {
            return Ok(v.clone());
        }
        self.env.lookup(name).ok_or_else(|| {
            Diagnostic::error(
                codes::UNDEFINED_NAME,
                format!("name `{name}` is not defined"),
            )
            .with_primary(span, "not defined in this compile-time expression")
        })
    }

    /// Runs statements of a compile-time function; `Some` once one returns.
    fn run(&mut self, body: &[Stmt], steps: &mut usize) -> Result<Option<Constexpr>, Diagnostic> {
        for s in body {
            *steps += 1;
            if *steps > MAX_CONSTEXPR_FUNCTION_STEPS {
                return Err(const_error(
                    s.span,
                    "the compile-time function runs too long",
                ));
            }
            match &s.kind {
                StmtKind::Pass => {}
                StmtKind::Expr(e) => {
                    self.eval(e)?;
                }
                StmtKind::Return(v) => {
                    return Ok(Some(match v {
                        Some(e) => self.eval(e)?,
                        None => Constexpr::None,
                    }))
                }
                StmtKind::Assign { targets, value } => {
                    let v = self.eval(value)?;
                    for t in targets {
                        self.bind(t, v.clone())?;
                    }
                }
                StmtKind::AnnAssign {
                    target,
                    value: Some(value),
                    ..
                } => {
                    let v = self.eval(value)?;
                    self.bind(target, v)?;
                }
                StmtKind::AugAssign { target, op, value } => {
                    let (cur, rhs) = (self.eval(target)?, self.eval(value)?);
                    let v = ops::binary(*op, &cur, &rhs).map_err(|m| const_error(s.span, m))?;
                    self.bind(target, v)?;
                }
                StmtKind::If { test, body, orelse } => {
                    let branch = if self.eval(test)?.truthy() {
                        body
                    } else {
                        orelse
                    };
                    if let Some(r) = self.run(branch, steps)? {
                        return Ok(Some(r));
                    }
                }
                StmtKind::Assert { test, msg } => {
                    if !self.eval(test)?.truthy() {
                        let m = match msg {
                            Some(m) => calls::py_str(&self.eval(m)?, false),
                            None => String::new(),
                        };
                        return Err(const_error(s.span, format!("AssertionError: {m}")));
                    }
                }
                _ => {
                    return Err(Diagnostic::error(
                        codes::UNSUPPORTED_CONSTRUCT,
                        "this statement is not supported in a compile-time function",
                    )
                    .with_primary(s.span, "")
                    .with_note(
                        "tritonc runs `@triton.constexpr_function` bodies made of assignments, \
                         `if`, `assert` and `return`",
                    ))
                }
            }
        }
        Ok(None)
    }

    fn bind(&mut self, target: &Expr, v: Constexpr) -> Result<(), Diagnostic> {
        match (&target.kind, v) {
            (ExprKind::Name(n), v) => {
                self.locals.push((n.clone(), v));
                Ok(())
            }
            (ExprKind::Tuple(ts) | ExprKind::List(ts), Constexpr::Tuple(vs))
                if ts.len() == vs.len() =>
            {
                for (t, v) in ts.iter().zip(vs) {
                    self.bind(t, v)?;
                }
                Ok(())
            }
            _ => Err(Diagnostic::error(
                codes::UNSUPPORTED_CONSTRUCT,
                "assigning to this target is not supported in a compile-time function",
            )
            .with_primary(target.span, "")),
        }
    }

    fn eval(&self, expr: &Expr) -> Result<Constexpr, Diagnostic> {
        let span = expr.span;
        match &expr.kind {
            ExprKind::Name(n) => self.lookup(n, span),
            ExprKind::Constant(c) => literal(c, span),
            ExprKind::Tuple(items) | ExprKind::List(items) => Ok(Constexpr::Tuple(
                items
                    .iter()
                    .map(|e| self.eval(e))
                    .collect::<Result<_, _>>()?,
            )),
            ExprKind::BinOp { op, lhs, rhs } => {
                let (a, b) = (self.eval(lhs)?, self.eval(rhs)?);
                ops::binary(*op, &a, &b).map_err(|m| const_error(span, m))
            }
            ExprKind::UnaryOp { op, operand } => {
                let a = self.eval(operand)?;
                ops::unary(*op, &a).map_err(|m| const_error(span, m))
            }
            ExprKind::BoolOp { op, values } => {
                // Python returns the deciding operand, not a bool.
                let mut last = Constexpr::None;
                for v in values {
                    last = self.eval(v)?;
                    let decided = match op {
                        tritonc_syntax::ast::BoolOp::And => !last.truthy(),
                        tritonc_syntax::ast::BoolOp::Or => last.truthy(),
                    };
                    if decided {
                        break;
                    }
                }
                Ok(last)
            }
            ExprKind::Compare {
                left,
                ops: cmp_ops,
                comparators,
            } => {
                let mut lhs = self.eval(left)?;
                for (op, rhs_expr) in cmp_ops.iter().zip(comparators) {
                    let rhs = self.eval(rhs_expr)?;
                    let r = ops::compare(*op, &lhs, &rhs).map_err(|m| const_error(span, m))?;
                    if !r.truthy() {
                        return Ok(Constexpr::Bool(false));
                    }
                    lhs = rhs;
                }
                Ok(Constexpr::Bool(true))
            }
            ExprKind::IfExp { test, body, orelse } => {
                if self.eval(test)?.truthy() {
                    self.eval(body)
                } else {
                    self.eval(orelse)
                }
            }
            ExprKind::Attribute { value, attr } => {
                let v = self.eval(value)?;
                attrs::get_attr(&v, &attr.name, attr.span)
            }
            ExprKind::Subscript { value, index } => {
                let v = self.eval(value)?;
                let i = self.eval(index)?;
                attrs::subscript(&v, &i, span)
            }
            ExprKind::Call(call) => {
                let f = self.eval(&call.func)?;
                let mut args = Vec::with_capacity(call.args.len());
                for a in &call.args {
                    if let ExprKind::Starred(inner) = &a.kind {
                        match self.eval(inner)? {
                            Constexpr::Tuple(items) => args.extend(items),
                            other => {
                                return Err(const_error(
                                    a.span,
                                    format!(
                                        "TypeError: argument after * must be an iterable, not {}",
                                        other.type_name()
                                    ),
                                ))
                            }
                        }
                    } else {
                        args.push(self.eval(a)?);
                    }
                }
                let mut kwargs = Vec::with_capacity(call.keywords.len());
                for k in &call.keywords {
                    let Some(name) = &k.name else {
                        return Err(Diagnostic::error(
                            codes::UNSUPPORTED_CONSTRUCT,
                            "`**kwargs` is not supported in compile-time expressions",
                        )
                        .with_primary(k.span, ""));
                    };
                    kwargs.push((name.name.clone(), self.eval(&k.value)?));
                }
                calls::call(&f, &args, &kwargs, span, call.func.span)
            }
            ExprKind::FString(parts) => {
                let mut s = String::new();
                for p in parts {
                    match p {
                        FStringPart::Literal(t) => s.push_str(t),
                        FStringPart::Formatted {
                            value,
                            conversion,
                            format_spec,
                        } => {
                            if format_spec.is_some() {
                                return Err(Diagnostic::error(
                                    codes::UNSUPPORTED_CONSTRUCT,
                                    "format specs in f-strings are not supported",
                                )
                                .with_primary(value.span, ""));
                            }
                            let v = self.eval(value)?;
                            s.push_str(&calls::py_str(&v, *conversion == Some('r')));
                        }
                    }
                }
                Ok(Constexpr::Str(s))
            }
            ExprKind::Dict(entries) => {
                let mut fields = IndexMap::new();
                for e in entries {
                    let Some(key) = &e.key else {
                        return Err(Diagnostic::error(
                            codes::UNSUPPORTED_CONSTRUCT,
                            "`**` in a dict display is not supported in compile-time expressions",
                        )
                        .with_primary(e.value.span, ""));
                    };
                    let k = match self.eval(key)? {
                        Constexpr::Str(s) => s,
                        other => {
                            return Err(const_error(
                                key.span,
                                format!(
                                    "dict keys must be strings here, not {}",
                                    other.type_name()
                                ),
                            ))
                        }
                    };
                    fields.insert(k, self.eval(&e.value)?);
                }
                Ok(Constexpr::Object(std::sync::Arc::new(HostObject {
                    type_name: "dict".into(),
                    fields,
                })))
            }
            ExprKind::Comprehension(c) if c.kind == ComprehensionKind::List => {
                let mut out = Vec::new();
                self.comprehend(c, 0, self.locals.clone(), &mut out)?;
                Ok(Constexpr::Tuple(out))
            }
            _ => Err(Diagnostic::error(
                codes::UNSUPPORTED_CONSTRUCT,
                "this expression cannot be evaluated at compile time",
            )
            .with_primary(span, "")),
        }
    }

    /// The elements of list comprehension `c` from its `level`-th `for` clause on, with
    /// the loop variables of the outer clauses in `locals`.
    fn comprehend(
        &self,
        c: &Comprehension,
        level: usize,
        locals: Vec<(String, Constexpr)>,
        out: &mut Vec<Constexpr>,
    ) -> Result<(), Diagnostic> {
        let scoped = Evaluator {
            env: self.env,
            locals,
        };
        let Some(g) = c.generators.get(level) else {
            out.push(scoped.eval(&c.element)?);
            return Ok(());
        };
        let items = match scoped.eval(&g.iter)? {
            Constexpr::Tuple(items) => items,
            other => {
                return Err(const_error(
                    g.iter.span,
                    format!("a comprehension iterates over a list or tuple here, not {}", other.type_name()),
                ))
            }
        };
        for item in items {
            let mut inner = Evaluator {
                env: self.env,
                locals: scoped.locals.clone(),
            };
            inner.bind(&g.target, item)?;
            let mut keep = true;
            for cond in &g.ifs {
                if !inner.eval(cond)?.truthy() {
                    keep = false;
                    break;
                }
            }
            if keep {
                self.comprehend(c, level + 1, inner.locals, out)?;
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests;
