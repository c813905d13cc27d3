//! Exact scalar constants for the lane and fill analyses: integers stay integers (an int64
//! sentinel such as `-(2**63)` or `2**63 - 1` is exact, not the nearest `f64`), floats
//! are `f64`. Comparisons between the two are exact too.

use std::cmp::Ordering;

use tritonc_ir::{BinaryOp, CastOp, ConstValue, DType, MathOp};

/// `c` as an `f64` (rounded for integers past 2^53).
pub fn as_f64(c: ConstValue) -> f64 {
    match c {
        ConstValue::Int(i) => i as f64,
        ConstValue::Float(x) => x,
    }
}

/// `c` as an exact integer, when it is one (a float with no fraction counts).
fn as_int(c: ConstValue) -> Option<i128> {
    match c {
        ConstValue::Int(i) => Some(i),
        ConstValue::Float(x) if x.is_finite() && x.fract() == 0.0 && x.abs() < 1.0e38 => {
            Some(x as i128)
        }
        ConstValue::Float(_) => None,
    }
}

/// Compares two constants by value, exactly (`None` when either is NaN).
pub fn cmp(a: ConstValue, b: ConstValue) -> Option<Ordering> {
    match (as_int(a), as_int(b)) {
        (Some(x), Some(y)) => Some(x.cmp(&y)),
        _ => as_f64(a).partial_cmp(&as_f64(b)),
    }
}

/// Whether `a` and `b` are the same number (`0` and `-0.0` are).
pub fn eq(a: ConstValue, b: ConstValue) -> bool {
    cmp(a, b) == Some(Ordering::Equal)
}

/// Whether `c` is the number `x`.
pub fn is(c: ConstValue, x: f64) -> bool {
    eq(c, ConstValue::Float(x))
}

/// Whether `c` is NaN.
pub fn is_nan(c: ConstValue) -> bool {
    matches!(c, ConstValue::Float(x) if x.is_nan())
}

/// `b` applied to two constants: exact on integers (`None` past i64, where the IR would
/// wrap), `f64` otherwise; `None` for ops the analyses do not evaluate.
pub fn binary(b: BinaryOp, x: ConstValue, y: ConstValue) -> Option<ConstValue> {
    use BinaryOp::*;
    if let (ConstValue::Int(p), ConstValue::Int(q)) = (x, y) {
        let r = match b {
            AddI | AddF => p.checked_add(q),
            SubI | SubF => p.checked_sub(q),
            MulI | MulF => p.checked_mul(q),
            MaxSI | MaxUI | MaxNumF | MaximumF => Some(p.max(q)),
            MinSI | MinUI | MinNumF | MinimumF => Some(p.min(q)),
            _ => None,
        };
        if let Some(r) = r.filter(|r| i64::try_from(*r).is_ok() || u64::try_from(*r).is_ok()) {
            return Some(ConstValue::Int(r));
        }
        if !b.is_float_op() {
            return None;
        }
    }
    let (p, q) = (as_f64(x), as_f64(y));
    Some(ConstValue::Float(match b {
        AddF | AddI => p + q,
        SubF | SubI => p - q,
        MulF | MulI => p * q,
        DivF => p / q,
        MaxNumF | MaximumF | MaxSI | MaxUI => p.max(q),
        MinNumF | MinimumF | MinSI | MinUI => p.min(q),
        _ => return None,
    }))
}

/// `m` applied to a constant.
pub fn math(m: MathOp, c: ConstValue) -> ConstValue {
    if let (MathOp::AbsI | MathOp::AbsF, ConstValue::Int(i)) = (m, c) {
        return ConstValue::Int(i.abs());
    }
    let x = as_f64(c);
    ConstValue::Float(match m {
        MathOp::Exp => x.exp(),
        MathOp::Exp2 => x.exp2(),
        MathOp::Log => x.ln(),
        MathOp::Log2 => x.log2(),
        MathOp::Sin => x.sin(),
        MathOp::Cos => x.cos(),
        MathOp::Sqrt => x.sqrt(),
        MathOp::Rsqrt => 1.0 / x.sqrt(),
        MathOp::Floor => x.floor(),
        MathOp::Ceil => x.ceil(),
        MathOp::AbsF | MathOp::AbsI => x.abs(),
        MathOp::Erf => {
            // Only the fills that matter: erf(0) = 0, erf(±inf) = ±1.
            if x == 0.0 {
                0.0
            } else if x.is_infinite() {
                x.signum()
            } else {
                f64::NAN
            }
        }
    })
}

/// The constant `c` converted by `op` to `to`; `None` where the result is not modelled
/// (bit casts, a float that does not fit the integer).
pub fn cast(op: CastOp, c: ConstValue, to: Option<DType>) -> Option<ConstValue> {
    match op {
        CastOp::SIToFP | CastOp::UIToFP | CastOp::ExtF | CastOp::TruncF => {
            Some(ConstValue::Float(as_f64(c)))
        }
        CastOp::FPToSI | CastOp::FPToUI => {
            let x = as_f64(c);
            if !x.is_finite() {
                return None;
            }
            let i = x.trunc() as i128;
            let to = to?;
            (int_min(to)? <= i && i <= int_max(to)?).then_some(ConstValue::Int(i))
        }
        CastOp::ExtSI | CastOp::ExtUI => Some(c),
        CastOp::TruncI => {
            let (ConstValue::Int(i), Some(to)) = (c, to) else {
                return None;
            };
            (int_min(to)? <= i && i <= int_max(to)?).then_some(c)
        }
        CastOp::Bitcast => None,
    }
}

/// The smallest value of an integer dtype.
pub fn int_min(d: DType) -> Option<i128> {
    let bits = d.bitwidth()?;
    if d.is_signed() {
        Some(-(1i128 << (bits - 1)))
    } else if d.is_int() {
        Some(0)
    } else {
        None
    }
}

