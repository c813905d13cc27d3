//! Random numbers: `tl.philox`, `tl.randint`, `tl.randint4x`, `tl.rand`, `tl.rand4x`,
//! `tl.randn`, `tl.randn4x` and `tl.pair_uniform_to_normal`.
//!
//! Triton 3.6 writes these as `@jit` functions (`language/random.py`); tritonc expands them
//! into the same integer and float ops, step by step and with the same typing, so the
//! numbers are bit-exact with Triton's Philox 4x32-10 (4x64 for 64-bit counters).

use tritonc_diagnostics::{Diagnostic, Span};
use tritonc_ir::{DType, MathOp};
use tritonc_syntax::ast::UnaryOp;

use super::math::umulhi_values;
use super::reduce::err;
use super::{arith, expect_int, expect_tensor, BuiltinCall, BuiltinFn};
use crate::codes;
use crate::lower::LowerCx;
use crate::promote::BinaryKind;
use crate::value::{Constexpr, SemaValue, TensorValue};

type R = Result<SemaValue, Diagnostic>;

/// The random builtins, by short name.
pub(super) const BUILTINS: &[(&str, BuiltinFn)] = &[
    ("philox", philox),
    ("randint", randint),
    ("randint4x", randint4x),
    ("rand", rand),
    ("rand4x", rand4x),
    ("randn", randn),
    ("randn4x", randn4x),
    ("pair_uniform_to_normal", pair_uniform_to_normal),
    ("uint_to_uniform_float", uint_to_uniform_float),
];

/// Philox's default number of rounds (`N_ROUNDS_DEFAULT`).
const N_ROUNDS_DEFAULT: i128 = 10;

/// Philox multipliers and Weyl key increments: (ROUND_A, ROUND_B, KEY_A, KEY_B).
const PHILOX_32: (i128, i128, i128, i128) = (0xD2511F53, 0xCD9E8D57, 0x9E3779B9, 0xBB67AE85);
const PHILOX_64: (i128, i128, i128, i128) = (
    0xD2E7470EE14C6C93,
    0xCA5A826395121157,
    0x9E3779B97F4A7C15,
    0xBB67AE8584CAA73B,
);

/// Arithmetic over lowering values at one span, for writing the expansions readably.
struct Ops<'a, 'm> {
    cx: &'a mut LowerCx<'m>,
    span: Span,
}

impl Ops<'_, '_> {
    fn bin(
        &mut self,
        kind: BinaryKind,
        a: impl Into<SemaValue>,
        b: impl Into<SemaValue>,
    ) -> Result<TensorValue, Diagnostic> {
        arith::binary(self.cx, kind, a.into(), b.into(), self.span)
    }

    fn int(v: i128) -> SemaValue {
        SemaValue::Const(Constexpr::Int(v))
    }

    fn float(v: f64) -> SemaValue {
        SemaValue::Const(Constexpr::Float(v))
    }

    fn cast(&mut self, t: TensorValue, to: DType) -> Result<TensorValue, Diagnostic> {
        arith::cast(self.cx, t, to, self.span)
    }

    /// `t.to(to, bitcast=True)`.
    fn bitcast(&mut self, t: TensorValue, to: DType) -> TensorValue {
        if t.ty.dtype() == Some(to) {
            return t;
        }
        let ty = t.ty.with_dtype(to);
        let id = self
            .cx
            .builder(self.span)
            .cast(tritonc_ir::CastOp::Bitcast, t.id, to);
        TensorValue { id, ty }
    }

    fn math(&mut self, op: MathOp, t: TensorValue) -> TensorValue {
        let id = self.cx.builder(self.span).math(op, t.id);
        self.cx.tensor(id)
    }
}

fn n_rounds(a: &Option<(SemaValue, Span)>) -> Result<i128, Diagnostic> {
    match a {
        None => Ok(N_ROUNDS_DEFAULT),
        Some(a) => {
            let n = expect_int(a, "`n_rounds`")?;
            if n < 0 {
                return Err(err(
                    codes::INVALID_OPERAND,
                    a.1,
                    format!("`n_rounds` must not be negative, got {n}"),
                ));
            }
            Ok(n)
        }
    }
}

