//! The Python subset Triton 3.6 accepts inside a `@triton.jit` body.
//!
//! The check is syntactic: it reports every construct Triton's code generator rejects,
//! wherever it occurs. Triton itself only rejects what it visits, so a construct inside a
//! branch removed by constexpr folding compiles there; tritonc still reports it, because
//! the branch is live for other constexpr values. The exception is `raise` under an `if`:
//! kernels use `else: raise ...` to refuse constexpr values they do not support, and Triton
//! rejects only a `raise` it reaches, so sema reports it when lowering reaches it
//! (`tritonc_sema`'s statement lowering, same code) — unless the `if` reads a parameter
//! not annotated `tl.constexpr`: Triton generates both arms of such an `if`, so its
//! `raise` is reported here. The accepted/rejected table is verified
//! against Triton 3.6 by the fixtures in `tests/fixtures/subset/`.

use tritonc_diagnostics::{Code, Diagnostic, Span};

use crate::ast::*;
use crate::codes;

/// Reports every construct in `def` (signature and body) that Triton 3.6 rejects inside
/// a `@triton.jit` function, in source order.
pub fn check_kernel_subset(def: &FunctionDef) -> Vec<Diagnostic> {
    let mut checker = SubsetChecker {
        diagnostics: Vec::new(),
        loop_depth: 0,
        with_depth: 0,
        if_depth: 0,
        runtime_if_depth: 0,
        runtime_params: def
            .params
            .iter()
            .filter(|p| {
                !p.annotation.as_ref().is_some_and(|a| {
                    matches!(&a.kind, ExprKind::Name(n) if n == "constexpr")
                        || matches!(&a.kind, ExprKind::Attribute { attr, .. } if attr.name == "constexpr")
                        // `n: "tl.constexpr"` (Triton: `"constexpr" in annotation`).
                        || a.as_str_literal().is_some_and(|s| s.contains("constexpr"))
                })
            })
            .map(|p| p.name.name.clone())
            .collect(),
        names_read: Vec::new(),
    };
    if def.is_async {
        checker.report(
            codes::GENERATOR_OR_ASYNC,
            def.header_span,
            "Triton does not support `async def` kernels",
            "an `async` function",
            "remove `async`; kernels are plain functions",
        );
    }
    for p in &def.params {
        if p.kind == ParamKind::PositionalOnly {
            checker.report(
                codes::POSITIONAL_ONLY_PARAMS,
                p.span,
                "Triton does not support positional-only parameters",
                "declared before `/`",
                "remove the `/` from the parameter list",
            );
        }
    }
    checker.stmts(&def.body);
    let mut diagnostics = checker.diagnostics;
    diagnostics.sort_by_key(|d| d.primary_span().map(|s| (s.start, s.end)));
    diagnostics
}

/// Walks a kernel body, remembering the enclosing loops and `with` blocks.
struct SubsetChecker {
    diagnostics: Vec<Diagnostic>,
    loop_depth: u32,
    with_depth: u32,
    /// Enclosing `if` statements: a `raise` under one may be dead at compile time.
    if_depth: u32,
    /// Enclosing `if`s whose condition reads a parameter not annotated `tl.constexpr`:
    /// Triton generates both arms of those, so a `raise` under one is always reached.
    runtime_if_depth: u32,
    /// The kernel's parameters not annotated `tl.constexpr`.
    runtime_params: Vec<String>,
    /// Names read by the expression being checked (collected for `if` conditions).
    names_read: Vec<String>,
}

impl SubsetChecker {
    fn report(&mut self, code: Code, span: Span, message: &str, label: &str, help: &str) {
        self.diagnostics.push(
            Diagnostic::error(code, message)
                .with_primary(span, label)
                .with_help(help),
        );
    }

    fn stmts(&mut self, stmts: &[Stmt]) {
        for s in stmts {
            self.stmt(s);
        }
    }

    fn loop_body(&mut self, body: &[Stmt]) {
        self.loop_depth += 1;
        self.stmts(body);
        self.loop_depth -= 1;
    }

