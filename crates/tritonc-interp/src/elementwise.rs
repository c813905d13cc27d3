//! Elementwise ops over whole typed slices: arithmetic, comparisons, select, casts, math.
//!
//! Each op matches on the op kind and the storage once, outside the element loop, so the
//! loops are monomorphic. 16-bit and 8-bit floats compute in f32 and round once to their
//! type, which equals a correctly rounded 16-bit operation for `+ - * /` (f32 has more than
//! 2p+2 bits for p = 11 and p = 8).

use half::{bf16, f16};
use tritonc_ir::{BinaryOp, CastOp, CmpFPredicate, CmpIPredicate, DType, MathOp, RoundingMode};

use crate::data::{storage_of, Data, Storage};
use crate::error::{RtResult, RuntimeError};
use crate::numerics::{
    f32_to_bf16_rtz, f32_to_f16_rtz, f64_to_f32_rtz, f64_to_fp8, fp8_to_f32, UnaryFn,
};

/// Integer storage types, signless: signedness comes from the op.
pub trait Int: Copy + Eq + Ord + Default + Send + Sync + 'static {
    /// Bit width.
    const BITS: u32;
    /// Sign-extended value.
    fn to_i64(self) -> i64;
    /// Zero-extended bits.
    fn to_u64(self) -> u64;
    /// Truncating conversion.
    fn from_i64(v: i64) -> Self;
    /// Wrapping add.
    fn wadd(self, o: Self) -> Self;
    /// Wrapping sub.
    fn wsub(self, o: Self) -> Self;
    /// Wrapping mul.
    fn wmul(self, o: Self) -> Self;
}

macro_rules! int_impl {
    ($($t:ty => $u:ty),*) => {$(
        impl Int for $t {
            const BITS: u32 = <$t>::BITS;
            fn to_i64(self) -> i64 { self as i64 }
            fn to_u64(self) -> u64 { self as $u as u64 }
            fn from_i64(v: i64) -> Self { v as $t }
            fn wadd(self, o: Self) -> Self { self.wrapping_add(o) }
            fn wsub(self, o: Self) -> Self { self.wrapping_sub(o) }
            fn wmul(self, o: Self) -> Self { self.wrapping_mul(o) }
        }
    )*};
}
int_impl!(i8 => u8, i16 => u16, i32 => u32, i64 => u64);

fn zip<A: Copy, B: Copy, R>(a: &[A], b: &[B], f: impl Fn(A, B) -> R) -> Vec<R> {
    a.iter().zip(b).map(|(&x, &y)| f(x, y)).collect()
}

fn int_binary<T: Int>(op: BinaryOp, a: &[T], b: &[T]) -> RtResult<Vec<T>> {
    use BinaryOp::*;
    let bits = T::BITS as u64;
    let mask = if bits == 64 {
        u64::MAX
    } else {
        (1u64 << bits) - 1
    };
    let min = T::from_i64(i64::MIN >> (64 - bits));
    let neg1 = T::from_i64(-1);
    Ok(match op {
        AddI => zip(a, b, T::wadd),
        SubI => zip(a, b, T::wsub),
        MulI => zip(a, b, T::wmul),
        // Division by zero is unspecified on the GPU; -1 / the dividend are what the
        // hardware's unsigned division produces, and keep masked-off lanes harmless.
        DivSI => zip(a, b, |x, y| {
            if y == T::default() {
                neg1
            } else if x == min && y == neg1 {
                min
            } else {
                T::from_i64(x.to_i64() / y.to_i64())
            }
        }),
        RemSI => zip(a, b, |x, y| {
            if y == T::default() {
                x
            } else if y == neg1 {
                T::default()
            } else {
                T::from_i64(x.to_i64() % y.to_i64())
            }
        }),
        DivUI => zip(a, b, |x, y| {
            if y == T::default() {
                neg1
            } else {
                T::from_i64((x.to_u64() / y.to_u64()) as i64)
            }
        }),
        RemUI => zip(a, b, |x, y| {
            if y == T::default() {
                x
            } else {
                T::from_i64((x.to_u64() % y.to_u64()) as i64)
            }
        }),
        AndI => zip(a, b, |x, y| T::from_i64(x.to_i64() & y.to_i64())),
        OrI => zip(a, b, |x, y| T::from_i64(x.to_i64() | y.to_i64())),
        XOrI => zip(a, b, |x, y| T::from_i64(x.to_i64() ^ y.to_i64())),
        // Shift amounts >= the width give 0 (or the sign) as PTX's clamped shifts do.
        ShLI => zip(a, b, |x, y| {
            let s = y.to_u64();
            if s >= bits {
                T::default()
            } else {
                T::from_i64(((x.to_u64() << s) & mask) as i64)
            }
        }),
        ShRUI => zip(a, b, |x, y| {
            let s = y.to_u64();
            if s >= bits {
                T::default()
            } else {
                T::from_i64((x.to_u64() >> s) as i64)
            }
        }),
        ShRSI => zip(a, b, |x, y| {
            let s = y.to_u64().min(bits - 1);
            T::from_i64(x.to_i64() >> s)
        }),
        MaxSI => zip(a, b, |x, y| if x.to_i64() >= y.to_i64() { x } else { y }),
        MinSI => zip(a, b, |x, y| if x.to_i64() <= y.to_i64() { x } else { y }),
        MaxUI => zip(a, b, |x, y| if x.to_u64() >= y.to_u64() { x } else { y }),
        MinUI => zip(a, b, |x, y| if x.to_u64() <= y.to_u64() { x } else { y }),
        other => return Err(RuntimeError::unsupported(format!("`{other}` on integers"))),
    })
}

