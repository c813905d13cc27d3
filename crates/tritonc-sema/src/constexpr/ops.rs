//! Python semantics of operators on compile-time values: floor `//`, Python `%`, `**`,
//! comparisons, shifts, bitwise ops, sequence concatenation and repetition.
//!
//! Errors are plain messages phrased like Python's exceptions; the evaluator attaches the
//! span and the code.

use tritonc_syntax::ast::{BinOp, CmpOp, UnaryOp};

use crate::value::Constexpr;

/// A failed compile-time operation: the message of the exception Python would raise.
pub type OpResult = Result<Constexpr, String>;

fn overflow() -> String {
    "integer overflow: compile-time ints are limited to 128 bits".into()
}

/// Python's `a // b` on ints (floor division).
pub fn int_floordiv(a: i128, b: i128) -> Result<i128, String> {
    if b == 0 {
        return Err("ZeroDivisionError: integer division or modulo by zero".into());
    }
    let q = a.checked_div(b).ok_or_else(overflow)?;
    // Truncation rounds toward zero; floor needs one less when the signs differ.
    if (a % b != 0) && ((a < 0) != (b < 0)) {
        Ok(q - 1)
    } else {
        Ok(q)
    }
}

/// Python's `a % b` on ints (the result takes the sign of the divisor).
pub fn int_mod(a: i128, b: i128) -> Result<i128, String> {
    if b == 0 {
        return Err("ZeroDivisionError: integer division or modulo by zero".into());
    }
    let r = a.checked_rem(b).unwrap_or(0);
    if r != 0 && ((r < 0) != (b < 0)) {
        Ok(r + b)
    } else {
        Ok(r)
    }
}

/// Python's `divmod` on floats: `(floor(a / b), a - floor(a / b) * b)` computed as CPython does.
pub fn float_divmod(a: f64, b: f64) -> Result<(f64, f64), String> {
    if b == 0.0 {
        return Err("ZeroDivisionError: float floor division by zero".into());
    }
    let mut m = a % b;
    let mut div = (a - m) / b;
    if m != 0.0 {
        if (b < 0.0) != (m < 0.0) {
            m += b;
            div -= 1.0;
        }
    } else {
        m = 0.0f64.copysign(b);
    }
    let floordiv = if div != 0.0 {
        let f = div.floor();
        if div - f > 0.5 {
            f + 1.0
        } else {
            f
        }
    } else {
        0.0f64.copysign(a / b)
    };
    Ok((floordiv, m))
}

fn int_pow(base: i128, exp: i128) -> OpResult {
    if exp < 0 {
        if base == 0 {
            return Err("ZeroDivisionError: 0.0 cannot be raised to a negative power".into());
        }
        return Ok(Constexpr::Float((base as f64).powf(exp as f64)));
    }
    let exp = u32::try_from(exp).map_err(|_| overflow())?;
    base.checked_pow(exp)
        .map(Constexpr::Int)
        .ok_or_else(overflow)
}

fn shift_left(a: i128, b: i128) -> OpResult {
    if b < 0 {
        return Err("ValueError: negative shift count".into());
    }
    if a == 0 {
        return Ok(Constexpr::Int(0));
    }
    let b = u32::try_from(b).map_err(|_| overflow())?;
    let r = a.checked_shl(b).ok_or_else(overflow)?;
    if r >> b != a {
        return Err(overflow());
    }
    Ok(Constexpr::Int(r))
}

fn shift_right(a: i128, b: i128) -> OpResult {
    if b < 0 {
        return Err("ValueError: negative shift count".into());
    }
    // Python's >> is arithmetic with unbounded width.
    Ok(Constexpr::Int(if b >= 127 {
        if a < 0 {
            -1
        } else {
            0
        }
    } else {
        a >> b
    }))
}

