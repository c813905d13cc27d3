//! `isinstance(value, cls)` inside a kernel, as Triton 3.6 answers it at compile time
//! (tests/fixtures/triton/coverage.json, the `isinstance_*` cases): constexpr arguments
//! arrive unwrapped (`isinstance(BLOCK, int)` is true, `isinstance(BLOCK, tl.constexpr)`
//! false), runtime scalars and blocks are `tl.tensor`s and never `tl.tensor_descriptor`s,
//! a descriptor from `tl.make_tensor_descriptor` is a `tl.tensor_descriptor` and not a
//! `tl.tensor`, and dtypes are `tl.dtype`s (pointer types also `tl.pointer_type`s).

use tritonc_ir::Elem;

use crate::value::Constexpr;

/// What kind of value `isinstance` looks at.
#[derive(Debug, Clone, Copy)]
pub enum Subject<'a> {
    /// A compile-time value.
    Const(&'a Constexpr),
    /// A runtime scalar or block (a `tl.tensor`).
    Tensor,
    /// A tensor descriptor (a `tl.tensor_descriptor`).
    TensorDescriptor,
}

/// The classes `isinstance` is answered for.
const CLASSES: &[&str] = &[
    "builtins.int",
    "builtins.bool",
    "builtins.float",
    "builtins.str",
    "builtins.tuple",
    "triton.language.tensor",
    "triton.language.tensor_descriptor",
    "triton.language.constexpr",
    "triton.language.dtype",
    "triton.language.pointer_type",
];

/// Whether `subject` is an instance of `cls`, or why tritonc cannot say (the class is
/// not one it models, or a tuple of classes, which Triton 3.6 rejects).
pub fn isinstance(subject: Subject<'_>, cls: &Constexpr) -> Result<bool, String> {
    let path = match cls {
        Constexpr::Builtin(p) if CLASSES.contains(&&**p) => &**p,
        Constexpr::Tuple(_) => {
            return Err("`isinstance` with a tuple of classes: Triton 3.6 rejects it (the \
                        tuple becomes a `tl.tuple` of classes); test each class in turn"
                .into())
        }
        other => {
            return Err(format!(
                "`isinstance(…, {other})` is not answered by tritonc; it knows int, bool, \
                 float, str, tuple, tl.tensor, tl.tensor_descriptor, tl.constexpr, tl.dtype \
                 and tl.pointer_type"
            ))
        }
    };
    let c = match subject {
        Subject::Tensor => return Ok(path == "triton.language.tensor"),
        Subject::TensorDescriptor => return Ok(path == "triton.language.tensor_descriptor"),
        Subject::Const(c) => c,
    };
    Ok(match c {
        Constexpr::Bool(_) => matches!(path, "builtins.bool" | "builtins.int"),
        Constexpr::Int(_) => path == "builtins.int",
        Constexpr::Float(_) => path == "builtins.float",
        Constexpr::Str(_) => path == "builtins.str",
        Constexpr::Tuple(_) => path == "builtins.tuple",
        Constexpr::DType(e) => {
            path == "triton.language.dtype"
                || (path == "triton.language.pointer_type" && matches!(e, Elem::Ptr(_)))
        }
        Constexpr::None => false,
        other => {
            return Err(format!(
                "`isinstance` of `{other}` is not answered by tritonc"
            ))
        }
    })
}
