//! Block shapes read from the source, for rules that must judge a kernel sema refuses to
//! lower (a `tl.dot` with K below 16 never reaches the IR).
//!
//! Sizes are evaluated with the constexprs the source fixes (literals, module constexprs,
//! parameter defaults, the first autotune config); a size that involves a value lint had to
//! assume is unknown, and so is every shape built from it. Shapes follow the kernel's
//! statements in order; anything this reader does not model is unknown, never guessed.

use std::collections::HashMap;

use tritonc_sema::constexpr::{eval_expr, MapEnv};
use tritonc_sema::Constexpr;
use tritonc_syntax::ast::{Constant, Expr, ExprKind, Stmt, StmtKind};

use crate::context::KernelContext;
use crate::syntax_walk::{names_in, walk_expr};

/// A block shape; empty for a scalar.
pub type Shape = Vec<i128>;

/// Evaluates integer sizes with the constexprs the source fixes.
pub struct KnownSizes {
    env: MapEnv,
    assumed: Vec<String>,
}

impl KnownSizes {
    /// The constexprs of `cx`'s specialization that are not placeholders, and the module's.
    pub fn new(cx: &KernelContext<'_>) -> Self {
        let mut env = MapEnv::new();
        for (name, value) in cx.module_globals.iter() {
            env = env.with(name, value.clone());
        }
        for (name, value) in cx.spec.spec.constexprs() {
            if !cx.spec.assumed.constexprs.contains_key(name) {
                env = env.with(name, value.clone());
            }
        }
        let assumed = cx.spec.assumed.constexprs.keys().cloned().collect();
        KnownSizes { env, assumed }
    }

    /// The value of `e` when it is an integer (or bool) the source fixes.
    pub fn int(&self, e: &Expr) -> Option<i128> {
        if names_in(e)
            .iter()
            .any(|n| self.assumed.iter().any(|a| a == n))
        {
            return None;
        }
        match eval_expr(e, &self.env).ok()? {
            Constexpr::Int(i) => Some(i),
            Constexpr::Bool(b) => Some(b as i128),
            _ => None,
        }
    }
}

/// Calls `f` on every `tl.dot(a, b)` in the kernel body with the shapes of `a` and `b`
/// where both are known.
pub fn for_each_dot(cx: &KernelContext<'_>, f: &mut dyn FnMut(&Expr, &Shape, &Shape)) {
    let mut reader = ShapeReader {
        sizes: KnownSizes::new(cx),
        params: cx
            .kernel
            .def
            .params
            .iter()
            .map(|p| p.name.name.clone())
            .collect(),
        env: HashMap::new(),
    };
    reader.stmts(&cx.kernel.def.body, f);
}

struct ShapeReader {
    sizes: KnownSizes,
    params: Vec<String>,
    /// Local names and their shapes (`None`: assigned something this reader cannot size).
    env: HashMap<String, Option<Shape>>,
}

/// The `tl.*` functions whose result has the broadcast shape of their positional arguments.
const ELEMENTWISE: &[&str] = &[
    "abs", "cos", "sin", "exp", "exp2", "log", "log2", "sqrt", "sqrt_rn", "rsqrt", "sigmoid",
    "maximum", "minimum", "where", "fma", "clamp", "erf", "floor", "ceil", "fdiv", "div_rn",
    "cdiv", "umulhi", "softmax",
];

impl ShapeReader {
    fn stmts(&mut self, stmts: &[Stmt], f: &mut dyn FnMut(&Expr, &Shape, &Shape)) {
        for stmt in stmts {
            self.stmt(stmt, f);
        }
    }

    fn stmt(&mut self, stmt: &Stmt, f: &mut dyn FnMut(&Expr, &Shape, &Shape)) {
        match &stmt.kind {
            StmtKind::Expr(e) | StmtKind::Return(Some(e)) => self.dots_in(e, f),
            StmtKind::Assign { targets, value } => {
                self.dots_in(value, f);
                let shape = self.shape(value);
                for t in targets {
                    self.bind(t, shape.clone());
                }
            }
            StmtKind::AnnAssign {
                target,
                value: Some(v),
                ..
            } => {
                self.dots_in(v, f);
                let shape = self.shape(v);
                self.bind(target, shape);
            }
            StmtKind::AugAssign { target, value, .. } => {
                self.dots_in(value, f);
                let shape = match (self.shape(target), self.shape(value)) {
                    (Some(a), Some(b)) => broadcast(&a, &b),
                    _ => None,
                };
                self.bind(target, shape);
            }
            StmtKind::If { test, body, orelse } | StmtKind::While { test, body, orelse } => {
                self.dots_in(test, f);
                self.stmts(body, f);
                self.stmts(orelse, f);
            }
            StmtKind::For {
                target,
                iter,
                body,
                orelse,
                ..
            } => {
                self.dots_in(iter, f);
                // `range`/`tl.range`/`tl.static_range` counters are scalars.
                self.bind(target, Some(Vec::new()));
                self.stmts(body, f);
                self.stmts(orelse, f);
            }
            StmtKind::With { items, body, .. } => {
                for item in items {
                    self.dots_in(&item.context, f);
                }
                self.stmts(body, f);
            }
            _ => {}
        }
    }

    fn bind(&mut self, target: &Expr, shape: Option<Shape>) {
        match &target.kind {
            ExprKind::Name(n) => {
                self.env.insert(n.clone(), shape);
            }
            ExprKind::Tuple(xs) | ExprKind::List(xs) => {
                for x in xs {
                    self.bind(x, None);
                }
            }
            _ => {}
        }
    }