fn bool_binary(op: BinaryOp, a: &[bool], b: &[bool]) -> RtResult<Vec<bool>> {
    use BinaryOp::*;
    Ok(match op {
        AndI | MulI | MinUI | MaxSI => zip(a, b, |x, y| x & y),
        OrI | MaxUI | MinSI => zip(a, b, |x, y| x | y),
        XOrI | AddI | SubI => zip(a, b, |x, y| x ^ y),
        other => return Err(RuntimeError::unsupported(format!("`{other}` on i1"))),
    })
}

/// Float storage types computed natively.
pub trait Flt: Copy + PartialOrd + Send + Sync + 'static {
    /// Converts from f64 (rounding to nearest).
    fn from_f64(v: f64) -> Self;
    /// Widens to f64.
    fn to_f64(self) -> f64;
    /// `a op b`.
    fn arith(op: BinaryOp, a: Self, b: Self) -> Self;
    /// Whether NaN.
    fn nan(self) -> bool;
    /// Sign bit.
    fn neg(self) -> bool;
    /// The quiet NaN.
    const NAN: Self;
}

macro_rules! flt_impl {
    ($($t:ty),*) => {$(
        impl Flt for $t {
            fn from_f64(v: f64) -> Self { v as $t }
            fn to_f64(self) -> f64 { self as f64 }
            #[inline]
            fn arith(op: BinaryOp, a: Self, b: Self) -> Self {
                match op {
                    BinaryOp::AddF => a + b,
                    BinaryOp::SubF => a - b,
                    BinaryOp::MulF => a * b,
                    BinaryOp::DivF => a / b,
                    BinaryOp::RemF => a % b,
                    _ => unreachable!("only arithmetic ops reach Flt::arith"),
                }
            }
            fn nan(self) -> bool { self.is_nan() }
            fn neg(self) -> bool { self.is_sign_negative() }
            const NAN: Self = <$t>::NAN;
        }
    )*};
}
flt_impl!(f32, f64);

/// IEEE maxNum with -0 < +0: NaN loses to a number.
#[inline]
pub fn max_num<T: Flt>(a: T, b: T) -> T {
    if a.nan() {
        b
    } else if b.nan() {
        a
    } else {
        maximum_non_nan(a, b)
    }
}

/// IEEE minNum with -0 < +0.
#[inline]
pub fn min_num<T: Flt>(a: T, b: T) -> T {
    if a.nan() {
        b
    } else if b.nan() {
        a
    } else {
        minimum_non_nan(a, b)
    }
}

#[inline]
fn maximum_non_nan<T: Flt>(a: T, b: T) -> T {
    // Equal values differ only for zeros: -0 < +0.
    if a > b || (a == b && !a.neg()) {
        a
    } else {
        b
    }
}

#[inline]
fn minimum_non_nan<T: Flt>(a: T, b: T) -> T {
    if a < b || (a == b && a.neg()) {
        a
    } else {
        b
    }
}

/// IEEE maximum: NaN propagates.
#[inline]
pub fn maximum<T: Flt>(a: T, b: T) -> T {
    if a.nan() || b.nan() {
        T::NAN
    } else {
        maximum_non_nan(a, b)
    }
}

/// IEEE minimum: NaN propagates.
#[inline]
pub fn minimum<T: Flt>(a: T, b: T) -> T {
    if a.nan() || b.nan() {
        T::NAN
    } else {
        minimum_non_nan(a, b)
    }
}

fn float_binary<T: Flt>(op: BinaryOp, a: &[T], b: &[T]) -> RtResult<Vec<T>> {
    use BinaryOp::*;
    Ok(match op {
        AddF => zip(a, b, |x, y| T::arith(AddF, x, y)),
        SubF => zip(a, b, |x, y| T::arith(SubF, x, y)),
        MulF => zip(a, b, |x, y| T::arith(MulF, x, y)),
        DivF => zip(a, b, |x, y| T::arith(DivF, x, y)),
        RemF => zip(a, b, |x, y| T::arith(RemF, x, y)),
        MaxNumF => zip(a, b, max_num),
        MinNumF => zip(a, b, min_num),
        MaximumF => zip(a, b, maximum),
        MinimumF => zip(a, b, minimum),
        other => return Err(RuntimeError::unsupported(format!("`{other}` on floats"))),
    })
}

