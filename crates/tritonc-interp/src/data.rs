//! Runtime values: flat typed storage per block ([`Data`]) with a shape ([`Val`]).
//!
//! Integers are stored by width, signless, as MLIR's `arith` sees them: a `u32` lives in
//! an `i32` slot and ops that care about signedness (`divui`, `extui`, `uitofp`, `ult`)
//! reinterpret the bits. Each dtype gets its own vector so elementwise loops are
//! monomorphic and vectorize; a scalar is a value of shape `[]` holding one element.

use half::{bf16, f16};
use tritonc_ir::{ConstValue, DType, Elem, Type};

use crate::numerics::{f64_to_fp8, fp8_to_f32, Fp8Format};

/// The elements of a block (or the one element of a scalar), typed by storage.
#[derive(Debug, Clone, PartialEq)]
pub enum Data {
    /// `i1`.
    Bool(Vec<bool>),
    /// 8-bit integers (`i8`, `u8` as bits).
    I8(Vec<i8>),
    /// 16-bit integers.
    I16(Vec<i16>),
    /// 32-bit integers.
    I32(Vec<i32>),
    /// 64-bit integers.
    I64(Vec<i64>),
    /// IEEE half.
    F16(Vec<f16>),
    /// bfloat16.
    BF16(Vec<bf16>),
    /// IEEE single.
    F32(Vec<f32>),
    /// IEEE double.
    F64(Vec<f64>),
    /// An fp8 format, stored as its bit pattern.
    F8(Fp8Format, Vec<u8>),
    /// Pointers as flat addresses (see [`crate::memory`]).
    Ptr(Vec<u64>),
}

/// Applies `$body` to the vector inside any variant, binding it as `$v`.
macro_rules! with_vec {
    ($data:expr, $v:ident => $body:expr) => {
        match $data {
            Data::Bool($v) => $body,
            Data::I8($v) => $body,
            Data::I16($v) => $body,
            Data::I32($v) => $body,
            Data::I64($v) => $body,
            Data::F16($v) => $body,
            Data::BF16($v) => $body,
            Data::F32($v) => $body,
            Data::F64($v) => $body,
            Data::F8(_, $v) => $body,
            Data::Ptr($v) => $body,
        }
    };
}

/// Rebuilds the same variant from a vector computed from `$v` by `$body`.
macro_rules! map_vec {
    ($data:expr, $v:ident => $body:expr) => {
        match $data {
            Data::Bool($v) => Data::Bool($body),
            Data::I8($v) => Data::I8($body),
            Data::I16($v) => Data::I16($body),
            Data::I32($v) => Data::I32($body),
            Data::I64($v) => Data::I64($body),
            Data::F16($v) => Data::F16($body),
            Data::BF16($v) => Data::BF16($body),
            Data::F32($v) => Data::F32($body),
            Data::F64($v) => Data::F64($body),
            Data::F8(k, $v) => Data::F8(*k, $body),
            Data::Ptr($v) => Data::Ptr($body),
        }
    };
}

pub(crate) use map_vec;

impl Data {
    /// Number of elements.
    pub fn len(&self) -> usize {
        with_vec!(self, v => v.len())
    }

    /// Whether there are no elements.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// `n` copies of a constant of element type `elem`.
    pub fn splat_const(elem: Elem, value: ConstValue, n: usize) -> Data {
        let as_int = |v: ConstValue| match v {
            ConstValue::Int(i) => i,
            ConstValue::Float(f) => f as i128,
        };
        let as_f64 = |v: ConstValue| match v {
            ConstValue::Int(i) => i as f64,
            ConstValue::Float(f) => f,
        };
        match elem {
            Elem::Ptr(_) => Data::Ptr(vec![as_int(value) as u64; n]),
            Elem::DType(d) => match storage_of(d) {
                Storage::Bool => Data::Bool(vec![as_int(value) != 0; n]),
                Storage::I8 => Data::I8(vec![as_int(value) as i8; n]),
                Storage::I16 => Data::I16(vec![as_int(value) as i16; n]),
                Storage::I32 => Data::I32(vec![as_int(value) as i32; n]),
                Storage::I64 => Data::I64(vec![as_int(value) as i64; n]),
                Storage::F16 => Data::F16(vec![f16::from_f64(as_f64(value)); n]),
                Storage::BF16 => Data::BF16(vec![bf16::from_f64(as_f64(value)); n]),
                Storage::F32 => Data::F32(vec![as_f64(value) as f32; n]),
                Storage::F64 => Data::F64(vec![as_f64(value); n]),
                Storage::F8(k) => Data::F8(k, vec![f64_to_fp8(as_f64(value), k, true); n]),
            },
        }
    }

    /// `n` zeros of element type `elem`.
    pub fn zeros(elem: Elem, n: usize) -> Data {
        Data::splat_const(elem, ConstValue::Int(0), n)
    }

    /// The elements at `indices`, in that order.
    pub fn gather(&self, indices: &[usize]) -> Data {
        map_vec!(self, v => indices.iter().map(|&i| v[i]).collect())
    }

