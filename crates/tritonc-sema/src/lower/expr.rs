//! Expressions: names, literals, operators, attributes, indexing with `None`/`:`, calls.

use std::sync::Arc;

use tritonc_diagnostics::{Diagnostic, Span};
use tritonc_syntax::ast::{BinOp, CmpOp, Expr, ExprKind};

use super::LowerCx;
use crate::builtins::{self, arith, BuiltinCall};
use crate::codes;
use crate::constexpr::{self, attrs, calls, ops};
use crate::promote::BinaryKind;
use crate::value::{Constexpr, SemaValue};

fn bin_kind(op: BinOp) -> Option<BinaryKind> {
    Some(match op {
        BinOp::Add => BinaryKind::Add,
        BinOp::Sub => BinaryKind::Sub,
        BinOp::Mul => BinaryKind::Mul,
        BinOp::Div => BinaryKind::Div,
        BinOp::FloorDiv => BinaryKind::FloorDiv,
        BinOp::Mod => BinaryKind::Mod,
        BinOp::BitAnd => BinaryKind::And,
        BinOp::BitOr => BinaryKind::Or,
        BinOp::BitXor => BinaryKind::Xor,
        BinOp::LShift => BinaryKind::Shl,
        BinOp::RShift => BinaryKind::Shr,
        BinOp::Pow | BinOp::MatMul => return None,
    })
}

fn cmp_kind(op: CmpOp) -> Option<BinaryKind> {
    Some(match op {
        CmpOp::Lt => BinaryKind::Lt,
        CmpOp::LtE => BinaryKind::Le,
        CmpOp::Eq => BinaryKind::Eq,
        CmpOp::NotEq => BinaryKind::Ne,
        CmpOp::Gt => BinaryKind::Gt,
        CmpOp::GtE => BinaryKind::Ge,
        _ => return None,
    })
}