/// Widens any float storage to f32 (exact for 16- and 8-bit floats).
pub fn to_f32_vec(d: &Data) -> Option<Vec<f32>> {
    Some(match d {
        Data::F16(v) => v.iter().map(|x| x.to_f32()).collect(),
        Data::BF16(v) => v.iter().map(|x| x.to_f32()).collect(),
        Data::F32(v) => v.clone(),
        Data::F8(k, v) => v.iter().map(|&x| fp8_to_f32(x, *k)).collect(),
        _ => return None,
    })
}

/// Rounds f32s to the storage of `like` (a 16- or 8-bit float), to nearest even.
fn from_f32_like(v: Vec<f32>, like: &Data) -> Data {
    match like {
        Data::F16(_) => Data::F16(v.into_iter().map(f16::from_f32).collect()),
        Data::BF16(_) => Data::BF16(v.into_iter().map(bf16::from_f32).collect()),
        Data::F8(k, _) => Data::F8(
            *k,
            v.into_iter()
                .map(|x| f64_to_fp8(x as f64, *k, true))
                .collect(),
        ),
        _ => Data::F32(v),
    }
}

/// Makes `a` and `b` the same length when one of them has a single element (constants
/// inside combiner regions meet vectors of rows).
pub fn equalize<'d>(
    a: &'d Data,
    b: &'d Data,
) -> (std::borrow::Cow<'d, Data>, std::borrow::Cow<'d, Data>) {
    use std::borrow::Cow;
    match (a.len(), b.len()) {
        (x, y) if x == y => (Cow::Borrowed(a), Cow::Borrowed(b)),
        (1, y) => (Cow::Owned(a.repeat_elem(0, y)), Cow::Borrowed(b)),
        (x, 1) => (Cow::Borrowed(a), Cow::Owned(b.repeat_elem(0, x))),
        _ => (Cow::Borrowed(a), Cow::Borrowed(b)),
    }
}

/// `a op b`, elementwise.
pub fn binary(op: BinaryOp, a: &Data, b: &Data) -> RtResult<Data> {
    let (a, b) = equalize(a, b);
    let (a, b) = (a.as_ref(), b.as_ref());
    Ok(match (a, b) {
        (Data::Bool(x), Data::Bool(y)) => Data::Bool(bool_binary(op, x, y)?),
        (Data::I8(x), Data::I8(y)) => Data::I8(int_binary(op, x, y)?),
        (Data::I16(x), Data::I16(y)) => Data::I16(int_binary(op, x, y)?),
        (Data::I32(x), Data::I32(y)) => Data::I32(int_binary(op, x, y)?),
        (Data::I64(x), Data::I64(y)) => Data::I64(int_binary(op, x, y)?),
        (Data::F32(x), Data::F32(y)) => Data::F32(float_binary(op, x, y)?),
        (Data::F64(x), Data::F64(y)) => Data::F64(float_binary(op, x, y)?),
        (Data::F16(_), Data::F16(_))
        | (Data::BF16(_), Data::BF16(_))
        | (Data::F8(..), Data::F8(..)) => {
            let x = to_f32_vec(a).expect("16/8-bit float storage");
            let y = to_f32_vec(b).expect("16/8-bit float storage");
            from_f32_like(float_binary(op, &x, &y)?, a)
        }
        _ => {
            return Err(RuntimeError::unsupported(format!(
                "`{op}` on mismatched operands"
            )))
        }
    })
}

fn cmp_int<T: Int>(pred: CmpIPredicate, a: &[T], b: &[T]) -> Vec<bool> {
    use CmpIPredicate::*;
    match pred {
        Eq => zip(a, b, |x, y| x == y),
        Ne => zip(a, b, |x, y| x != y),
        Slt => zip(a, b, |x, y| x.to_i64() < y.to_i64()),
        Sle => zip(a, b, |x, y| x.to_i64() <= y.to_i64()),
        Sgt => zip(a, b, |x, y| x.to_i64() > y.to_i64()),
        Sge => zip(a, b, |x, y| x.to_i64() >= y.to_i64()),
        Ult => zip(a, b, |x, y| x.to_u64() < y.to_u64()),
        Ule => zip(a, b, |x, y| x.to_u64() <= y.to_u64()),
        Ugt => zip(a, b, |x, y| x.to_u64() > y.to_u64()),
        Uge => zip(a, b, |x, y| x.to_u64() >= y.to_u64()),
    }
}

/// `arith.cmpi`.
pub fn cmpi(pred: CmpIPredicate, a: &Data, b: &Data) -> RtResult<Data> {
    let (a, b) = equalize(a, b);
    Ok(Data::Bool(match (a.as_ref(), b.as_ref()) {
        (Data::Bool(x), Data::Bool(y)) => {
            let x: Vec<i8> = x.iter().map(|&v| -(v as i8)).collect();
            let y: Vec<i8> = y.iter().map(|&v| -(v as i8)).collect();
            cmp_int(pred, &x, &y)
        }
        (Data::I8(x), Data::I8(y)) => cmp_int(pred, x, y),
        (Data::I16(x), Data::I16(y)) => cmp_int(pred, x, y),
        (Data::I32(x), Data::I32(y)) => cmp_int(pred, x, y),
        (Data::I64(x), Data::I64(y)) => cmp_int(pred, x, y),
        (Data::Ptr(x), Data::Ptr(y)) => {
            let x: Vec<i64> = x.iter().map(|&v| v as i64).collect();
            let y: Vec<i64> = y.iter().map(|&v| v as i64).collect();
            cmp_int(pred, &x, &y)
        }
        _ => return Err(RuntimeError::unsupported("`arith.cmpi` on these operands")),
    }))
}

