//! Masked-lane values: for each block value, what the lanes a masked `tl.load` left out
//! hold — the load's `other`, nothing defined (no `other`), or what elementwise ops made of
//! either. `tl.where(mask, x, c)` over the load's mask (or a conjunction including it)
//! sanitizes them to `c`. A `tl.where` over one factor of a conjunction mask (`m_d[None, :]`
//! of `m_t[:, None] & m_d[None, :]`) sets the lanes off that factor to `c` and records the
//! other factor as junk: whole rows of data-derived values that matter only to a reduction
//! along the rows.

use tritonc_ir::{BinaryOp, ConstValue, Function, MathOp, OpId, OpKind, Value};

use super::num;
use super::sign::Sign;
use super::{constant_value, implies_mask, same_value, Facts, Lattice, Transfer};

/// What masked-off lanes hold.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Fill {
    /// Nothing defined: a masked load without `other`.
    Undefined,
    /// Exactly this value (`-inf`, `0.0`, `exp(0) = 1`, the int64 `-(2**63)`).
    Const(ConstValue),
    /// Some value other than a known constant, that went through `exp`: positive.
    Positive,
    /// Some finite value that depends on other data (`0 - mean`).
    Unknown,
}

impl Fill {
    /// This fill joined with some data-derived value.
    pub fn join_unknown(self) -> Fill {
        self.join(Fill::Unknown)
    }

    fn join(self, o: Fill) -> Fill {
        use Fill::*;
        match (self, o) {
            (Undefined, _) | (_, Undefined) => Undefined,
            (Const(a), Const(b)) if num::eq(a, b) || (num::is_nan(a) && num::is_nan(b)) => Const(a),
            (Positive, Positive) => Positive,
            _ => Unknown,
        }
    }
}

/// Lanes of a value that a masked load left out, and what they hold.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct MaskedLanes {
    /// The masked load the lanes come from.
    pub load: OpId,
    /// The load's mask.
    pub mask: Value,
    /// What the lanes hold now.
    pub fill: Fill,
    /// The load's fill went through `exp`/`exp2` on the way.
    pub through_exp: bool,
    /// The `tl.where` (or other op) that last set the fill, if not the load.
    pub set_by: Option<OpId>,
    /// A factor of the load's mask that the `tl.where` which set the fill did not reset
    /// (`where(m_d[None, :], x, 0)` after a load masked with `m_t[:, None] & m_d[None, :]`):
    /// lanes off it still hold some value derived from the data. They fill whole slices
    /// along the dims it varies in (rows past `T`), so they matter only to a reduction
    /// along one of those dims.
    pub junk: Option<Value>,
}

/// The lanes fact: every lane holds data, or some lanes hold a fill.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub enum Lanes {
    /// Every lane holds data.
    #[default]
    Exact,
    /// Some lanes hold a fill.
    Masked(MaskedLanes),
}

impl Lattice for Lanes {
    fn bottom() -> Self {
        Lanes::Exact
    }
    fn join(&self, o: &Self) -> Self {
        match (self, o) {
            (Lanes::Exact, x) | (x, Lanes::Exact) => *x,
            // Undefined lanes win, and the fact keeps the load they come from, so that
            // TRI102 points at the load without `other=`.
            (Lanes::Masked(a), Lanes::Masked(b)) => Lanes::Masked(MaskedLanes {
                fill: a.fill.join(b.fill),
                through_exp: a.through_exp || b.through_exp,
                junk: a.junk.or(b.junk),
                ..*undefined_first(a, b)
            }),
        }
    }
}

/// `b` when only `b`'s lanes are undefined, else `a`.
fn undefined_first<'a>(a: &'a MaskedLanes, b: &'a MaskedLanes) -> &'a MaskedLanes {
    if b.fill == Fill::Undefined && a.fill != Fill::Undefined {
        b
    } else {
        a
    }
}

/// The masked-lane analysis, given the signs of data lanes.
pub struct LanesAnalysis<'a> {
    /// The solved sign analysis.
    pub sign: &'a Facts<Sign>,
}

fn is_zero(fill: Fill) -> bool {
    matches!(fill, Fill::Const(c) if num::is(c, 0.0))
}

