//! `@triton.autotune` configs: reading `triton.Config(...)` calls and expanding config
//! lists written as comprehensions over literal lists and ranges.

use std::collections::HashMap;

use tritonc_diagnostics::Span;

use crate::ast::*;

/// At most this many configs are expanded from one comprehension (a guard against
/// `range(10**9)`).
const MAX_EXPANDED: usize = 4096;

/// One `triton.Config(kwargs, num_warps=..., num_stages=..., ...)`.
#[derive(Debug, Clone, PartialEq)]
pub struct TuningConfig {
    /// The meta-parameters (`{'BLOCK_M': 128, ...}`), in order.
    pub kwargs: Vec<(String, Expr)>,
    /// `num_warps`, if given.
    pub num_warps: Option<Expr>,
    /// `num_stages`, if given.
    pub num_stages: Option<Expr>,
    /// `num_ctas`, if given.
    pub num_ctas: Option<Expr>,
    /// `maxnreg`, if given.
    pub maxnreg: Option<Expr>,
    /// `pre_hook`, if given.
    pub pre_hook: Option<Expr>,
    /// Any other keyword (`ir_override`, ...).
    pub other: Vec<(String, Expr)>,
    /// The `triton.Config(...)` call (for an expanded comprehension, its element).
    pub span: Span,
}

impl TuningConfig {
    /// The meta-parameter `name`, if the config sets it.
    pub fn kwarg(&self, name: &str) -> Option<&Expr> {
        self.kwargs.iter().find(|(k, _)| k == name).map(|(_, v)| v)
    }
}

/// Config expressions tritonc could not turn into literal configs.
#[derive(Debug, Clone, PartialEq)]
pub struct UnexpandedConfigs {
    /// The expression as written.
    pub expr: Expr,
    /// Why it was not expanded.
    pub reason: String,
}

/// The result of reading a config list.
#[derive(Debug, Clone, Default, PartialEq)]
pub(crate) struct ConfigList {
    pub configs: Vec<TuningConfig>,
    pub unexpanded: Vec<UnexpandedConfigs>,
    /// Elements that are not `triton.Config` calls: (span, what was found).
    pub malformed: Vec<(Span, String)>,
}

/// Whether `e` is computed at import time (a name, call, conditional, ...) rather than
/// written as a literal: such arguments are valid Python that tritonc cannot evaluate.
pub(crate) fn is_computed(e: &Expr) -> bool {
    !matches!(
        e.kind,
        ExprKind::Constant(_)
            | ExprKind::List(_)
            | ExprKind::Tuple(_)
            | ExprKind::Dict(_)
            | ExprKind::Lambda { .. }
            | ExprKind::FString(_)
    )
}

/// What the config reader needs from its surroundings.
pub(crate) trait ConfigContext {
    /// Whether `func` is `triton.Config`.
    fn is_config_ctor(&self, func: &Expr) -> bool;
    /// The value of a module-level name assigned once (`configs = [...]`).
    fn module_value(&self, name: &str) -> Option<&Expr>;
}

/// Reads `expr` (a list, tuple, comprehension, concatenation or module-level name) as a
/// list of configs.
pub(crate) fn read_configs(cx: &dyn ConfigContext, expr: &Expr, depth: u32) -> ConfigList {
    let mut out = ConfigList::default();
    let unexpanded = |out: &mut ConfigList, reason: &str| {
        out.unexpanded.push(UnexpandedConfigs {
            expr: expr.clone(),
            reason: reason.to_string(),
        })
    };
    if depth > 8 {
        unexpanded(&mut out, "names refer to each other too deeply");
        return out;
    }
    match &expr.kind {
        ExprKind::List(items) | ExprKind::Tuple(items) => {
            for item in items {
                match &item.kind {
                    ExprKind::Starred(inner) => merge(&mut out, read_configs(cx, inner, depth + 1)),
                    _ => read_config_element(cx, item, &mut out),
                }
            }
        }
        ExprKind::BinOp {
            op: BinOp::Add,
            lhs,
            rhs,
        } => {
            merge(&mut out, read_configs(cx, lhs, depth + 1));
            merge(&mut out, read_configs(cx, rhs, depth + 1));
        }
        ExprKind::Name(n) => match cx.module_value(n) {
            Some(value) => merge(&mut out, read_configs(cx, value, depth + 1)),
            None => unexpanded(&mut out, "not a module-level name assigned once"),
        },
        ExprKind::Comprehension(c) if c.kind != ComprehensionKind::Dict => {
            match expand_comprehension(c) {
                Ok(elements) => {
                    for e in &elements {
                        read_config_element(cx, e, &mut out);
                    }
                }
                Err(reason) => unexpanded(&mut out, &reason),
            }
        }
        _ => unexpanded(&mut out, "not a literal list of `triton.Config`"),
    }
    out
}

