//! Types of tile-IR values: scalar dtypes, pointers and block tensors.
//!
//! A per-program scalar (`i32`, `!tt.ptr<f16>`) is never a tensor: there is no 0-d tensor
//! type. A block is a [`Type::Tensor`] of rank ≥ 1 whose element is a dtype or a pointer.
//! Generic (unspecialized) kernels use [`Dim::Symbolic`]/[`Dim::Unknown`] dims and
//! [`DType::Var`] element dtypes; specialized IR uses neither.

use std::fmt;

#[cfg(test)]
use crate::layout::BlockedLayout;
use crate::layout::Layout;
use crate::shared_layout::MemDescType;

/// The largest number of elements a block may hold (Triton's `TRITON_MAX_TENSOR_NUMEL`).
pub const MAX_TENSOR_NUMEL: u64 = 1 << 20;

/// An element data type, as in Triton's `tl.dtype` (signedness kept: `u32` is not `i32`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum DType {
    /// Boolean (`tl.int1`).
    I1,
    /// Signed 8-bit integer.
    I8,
    /// Signed 16-bit integer.
    I16,
    /// Signed 32-bit integer.
    I32,
    /// Signed 64-bit integer.
    I64,
    /// Unsigned 8-bit integer.
    U8,
    /// Unsigned 16-bit integer.
    U16,
    /// Unsigned 32-bit integer.
    U32,
    /// Unsigned 64-bit integer.
    U64,
    /// fp8 e4m3, finite-only, NaN = 0x7f/0xff (`tl.float8e4nv`).
    F8E4M3FN,
    /// fp8 e5m2, IEEE-like (`tl.float8e5`).
    F8E5M2,
    /// fp8 e4m3, unsigned-zero, bias 8 (`tl.float8e4b8`).
    F8E4M3FNUZ,
    /// fp8 e5m2, unsigned-zero, bias 16 (`tl.float8e5b16`).
    F8E5M2FNUZ,
    /// fp8 e4m3, unsigned-zero, bias 11 (`tl.float8e4b15`).
    F8E4M3B11FNUZ,
    /// IEEE half precision.
    F16,
    /// bfloat16.
    BF16,
    /// IEEE single precision.
    F32,
    /// IEEE double precision.
    F64,
    /// A dtype variable of generic mode, resolved by specialization (`!dtype<N>`).
    Var(u32),
}

/// Every concrete dtype, in declaration order (handy for tables and tests).
pub const ALL_DTYPES: [DType; 18] = [
    DType::I1,
    DType::I8,
    DType::I16,
    DType::I32,
    DType::I64,
    DType::U8,
    DType::U16,
    DType::U32,
    DType::U64,
    DType::F8E4M3FN,
    DType::F8E5M2,
    DType::F8E4M3FNUZ,
    DType::F8E5M2FNUZ,
    DType::F8E4M3B11FNUZ,
    DType::F16,
    DType::BF16,
    DType::F32,
    DType::F64,
];

/// (dtype, IR name, Triton signature name, Triton dtype name).
const DTYPE_NAMES: [(DType, &str, &str, &str); 18] = [
    (DType::I1, "i1", "i1", "int1"),
    (DType::I8, "i8", "i8", "int8"),
    (DType::I16, "i16", "i16", "int16"),
    (DType::I32, "i32", "i32", "int32"),
    (DType::I64, "i64", "i64", "int64"),
    (DType::U8, "u8", "u8", "uint8"),
    (DType::U16, "u16", "u16", "uint16"),
    (DType::U32, "u32", "u32", "uint32"),
    (DType::U64, "u64", "u64", "uint64"),
    (DType::F8E4M3FN, "f8E4M3FN", "fp8e4nv", "float8e4nv"),
    (DType::F8E5M2, "f8E5M2", "fp8e5", "float8e5"),
    (DType::F8E4M3FNUZ, "f8E4M3FNUZ", "fp8e4b8", "float8e4b8"),
    (DType::F8E5M2FNUZ, "f8E5M2FNUZ", "fp8e5b16", "float8e5b16"),
    (
        DType::F8E4M3B11FNUZ,
        "f8E4M3B11FNUZ",
        "fp8e4b15",
        "float8e4b15",
    ),
    (DType::F16, "f16", "fp16", "float16"),
    (DType::BF16, "bf16", "bf16", "bfloat16"),
    (DType::F32, "f32", "fp32", "float32"),
    (DType::F64, "f64", "fp64", "float64"),
];

