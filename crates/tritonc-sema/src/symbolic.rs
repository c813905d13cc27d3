//! Typing rules over what generic analysis does not know: promotion with dtype variables
//! ([`DType::Var`]), broadcasting of symbolic dims ([`Dim::Symbolic`], [`Dim::Unknown`]),
//! and compile-time arithmetic on [`Symbolic`] values.
//!
//! The rules are Triton's own, applied as far as the known side decides them: `f64`
//! against anything is `f64`, a comparison is `i1`, `int / int` is `f32`; anything else
//! involving a variable stays a variable (the variable of the left-most variable operand,
//! so `x * 2` keeps `x`'s variable). Nothing here reports an error that depends on an
//! unknown: an undecidable case is an assumption, not a diagnostic.

use std::sync::Arc;

use tritonc_ir::{DType, Dim};
use tritonc_syntax::ast::{BinOp, CmpOp, UnaryOp};

use crate::promote::{BinaryKind, Operand, Promotion};
use crate::value::{Constexpr, Symbolic, SymbolicKind};

/// The dtype variable an operand carries, if any.
fn var_of(o: Operand) -> Option<DType> {
    match o {
        Operand::Tensor(d) if d.is_var() => Some(d),
        _ => None,
    }
}

/// Promotion of `a op b` when an operand's dtype is a variable; `None` when neither is.
pub fn promote_with_vars(op: BinaryKind, a: Operand, b: Operand) -> Option<Promotion> {
    let var = var_of(a).or_else(|| var_of(b))?;
    let other = if var_of(a).is_some() { b } else { a };
    let decided = match other {
        // fp64 wins against every dtype (rule 1 of `computation_type_impl`).
        Operand::Tensor(DType::F64) => Some(DType::F64),
        _ => None,
    };
    let operand = decided.unwrap_or(var);
    let result = if op.is_comparison() {
        DType::I1
    } else {
        operand
    };
    Some(Promotion { operand, result })
}

/// The common shape of two blocks of equal rank, or why they cannot broadcast. Unknown
/// and symbolic dims are compatible with anything that might be equal to them; two
/// different known extents (other than 1) are an error even in generic mode.
pub fn broadcast_dims(a: &[Dim], b: &[Dim]) -> Result<Vec<Dim>, (usize, Dim, Dim)> {
    let mut out = Vec::with_capacity(a.len());
    for (i, (x, y)) in a.iter().zip(b).enumerate() {
        out.push(match (x, y) {
            _ if x == y => x.clone(),
            (_, Dim::Known(1)) => x.clone(),
            (Dim::Known(1), _) => y.clone(),
            (Dim::Known(m), Dim::Known(n)) if m != n => return Err((i, x.clone(), y.clone())),
            // `BLOCK` against 64: equal when BLOCK is 64 (a symbolic dim is never assumed
            // to be 1, which would make the broadcast go the other way).
            (Dim::Known(_), _) => x.clone(),
            (_, Dim::Known(_)) => y.clone(),
            _ => Dim::Unknown,
        });
    }
    Ok(out)
}

/// A dim from a compile-time extent: known, or named after the symbolic value.
pub fn dim_of(c: &Constexpr) -> Option<Dim> {
    match c {
        Constexpr::Symbolic(s) if matches!(s.kind, SymbolicKind::Int | SymbolicKind::Any) => {
            Some(Dim::Symbolic(s.name.to_string()))
        }
        _ => c
            .as_int()
            .and_then(|v| u64::try_from(v).ok())
            .map(Dim::Known),
    }
}

/// Whether a compile-time value is (or contains) something generic analysis does not know.
pub fn is_symbolic(c: &Constexpr) -> bool {
    match c {
        Constexpr::Symbolic(_) => true,
        Constexpr::Tuple(items) => items.iter().any(is_symbolic),
        Constexpr::BoundMethod(recv, _) => is_symbolic(recv),
        _ => false,
    }
}