fn merge(into: &mut ConfigList, from: ConfigList) {
    into.configs.extend(from.configs);
    into.unexpanded.extend(from.unexpanded);
    into.malformed.extend(from.malformed);
}

fn read_config_element(cx: &dyn ConfigContext, item: &Expr, out: &mut ConfigList) {
    let Some(call) = item.as_call().filter(|c| cx.is_config_ctor(&c.func)) else {
        if is_computed(item) {
            // `make_config(...)`, `base_config`: a config built at import time.
            out.unexpanded.push(UnexpandedConfigs {
                expr: item.clone(),
                reason: "a config computed at import time".to_string(),
            });
            return;
        }
        out.malformed.push((
            item.span,
            "expected a `triton.Config(...)` call".to_string(),
        ));
        return;
    };
    let mut config = TuningConfig {
        kwargs: Vec::new(),
        num_warps: None,
        num_stages: None,
        num_ctas: None,
        maxnreg: None,
        pre_hook: None,
        other: Vec::new(),
        span: item.span,
    };
    const POSITIONAL: [&str; 6] = [
        "kwargs",
        "num_warps",
        "num_stages",
        "num_ctas",
        "maxnreg",
        "pre_hook",
    ];
    let mut named: Vec<(String, &Expr)> = Vec::new();
    for (i, a) in call.args.iter().enumerate() {
        match POSITIONAL.get(i) {
            Some(name) => named.push((name.to_string(), a)),
            None => out
                .malformed
                .push((a.span, "too many positional arguments".to_string())),
        }
    }
    // A config whose meta-parameters are computed (`**opts`, a dict built elsewhere) is
    // valid Triton that only running Python could read: it stays unexpanded, not an error.
    let opaque = |out: &mut ConfigList, reason: &str| {
        if !out.unexpanded.iter().any(|u| u.expr.span == item.span) {
            out.unexpanded.push(UnexpandedConfigs {
                expr: item.clone(),
                reason: reason.to_string(),
            });
        }
    };
    for k in &call.keywords {
        match &k.name {
            Some(n) => named.push((n.name.clone(), &k.value)),
            None => {
                opaque(out, "its `**` arguments are computed at import time");
                return;
            }
        }
    }
    for (name, value) in named {
        match name.as_str() {
            "kwargs" => match meta_parameters(value).or_else(|| {
                value
                    .as_name()
                    .and_then(|n| cx.module_value(n))
                    .and_then(meta_parameters)
            }) {
                Some(kw) => config.kwargs = kw,
                None if is_computed(value) => {
                    opaque(out, "its meta-parameters are computed at import time");
                    return;
                }
                None => out.malformed.push((
                    value.span,
                    "expected a dict literal with string keys (or `dict(NAME=...)`)".to_string(),
                )),
            },
            "num_warps" => config.num_warps = Some(value.clone()),
            "num_stages" => config.num_stages = Some(value.clone()),
            "num_ctas" => config.num_ctas = Some(value.clone()),
            "maxnreg" => config.maxnreg = Some(value.clone()),
            "pre_hook" => config.pre_hook = Some(value.clone()),
            _ => config.other.push((name, value.clone())),
        }
    }
    out.configs.push(config);
}

/// `{'BLOCK': 128}` or `dict(BLOCK=128)` as (name, value) pairs.
fn meta_parameters(expr: &Expr) -> Option<Vec<(String, Expr)>> {
    match &expr.kind {
        ExprKind::Dict(entries) => entries
            .iter()
            .map(|e| {
                Some((
                    e.key.as_ref()?.as_str_literal()?.to_string(),
                    e.value.clone(),
                ))
            })
            .collect(),
        ExprKind::Call(call) if call.func.as_name() == Some("dict") && call.args.is_empty() => call
            .keywords
            .iter()
            .map(|k| Some((k.name.as_ref()?.name.clone(), k.value.clone())))
            .collect(),
        _ => None,
    }
}

/// Expands a comprehension whose iterables are literal lists/tuples or `range(...)` of
/// integer literals into its element expressions, with the loop variables substituted.
fn expand_comprehension(c: &Comprehension) -> Result<Vec<Expr>, String> {
    let mut envs: Vec<HashMap<String, Expr>> = vec![HashMap::new()];
    for g in &c.generators {
        let mut next = Vec::new();
        for env in &envs {
            let iter = substitute(&g.iter, env);
            for value in literal_sequence(&iter)? {
                let mut env = env.clone();
                bind_target(&g.target, &value, &mut env)?;
                let mut keep = true;
                for cond in &g.ifs {
                    match const_truth(&substitute(cond, &env)) {
                        Some(t) => keep &= t,
                        None => return Err("an `if` filter is not a literal condition".into()),
                    }
                }
                if keep {
                    next.push(env);
                }
                if next.len() > MAX_EXPANDED {
                    return Err(format!("more than {MAX_EXPANDED} configs"));
                }
            }
        }
        envs = next;
    }
    Ok(envs.iter().map(|env| substitute(&c.element, env)).collect())
}

