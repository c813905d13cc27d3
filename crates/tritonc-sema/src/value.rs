//! The semantic value model: what a Python expression in a kernel evaluates to.
//!
//! Compile-time values are [`Constexpr`] (Python ints, floats, bools, strings, `None`,
//! dtypes, tuples, functions and modules). Runtime values ([`SemaValue::Tensor`]) are IR
//! values with their IR type: per-program scalars and blocks. A [`SemaValue`] may also be
//! a tuple mixing both, or a block-pointer descriptor (a compile-time struct of IR values).

use std::fmt;
use std::sync::Arc;

use indexmap::IndexMap;
use tritonc_ir::{DType, Elem, PtrType, Type, Value};

/// A compile-time Python value.
#[derive(Debug, Clone, PartialEq)]
pub enum Constexpr {
    /// `None`.
    None,
    /// `True` / `False` (a Python bool; also an int in arithmetic, as in Python).
    Bool(bool),
    /// A Python int; the range is `i128`, past which evaluation reports an overflow.
    Int(i128),
    /// A Python float.
    Float(f64),
    /// A Python string.
    Str(String),
    /// A dtype object: `tl.float16`, or a pointer type (`ptr.dtype`).
    DType(Elem),
    /// A tuple (also what list displays become inside kernels).
    Tuple(Vec<Constexpr>),
    /// An `@jit` function of a module, by name.
    Function(FunctionRef),
    /// A builtin callable or object by canonical path: `triton.language.arange`,
    /// `triton.cdiv`, `builtins.min`, `triton.language.constexpr`.
    Builtin(Arc<str>),
    /// A module by canonical path (`triton.language`, `triton.language.math`).
    Module(Arc<str>),
    /// A method of a compile-time value, bound to it (`x.dtype.is_fp16`).
    BoundMethod(Box<Constexpr>, Arc<str>),
    /// A host object with named fields (a launch-spec tensor's `shape`, a heuristics
    /// `args` dict): read with `.field` or `["field"]`.
    Object(Arc<HostObject>),
    /// A value generic analysis does not know: a constexpr parameter no signature fixes,
    /// an expression over one, or what code tritonc cannot see returns.
    Symbolic(Arc<Symbolic>),
}

/// What generic analysis knows about a value it does not know (see [`Constexpr::Symbolic`]).
#[derive(Debug, Clone, PartialEq)]
pub struct Symbolic {
    /// How the value reads: a parameter (`BLOCK`) or an expression over some (`BLOCK // 2`).
    pub name: Arc<str>,
    /// What kind of value it is, as far as known.
    pub kind: SymbolicKind,
    /// The values it may take (from autotune configs); empty when unconstrained.
    pub candidates: Vec<Constexpr>,
}

/// The kind of a [`Symbolic`] value.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SymbolicKind {
    /// A Python int (a block size, a count).
    Int,
    /// A Python bool (a flag).
    Bool,
    /// A Python float.
    Float,
    /// A dtype object.
    DType,
    /// Anything: a constexpr of unknown type, or the result of opaque code (which may even
    /// be a runtime value).
    Any,
}

impl Symbolic {
    /// An unknown value of `kind` read as `name`.
    pub fn constexpr(name: impl Into<Arc<str>>, kind: SymbolicKind) -> Constexpr {
        Constexpr::Symbolic(Arc::new(Symbolic {
            name: name.into(),
            kind,
            candidates: Vec::new(),
        }))
    }
}

/// A reference to an `@jit` function.
#[derive(Clone)]
pub struct FunctionRef {
    /// The function's name in its module.
    pub name: Arc<str>,
    /// Its module when that is another project module than the kernel's; `None` for the
    /// kernel's own module.
    pub scope: Option<Arc<crate::lower::ModuleScope>>,
}

impl FunctionRef {
    fn module_ptr(&self) -> *const crate::lower::ModuleScope {
        self.scope.as_ref().map_or(std::ptr::null(), Arc::as_ptr)
    }
}

impl PartialEq for FunctionRef {
    fn eq(&self, other: &Self) -> bool {
        self.name == other.name && self.module_ptr() == other.module_ptr()
    }
}

impl Eq for FunctionRef {}

impl std::hash::Hash for FunctionRef {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        self.name.hash(state);
        self.module_ptr().hash(state);
    }
}

impl fmt::Debug for FunctionRef {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let module = self.scope.as_ref().and_then(|s| s.name.as_deref());
        f.debug_struct("FunctionRef")
            .field("name", &self.name)
            .field("module", &module)
            .finish()
    }
}

/// A host-side record of named values (see [`Constexpr::Object`]).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct HostObject {
    /// What the object is, for messages (`tensor`, `dict`).
    pub type_name: String,
    /// The fields, in insertion order.
    pub fields: IndexMap<String, Constexpr>,
}