fn cmp_float<T: Flt>(pred: CmpFPredicate, a: &[T], b: &[T]) -> Vec<bool> {
    use CmpFPredicate::*;
    let uno = |x: T, y: T| x.nan() || y.nan();
    match pred {
        Oeq => zip(a, b, |x, y| x == y),
        Ogt => zip(a, b, |x, y| x > y),
        Oge => zip(a, b, |x, y| x >= y),
        Olt => zip(a, b, |x, y| x < y),
        Ole => zip(a, b, |x, y| x <= y),
        One => zip(a, b, |x, y| !uno(x, y) && x != y),
        Ord => zip(a, b, |x, y| !uno(x, y)),
        Ueq => zip(a, b, |x, y| uno(x, y) || x == y),
        Ugt => zip(a, b, |x, y| uno(x, y) || x > y),
        Uge => zip(a, b, |x, y| uno(x, y) || x >= y),
        Ult => zip(a, b, |x, y| uno(x, y) || x < y),
        Ule => zip(a, b, |x, y| uno(x, y) || x <= y),
        Une => zip(a, b, |x, y| x != y),
        Uno => zip(a, b, uno),
    }
}

/// `arith.cmpf`.
pub fn cmpf(pred: CmpFPredicate, a: &Data, b: &Data) -> RtResult<Data> {
    let (a, b) = equalize(a, b);
    let (a, b) = (a.as_ref(), b.as_ref());
    Ok(Data::Bool(match (a, b) {
        (Data::F32(x), Data::F32(y)) => cmp_float(pred, x, y),
        (Data::F64(x), Data::F64(y)) => cmp_float(pred, x, y),
        _ => match (to_f32_vec(a), to_f32_vec(b)) {
            (Some(x), Some(y)) => cmp_float(pred, &x, &y),
            _ => return Err(RuntimeError::unsupported("`arith.cmpf` on these operands")),
        },
    }))
}

/// `arith.select`: `c ? a : b` per element (a scalar condition selects whole values).
pub fn select(c: &Data, a: &Data, b: &Data) -> RtResult<Data> {
    let Data::Bool(c) = c else {
        return Err(RuntimeError::unsupported("a non-i1 select condition"));
    };
    if c.len() == 1 && a.len() != 1 {
        return Ok(if c[0] { a.clone() } else { b.clone() });
    }
    let (a, b) = equalize(a, b);
    macro_rules! sel {
        ($($var:ident),*) => {
            match (a.as_ref(), b.as_ref()) {
                $((Data::$var(x), Data::$var(y)) => Data::$var(
                    c.iter().zip(x.iter().zip(y)).map(|(&c, (&x, &y))| if c { x } else { y }).collect()
                ),)*
                (Data::F8(k, x), Data::F8(_, y)) => Data::F8(*k,
                    c.iter().zip(x.iter().zip(y)).map(|(&c, (&x, &y))| if c { x } else { y }).collect()),
                _ => return Err(RuntimeError::unsupported("`arith.select` on mismatched operands")),
            }
        };
    }
    Ok(sel!(Bool, I8, I16, I32, I64, F16, BF16, F32, F64, Ptr))
}

/// Integer storage widened to i64 with sign or zero extension.
fn int_to_i64_vec(d: &Data, signed: bool) -> Option<Vec<i64>> {
    fn ext<T: Int>(v: &[T], signed: bool) -> Vec<i64> {
        if signed {
            v.iter().map(|x| x.to_i64()).collect()
        } else {
            v.iter().map(|x| x.to_u64() as i64).collect()
        }
    }
    Some(match d {
        Data::Bool(v) => v
            .iter()
            .map(|&b| if b && signed { -1 } else { b as i64 })
            .collect(),
        Data::I8(v) => ext(v, signed),
        Data::I16(v) => ext(v, signed),
        Data::I32(v) => ext(v, signed),
        Data::I64(v) => ext(v, signed),
        Data::Ptr(v) => v.iter().map(|&p| p as i64).collect(),
        _ => return None,
    })
}

/// i64s truncated to the storage of `dst`.
fn int_from_i64_vec(v: Vec<i64>, dst: DType) -> Data {
    match storage_of(dst) {
        Storage::Bool => Data::Bool(v.into_iter().map(|x| x & 1 != 0).collect()),
        Storage::I8 => Data::I8(v.into_iter().map(|x| x as i8).collect()),
        Storage::I16 => Data::I16(v.into_iter().map(|x| x as i16).collect()),
        Storage::I32 => Data::I32(v.into_iter().map(|x| x as i32).collect()),
        _ => Data::I64(v),
    }
}

