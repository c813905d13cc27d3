//! Binary promotion, Triton 3.6's `computation_type_impl` and `integer_promote_impl`, and
//! the result dtypes of operators, reductions and elementwise math.
//!
//! Operands are dtypes of runtime values (0-d or block: both count as tensors) or Python
//! numbers. A Python number against a tensor of the same or a higher kind
//! (bool < int < float) adopts the tensor's dtype and must fit in it.

use tritonc_diagnostics::Code;
use tritonc_ir::DType;

use crate::codes;

/// One operand of a binary operator, as promotion sees it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Operand {
    /// A runtime value (scalar or block) of this element dtype.
    Tensor(DType),
    /// A Python int (literal or constexpr).
    Int(i128),
    /// A Python float.
    Float(f64),
    /// A Python bool.
    Bool(bool),
}

/// The operators whose typing promotion decides.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum BinaryKind {
    /// `+`
    Add,
    /// `-`
    Sub,
    /// `*`
    Mul,
    /// `/`
    Div,
    /// `//`
    FloorDiv,
    /// `%`
    Mod,
    /// `&`
    And,
    /// `|`
    Or,
    /// `^`
    Xor,
    /// `<<`
    Shl,
    /// `>>`
    Shr,
    /// `<`
    Lt,
    /// `<=`
    Le,
    /// `==`
    Eq,
    /// `!=`
    Ne,
    /// `>`
    Gt,
    /// `>=`
    Ge,
    /// `tl.maximum`
    Maximum,
    /// `tl.minimum`
    Minimum,
    /// The two value operands of `tl.where`.
    Where,
}

impl BinaryKind {
    /// Whether this is a comparison (result `i1`).
    pub fn is_comparison(self) -> bool {
        use BinaryKind::*;
        matches!(self, Lt | Le | Eq | Ne | Gt | Ge)
    }

    pub(crate) fn is_div_or_mod(self) -> bool {
        matches!(
            self,
            BinaryKind::Div | BinaryKind::FloorDiv | BinaryKind::Mod
        )
    }

    fn is_bitwise(self) -> bool {
        use BinaryKind::*;
        matches!(self, And | Or | Xor | Shl | Shr)
    }
}

/// The typing of one binary operation.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Promotion {
    /// The dtype both operands are converted to before the operation.
    pub operand: DType,
    /// The dtype of the result.
    pub result: DType,
}

/// Why promotion failed: a code and Triton's reason.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PromoteError {
    /// [`codes::INCOMPATIBLE_TYPES`] or [`codes::LITERAL_OUT_OF_RANGE`].
    pub code: Code,
    /// The problem, in one sentence.
    pub message: String,
}

fn incompatible(message: String) -> PromoteError {
    PromoteError {
        code: codes::INCOMPATIBLE_TYPES,
        message,
    }
}

fn name(d: DType) -> &'static str {
    d.triton_name().unwrap_or("?")
}

/// Triton's dtype kind: bool < int < float.
fn kind(d: DType) -> u8 {
    if d == DType::I1 {
        0
    } else if d.is_int() {
        1
    } else {
        2
    }
}

/// Whether Triton counts the dtype as unsigned (`int1` is unsigned in Triton).
pub fn is_unsigned(d: DType) -> bool {
    d.is_unsigned() || d == DType::I1
}

/// The dtype a Python number becomes as a tensor (`to_tensor`).
pub fn literal_dtype(op: Operand) -> Result<DType, PromoteError> {
    Ok(match op {
        Operand::Tensor(d) => d,
        Operand::Bool(_) => DType::I1,
        Operand::Int(v) => {
            if (-(1i128 << 31)..(1i128 << 31)).contains(&v) {
                DType::I32
            } else if ((1i128 << 31)..(1i128 << 32)).contains(&v) {
                DType::U32
            } else if (-(1i128 << 63)..(1i128 << 63)).contains(&v) {
                DType::I64
            } else if ((1i128 << 63)..(1i128 << 64)).contains(&v) {
                DType::U64
            } else {
                return Err(PromoteError {
                    code: codes::LITERAL_OUT_OF_RANGE,
                    message: format!("integer {v} does not fit in 64 bits"),
                });
            }
        }
        Operand::Float(f) => {
            let a = f.abs();
            let fits = a.is_infinite()
                || a == 0.0
                || f.is_nan()
                || (2f64.powi(-126)..=f32::MAX as f64).contains(&a);
            if fits {
                DType::F32
            } else {
                DType::F64
            }
        }
    })
}

