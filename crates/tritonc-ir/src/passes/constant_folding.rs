//! Constant folding of arithmetic on `arith.constant` operands (scalars and splats).
//!
//! Integer results wrap to their width, as Triton's arithmetic does. Float results are
//! folded only where the host computes them exactly rounded in the result type (f64,
//! f32, and f16/bf16 through f32, which has more than twice their precision). Anything
//! that would be undefined or target-dependent (division by zero, `MIN / -1`, shifts by
//! the width or more, fp8) is left alone. Folded ops are replaced by new constants;
//! the old ops' operands are left for dead-code elimination.

use half::{bf16, f16};

use crate::builder::Builder;
use crate::function::{Function, OpId, Value};
use crate::ops::{BinaryOp, CastOp, CmpIPredicate, ConstValue, OpKind};
use crate::pass::Pass;
use crate::types::DType;

/// Folds binary arithmetic, integer comparisons, integer casts, splats of constants and
/// selects on a constant scalar condition.
#[derive(Debug, Default, Clone, Copy)]
pub struct ConstantFolding;

impl Pass for ConstantFolding {
    fn name(&self) -> &'static str {
        "constant-folding"
    }

    fn run_on_function(&mut self, f: &mut Function) -> bool {
        let mut changed = false;
        for op in f.walk() {
            if f.op(op).is_erased() || f.op(op).parent().is_none() {
                continue;
            }
            match fold(f, op) {
                Some(Folded::Constant(c)) => {
                    let result = f.op(op).results()[0];
                    let ty = f.value_type(result).clone();
                    let loc = f.op(op).loc.clone();
                    let mut b = Builder::before(f, op);
                    b.set_loc(loc);
                    let new = match c {
                        ConstValue::Int(v) => b.const_int(v, ty),
                        ConstValue::Float(x) => b.const_float(x, ty),
                    };
                    replace_and_erase(f, op, new);
                    changed = true;
                }
                Some(Folded::Forward(v)) => {
                    replace_and_erase(f, op, v);
                    changed = true;
                }
                None => {}
            }
        }
        changed
    }
}

fn replace_and_erase(f: &mut Function, op: OpId, new: Value) {
    let old = f.op(op).results()[0];
    f.replace_all_uses(old, new);
    f.erase_op(op);
}

enum Folded {
    /// The op's single result is this constant (splatted when the result is a block).
    Constant(ConstValue),
    /// The op's single result equals an existing value of the same type.
    Forward(Value),
}

/// The constant value defined by `v`, if `v` comes from `arith.constant`.
fn const_of(f: &Function, v: Value) -> Option<ConstValue> {
    match f.kind(f.defining_op(v)?) {
        OpKind::Constant(c) => Some(*c),
        _ => None,
    }
}

fn fold(f: &Function, op: OpId) -> Option<Folded> {
    let data = f.op(op);
    let ops = data.operands();
    if data.results().len() != 1 {
        return None;
    }
    let result_ty = f.value_type(data.results()[0]);
    match &data.kind {
        OpKind::Binary(b) => {
            let (x, y) = (const_of(f, ops[0])?, const_of(f, ops[1])?);
            let d = result_ty.dtype()?;
            fold_binary(*b, x, y, d).map(Folded::Constant)
        }
        OpKind::CmpI(p) => {
            let (ConstValue::Int(x), ConstValue::Int(y)) =
                (const_of(f, ops[0])?, const_of(f, ops[1])?)
            else {
                return None;
            };
            let d = f.value_type(ops[0]).dtype()?;
            Some(Folded::Constant(ConstValue::Int(
                fold_cmpi(*p, x, y, d.bitwidth()?) as i128,
            )))
        }
        OpKind::Cast { op: c, .. } => {
            let ConstValue::Int(x) = const_of(f, ops[0])? else {
                return None;
            };
            let (from, to) = (f.value_type(ops[0]).dtype()?, result_ty.dtype()?);
            let (wf, wt) = (from.bitwidth()?, to.bitwidth()?);
            let bits = match c {
                CastOp::ExtSI => as_signed(to_bits(x, wf), wf) as u128,
                CastOp::ExtUI | CastOp::TruncI => to_bits(x, wf),
                _ => return None,
            };
            Some(Folded::Constant(ConstValue::Int(canonical(bits, to, wt))))
        }
        OpKind::Splat => const_of(f, ops[0]).map(Folded::Constant),
        OpKind::Select => {
            if !f.value_type(ops[0]).is_scalar() {
                return None;
            }
            let ConstValue::Int(c) = const_of(f, ops[0])? else {
                return None;
            };
            Some(Folded::Forward(if c != 0 { ops[1] } else { ops[2] }))
        }
        _ => None,
    }
}