    fn dots_in(&self, e: &Expr, f: &mut dyn FnMut(&Expr, &Shape, &Shape)) {
        walk_expr(e, &mut |x| {
            let ExprKind::Call(call) = &x.kind else {
                return;
            };
            if tl_name(&call.func) != Some("dot") || call.args.len() < 2 {
                return;
            }
            if let (Some(a), Some(b)) = (self.shape(&call.args[0]), self.shape(&call.args[1])) {
                f(x, &a, &b);
            }
        });
    }

    /// The shape of `e`, where the source fixes it.
    fn shape(&self, e: &Expr) -> Option<Shape> {
        match &e.kind {
            ExprKind::Name(n) => match self.env.get(n) {
                Some(s) => s.clone(),
                None if self.params.contains(n) => Some(Vec::new()),
                None => None,
            },
            ExprKind::Constant(Constant::Int(_) | Constant::Float(_) | Constant::Bool(_)) => {
                Some(Vec::new())
            }
            ExprKind::BinOp { lhs, rhs, .. } => broadcast(&self.shape(lhs)?, &self.shape(rhs)?),
            ExprKind::UnaryOp { operand, .. } => self.shape(operand),
            ExprKind::Compare {
                left, comparators, ..
            } if comparators.len() == 1 => {
                broadcast(&self.shape(left)?, &self.shape(&comparators[0])?)
            }
            ExprKind::IfExp { body, orelse, .. } => {
                let (a, b) = (self.shape(body)?, self.shape(orelse)?);
                (a == b).then_some(a)
            }
            ExprKind::Subscript { value, index } => self.subscript(value, index),
            ExprKind::Call(call) => {
                // `x.to(...)` keeps the shape.
                if let ExprKind::Attribute { value, attr } = &call.func.kind {
                    if attr.name == "to" && tl_name(&call.func).is_none() {
                        return self.shape(value);
                    }
                }
                let name = tl_name(&call.func)?;
                match name {
                    "arange" if call.args.len() == 2 => {
                        let n = self.sizes.int(&call.args[1])? - self.sizes.int(&call.args[0])?;
                        (n > 0).then(|| vec![n])
                    }
                    "zeros" | "full" => {
                        let shape = call
                            .args
                            .first()
                            .or_else(|| call.keyword("shape").map(|k| &k.value))?;
                        match &shape.kind {
                            ExprKind::Tuple(xs) | ExprKind::List(xs) => {
                                xs.iter().map(|d| self.sizes.int(d)).collect()
                            }
                            _ => Some(vec![self.sizes.int(shape)?]),
                        }
                    }
                    "load" => {
                        let ptr = call.args.first()?;
                        self.shape(ptr)
                    }
                    "trans" if call.args.len() == 1 => {
                        let mut s = self.shape(&call.args[0])?;
                        (s.len() == 2).then(|| {
                            s.reverse();
                            s
                        })
                    }
                    "dot" if call.args.len() >= 2 => {
                        let (a, b) = (self.shape(&call.args[0])?, self.shape(&call.args[1])?);
                        (a.len() == 2 && b.len() == 2).then(|| vec![a[0], b[1]])
                    }
                    _ if ELEMENTWISE.contains(&name) && !call.args.is_empty() => {
                        let mut out = Vec::new();
                        for arg in &call.args {
                            out = broadcast(&out, &self.shape(arg)?)?;
                        }
                        Some(out)
                    }
                    _ => None,
                }
            }
            _ => None,
        }
    }

    /// `x[:, None]`, `x[None, :]`: full slices keep a dim, `None` inserts a 1.
    fn subscript(&self, value: &Expr, index: &Expr) -> Option<Shape> {
        let base = self.shape(value)?;
        let items: Vec<&Expr> = match &index.kind {
            ExprKind::Tuple(xs) => xs.iter().collect(),
            _ => vec![index],
        };
        let mut dims = base.iter();
        let mut out = Vec::new();
        for item in items {
            match &item.kind {
                ExprKind::Constant(Constant::None) => out.push(1),
                ExprKind::Slice {
                    lower: None,
                    upper: None,
                    step: None,
                } => out.push(*dims.next()?),
                _ => return None,
            }
        }
        out.extend(dims);
        Some(out)
    }
}

/// The function name of a `tl.NAME` / `triton.language.NAME` callee.
fn tl_name(func: &Expr) -> Option<&str> {
    let ExprKind::Attribute { value, attr } = &func.kind else {
        return None;
    };
    let path = value.dotted_path()?;
    (path == "tl" || path == "triton.language").then_some(attr.name.as_str())
}

/// NumPy broadcasting; `None` where the shapes do not broadcast.
fn broadcast(a: &[i128], b: &[i128]) -> Option<Shape> {
    let n = a.len().max(b.len());
    let dim = |s: &[i128], i: usize| (i + s.len()).checked_sub(n).map_or(1, |j| s[j]);
    (0..n)
        .map(|i| match (dim(a, i), dim(b, i)) {
            (x, y) if x == y => Some(x),
            (1, y) => Some(y),
            (x, 1) => Some(x),
            _ => None,
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::broadcast;

    #[test]
    fn broadcasting_follows_numpy() {
        assert_eq!(broadcast(&[16, 1], &[1, 8]), Some(vec![16, 8]));
        assert_eq!(broadcast(&[], &[8]), Some(vec![8]));
        assert_eq!(broadcast(&[4], &[2, 1]), Some(vec![2, 4]));
        assert_eq!(broadcast(&[4], &[8]), None);
    }
}