/// C's usual arithmetic conversions on two integer dtypes (`integer_promote_impl`).
pub fn integer_promote(a: DType, b: DType) -> DType {
    let (ar, br) = (a.bitwidth().unwrap_or(0), b.bitwidth().unwrap_or(0));
    match (is_unsigned(a), is_unsigned(b)) {
        (x, y) if x == y => {
            if ar > br {
                a
            } else {
                b
            }
        }
        (true, _) => {
            if ar >= br {
                a
            } else {
                b
            }
        }
        _ => {
            if br >= ar {
                b
            } else {
                a
            }
        }
    }
}

/// `computation_type_impl`: the common dtype of two operands.
pub fn computation_type(
    a: DType,
    a_is_scalar: bool,
    b: DType,
    b_is_scalar: bool,
    div_or_mod: bool,
) -> Result<DType, PromoteError> {
    use DType::*;
    if a_is_scalar != b_is_scalar {
        let (s, t) = if a_is_scalar { (a, b) } else { (b, a) };
        if kind(s) <= kind(t) {
            if div_or_mod && matches!(t, F16 | BF16) {
                return Ok(F32);
            }
            return Ok(t);
        }
    }
    if a == F64 || b == F64 {
        return Ok(F64);
    }
    if a == F32 || b == F32 {
        return Ok(F32);
    }
    if a == F16 || b == F16 {
        return Ok(if div_or_mod { F32 } else { F16 });
    }
    if a == BF16 && b == BF16 {
        return Ok(if div_or_mod { F32 } else { BF16 });
    }
    if a == BF16 || b == BF16 {
        return Ok(F32);
    }
    if a.is_fp8() && b.is_fp8() {
        return Ok(if a == b { a } else { F16 });
    }
    if !a.is_int() || !b.is_int() {
        return Err(incompatible(format!(
            "no common type for `{}` and `{}`",
            name(a),
            name(b)
        )));
    }
    if div_or_mod && is_unsigned(a) != is_unsigned(b) {
        return Err(incompatible(format!(
            "cannot use `/`, `//` or `%` with `{}` and `{}` because they have different signedness",
            name(a),
            name(b)
        )));
    }
    Ok(integer_promote(a, b))
}

fn literal_value(op: Operand) -> Option<i128> {
    match op {
        Operand::Int(v) => Some(v),
        Operand::Bool(b) => Some(b as i128),
        _ => None,
    }
}

fn int_range(d: DType) -> (i128, i128) {
    let bits = d.bitwidth().unwrap_or(64);
    if is_unsigned(d) {
        (0, (1i128 << bits) - 1)
    } else {
        (-(1i128 << (bits - 1)), (1i128 << (bits - 1)) - 1)
    }
}

/// `binary_op_type_checking_impl` without pointers: the common dtype after the literal
/// checks. `div_or_mod` selects Triton's special rules for `/`, `//` and `%`.
pub fn check_binary(a: Operand, b: Operand, div_or_mod: bool) -> Result<DType, PromoteError> {
    let a_scalar = !matches!(a, Operand::Tensor(_));
    let b_scalar = !matches!(b, Operand::Tensor(_));
    let (at, bt) = (literal_dtype(a)?, literal_dtype(b)?);
    let t = computation_type(at, a_scalar, bt, b_scalar, div_or_mod)?;
    for op in [a, b] {
        let Some(v) = literal_value(op) else { continue };
        if v < 0 && is_unsigned(t) && t != DType::I1 {
            return Err(PromoteError {
                code: codes::LITERAL_OUT_OF_RANGE,
                message: format!(
                    "cannot combine the negative number {v} with an unsigned `{}` value",
                    name(t)
                ),
            });
        }
        if t.is_int() {
            let (lo, hi) = int_range(t);
            if v < lo || v > hi {
                return Err(PromoteError {
                    code: codes::LITERAL_OUT_OF_RANGE,
                    message: format!("{v} is out of range for `{}` ({lo}..={hi})", name(t)),
                });
            }
        }
    }
    Ok(t)
}