impl DType {
    fn names(self) -> Option<(&'static str, &'static str, &'static str)> {
        DTYPE_NAMES
            .iter()
            .find(|e| e.0 == self)
            .map(|e| (e.1, e.2, e.3))
    }

    /// Bit width (`None` for a dtype variable).
    pub fn bitwidth(self) -> Option<u32> {
        use DType::*;
        Some(match self {
            I1 => 1,
            I8 | U8 | F8E4M3FN | F8E5M2 | F8E4M3FNUZ | F8E5M2FNUZ | F8E4M3B11FNUZ => 8,
            I16 | U16 | F16 | BF16 => 16,
            I32 | U32 | F32 => 32,
            I64 | U64 | F64 => 64,
            Var(_) => return None,
        })
    }

    /// Bytes one element occupies in memory (`i1` is stored as a byte).
    pub fn size_bytes(self) -> Option<u32> {
        self.bitwidth().map(|b| b.div_ceil(8))
    }

    /// Whether this is an integer type (including `i1`).
    pub fn is_int(self) -> bool {
        use DType::*;
        matches!(self, I1 | I8 | I16 | I32 | I64 | U8 | U16 | U32 | U64)
    }

    /// Whether this is a signed integer type (`i1` counts as signless, hence not signed).
    pub fn is_signed(self) -> bool {
        matches!(self, DType::I8 | DType::I16 | DType::I32 | DType::I64)
    }

    /// Whether this is an unsigned integer type.
    pub fn is_unsigned(self) -> bool {
        matches!(self, DType::U8 | DType::U16 | DType::U32 | DType::U64)
    }

    /// Whether this is `i1`.
    pub fn is_bool(self) -> bool {
        self == DType::I1
    }

    /// Whether this is a floating-point type (fp8 included).
    pub fn is_float(self) -> bool {
        self.is_fp8() || matches!(self, DType::F16 | DType::BF16 | DType::F32 | DType::F64)
    }

    /// Whether this is one of the fp8 types.
    pub fn is_fp8(self) -> bool {
        use DType::*;
        matches!(
            self,
            F8E4M3FN | F8E5M2 | F8E4M3FNUZ | F8E5M2FNUZ | F8E4M3B11FNUZ
        )
    }

    /// Whether this is a dtype variable.
    pub fn is_var(self) -> bool {
        matches!(self, DType::Var(_))
    }

    /// Explicit mantissa bits of a float type (`f16` → 10, `bf16` → 7, `f32` → 23).
    pub fn fp_mantissa_width(self) -> Option<u32> {
        use DType::*;
        Some(match self {
            F8E4M3FN | F8E4M3FNUZ | F8E4M3B11FNUZ => 3,
            F8E5M2 | F8E5M2FNUZ => 2,
            F16 => 10,
            BF16 => 7,
            F32 => 23,
            F64 => 52,
            _ => return None,
        })
    }

    /// Exponent bits of a float type.
    pub fn fp_exponent_width(self) -> Option<u32> {
        use DType::*;
        Some(match self {
            F8E4M3FN | F8E4M3FNUZ | F8E4M3B11FNUZ => 4,
            F8E5M2 | F8E5M2FNUZ | F16 => 5,
            BF16 | F32 => 8,
            F64 => 11,
            _ => return None,
        })
    }