fn unsupported(op: &str, a: &Constexpr, b: &Constexpr) -> String {
    format!(
        "TypeError: unsupported operand type(s) for {op}: '{}' and '{}'",
        a.type_name(),
        b.type_name()
    )
}

fn repeat<T: Clone>(items: &[T], n: i128) -> Result<Vec<T>, String> {
    let n = usize::try_from(n.max(0)).map_err(|_| overflow())?;
    if items.len().saturating_mul(n) > 1 << 20 {
        return Err("MemoryError: repeated sequence too long".into());
    }
    Ok(items
        .iter()
        .cloned()
        .cycle()
        .take(items.len() * n)
        .collect())
}

/// `a op b` with Python semantics.
pub fn binary(op: BinOp, a: &Constexpr, b: &Constexpr) -> OpResult {
    use Constexpr as C;
    if matches!(a, C::Symbolic(_)) || matches!(b, C::Symbolic(_)) {
        return Ok(crate::symbolic::binary(op, a, b, |x, y| {
            binary(op, x, y).ok()
        }));
    }
    if let (Some(x), Some(y)) = (a.as_int(), b.as_int()) {
        // Bitwise ops on two bools stay bool, as in Python.
        if let (C::Bool(p), C::Bool(q)) = (a, b) {
            match op {
                BinOp::BitAnd => return Ok(C::Bool(*p & *q)),
                BinOp::BitOr => return Ok(C::Bool(*p | *q)),
                BinOp::BitXor => return Ok(C::Bool(*p ^ *q)),
                _ => {}
            }
        }
        return match op {
            BinOp::Add => x.checked_add(y).map(C::Int).ok_or_else(overflow),
            BinOp::Sub => x.checked_sub(y).map(C::Int).ok_or_else(overflow),
            BinOp::Mul => x.checked_mul(y).map(C::Int).ok_or_else(overflow),
            BinOp::Div => {
                if y == 0 {
                    Err("ZeroDivisionError: division by zero".into())
                } else {
                    Ok(C::Float(x as f64 / y as f64))
                }
            }
            BinOp::FloorDiv => int_floordiv(x, y).map(C::Int),
            BinOp::Mod => int_mod(x, y).map(C::Int),
            BinOp::Pow => int_pow(x, y),
            BinOp::LShift => shift_left(x, y),
            BinOp::RShift => shift_right(x, y),
            BinOp::BitAnd => Ok(C::Int(x & y)),
            BinOp::BitOr => Ok(C::Int(x | y)),
            BinOp::BitXor => Ok(C::Int(x ^ y)),
            BinOp::MatMul => Err(unsupported("@", a, b)),
        };
    }
    if a.is_number() && b.is_number() {
        let (x, y) = (a.as_f64().unwrap_or(0.0), b.as_f64().unwrap_or(0.0));
        return match op {
            BinOp::Add => Ok(C::Float(x + y)),
            BinOp::Sub => Ok(C::Float(x - y)),
            BinOp::Mul => Ok(C::Float(x * y)),
            BinOp::Div => {
                if y == 0.0 {
                    Err("ZeroDivisionError: float division by zero".into())
                } else {
                    Ok(C::Float(x / y))
                }
            }
            BinOp::FloorDiv => float_divmod(x, y).map(|(q, _)| C::Float(q)),
            BinOp::Mod => float_divmod(x, y).map(|(_, r)| C::Float(r)),
            BinOp::Pow => {
                if x == 0.0 && y < 0.0 {
                    Err("ZeroDivisionError: 0.0 cannot be raised to a negative power".into())
                } else if x < 0.0 && y.fract() != 0.0 {
                    Err(
                        "ValueError: a negative float raised to a fractional power is complex"
                            .into(),
                    )
                } else {
                    Ok(C::Float(x.powf(y)))
                }
            }
            _ => Err(unsupported(op.symbol(), a, b)),
        };
    }
    match (op, a, b) {
        (BinOp::Add, C::Str(x), C::Str(y)) => Ok(C::Str(format!("{x}{y}"))),
        (BinOp::Add, C::Tuple(x), C::Tuple(y)) => {
            Ok(C::Tuple(x.iter().chain(y.iter()).cloned().collect()))
        }
        (BinOp::Mul, C::Tuple(x), n) | (BinOp::Mul, n, C::Tuple(x)) if n.as_int().is_some() => {
            repeat(x, n.as_int().unwrap_or(0)).map(C::Tuple)
        }
        (BinOp::Mul, C::Str(s), n) | (BinOp::Mul, n, C::Str(s)) if n.as_int().is_some() => {
            let chars: Vec<char> = s.chars().collect();
            repeat(&chars, n.as_int().unwrap_or(0)).map(|c| C::Str(c.into_iter().collect()))
        }
        _ => Err(unsupported(op.symbol(), a, b)),
    }
}