/// The fill after `b` combines a fill with data `y` (the other operand, known only if a
/// splat constant) — `masked_lhs` says on which side the fill is.
fn combine_with_data(b: BinaryOp, fill: Fill, y: Option<ConstValue>, masked_lhs: bool) -> Fill {
    use BinaryOp::*;
    match (fill, y) {
        (Fill::Undefined, _) => Fill::Undefined,
        (Fill::Const(c), Some(y)) => {
            let (l, r) = if masked_lhs { (c, y) } else { (y, c) };
            num::binary(b, l, r).map_or(Fill::Unknown, Fill::Const)
        }
        // ±inf plus or minus finite data stays ±inf.
        (Fill::Const(c), None) if num::as_f64(c).is_infinite() && matches!(b, AddF | SubF) => {
            let c = num::as_f64(c);
            Fill::Const(ConstValue::Float(if masked_lhs || b == AddF {
                c
            } else {
                -c
            }))
        }
        // 0 times finite data is 0, and so is 0 divided by it (a scale, a count).
        (Fill::Const(c), None)
            if num::is(c, 0.0) && (matches!(b, MulF | MulI) || (b == DivF && masked_lhs)) =>
        {
            Fill::Const(c)
        }
        _ => Fill::Unknown,
    }
}

/// Whether `fill` is the identity of `b` on the side it sits (`x + 0`, `0 + x`, `x - 0`,
/// `x * 1`, `max(x, -inf)`, `min(x, +inf)`).
fn is_identity(b: BinaryOp, fill: Fill, masked_lhs: bool) -> bool {
    use BinaryOp::*;
    let Fill::Const(c) = fill else { return false };
    match b {
        AddF | AddI => num::is(c, 0.0),
        SubF | SubI => num::is(c, 0.0) && !masked_lhs,
        MulF | MulI => num::is(c, 1.0),
        MaxNumF | MaximumF => num::is(c, f64::NEG_INFINITY),
        MinNumF | MinimumF => num::is(c, f64::INFINITY),
        _ => false,
    }
}

/// Whether `b` is a maximum whose masked operand holds `fill` at most 0 while the other
/// operand (of sign `other`) is non-negative: the other operand wins in every lane.
fn below_non_negative(b: BinaryOp, fill: Fill, other: &Sign) -> bool {
    use BinaryOp::*;
    let Fill::Const(c) = fill else { return false };
    matches!(b, MaxNumF | MaximumF | MaxSI)
        && other.is_non_negative()
        && num::cmp(c, ConstValue::Int(0)).is_some_and(|o| o.is_le())
}

/// For a load mask `a & b` and a `tl.where` condition implying `b` alone: `(b, a)`, the
/// factor the where resets and the one it leaves.
fn reset_factor(f: &Function, cond: Value, mask: Value) -> Option<(Value, Value)> {
    let m = super::strip_shape(f, mask);
    let op = super::def_op(f, m)?;
    if !matches!(f.kind(op), OpKind::Binary(BinaryOp::AndI)) {
        return None;
    }
    let [a, b] = f.op(op).operands() else {
        return None;
    };
    if implies_mask(f, cond, *b) && !implies_mask(f, cond, *a) {
        Some((*b, *a))
    } else if implies_mask(f, cond, *a) && !implies_mask(f, cond, *b) {
        Some((*a, *b))
    } else {
        None
    }
}

/// For a mask `a & b` and `factor` computing `a` (or `b`): the other factor.
fn mask_factor_rest(f: &Function, mask: Value, factor: Value) -> Option<Value> {
    let m = super::strip_shape(f, mask);
    let op = super::def_op(f, m)?;
    if !matches!(f.kind(op), OpKind::Binary(BinaryOp::AndI)) {
        return None;
    }
    let [a, b] = f.op(op).operands() else {
        return None;
    };
    if same_value(f, factor, *a) && !same_value(f, factor, *b) {
        Some(*b)
    } else if same_value(f, factor, *b) && !same_value(f, factor, *a) {
        Some(*a)
    } else {
        None
    }
}