/// `philox_impl`: `n_rounds` rounds over counters `c` (all u32 or all u64) and key `(k0, k1)`.
fn philox_rounds(
    o: &mut Ops<'_, '_>,
    c: [TensorValue; 4],
    k: [TensorValue; 2],
    rounds: i128,
) -> Result<[TensorValue; 4], Diagnostic> {
    let (round_a, round_b, key_a, key_b) = if c[0].ty.dtype() == Some(DType::U32) {
        PHILOX_32
    } else {
        PHILOX_64
    };
    let [mut c0, mut c1, mut c2, mut c3] = c;
    let [mut k0, mut k1] = k;
    for _ in 0..rounds {
        let (old0, old2) = (c0.clone(), c2.clone());
        let b = arith::to_tensor(o.cx, Ops::int(round_b), o.span)?;
        let hi = umulhi_values(o.cx, b, old2.clone(), o.span)?;
        let x = o.bin(BinaryKind::Xor, hi, c1.clone())?;
        c0 = o.bin(BinaryKind::Xor, x, k0.clone())?;
        let a = arith::to_tensor(o.cx, Ops::int(round_a), o.span)?;
        let hi = umulhi_values(o.cx, a, old0.clone(), o.span)?;
        let x = o.bin(BinaryKind::Xor, hi, c3.clone())?;
        c2 = o.bin(BinaryKind::Xor, x, k1.clone())?;
        c1 = o.bin(BinaryKind::Mul, Ops::int(round_b), old2)?;
        c3 = o.bin(BinaryKind::Mul, Ops::int(round_a), old0)?;
        k0 = o.bin(BinaryKind::Add, k0, Ops::int(key_a))?;
        k1 = o.bin(BinaryKind::Add, k1, Ops::int(key_b))?;
    }
    Ok([c0, c1, c2, c3])
}

/// `tl.philox(seed, c0, c1, c2, c3, n_rounds)`.
fn philox_values(
    o: &mut Ops<'_, '_>,
    seed: (SemaValue, Span),
    c: [TensorValue; 4],
    rounds: i128,
) -> Result<[TensorValue; 4], Diagnostic> {
    let s = arith::to_tensor(o.cx, seed.0, seed.1)?;
    if !s.ty.dtype().is_some_and(DType::is_int) {
        return Err(Diagnostic::error(
            codes::INVALID_OPERAND,
            format!("a Philox seed must be an integer, not `{}`", s.ty),
        )
        .with_primary(seed.1, ""));
    }
    let s = o.cast(s, DType::U64)?;
    let width = c[0].ty.dtype().and_then(DType::bitwidth).unwrap_or(0);
    let (int_dtype, seed_lo, seed_hi) = match width {
        32 => {
            let hi = o.bin(BinaryKind::Shr, s.clone(), Ops::int(32))?;
            let hi = o.bin(BinaryKind::And, hi, Ops::int(0xffff_ffff))?;
            let hi = o.cast(hi, DType::U32)?;
            let lo = o.bin(BinaryKind::And, s, Ops::int(0xffff_ffff))?;
            let lo = o.cast(lo, DType::U32)?;
            (DType::U32, lo, hi)
        }
        64 => {
            let zero = arith::constant(o.cx, &Constexpr::Int(0), DType::U64, o.span)?;
            let hi = arith::broadcast_to_shape(o.cx, zero, &[1], o.span)?;
            (DType::U64, s, hi)
        }
        _ => {
            return Err(err(
                codes::INVALID_OPERAND,
                o.span,
                format!(
                    "Philox counters must be 32 or 64 bits wide, not `{}`",
                    c[0].ty
                ),
            ));
        }
    };
    let c = c.map(|t| o.bitcast(t, int_dtype));
    philox_rounds(o, c, [seed_lo, seed_hi], rounds)
}