impl Constexpr {
    /// A builtin by canonical path.
    pub fn builtin(path: &str) -> Constexpr {
        Constexpr::Builtin(Arc::from(path))
    }

    /// A module by canonical path.
    pub fn module(path: &str) -> Constexpr {
        Constexpr::Module(Arc::from(path))
    }

    /// A dtype object.
    pub fn dtype(d: DType) -> Constexpr {
        Constexpr::DType(Elem::DType(d))
    }

    /// The Python type name, for messages (`int`, `float`, `dtype`, …).
    pub fn type_name(&self) -> &str {
        match self {
            Constexpr::None => "NoneType",
            Constexpr::Bool(_) => "bool",
            Constexpr::Int(_) => "int",
            Constexpr::Float(_) => "float",
            Constexpr::Str(_) => "str",
            Constexpr::DType(Elem::DType(_)) => "dtype",
            Constexpr::DType(Elem::Ptr(_)) => "pointer_type",
            Constexpr::Tuple(_) => "tuple",
            Constexpr::Function(_) => "JITFunction",
            Constexpr::Builtin(_) => "builtin",
            Constexpr::Module(_) => "module",
            Constexpr::BoundMethod(..) => "method",
            Constexpr::Object(o) => &o.type_name,
            Constexpr::Symbolic(s) => match s.kind {
                SymbolicKind::Int => "int",
                SymbolicKind::Bool => "bool",
                SymbolicKind::Float => "float",
                SymbolicKind::DType => "dtype",
                SymbolicKind::Any => "unknown",
            },
        }
    }

    /// The value as a Python int, if it is one (bools count, as in Python).
    pub fn as_int(&self) -> Option<i128> {
        match self {
            Constexpr::Int(v) => Some(*v),
            Constexpr::Bool(b) => Some(*b as i128),
            _ => None,
        }
    }

    /// The value as a Python number (int, bool or float) widened to `f64`.
    pub fn as_f64(&self) -> Option<f64> {
        match self {
            Constexpr::Float(f) => Some(*f),
            _ => self.as_int().map(|v| v as f64),
        }
    }

    /// Whether this is a Python number (`int`, `float` or `bool`).
    pub fn is_number(&self) -> bool {
        matches!(
            self,
            Constexpr::Int(_) | Constexpr::Float(_) | Constexpr::Bool(_)
        )
    }

    /// The dtype, if this is a (non-pointer) dtype object.
    pub fn as_dtype(&self) -> Option<DType> {
        match self {
            Constexpr::DType(Elem::DType(d)) => Some(*d),
            _ => None,
        }
    }

    /// The symbolic value, if this is one.
    pub fn as_symbolic(&self) -> Option<&Symbolic> {
        match self {
            Constexpr::Symbolic(s) => Some(s),
            _ => None,
        }
    }

    /// Python truthiness (a [`Constexpr::Symbolic`] value has none: callers in generic
    /// mode check [`Constexpr::as_symbolic`] first; here it counts as true).
    pub fn truthy(&self) -> bool {
        match self {
            Constexpr::None => false,
            Constexpr::Bool(b) => *b,
            Constexpr::Int(v) => *v != 0,
            Constexpr::Float(f) => *f != 0.0,
            Constexpr::Str(s) => !s.is_empty(),
            Constexpr::Tuple(t) => !t.is_empty(),
            Constexpr::Object(o) => !o.fields.is_empty(),
            _ => true,
        }
    }
}

/// Python's `repr` of a float (`1.0`, `1e-05`, `inf`, `nan`, `1e+16`).
pub fn py_float_repr(f: f64) -> String {
    if f.is_nan() {
        return "nan".into();
    }
    if f.is_infinite() {
        return if f > 0.0 { "inf".into() } else { "-inf".into() };
    }
    if f == 0.0 {
        return if f.is_sign_negative() {
            "-0.0".into()
        } else {
            "0.0".into()
        };
    }
    // `{:e}` gives the shortest round-trip digits, like Python's repr.
    let sci = format!("{f:e}");
    let (mantissa, exp) = sci
        .split_once('e')
        .expect("`{:e}` output always has an exponent");
    let exp: i32 = exp.parse().expect("`{:e}` exponent is an integer");
    let negative = mantissa.starts_with('-');
    let digits: String = mantissa.chars().filter(|c| c.is_ascii_digit()).collect();
    let sign = if negative { "-" } else { "" };
    if (-4..16).contains(&exp) {
        let n = digits.len() as i32;
        if exp >= 0 {
            let int_len = exp + 1;
            if n <= int_len {
                let zeros = "0".repeat((int_len - n) as usize);
                format!("{sign}{digits}{zeros}.0")
            } else {
                let (a, b) = digits.split_at(int_len as usize);
                format!("{sign}{a}.{b}")
            }
        } else {
            let zeros = "0".repeat((-exp - 1) as usize);
            format!("{sign}0.{zeros}{digits}")
        }
    } else {
        let (first, rest) = digits.split_at(1);
        let frac = if rest.is_empty() {
            String::new()
        } else {
            format!(".{rest}")
        };
        let esign = if exp < 0 { '-' } else { '+' };
        format!("{sign}{first}{frac}e{esign}{:02}", exp.abs())
    }
}

