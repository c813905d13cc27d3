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
            ExprKind::BinOp { op, lhs, rhs } => {
                let (a, b) = (self.lower_expr(lhs)?, self.lower_expr(rhs)?);
                self.binary_op(*op, a, b, span)
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
            ExprKind::BoolOp { op, values } => {
                // Python's short circuit on compile-time values; runtime operands are not lowered yet.
                let mut last = SemaValue::Const(Constexpr::None);
                for v in values {
                    last = self.lower_expr(v)?;
                    let SemaValue::Const(c) = &last else {
                        return Err(Diagnostic::error(
                            codes::UNSUPPORTED_CONSTRUCT,
                            "`and`/`or` on runtime values is not lowered by tritonc yet",
                        )
                        .with_primary(v.span, "")
                        .with_help("use `&` / `|` on boolean blocks"));
                    };
                    let decided = match op {
                        tritonc_syntax::ast::BoolOp::And => !c.truthy(),
                        tritonc_syntax::ast::BoolOp::Or => c.truthy(),
                    };
                    if decided {
                        break;
                    }
                }
                Ok(last)
            }
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
                SemaValue::Const(c) => {
                    if c.truthy() {
                        self.lower_expr(body)
                    } else {
                        self.lower_expr(orelse)
                    }
                }
                _ => Err(Diagnostic::error(
                    codes::UNSUPPORTED_CONSTRUCT,
                    "a ternary on a runtime condition is not lowered by tritonc yet",
                )
                .with_primary(test.span, "")
                .with_help("use `tl.where(cond, a, b)`")),
            },
            ExprKind::Attribute { value, attr } => {
                let v = self.lower_expr(value)?;
                match v {
                    SemaValue::Const(c) => {
                        attrs::get_attr(&c, &attr.name, attr.span).map(SemaValue::Const)
                    }
                    SemaValue::Tensor(t) => builtins::tensor_attr(self, t, &attr.name, attr.span),
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

    /// A constexpr environment of the current locals and the module's globals.
    fn const_env(&self) -> constexpr::MapEnv {
        let mut env = constexpr::MapEnv {
            values: self.module.globals.clone(),
        };
        if let Some(f) = self.frames.last() {
            for (k, v) in &f.vars {
                if let SemaValue::Const(c) = v {
                    env.values.insert(k.clone(), c.clone());
                }
            }
        }
        env
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
            SemaValue::Const(Constexpr::Function(f)) => {
                // Python scalars and dtypes passed to helpers stay constexprs (inlining keeps them).
                self.inline_call(
                    &f.name,
                    args.into_iter().map(|(v, _)| v).collect(),
                    kwargs,
                    span,
                )
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
            other => Err(Diagnostic::error(
                codes::INCOMPATIBLE_TYPES,
                format!("{} is not callable", other.describe()),
            )
            .with_primary(func_span, "")),
        }
    }
}