    /// `n` copies of element `i`.
    pub fn repeat_elem(&self, i: usize, n: usize) -> Data {
        map_vec!(self, v => vec![v[i]; n])
    }

    /// Element `i` widened to `f64` (ints as signed; pointers as addresses).
    pub fn get_f64(&self, i: usize) -> f64 {
        match self {
            Data::Bool(v) => v[i] as u8 as f64,
            Data::I8(v) => v[i] as f64,
            Data::I16(v) => v[i] as f64,
            Data::I32(v) => v[i] as f64,
            Data::I64(v) => v[i] as f64,
            Data::F16(v) => v[i].to_f64(),
            Data::BF16(v) => v[i].to_f64(),
            Data::F32(v) => v[i] as f64,
            Data::F64(v) => v[i],
            Data::F8(k, v) => fp8_to_f32(v[i], *k) as f64,
            Data::Ptr(v) => v[i] as f64,
        }
    }

    /// Element `i` as a signed 64-bit integer (floats truncate; pointers as addresses).
    pub fn get_i64(&self, i: usize) -> i64 {
        match self {
            Data::Bool(v) => v[i] as i64,
            Data::I8(v) => v[i] as i64,
            Data::I16(v) => v[i] as i64,
            Data::I32(v) => v[i] as i64,
            Data::I64(v) => v[i],
            Data::Ptr(v) => v[i] as i64,
            other => other.get_f64(i) as i64,
        }
    }

    /// Concatenation of `self` and `other` (same variant).
    pub fn concat(&self, other: &Data) -> Option<Data> {
        macro_rules! cat {
            ($($var:ident),*) => {
                match (self, other) {
                    $((Data::$var(a), Data::$var(b)) => Some(Data::$var([a.as_slice(), b.as_slice()].concat())),)*
                    (Data::F8(k, a), Data::F8(k2, b)) if k == k2 => Some(Data::F8(*k, [a.as_slice(), b.as_slice()].concat())),
                    _ => None,
                }
            };
        }
        cat!(Bool, I8, I16, I32, I64, F16, BF16, F32, F64, Ptr)
    }
}

/// The storage class of a dtype.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Storage {
    /// `i1`.
    Bool,
    /// 8-bit int.
    I8,
    /// 16-bit int.
    I16,
    /// 32-bit int.
    I32,
    /// 64-bit int.
    I64,
    /// half.
    F16,
    /// bfloat16.
    BF16,
    /// single.
    F32,
    /// double.
    F64,
    /// an fp8 format.
    F8(Fp8Format),
}

/// Where elements of `d` are stored. Dtype variables never reach the interpreter (the
/// launch rejects generic IR), so they map to `i32` only to stay total.
pub fn storage_of(d: DType) -> Storage {
    use DType::*;
    match d {
        I1 => Storage::Bool,
        I8 | U8 => Storage::I8,
        I16 | U16 => Storage::I16,
        I32 | U32 | Var(_) => Storage::I32,
        I64 | U64 => Storage::I64,
        F16 => Storage::F16,
        BF16 => Storage::BF16,
        F32 => Storage::F32,
        F64 => Storage::F64,
        F8E4M3FN => Storage::F8(Fp8Format::E4M3FN),
        F8E5M2 => Storage::F8(Fp8Format::E5M2),
        F8E4M3FNUZ => Storage::F8(Fp8Format::E4M3FNUZ),
        F8E5M2FNUZ => Storage::F8(Fp8Format::E5M2FNUZ),
        F8E4M3B11FNUZ => Storage::F8(Fp8Format::E4M3B11FNUZ),
    }
}

/// A runtime value: a block (shape non-empty) or a scalar (shape `[]`, one element).
#[derive(Debug, Clone, PartialEq)]
pub struct Val {
    /// The extents, outermost first; empty for scalars.
    pub shape: Vec<usize>,
    /// The elements in row-major order.
    pub data: Data,
}

impl Val {
    /// A scalar.
    pub fn scalar(data: Data) -> Val {
        debug_assert_eq!(data.len(), 1);
        Val {
            shape: Vec::new(),
            data,
        }
    }

    /// A value of `shape` (empty for a scalar).
    pub fn new(shape: Vec<usize>, data: Data) -> Val {
        Val { shape, data }
    }

    /// Number of elements.
    pub fn numel(&self) -> usize {
        self.data.len()
    }
}

/// The known shape of an IR type as `usize`s (`None` for generic dims).
pub fn shape_of(ty: &Type) -> Option<Vec<usize>> {
    ty.known_shape()
        .map(|s| s.into_iter().map(|d| d as usize).collect())
}

/// Row-major strides of `shape`, in elements.
pub fn row_major_strides(shape: &[usize]) -> Vec<usize> {
    let mut strides = vec![1; shape.len()];
    for i in (0..shape.len().saturating_sub(1)).rev() {
        strides[i] = strides[i + 1] * shape[i + 1];
    }
    strides
}