impl fmt::Display for Constexpr {
    /// Python's `repr`, with dtypes as `tl.float16` and pointer types as `pointer<fp16>`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Constexpr::None => f.write_str("None"),
            Constexpr::Bool(true) => f.write_str("True"),
            Constexpr::Bool(false) => f.write_str("False"),
            Constexpr::Int(v) => write!(f, "{v}"),
            Constexpr::Float(x) => f.write_str(&py_float_repr(*x)),
            Constexpr::Str(s) => write!(f, "'{}'", s.replace('\\', "\\\\").replace('\'', "\\'")),
            Constexpr::DType(e) => f.write_str(&elem_python_name(*e)),
            Constexpr::Tuple(items) => {
                f.write_str("(")?;
                for (i, item) in items.iter().enumerate() {
                    if i > 0 {
                        f.write_str(", ")?;
                    }
                    write!(f, "{item}")?;
                }
                if items.len() == 1 {
                    f.write_str(",")?;
                }
                f.write_str(")")
            }
            Constexpr::Function(r) => write!(f, "<jit function {}>", r.name),
            Constexpr::Builtin(p) => write!(f, "<builtin {p}>"),
            Constexpr::Module(p) => write!(f, "<module {p}>"),
            Constexpr::BoundMethod(v, m) => write!(f, "<method {m} of {v}>"),
            Constexpr::Object(o) => {
                write!(f, "<{}", o.type_name)?;
                for (k, v) in &o.fields {
                    write!(f, " {k}={v}")?;
                }
                f.write_str(">")
            }
            Constexpr::Symbolic(s) => f.write_str(&s.name),
        }
    }
}

/// How a dtype or pointer type reads in Python (`tl.float16`, `pointer<fp16>`).
pub fn elem_python_name(e: Elem) -> String {
    match e {
        Elem::DType(d) => format!("tl.{}", d.triton_name().unwrap_or("?")),
        Elem::Ptr(PtrType { pointee, .. }) => {
            format!("pointer<{}>", pointee.signature_name().unwrap_or("?"))
        }
    }
}

/// A runtime value: an IR value and its type.
#[derive(Debug, Clone, PartialEq)]
pub struct TensorValue {
    /// The IR value.
    pub id: Value,
    /// Its type (a scalar, a pointer or a block).
    pub ty: Type,
}

impl TensorValue {
    /// The element type (the scalar's own type for scalars).
    pub fn elem(&self) -> Elem {
        self.ty.elem()
    }

    /// Whether this is a block (rank ≥ 1).
    pub fn is_block(&self) -> bool {
        self.ty.is_tensor()
    }
}

/// A block pointer from `tl.make_block_ptr`: a compile-time record of IR values.
#[derive(Debug, Clone, PartialEq)]
pub struct BlockPtrValue {
    /// The base pointer (a scalar pointer).
    pub base: TensorValue,
    /// The tensor's shape, one i64 per dim.
    pub shape: Vec<TensorValue>,
    /// The strides, one i64 per dim.
    pub strides: Vec<TensorValue>,
    /// The current offsets, one i32 per dim.
    pub offsets: Vec<TensorValue>,
    /// The block's shape (constexpr).
    pub block_shape: Vec<u64>,
    /// The dim order, fastest first (constexpr).
    pub order: Vec<u32>,
}

/// A tensor descriptor from `tl.make_tensor_descriptor`: a compile-time record of IR
/// values, as Triton's `tl.tensor_descriptor` is on targets without TMA.
#[derive(Debug, Clone, PartialEq)]
pub struct TensorDescValue {
    /// The base pointer (a scalar pointer).
    pub base: TensorValue,
    /// The tensor's shape, one i32 per dim (Triton makes each an int32 scalar).
    pub shape: Vec<TensorValue>,
    /// The strides, one i64 per dim (the last is the constant 1).
    pub strides: Vec<TensorValue>,
    /// The block a load or store moves (constexpr).
    pub block_shape: Vec<u64>,
    /// Whether loads fill out-of-bounds elements with NaN (`padding_option="nan"`) rather
    /// than zero.
    pub padding_nan: bool,
}

impl TensorDescValue {
    /// The element dtype of the described tensor (the base pointer's pointee).
    pub fn dtype(&self) -> DType {
        match self.base.ty.elem() {
            Elem::Ptr(p) => p.pointee,
            Elem::DType(d) => d,
        }
    }
}

