//! Calls evaluated at compile time: Python builtins (`min`, `max`, `len`, `int`, `float`,
//! `abs`, `bool`, `str`, `round`, `range`), `triton.cdiv`, `triton.next_power_of_2`,
//! `tl.constexpr(...)`, `tl.pointer_type(...)` and dtype methods.

use tritonc_diagnostics::{Diagnostic, Span};
use tritonc_ir::{Elem, PtrType};

use crate::codes;
use crate::value::{py_float_repr, Constexpr};

use super::{attrs, const_error, ops};
use tritonc_syntax::ast::{BinOp, CmpOp};

fn arity(
    name: &str,
    args: &[Constexpr],
    min: usize,
    max: usize,
    span: Span,
) -> Result<(), Diagnostic> {
    if args.len() < min || args.len() > max {
        let want = if min == max {
            format!("{min}")
        } else {
            format!("{min} to {max}")
        };
        return Err(Diagnostic::error(
            codes::BAD_ARGUMENTS,
            format!(
                "`{name}()` takes {want} argument(s) but {} were given",
                args.len()
            ),
        )
        .with_primary(span, ""));
    }
    Ok(())
}

fn int_arg(name: &str, v: &Constexpr, span: Span) -> Result<i128, Diagnostic> {
    v.as_int().ok_or_else(|| {
        const_error(
            span,
            format!(
                "TypeError: `{name}()` expects an int, got {}",
                v.type_name()
            ),
        )
    })
}

/// Python's `str()` (or `repr()` when `repr` is set) of a compile-time value.
pub fn py_str(v: &Constexpr, repr: bool) -> String {
    match v {
        Constexpr::Str(s) if !repr => s.clone(),
        Constexpr::Float(f) => py_float_repr(*f),
        Constexpr::DType(Elem::DType(d)) if !repr => d.triton_name().unwrap_or("?").to_string(),
        other => other.to_string(),
    }
}

/// Triton's host `next_power_of_2`: the smallest power of two ≥ `n` (0 for 0), bit-smeared
/// over 64 bits exactly as `triton.next_power_of_2` does.
pub fn next_power_of_2(n: i128) -> i128 {
    let mut n = n - 1;
    for shift in [1, 2, 4, 8, 16, 32] {
        n |= n >> shift;
    }
    n + 1
}

fn min_max(
    name: &str,
    args: &[Constexpr],
    want_max: bool,
    span: Span,
) -> Result<Constexpr, Diagnostic> {
    let items: Vec<Constexpr> = match args {
        [Constexpr::Tuple(items)] => items.clone(),
        [_] | [] => {
            return Err(const_error(
                span,
                format!("TypeError: `{name}()` expects an iterable or two or more arguments"),
            ))
        }
        many => many.to_vec(),
    };
    let mut best: Option<Constexpr> = None;
    for item in items {
        best = Some(match best {
            None => item,
            Some(b) => {
                // Python keeps the first of equal elements.
                let better = ops::compare(if want_max { CmpOp::Gt } else { CmpOp::Lt }, &item, &b)
                    .map_err(|m| const_error(span, m))?;
                if better.truthy() {
                    item
                } else {
                    b
                }
            }
        });
    }
    best.ok_or_else(|| {
        const_error(
            span,
            format!("ValueError: `{name}()` arg is an empty sequence"),
        )
    })
}