fn philox(cx: &mut LowerCx<'_>, call: &BuiltinCall) -> R {
    let b = call.bind(&["seed", "c0", "c1", "c2", "c3", "n_rounds"])?;
    let seed = call.required(&b, 0, "seed")?;
    let mut c = Vec::new();
    for (i, p) in ["c0", "c1", "c2", "c3"].iter().enumerate() {
        c.push(expect_tensor(cx, &call.required(&b, i + 1, p)?)?);
    }
    let w = c[0].ty.dtype().and_then(DType::bitwidth);
    if c.iter().any(|t| {
        t.ty.dtype().and_then(DType::bitwidth) != w || !t.ty.dtype().is_some_and(DType::is_int)
    }) {
        return Err(err(
            codes::INVALID_OPERAND,
            call.span,
            "Philox counters must be integers of one width",
        ));
    }
    let rounds = n_rounds(&b[5])?;
    let mut o = Ops {
        cx,
        span: call.span,
    };
    let c: [TensorValue; 4] = c.try_into().expect("four counters were collected");
    let out = philox_values(&mut o, seed, c, rounds)?;
    Ok(SemaValue::Tuple(
        out.into_iter().map(SemaValue::Tensor).collect(),
    ))
}

/// `randint4x(seed, offset, n_rounds)`: four blocks of random u32 (u64 for 64-bit offsets).
fn randint4x_values(
    cx: &mut LowerCx<'_>,
    call: &BuiltinCall,
) -> Result<[TensorValue; 4], Diagnostic> {
    let b = call.bind(&["seed", "offset", "n_rounds"])?;
    let seed = call.required(&b, 0, "seed")?;
    let off_arg = call.required(&b, 1, "offset")?;
    let offset = expect_tensor(cx, &off_arg)?;
    if !offset.ty.dtype().is_some_and(DType::is_int) {
        return Err(Diagnostic::error(
            codes::INVALID_OPERAND,
            format!("random offsets must be integers, not `{}`", offset.ty),
        )
        .with_primary(off_arg.1, ""));
    }
    let rounds = n_rounds(&b[2])?;
    let mut o = Ops {
        cx,
        span: call.span,
    };
    let lo = o.cast(offset.clone(), DType::U32)?;
    let zero = o.bin(BinaryKind::Mul, lo.clone(), Ops::int(0))?;
    let hi = if offset.ty.dtype().and_then(DType::bitwidth).unwrap_or(32) > 32 {
        let h = o.bin(BinaryKind::Shr, offset, Ops::int(32))?;
        o.cast(h, DType::U32)?
    } else {
        zero.clone()
    };
    philox_values(&mut o, seed, [lo, hi, zero.clone(), zero], rounds)
}

/// `uint_to_uniform_float`: a random u32/i32 (u64/i64) to a float in [0, 1).
fn to_uniform(o: &mut Ops<'_, '_>, x: TensorValue) -> Result<TensorValue, Diagnostic> {
    let (x, scale) = match x.ty.dtype() {
        Some(DType::U32 | DType::I32) => (o.bitcast(x, DType::I32), 4.6566127342e-10),
        Some(DType::U64 | DType::I64) => (o.bitcast(x, DType::I64), 1.0842020432385337e-19),
        _ => {
            return Err(err(
                codes::INVALID_OPERAND,
                o.span,
                format!(
                    "`uint_to_uniform_float` needs 32- or 64-bit integers, not `{}`",
                    x.ty
                ),
            ))
        }
    };
    let neg = o.bin(BinaryKind::Lt, x.clone(), Ops::int(0))?;
    let minus = arith::unary(o.cx, UnaryOp::Neg, x.clone(), o.span)?;
    let minus = o.bin(BinaryKind::Sub, minus, Ops::int(1))?;
    let x = select(o, neg, minus, x)?;
    o.bin(BinaryKind::Mul, x, Ops::float(scale))
}

/// `tl.where(c, a, b)` on values of one type.
fn select(
    o: &mut Ops<'_, '_>,
    c: TensorValue,
    a: TensorValue,
    b: TensorValue,
) -> Result<TensorValue, Diagnostic> {
    let (c, a) = arith::broadcast_pair(o.cx, c, a, o.span)?;
    let (a, b) = arith::broadcast_pair(o.cx, a, b, o.span)?;
    let id = o.cx.builder(o.span).select(c.id, a.id, b.id);
    Ok(o.cx.tensor(id))
}