/// Any float storage widened to f64 (exact).
pub fn to_f64_vec(d: &Data) -> Option<Vec<f64>> {
    Some(match d {
        Data::F64(v) => v.clone(),
        Data::F32(v) => v.iter().map(|&x| x as f64).collect(),
        _ => to_f32_vec(d)?.into_iter().map(|x| x as f64).collect(),
    })
}

/// f64s rounded once to float dtype `dst` with `mode`.
pub fn float_from_f64_vec(v: &[f64], dst: DType, mode: RoundingMode) -> RtResult<Data> {
    let rtz = mode == RoundingMode::Rtz;
    Ok(match storage_of(dst) {
        Storage::F64 => Data::F64(v.to_vec()),
        Storage::F32 if rtz => Data::F32(v.iter().map(|&x| f64_to_f32_rtz(x)).collect()),
        Storage::F32 => Data::F32(v.iter().map(|&x| x as f32).collect()),
        // f64 -> f32 -> f16 could double-round, so directed rounding goes through an
        // exact f32 only when the value is one; `half`'s from_f64 rounds directly.
        Storage::F16 if rtz => Data::F16(
            v.iter()
                .map(|&x| f32_to_f16_rtz(f64_to_f32_rtz(x)))
                .collect(),
        ),
        Storage::F16 => Data::F16(v.iter().map(|&x| f16::from_f64(x)).collect()),
        Storage::BF16 if rtz => Data::BF16(
            v.iter()
                .map(|&x| f32_to_bf16_rtz(f64_to_f32_rtz(x)))
                .collect(),
        ),
        Storage::BF16 => Data::BF16(v.iter().map(|&x| bf16::from_f64(x)).collect()),
        Storage::F8(k) => Data::F8(k, v.iter().map(|&x| f64_to_fp8(x, k, !rtz)).collect()),
        _ => {
            return Err(RuntimeError::unsupported(format!(
                "a float cast to `{dst}`"
            )))
        }
    })
}

/// f64s converted to integer dtype `dst`, truncating toward zero and saturating (NaN
/// gives 0), as PTX's `cvt.rzi` does.
fn float_to_int(v: &[f64], dst: DType, signed: bool) -> Data {
    macro_rules! conv {
        ($var:ident, $s:ty, $u:ty) => {
            Data::$var(
                v.iter()
                    .map(|&x| if signed { x as $s } else { x as $u as $s })
                    .collect(),
            )
        };
    }
    match storage_of(dst) {
        Storage::Bool => Data::Bool(v.iter().map(|&x| x != 0.0).collect()),
        Storage::I8 => conv!(I8, i8, u8),
        Storage::I16 => conv!(I16, i16, u16),
        Storage::I32 => conv!(I32, i32, u32),
        _ => conv!(I64, i64, u64),
    }
}

/// A cast from `src` (elements of dtype `from`) to dtype `to`.
pub fn cast(op: CastOp, rounding: Option<RoundingMode>, src: &Data, to: DType) -> RtResult<Data> {
    use CastOp::*;
    let mode = rounding.unwrap_or(RoundingMode::Rtne);
    let bad = || RuntimeError::unsupported(format!("`{op}` from this operand to `{to}`"));
    Ok(match op {
        ExtSI | ExtUI | TruncI => {
            let v = int_to_i64_vec(src, op != ExtUI).ok_or_else(bad)?;
            int_from_i64_vec(v, to)
        }
        SIToFP | UIToFP => {
            let signed = op == SIToFP;
            let v = int_to_i64_vec(src, signed).ok_or_else(bad)?;
            match storage_of(to) {
                Storage::F32 if signed => Data::F32(v.iter().map(|&x| x as f32).collect()),
                Storage::F32 => Data::F32(v.iter().map(|&x| x as u64 as f32).collect()),
                _ => {
                    // i64 -> f64 is exact below 2^53; wider values round twice, which only
                    // matters for 64-bit sources into f16/bf16 (overflowing anyway).
                    let f: Vec<f64> = if signed {
                        v.iter().map(|&x| x as f64).collect()
                    } else {
                        v.iter().map(|&x| x as u64 as f64).collect()
                    };
                    float_from_f64_vec(&f, to, RoundingMode::Rtne)?
                }
            }
        }
        FPToSI | FPToUI => {
            let f = to_f64_vec(src).ok_or_else(bad)?;
            float_to_int(&f, to, op == FPToSI)
        }
        ExtF | TruncF => match (src, storage_of(to)) {
            (Data::F16(v), Storage::F32) => Data::F32(v.iter().map(|x| x.to_f32()).collect()),
            (Data::BF16(v), Storage::F32) => Data::F32(v.iter().map(|x| x.to_f32()).collect()),
            (Data::F32(v), Storage::F16) if mode == RoundingMode::Rtne => {
                Data::F16(v.iter().map(|&x| f16::from_f32(x)).collect())
            }
            (Data::F32(v), Storage::BF16) if mode == RoundingMode::Rtne => {
                Data::BF16(v.iter().map(|&x| bf16::from_f32(x)).collect())
            }
            (Data::F32(v), Storage::F16) => {
                Data::F16(v.iter().map(|&x| f32_to_f16_rtz(x)).collect())
            }
            (Data::F32(v), Storage::BF16) => {
                Data::BF16(v.iter().map(|&x| f32_to_bf16_rtz(x)).collect())
            }
            _ => float_from_f64_vec(&to_f64_vec(src).ok_or_else(bad)?, to, mode)?,
        },
        Bitcast => bitcast(src, to).ok_or_else(bad)?,
    })
}