/// The largest value of an integer dtype.
pub fn int_max(d: DType) -> Option<i128> {
    let bits = d.bitwidth()?;
    if d.is_signed() {
        Some((1i128 << (bits - 1)) - 1)
    } else if d.is_int() {
        Some((1i128 << bits) - 1)
    } else {
        None
    }
}

/// The largest finite value of a float dtype.
pub fn float_max(d: DType) -> Option<f64> {
    use DType::*;
    Some(match d {
        F16 => 65504.0,
        BF16 => 3.389_531_389_251_535e38,
        F32 => f32::MAX as f64,
        F64 => f64::MAX,
        F8E4M3FN => 448.0,
        F8E4M3FNUZ => 240.0,
        F8E5M2 | F8E5M2FNUZ => 57344.0,
        F8E4M3B11FNUZ => 30.0,
        _ => return None,
    })
}

/// The dtypes whose values a reduction may be combining when lint does not know the data's
/// dtype (a placeholder pointee): the signed integers and the floats people reduce.
pub const PLAUSIBLE_DTYPES: [DType; 8] = [
    DType::I8,
    DType::I16,
    DType::I32,
    DType::I64,
    DType::F16,
    DType::BF16,
    DType::F32,
    DType::F64,
];

/// Whether no value of dtype `d` is below `c` except `-inf` itself: `c` is neutral for a
/// max over `d` (`-inf`, the dtype's lowest finite value or below, an integer's minimum).
pub fn at_or_below_lowest(c: ConstValue, d: DType) -> bool {
    if is(c, f64::NEG_INFINITY) {
        return true;
    }
    let lowest = match (int_min(d), float_max(d)) {
        (Some(i), _) => ConstValue::Int(i),
        (None, Some(x)) => ConstValue::Float(-x),
        (None, None) => return false,
    };
    matches!(cmp(c, lowest), Some(Ordering::Less | Ordering::Equal))
}

/// Whether no value of dtype `d` is above `c` except `+inf`: `c` is neutral for a min.
pub fn at_or_above_highest(c: ConstValue, d: DType) -> bool {
    if is(c, f64::INFINITY) {
        return true;
    }
    let highest = match (int_max(d), float_max(d)) {
        (Some(i), _) => ConstValue::Int(i),
        (None, Some(x)) => ConstValue::Float(x),
        (None, None) => return false,
    };
    matches!(cmp(c, highest), Some(Ordering::Greater | Ordering::Equal))
}

/// `c` as a Python literal: integers exactly (`-9223372036854775808`), floats with a
/// decimal point or exponent, infinities as `float('-inf')`.
pub fn py_literal(c: ConstValue) -> String {
    match c {
        ConstValue::Int(i) => i.to_string(),
        ConstValue::Float(x) => py_float(x),
    }
}

/// `-inf`, `+inf`, or the number, as a Python float literal (`0.0`, `-1e+30`).
pub fn py_float(x: f64) -> String {
    if x == f64::NEG_INFINITY {
        "float('-inf')".into()
    } else if x == f64::INFINITY {
        "float('inf')".into()
    } else if x.is_nan() {
        "float('nan')".into()
    } else if x.fract() == 0.0 && x.abs() < 1e15 {
        format!("{x:.1}")
    } else if x.abs() >= 1e15 {
        // Python's repr of large floats: shortest digits with an exponent.
        let s = format!("{x:e}");
        match s.split_once('e') {
            Some((m, e)) if !e.starts_with('-') => format!("{m}e+{e}"),
            _ => s,
        }
    } else {
        format!("{x}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn int64_sentinels_are_exact() {
        let min = ConstValue::Int(i64::MIN as i128);
        assert_eq!(py_literal(min), "-9223372036854775808");
        assert!(at_or_below_lowest(min, DType::I64));
        // One above the minimum is not neutral, though it is the same f64.
        assert!(!at_or_below_lowest(
            ConstValue::Int(i64::MIN as i128 + 1),
            DType::I64
        ));
        assert!(at_or_above_highest(
            ConstValue::Int(i64::MAX as i128),
            DType::I64
        ));
        assert!(!at_or_above_highest(
            ConstValue::Int(i64::MAX as i128 - 1),
            DType::I64
        ));
        // The float -2^63 equals the int64 minimum exactly.
        assert!(eq(ConstValue::Float(-(2f64.powi(63))), min));
    }

    #[test]
    fn lowest_finite_floats_are_neutral_for_max() {
        assert!(at_or_below_lowest(ConstValue::Float(-65504.0), DType::F16));
        assert!(!at_or_below_lowest(ConstValue::Float(-65504.0), DType::F32));
        assert!(!at_or_below_lowest(ConstValue::Int(0), DType::F32));
        assert!(!at_or_below_lowest(ConstValue::Int(0), DType::I32));
        assert!(at_or_below_lowest(ConstValue::Int(0), DType::U8));
    }

    #[test]
    fn python_literals() {
        assert_eq!(py_float(0.0), "0.0");
        assert_eq!(py_float(-1e30), "-1e+30");
        assert_eq!(py_float(f64::NEG_INFINITY), "float('-inf')");
        assert_eq!(py_float(1.5), "1.5");
    }

    #[test]
    fn integer_arithmetic_stays_exact() {
        let big = ConstValue::Int(1 << 62);
        assert_eq!(
            binary(BinaryOp::AddI, big, ConstValue::Int(1)),
            Some(ConstValue::Int((1 << 62) + 1))
        );
        assert_eq!(
            binary(BinaryOp::MulI, big, ConstValue::Int(4)),
            None,
            "past i64 the IR wraps"
        );
    }
}