    /// The integer type of the same width and the given signedness (`i1` stays `i1`).
    pub fn int_of_width(bits: u32, signed: bool) -> Option<DType> {
        use DType::*;
        Some(match (bits, signed) {
            (1, _) => I1,
            (8, true) => I8,
            (16, true) => I16,
            (32, true) => I32,
            (64, true) => I64,
            (8, false) => U8,
            (16, false) => U16,
            (32, false) => U32,
            (64, false) => U64,
            _ => return None,
        })
    }

    /// The name in IR text (`i32`, `u8`, `f8E4M3FN`, `!dtype<0>`).
    pub fn ir_name(self) -> String {
        match self {
            DType::Var(n) => format!("!dtype<{n}>"),
            d => d.names().map(|n| n.0).unwrap_or("?").to_string(),
        }
    }

    /// The Triton signature name (`i32`, `u64`, `fp16`, `bf16`, `fp8e4nv`, …); `None` for a variable.
    pub fn signature_name(self) -> Option<&'static str> {
        self.names().map(|n| n.1)
    }

    /// The Triton dtype name (`int32`, `float16`, `float8e4nv`, …); `None` for a variable.
    pub fn triton_name(self) -> Option<&'static str> {
        self.names().map(|n| n.2)
    }

    /// Parses a Triton signature name; `u1` (Triton's canonical bool) is accepted as `i1`.
    pub fn from_signature_name(name: &str) -> Option<DType> {
        if name == "u1" {
            return Some(DType::I1);
        }
        DTYPE_NAMES.iter().find(|e| e.2 == name).map(|e| e.0)
    }

    /// Parses a Triton dtype name (`float16`, `int32`, `bfloat16`, …).
    pub fn from_triton_name(name: &str) -> Option<DType> {
        DTYPE_NAMES.iter().find(|e| e.3 == name).map(|e| e.0)
    }

    /// Parses an IR name of a concrete dtype (`i32`, `f8E5M2`, …); variables are parsed by the parser.
    pub fn from_ir_name(name: &str) -> Option<DType> {
        DTYPE_NAMES.iter().find(|e| e.1 == name).map(|e| e.0)
    }
}

impl fmt::Display for DType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.ir_name())
    }
}

/// A pointer to elements of a dtype in an address space (1 = global, Triton's only one here).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct PtrType {
    /// The pointee dtype.
    pub pointee: DType,
    /// The address space; 1 is global memory.
    pub addr_space: u32,
}

impl PtrType {
    /// A global-memory pointer to `pointee`.
    pub fn global(pointee: DType) -> Self {
        PtrType {
            pointee,
            addr_space: 1,
        }
    }
}

impl fmt::Display for PtrType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.addr_space == 1 {
            write!(f, "!tt.ptr<{}>", self.pointee)
        } else {
            write!(f, "!tt.ptr<{}, {}>", self.pointee, self.addr_space)
        }
    }
}

/// The element of a block, or a scalar's own type: a dtype or a pointer.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Elem {
    /// A numeric element.
    DType(DType),
    /// A pointer element.
    Ptr(PtrType),
}

impl Elem {
    /// The dtype, if this is not a pointer.
    pub fn dtype(self) -> Option<DType> {
        match self {
            Elem::DType(d) => Some(d),
            Elem::Ptr(_) => None,
        }
    }

    /// Whether this is a pointer.
    pub fn is_ptr(self) -> bool {
        matches!(self, Elem::Ptr(_))
    }

    /// Bit width of the element in registers (pointers are 64-bit).
    pub fn bitwidth(self) -> Option<u32> {
        match self {
            Elem::DType(d) => d.bitwidth(),
            Elem::Ptr(_) => Some(64),
        }
    }
}

impl fmt::Display for Elem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Elem::DType(d) => d.fmt(f),
            Elem::Ptr(p) => p.fmt(f),
        }
    }
}