/// The typing of `a op b` for non-pointer operands, exactly as Triton 3.6 types it.
pub fn promote_binary(op: BinaryKind, a: Operand, b: Operand) -> Result<Promotion, PromoteError> {
    use BinaryKind::*;
    if let Some(p) = crate::symbolic::promote_with_vars(op, a, b) {
        return Ok(p);
    }
    let (a, b) = match op {
        // Comparisons turn Python numbers into tensors first (`to_tensor`), so rule 0 of
        // `computation_type_impl` never applies to them.
        _ if op.is_comparison() => (
            Operand::Tensor(literal_dtype(a)?),
            Operand::Tensor(literal_dtype(b)?),
        ),
        // tl.maximum/minimum do the same and also widen bf16.
        Maximum | Minimum => {
            let widen = |o: Operand| -> Result<Operand, PromoteError> {
                let d = literal_dtype(o)?;
                Ok(Operand::Tensor(if d == DType::BF16 {
                    DType::F32
                } else {
                    d
                }))
            };
            (widen(a)?, widen(b)?)
        }
        _ => (a, b),
    };
    let t = check_binary(a, b, op.is_div_or_mod())?;
    // Triton materializes a nonzero Python number with `get_<dtype>`, which fp8 lacks;
    // zero goes through `get_null_value` and works.
    let nonzero_literal = |o: Operand| match o {
        Operand::Tensor(_) => false,
        Operand::Int(v) => v != 0,
        Operand::Bool(v) => v,
        Operand::Float(f) => f != 0.0,
    };
    if t.is_fp8() && (nonzero_literal(a) || nonzero_literal(b)) {
        return Err(PromoteError {
            code: codes::INVALID_OPERAND,
            message: format!("a Python number cannot be converted to `{}`", name(t)),
        });
    }
    let result = match op {
        Div => {
            if t.is_int() {
                DType::F32
            } else {
                t
            }
        }
        FloorDiv if !t.is_int() => {
            return Err(incompatible(format!(
                "`//` is not defined for `{}`; it needs integers",
                name(t)
            )))
        }
        _ if op.is_bitwise() && !t.is_int() => {
            return Err(incompatible(format!(
                "bitwise operators need integers, not `{}`",
                name(t)
            )))
        }
        _ if op.is_comparison() => DType::I1,
        _ => t,
    };
    let operand = if op == Div && t.is_int() {
        DType::F32
    } else {
        t
    };
    Ok(Promotion { operand, result })
}

/// The result dtype of a reduction over `d` (Triton 3.6 `standard.py`).
pub fn reduction_result(reduction: &str, d: DType) -> Result<DType, PromoteError> {
    use DType::*;
    if d.is_var() {
        // Widening depends on the unknown dtype; the index reductions do not.
        return Ok(if reduction.starts_with("arg") { I32 } else { d });
    }
    let narrow_int = d.is_int() && d.bitwidth().unwrap_or(64) < 32;
    Ok(match reduction {
        "sum" | "cumsum" => {
            if narrow_int {
                if is_unsigned(d) {
                    U32
                } else {
                    I32
                }
            } else if d == BF16 && reduction == "cumsum" {
                F32
            } else {
                d
            }
        }
        "cumprod" => {
            if d == BF16 {
                F32
            } else {
                d
            }
        }
        "max" | "min" => {
            if narrow_int {
                I32
            } else if d.is_float() && d.bitwidth().unwrap_or(64) < 32 {
                F32
            } else {
                d
            }
        }
        "argmax" | "argmin" => I32,
        "xor_sum" => {
            if !d.is_int() {
                return Err(PromoteError {
                    code: codes::INVALID_OPERAND,
                    message: "xor_sum only supported for integers".into(),
                });
            }
            d
        }
        other => {
            return Err(PromoteError {
                code: codes::UNSUPPORTED_TL_OP,
                message: format!("unknown reduction `{other}`"),
            })
        }
    })
}

/// Which dtypes an elementwise math builtin accepts, and its result (`None`: not modelled).
pub fn math_result(func: &str, d: DType) -> Option<Result<DType, PromoteError>> {
    use DType::*;
    if d.is_var() {
        // Whether `d` is an accepted float is an assumption of generic analysis.
        return Some(Ok(d));
    }
    let only = |allowed: &[DType]| -> Result<DType, PromoteError> {
        if allowed.contains(&d) {
            Ok(d)
        } else {
            let names: Vec<&str> = allowed.iter().filter_map(|a| a.signature_name()).collect();
            Err(PromoteError {
                code: codes::INVALID_OPERAND,
                message: format!(
                    "`tl.{func}` expects {} but got `{}`",
                    names.join(" or "),
                    name(d)
                ),
            })
        }
    };
    Some(match func {
        "exp" | "exp2" | "log" | "log2" | "sqrt" | "rsqrt" | "sin" | "cos" | "erf" | "floor"
        | "ceil" | "sigmoid" => only(&[F32, F64]),
        "sqrt_rn" | "div_rn" => only(&[F32]),
        "abs" => Ok(d),
        _ => return None,
    })
}

#[cfg(test)]
#[path = "promote_tests.rs"]
mod tests;