/// Whether `b` scales an infinite fill by the other operand: `fill * s`, `s * fill`,
/// `fill / s`.
fn infinite_scaled(b: BinaryOp, fill: Fill, masked_lhs: bool) -> bool {
    matches!(fill, Fill::Const(c) if num::as_f64(c).is_infinite())
        && (b == BinaryOp::MulF || (b == BinaryOp::DivF && masked_lhs))
}

/// Whether `v` is one scalar for every lane computed from the kernel's scalar arguments and
/// constants only (a splat of `1.0 / temperature`), not from memory.
fn uniform_scalar(f: &Function, v: Value, depth: u32) -> bool {
    let v = super::strip_shape(f, v);
    if f.value_type(v).is_tensor() || depth == 0 {
        return false;
    }
    if f.args().contains(&v) {
        return true;
    }
    let Some(op) = super::def_op(f, v) else {
        return false;
    };
    match f.kind(op) {
        OpKind::Constant(_) => true,
        OpKind::Binary(_) | OpKind::Cast { .. } | OpKind::FpToFp { .. } | OpKind::Math(_) => f
            .op(op)
            .operands()
            .iter()
            .all(|&o| uniform_scalar(f, o, depth - 1)),
        _ => false,
    }
}

impl LanesAnalysis<'_> {
    /// The lanes of `b(x, y)`, given the operands' lanes and, when they are values of the
    /// function, the values (for constants and signs).
    fn binary(
        &self,
        f: &Function,
        b: BinaryOp,
        (x, xv): (Lanes, Option<Value>),
        (y, yv): (Lanes, Option<Value>),
    ) -> Lanes {
        let sign_of = |v: Option<Value>| v.map_or(Sign::Any, |v| *self.sign.get(v));
        let is_const = |v: Option<Value>| v.and_then(|v| constant_value(f, v)).is_some();
        match (x, y) {
            (Lanes::Exact, Lanes::Exact) => Lanes::Exact,
            // A fill that is the op's identity leaves the other operand's lanes as they
            // are: `acc + x` with `x` filled with 0 is `acc` in those lanes.
            // (Not with a constant: `x + 1.0` holds 1.0 in `x`'s masked lanes.)
            (Lanes::Masked(m), other) if is_identity(b, m.fill, true) && !is_const(yv) => other,
            (other, Lanes::Masked(m)) if is_identity(b, m.fill, false) && !is_const(xv) => other,
            // `max(fill, y)` with the fill at most 0 and `y` non-negative is `y` in
            // those lanes: `_max = tl.maximum(tl.abs(x), _max)` over a 0 fill.
            (Lanes::Masked(m), other) if below_non_negative(b, m.fill, &sign_of(yv)) => other,
            (other, Lanes::Masked(m)) if below_non_negative(b, m.fill, &sign_of(xv)) => other,
            // `±inf` scaled by one run-time scalar for every lane (`x * inv_temp`, `x /
            // scale`) keeps its sign: scales, temperatures and norms are presumed positive.
            (Lanes::Masked(m), Lanes::Exact)
                if infinite_scaled(b, m.fill, true)
                    && yv.is_some_and(|v| uniform_scalar(f, v, 8)) =>
            {
                Lanes::Masked(m)
            }
            (Lanes::Exact, Lanes::Masked(m))
                if infinite_scaled(b, m.fill, false)
                    && xv.is_some_and(|v| uniform_scalar(f, v, 8)) =>
            {
                Lanes::Masked(m)
            }
            (Lanes::Masked(mut m), Lanes::Exact) => {
                m.fill = combine_with_data(b, m.fill, yv.and_then(|v| constant_value(f, v)), true);
                Lanes::Masked(m)
            }
            (Lanes::Exact, Lanes::Masked(mut m)) => {
                m.fill = combine_with_data(b, m.fill, xv.and_then(|v| constant_value(f, v)), false);
                Lanes::Masked(m)
            }
            // Zero times a finite value is zero, whatever the other side's lanes hold:
            // `grad * x_hat` with `grad` filled with 0 is 0 where `grad` is masked.
            (Lanes::Masked(x), Lanes::Masked(y))
                if matches!(b, BinaryOp::MulF | BinaryOp::MulI)
                    && x.fill != Fill::Undefined
                    && y.fill != Fill::Undefined
                    && (is_zero(x.fill) || is_zero(y.fill)) =>
            {
                let zero = if is_zero(x.fill) { x } else { y };
                Lanes::Masked(MaskedLanes {
                    through_exp: x.through_exp || y.through_exp,
                    ..zero
                })
            }
            // One operand's mask is a factor of the other's (`b_v2` loaded under `m_t[:,
            // None] & m_v[None, :]`, `b_rstd` under `m_t[:, None]`): lanes off the shared
            // factor (rows past `T`) hold whatever both fills make, whole rows of junk; lanes
            // off only the other factor hold the fill combined with the other's data.
            (Lanes::Masked(x), Lanes::Masked(y))
                if x.fill != Fill::Undefined
                    && y.fill != Fill::Undefined
                    && x.junk.is_none()
                    && y.junk.is_none()
                    && !same_value(f, x.mask, y.mask)
                    && (mask_factor_rest(f, x.mask, y.mask).is_some()
                        || mask_factor_rest(f, y.mask, x.mask).is_some()) =>
            {
                let (big, small, masked_lhs) = if mask_factor_rest(f, x.mask, y.mask).is_some() {
                    (x, y, true)
                } else {
                    (y, x, false)
                };
                let rest = mask_factor_rest(f, big.mask, small.mask).expect("checked above");
                Lanes::Masked(MaskedLanes {
                    mask: rest,
                    fill: combine_with_data(b, big.fill, None, masked_lhs),
                    through_exp: x.through_exp || y.through_exp,
                    junk: Some(small.mask),
                    ..big
                })
            }
            (Lanes::Masked(x), Lanes::Masked(y)) => {
                let mut x = *undefined_first(&x, &y);
                x.fill = match (x.fill, y.fill) {
                    (Fill::Undefined, _) | (_, Fill::Undefined) => Fill::Undefined,
                    (Fill::Const(a), Fill::Const(c)) if same_value(f, x.mask, y.mask) => {
                        num::binary(b, a, c).map_or(Fill::Unknown, Fill::Const)
                    }
                    _ => Fill::Unknown,
                };
                x.through_exp |= y.through_exp;
                Lanes::Masked(x)
            }
        }
    }
}