    fn loop_else(&mut self, orelse: &[Stmt], keyword: &str) {
        if let (Some(first), Some(last)) = (orelse.first(), orelse.last()) {
            self.report(
                codes::LOOP_ELSE,
                first.span.cover(last.span),
                &format!("Triton does not support an `else` block on a `{keyword}` loop"),
                "this `else:` block",
                "move these statements after the loop",
            );
        }
    }

    fn stmt(&mut self, stmt: &Stmt) {
        let span = stmt.span;
        match &stmt.kind {
            StmtKind::Expr(e) => self.expr(e),
            StmtKind::Assign { targets, value } => {
                for t in targets {
                    self.target(t);
                }
                self.expr(value);
            }
            StmtKind::AnnAssign {
                target,
                annotation,
                value,
            } => {
                self.target(target);
                self.expr(annotation);
                if let Some(v) = value {
                    self.expr(v);
                }
            }
            StmtKind::AugAssign { target, op, value } => {
                if *op == BinOp::MatMul {
                    self.matmul(span);
                }
                self.target(target);
                self.expr(value);
            }
            StmtKind::If { test, body, orelse } => {
                self.names_read.clear();
                self.expr(test);
                let runtime = self
                    .names_read
                    .iter()
                    .any(|n| self.runtime_params.contains(n));
                self.if_depth += 1;
                self.runtime_if_depth += u32::from(runtime);
                self.stmts(body);
                self.stmts(orelse);
                self.if_depth -= 1;
                self.runtime_if_depth -= u32::from(runtime);
            }
            StmtKind::For {
                target,
                iter,
                body,
                orelse,
                is_async,
            } => {
                if *is_async {
                    self.async_construct(span, "`async for`");
                }
                if target.as_name().is_none() {
                    self.report(
                        codes::FOR_FORM,
                        target.span,
                        "Triton supports only a single name as a `for` loop variable",
                        "not a plain name",
                        "loop over an index (`for i in range(...)`) and unpack inside the body",
                    );
                }
                if iter.as_call().is_none() {
                    self.report(
                        codes::FOR_FORM,
                        iter.span,
                        "Triton loops only over `range`, `tl.range` or `tl.static_range`",
                        "not a range call",
                        "iterate over indices with `tl.static_range(len(...))` and index the tuple",
                    );
                }
                self.expr(iter);
                self.loop_body(body);
                self.loop_else(orelse, "for");
            }
            StmtKind::While { test, body, orelse } => {
                self.expr(test);
                self.loop_body(body);
                self.loop_else(orelse, "while");
            }
            StmtKind::With {
                items,
                body,
                is_async,
            } => {
                if *is_async {
                    self.async_construct(span, "`async with`");
                }
                for item in items {
                    self.expr(&item.context);
                    if let Some(t) = &item.target {
                        self.target(t);
                    }
                }
                self.with_depth += 1;
                self.stmts(body);
                self.with_depth -= 1;
            }
            StmtKind::Return(value) => {
                if self.loop_depth > 0 || self.with_depth > 0 {
                    let inside = if self.loop_depth > 0 {
                        "a loop"
                    } else {
                        "a `with` block"
                    };
                    self.report(
                        codes::RETURN_IN_LOOP,
                        span,
                        &format!("Triton does not support `return` inside {inside}"),
                        "early return",
                        "compute a flag or mask in the loop and return after it",
                    );
                }
                if let Some(v) = value {
                    self.expr(v);
                }
            }
            StmtKind::Assert { test, msg } => {
                self.expr(test);
                if let Some(m) = msg {
                    self.expr(m);
                }
            }
            StmtKind::Pass => {}
            StmtKind::Break | StmtKind::Continue => {
                let word = if matches!(stmt.kind, StmtKind::Break) {
                    "break"
                } else {
                    "continue"
                };
                self.report(
                    codes::LOOP_CONTROL,
                    span,
                    &format!("Triton does not support `{word}` inside a kernel"),
                    "loops cannot exit early",
                    &format!(
                        "use a mask or `tl.where` instead of `{word}` (or a `while` loop whose \
                         condition carries the exit)"
                    ),
                );
            }
            StmtKind::FunctionDef(f) => self.report(
                codes::NESTED_DEFINITION,
                f.name.span,
                "Triton does not support a nested function definition",
                "defined inside a kernel",
                "move the function to module level and decorate it with `@triton.jit`",
            ),
            StmtKind::ClassDef(c) => self.report(
                codes::NESTED_DEFINITION,
                c.name.span,
                "Triton does not support a class definition inside a kernel",
                "defined inside a kernel",
                "define the class at module level",
            ),
            StmtKind::Try(_) => self.report(
                codes::TRY,
                span,
                "Triton does not support `try` inside a kernel",
                "GPU code has no exceptions",
                "guard the operation with a mask (`mask=`, `tl.where`) instead",
            ),
            // Reported by sema if lowering reaches it (see the module docs).
            StmtKind::Raise { .. } if self.if_depth > 0 && self.runtime_if_depth == 0 => {}
            StmtKind::Raise { .. } => self.report(
                codes::RAISE,
                span,
                "Triton does not support `raise` inside a kernel",
                "GPU code has no exceptions",
                "check constexpr conditions with `tl.static_assert` and runtime ones with \
                 `tl.device_assert`",
            ),
            StmtKind::Delete(_) => self.report(
                codes::DEL,
                span,
                "Triton does not support `del` inside a kernel",
                "",
                "remove the `del`; stop using the name instead",
            ),
            StmtKind::Global(_) | StmtKind::Nonlocal(_) => self.report(
                codes::GLOBAL_DECLARATION,
                span,
                "Triton does not support `global` or `nonlocal` inside a kernel",
                "",
                "pass the value as an argument or read a `tl.constexpr` global",
            ),
            StmtKind::Import(_) | StmtKind::ImportFrom { .. } => self.report(
                codes::IMPORT_IN_KERNEL,
                span,
                "Triton does not support `import` inside a kernel",
                "",
                "move the import to module level",
            ),
            StmtKind::Opaque(kind) => {
                let what = match kind {
                    OpaqueStmt::Match => "`match`",
                    OpaqueStmt::TypeAlias => "a `type` alias",
                };
                self.report(
                    codes::OTHER_STATEMENT,
                    span,
                    &format!("Triton does not support {what} inside a kernel"),
                    "",
                    "use `if`/`elif` chains instead",
                );
            }
        }
    }