/// How an operand reads inside a symbolic expression (parenthesized when compound).
fn operand_text(c: &Constexpr) -> String {
    match c {
        Constexpr::Symbolic(s) if s.name.contains(' ') => format!("({})", s.name),
        other => other.to_string(),
    }
}

/// The kind of `a op b` on Python values of these kinds.
fn binary_kind(op: BinOp, a: &Constexpr, b: &Constexpr) -> SymbolicKind {
    let kind = |c: &Constexpr| match c {
        Constexpr::Symbolic(s) => s.kind,
        Constexpr::Int(_) => SymbolicKind::Int,
        Constexpr::Bool(_) => SymbolicKind::Bool,
        Constexpr::Float(_) => SymbolicKind::Float,
        _ => SymbolicKind::Any,
    };
    use SymbolicKind::*;
    match (op, kind(a), kind(b)) {
        (BinOp::Div, Int | Bool | Float, Int | Bool | Float) => Float,
        (_, Int | Bool, Int | Bool) => Int,
        (_, Float, Int | Bool | Float) | (_, Int | Bool, Float) => Float,
        _ => Any,
    }
}

/// `a op b` where an operand is symbolic: a new symbolic value whose name is the
/// expression, and whose candidates are computed when both sides have them.
pub fn binary(
    op: BinOp,
    a: &Constexpr,
    b: &Constexpr,
    eval: impl Fn(&Constexpr, &Constexpr) -> Option<Constexpr>,
) -> Constexpr {
    let name = format!("{} {} {}", operand_text(a), op.symbol(), operand_text(b));
    let cands = |c: &Constexpr| -> Vec<Constexpr> {
        match c {
            Constexpr::Symbolic(s) => s.candidates.clone(),
            other => vec![other.clone()],
        }
    };
    let (ca, cb) = (cands(a), cands(b));
    let mut candidates = Vec::new();
    // Only a single unknown keeps its candidates exact (two would pair up wrongly).
    if !(ca.is_empty() || cb.is_empty()) && (ca.len() == 1 || cb.len() == 1) {
        for x in &ca {
            for y in &cb {
                match eval(x, y) {
                    Some(v) if !candidates.contains(&v) => candidates.push(v),
                    Some(_) => {}
                    None => {
                        candidates.clear();
                        break;
                    }
                }
            }
        }
    }
    Constexpr::Symbolic(Arc::new(Symbolic {
        name: Arc::from(name),
        kind: binary_kind(op, a, b),
        candidates,
    }))
}

/// `a op b` for a comparison with a symbolic operand: a symbolic bool. When every
/// candidate gives the same answer the answer is known.
pub fn compare(
    op: CmpOp,
    a: &Constexpr,
    b: &Constexpr,
    eval: impl Fn(&Constexpr, &Constexpr) -> Option<Constexpr>,
) -> Constexpr {
    let as_bin = Constexpr::Symbolic(Arc::new(Symbolic {
        name: Arc::from(format!(
            "{} {} {}",
            operand_text(a),
            op.symbol(),
            operand_text(b)
        )),
        kind: SymbolicKind::Bool,
        candidates: Vec::new(),
    }));
    let cands = |c: &Constexpr| -> Vec<Constexpr> {
        match c {
            Constexpr::Symbolic(s) => s.candidates.clone(),
            other => vec![other.clone()],
        }
    };
    let (ca, cb) = (cands(a), cands(b));
    if ca.is_empty() || cb.is_empty() || (ca.len() > 1 && cb.len() > 1) {
        return as_bin;
    }
    let mut answers = Vec::new();
    for x in &ca {
        for y in &cb {
            match eval(x, y) {
                Some(v) => answers.push(v.truthy()),
                None => return as_bin,
            }
        }
    }
    match answers.first() {
        Some(first) if answers.iter().all(|v| v == first) => Constexpr::Bool(*first),
        _ => as_bin,
    }
}