impl Transfer for LanesAnalysis<'_> {
    type Fact = Lanes;

    fn transfer(&self, f: &Function, op: OpId, facts: &Facts<Lanes>) -> Vec<Lanes> {
        let data = f.op(op);
        let ops = data.operands();
        let n = data.results().len();
        let fact = |i: usize| ops.get(i).map(|&v| *facts.get(v)).unwrap_or_default();
        let one = match &data.kind {
            OpKind::Load { .. } => {
                let is_block = data
                    .results()
                    .first()
                    .is_some_and(|&r| f.value_type(r).is_tensor());
                match (ops.get(1), is_block) {
                    (Some(&mask), true) => {
                        let fill = match ops.get(2) {
                            Some(&other) => {
                                constant_value(f, other).map_or(Fill::Unknown, Fill::Const)
                            }
                            None => Fill::Undefined,
                        };
                        Lanes::Masked(MaskedLanes {
                            load: op,
                            mask,
                            fill,
                            through_exp: false,
                            set_by: None,
                            junk: None,
                        })
                    }
                    _ => Lanes::Exact,
                }
            }
            OpKind::Splat
            | OpKind::Broadcast
            | OpKind::ExpandDims { .. }
            | OpKind::Reshape { .. }
            | OpKind::Trans { .. }
            | OpKind::Hint(_)
            | OpKind::FpToFp { .. } => fact(0),
            OpKind::Cast { op: c, .. } => match fact(0) {
                Lanes::Masked(mut m) => {
                    if let Fill::Const(x) = m.fill {
                        let to = data
                            .results()
                            .first()
                            .and_then(|&r| f.value_type(r).dtype());
                        m.fill = num::cast(*c, x, to).map_or(Fill::Unknown, Fill::Const);
                    }
                    Lanes::Masked(m)
                }
                e => e,
            },
            OpKind::Math(m) => match fact(0) {
                Lanes::Masked(mut lanes) => {
                    let is_exp = matches!(m, MathOp::Exp | MathOp::Exp2);
                    lanes.fill = match lanes.fill {
                        Fill::Const(x) => Fill::Const(num::math(*m, x)),
                        Fill::Undefined => Fill::Undefined,
                        _ if is_exp => Fill::Positive,
                        _ => Fill::Unknown,
                    };
                    lanes.through_exp |= is_exp;
                    Lanes::Masked(lanes)
                }
                e => e,
            },
            OpKind::Binary(b) => self.binary(
                f,
                *b,
                (fact(0), ops.first().copied()),
                (fact(1), ops.get(1).copied()),
            ),
            OpKind::Select => {
                let (a, b) = (fact(1), fact(2));
                let masked = [a, b].into_iter().find_map(|l| match l {
                    Lanes::Masked(m) => Some(m),
                    Lanes::Exact => None,
                });
                match masked {
                    Some(m) if implies_mask(f, ops[0], m.mask) => {
                        // Where the mask is off, the select takes its false side.
                        match b {
                            Lanes::Masked(bm) if bm.load == m.load => Lanes::Masked(bm),
                            _ => Lanes::Masked(MaskedLanes {
                                fill: constant_value(f, ops[2]).map_or(Fill::Unknown, Fill::Const),
                                through_exp: false,
                                set_by: Some(op),
                                ..m
                            }),
                        }
                    }
                    // `where(m_d[None, :], x, c)` with a load mask `m_t[:, None] & m_d[None,
                    // :]`: the lanes off `m_d` now hold `c`; those off `m_t` only keep
                    // what they held (junk).
                    Some(m) if m.fill != Fill::Undefined && b == Lanes::Exact => {
                        match reset_factor(f, ops[0], m.mask) {
                            Some((reset, rest)) => Lanes::Masked(MaskedLanes {
                                mask: reset,
                                fill: constant_value(f, ops[2]).map_or(Fill::Unknown, Fill::Const),
                                through_exp: false,
                                set_by: Some(op),
                                junk: Some(rest),
                                ..m
                            }),
                            None => a.join(&b),
                        }
                    }
                    // `where(select, x, data)` with `x` loaded under `mask & select` and no
                    // `other=`: lanes off `select` take the data; only those off `mask` stay
                    // undefined (and a store masked by `mask` never writes them).
                    // The data side may be a load under the remaining factor itself
                    // (`inp = tl.load(..., mask=mask)`): its undefined lanes are the same.
                    Some(m)
                        if m.fill == Fill::Undefined
                            && matches!(a, Lanes::Masked(am) if am.load == m.load) =>
                    {
                        match reset_factor(f, ops[0], m.mask) {
                            Some((_, rest))
                                if match b {
                                    Lanes::Exact => true,
                                    Lanes::Masked(bm) => same_value(f, bm.mask, rest),
                                } =>
                            {
                                Lanes::Masked(MaskedLanes { mask: rest, ..m })
                            }
                            _ => a.join(&b),
                        }
                    }
                    _ => a.join(&b),
                }
            }
            // `fma(a, b, c)` is `a * b + c` lane by lane.
            OpKind::Fma if ops.len() == 3 => {
                let product = self.binary(
                    f,
                    BinaryOp::MulF,
                    (fact(0), Some(ops[0])),
                    (fact(1), Some(ops[1])),
                );
                self.binary(f, BinaryOp::AddF, (product, None), (fact(2), Some(ops[2])))
            }
            OpKind::Fma | OpKind::ClampF { .. } | OpKind::PreciseDivF | OpKind::PreciseSqrt => {
                let mut acc = Lanes::Exact;
                for i in 0..ops.len() {
                    acc = acc.join(&fact(i));
                }
                match acc {
                    Lanes::Masked(mut m) if m.fill != Fill::Undefined => {
                        m.fill = Fill::Unknown;
                        Lanes::Masked(m)
                    }
                    other => other,
                }
            }
            _ => Lanes::Exact,
        };
        vec![one; n]
    }
}