    fn async_construct(&mut self, span: Span, what: &str) {
        self.report(
            codes::GENERATOR_OR_ASYNC,
            span,
            &format!("Triton does not support {what} inside a kernel"),
            "",
            "kernels are neither generators nor coroutines; remove it",
        );
    }

    fn matmul(&mut self, span: Span) {
        self.report(
            codes::MATMUL_OPERATOR,
            span,
            "Triton does not support the `@` operator",
            "",
            "use `tl.dot(a, b)` for matrix products",
        );
    }

    /// An assignment target: names and (nested) tuples/lists of names only.
    fn target(&mut self, target: &Expr) {
        match &target.kind {
            ExprKind::Name(_) => {}
            ExprKind::Tuple(items) | ExprKind::List(items) => {
                for t in items {
                    self.target(t);
                }
            }
            ExprKind::Subscript { .. } => self.report(
                codes::ASSIGNMENT_TARGET,
                target.span,
                "Triton does not support assignment to a subscript",
                "tensors and tuples are immutable",
                "build a new value instead (e.g. `tl.where(idx == i, v, x)` or a new tuple)",
            ),
            ExprKind::Attribute { .. } => self.report(
                codes::ASSIGNMENT_TARGET,
                target.span,
                "Triton does not support assignment to an attribute",
                "",
                "assign to a local name instead",
            ),
            ExprKind::Starred(_) => self.report(
                codes::ASSIGNMENT_TARGET,
                target.span,
                "Triton does not support starred assignment targets",
                "",
                "unpack every element by name",
            ),
            _ => self.expr(target),
        }
    }