/// One dimension of a block shape.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Dim {
    /// A known extent.
    Known(u64),
    /// A constexpr whose value generic mode does not know (printed by name).
    Symbolic(String),
    /// An extent nothing is known about (printed `?`).
    Unknown,
}

impl Dim {
    /// The extent, if known.
    pub fn known(&self) -> Option<u64> {
        match self {
            Dim::Known(n) => Some(*n),
            _ => None,
        }
    }
}

impl fmt::Display for Dim {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Dim::Known(n) => write!(f, "{n}"),
            Dim::Unknown => f.write_str("?"),
            // Bare names may not contain `x` (the dim separator) or start with a digit.
            Dim::Symbolic(s) if is_bare_symbol(s) => f.write_str(s),
            Dim::Symbolic(s) => write!(f, "\"{}\"", crate::printer::escape_str(s)),
        }
    }
}

/// Whether a symbolic dim name can be printed without quotes inside `tensor<...>`.
pub(crate) fn is_bare_symbol(s: &str) -> bool {
    let mut chars = s.chars();
    matches!(chars.next(), Some(c) if (c.is_ascii_alphabetic() || c == '_') && c != 'x')
        && s.chars()
            .all(|c| (c.is_ascii_alphanumeric() || c == '_') && c != 'x')
        && DType::from_ir_name(s).is_none()
}

/// The type of an SSA value.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Type {
    /// A per-program scalar of a dtype.
    Scalar(DType),
    /// A per-program scalar pointer.
    Ptr(PtrType),
    /// A block of rank ≥ 1.
    Tensor {
        /// The extents, outermost first.
        shape: Vec<Dim>,
        /// The element type.
        elem: Elem,
        /// Which thread holds which element: `None` in the tile IR; every block of the
        /// GPU IR has one (`tensor<128xf32, #ttg.blocked<…>>`).
        encoding: Option<Box<Layout>>,
    },
    /// A shared-memory buffer of the GPU IR (`!ttg.memdesc<…>`).
    MemDesc(MemDescType),
    /// The token of an asynchronous copy group of the GPU IR (`!ttg.async.token`).
    AsyncToken,
}

impl Type {
    /// `i1`.
    pub const I1: Type = Type::Scalar(DType::I1);
    /// `i32`.
    pub const I32: Type = Type::Scalar(DType::I32);
    /// `i64`.
    pub const I64: Type = Type::Scalar(DType::I64);
    /// `f32`.
    pub const F32: Type = Type::Scalar(DType::F32);

    /// A scalar of an element type (a dtype or a pointer).
    pub fn scalar_of(elem: Elem) -> Type {
        match elem {
            Elem::DType(d) => Type::Scalar(d),
            Elem::Ptr(p) => Type::Ptr(p),
        }
    }

    /// A global pointer scalar to `pointee`.
    pub fn ptr(pointee: DType) -> Type {
        Type::Ptr(PtrType::global(pointee))
    }

    /// A block with known dims.
    pub fn tensor(shape: &[u64], elem: Elem) -> Type {
        Type::Tensor {
            shape: shape.iter().map(|&d| Dim::Known(d)).collect(),
            elem,
            encoding: None,
        }
    }

    /// A block with the given dims and no encoding (the tile IR's blocks).
    pub fn tensor_dims(shape: Vec<Dim>, elem: Elem) -> Type {
        Type::Tensor {
            shape,
            elem,
            encoding: None,
        }
    }

    /// The encoding of a GPU-IR block (`None` for tile-IR blocks and everything else).
    pub fn encoding(&self) -> Option<&Layout> {
        match self {
            Type::Tensor { encoding, .. } => encoding.as_deref(),
            _ => None,
        }
    }

    /// The same block with `encoding` (other types are returned unchanged).
    pub fn with_encoding(&self, layout: Option<Layout>) -> Type {
        match self {
            Type::Tensor { shape, elem, .. } => Type::Tensor {
                shape: shape.clone(),
                elem: *elem,
                encoding: layout.map(Box::new),
            },
            other => other.clone(),
        }
    }