/// `op a` with Python semantics.
pub fn unary(op: UnaryOp, a: &Constexpr) -> OpResult {
    use Constexpr as C;
    if let C::Symbolic(s) = a {
        return Ok(crate::symbolic::unary(op, s));
    }
    match (op, a) {
        (UnaryOp::Not, v) => Ok(C::Bool(!v.truthy())),
        (UnaryOp::Neg, C::Float(f)) => Ok(C::Float(-f)),
        (UnaryOp::Pos, C::Float(f)) => Ok(C::Float(*f)),
        (UnaryOp::Neg, v) if v.as_int().is_some() => v
            .as_int()
            .unwrap_or(0)
            .checked_neg()
            .map(C::Int)
            .ok_or_else(overflow),
        (UnaryOp::Pos, v) if v.as_int().is_some() => Ok(C::Int(v.as_int().unwrap_or(0))),
        (UnaryOp::Invert, v) if v.as_int().is_some() => Ok(C::Int(!v.as_int().unwrap_or(0))),
        _ => Err(format!(
            "TypeError: bad operand type for unary {}: '{}'",
            op.symbol(),
            a.type_name()
        )),
    }
}

/// Python `==` on compile-time values (numbers compare by value across int/float/bool).
pub fn py_eq(a: &Constexpr, b: &Constexpr) -> bool {
    use Constexpr as C;
    match (a, b) {
        (x, y) if x.is_number() && y.is_number() => match (x.as_int(), y.as_int()) {
            (Some(p), Some(q)) => p == q,
            _ => x.as_f64() == y.as_f64(),
        },
        (C::Tuple(x), C::Tuple(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(p, q)| py_eq(p, q))
        }
        _ => a == b,
    }
}

/// Python ordering of two values (`None` when they are unordered or incomparable).
fn py_cmp(a: &Constexpr, b: &Constexpr) -> Result<Option<std::cmp::Ordering>, String> {
    use Constexpr as C;
    match (a, b) {
        (x, y) if x.is_number() && y.is_number() => Ok(match (x.as_int(), y.as_int()) {
            (Some(p), Some(q)) => Some(p.cmp(&q)),
            _ => x
                .as_f64()
                .unwrap_or(0.0)
                .partial_cmp(&y.as_f64().unwrap_or(0.0)),
        }),
        (C::Str(x), C::Str(y)) => Ok(Some(x.cmp(y))),
        (C::Tuple(x), C::Tuple(y)) => {
            for (p, q) in x.iter().zip(y) {
                if !py_eq(p, q) {
                    return py_cmp(p, q);
                }
            }
            Ok(Some(x.len().cmp(&y.len())))
        }
        _ => Err(format!(
            "TypeError: '<' not supported between instances of '{}' and '{}'",
            a.type_name(),
            b.type_name()
        )),
    }
}