impl LowerCx<'_> {
    /// `lhs op rhs`: folded in Python when both are constexprs, typed by promotion otherwise.
    pub(crate) fn binary_op(
        &mut self,
        op: BinOp,
        lhs: SemaValue,
        rhs: SemaValue,
        span: Span,
    ) -> Result<SemaValue, Diagnostic> {
        if let (SemaValue::Const(a), SemaValue::Const(b)) = (&lhs, &rhs) {
            return ops::binary(op, a, b)
                .map(SemaValue::Const)
                .map_err(|m| constexpr::const_error(span, m));
        }
        let Some(kind) = bin_kind(op) else {
            return Err(Diagnostic::error(
                codes::INCOMPATIBLE_TYPES,
                format!("`{}` is not defined on tensors", op.symbol()),
            )
            .with_primary(span, ""));
        };
        arith::binary(self, kind, lhs, rhs, span).map(SemaValue::Tensor)
    }

    /// Lowers an expression to a value.
    pub(crate) fn lower_expr(&mut self, e: &Expr) -> Result<SemaValue, Diagnostic> {
        let span = e.span;
        match &e.kind {
            ExprKind::Name(n) => self.lookup(n, span),
            ExprKind::Constant(c) => constexpr::literal(c, span).map(SemaValue::Const),
            ExprKind::Tuple(items) | ExprKind::List(items) => {
                let vals = items
                    .iter()
                    .map(|i| self.lower_expr(i))
                    .collect::<Result<Vec<_>, _>>()?;
                Ok(SemaValue::tuple(vals))
            }
            ExprKind::BinOp { .. } => {
                // A chain `t0 + t1 + … + tn` nests to the left once per operator; it is
                // lowered in a loop (operands in Python's order), so its length costs no
                // stack.
                let mut spine = Vec::new();
                let mut leftmost = e;
                while let ExprKind::BinOp { lhs, .. } = &leftmost.kind {
                    spine.push(leftmost);
                    leftmost = lhs;
                }
                let mut acc = self.lower_expr(leftmost)?;
                for link in spine.into_iter().rev() {
                    let ExprKind::BinOp { op, rhs, .. } = &link.kind else {
                        unreachable!("the spine holds binary operations only")
                    };
                    let b = self.lower_expr(rhs)?;
                    acc = self.binary_op(*op, acc, b, link.span)?;
                }
                Ok(acc)
            }
            ExprKind::UnaryOp { op, operand } => {
                let v = self.lower_expr(operand)?;
                match v {
                    SemaValue::Const(c) => ops::unary(*op, &c)
                        .map(SemaValue::Const)
                        .map_err(|m| constexpr::const_error(span, m)),
                    SemaValue::Tensor(t) => arith::unary(self, *op, t, span).map(SemaValue::Tensor),
                    other => Err(Diagnostic::error(
                        codes::INCOMPATIBLE_TYPES,
                        format!(
                            "bad operand for unary `{}`: {}",
                            op.symbol(),
                            other.describe()
                        ),
                    )
                    .with_primary(span, "")),
                }
            }
            ExprKind::BoolOp { op, values } => self.lower_bool_op(*op, values, span),
            ExprKind::Compare {
                left,
                ops: cops,
                comparators,
            } => {
                if cops.len() != 1 {
                    let both_const = true;
                    let _ = both_const;
                    let l = self.lower_expr(left)?;
                    if let SemaValue::Const(_) = l {
                        // Chained comparisons are fine on compile-time values.
                        let mut lhs = l;
                        for (op, c) in cops.iter().zip(comparators) {
                            let rhs = self.lower_expr(c)?;
                            let (SemaValue::Const(a), SemaValue::Const(b)) = (&lhs, &rhs) else {
                                return Err(Diagnostic::error(
                                    codes::UNSUPPORTED_CONSTRUCT,
                                    "chained comparisons of runtime values are not supported",
                                )
                                .with_primary(span, ""));
                            };
                            if !ops::compare(*op, a, b)
                                .map_err(|m| constexpr::const_error(span, m))?
                                .truthy()
                            {
                                return Ok(SemaValue::Const(Constexpr::Bool(false)));
                            }
                            lhs = rhs;
                        }
                        return Ok(SemaValue::Const(Constexpr::Bool(true)));
                    }
                    return Err(Diagnostic::error(
                        codes::UNSUPPORTED_CONSTRUCT,
                        "chained comparisons of runtime values are not supported",
                    )
                    .with_primary(span, "")
                    .with_help("split it: `(a < b) & (b < c)`"));
                }
                let (a, b) = (self.lower_expr(left)?, self.lower_expr(&comparators[0])?);
                if let (SemaValue::Const(x), SemaValue::Const(y)) = (&a, &b) {
                    return ops::compare(cops[0], x, y)
                        .map(SemaValue::Const)
                        .map_err(|m| constexpr::const_error(span, m));
                }
                if matches!(cops[0], CmpOp::Is | CmpOp::IsNot) {
                    // Triton compares the unwrapped Python objects (`lhs is rhs`): a
                    // runtime value is never a compile-time constant such as `None`.
                    let runtime_vs_const = matches!(
                        (&a, &b),
                        (SemaValue::Const(c), v) | (v, SemaValue::Const(c))
                            if !matches!(v, SemaValue::Const(_))
                                && !matches!(c, Constexpr::Symbolic(_))
                    );
                    if runtime_vs_const {
                        return Ok(SemaValue::Const(Constexpr::Bool(matches!(
                            cops[0],
                            CmpOp::IsNot
                        ))));
                    }
                }
                let Some(kind) = cmp_kind(cops[0]) else {
                    return Err(Diagnostic::error(
                        codes::UNSUPPORTED_CONSTRUCT,
                        format!("`{}` on runtime values is not supported", cops[0].symbol()),
                    )
                    .with_primary(span, "")
                    .with_note("`is`, `is not`, `in` and `not in` are compile-time only"));
                };
                arith::binary(self, kind, a, b, span).map(SemaValue::Tensor)
            }
            ExprKind::IfExp { test, body, orelse } => match self.lower_expr(test)? {
                SemaValue::Const(Constexpr::Symbolic(c)) => {
                    self.lower_ifexp_unknown(&c, body, orelse, span)
                }
                SemaValue::Const(c) => {
                    if c.truthy() {
                        self.lower_expr(body)
                    } else {
                        self.lower_expr(orelse)
                    }
                }
                SemaValue::Tensor(t) => self.lower_runtime_ternary(t, test, body, orelse, span),
                other => Err(Diagnostic::error(
                    codes::NON_SCALAR_CONDITION,
                    format!("cannot branch on {}", other.describe()),
                )
                .with_primary(test.span, "")),
            },
            ExprKind::Attribute { value, attr } => {
                let v = self.lower_expr(value)?;
                match v {
                    SemaValue::Const(Constexpr::Module(m))
                        if !tritonc_syntax::resolve::is_triton_path(&m)
                            && self
                                .scope()
                                .project_attr(&m, &attr.name, attr.span)
                                .is_some() =>
                    {
                        let r = self.scope().project_attr(&m, &attr.name, attr.span);
                        let v = r.expect("checked just above")?;
                        Ok(SemaValue::Const(self.anchor(v)))
                    }
                    SemaValue::Const(c) => {
                        attrs::get_attr(&c, &attr.name, attr.span).map(SemaValue::Const)
                    }
                    SemaValue::Tensor(t) => builtins::tensor_attr(self, t, &attr.name, attr.span),
                    SemaValue::TensorDesc(d) => {
                        builtins::tensor_desc::attr(d, &attr.name, attr.span)
                    }
                    other => Err(Diagnostic::error(
                        codes::UNKNOWN_ATTRIBUTE,
                        format!("{} has no attribute `{}`", other.describe(), attr.name),
                    )
                    .with_primary(attr.span, "")),
                }
            }
            ExprKind::Subscript { value, index } => {
                let v = self.lower_expr(value)?;
                match v {
                    SemaValue::Const(c) => {
                        let i = self.lower_expr(index)?;
                        match i {
                            SemaValue::Const(i) => {
                                attrs::subscript(&c, &i, span).map(SemaValue::Const)
                            }
                            _ => Err(Diagnostic::error(
                                codes::NOT_CONSTEXPR,
                                "a compile-time value can only be indexed by a constant",
                            )
                            .with_primary(index.span, "")),
                        }
                    }
                    SemaValue::Tuple(items) => {
                        let i = self.lower_expr(index)?;
                        let k = i.as_const().and_then(Constexpr::as_int).ok_or_else(|| {
                            Diagnostic::error(
                                codes::NOT_CONSTEXPR,
                                "a tuple index must be a constant int",
                            )
                            .with_primary(index.span, "")
                        })?;
                        let n = items.len() as i128;
                        let j = if k < 0 { k + n } else { k };
                        items
                            .get(usize::try_from(j).unwrap_or(usize::MAX))
                            .cloned()
                            .ok_or_else(|| {
                                constexpr::const_error(
                                    index.span,
                                    format!("IndexError: tuple index {k} out of range"),
                                )
                            })
                    }
                    SemaValue::Tensor(t) => {
                        arith::index_none_slice(self, t, index).map(SemaValue::Tensor)
                    }
                    other => Err(Diagnostic::error(
                        codes::UNSUPPORTED_CONSTRUCT,
                        format!("{} cannot be indexed", other.describe()),
                    )
                    .with_primary(span, "")),
                }
            }
            ExprKind::Call(call) => {
                let callee = self.lower_expr(&call.func)?;
                if let Some(r) = self.lazy_static_assert(&callee, call)? {
                    return Ok(r);
                }
                let mut args = Vec::new();
                for a in &call.args {
                    if let ExprKind::Starred(inner) = &a.kind {
                        let v = self.lower_expr(inner)?;
                        match v.tuple_items() {
                            Some(items) => args.extend(items.into_iter().map(|v| (v, a.span))),
                            None => {
                                return Err(Diagnostic::error(
                                    codes::UNSUPPORTED_CONSTRUCT,
                                    "`*` needs a tuple",
                                )
                                .with_primary(a.span, ""))
                            }
                        }
                    } else {
                        args.push((self.lower_expr(a)?, a.span));
                    }
                }
                let mut kwargs = Vec::new();
                for k in &call.keywords {
                    let Some(name) = &k.name else {
                        return Err(Diagnostic::error(
                            codes::UNSUPPORTED_CONSTRUCT,
                            "`**kwargs` in calls is not supported",
                        )
                        .with_primary(k.span, ""));
                    };
                    kwargs.push((name.name.clone(), self.lower_expr(&k.value)?, k.span));
                }
                self.call(callee, args, kwargs, span, call.func.span)
            }
            ExprKind::FString(_) | ExprKind::Dict(_) => {
                let env = self.const_env();
                constexpr::eval_expr(e, &env).map(SemaValue::Const)
            }
            _ => Err(Diagnostic::error(
                codes::UNSUPPORTED_CONSTRUCT,
                "this expression is not supported in Triton kernels",
            )
            .with_primary(span, "")),
        }
    }

    /// `tl.static_assert(cond, msg)` as Triton 3.6's code generator runs it: the message
    /// is evaluated only when the condition is false, and a message that fails to
    /// evaluate is replaced by a note of why (tests/fixtures/triton/coverage.json,
    /// `static_assert_fstring_*`). `None` when the call is not that (or the condition is
    /// not a known bool: the builtin reports it).
    fn lazy_static_assert(
        &mut self,
        callee: &SemaValue,
        call: &tritonc_syntax::ast::Call,
    ) -> Result<Option<SemaValue>, Diagnostic> {
        let is_static_assert = matches!(
            callee,
            SemaValue::Const(Constexpr::Builtin(p)) if &**p == "triton.language.static_assert"
        );
        if !is_static_assert
            || call.args.len() != 2
            || !call.keywords.is_empty()
            || call
                .args
                .iter()
                .any(|a| matches!(a.kind, ExprKind::Starred(_)))
        {
            return Ok(None);
        }
        let cond = self.lower_expr(&call.args[0])?;
        let Some(c @ Constexpr::Bool(_)) = cond.as_const() else {
            return Ok(None);
        };
        if c.truthy() {
            return Ok(Some(SemaValue::Const(Constexpr::None)));
        }
        let msg = match self.lower_expr(&call.args[1]) {
            Ok(SemaValue::Const(Constexpr::Str(s))) => s,
            Ok(other) => match other.as_const() {
                Some(c) => calls::py_str(c, false),
                None => String::new(),
            },
            Err(d) => format!("<failed to evaluate assertion message: {}>", d.message),
        };
        Err(Diagnostic::error(
            codes::STATIC_ASSERT_FAILED,
            format!("static assertion failed: {msg}"),
        )
        .with_primary(call.args[0].span, "false for this specialization"))
    }

    /// A constexpr environment of the current locals and the module.
    fn const_env(&self) -> super::scope::LocalEnv<'_> {
        let mut locals = indexmap::IndexMap::new();
        if let Some(f) = self.frames.last() {
            for (k, v) in &f.vars {
                if let SemaValue::Const(c) = v {
                    locals.insert(k.clone(), c.clone());
                }
            }
        }
        super::scope::LocalEnv {
            module: self.scope(),
            locals,
        }
    }

    /// A `@triton.constexpr_function` call: its arguments must be compile-time values;
    /// the body runs in the constexpr evaluator over the function's own module.
    fn call_constexpr_function(
        &mut self,
        f: &crate::value::FunctionRef,
        args: Vec<(SemaValue, Span)>,
        kwargs: Vec<(String, SemaValue, Span)>,
        span: Span,
    ) -> Result<SemaValue, Diagnostic> {
        let home: &super::ModuleScope = f.scope.as_deref().unwrap_or(self.module);
        let def = home.constexpr_functions[&*f.name].clone();
        let not_const = |v: &SemaValue, s: Span| {
            Diagnostic::error(
                codes::NOT_CONSTEXPR,
                format!(
                    "`{}` is a compile-time function; its arguments must be compile-time values",
                    f.name
                ),
            )
            .with_primary(s, format!("this is {}", v.describe()))
            .with_secondary(
                def.header_span,
                "declared `@triton.constexpr_function` here",
            )
        };
        let mut cargs = Vec::with_capacity(args.len());
        for (v, s) in &args {
            match v.as_const() {
                Some(c) => cargs.push(c.clone()),
                None => return Err(not_const(v, *s)),
            }
        }
        let mut ckw = Vec::with_capacity(kwargs.len());
        for (k, v, s) in &kwargs {
            match v.as_const() {
                Some(c) => ckw.push((k.clone(), c.clone())),
                None => return Err(not_const(v, *s)),
            }
        }
        if cargs
            .iter()
            .chain(ckw.iter().map(|(_, c)| c))
            .any(crate::symbolic::is_symbolic)
        {
            // Generic analysis: the result depends on a value it does not know.
            return Ok(SemaValue::Const(crate::generic::unknown(&format!(
                "{}(...)",
                f.name
            ))));
        }
        constexpr::call_function_def(&def, &cargs, &ckw, home, span)
            .map(|c| SemaValue::Const(self.anchor(c)))
    }

    fn call(
        &mut self,
        callee: SemaValue,
        args: Vec<(SemaValue, Span)>,
        kwargs: Vec<(String, SemaValue, Span)>,
        span: Span,
        func_span: Span,
    ) -> Result<SemaValue, Diagnostic> {
        match callee {
            SemaValue::Const(Constexpr::Function(f))
                if f.scope
                    .as_deref()
                    .unwrap_or(self.module)
                    .constexpr_functions
                    .contains_key(&*f.name) =>
            {
                self.call_constexpr_function(&f, args, kwargs, span)
            }
            SemaValue::Const(Constexpr::Function(f)) => {
                // Python scalars and dtypes passed to helpers stay constexprs (inlining keeps them).
                self.inline_call(&f, args.into_iter().map(|(v, _)| v).collect(), kwargs, span)
            }
            SemaValue::Const(Constexpr::Builtin(path))
                if &*path == "builtins.len"
                    && args.len() == 1
                    && kwargs.is_empty()
                    && matches!(args[0].0, SemaValue::Tuple(_)) =>
            {
                // `len` of a tuple holding runtime values is still a compile-time int.
                let n = args[0].0.tuple_items().map_or(0, |items| items.len());
                Ok(SemaValue::Const(Constexpr::Int(n as i128)))
            }
            SemaValue::Const(Constexpr::Builtin(path)) => {
                let call = BuiltinCall {
                    path: path.clone(),
                    receiver: None,
                    args,
                    kwargs,
                    span,
                    func_span,
                };
                builtins::dispatch(self, &call)
            }
            SemaValue::Const(c @ Constexpr::BoundMethod(..)) => {
                let cargs = args
                    .iter()
                    .map(|(v, s)| {
                        v.as_const().cloned().ok_or_else(|| {
                            Diagnostic::error(
                                codes::NOT_CONSTEXPR,
                                "expected a compile-time argument",
                            )
                            .with_primary(*s, "")
                        })
                    })
                    .collect::<Result<Vec<_>, _>>()?;
                calls::call(&c, &cargs, &[], span, func_span).map(SemaValue::Const)
            }
            SemaValue::TensorMethod(recv, method) => {
                let call = BuiltinCall {
                    path: Arc::from(format!("triton.language.{method}").as_str()),
                    receiver: Some(recv),
                    args,
                    kwargs,
                    span,
                    func_span,
                };
                builtins::dispatch(self, &call)
            }
            SemaValue::TensorDescMethod(d, method) => builtins::tensor_desc::call_method(
                self, d, &method, args, kwargs, span, func_span,
            ),
            SemaValue::Const(c @ Constexpr::DType(_)) => Err(Diagnostic::error(
                codes::INCOMPATIBLE_TYPES,
                format!(
                    "`{c}` is a dtype, not a constructor: Triton 3.6 rejects `{c}(...)` \
                     ('dtype' object is not callable)"
                ),
            )
            .with_primary(func_span, "a dtype cannot be called")
            .with_help(format!(
                "for a scalar of this dtype write `tl.full([], value, {c})`; to convert a \
                 value, `x.to({c})`"
            ))),
            SemaValue::Const(Constexpr::Module(path))
                if !tritonc_syntax::resolve::is_triton_path(&path) =>
            {
                if self.scope().is_plain_function(&path) {
                    return Err(Diagnostic::error(
                        codes::UNSUPPORTED_CONSTRUCT,
                        format!("`{path}` is not a `@triton.jit` function; kernels cannot call it"),
                    )
                    .with_primary(func_span, "called here")
                    .with_note("it is a plain Python function of this project (host code)")
                    .with_help(
                        "decorate it with `@triton.jit`, or call a `@triton.jit` helper instead",
                    ));
                }
                Err(outside_project(&path, func_span))
            }
            other => Err(Diagnostic::error(
                codes::INCOMPATIBLE_TYPES,
                format!("{} is not callable", other.describe()),
            )
            .with_primary(func_span, "")),
        }
    }
}

