//! Statements and control flow: assignments, `if` (folded on constexprs, `scf.if` on
//! scalar tensors), `for` over `range`/`tl.range` (`scf.for`) and `tl.static_range`
//! (unrolled), `return`, `assert`.

use indexmap::IndexMap;
use tritonc_diagnostics::{Diagnostic, Span};
use tritonc_syntax::ast::{Expr, ExprKind, Stmt, StmtKind};

use super::LowerCx;
use crate::builtins::arith;
use crate::codes;
use crate::constexpr::calls::range_values;
use crate::promote::{integer_promote, literal_dtype, BinaryKind, Operand};
use crate::value::{Constexpr, SemaValue, TensorValue};

fn unsupported(span: Span, what: &str) -> Diagnostic {
    Diagnostic::error(
        codes::UNSUPPORTED_CONSTRUCT,
        format!("{what} is not supported in Triton kernels"),
    )
    .with_primary(span, "")
}

/// Names a statement list assigns, in order of first assignment, with that span.
fn assigned_names(body: &[Stmt], out: &mut IndexMap<String, Span>) {
    fn target(e: &Expr, out: &mut IndexMap<String, Span>) {
        match &e.kind {
            ExprKind::Name(n) => {
                out.entry(n.clone()).or_insert(e.span);
            }
            ExprKind::Tuple(items) | ExprKind::List(items) => {
                items.iter().for_each(|i| target(i, out))
            }
            _ => {}
        }
    }
    for s in body {
        match &s.kind {
            StmtKind::Assign { targets, .. } => targets.iter().for_each(|t| target(t, out)),
            StmtKind::AnnAssign { target: t, .. } | StmtKind::AugAssign { target: t, .. } => {
                target(t, out)
            }
            StmtKind::If { body, orelse, .. } | StmtKind::While { body, orelse, .. } => {
                assigned_names(body, out);
                assigned_names(orelse, out);
            }
            StmtKind::For {
                target: t, body, ..
            } => {
                target(t, out);
                assigned_names(body, out);
            }
            _ => {}
        }
    }
}