/// `a op b` for one comparison operator, with Python semantics.
pub fn compare(op: CmpOp, a: &Constexpr, b: &Constexpr) -> OpResult {
    use std::cmp::Ordering::*;
    use Constexpr as C;
    if matches!(a, C::Symbolic(_)) || matches!(b, C::Symbolic(_)) {
        return Ok(crate::symbolic::compare(op, a, b, |x, y| {
            compare(op, x, y).ok()
        }));
    }
    let r = match op {
        CmpOp::Eq => py_eq(a, b),
        CmpOp::NotEq => !py_eq(a, b),
        // Identity: singletons (None, bools, dtypes, modules) are the same object when equal;
        // small ints are interned in CPython, and Triton code only uses `is` with these.
        CmpOp::Is | CmpOp::IsNot => {
            let same = match (a, b) {
                (C::None, C::None) => true,
                (C::Bool(x), C::Bool(y)) => x == y,
                (C::DType(x), C::DType(y)) => x == y,
                (C::Module(x), C::Module(y)) | (C::Builtin(x), C::Builtin(y)) => x == y,
                (C::Function(x), C::Function(y)) => x == y,
                _ => false,
            };
            same == (op == CmpOp::Is)
        }
        CmpOp::In | CmpOp::NotIn => {
            let found = match b {
                C::Tuple(items) => items.iter().any(|i| py_eq(a, i)),
                C::Str(s) => match a {
                    C::Str(needle) => s.contains(needle.as_str()),
                    _ => {
                        return Err(format!(
                            "TypeError: 'in <string>' requires string as left operand, not {}",
                            a.type_name()
                        ))
                    }
                },
                C::Object(o) => match a {
                    C::Str(k) => o.fields.contains_key(k),
                    _ => false,
                },
                _ => {
                    return Err(format!(
                        "TypeError: argument of type '{}' is not iterable",
                        b.type_name()
                    ))
                }
            };
            found == (op == CmpOp::In)
        }
        CmpOp::Lt | CmpOp::LtE | CmpOp::Gt | CmpOp::GtE => {
            let ord = py_cmp(a, b)?;
            match (op, ord) {
                (_, None) => false,
                (CmpOp::Lt, Some(o)) => o == Less,
                (CmpOp::LtE, Some(o)) => o != Greater,
                (CmpOp::Gt, Some(o)) => o == Greater,
                (_, Some(o)) => o != Less,
            }
        }
    };
    Ok(C::Bool(r))
}

#[cfg(test)]
mod tests {
    use super::*;
    use Constexpr::{Bool, Float, Int, Str, Tuple};

    fn bin(op: BinOp, a: Constexpr, b: Constexpr) -> Constexpr {
        binary(op, &a, &b).unwrap_or_else(|e| panic!("{op:?} {a} {b}: {e}"))
    }

    #[test]
    fn floor_division_and_modulo_follow_python() {
        // Values from CPython: -7 // 2 == -4, -7 % 2 == 1, 7 // -2 == -4, 7 % -2 == -1.
        assert_eq!(bin(BinOp::FloorDiv, Int(-7), Int(2)), Int(-4));
        assert_eq!(bin(BinOp::Mod, Int(-7), Int(2)), Int(1));
        assert_eq!(bin(BinOp::FloorDiv, Int(7), Int(-2)), Int(-4));
        assert_eq!(bin(BinOp::Mod, Int(7), Int(-2)), Int(-1));
        assert_eq!(bin(BinOp::FloorDiv, Int(-8), Int(2)), Int(-4));
        assert_eq!(bin(BinOp::Mod, Int(-8), Int(2)), Int(0));
        // Floats: -7.0 // 2 == -4.0, -7.5 % 2 == 0.5, 7.5 % -2 == -0.5.
        assert_eq!(bin(BinOp::FloorDiv, Float(-7.0), Int(2)), Float(-4.0));
        assert_eq!(bin(BinOp::Mod, Float(-7.5), Int(2)), Float(0.5));
        assert_eq!(bin(BinOp::Mod, Float(7.5), Int(-2)), Float(-0.5));
        assert!(binary(BinOp::FloorDiv, &Int(1), &Int(0))
            .unwrap_err()
            .starts_with("ZeroDivisionError"));
        assert!(binary(BinOp::Mod, &Float(1.0), &Float(0.0)).is_err());
    }