/// `tt.fp_to_fp`: conversions involving fp8 (and any float pair).
pub fn fp_to_fp(src: &Data, to: DType, rounding: Option<RoundingMode>) -> RtResult<Data> {
    let v = to_f64_vec(src)
        .ok_or_else(|| RuntimeError::unsupported("`tt.fp_to_fp` from a non-float"))?;
    float_from_f64_vec(&v, to, rounding.unwrap_or(RoundingMode::Rtne))
}

/// Reinterprets bits at equal width.
fn bitcast(src: &Data, to: DType) -> Option<Data> {
    let dst = storage_of(to);
    Some(match (src, dst) {
        (Data::F32(v), Storage::I32) => Data::I32(v.iter().map(|x| x.to_bits() as i32).collect()),
        (Data::I32(v), Storage::F32) => {
            Data::F32(v.iter().map(|&x| f32::from_bits(x as u32)).collect())
        }
        (Data::F64(v), Storage::I64) => Data::I64(v.iter().map(|x| x.to_bits() as i64).collect()),
        (Data::I64(v), Storage::F64) => {
            Data::F64(v.iter().map(|&x| f64::from_bits(x as u64)).collect())
        }
        (Data::F16(v), Storage::I16) => Data::I16(v.iter().map(|x| x.to_bits() as i16).collect()),
        (Data::BF16(v), Storage::I16) => Data::I16(v.iter().map(|x| x.to_bits() as i16).collect()),
        (Data::I16(v), Storage::F16) => {
            Data::F16(v.iter().map(|&x| f16::from_bits(x as u16)).collect())
        }
        (Data::I16(v), Storage::BF16) => {
            Data::BF16(v.iter().map(|&x| bf16::from_bits(x as u16)).collect())
        }
        (Data::F16(v), Storage::BF16) => {
            Data::BF16(v.iter().map(|x| bf16::from_bits(x.to_bits())).collect())
        }
        (Data::BF16(v), Storage::F16) => {
            Data::F16(v.iter().map(|x| f16::from_bits(x.to_bits())).collect())
        }
        (Data::F8(_, v), Storage::I8) => Data::I8(v.iter().map(|&x| x as i8).collect()),
        (Data::I8(v), Storage::F8(k)) => Data::F8(k, v.iter().map(|&x| x as u8).collect()),
        (Data::F8(_, v), Storage::F8(k)) => Data::F8(k, v.clone()),
        (d, s) if same_storage(d, s) => d.clone(),
        _ => return None,
    })
}

fn same_storage(d: &Data, s: Storage) -> bool {
    matches!(
        (d, s),
        (Data::Bool(_), Storage::Bool)
            | (Data::I8(_), Storage::I8)
            | (Data::I16(_), Storage::I16)
            | (Data::I32(_), Storage::I32)
            | (Data::I64(_), Storage::I64)
            | (Data::F16(_), Storage::F16)
            | (Data::BF16(_), Storage::BF16)
            | (Data::F32(_), Storage::F32)
            | (Data::F64(_), Storage::F64)
    )
}

/// Applies a float function elementwise, rounding once to the operand's type.
pub fn unary_float(f: UnaryFn, a: &Data) -> RtResult<Data> {
    Ok(match a {
        Data::F32(v) => Data::F32(v.iter().map(|&x| f.eval_f32(x)).collect()),
        Data::F64(v) => Data::F64(v.iter().map(|&x| f.eval(x)).collect()),
        _ => {
            let v = to_f64_vec(a).ok_or_else(|| {
                RuntimeError::unsupported(format!("`{f:?}` on a non-float operand"))
            })?;
            let r: Vec<f32> = v.iter().map(|&x| f.eval(x) as f32).collect();
            // 16-bit results: round the f64 value once, not through f32.
            match a {
                Data::F16(_) => Data::F16(v.iter().map(|&x| f16::from_f64(f.eval(x))).collect()),
                Data::BF16(_) => Data::BF16(v.iter().map(|&x| bf16::from_f64(f.eval(x))).collect()),
                _ => from_f32_like(r, a),
            }
        }
    })
}