    fn exprs(&mut self, exprs: &[Expr]) {
        for e in exprs {
            self.expr(e);
        }
    }

    fn expr(&mut self, expr: &Expr) {
        let span = expr.span;
        match &expr.kind {
            ExprKind::Name(n) => self.names_read.push(n.clone()),
            ExprKind::Constant(_) => {}
            ExprKind::FString(parts) => {
                for p in parts {
                    if let FStringPart::Formatted {
                        value, format_spec, ..
                    } = p
                    {
                        self.expr(value);
                        if let Some(s) = format_spec {
                            self.expr(s);
                        }
                    }
                }
            }
            ExprKind::Attribute { value, .. } => self.expr(value),
            ExprKind::Subscript { value, index } => {
                self.expr(value);
                self.expr(index);
            }
            ExprKind::Slice { lower, upper, step } => {
                for e in [lower, upper, step].into_iter().flatten() {
                    self.expr(e);
                }
            }
            ExprKind::Call(call) => {
                self.expr(&call.func);
                for a in &call.args {
                    match &a.kind {
                        // `f(*t)` expands a tuple: the one place a starred item is allowed.
                        ExprKind::Starred(inner) => self.expr(inner),
                        _ => self.expr(a),
                    }
                }
                for k in &call.keywords {
                    if k.name.is_none() {
                        self.report(
                            codes::UNSUPPORTED_UNPACKING,
                            k.span,
                            "Triton does not support `**` unpacking in a call",
                            "",
                            "pass each keyword argument explicitly",
                        );
                    }
                    self.expr(&k.value);
                }
            }
            ExprKind::BinOp { op, lhs, rhs } => {
                if *op == BinOp::MatMul {
                    self.matmul(span);
                }
                self.expr(lhs);
                self.expr(rhs);
            }
            ExprKind::UnaryOp { operand, .. } => self.expr(operand),
            ExprKind::BoolOp { values, .. } => self.exprs(values),
            ExprKind::Compare {
                left,
                ops,
                comparators,
            } => {
                if ops.len() > 1 {
                    let text: Vec<&str> = ops.iter().map(|o| o.symbol()).collect();
                    self.report(
                        codes::CHAINED_COMPARISON,
                        span,
                        "Triton does not support chained comparisons",
                        &format!("{} comparisons chained ({})", ops.len(), text.join(", ")),
                        "split it: `(a < b) & (b < c)`",
                    );
                }
                if let Some(op) = ops.iter().find(|o| matches!(o, CmpOp::In | CmpOp::NotIn)) {
                    self.report(
                        codes::MEMBERSHIP_TEST,
                        span,
                        &format!("Triton does not support the `{}` operator", op.symbol()),
                        "",
                        "compare with `==` against each value and combine with `or`",
                    );
                }
                self.expr(left);
                self.exprs(comparators);
            }
            ExprKind::IfExp { test, body, orelse } => {
                self.expr(test);
                self.expr(body);
                self.expr(orelse);
            }
            ExprKind::Tuple(items) | ExprKind::List(items) => {
                for item in items {
                    if let ExprKind::Starred(inner) = &item.kind {
                        self.starred_outside_call(item.span);
                        self.expr(inner);
                    } else {
                        self.expr(item);
                    }
                }
            }
            ExprKind::Set(items) => {
                self.report(
                    codes::DICT_OR_SET,
                    span,
                    "Triton does not support set displays",
                    "",
                    "use a tuple",
                );
                self.exprs(items);
            }
            ExprKind::Dict(entries) => {
                self.report(
                    codes::DICT_OR_SET,
                    span,
                    "Triton does not support dict displays",
                    "",
                    "use separate names or a tuple",
                );
                for e in entries {
                    if let Some(k) = &e.key {
                        self.expr(k);
                    }
                    self.expr(&e.value);
                }
            }
            ExprKind::Comprehension(c) => self.comprehension(c, span),
            ExprKind::NamedExpr { value, .. } => {
                self.report(
                    codes::WALRUS,
                    span,
                    "Triton does not support assignment expressions (`:=`)",
                    "",
                    "assign the value in a statement before using it",
                );
                self.expr(value);
            }
            ExprKind::Lambda { .. } => self.report(
                codes::LAMBDA,
                span,
                "Triton does not support `lambda` inside a kernel",
                "",
                "define a module-level `@triton.jit` function and call it",
            ),
            ExprKind::Starred(inner) => {
                self.starred_outside_call(span);
                self.expr(inner);
            }
            ExprKind::Await(v) | ExprKind::YieldFrom(v) => {
                let what = if matches!(expr.kind, ExprKind::Await(_)) {
                    "`await`"
                } else {
                    "`yield from`"
                };
                self.async_construct(span, what);
                self.expr(v);
            }
            ExprKind::Yield(v) => {
                self.async_construct(span, "`yield`");
                if let Some(v) = v {
                    self.expr(v);
                }
            }
        }
    }