    #[test]
    fn true_division_power_and_shifts() {
        assert_eq!(bin(BinOp::Div, Int(7), Int(2)), Float(3.5));
        assert_eq!(bin(BinOp::Div, Int(4), Int(2)), Float(2.0));
        assert_eq!(bin(BinOp::Pow, Int(2), Int(10)), Int(1024));
        assert_eq!(bin(BinOp::Pow, Int(2), Int(-1)), Float(0.5));
        assert_eq!(bin(BinOp::Pow, Float(4.0), Float(0.5)), Float(2.0));
        assert_eq!(bin(BinOp::LShift, Int(1), Int(20)), Int(1 << 20));
        assert_eq!(bin(BinOp::RShift, Int(-9), Int(1)), Int(-5));
        assert_eq!(bin(BinOp::RShift, Int(-9), Int(500)), Int(-1));
        assert!(binary(BinOp::Pow, &Int(2), &Int(200))
            .unwrap_err()
            .contains("overflow"));
        assert!(binary(BinOp::LShift, &Int(1), &Int(-1)).is_err());
    }

    #[test]
    fn bools_are_ints_and_sequences_concatenate() {
        assert_eq!(bin(BinOp::Add, Bool(true), Int(1)), Int(2));
        assert_eq!(bin(BinOp::BitAnd, Bool(true), Bool(false)), Bool(false));
        assert_eq!(
            bin(BinOp::Add, Str("a".into()), Str("b".into())),
            Str("ab".into())
        );
        assert_eq!(
            bin(BinOp::Mul, Tuple(vec![Int(1)]), Int(3)),
            Tuple(vec![Int(1), Int(1), Int(1)])
        );
        assert!(binary(BinOp::Add, &Str("a".into()), &Int(1))
            .unwrap_err()
            .starts_with("TypeError"));
    }

    #[test]
    fn comparisons_follow_python() {
        let cmp = |op, a: Constexpr, b: Constexpr| compare(op, &a, &b).unwrap();
        assert_eq!(cmp(CmpOp::Eq, Int(1), Float(1.0)), Bool(true));
        assert_eq!(cmp(CmpOp::Eq, Bool(true), Int(1)), Bool(true));
        assert_eq!(
            cmp(
                CmpOp::Lt,
                Tuple(vec![Int(1), Int(2)]),
                Tuple(vec![Int(1), Int(3)])
            ),
            Bool(true)
        );
        assert_eq!(
            cmp(CmpOp::GtE, Str("b".into()), Str("a".into())),
            Bool(true)
        );
        assert_eq!(cmp(CmpOp::Lt, Float(f64::NAN), Int(1)), Bool(false));
        assert_eq!(cmp(CmpOp::Is, Constexpr::None, Constexpr::None), Bool(true));
        assert_eq!(cmp(CmpOp::IsNot, Int(0), Constexpr::None), Bool(true));
        assert_eq!(
            cmp(CmpOp::In, Int(2), Tuple(vec![Int(1), Int(2)])),
            Bool(true)
        );
        assert!(compare(CmpOp::Lt, &Int(1), &Str("a".into())).is_err());
    }

    #[test]
    fn unary_ops() {
        assert_eq!(unary(UnaryOp::Neg, &Int(3)).unwrap(), Int(-3));
        assert_eq!(unary(UnaryOp::Invert, &Int(0)).unwrap(), Int(-1));
        assert_eq!(unary(UnaryOp::Not, &Int(0)).unwrap(), Bool(true));
        assert_eq!(unary(UnaryOp::Neg, &Bool(true)).unwrap(), Int(-1));
        assert!(unary(UnaryOp::Neg, &Str("x".into())).is_err());
    }
}