/// `math.*` unary ops.
pub fn math(op: MathOp, a: &Data) -> RtResult<Data> {
    use MathOp::*;
    // fp32 `math.exp2` is `ex2.approx.ftz.f32` on the GPU (Triton's lowering; `math.exp`
    // is not): a result below the smallest normal number is flushed to +0.
    if let (Exp2, Data::F32(v)) = (op, a) {
        return Ok(Data::F32(
            v.iter()
                .map(|&x| {
                    let r = UnaryFn::Exp2.eval_f32(x);
                    if r.is_subnormal() {
                        0.0
                    } else {
                        r
                    }
                })
                .collect(),
        ));
    }
    let f = match op {
        Exp => UnaryFn::Exp,
        Exp2 => UnaryFn::Exp2,
        Log => UnaryFn::Log,
        Log2 => UnaryFn::Log2,
        Sin => UnaryFn::Sin,
        Cos => UnaryFn::Cos,
        Sqrt => UnaryFn::Sqrt,
        Rsqrt => UnaryFn::Rsqrt,
        Erf => UnaryFn::Erf,
        Floor => UnaryFn::Floor,
        Ceil => UnaryFn::Ceil,
        AbsF => UnaryFn::Abs,
        AbsI => {
            return match a {
                Data::I8(v) => Ok(Data::I8(v.iter().map(|x| x.wrapping_abs()).collect())),
                Data::I16(v) => Ok(Data::I16(v.iter().map(|x| x.wrapping_abs()).collect())),
                Data::I32(v) => Ok(Data::I32(v.iter().map(|x| x.wrapping_abs()).collect())),
                Data::I64(v) => Ok(Data::I64(v.iter().map(|x| x.wrapping_abs()).collect())),
                _ => Err(RuntimeError::unsupported("`math.absi` on a non-integer")),
            }
        }
    };
    unary_float(f, a)
}

/// `math.fma`: one rounding of `a * b + c`.
pub fn fma(a: &Data, b: &Data, c: &Data) -> RtResult<Data> {
    Ok(match (a, b, c) {
        (Data::F32(x), Data::F32(y), Data::F32(z)) => Data::F32(
            x.iter()
                .zip(y)
                .zip(z)
                .map(|((&x, &y), &z)| x.mul_add(y, z))
                .collect(),
        ),
        (Data::F64(x), Data::F64(y), Data::F64(z)) => Data::F64(
            x.iter()
                .zip(y)
                .zip(z)
                .map(|((&x, &y), &z)| x.mul_add(y, z))
                .collect(),
        ),
        _ => {
            // 16-bit: the product is exact in f64 and the sum rounds once to f64 first;
            // the error of that first rounding is far below half an f16/bf16 ulp.
            let bad = || RuntimeError::unsupported("`math.fma` on these operands");
            let (x, y, z) = (
                to_f64_vec(a).ok_or_else(bad)?,
                to_f64_vec(b).ok_or_else(bad)?,
                to_f64_vec(c).ok_or_else(bad)?,
            );
            let r: Vec<f64> = x
                .iter()
                .zip(&y)
                .zip(&z)
                .map(|((&x, &y), &z)| x.mul_add(y, z))
                .collect();
            let dt = match a {
                Data::F16(_) => DType::F16,
                Data::BF16(_) => DType::BF16,
                _ => return Err(bad()),
            };
            float_from_f64_vec(&r, dt, RoundingMode::Rtne)?
        }
    })
}

/// `tt.mulhiui`: the high half of the unsigned product.
pub fn mulhiui(a: &Data, b: &Data) -> RtResult<Data> {
    Ok(match (a, b) {
        (Data::I32(x), Data::I32(y)) => Data::I32(zip(x, y, |x, y| {
            ((x as u32 as u64 * y as u32 as u64) >> 32) as i32
        })),
        (Data::I64(x), Data::I64(y)) => Data::I64(zip(x, y, |x, y| {
            ((x as u64 as u128 * y as u64 as u128) >> 64) as i64
        })),
        _ => return Err(RuntimeError::unsupported("`tt.mulhiui` on these operands")),
    })
}