/// A call of code tritonc cannot read: another package, or a module outside the project.
fn outside_project(path: &str, span: Span) -> Diagnostic {
    Diagnostic::error(
        codes::UNSUPPORTED_CONSTRUCT,
        format!(
            "`{path}` is defined outside the project tritonc can see; its body cannot be inlined"
        ),
    )
    .with_primary(span, "called here")
    .with_note(
        "tritonc reads the kernel's own project: the modules under the nearest ancestor \
         directory without an `__init__.py`",
    )
    .with_help("move the `@triton.jit` helper into the project, or import it from a module of it")
}

impl LowerCx<'_> {
    /// `a and b` / `a or b`, Triton's way: constexpr operands short-circuit or drop out;
    /// the runtime operands left are folded from the right with `logical_and`/`logical_or`
    /// (a bitwise op on `i1`, so operands must already be `i1`). Blocks get Triton's
    /// deprecation warning.
    fn lower_bool_op(
        &mut self,
        op: tritonc_syntax::ast::BoolOp,
        values: &[Expr],
        span: Span,
    ) -> Result<SemaValue, Diagnostic> {
        use tritonc_syntax::ast::BoolOp;
        let mut runtime = Vec::new();
        let mut last = SemaValue::Const(Constexpr::None);
        let mut warned = false;
        let sym = match op {
            BoolOp::And => "and",
            BoolOp::Or => "or",
        };
        for v in values {
            last = self.lower_expr(v)?;
            match &last {
                SemaValue::Const(c) => {
                    let decided = match op {
                        BoolOp::And => !c.truthy(),
                        BoolOp::Or => c.truthy(),
                    };
                    if decided {
                        return Ok(last);
                    }
                }
                SemaValue::Tensor(t) => {
                    if t.is_block() && !warned {
                        warned = true;
                        self.warn(
                            Diagnostic::warning(
                                codes::DEPRECATED_BOOL_OP,
                                "`and` and `or` on blocks are deprecated",
                            )
                            .with_primary(span, "")
                            .with_help(format!(
                                "use `{}` on boolean blocks",
                                if op == BoolOp::And { "&" } else { "|" }
                            )),
                        );
                    }
                    if t.ty.dtype() != Some(tritonc_ir::DType::I1) {
                        return Err(Diagnostic::error(
                            codes::INVALID_CAST,
                            format!(
                                "`{}` needs boolean operands; `{}` cannot be bitcast to `i1`",
                                sym, t.ty
                            ),
                        )
                        .with_primary(v.span, format!("this is `{}`", t.ty))
                        .with_help("compare it first, e.g. `x != 0`"));
                    }
                    runtime.push((t.clone(), v.span));
                }
                other => {
                    return Err(Diagnostic::error(
                        codes::INCOMPATIBLE_TYPES,
                        format!("`{sym}` is not defined on {}", other.describe()),
                    )
                    .with_primary(v.span, ""))
                }
            }
        }
        let Some((mut acc, _)) = runtime.pop() else {
            // Only constexprs that did not decide: Python returns the last one.
            return Ok(last);
        };
        let kind = match op {
            BoolOp::And => BinaryKind::And,
            BoolOp::Or => BinaryKind::Or,
        };
        while let Some((lhs, _)) = runtime.pop() {
            acc = arith::binary(
                self,
                kind,
                SemaValue::Tensor(lhs),
                SemaValue::Tensor(acc),
                span,
            )?;
        }
        Ok(SemaValue::Tensor(acc))
    }

    /// `a if cond else b` on a runtime scalar condition: an `scf.if` yielding one value;
    /// both arms become tensors of the same type, as in Triton 3.6.
    fn lower_runtime_ternary(
        &mut self,
        cond: crate::value::TensorValue,
        test: &Expr,
        body: &Expr,
        orelse: &Expr,
        span: Span,
    ) -> Result<SemaValue, Diagnostic> {
        if cond.is_block() {
            return Err(Diagnostic::error(
                codes::NON_SCALAR_CONDITION,
                format!(
                    "a ternary needs a scalar condition, not a `{}` block",
                    cond.ty
                ),
            )
            .with_primary(test.span, "a condition must be a scalar")
            .with_help("use `tl.where(cond, a, b)` for an elementwise choice"));
        }
        let cond = self.scalar_condition(cond, test.span)?;
        let outer = self.block;
        let if_op = self.builder(span).scf_if(cond.id, Vec::new());
        self.block = if_op.then_block;
        let then_v = self
            .lower_expr(body)
            .and_then(|v| arith::to_tensor(self, v, body.span));
        let then_v = match then_v {
            Ok(v) => v,
            Err(d) => {
                self.block = outer;
                return Err(d);
            }
        };
        self.block = if_op.else_block;
        let else_v = self
            .lower_expr(orelse)
            .and_then(|v| arith::to_tensor(self, v, orelse.span));
        self.block = outer;
        let else_v = else_v?;
        if then_v.ty != else_v.ty {
            return Err(Diagnostic::error(
                codes::BRANCH_TYPE_MISMATCH,
                format!(
                    "the ternary's values have different types: `{}` and `{}`",
                    then_v.ty, else_v.ty
                ),
            )
            .with_primary(body.span, format!("`{}`", then_v.ty))
            .with_secondary(orelse.span, format!("`{}`", else_v.ty))
            .with_help("convert one of them with `.to(...)`"));
        }
        self.block = if_op.then_block;
        self.builder(span).yield_(&[then_v.id]);
        self.block = if_op.else_block;
        self.builder(span).yield_(&[else_v.id]);
        self.block = outer;
        let r = self.func.add_result(if_op.op, then_v.ty.clone());
        Ok(SemaValue::Tensor(crate::value::TensorValue {
            id: r,
            ty: then_v.ty,
        }))
    }
}