impl LowerCx<'_> {
    /// Lowers a function-level statement list (or a loop body) until the end or a `return`.
    pub(crate) fn lower_body(&mut self, body: &[Stmt]) -> Result<(), Diagnostic> {
        self.lower_block(body, &[])
    }

    /// Lowers statements until the end or a `return`. `cont` is what runs after them up to
    /// the end of the function (enclosing statement lists, innermost first): an `if` on a
    /// runtime condition with a returning branch moves it into the other branch.
    fn lower_block(&mut self, body: &[Stmt], cont: &[&[Stmt]]) -> Result<(), Diagnostic> {
        for (i, s) in body.iter().enumerate() {
            if self.frame().returned.is_some() {
                break;
            }
            if let StmtKind::If {
                test,
                body: then,
                orelse,
            } = &s.kind
            {
                let mut inner: Vec<&[Stmt]> = vec![&body[i + 1..]];
                inner.extend_from_slice(cont);
                if crate::generic::active() {
                    crate::generic::recover::recover(self, s, |cx| {
                        cx.lower_if(test, then, orelse, s.span, &inner)
                    })?;
                } else {
                    self.lower_if(test, then, orelse, s.span, &inner)?;
                }
                continue;
            }
            if crate::generic::active() {
                crate::generic::recover::recover(self, s, |cx| cx.lower_stmt(s))?;
            } else {
                self.lower_stmt(s)?;
            }
        }
        Ok(())
    }

    fn lower_stmt(&mut self, s: &Stmt) -> Result<(), Diagnostic> {
        match &s.kind {
            StmtKind::Pass => Ok(()),
            StmtKind::Expr(e) => {
                // Docstrings and other constant expressions have no effect.
                self.lower_expr(e).map(|_| ())
            }
            StmtKind::Assign { targets, value } => {
                let v = self.lower_expr(value)?;
                let v = self.assigned_value(v, value.span)?;
                for t in targets {
                    self.assign(t, v.clone())?;
                }
                Ok(())
            }
            StmtKind::AnnAssign {
                target,
                annotation,
                value,
            } => {
                let Some(value) = value else { return Ok(()) };
                let mut v = self.lower_expr(value)?;
                if crate::spec::is_constexpr_annotation(annotation) {
                    if !matches!(v, SemaValue::Const(_)) {
                        return Err(Diagnostic::error(
                            codes::NOT_CONSTEXPR,
                            "a `tl.constexpr` variable needs a compile-time value",
                        )
                        .with_primary(value.span, format!("this is {}", v.describe())));
                    }
                    if let Some(n) = target.as_name() {
                        self.frame().constexpr_locals.push(n.to_string());
                    }
                } else if let Some(dt) = self
                    .lower_expr(annotation)
                    .ok()
                    .and_then(|a| a.as_const().and_then(Constexpr::as_dtype))
                {
                    // `x: tl.float32 = v` converts like Triton's annotated assignment.
                    let t = arith::to_tensor(self, v, value.span)?;
                    v = SemaValue::Tensor(arith::cast(self, t, dt, value.span)?);
                } else {
                    v = self.assigned_value(v, value.span)?;
                }
                self.assign(target, v)
            }
            StmtKind::AugAssign { target, op, value } => {
                let cur = self.lower_expr(target)?;
                let rhs = self.lower_expr(value)?;
                let v = self.binary_op(*op, cur, rhs, s.span)?;
                let v = self.assigned_value(v, s.span)?;
                self.assign(target, v)
            }
            StmtKind::If { test, body, orelse } => self.lower_if(test, body, orelse, s.span, &[]),
            StmtKind::For {
                target,
                iter,
                body,
                orelse,
                ..
            } => {
                if !orelse.is_empty() {
                    return Err(unsupported(s.span, "`for ... else`"));
                }
                self.lower_for(target, iter, body, s.span)
            }
            StmtKind::Return(value) => {
                let v = match value {
                    Some(e) => self.lower_expr(e)?,
                    None => SemaValue::Const(Constexpr::None),
                };
                self.frame().returned = Some((v, s.span));
                Ok(())
            }
            StmtKind::Assert { test, msg } => {
                // Triton lowers `assert` as `tl.device_assert`, constexpr conditions too.
                let c = self.lower_expr(test)?;
                let m = match msg {
                    Some(m) => Some((self.lower_expr(m)?, m.span)),
                    None => None,
                };
                crate::builtins::debug::assert_statement(self, (c, test.span), m, s.span)
            }
            StmtKind::While { test, body, orelse } => {
                if !orelse.is_empty() {
                    return Err(unsupported(s.span, "`while ... else`"));
                }
                self.lower_while(test, body, s.span)
            }
            StmtKind::Raise { .. } => {
                if crate::generic::active() && self.runtime_branches == 0 {
                    // Generic analysis reaches both arms of an `if` on an unknown
                    // constexpr; `else: raise` refuses the values that take that arm, so
                    // the arm adds nothing to analyse.
                    return Ok(());
                }
                // The syntactic check leaves a `raise` under an `if` to this point: Triton
                // rejects only a `raise` its code generator reaches.
                Err(Diagnostic::error(
                    tritonc_syntax::codes::RAISE,
                    "Triton does not support `raise` inside a kernel, and this one is reached",
                )
                .with_primary(s.span, "reached with this specialization")
                .with_note(
                    "a `raise` in a branch that constexpr folding removes is accepted; this \
                     branch is taken for the constexpr values given",
                )
                .with_help(
                    "check constexpr conditions with `tl.static_assert` and runtime ones with \
                     `tl.device_assert`",
                ))
            }
            StmtKind::Break => Err(unsupported(s.span, "`break`")),
            StmtKind::Continue => Err(unsupported(s.span, "`continue`")),
            _ => Err(unsupported(s.span, "this statement")),
        }
    }

    /// Binds `value` to an assignment target (a name or a tuple of targets).
    /// What an assignment statement binds: Triton 3.6's `visit_Assign` turns a Python
    /// number into a scalar tensor of its literal dtype (`_sanitize_value`, `to_tensor`),
    /// inside tuples too, so `s = 0.5; x_fp16 * s` computes in fp32 and `stride = 1 << 31;
    /// d ^ stride` in uint32, where the number written in place would keep the tensor's
    /// dtype. Dtypes, `None`, functions and `tl.constexpr` variables stay compile-time
    /// values (loop variables of `tl.static_range` are bound without this).
    pub(super) fn assigned_value(&mut self, v: SemaValue, span: Span) -> Result<SemaValue, Diagnostic> {
        match v {
            SemaValue::Const(c) if c.is_number() => {
                Ok(SemaValue::Tensor(arith::to_tensor(self, SemaValue::Const(c), span)?))
            }
            SemaValue::Const(Constexpr::Tuple(items)) if items.iter().any(Constexpr::is_number) => {
                let items = items
                    .into_iter()
                    .map(|c| self.assigned_value(SemaValue::Const(c), span))
                    .collect::<Result<Vec<_>, _>>()?;
                Ok(SemaValue::Tuple(items))
            }
            SemaValue::Tuple(items) => Ok(SemaValue::Tuple(
                items
                    .into_iter()
                    .map(|v| self.assigned_value(v, span))
                    .collect::<Result<Vec<_>, _>>()?,
            )),
            other => Ok(other),
        }
    }

    fn assign(&mut self, target: &Expr, value: SemaValue) -> Result<(), Diagnostic> {
        match &target.kind {
            ExprKind::Name(n) => {
                if self.frame().constexpr_locals.contains(n) && self.frame().vars.contains_key(n) {
                    return Err(Diagnostic::error(
                        codes::NOT_CONSTEXPR,
                        format!("`{n}` is a `tl.constexpr` and cannot be reassigned"),
                    )
                    .with_primary(target.span, ""));
                }
                self.frame().vars.insert(n.clone(), value);
                Ok(())
            }
            ExprKind::Tuple(items) | ExprKind::List(items) => {
                let Some(values) = value.tuple_items() else {
                    return Err(Diagnostic::error(
                        codes::INCOMPATIBLE_TYPES,
                        format!(
                            "cannot unpack {} into {} targets",
                            value.describe(),
                            items.len()
                        ),
                    )
                    .with_primary(target.span, ""));
                };
                if values.len() != items.len() {
                    return Err(Diagnostic::error(
                        codes::INCOMPATIBLE_TYPES,
                        format!(
                            "cannot unpack {} values into {} targets",
                            values.len(),
                            items.len()
                        ),
                    )
                    .with_primary(target.span, ""));
                }
                for (t, v) in items.iter().zip(values) {
                    self.assign(t, v)?;
                }
                Ok(())
            }
            _ => Err(unsupported(target.span, "assigning to this target")),
        }
    }

    fn lower_if(
        &mut self,
        test: &Expr,
        body: &[Stmt],
        orelse: &[Stmt],
        span: Span,
        cont: &[&[Stmt]],
    ) -> Result<(), Diagnostic> {
        let cond = self.lower_expr(test)?;
        let cond = match cond {
            SemaValue::Const(crate::value::Constexpr::Symbolic(c)) => {
                // Generic analysis: an unknown constexpr condition analyses both arms.
                return self.lower_if_unknown(&c, body, orelse, span);
            }
            SemaValue::Const(c) => {
                // Folded before type checking: only the taken branch is analysed.
                return if c.truthy() {
                    self.lower_block(body, cont)
                } else {
                    self.lower_block(orelse, cont)
                };
            }
            SemaValue::Tensor(t) => t,
            other => {
                return Err(Diagnostic::error(
                    codes::NON_SCALAR_CONDITION,
                    format!("cannot branch on {}", other.describe()),
                )
                .with_primary(test.span, ""))
            }
        };
        let cond = self.scalar_condition(cond, test.span)?;
        let before = self.frame().vars.clone();
        let outer = self.block;
        let if_op = self.builder(span).scf_if(cond.id, Vec::new());

        self.block = if_op.then_block;
        self.runtime_branches += 1;
        let then = self.lower_block(body, cont);
        self.runtime_branches -= 1;
        then?;
        let then_vars = std::mem::replace(&mut self.frame().vars, before.clone());
        let then_returned = self.frame().returned.take();
        self.block = if_op.else_block;
        self.runtime_branches += 1;
        let orelse_done = self.lower_block(orelse, cont);
        self.runtime_branches -= 1;
        orelse_done?;
        let else_returned = self.frame().returned.take();
        if then_returned.is_some() || else_returned.is_some() {
            // A returning branch ends the function on its path; the statements after the
            // `if` run only on the other path, so they move into that branch.
            let else_returned = match else_returned {
                Some(r) => r,
                None => self.lower_continuation(cont, span)?,
            };
            let then_returned = match then_returned {
                Some(r) => r,
                None => {
                    self.frame().vars = then_vars;
                    self.block = if_op.then_block;
                    self.lower_continuation(cont, span)?
                }
            };
            self.frame().vars = before;
            let merged = self.merge_returns(&if_op, then_returned, else_returned, span);
            self.block = outer;
            let merged = merged?;
            self.frame().returned = Some(merged);
            return Ok(());
        }
        let else_vars = std::mem::replace(&mut self.frame().vars, before.clone());
        // Merged: defined before the if, or assigned in both branches.
        let mut merged = Vec::new();
        for (name, tv) in &then_vars {
            let Some(ev) = else_vars.get(name) else {
                continue;
            };
            if before.get(name) == Some(tv) && tv == ev {
                continue;
            }
            merged.push((name.clone(), tv.clone(), ev.clone()));
        }
        let mut then_vals = Vec::new();
        let mut else_vals = Vec::new();
        let mut types = Vec::new();
        for (name, tv, ev) in &merged {
            self.block = if_op.then_block;
            let t = arith::to_tensor(self, tv.clone(), span)?;
            self.block = if_op.else_block;
            let e = arith::to_tensor(self, ev.clone(), span)?;
            if t.ty != e.ty {
                return Err(Diagnostic::error(
                    codes::BRANCH_TYPE_MISMATCH,
                    format!(
                        "`{name}` is `{}` in one branch and `{}` in the other",
                        t.ty, e.ty
                    ),
                )
                .with_primary(span, format!("`{name}` must have one type after this `if`")));
            }
            types.push(t.ty.clone());
            then_vals.push(t.id);
            else_vals.push(e.id);
        }
        self.block = if_op.then_block;
        self.builder(span).yield_(&then_vals);
        self.block = if_op.else_block;
        self.builder(span).yield_(&else_vals);
        self.block = outer;
        self.frame().vars = before;
        for ((name, _, _), ty) in merged.into_iter().zip(types) {
            let r = self.func.add_result(if_op.op, ty.clone());
            self.frame()
                .vars
                .insert(name, SemaValue::Tensor(TensorValue { id: r, ty }));
        }
        Ok(())
    }

    /// A scalar (or one-element block) `i1` condition from a runtime value.
    pub(crate) fn scalar_condition(
        &mut self,
        t: TensorValue,
        span: Span,
    ) -> Result<TensorValue, Diagnostic> {
        if t.ty.numel() != Some(1) {
            return Err(Diagnostic::error(
                codes::NON_SCALAR_CONDITION,
                format!("a `{}` block has no single truth value", t.ty),
            )
            .with_primary(span, "a condition must be a scalar"));
        }
        if t.is_block() {
            return Err(unsupported(span, "a one-element block as a condition"));
        }
        if t.ty.dtype() == Some(tritonc_ir::DType::I1) {
            return Ok(t);
        }
        arith::cast(self, t, tritonc_ir::DType::I1, span)
    }

    fn lower_for(
        &mut self,
        target: &Expr,
        iter: &Expr,
        body: &[Stmt],
        span: Span,
    ) -> Result<(), Diagnostic> {
        let ExprKind::Call(call) = &iter.kind else {
            return Err(unsupported(
                iter.span,
                "iterating over anything but `range`, `tl.range` or `tl.static_range`",
            ));
        };
        let callee = self.lower_expr(&call.func)?;
        let path = match &callee {
            SemaValue::Const(Constexpr::Builtin(p)) => p.to_string(),
            _ => String::new(),
        };
        let mut bounds = Vec::new();
        for a in &call.args {
            bounds.push((self.lower_expr(a)?, a.span));
        }
        let num_stages = self.range_keywords(&path, call, &mut bounds)?;
        match path.as_str() {
            "triton.language.static_range" => {
                let ints: Vec<i128> = bounds
                    .iter()
                    .map(|(v, s)| {
                        v.as_const().and_then(Constexpr::as_int).ok_or_else(|| {
                            Diagnostic::error(
                                codes::NOT_CONSTEXPR,
                                "`tl.static_range` bounds must be compile-time ints",
                            )
                            .with_primary(*s, format!("this is {}", v.describe()))
                        })
                    })
                    .collect::<Result<_, _>>()?;
                let (s, e, st) = match ints.as_slice() {
                    [e] => (0, *e, 1),
                    [s, e] => (*s, *e, 1),
                    [s, e, st] => (*s, *e, *st),
                    _ => {
                        return Err(Diagnostic::error(
                            codes::BAD_ARGUMENTS,
                            "`tl.static_range` takes 1 to 3 bounds",
                        )
                        .with_primary(iter.span, ""))
                    }
                };
                for i in range_values(s, e, st, iter.span)? {
                    self.assign(target, SemaValue::Const(Constexpr::Int(i)))?;
                    self.lower_body(body)?;
                    if self.frame().returned.is_some() {
                        return Err(Diagnostic::error(
                            codes::INVALID_RETURN,
                            "`return` inside a loop is not allowed",
                        )
                        .with_primary(span, ""));
                    }
                }
                Ok(())
            }
            "builtins.range" | "triton.language.range" => {
                self.lower_scf_for(target, bounds, body, span, iter.span, num_stages)
            }
            _ => Err(unsupported(
                iter.span,
                "iterating over anything but `range`, `tl.range` or `tl.static_range`",
            )),
        }
    }

    /// The keywords of a `range`, `tl.range` or `tl.static_range` call, checked as Triton
    /// 3.6 checks them (tests/fixtures/triton/coverage.json, `range_*`): the bounds may be
    /// given by keyword (they join `bounds`); `tl.range`'s loop attributes must be
    /// compile-time values (`num_stages` and `loop_unroll_factor` ints); any other keyword
    /// is an error at its span. Python's `range` ignores keywords in Triton 3.6 (a
    /// warning here).
    ///
    /// Returns `num_stages` when given (kept on the loop's `scf.for`, where it overrides
    /// the launch's `num_stages` for that loop's pipelining); the other loop attributes
    /// are validated and not kept.
    fn range_keywords(
        &mut self,
        path: &str,
        call: &tritonc_syntax::ast::Call,
        bounds: &mut Vec<(SemaValue, Span)>,
    ) -> Result<Option<u32>, Diagnostic> {
        const BOUNDS: &[&str] = &["arg1", "arg2", "step"];
        const LOOP_INTS: &[&str] = &["num_stages", "loop_unroll_factor"];
        const LOOP_FLAGS: &[&str] = &[
            "disallow_acc_multi_buffer",
            "flatten",
            "warp_specialize",
            "disable_licm",
        ];
        let shown = match path {
            "triton.language.range" => "tl.range",
            "triton.language.static_range" => "tl.static_range",
            "builtins.range" => "range",
            _ => return Ok(None),
        };
        let mut num_stages = None;
        let mut by_name: Vec<(usize, SemaValue, Span)> = Vec::new();
        for k in &call.keywords {
            let Some(name) = &k.name else {
                return Err(unsupported(k.span, "`**kwargs` in a range call"));
            };
            let name = name.name.as_str();
            if path == "builtins.range" {
                self.warn(
                    Diagnostic::warning(
                        codes::BAD_ARGUMENTS,
                        format!("Triton 3.6 ignores the keyword `{name}` of Python's `range`"),
                    )
                    .with_primary(k.span, "ignored")
                    .with_help("loop attributes such as `num_stages` belong to `tl.range`"),
                );
                continue;
            }
            let is_range = path == "triton.language.range";
            let known = BOUNDS.contains(&name)
                || (is_range && (LOOP_INTS.contains(&name) || LOOP_FLAGS.contains(&name)));
            if !known {
                let candidates: Vec<&str> = if is_range {
                    BOUNDS
                        .iter()
                        .chain(LOOP_INTS)
                        .chain(LOOP_FLAGS)
                        .copied()
                        .collect()
                } else {
                    BOUNDS.to_vec()
                };
                let mut d = Diagnostic::error(
                    codes::BAD_ARGUMENTS,
                    format!("`{shown}` got an unexpected keyword argument `{name}`"),
                )
                .with_primary(k.span, "not a parameter of this iterator")
                .with_note(format!("`{shown}` takes: {}", candidates.join(", ")));
                if let Some(s) = crate::builtins::names::did_you_mean(name, candidates.into_iter())
                {
                    d = d.with_help(format!("did you mean `{s}`?"));
                }
                return Err(d);
            }
            let v = self.lower_expr(&k.value)?;
            if let Some(i) = BOUNDS.iter().position(|b| *b == name) {
                by_name.push((i, v, k.value.span));
                continue;
            }
            let Some(c) = v.as_const() else {
                return Err(Diagnostic::error(
                    codes::NOT_CONSTEXPR,
                    format!("`{name}` of `tl.range` must be a compile-time value"),
                )
                .with_primary(k.value.span, format!("this is {}", v.describe()))
                .with_note("Triton 3.6 sets it as an attribute of the loop when compiling"));
            };
            let int_ok = matches!(c, Constexpr::None | Constexpr::Int(_) | Constexpr::Bool(_))
                || matches!(c, Constexpr::Symbolic(_));
            if LOOP_INTS.contains(&name) && !int_ok {
                return Err(Diagnostic::error(
                    codes::BAD_ARGUMENTS,
                    format!(
                        "`{name}` of `tl.range` must be an int, not {}",
                        c.type_name()
                    ),
                )
                .with_primary(k.value.span, "")
                .with_note("Triton 3.6 stores it as a 32-bit integer attribute of the loop"));
            }
            if name == "num_stages" {
                if let Some(n) = c.as_int() {
                    num_stages = Some(u32::try_from(n.max(0)).unwrap_or(u32::MAX));
                }
            }
        }
        by_name.sort_by_key(|(i, _, _)| *i);
        for (i, v, span) in by_name {
            // Positional bounds first, then keywords in parameter order (Python rejects
            // a bound given both ways).
            if i < bounds.len() {
                return Err(Diagnostic::error(
                    codes::BAD_ARGUMENTS,
                    format!("`{shown}` got multiple values for `{}`", BOUNDS[i]),
                )
                .with_primary(span, ""));
            }
            if i == 2 {
                // `step=` with only an end: the start defaults to 0.
                while bounds.len() < 2 {
                    if bounds.is_empty() {
                        return Err(Diagnostic::error(
                            codes::BAD_ARGUMENTS,
                            format!("`{shown}` needs an end bound"),
                        )
                        .with_primary(call.func.span, ""));
                    }
                    let end = bounds.pop().expect("one bound");
                    bounds.push((SemaValue::Const(Constexpr::Int(0)), end.1));
                    bounds.push(end);
                }
            }
            if bounds.len() != i {
                return Err(Diagnostic::error(
                    codes::BAD_ARGUMENTS,
                    format!(
                        "`{shown}`: `{}` given without the bounds before it",
                        BOUNDS[i]
                    ),
                )
                .with_primary(span, ""));
            }
            bounds.push((v, span));
        }
        Ok(num_stages)
    }

    fn lower_scf_for(
        &mut self,
        target: &Expr,
        bounds: Vec<(SemaValue, Span)>,
        body: &[Stmt],
        span: Span,
        iter_span: Span,
        num_stages: Option<u32>,
    ) -> Result<(), Diagnostic> {
        let Some(iv_name) = target.as_name().map(str::to_string) else {
            return Err(unsupported(target.span, "a loop target other than a name"));
        };
        let bounds = crate::generic::recover::runtime_bounds(self, bounds);
        let (mut lb, mut ub, mut step) = match bounds.len() {
            1 => (
                (SemaValue::Const(Constexpr::Int(0)), iter_span),
                bounds[0].clone(),
                (SemaValue::Const(Constexpr::Int(1)), iter_span),
            ),
            2 => (
                bounds[0].clone(),
                bounds[1].clone(),
                (SemaValue::Const(Constexpr::Int(1)), iter_span),
            ),
            3 => (bounds[0].clone(), bounds[1].clone(), bounds[2].clone()),
            _ => {
                return Err(
                    Diagnostic::error(codes::BAD_ARGUMENTS, "`range` takes 1 to 3 bounds")
                        .with_primary(iter_span, ""),
                )
            }
        };
        // scf.for needs a positive step: like Triton, a negative constexpr step runs the
        // mirrored range upwards and maps the induction variable back (`ub - iv + lb`).
        let mut negative_step = false;
        if let SemaValue::Const(c) = &step.0 {
            match c.as_int() {
                Some(0) => {
                    return Err(Diagnostic::error(
                        codes::CONSTEXPR_ERROR,
                        "`range` step must not be zero",
                    )
                    .with_primary(step.1, ""))
                }
                Some(v) if v < 0 => {
                    negative_step = true;
                    step.0 = SemaValue::Const(Constexpr::Int(-v));
                    std::mem::swap(&mut lb, &mut ub);
                }
                _ => {}
            }
        }
        // The induction variable's type is the integer promotion of the bounds' types.
        let mut iv_ty = None;
        for (v, s) in [&lb, &ub, &step] {
            let d = match v {
                SemaValue::Const(c) if c.as_int().is_some() => {
                    literal_dtype(Operand::Int(c.as_int().unwrap_or(0)))
                        .map_err(|e| Diagnostic::error(e.code, e.message).with_primary(*s, ""))?
                }
                SemaValue::Tensor(t) if t.ty.is_scalar() && t.ty.is_int_like() => {
                    t.ty.dtype().unwrap_or(tritonc_ir::DType::I32)
                }
                other => {
                    return Err(Diagnostic::error(
                        codes::INVALID_OPERAND,
                        format!("`range` bounds must be integers, not {}", other.describe()),
                    )
                    .with_primary(*s, ""))
                }
            };
            iv_ty = Some(iv_ty.map_or(d, |cur| integer_promote(cur, d)));
        }
        let iv_ty = iv_ty.unwrap_or(tritonc_ir::DType::I32);
        let mut ids = Vec::new();
        for (v, s) in [lb, ub, step] {
            let t = arith::to_tensor_as(self, v, iv_ty, s)?;
            ids.push(t.id);
        }
        let (carried, inits) = self.loop_carried(body, Some(&iv_name))?;
        let outer = self.block;
        let fl = self.builder(span).scf_for(ids[0], ids[1], ids[2], &inits);
        *self.func.kind_mut(fl.op) = tritonc_ir::OpKind::For { num_stages };
        let saved = self.frame().vars.clone();
        self.block = fl.body;
        let iv_type = self.type_of(fl.induction_var);
        let mut iv = TensorValue {
            id: fl.induction_var,
            ty: iv_type.clone(),
        };
        if negative_step {
            let ub_v = SemaValue::Tensor(TensorValue {
                id: ids[1],
                ty: iv_type.clone(),
            });
            let lb_v = SemaValue::Tensor(TensorValue {
                id: ids[0],
                ty: iv_type,
            });
            let d = arith::binary(self, BinaryKind::Sub, ub_v, SemaValue::Tensor(iv), span)?;
            iv = arith::binary(self, BinaryKind::Add, SemaValue::Tensor(d), lb_v, span)?;
        }
        self.frame().vars.insert(iv_name, SemaValue::Tensor(iv));
        for ((name, _, ty), arg) in carried.iter().zip(&fl.iter_args) {
            self.frame().vars.insert(
                name.clone(),
                SemaValue::Tensor(TensorValue {
                    id: *arg,
                    ty: ty.clone(),
                }),
            );
        }
        self.lower_body(body)?;
        if let Some((_, s)) = self.frame().returned.take() {
            return Err(Diagnostic::error(
                codes::INVALID_RETURN,
                "`return` inside a loop is not allowed",
            )
            .with_primary(s, ""));
        }
        let yields = self.loop_yields(&carried, span)?;
        self.builder(span).yield_(&yields);
        self.block = outer;
        self.frame().vars = saved;
        for ((name, _, ty), r) in carried.into_iter().zip(fl.results) {
            self.frame()
                .vars
                .insert(name, SemaValue::Tensor(TensorValue { id: r, ty }));
        }
        Ok(())
    }

    /// Loop-carried variables of a loop body: names it assigns that are live before the
    /// loop and hold runtime values or Python numbers (which become tensors, as Triton's
    /// assignments make them). Returns `(name, assignment span, type)` and the inits.
    #[allow(clippy::type_complexity)]
    fn loop_carried(
        &mut self,
        body: &[Stmt],
        exclude: Option<&str>,
    ) -> Result<
        (
            Vec<(String, Span, tritonc_ir::Type)>,
            Vec<tritonc_ir::Value>,
        ),
        Diagnostic,
    > {
        let mut assigned = IndexMap::new();
        assigned_names(body, &mut assigned);
        let mut carried = Vec::new();
        let mut inits = Vec::new();
        for (name, aspan) in &assigned {
            if Some(name.as_str()) == exclude {
                continue;
            }
            let Some(v) = self.frame().vars.get(name).cloned() else {
                continue;
            };
            if matches!(v, SemaValue::Const(ref c) if !c.is_number()) {
                continue;
            }
            let t = arith::to_tensor(self, v, *aspan)?;
            carried.push((name.clone(), *aspan, t.ty.clone()));
            inits.push(t.id);
        }
        Ok((carried, inits))
    }

    /// The values a loop body yields for its carried variables, checking their types.
    fn loop_yields(
        &mut self,
        carried: &[(String, Span, tritonc_ir::Type)],
        span: Span,
    ) -> Result<Vec<tritonc_ir::Value>, Diagnostic> {
        let mut yields = Vec::new();
        for (name, aspan, ty) in carried {
            let v = self
                .frame()
                .vars
                .get(name)
                .cloned()
                .unwrap_or(SemaValue::Const(Constexpr::None));
            let t = arith::to_tensor(self, v, *aspan)?;
            if &t.ty != ty {
                return Err(Diagnostic::error(
                    codes::LOOP_CARRIED_TYPE_CHANGE,
                    format!("loop-carried variable `{name}` changes type from `{ty}` to `{}` in the loop", t.ty),
                )
                .with_primary(*aspan, format!("`{name}` becomes `{}` here", t.ty))
                .with_secondary(span, "in this loop")
                .with_help(format!("give `{name}` its loop type before the loop, e.g. with `.to(...)` or `tl.zeros`")));
            }
            yields.push(t.id);
        }
        Ok(yields)
    }

    /// Binds carried variables to IR values (block arguments or loop results).
    fn bind_carried(
        &mut self,
        carried: &[(String, Span, tritonc_ir::Type)],
        values: &[tritonc_ir::Value],
    ) {
        for ((name, _, ty), v) in carried.iter().zip(values) {
            self.frame().vars.insert(
                name.clone(),
                SemaValue::Tensor(TensorValue {
                    id: *v,
                    ty: ty.clone(),
                }),
            );
        }
    }

    /// `while cond: body` as `scf.while`: the before region evaluates the condition over
    /// the carried values, the after region runs the body (Triton 3.6's `visit_While`).
    fn lower_while(&mut self, test: &Expr, body: &[Stmt], span: Span) -> Result<(), Diagnostic> {
        let (carried, inits) = self.loop_carried(body, None)?;
        let types: Vec<tritonc_ir::Type> = carried.iter().map(|(_, _, t)| t.clone()).collect();
        let outer = self.block;
        let wl = self.builder(span).scf_while(&inits, types);
        let saved = self.frame().vars.clone();
        let result = self.lower_while_regions(&wl, &carried, test, body, span);
        self.block = outer;
        self.frame().vars = saved;
        result?;
        self.bind_carried(&carried, &wl.results);
        Ok(())
    }

    fn lower_while_regions(
        &mut self,
        wl: &tritonc_ir::WhileLoop,
        carried: &[(String, Span, tritonc_ir::Type)],
        test: &Expr,
        body: &[Stmt],
        span: Span,
    ) -> Result<(), Diagnostic> {
        self.block = wl.before;
        self.bind_carried(carried, &wl.before_args);
        let cond = match self.lower_expr(test)? {
            SemaValue::Tensor(t) => self.scalar_condition(t, test.span)?,
            other => {
                return Err(Diagnostic::error(
                    codes::NON_SCALAR_CONDITION,
                    format!("a `while` condition must be a runtime scalar, not {}", other.describe()),
                )
                .with_primary(test.span, "")
                .with_note("Triton lowers every `while` to `scf.while`; a compile-time condition has no IR value"))
            }
        };
        self.builder(test.span).condition(cond.id, &wl.before_args);
        self.block = wl.after;
        self.bind_carried(carried, &wl.after_args);
        self.lower_body(body)?;
        if let Some((_, s)) = self.frame().returned.take() {
            return Err(Diagnostic::error(
                codes::INVALID_RETURN,
                "`return` inside a loop is not allowed",
            )
            .with_primary(s, "")
            .with_secondary(span, "in this loop"));
        }
        let yields = self.loop_yields(carried, span)?;
        self.builder(span).yield_(&yields);
        Ok(())
    }

    /// Lowers the statements after an `if` (up to the function's end) into the current
    /// branch; returns what that path returns (`None` when it falls off the end).
    fn lower_continuation(
        &mut self,
        cont: &[&[Stmt]],
        span: Span,
    ) -> Result<(SemaValue, Span), Diagnostic> {
        for i in 0..cont.len() {
            if self.frame().returned.is_some() {
                break;
            }
            self.lower_block(cont[i], &cont[i + 1..])?;
        }
        Ok(self.frame().returned.take().unwrap_or((
            SemaValue::Const(Constexpr::None),
            Span::point(span.file, span.end),
        )))
    }

    /// Joins the values two branches of a runtime `if` return: equal compile-time values
    /// stay constexprs; runtime values (element by element for tuples) are yielded by the
    /// `scf.if` and must agree in type, as Triton requires of a function's returns.
    fn merge_returns(
        &mut self,
        if_op: &tritonc_ir::IfOp,
        then_r: (SemaValue, Span),
        else_r: (SemaValue, Span),
        span: Span,
    ) -> Result<(SemaValue, Span), Diagnostic> {
        let mut then_vals = Vec::new();
        let mut else_vals = Vec::new();
        let mut types = Vec::new();
        let shape = self.collect_return_pair(
            if_op,
            &then_r,
            &else_r,
            (&mut then_vals, &mut else_vals, &mut types),
        )?;
        self.block = if_op.then_block;
        self.builder(span).yield_(&then_vals);
        self.block = if_op.else_block;
        self.builder(span).yield_(&else_vals);
        let results: Vec<TensorValue> = types
            .into_iter()
            .map(|ty| TensorValue {
                id: self.func.add_result(if_op.op, ty.clone()),
                ty,
            })
            .collect();
        let mut it = results.into_iter();
        Ok((rebuild(shape, &mut it), then_r.1))
    }

    #[allow(clippy::type_complexity)]
    fn collect_return_pair(
        &mut self,
        if_op: &tritonc_ir::IfOp,
        then_r: &(SemaValue, Span),
        else_r: &(SemaValue, Span),
        out: (
            &mut Vec<tritonc_ir::Value>,
            &mut Vec<tritonc_ir::Value>,
            &mut Vec<tritonc_ir::Type>,
        ),
    ) -> Result<ReturnShape, Diagnostic> {
        let (tv, ts) = then_r;
        let (ev, es) = else_r;
        if let (SemaValue::Const(a), SemaValue::Const(b)) = (tv, ev) {
            if a == b {
                return Ok(ReturnShape::Const(a.clone()));
            }
        }
        if let (Some(a), Some(b)) = (tv.tuple_items(), ev.tuple_items()) {
            if a.len() == b.len() && !matches!(tv, SemaValue::Tensor(_)) {
                let mut parts = Vec::new();
                for (x, y) in a.into_iter().zip(b) {
                    parts.push(self.collect_return_pair(
                        if_op,
                        &(x, *ts),
                        &(y, *es),
                        (&mut *out.0, &mut *out.1, &mut *out.2),
                    )?);
                }
                return Ok(ReturnShape::Tuple(parts));
            }
        }
        let mismatch = |a: String, b: String| {
            Diagnostic::error(
                codes::INVALID_RETURN,
                format!("inconsistent return types: {a} and {b}"),
            )
            .with_primary(*ts, "")
            .with_secondary(*es, "")
            .with_note("every `return` of a function must give the same type")
        };
        let runtime = |v: &SemaValue| matches!(v, SemaValue::Tensor(_) | SemaValue::Const(_));
        if !runtime(tv)
            || !runtime(ev)
            || matches!(tv, SemaValue::Const(Constexpr::None))
                != matches!(ev, SemaValue::Const(Constexpr::None))
        {
            return Err(mismatch(tv.describe(), ev.describe()));
        }
        self.block = if_op.then_block;
        let t = arith::to_tensor(self, tv.clone(), *ts)?;
        self.block = if_op.else_block;
        let e = arith::to_tensor(self, ev.clone(), *es)?;
        if t.ty != e.ty {
            return Err(mismatch(format!("`{}`", t.ty), format!("`{}`", e.ty)));
        }
        out.0.push(t.id);
        out.1.push(e.id);
        out.2.push(t.ty);
        Ok(ReturnShape::Value)
    }
}

/// The structure of a merged return value: constants kept, runtime leaves yielded.
enum ReturnShape {
    Const(Constexpr),
    Value,
    Tuple(Vec<ReturnShape>),
}

fn rebuild(shape: ReturnShape, values: &mut impl Iterator<Item = TensorValue>) -> SemaValue {
    match shape {
        ReturnShape::Const(c) => SemaValue::Const(c),
        ReturnShape::Value => SemaValue::Tensor(
            values
                .next()
                .expect("one `scf.if` result per yielded return value"),
        ),
        ReturnShape::Tuple(parts) => {
            SemaValue::tuple(parts.into_iter().map(|p| rebuild(p, values)).collect())
        }
    }
}