/// `op a` on a symbolic operand.
pub fn unary(op: UnaryOp, a: &Symbolic) -> Constexpr {
    let kind = match op {
        UnaryOp::Not => SymbolicKind::Bool,
        _ => a.kind,
    };
    let text = if a.name.contains(' ') {
        format!("({})", a.name)
    } else {
        a.name.to_string()
    };
    let sym = match op {
        UnaryOp::Not => format!("not {text}"),
        other => format!("{}{text}", other.symbol()),
    };
    Symbolic::constexpr(sym, kind)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn v(n: u32) -> Operand {
        Operand::Tensor(DType::Var(n))
    }

    #[test]
    fn a_variable_stays_a_variable_unless_the_other_side_decides() {
        let p = promote_with_vars(BinaryKind::Mul, v(0), Operand::Int(2)).unwrap();
        assert_eq!((p.operand, p.result), (DType::Var(0), DType::Var(0)));
        let p = promote_with_vars(BinaryKind::Add, Operand::Tensor(DType::F16), v(3)).unwrap();
        assert_eq!(p.result, DType::Var(3), "f16 + T depends on T");
        let p = promote_with_vars(BinaryKind::Add, v(1), Operand::Tensor(DType::F64)).unwrap();
        assert_eq!(p.result, DType::F64, "fp64 wins against any dtype");
        let p = promote_with_vars(BinaryKind::Lt, v(1), Operand::Float(0.5)).unwrap();
        assert_eq!(p.result, DType::I1, "comparisons are i1");
        let p = promote_with_vars(BinaryKind::Add, v(1), v(2)).unwrap();
        assert_eq!(p.result, DType::Var(1), "the left-most variable");
        assert!(promote_with_vars(
            BinaryKind::Add,
            Operand::Tensor(DType::F32),
            Operand::Int(1)
        )
        .is_none());
    }

    #[test]
    fn symbolic_dims_broadcast_against_ones_and_equals() {
        let s = |n: &str| Dim::Symbolic(n.into());
        let k = Dim::Known;
        assert_eq!(
            broadcast_dims(&[s("BM"), k(1)], &[k(1), s("BN")]),
            Ok(vec![s("BM"), s("BN")])
        );
        assert_eq!(broadcast_dims(&[s("B")], &[s("B")]), Ok(vec![s("B")]));
        assert_eq!(broadcast_dims(&[s("B")], &[k(64)]), Ok(vec![k(64)]));
        assert_eq!(broadcast_dims(&[s("A")], &[s("B")]), Ok(vec![Dim::Unknown]));
        assert_eq!(
            broadcast_dims(&[k(32)], &[k(64)]),
            Err((0, k(32), k(64))),
            "two different known extents never broadcast"
        );
    }

    #[test]
    fn symbolic_arithmetic_names_the_expression_and_tracks_candidates() {
        let block = Constexpr::Symbolic(Arc::new(Symbolic {
            name: "BLOCK".into(),
            kind: SymbolicKind::Int,
            candidates: vec![Constexpr::Int(64), Constexpr::Int(128)],
        }));
        let half = binary(BinOp::FloorDiv, &block, &Constexpr::Int(2), |x, y| {
            Some(Constexpr::Int(x.as_int()? / y.as_int()?))
        });
        let s = half.as_symbolic().unwrap();
        assert_eq!(&*s.name, "BLOCK // 2");
        assert_eq!(s.kind, SymbolicKind::Int);
        assert_eq!(s.candidates, vec![Constexpr::Int(32), Constexpr::Int(64)]);
        // Every candidate is >= 16: the comparison is known.
        let ge = compare(CmpOp::GtE, &block, &Constexpr::Int(16), |x, y| {
            Some(Constexpr::Bool(x.as_int()? >= y.as_int()?))
        });
        assert_eq!(ge, Constexpr::Bool(true));
        let gt = compare(CmpOp::Gt, &block, &Constexpr::Int(64), |x, y| {
            Some(Constexpr::Bool(x.as_int()? > y.as_int()?))
        });
        assert_eq!(gt.to_string(), "BLOCK > 64");
    }
}