fn literal_sequence(iter: &Expr) -> Result<Vec<Expr>, String> {
    match &iter.kind {
        ExprKind::List(items) | ExprKind::Tuple(items) => Ok(items.clone()),
        ExprKind::Call(call)
            if call.func.as_name() == Some("range") && call.keywords.is_empty() =>
        {
            let ints: Option<Vec<i128>> = call.args.iter().map(Expr::as_int_literal).collect();
            let (start, stop, step) = match ints.as_deref() {
                Some([stop]) => (0, *stop, 1),
                Some([start, stop]) => (*start, *stop, 1),
                Some([start, stop, step]) if *step != 0 => (*start, *stop, *step),
                _ => return Err("`range` bounds are not integer literals".into()),
            };
            let mut out = Vec::new();
            let mut v = start;
            while (step > 0 && v < stop) || (step < 0 && v > stop) {
                if out.len() >= MAX_EXPANDED {
                    return Err(format!("more than {MAX_EXPANDED} values in `range`"));
                }
                out.push(int_expr(v, iter.span));
                v += step;
            }
            Ok(out)
        }
        _ => Err("iterates over something other than a literal list, tuple or range".into()),
    }
}

fn int_expr(v: i128, span: Span) -> Expr {
    let lit = Expr {
        kind: ExprKind::Constant(Constant::Int(v.unsigned_abs() as i128)),
        span,
    };
    if v < 0 {
        Expr {
            kind: ExprKind::UnaryOp {
                op: UnaryOp::Neg,
                operand: Box::new(lit),
            },
            span,
        }
    } else {
        lit
    }
}

fn bind_target(target: &Expr, value: &Expr, env: &mut HashMap<String, Expr>) -> Result<(), String> {
    match (&target.kind, &value.kind) {
        (ExprKind::Name(n), _) => {
            env.insert(n.clone(), value.clone());
            Ok(())
        }
        (ExprKind::Tuple(ts) | ExprKind::List(ts), ExprKind::Tuple(vs) | ExprKind::List(vs))
            if ts.len() == vs.len() =>
        {
            ts.iter()
                .zip(vs)
                .try_for_each(|(t, v)| bind_target(t, v, env))
        }
        _ => Err("a loop target cannot be unpacked from a literal".into()),
    }
}

/// `expr` with every name bound in `env` replaced by its value.
fn substitute(expr: &Expr, env: &HashMap<String, Expr>) -> Expr {
    if env.is_empty() {
        return expr.clone();
    }
    let sub = |e: &Expr| Box::new(substitute(e, env));
    let subs = |es: &[Expr]| es.iter().map(|e| substitute(e, env)).collect::<Vec<_>>();
    let kind = match &expr.kind {
        ExprKind::Name(n) => match env.get(n) {
            Some(v) => return v.clone(),
            None => expr.kind.clone(),
        },
        ExprKind::Attribute { value, attr } => ExprKind::Attribute {
            value: sub(value),
            attr: attr.clone(),
        },
        ExprKind::Subscript { value, index } => ExprKind::Subscript {
            value: sub(value),
            index: sub(index),
        },
        ExprKind::Call(call) => ExprKind::Call(Box::new(Call {
            func: substitute(&call.func, env),
            args: subs(&call.args),
            keywords: call
                .keywords
                .iter()
                .map(|k| Keyword {
                    name: k.name.clone(),
                    value: substitute(&k.value, env),
                    span: k.span,
                })
                .collect(),
        })),
        ExprKind::BinOp { op, lhs, rhs } => ExprKind::BinOp {
            op: *op,
            lhs: sub(lhs),
            rhs: sub(rhs),
        },
        ExprKind::UnaryOp { op, operand } => ExprKind::UnaryOp {
            op: *op,
            operand: sub(operand),
        },
        ExprKind::BoolOp { op, values } => ExprKind::BoolOp {
            op: *op,
            values: subs(values),
        },
        ExprKind::Compare {
            left,
            ops,
            comparators,
        } => ExprKind::Compare {
            left: sub(left),
            ops: ops.clone(),
            comparators: subs(comparators),
        },
        ExprKind::IfExp { test, body, orelse } => ExprKind::IfExp {
            test: sub(test),
            body: sub(body),
            orelse: sub(orelse),
        },
        ExprKind::Tuple(items) => ExprKind::Tuple(subs(items)),
        ExprKind::List(items) => ExprKind::List(subs(items)),
        ExprKind::Dict(entries) => ExprKind::Dict(
            entries
                .iter()
                .map(|e| DictEntry {
                    key: e.key.as_ref().map(|k| substitute(k, env)),
                    value: substitute(&e.value, env),
                })
                .collect(),
        ),
        // Nested scopes (lambdas, comprehensions) may shadow names; keep them as written.
        other => other.clone(),
    };
    Expr {
        kind,
        span: expr.span,
    }
}