/// What an expression in a kernel evaluates to.
#[derive(Debug, Clone, PartialEq)]
pub enum SemaValue {
    /// A compile-time value.
    Const(Constexpr),
    /// A runtime scalar or block.
    Tensor(TensorValue),
    /// A tuple with at least one runtime element.
    Tuple(Vec<SemaValue>),
    /// A block pointer.
    BlockPtr(Box<BlockPtrValue>),
    /// A tensor descriptor.
    TensorDesc(Box<TensorDescValue>),
    /// A tensor-descriptor method bound to its descriptor (`desc.load`).
    TensorDescMethod(Box<TensorDescValue>, Arc<str>),
    /// A tensor method bound to its receiver (`x.to`, `x.sum`), called through the builtins.
    TensorMethod(TensorValue, Arc<str>),
}

impl SemaValue {
    /// The constexpr, if this is one.
    pub fn as_const(&self) -> Option<&Constexpr> {
        match self {
            SemaValue::Const(c) => Some(c),
            _ => None,
        }
    }

    /// The runtime value, if this is one.
    pub fn as_tensor(&self) -> Option<&TensorValue> {
        match self {
            SemaValue::Tensor(t) => Some(t),
            _ => None,
        }
    }

    /// A tuple of values, folding to a [`Constexpr::Tuple`] when every element is constant.
    pub fn tuple(items: Vec<SemaValue>) -> SemaValue {
        if items.iter().all(|v| matches!(v, SemaValue::Const(_))) {
            SemaValue::Const(Constexpr::Tuple(
                items
                    .into_iter()
                    .map(|v| match v {
                        SemaValue::Const(c) => c,
                        _ => unreachable!("every element was checked to be a constexpr"),
                    })
                    .collect(),
            ))
        } else {
            SemaValue::Tuple(items)
        }
    }

    /// What the value is, for messages (`tensor<128xf32>`, `int`, `tuple`).
    pub fn describe(&self) -> String {
        match self {
            SemaValue::Const(c) => format!("constexpr {} `{c}`", c.type_name()),
            SemaValue::Tensor(t) => format!("`{}`", t.ty),
            SemaValue::Tuple(_) => "tuple".into(),
            SemaValue::BlockPtr(_) => "block pointer".into(),
            SemaValue::TensorDesc(d) => format!(
                "tensor descriptor of `{}` blocks",
                Type::tensor_of(&d.block_shape, d.dtype())
            ),
            SemaValue::TensorDescMethod(_, m) => format!("tensor-descriptor method `{m}`"),
            SemaValue::TensorMethod(_, m) => format!("method `{m}`"),
        }
    }

    /// The elements, if this is a tuple (constant or not).
    pub fn tuple_items(&self) -> Option<Vec<SemaValue>> {
        match self {
            SemaValue::Tuple(items) => Some(items.clone()),
            SemaValue::Const(Constexpr::Tuple(items)) => {
                Some(items.iter().cloned().map(SemaValue::Const).collect())
            }
            _ => None,
        }
    }
}

impl From<Constexpr> for SemaValue {
    fn from(c: Constexpr) -> Self {
        SemaValue::Const(c)
    }
}

impl From<TensorValue> for SemaValue {
    fn from(t: TensorValue) -> Self {
        SemaValue::Tensor(t)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn float_repr_matches_python() {
        // Expected strings are what CPython 3.11 prints for repr(x).
        let cases = [
            (1.0, "1.0"),
            (0.5, "0.5"),
            (1e-5, "1e-05"),
            (0.0001, "0.0001"),
            (123456.789, "123456.789"),
            (1e16, "1e+16"),
            (1e15, "1000000000000000.0"),
            (-2.5e-7, "-2.5e-07"),
            (0.1, "0.1"),
            (f64::INFINITY, "inf"),
            (f64::NEG_INFINITY, "-inf"),
            (-0.0, "-0.0"),
            (1.5e300, "1.5e+300"),
        ];
        for (x, want) in cases {
            assert_eq!(py_float_repr(x), want, "repr({x:?})");
        }
    }

    #[test]
    fn display_and_truthiness() {
        let t = Constexpr::Tuple(vec![Constexpr::Int(1)]);
        assert_eq!(t.to_string(), "(1,)");
        assert_eq!(Constexpr::Str("a'b".into()).to_string(), "'a\\'b'");
        assert_eq!(Constexpr::dtype(DType::F16).to_string(), "tl.float16");
        assert!(!Constexpr::None.truthy());
        assert!(!Constexpr::Tuple(vec![]).truthy());
        assert!(Constexpr::Float(-0.5).truthy());
        assert_eq!(Constexpr::Bool(true).as_int(), Some(1));
    }
}