    /// The shared buffer this type describes, if it is one.
    pub fn memdesc(&self) -> Option<&MemDescType> {
        match self {
            Type::MemDesc(m) => Some(m),
            _ => None,
        }
    }

    /// A block of a dtype with known dims.
    pub fn tensor_of(shape: &[u64], dtype: DType) -> Type {
        Type::tensor(shape, Elem::DType(dtype))
    }

    /// A block with the given dims (a scalar when `shape` is empty).
    pub fn with_dims(shape: Vec<Dim>, elem: Elem) -> Type {
        if shape.is_empty() {
            Type::scalar_of(elem)
        } else {
            Type::tensor_dims(shape, elem)
        }
    }

    /// The element type (a scalar's own type; a shared buffer's element dtype; `i1` for
    /// an async token, which carries no data).
    pub fn elem(&self) -> Elem {
        match self {
            Type::Scalar(d) => Elem::DType(*d),
            Type::Ptr(p) => Elem::Ptr(*p),
            Type::Tensor { elem, .. } => *elem,
            Type::MemDesc(m) => Elem::DType(m.elem),
            Type::AsyncToken => Elem::DType(DType::I1),
        }
    }

    /// The element dtype, if the element is not a pointer.
    pub fn dtype(&self) -> Option<DType> {
        self.elem().dtype()
    }

    /// The shape (empty for scalars).
    pub fn dims(&self) -> &[Dim] {
        match self {
            Type::Tensor { shape, .. } => shape,
            _ => &[],
        }
    }

    /// The shape if every dim is known (empty for scalars).
    pub fn known_shape(&self) -> Option<Vec<u64>> {
        self.dims().iter().map(Dim::known).collect()
    }

    /// Rank (0 for scalars).
    pub fn rank(&self) -> usize {
        self.dims().len()
    }

    /// Whether this is a block.
    pub fn is_tensor(&self) -> bool {
        matches!(self, Type::Tensor { .. })
    }

    /// Whether this is a scalar (dtype or pointer).
    pub fn is_scalar(&self) -> bool {
        matches!(self, Type::Scalar(_) | Type::Ptr(_))
    }

    /// Whether this is a GPU-IR handle (a shared buffer or an async token), not a value
    /// a program computes with.
    pub fn is_gpu_handle(&self) -> bool {
        matches!(self, Type::MemDesc(_) | Type::AsyncToken)
    }

    /// Whether the elements are pointers.
    pub fn is_ptr_like(&self) -> bool {
        self.elem().is_ptr()
    }

    /// Whether the elements are integers.
    pub fn is_int_like(&self) -> bool {
        self.dtype().is_some_and(DType::is_int)
    }

    /// Whether the elements are floats.
    pub fn is_float_like(&self) -> bool {
        self.dtype().is_some_and(DType::is_float)
    }

    /// Number of elements (1 for scalars), if every dim is known and it does not overflow.
    pub fn numel(&self) -> Option<u64> {
        self.dims()
            .iter()
            .try_fold(1u64, |acc, d| acc.checked_mul(d.known()?))
    }

    /// The same shape with another element type.
    pub fn with_elem(&self, elem: Elem) -> Type {
        Type::with_dims(self.dims().to_vec(), elem)
    }

    /// The same shape with another element dtype.
    pub fn with_dtype(&self, dtype: DType) -> Type {
        self.with_elem(Elem::DType(dtype))
    }

    /// Whether this type mentions a symbolic or unknown dim or a dtype variable.
    pub fn is_generic(&self) -> bool {
        let elem_var = match self.elem() {
            Elem::DType(d) => d.is_var(),
            Elem::Ptr(p) => p.pointee.is_var(),
        };
        elem_var || self.dims().iter().any(|d| d.known().is_none())
    }
}