/// The truth of a literal condition over ints, bools and strings, if it is one.
fn const_truth(expr: &Expr) -> Option<bool> {
    match const_value(expr)? {
        Lit::Int(v) => Some(v != 0),
        Lit::Bool(b) => Some(b),
        Lit::Str(s) => Some(!s.is_empty()),
    }
}

#[derive(Debug, Clone, PartialEq)]
enum Lit {
    Int(i128),
    Bool(bool),
    Str(String),
}

fn const_value(expr: &Expr) -> Option<Lit> {
    let int = |e: &Expr| match const_value(e)? {
        Lit::Int(v) => Some(v),
        Lit::Bool(b) => Some(b as i128),
        Lit::Str(_) => None,
    };
    match &expr.kind {
        ExprKind::Constant(Constant::Int(v)) => Some(Lit::Int(*v)),
        ExprKind::Constant(Constant::Bool(b)) => Some(Lit::Bool(*b)),
        ExprKind::Constant(Constant::Str(s)) => Some(Lit::Str(s.clone())),
        ExprKind::UnaryOp {
            op: UnaryOp::Neg,
            operand,
        } => Some(Lit::Int(int(operand)?.checked_neg()?)),
        ExprKind::UnaryOp {
            op: UnaryOp::Not,
            operand,
        } => Some(Lit::Bool(!const_truth(operand)?)),
        ExprKind::BinOp { op, lhs, rhs } => {
            let (a, b) = (int(lhs)?, int(rhs)?);
            let v = match op {
                BinOp::Add => a.checked_add(b)?,
                BinOp::Sub => a.checked_sub(b)?,
                BinOp::Mul => a.checked_mul(b)?,
                BinOp::FloorDiv if b != 0 => floor_div(a, b)?,
                BinOp::Mod if b != 0 => a.checked_sub(floor_div(a, b)?.checked_mul(b)?)?,
                _ => return None,
            };
            Some(Lit::Int(v))
        }
        ExprKind::BoolOp { op, values } => {
            let truths: Option<Vec<bool>> = values.iter().map(const_truth).collect();
            let truths = truths?;
            Some(Lit::Bool(match op {
                BoolOp::And => truths.iter().all(|t| *t),
                BoolOp::Or => truths.iter().any(|t| *t),
            }))
        }
        ExprKind::Compare {
            left,
            ops,
            comparators,
        } => {
            let mut lhs = const_value(left)?;
            for (op, rhs) in ops.iter().zip(comparators) {
                let rhs = const_value(rhs)?;
                let ok = match (&lhs, &rhs) {
                    (Lit::Str(a), Lit::Str(b)) => match op {
                        CmpOp::Eq => a == b,
                        CmpOp::NotEq => a != b,
                        _ => return None,
                    },
                    _ => {
                        let (a, b) = (
                            int(&lit_expr(&lhs, left.span))?,
                            int(&lit_expr(&rhs, left.span))?,
                        );
                        match op {
                            CmpOp::Eq => a == b,
                            CmpOp::NotEq => a != b,
                            CmpOp::Lt => a < b,
                            CmpOp::LtE => a <= b,
                            CmpOp::Gt => a > b,
                            CmpOp::GtE => a >= b,
                            _ => return None,
                        }
                    }
                };
                if !ok {
                    return Some(Lit::Bool(false));
                }
                lhs = rhs;
            }
            Some(Lit::Bool(true))
        }
        _ => None,
    }
}

/// Python's `//` (rounds toward negative infinity).
fn floor_div(a: i128, b: i128) -> Option<i128> {
    let q = a.checked_div(b)?;
    Some(if a % b != 0 && ((a < 0) != (b < 0)) {
        q - 1
    } else {
        q
    })
}

fn lit_expr(lit: &Lit, span: Span) -> Expr {
    let c = match lit {
        Lit::Int(v) => return int_expr(*v, span),
        Lit::Bool(b) => Constant::Bool(*b),
        Lit::Str(s) => Constant::Str(s.clone()),
    };
    Expr {
        kind: ExprKind::Constant(c),
        span,
    }
}