/// `pair_uniform_to_normal`: the Box–Muller transform.
fn box_muller(
    o: &mut Ops<'_, '_>,
    u1: TensorValue,
    u2: TensorValue,
) -> Result<(TensorValue, TensorValue), Diagnostic> {
    let u1 = o.bin(BinaryKind::Maximum, Ops::float(1.0e-7), u1)?;
    let th = o.bin(BinaryKind::Mul, Ops::float(std::f64::consts::TAU), u2)?;
    for t in [&u1, &th] {
        if !matches!(t.ty.dtype(), Some(DType::F32 | DType::F64)) {
            return Err(err(
                codes::INVALID_OPERAND,
                o.span,
                format!(
                    "the Box-Muller transform needs fp32 or fp64, not `{}`",
                    t.ty
                ),
            ));
        }
    }
    let l = o.math(MathOp::Log, u1);
    let l = o.bin(BinaryKind::Mul, Ops::float(-2.0), l)?;
    let r = o.math(MathOp::Sqrt, l);
    let c = o.math(MathOp::Cos, th.clone());
    let s = o.math(MathOp::Sin, th);
    Ok((
        o.bin(BinaryKind::Mul, r.clone(), c)?,
        o.bin(BinaryKind::Mul, r, s)?,
    ))
}

fn randint4x(cx: &mut LowerCx<'_>, call: &BuiltinCall) -> R {
    let r = randint4x_values(cx, call)?;
    Ok(SemaValue::Tuple(
        r.into_iter().map(SemaValue::Tensor).collect(),
    ))
}

fn randint(cx: &mut LowerCx<'_>, call: &BuiltinCall) -> R {
    let [r, ..] = randint4x_values(cx, call)?;
    Ok(r.into())
}

fn rand(cx: &mut LowerCx<'_>, call: &BuiltinCall) -> R {
    let [r, ..] = randint4x_values(cx, call)?;
    let mut o = Ops {
        cx,
        span: call.span,
    };
    Ok(to_uniform(&mut o, r)?.into())
}

fn rand4x(cx: &mut LowerCx<'_>, call: &BuiltinCall) -> R {
    let r = randint4x_values(cx, call)?;
    let mut o = Ops {
        cx,
        span: call.span,
    };
    let mut out = Vec::new();
    for t in r {
        out.push(SemaValue::Tensor(to_uniform(&mut o, t)?));
    }
    Ok(SemaValue::Tuple(out))
}

fn randn(cx: &mut LowerCx<'_>, call: &BuiltinCall) -> R {
    let [i1, i2, ..] = randint4x_values(cx, call)?;
    let mut o = Ops {
        cx,
        span: call.span,
    };
    let u1 = to_uniform(&mut o, i1)?;
    let u2 = to_uniform(&mut o, i2)?;
    Ok(box_muller(&mut o, u1, u2)?.0.into())
}

fn randn4x(cx: &mut LowerCx<'_>, call: &BuiltinCall) -> R {
    let r = randint4x_values(cx, call)?;
    let mut o = Ops {
        cx,
        span: call.span,
    };
    let mut u = Vec::new();
    for t in r {
        u.push(to_uniform(&mut o, t)?);
    }
    let (n1, n2) = box_muller(&mut o, u[0].clone(), u[1].clone())?;
    let (n3, n4) = box_muller(&mut o, u[2].clone(), u[3].clone())?;
    Ok(SemaValue::Tuple(
        [n1, n2, n3, n4]
            .into_iter()
            .map(SemaValue::Tensor)
            .collect(),
    ))
}

fn pair_uniform_to_normal(cx: &mut LowerCx<'_>, call: &BuiltinCall) -> R {
    let b = call.bind(&["u1", "u2"])?;
    let u1 = expect_tensor(cx, &call.required(&b, 0, "u1")?)?;
    let u2 = expect_tensor(cx, &call.required(&b, 1, "u2")?)?;
    let mut o = Ops {
        cx,
        span: call.span,
    };
    let (a, b) = box_muller(&mut o, u1, u2)?;
    Ok(SemaValue::Tuple(vec![a.into(), b.into()]))
}

fn uint_to_uniform_float(cx: &mut LowerCx<'_>, call: &BuiltinCall) -> R {
    let b = call.bind(&["x"])?;
    let x = expect_tensor(cx, &call.required(&b, 0, "x")?)?;
    let mut o = Ops {
        cx,
        span: call.span,
    };
    Ok(to_uniform(&mut o, x)?.into())
}
