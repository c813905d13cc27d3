//! `tt.dot`: `acc + a @ b` with a fixed accumulation order.
//!
//! Float inputs are widened exactly to f32 (fp32 inputs rounded to TF32 first under
//! `tf32`; `tf32x3` is treated as IEEE, which it approximates to a few fp32 ulps), then each output accumulates `acc = fma(a[i][k], b[k][j], acc)` for `k`
//! ascending, starting from the `acc` operand: the order of Triton's FMA lowering. Integer
//! inputs accumulate in wrapping i32.

use tritonc_ir::{DType, InputPrecision};

use crate::data::{Data, Val};
use crate::elementwise::{cast, to_f32_vec};
use crate::error::{RtResult, RuntimeError};
use crate::numerics::round_to_tf32;

/// `a @ b + acc` for rank-2 or batched rank-3 blocks; the result has dtype `to`.
pub fn dot(a: &Val, b: &Val, acc: &Val, precision: InputPrecision, to: DType) -> RtResult<Val> {
    let rank = a.shape.len();
    if rank != 2 && rank != 3 || b.shape.len() != rank {
        return Err(RuntimeError::unsupported(
            "`tt.dot` of rank other than 2 or 3",
        ));
    }
    let (batch, m, k) = if rank == 3 {
        (a.shape[0], a.shape[1], a.shape[2])
    } else {
        (1, a.shape[0], a.shape[1])
    };
    let n = b.shape[rank - 1];
    if b.shape[rank - 2] != k {
        return Err(RuntimeError::unsupported(
            "`tt.dot` with mismatched inner dims",
        ));
    }
    let is_int = matches!(a.data, Data::I8(_)) && matches!(b.data, Data::I8(_));
    let data = if is_int {
        let (Data::I8(x), Data::I8(y)) = (&a.data, &b.data) else {
            unreachable!("checked just above")
        };
        let mut c: Vec<i32> = match &acc.data {
            Data::I32(v) => v.clone(),
            _ => {
                return Err(RuntimeError::unsupported(
                    "an int dot without an i32 accumulator",
                ))
            }
        };
        for bi in 0..batch {
            for i in 0..m {
                for kk in 0..k {
                    let av = x[bi * m * k + i * k + kk] as i32;
                    let brow = &y[bi * k * n + kk * n..bi * k * n + (kk + 1) * n];
                    let crow = &mut c[bi * m * n + i * n..bi * m * n + (i + 1) * n];
                    for (cv, &bv) in crow.iter_mut().zip(brow) {
                        *cv = cv.wrapping_add(av.wrapping_mul(bv as i32));
                    }
                }
            }
        }
        Data::I32(c)
    } else {
        let widen = |d: &Data| -> RtResult<Vec<f32>> {
            let v = to_f32_vec(d)
                .ok_or_else(|| RuntimeError::unsupported("`tt.dot` of these operand types"))?;
            Ok(
                if matches!(d, Data::F32(_)) && precision == InputPrecision::Tf32 {
                    v.into_iter().map(round_to_tf32).collect()
                } else {
                    v
                },
            )
        };
        let (x, y) = (widen(&a.data)?, widen(&b.data)?);
        let mut c = to_f32_vec(&acc.data)
            .ok_or_else(|| RuntimeError::unsupported("`tt.dot` with this accumulator type"))?;
        for bi in 0..batch {
            for i in 0..m {
                let crow = &mut c[bi * m * n + i * n..bi * m * n + (i + 1) * n];
                for kk in 0..k {
                    let av = x[bi * m * k + i * k + kk];
                    let brow = &y[bi * k * n + kk * n..bi * k * n + (kk + 1) * n];
                    for (cv, &bv) in crow.iter_mut().zip(brow) {
                        *cv = av.mul_add(bv, *cv);
                    }
                }
            }
        }
        let c = Data::F32(c);
        if to == DType::F32 {
            c
        } else {
            cast(tritonc_ir::CastOp::TruncF, None, &c, to)?
        }
    };
    Ok(Val::new(acc.shape.clone(), data))
}