/// Calls `f` with compile-time arguments. `span` is the call, `func_span` its callee.
pub fn call(
    f: &Constexpr,
    args: &[Constexpr],
    kwargs: &[(String, Constexpr)],
    span: Span,
    func_span: Span,
) -> Result<Constexpr, Diagnostic> {
    if crate::symbolic::is_symbolic(f) || args.iter().any(crate::symbolic::is_symbolic) {
        // A compile-time function of an unknown value (`triton.next_power_of_2(N)`), or
        // a call of something opaque: unknown.
        let shown: Vec<String> = args.iter().map(ToString::to_string).collect();
        let name = match f {
            Constexpr::Builtin(p) => p.rsplit('.').next().unwrap_or(p).to_string(),
            other => other.to_string(),
        };
        let kind = match name.as_str() {
            "next_power_of_2" | "cdiv" | "min" | "max" | "len" | "int" => {
                crate::value::SymbolicKind::Int
            }
            _ => crate::value::SymbolicKind::Any,
        };
        return Ok(crate::value::Symbolic::constexpr(
            format!("{name}({})", shown.join(", ")),
            kind,
        ));
    }
    if let Constexpr::BoundMethod(recv, m) = f {
        if !kwargs.is_empty() {
            return Err(Diagnostic::error(
                codes::BAD_ARGUMENTS,
                format!("`{m}()` takes no keyword arguments"),
            )
            .with_primary(span, ""));
        }
        return attrs::call_method(recv, m, args, span);
    }
    let Constexpr::Builtin(path) = f else {
        return Err(Diagnostic::error(
            codes::NOT_CONSTEXPR,
            format!("`{f}` cannot be called in a compile-time expression"),
        )
        .with_primary(func_span, ""));
    };
    if crate::builtins::private::is_constexpr_helper(path) {
        return crate::builtins::private::evaluate(path, args, kwargs, span);
    }
    let name = path.rsplit('.').next().unwrap_or(path);
    if !kwargs.is_empty() && !matches!(&**path, "triton.language.constexpr") {
        return Err(Diagnostic::error(
            codes::BAD_ARGUMENTS,
            format!("`{name}()` takes no keyword arguments here"),
        )
        .with_primary(span, ""));
    }
    match &**path {
        "builtins.isinstance" => {
            arity(name, args, 2, 2, span)?;
            let subject = super::isinstance::Subject::Const(&args[0]);
            super::isinstance::isinstance(subject, &args[1])
                .map(Constexpr::Bool)
                .map_err(|m| const_error(span, m))
        }
        "builtins.min" => min_max(name, args, false, span),
        "builtins.max" => min_max(name, args, true, span),
        "builtins.len" => {
            arity(name, args, 1, 1, span)?;
            let n = match &args[0] {
                Constexpr::Tuple(t) => t.len(),
                Constexpr::Str(s) => s.chars().count(),
                Constexpr::Object(o) => o.fields.len(),
                other => {
                    return Err(const_error(
                        span,
                        format!(
                            "TypeError: object of type '{}' has no len()",
                            other.type_name()
                        ),
                    ))
                }
            };
            Ok(Constexpr::Int(n as i128))
        }
        "builtins.int" => {
            arity(name, args, 1, 1, span)?;
            match &args[0] {
                Constexpr::Float(x) => {
                    if !x.is_finite() || x.abs() >= 1.7e38 {
                        Err(const_error(
                            span,
                            format!("cannot convert float {} to integer", py_float_repr(*x)),
                        ))
                    } else {
                        Ok(Constexpr::Int(x.trunc() as i128))
                    }
                }
                Constexpr::Str(s) => s.trim().parse::<i128>().map(Constexpr::Int).map_err(|_| {
                    const_error(
                        span,
                        format!("ValueError: invalid literal for int() with base 10: '{s}'"),
                    )
                }),
                v => v.as_int().map(Constexpr::Int).ok_or_else(|| {
                    const_error(
                        span,
                        format!(
                            "TypeError: int() argument must be a number, not '{}'",
                            v.type_name()
                        ),
                    )
                }),
            }
        }
        "builtins.float" => {
            arity(name, args, 1, 1, span)?;
            match &args[0] {
                Constexpr::Str(s) => {
                    let t = s.trim().to_ascii_lowercase();
                    let parsed = match t.as_str() {
                        "inf" | "+inf" | "infinity" => Some(f64::INFINITY),
                        "-inf" | "-infinity" => Some(f64::NEG_INFINITY),
                        "nan" | "+nan" | "-nan" => Some(f64::NAN),
                        _ => t.parse::<f64>().ok(),
                    };
                    parsed.map(Constexpr::Float).ok_or_else(|| {
                        const_error(
                            span,
                            format!("ValueError: could not convert string to float: '{s}'"),
                        )
                    })
                }
                v => v.as_f64().map(Constexpr::Float).ok_or_else(|| {
                    const_error(
                        span,
                        format!(
                            "TypeError: float() argument must be a number, not '{}'",
                            v.type_name()
                        ),
                    )
                }),
            }
        }
        "builtins.abs" => {
            arity(name, args, 1, 1, span)?;
            match &args[0] {
                Constexpr::Float(x) => Ok(Constexpr::Float(x.abs())),
                v => v
                    .as_int()
                    .and_then(i128::checked_abs)
                    .map(Constexpr::Int)
                    .ok_or_else(|| {
                        const_error(
                            span,
                            format!("TypeError: bad operand type for abs(): '{}'", v.type_name()),
                        )
                    }),
            }
        }
        "builtins.bool" => {
            arity(name, args, 0, 1, span)?;
            Ok(Constexpr::Bool(args.first().is_some_and(Constexpr::truthy)))
        }
        "builtins.str" => {
            arity(name, args, 0, 1, span)?;
            Ok(Constexpr::Str(
                args.first().map(|v| py_str(v, false)).unwrap_or_default(),
            ))
        }
        "builtins.round" => {
            arity(name, args, 1, 1, span)?;
            match &args[0] {
                // Python rounds half to even.
                Constexpr::Float(x) if x.is_finite() => {
                    Ok(Constexpr::Int(x.round_ties_even() as i128))
                }
                v if v.as_int().is_some() => Ok(Constexpr::Int(v.as_int().unwrap_or(0))),
                v => Err(const_error(
                    span,
                    format!("TypeError: cannot round {}", v.type_name()),
                )),
            }
        }
        "builtins.tuple" | "builtins.list" => {
            arity(name, args, 0, 1, span)?;
            match args.first() {
                None => Ok(Constexpr::Tuple(Vec::new())),
                Some(Constexpr::Tuple(t)) => Ok(Constexpr::Tuple(t.clone())),
                Some(v) => Err(const_error(
                    span,
                    format!("TypeError: '{}' object is not iterable", v.type_name()),
                )),
            }
        }
        "builtins.range" => {
            arity(name, args, 1, 3, span)?;
            let ints: Vec<i128> = args
                .iter()
                .map(|a| int_arg(name, a, span))
                .collect::<Result<_, _>>()?;
            let (start, end, step) = match ints.as_slice() {
                [e] => (0, *e, 1),
                [s, e] => (*s, *e, 1),
                [s, e, st] => (*s, *e, *st),
                _ => unreachable!("arity was checked to be 1 to 3"),
            };
            range_values(start, end, step, span)
                .map(|v| Constexpr::Tuple(v.into_iter().map(Constexpr::Int).collect()))
        }
        "triton.cdiv" | "triton.language.cdiv" => {
            arity(name, args, 2, 2, span)?;
            // (x + d - 1) // d with Python's floor division, as the host helper computes it.
            let x =
                ops::binary(BinOp::Add, &args[0], &args[1]).map_err(|m| const_error(span, m))?;
            let x = ops::binary(BinOp::Sub, &x, &Constexpr::Int(1))
                .map_err(|m| const_error(span, m))?;
            ops::binary(BinOp::FloorDiv, &x, &args[1]).map_err(|m| const_error(span, m))
        }
        "triton.next_power_of_2" => {
            arity(name, args, 1, 1, span)?;
            Ok(Constexpr::Int(next_power_of_2(int_arg(
                name, &args[0], span,
            )?)))
        }
        "triton.language.constexpr" | "triton.constexpr" => {
            let v = match (args, kwargs) {
                ([v], []) => v.clone(),
                ([], [(k, v)]) if k == "value" => v.clone(),
                _ => {
                    return Err(Diagnostic::error(
                        codes::BAD_ARGUMENTS,
                        "`tl.constexpr()` takes exactly one value",
                    )
                    .with_primary(span, ""))
                }
            };
            Ok(v)
        }
        "triton.language.pointer_type" => {
            arity(name, args, 1, 2, span)?;
            let addr_space = match args.get(1) {
                None => 1,
                Some(a) => a
                    .as_int()
                    .and_then(|a| u32::try_from(a).ok())
                    .ok_or_else(|| {
                        const_error(span, "`tl.pointer_type()`'s address space is an int")
                    })?,
            };
            match args[0].as_dtype() {
                Some(d) => Ok(Constexpr::DType(Elem::Ptr(PtrType {
                    pointee: d,
                    addr_space,
                }))),
                None if matches!(args[0], Constexpr::DType(Elem::Ptr(_))) => {
                    Err(Diagnostic::error(
                        codes::UNSUPPORTED_TL_OP,
                        "pointers to pointers are not yet supported by tritonc",
                    )
                    .with_primary(span, "valid Triton, not lowered yet"))
                }
                None => Err(const_error(span, "`tl.pointer_type()` expects a dtype")),
            }
        }
        _ => Err(Diagnostic::error(
            codes::NOT_CONSTEXPR,
            format!("`{path}` cannot be evaluated at compile time"),
        )
        .with_primary(func_span, "")),
    }
}

/// The values of Python's `range(start, end, step)`, refusing more than 2^16 of them.
pub fn range_values(
    start: i128,
    end: i128,
    step: i128,
    span: Span,
) -> Result<Vec<i128>, Diagnostic> {
    if step == 0 {
        return Err(const_error(
            span,
            "ValueError: range() arg 3 must not be zero",
        ));
    }
    let count = if step > 0 {
        (end - start + step - 1).max(0) / step
    } else {
        (start - end - step - 1).max(0) / -step
    };
    if count > 1 << 16 {
        return Err(const_error(
            span,
            format!("range of {count} values is too long to unroll"),
        ));
    }
    Ok((0..count).map(|i| start + i * step).collect())
}