impl fmt::Display for Type {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Type::Scalar(d) => d.fmt(f),
            Type::Ptr(p) => p.fmt(f),
            Type::Tensor {
                shape,
                elem,
                encoding,
            } => {
                f.write_str("tensor<")?;
                for d in shape {
                    write!(f, "{d}x")?;
                }
                write!(f, "{elem}")?;
                if let Some(l) = encoding {
                    write!(f, ", {l}")?;
                }
                f.write_str(">")
            }
            Type::MemDesc(m) => m.fmt(f),
            Type::AsyncToken => f.write_str("!ttg.async.token"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn signature_names_round_trip() {
        for d in ALL_DTYPES {
            let sig = d
                .signature_name()
                .expect("concrete dtypes have signature names");
            assert_eq!(DType::from_signature_name(sig), Some(d));
            let ir = d.ir_name();
            assert_eq!(DType::from_ir_name(&ir), Some(d));
            let tn = d.triton_name().expect("concrete dtypes have Triton names");
            assert_eq!(DType::from_triton_name(tn), Some(d));
        }
        assert_eq!(DType::from_signature_name("u1"), Some(DType::I1));
        assert_eq!(DType::from_signature_name("fp8e4nv"), Some(DType::F8E4M3FN));
        assert_eq!(
            DType::from_signature_name("fp8e5b16"),
            Some(DType::F8E5M2FNUZ)
        );
        assert_eq!(DType::from_signature_name("float"), None);
    }

    #[test]
    fn dtype_properties() {
        assert_eq!(DType::BF16.fp_mantissa_width(), Some(7));
        assert_eq!(DType::F16.fp_mantissa_width(), Some(10));
        assert_eq!(DType::F8E4M3B11FNUZ.fp_exponent_width(), Some(4));
        assert!(DType::U8.is_int() && DType::U8.is_unsigned() && !DType::U8.is_signed());
        assert!(DType::I1.is_int() && !DType::I1.is_signed() && !DType::I1.is_unsigned());
        assert!(DType::F8E5M2.is_float() && DType::F8E5M2.is_fp8());
        assert!(!DType::F16.is_fp8());
        assert_eq!(DType::I1.size_bytes(), Some(1));
        assert_eq!(DType::Var(3).bitwidth(), None);
        assert_eq!(DType::int_of_width(16, false), Some(DType::U16));
    }

    #[test]
    fn type_display() {
        assert_eq!(
            Type::tensor_of(&[128, 64], DType::F16).to_string(),
            "tensor<128x64xf16>"
        );
        let pt = Type::tensor(&[1024], Elem::Ptr(PtrType::global(DType::F32)));
        assert_eq!(pt.to_string(), "tensor<1024x!tt.ptr<f32>>");
        let generic = Type::tensor_dims(
            vec![Dim::Symbolic("BLOCK".into()), Dim::Unknown],
            Elem::DType(DType::Var(0)),
        );
        assert_eq!(generic.to_string(), "tensor<BLOCKx?x!dtype<0>>");
        let quoted = Type::tensor_dims(
            vec![Dim::Symbolic("xblock".into())],
            Elem::DType(DType::F16),
        );
        assert_eq!(quoted.to_string(), "tensor<\"xblock\"xf16>");
        assert_eq!(Type::ptr(DType::U8).to_string(), "!tt.ptr<u8>");
        assert_eq!(Type::tensor_of(&[4, 8], DType::I8).numel(), Some(32));
        assert_eq!(Type::I32.numel(), Some(1));
        let encoded = Type::tensor_of(&[128], DType::F32)
            .with_encoding(Some(Layout::Blocked(BlockedLayout::default_for(&[128], 4))));
        assert_eq!(
            encoded.to_string(),
            "tensor<128xf32, #ttg.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>>"
        );
        assert_ne!(encoded, Type::tensor_of(&[128], DType::F32));
        assert_eq!(Type::AsyncToken.to_string(), "!ttg.async.token");
        assert!(!Type::AsyncToken.is_scalar() && !Type::AsyncToken.is_tensor());
    }
}