/// `tt.clampf x, lo, hi`: `min(max(x, lo), hi)` with maxnum/minnum, or NaN-propagating.
pub fn clampf(x: &Data, lo: &Data, hi: &Data, propagate_nan: bool) -> RtResult<Data> {
    let (mx, mn) = if propagate_nan {
        (BinaryOp::MaximumF, BinaryOp::MinimumF)
    } else {
        (BinaryOp::MaxNumF, BinaryOp::MinNumF)
    };
    binary(mn, &binary(mx, x, lo)?, hi)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn integer_division_truncates_toward_zero() {
        let a = Data::I32(vec![-7, 7, -7, 7, i32::MIN]);
        let b = Data::I32(vec![2, -2, -2, 2, -1]);
        assert_eq!(
            binary(BinaryOp::DivSI, &a, &b).unwrap(),
            Data::I32(vec![-3, -3, 3, 3, i32::MIN])
        );
        assert_eq!(
            binary(BinaryOp::RemSI, &a, &b).unwrap(),
            Data::I32(vec![-1, 1, -1, 1, 0])
        );
        // u32 bits: 0xFFFFFFFF / 2.
        let u = binary(BinaryOp::DivUI, &Data::I32(vec![-1]), &Data::I32(vec![2])).unwrap();
        assert_eq!(u, Data::I32(vec![0x7fff_ffff]));
    }

    #[test]
    fn integer_arithmetic_wraps() {
        let a = Data::I32(vec![i32::MAX, 100_000]);
        let b = Data::I32(vec![1, 100_000]);
        assert_eq!(
            binary(BinaryOp::AddI, &a, &b).unwrap(),
            Data::I32(vec![i32::MIN, 200_000])
        );
        assert_eq!(
            binary(BinaryOp::MulI, &a, &b).unwrap(),
            Data::I32(vec![i32::MAX, 1_410_065_408])
        );
    }

    #[test]
    fn une_is_true_for_nan() {
        let a = Data::F32(vec![f32::NAN, 1.0, 1.0]);
        let b = Data::F32(vec![f32::NAN, 1.0, 2.0]);
        assert_eq!(
            cmpf(CmpFPredicate::Une, &a, &b).unwrap(),
            Data::Bool(vec![true, false, true])
        );
        assert_eq!(
            cmpf(CmpFPredicate::One, &a, &b).unwrap(),
            Data::Bool(vec![false, false, true])
        );
    }

    #[test]
    fn maxnum_versus_maximum() {
        let a = Data::F32(vec![f32::NAN, -0.0, 3.0]);
        let b = Data::F32(vec![1.0, 0.0, f32::NAN]);
        let Data::F32(n) = binary(BinaryOp::MaxNumF, &a, &b).unwrap() else {
            panic!()
        };
        assert_eq!(n[0], 1.0);
        assert!(n[1] == 0.0 && !n[1].is_sign_negative());
        assert_eq!(n[2], 3.0);
        let Data::F32(m) = binary(BinaryOp::MaximumF, &a, &b).unwrap() else {
            panic!()
        };
        assert!(m[0].is_nan() && m[2].is_nan());
    }

    #[test]
    fn fp16_arithmetic_rounds_to_fp16() {
        // 2048 + 1 is not representable in f16: ties to even gives 2048.
        let a = Data::F16(vec![f16::from_f32(2048.0), f16::from_f32(2048.0)]);
        let b = Data::F16(vec![f16::from_f32(1.0), f16::from_f32(3.0)]);
        let Data::F16(r) = binary(BinaryOp::AddF, &a, &b).unwrap() else {
            panic!()
        };
        assert_eq!(r[0].to_f32(), 2048.0);
        assert_eq!(r[1].to_f32(), 2052.0);
    }

    #[test]
    fn casts_round_and_saturate() {
        let x = Data::F32(vec![1.5, -1e10, f32::NAN, 2.7]);
        assert_eq!(
            cast(CastOp::FPToSI, None, &x, DType::I32).unwrap(),
            Data::I32(vec![1, i32::MIN, 0, 2])
        );
        let Data::F16(h) = cast(
            CastOp::TruncF,
            None,
            &Data::F32(vec![1e6, 1.0 / 3.0]),
            DType::F16,
        )
        .unwrap() else {
            panic!()
        };
        assert!(h[0].is_infinite());
        assert_eq!(h[1].to_bits(), 0x3555);
        let Data::F16(h) = cast(
            CastOp::TruncF,
            Some(RoundingMode::Rtz),
            &Data::F32(vec![1e6]),
            DType::F16,
        )
        .unwrap() else {
            panic!()
        };
        assert_eq!(h[0].to_f32(), 65504.0);
        assert_eq!(
            cast(CastOp::ExtSI, None, &Data::Bool(vec![true]), DType::I32).unwrap(),
            Data::I32(vec![-1])
        );
        assert_eq!(
            cast(CastOp::ExtUI, None, &Data::I8(vec![-1]), DType::I32).unwrap(),
            Data::I32(vec![255])
        );
    }

    #[test]
    fn mulhiui_is_the_high_word() {
        let r = mulhiui(
            &Data::I32(vec![-1, 0x1234_5678]),
            &Data::I32(vec![-1, 0x10]),
        )
        .unwrap();
        assert_eq!(r, Data::I32(vec![-2, 0x1]));
    }

    #[test]
    fn fp32_exp2_flushes_subnormal_results_as_ex2_approx_ftz() {
        // 2^-126 is the smallest normal f32; 2^-127 and 2^-140 are subnormal: +0 on the
        // GPU's `ex2.approx.ftz.f32`. Normal results and special values are unchanged.
        let r = math(
            MathOp::Exp2,
            &Data::F32(vec![-126.0, -127.0, -140.0, 0.0, 3.0, f32::NEG_INFINITY]),
        )
        .unwrap();
        assert_eq!(
            r,
            Data::F32(vec![2f32.powi(-126), 0.0, 0.0, 1.0, 8.0, 0.0])
        );
        // `math.exp` keeps subnormals (`ex2.approx.f32`, no `.ftz`).
        let Data::F32(e) = math(MathOp::Exp, &Data::F32(vec![-88.0 - 7.0])).unwrap() else {
            panic!()
        };
        assert!(e[0] > 0.0 && e[0].is_subnormal(), "{e:?}");
    }
}