fn mask(w: u32) -> u128 {
    if w >= 128 {
        u128::MAX
    } else {
        (1u128 << w) - 1
    }
}

/// The low `w` bits of `v`.
fn to_bits(v: i128, w: u32) -> u128 {
    (v as u128) & mask(w)
}

/// `w`-bit pattern read as two's complement.
fn as_signed(bits: u128, w: u32) -> i128 {
    let bits = bits & mask(w);
    if w > 0 && w < 128 && bits >> (w - 1) & 1 == 1 {
        bits as i128 - (1i128 << w)
    } else {
        bits as i128
    }
}

/// The constant of dtype `d` with these low `w` bits: signed dtypes sign-extend, the
/// others (unsigned and the signless `i1`) zero-extend.
fn canonical(bits: u128, d: DType, w: u32) -> i128 {
    if d.is_signed() {
        as_signed(bits, w)
    } else {
        (bits & mask(w)) as i128
    }
}

fn fold_binary(op: BinaryOp, x: ConstValue, y: ConstValue, d: DType) -> Option<ConstValue> {
    match (x, y) {
        (ConstValue::Int(x), ConstValue::Int(y)) if d.is_int() => {
            fold_int(op, x, y, d).map(ConstValue::Int)
        }
        (ConstValue::Float(x), ConstValue::Float(y)) if d.is_float() => {
            fold_float(op, x, y, d).map(ConstValue::Float)
        }
        _ => None,
    }
}

fn fold_int(op: BinaryOp, x: i128, y: i128, d: DType) -> Option<i128> {
    use BinaryOp::*;
    let w = d.bitwidth()?;
    let (ux, uy) = (to_bits(x, w), to_bits(y, w));
    let (sx, sy) = (as_signed(ux, w), as_signed(uy, w));
    let bits: u128 = match op {
        AddI => ux.wrapping_add(uy),
        SubI => ux.wrapping_sub(uy),
        MulI => ux.wrapping_mul(uy),
        AndI => ux & uy,
        OrI => ux | uy,
        XOrI => ux ^ uy,
        DivUI | RemUI if uy == 0 => return None,
        DivUI => ux / uy,
        RemUI => ux % uy,
        DivSI | RemSI if sy == 0 || (sx == as_signed(1 << (w - 1), w) && sy == -1) => return None,
        DivSI => (sx / sy) as u128,
        RemSI => (sx % sy) as u128,
        ShLI | ShRSI | ShRUI if uy >= w as u128 => return None,
        ShLI => ux << uy,
        ShRUI => ux >> uy,
        ShRSI => (sx >> uy) as u128,
        MaxSI => sx.max(sy) as u128,
        MinSI => sx.min(sy) as u128,
        MaxUI => ux.max(uy),
        MinUI => ux.min(uy),
        _ => return None,
    };
    Some(canonical(bits, d, w))
}

fn fold_cmpi(p: CmpIPredicate, x: i128, y: i128, w: u32) -> bool {
    use CmpIPredicate::*;
    let (ux, uy) = (to_bits(x, w), to_bits(y, w));
    let (sx, sy) = (as_signed(ux, w), as_signed(uy, w));
    match p {
        Eq => ux == uy,
        Ne => ux != uy,
        Slt => sx < sy,
        Sle => sx <= sy,
        Sgt => sx > sy,
        Sge => sx >= sy,
        Ult => ux < uy,
        Ule => ux <= uy,
        Ugt => ux > uy,
        Uge => ux >= uy,
    }
}

fn fold_float(op: BinaryOp, x: f64, y: f64, d: DType) -> Option<f64> {
    use BinaryOp::*;
    // Only the correctly rounded basic operations; min/max and remf have NaN and
    // signed-zero subtleties best left to the target.
    let exact: fn(f64, f64) -> f64 = match op {
        AddF => |a, b| a + b,
        SubF => |a, b| a - b,
        MulF => |a, b| a * b,
        DivF => |a, b| a / b,
        _ => return None,
    };
    // Operands are exact in f64, and f64 carries more than 2p+2 bits for every p below,
    // so rounding the f64 result once more to the narrower type is correctly rounded.
    let r = exact(x, y);
    match d {
        DType::F64 => Some(r),
        DType::F32 => Some(f64::from(r as f32)),
        DType::F16 => Some(f64::from(f16::from_f64(r))),
        DType::BF16 => Some(f64::from(bf16::from_f64(r))),
        _ => None,
    }
}