    fn starred_outside_call(&mut self, span: Span) {
        self.report(
            codes::UNSUPPORTED_UNPACKING,
            span,
            "Triton supports `*` unpacking only in a call's positional arguments",
            "",
            "build the tuple explicitly, element by element",
        );
    }

    fn comprehension(&mut self, c: &Comprehension, span: Span) {
        let what = match c.kind {
            ComprehensionKind::List => None,
            ComprehensionKind::Set => Some("set comprehensions"),
            ComprehensionKind::Dict => Some("dict comprehensions"),
            ComprehensionKind::Generator => Some("generator expressions"),
        };
        if let Some(what) = what {
            self.report(
                codes::DICT_OR_SET,
                span,
                &format!("Triton does not support {what}"),
                "",
                "use a list comprehension over a tuple, which Triton evaluates to a tuple",
            );
        } else {
            self.list_comprehension_form(c, span);
        }
        self.expr(&c.element);
        if let Some(v) = &c.value {
            self.expr(v);
        }
        for g in &c.generators {
            self.expr(&g.iter);
            self.exprs(&g.ifs);
        }
    }

    /// Triton evaluates a list comprehension over one tuple, binding one name.
    fn list_comprehension_form(&mut self, c: &Comprehension, span: Span) {
        if c.generators.len() > 1 {
            self.report(
                codes::UNSUPPORTED_COMPREHENSION,
                span,
                "Triton does not support comprehensions with more than one `for` clause",
                "",
                "nest two comprehensions or write the tuple out",
            );
        }
        let Some(g) = c.generators.first() else {
            return;
        };
        if g.target.as_name().is_none() {
            self.report(
                codes::UNSUPPORTED_COMPREHENSION,
                g.target.span,
                "Triton supports only a single name as a comprehension variable",
                "not a plain name",
                "bind one name and index it in the element expression",
            );
        }
        let over_range = g
            .iter
            .as_call()
            .and_then(|call| call.func.dotted_path())
            .is_some_and(|p| {
                let last = p.rsplit('.').next().unwrap_or(&p);
                last == "range" || last == "static_range"
            });
        if over_range {
            self.report(
                codes::UNSUPPORTED_COMPREHENSION,
                g.iter.span,
                "Triton evaluates comprehensions only over tuples, not ranges",
                "a range, not a tuple",
                "write the values as a tuple, e.g. `(0, 1, 2, 3)`",
            );
        }
        if let (Some(first), Some(last)) = (g.ifs.first(), g.ifs.last()) {
            self.diagnostics.push(
                Diagnostic::error(
                    codes::UNSUPPORTED_COMPREHENSION,
                    "Triton ignores `if` filters in comprehensions",
                )
                .with_primary(first.span.cover(last.span), "this filter would be skipped")
                .with_note("Triton 3.6 keeps every element, so the result differs from Python's")
                .with_help("filter the tuple by hand, writing only the wanted values"),
            );
        }
        if g.is_async {
            self.async_construct(g.span, "`async for`");
        }
    }
}
