//! The diagnostic codes sema emits: `E03xx` for type and semantic errors in kernel bodies,
//! `E04xx` for specialization (signatures, constexpr arguments, autotune configs).
//!
//! Each code is a `pub const` used at the emit site and a [`CodeDoc`] in [`REGISTRY`], whose
//! explanation is what `tritonc rule CODE` prints. A test checks the two agree.

use tritonc_diagnostics::{Code, CodeDoc, CodeRegistry};

/// `tl.X` where Triton 3.6 has no `X`.
pub const UNKNOWN_TL_OP: Code = Code("E0301");
/// A `tl` builtin Triton 3.6 has that tritonc does not lower yet.
pub const UNSUPPORTED_TL_OP: Code = Code("E0302");
/// Operand types no rule accepts (`ptr + float`, mixed-signedness `//`, float `<<`).
pub const INCOMPATIBLE_TYPES: Code = Code("E0303");
/// Block shapes that cannot be broadcast together or do not match.
pub const SHAPE_MISMATCH: Code = Code("E0304");
/// A block dim that is not a power of two, or a block over 2^20 elements.
pub const INVALID_BLOCK_SHAPE: Code = Code("E0305");
/// A loop-carried variable whose type changes in the loop body.
pub const LOOP_CARRIED_TYPE_CHANGE: Code = Code("E0306");
/// A variable whose type differs between the branches of a dynamic `if`.
pub const BRANCH_TYPE_MISMATCH: Code = Code("E0307");
/// Wrong number of arguments, an unknown keyword, or a missing argument.
pub const BAD_ARGUMENTS: Code = Code("E0308");
/// A runtime value where a compile-time constant is required.
pub const NOT_CONSTEXPR: Code = Code("E0309");
/// A name that is not defined in the kernel, its module or the builtins.
pub const UNDEFINED_NAME: Code = Code("E0310");
/// Compile-time Python that fails (division by zero, overflow, a type error).
pub const CONSTEXPR_ERROR: Code = Code("E0311");
/// `tl.static_assert` whose condition is false.
pub const STATIC_ASSERT_FAILED: Code = Code("E0312");
/// A conversion `.to()` / `tl.cast` cannot do.
pub const INVALID_CAST: Code = Code("E0313");
/// A malformed `tl.load` / `tl.store` (`other` without `mask`, bad cache modifier, …).
pub const INVALID_MEMORY_OP: Code = Code("E0314");
/// A Python number that does not fit the dtype it is combined with.
pub const LITERAL_OUT_OF_RANGE: Code = Code("E0315");
/// An axis outside the value's rank.
pub const INVALID_AXIS: Code = Code("E0316");
/// A Python construct Triton accepts that sema cannot lower in this position.
pub const UNSUPPORTED_CONSTRUCT: Code = Code("E0317");
/// A `return` that Triton rejects or whose types disagree with another `return`.
pub const INVALID_RETURN: Code = Code("E0318");
/// An attribute or method a value does not have.
pub const UNKNOWN_ATTRIBUTE: Code = Code("E0319");
/// A condition that is a multi-element block where a scalar is required.
pub const NON_SCALAR_CONDITION: Code = Code("E0320");
/// `@jit` helpers calling each other without end.
pub const RECURSION_LIMIT: Code = Code("E0321");
/// A wrong operand type for a builtin (fp16 into `tl.exp`, a float into `tl.arange`).
pub const INVALID_OPERAND: Code = Code("E0322");
/// A `tl.reduce`/`tl.associative_scan` combiner that is not a `@jit` function or whose
/// results do not match the combined operands.
pub const INVALID_COMBINE_FN: Code = Code("E0330");
/// A `tl.dot` whose operand shapes, dtypes, accumulator or options Triton rejects.
pub const INVALID_DOT: Code = Code("E0331");
/// An atomic on a dtype, memory semantic or scope Triton does not support.
pub const INVALID_ATOMIC: Code = Code("E0332");
/// A libdevice function called with argument dtypes it has no overload for.
pub const NO_EXTERN_OVERLOAD: Code = Code("E0333");
/// A malformed `tl.make_block_ptr`, `tl.advance` or block-pointer load/store.
pub const INVALID_BLOCK_POINTER: Code = Code("E0334");
/// A malformed `tl.make_tensor_descriptor` or tensor-descriptor load/store.
pub const INVALID_TENSOR_DESCRIPTOR: Code = Code("E0335");

/// A signature with more or fewer items than the kernel has parameters.
pub const SIGNATURE_ARITY: Code = Code("E0401");
/// A type name in a signature that is not a Triton dtype.
pub const SIGNATURE_UNKNOWN_DTYPE: Code = Code("E0402");
/// A `tl.constexpr` parameter given a runtime type in the signature.
pub const SIGNATURE_CONSTEXPR_TYPED: Code = Code("E0403");
/// A runtime parameter given a constant value in the signature.
pub const SIGNATURE_VALUE_FOR_RUNTIME: Code = Code("E0404");
/// A specialization hint other than `:16` or `:1`, or on a type that takes none.
pub const SIGNATURE_BAD_HINT: Code = Code("E0405");
/// A signature item that cannot be parsed at all.
pub const SIGNATURE_MALFORMED: Code = Code("E0406");
/// The requested kernel is not an `@triton.jit` function of the file.
pub const KERNEL_NOT_FOUND: Code = Code("E0407");
/// An autotune config or heuristic that names no parameter or fails to evaluate.
pub const BAD_META_PARAMETER: Code = Code("E0408");
/// A parameter annotated with a dtype that the signature contradicts.
pub const SIGNATURE_ANNOTATION_MISMATCH: Code = Code("E0409");
/// A parameter whose type or value neither the signature nor an annotation gives.
pub const SIGNATURE_REQUIRED: Code = Code("E0410");
/// A `@triton.heuristics` function reading an argument whose value the signature leaves open.
pub const HEURISTIC_NEEDS_VALUE: Code = Code("E0411");
/// A module-level global a kernel reads that is not a `tl.constexpr`.
pub const NON_CONSTEXPR_GLOBAL: Code = Code("E0340");
/// `and`/`or` on blocks (a warning: Triton 3.6 deprecates it).
pub const DEPRECATED_BOOL_OP: Code = Code("E0341");
/// An `assert` whose condition is a constexpr false (a warning: Triton compiles it).
pub const ASSERT_ALWAYS_FAILS: Code = Code("E0342");
/// Debug mode's integer overflow checks, which tritonc does not add (a warning).
pub const OVERFLOW_CHECKS_NOT_MODELLED: Code = Code("E0343");

macro_rules! doc {
    ($code:expr, $name:literal, $summary:literal, $explanation:literal) => {
        CodeDoc {
            code: $code,
            name: $name,
            summary: $summary,
            explanation: $explanation,
        }
    };
}

/// Every code sema emits, documented.
pub static CODES: &[CodeDoc] = &[
    doc!(
        UNKNOWN_TL_OP,
        "unknown-tl-op",
        "a `tl` name that Triton does not have",
        "The kernel calls or reads `tl.X`, but Triton 3.6's `triton.language` has no `X`. \
This is usually a typo or a NumPy/PyTorch name.

## Example
```python
y = tl.exponent(x)
```

## Use instead
```python
y = tl.exp(x)
```
"
    ),
    doc!(
        UNSUPPORTED_TL_OP,
        "unsupported-tl-op",
        "a `tl` builtin that tritonc does not lower yet",
        "`tl.X` exists in Triton 3.6 but tritonc cannot lower it yet. The kernel is valid \
Triton; compile it with upstream Triton until tritonc supports the builtin.

## Example
```python
acc = tl.dot(a, b)   # when tl.dot is not yet supported
```

## Use instead
Rewrite with supported builtins, or compile this kernel with upstream Triton.
"
    ),
    doc!(
        INCOMPATIBLE_TYPES,
        "incompatible-types",
        "operand types that no promotion rule accepts",
        "Triton's binary promotion (`computation_type_impl`) has no result type for these \
operands: pointer plus float, pointer plus pointer, `/`, `//` or `%` on integers of \
different signedness, bitwise operators on floats, `//` on floats.

## Example
```python
q = x_u32 // y_i32
```

## Use instead
```python
q = x_u32 // y_i32.to(tl.uint32)
```
"
    ),
    doc!(
        SHAPE_MISMATCH,
        "shape-mismatch",
        "block shapes that cannot be broadcast together",
        "Two blocks are combined but, after the lower-rank one gets leading 1-dims, some \
dimension differs and neither side is 1.

## Example
```python
a = tl.arange(0, 64)
b = tl.arange(0, 128)
c = a + b
```

## Use instead
```python
c = a[:, None] + b[None, :]   # a 64x128 block
```
"
    ),
    doc!(
        INVALID_BLOCK_SHAPE,
        "invalid-block-shape",
        "a block dim that is not a power of two, or too many elements",
        "Every dimension of a Triton block must be a power of two and a block holds at most \
2^20 elements. `tl.arange(start, end)` needs `end - start` to be a power of two.

## Example
```python
offs = tl.arange(0, 100)
```

## Use instead
```python
offs = tl.arange(0, 128)
mask = offs < 100
```
"
    ),
    doc!(
        LOOP_CARRIED_TYPE_CHANGE,
        "loop-carried-type-change",
        "a loop-carried variable changes type in the loop",
        "A variable defined before a `for`/`while` loop and reassigned in its body is carried \
around the loop (`scf.for` iter args), so its type must be the same on every iteration.

## Example
```python
acc = 0                          # i32 scalar
for k in range(0, K, BLOCK):
    acc += tl.load(p + k)        # f32
```

## Use instead
```python
acc = 0.0                        # f32 from the start
```
"
    ),
    doc!(
        BRANCH_TYPE_MISMATCH,
        "branch-type-mismatch",
        "a variable has different types after the branches of an `if`",
        "After an `if` on a runtime condition (`scf.if`) a variable assigned in both branches, \
or defined before the `if`, must have the same type on both paths.

## Example
```python
x = 0
if pid > 0:
    x = tl.load(p)     # f16
```

## Use instead
```python
x = tl.zeros((), tl.float16)  # or convert both sides to one dtype
```
"
    ),
    doc!(
        BAD_ARGUMENTS,
        "bad-arguments",
        "wrong number of arguments, an unknown keyword or a missing argument",
        "A builtin or `@jit` helper was called with arguments that do not match its parameters.

## Example
```python
tl.arange(0, 128, 2)
```

## Use instead
```python
tl.arange(0, 128)
```
"
    ),
    doc!(
        NOT_CONSTEXPR,
        "not-constexpr",
        "a runtime value where a compile-time constant is required",
        "This position needs a `tl.constexpr`: a literal, a constexpr parameter or an \
expression over them. Block shapes, axes, `tl.arange` bounds and `tl.static_range` \
bounds are all compile-time.

## Example
```python
offs = tl.arange(0, n)        # n is a runtime i32
```

## Use instead
```python
def kernel(..., BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
```
"
    ),
    doc!(
        UNDEFINED_NAME,
        "undefined-name",
        "a name that is not defined",
        "The name is not a local, a parameter, a constexpr global of the module, an imported \
module or an `@jit` function.

## Example
```python
y = x * scale      # scale never assigned
```

## Use instead
Pass `scale` as a parameter, or define `scale = tl.constexpr(2.0)` at module level.
"
    ),
    doc!(
        CONSTEXPR_ERROR,
        "constexpr-error",
        "compile-time Python that fails",
        "Evaluating a compile-time expression failed the way Python would fail: division by \
zero, an operation on unsupported types, an integer too large.

## Example
```python
N: tl.constexpr = BLOCK // 0
```

## Use instead
Fix the expression; compile-time arithmetic follows Python (`//` floors, `%` takes the \
sign of the divisor).
"
    ),
    doc!(
        STATIC_ASSERT_FAILED,
        "static-assert-failed",
        "`tl.static_assert` whose condition is false",
        "`tl.static_assert(cond, msg)` is checked at compile time and its condition was false \
for this specialization.

## Example
```python
tl.static_assert(BLOCK >= 16)   # with BLOCK = 8
```

## Use instead
Launch with constexpr values that satisfy the assertion.
"
    ),
    doc!(
        INVALID_CAST,
        "invalid-cast",
        "a conversion that `.to()` cannot do",
        "`x.to(dtype)` cannot do this conversion: `bitcast=True` between different bit widths, \
a pointer to a float, `fp_downcast_rounding` on a conversion that is not a float \
narrowing, or an unknown rounding mode.

## Example
```python
y = x_f32.to(tl.float16, bitcast=True)
```

## Use instead
```python
y = x_f32.to(tl.float16)                  # value conversion
z = x_f32.to(tl.int32, bitcast=True)      # same width
```
"
    ),
    doc!(
        INVALID_MEMORY_OP,
        "invalid-memory-op",
        "a malformed `tl.load` or `tl.store`",
        "A load or store is malformed: `other` without `mask`, a pointer argument that is not a \
pointer, an unknown cache modifier or eviction policy, `boundary_check` or \
`padding_option` on a pointer that is not a block pointer.

## Example
```python
x = tl.load(p + offs, other=0.0)
```

## Use instead
```python
x = tl.load(p + offs, mask=offs < n, other=0.0)
```
"
    ),
    doc!(
        LITERAL_OUT_OF_RANGE,
        "literal-out-of-range",
        "a Python number that does not fit its dtype",
        "A Python number combined with a block adopts the block's dtype and must fit in it; a \
negative number cannot meet an unsigned block.

## Example
```python
y = x_i8 + 300
```

## Use instead
```python
y = x_i8.to(tl.int32) + 300
```
"
    ),
    doc!(
        INVALID_AXIS,
        "invalid-axis",
        "an axis outside the value's rank",
        "The axis given to a reduction, `expand_dims` or `program_id` is out of range.

## Example
```python
s = tl.sum(x, axis=1)       # x is 1-D
```

## Use instead
```python
s = tl.sum(x, axis=0)
```
"
    ),
    doc!(
        UNSUPPORTED_CONSTRUCT,
        "unsupported-construct",
        "a construct that cannot be lowered here",
        "Triton accepts only a subset of Python inside kernels, and some of it only in certain \
positions: indexing takes only `None` and `:`, `for` iterates only over `range`, \
`tl.range` and `tl.static_range`, chained comparisons are rejected.

## Example
```python
y = x[1:4]
```

## Use instead
Build the index block with `tl.arange` and load through pointers.
"
    ),
    doc!(
        INVALID_RETURN,
        "invalid-return",
        "a `return` Triton rejects",
        "Kernels return nothing; helpers may return values, and every `return` of a helper \
must give values of the same types. A `return` inside a loop is rejected.

## Example
```python
@triton.jit
def kernel(p):
    return tl.load(p)
```

## Use instead
Store the result through a pointer argument.
"
    ),
    doc!(
        UNKNOWN_ATTRIBUTE,
        "unknown-attribute",
        "an attribute or method the value does not have",
        "The value has no such attribute. Blocks have `dtype`, `shape`, `T` and the tensor \
methods; dtypes have `element_ty`, `primitive_bitwidth` and the `is_*()` predicates.

## Example
```python
n = x.size
```

## Use instead
```python
n = x.numel
```
"
    ),
    doc!(
        NON_SCALAR_CONDITION,
        "non-scalar-condition",
        "a block used where a scalar condition is required",
        "`if`, `while` and ternaries on runtime values need a scalar (or a one-element block); \
a multi-element block has no single truth value.

## Example
```python
if offs < n:
    ...
```

## Use instead
```python
tl.store(p + offs, x, mask=offs < n)
```
"
    ),
    doc!(
        RECURSION_LIMIT,
        "recursion-limit",
        "`@jit` helpers that call each other without end",
        "Helpers are inlined at every call, so recursion without a compile-time base case never \
ends.

## Example
```python
@triton.jit
def f(x):
    return f(x)
```

## Use instead
Give the recursion a constexpr base case, or rewrite it as a loop.
"
    ),
    doc!(
        INVALID_OPERAND,
        "invalid-operand",
        "an operand type a builtin does not accept",
        "The builtin does not accept an operand of this type: transcendental math such as \
`tl.exp` accepts fp32 and fp64 only, `tl.arange` bounds must be integers, masks must be \
boolean-convertible.

## Example
```python
y = tl.exp(x_f16)
```

## Use instead
```python
y = tl.exp(x_f16.to(tl.float32))
```
"
    ),
    doc!(
        INVALID_COMBINE_FN,
        "invalid-combine-fn",
        "a reduce or scan combiner Triton rejects",
        "`tl.reduce` and `tl.associative_scan` inline their `combine_fn` into the reduce/scan \
region. The combiner must be a `@triton.jit` function taking the accumulated values and then \
the new ones (2N scalars for N operands) and returning N values of exactly the operands' \
element types.

## Example
```python
@triton.jit
def add(a, b):
    return a + 1.5          # an int32 operand becomes fp32

s = tl.reduce(x_i32, 0, add)
```

## Use instead
```python
@triton.jit
def add(a, b):
    return a + b

s = tl.reduce(x_i32, 0, add)
```
"
    ),
    doc!(
        INVALID_DOT,
        "invalid-dot",
        "a `tl.dot` with operands or options Triton rejects",
        "`tl.dot` needs blocks of rank 2 (or 3, batched) with matching inner dimensions, equal \
operand dtypes from {int8, fp16, bf16, fp32, fp64} (fp8 operands may mix), and on NVIDIA \
K >= 16 (K >= 32 for 8-bit operands). The result is int32 for int8, fp32 for fp32/bf16, \
fp64 for fp64, and `out_dtype` (fp32 or fp16) for fp16/fp8. An `acc` must have the result's \
shape and element type `out_dtype`, so an int32 accumulator needs `out_dtype=tl.int32` and an \
fp16 one `out_dtype=tl.float16`.

## Example
```python
a = tl.load(a_ptrs)                     # 64x8 fp16
b = tl.load(b_ptrs)                     # 8x64 fp16
c = tl.dot(a, b)                        # K = 8 < 16
```

## Use instead
```python
a = tl.load(a_ptrs)                     # 64x16 fp16
b = tl.load(b_ptrs)                     # 16x64 fp16
c = tl.dot(a, b)
```
"
    ),
    doc!(
        INVALID_ATOMIC,
        "invalid-atomic",
        "an atomic on an unsupported dtype, semantic or scope",
        "Triton's atomics reject 8-bit and 16-bit integers, fp16 and bf16 for anything but \
`atomic_add`, and `atomic_cas` on elements that are not 16, 32 or 64 bits wide. `sem` is one \
of acquire, release, acq_rel (default) and relaxed; `scope` is one of gpu (default), cta and \
sys. Atomics cannot write through a const pointer.

## Example
```python
tl.atomic_max(counts_ptr + idx, v_i8)
```

## Use instead
```python
tl.atomic_max(counts_i32_ptr + idx, v_i8.to(tl.int32))
```
"
    ),
    doc!(
        NO_EXTERN_OVERLOAD,
        "no-extern-overload",
        "a libdevice function without an overload for these dtypes",
        "`tl.extra.cuda.libdevice` functions dispatch on the exact dtypes of their arguments \
(after broadcasting and promotion); a function has overloads only for some dtypes, usually \
fp32 and fp64, and Triton raises `ValueError` for any other combination.

## Example
```python
y = libdevice.tanh(x_f16)
```

## Use instead
```python
y = libdevice.tanh(x_f16.to(tl.float32)).to(tl.float16)
```
"
    ),
    doc!(
        INVALID_BLOCK_POINTER,
        "invalid-block-pointer",
        "a malformed block pointer or block-pointer access",
        "`tl.make_block_ptr(base, shape, strides, offsets, block_shape, order)` needs a scalar \
pointer base, one shape, stride and offset per dim, a constant power-of-two `block_shape` and \
a permutation `order`. Loads and stores through a block pointer take `boundary_check` (dims \
in range, no duplicates) and `padding_option` (`\"zero\"` or `\"nan\"`, the latter for floats \
only) but not `mask` or `other`; the stored value must have the block's shape.

## Example
```python
p = tl.make_block_ptr(x_ptr, (M, N), (N, 1), (0, 0), (32, 32), (1, 0))
x = tl.load(p, mask=m)
```

## Use instead
```python
x = tl.load(p, boundary_check=(0, 1), padding_option=\"zero\")
```
"
    ),
    doc!(
        INVALID_TENSOR_DESCRIPTOR,
        "invalid-tensor-descriptor",
        "a malformed tensor descriptor or tensor-descriptor access",
        "`tl.make_tensor_descriptor(base, shape, strides, block_shape, padding_option=\"zero\")` \
needs a scalar pointer base, one to five dims with one shape and stride per dim, a last stride \
that is the literal `1`, a constant power-of-two `block_shape` whose last dim spans at least 16 \
bytes, and `padding_option` `\"zero\"` or `\"nan\"` (floats only), as Triton 3.6 requires. \
`desc.load(offsets)` and `desc.store(offsets, value)` take one 32-bit offset per dim, and the \
stored value must have the block's shape. A load reads the block at `offsets` with the \
elements outside `[0, shape)` in any dim filled with the padding; a store writes only the \
elements inside.

## Example
```python
d = tl.make_tensor_descriptor(x_ptr, shape=[M, N], strides=[N, stride_n], block_shape=[32, 32])
```

## Use instead
```python
d = tl.make_tensor_descriptor(x_ptr, shape=[M, N], strides=[N, 1], block_shape=[32, 32])
```
"
    ),
    doc!(
        SIGNATURE_ARITY,
        "signature-arity",
        "a signature with the wrong number of items",
        "A signature lists one item per kernel parameter, in order, constexprs included.

## Example
```text
--signature \"*fp32, *fp32\"         # for add_kernel(x, y, out, n, BLOCK)
```

## Use instead
```text
--signature \"*fp32, *fp32, *fp32, i32, 1024\"
```
"
    ),
    doc!(
        SIGNATURE_UNKNOWN_DTYPE,
        "signature-unknown-dtype",
        "an unknown type name in a signature",
        "Signature types use Triton's short names: `i1 i8 i16 i32 i64 u8 u16 u32 u64 fp8e4nv \
fp8e5 fp8e4b8 fp8e5b16 fp8e4b15 fp16 bf16 fp32 fp64`, with `*` for pointers and `*k` for \
const pointers.

## Example
```text
--signature \"*float32, i32\"
```

## Use instead
```text
--signature \"*fp32, i32\"
```
"
    ),
    doc!(
        SIGNATURE_CONSTEXPR_TYPED,
        "signature-constexpr-typed",
        "a constexpr parameter given a runtime type",
        "The parameter is annotated `tl.constexpr`, so the signature must give its value.

## Example
```text
--signature \"*fp32, i32\"          # for kernel(x, BLOCK: tl.constexpr)
```

## Use instead
```text
--signature \"*fp32, 1024\"
```
"
    ),
    doc!(
        SIGNATURE_VALUE_FOR_RUNTIME,
        "signature-value-for-runtime",
        "a runtime parameter given a constant value",
        "A bare value in a signature makes the parameter a compile-time constant, which only \
parameters annotated `tl.constexpr` accept (Triton's AOT compiler would silently \
specialize it; tritonc asks for the annotation so launches cannot disagree).

## Example
```text
--signature \"*fp32, 1024\"         # for kernel(x, n)
```

## Use instead
```text
--signature \"*fp32, i32\"          # or annotate `n: tl.constexpr`
```
"
    ),
    doc!(
        SIGNATURE_BAD_HINT,
        "signature-bad-hint",
        "a specialization hint other than `:16` or `:1`",
        "After a type, `:16` says the value (or the pointer's address) is divisible by 16 and \
`:1` says an integer equals 1 (it becomes the constant 1). No other hint exists, and \
floats take none.

## Example
```text
--signature \"*fp32:8, fp32:16\"
```

## Use instead
```text
--signature \"*fp32:16, fp32\"
```
"
    ),
    doc!(
        SIGNATURE_MALFORMED,
        "signature-malformed",
        "a signature item that cannot be parsed",
        "Each comma-separated item is a type with an optional hint (`*fp16:16`, `i32`), or a \
constant (`1024`, `0.5`, `True`, `'rtne'`, `fp16` as a dtype constexpr).

## Example
```text
--signature \"*fp32,, i32\"
```

## Use instead
```text
--signature \"*fp32, i32\"
```
"
    ),
    doc!(
        KERNEL_NOT_FOUND,
        "kernel-not-found",
        "the requested kernel is not a `@triton.jit` function",
        "The kernel name does not match any `@triton.jit` function at module level.

## Example
```text
tritonc compile add.py --kernel add
```

## Use instead
```text
tritonc compile add.py --kernel add_kernel
```
"
    ),
    doc!(
        BAD_META_PARAMETER,
        "bad-meta-parameter",
        "an autotune config or heuristic that cannot be applied",
        "A `triton.Config` or `@triton.heuristics` entry names a parameter the kernel does not \
have, sets a parameter that is not `tl.constexpr`, or fails to evaluate.

## Example
```python
@triton.autotune(configs=[triton.Config({'BLOCK_SZ': 64})], key=['n'])
```

## Use instead
```python
@triton.autotune(configs=[triton.Config({'BLOCK': 64})], key=['n'])
```
"
    ),
    doc!(
        SIGNATURE_ANNOTATION_MISMATCH,
        "signature-annotation-mismatch",
        "a signature type that contradicts the parameter's annotation",
        "The parameter is annotated with a dtype (`n: tl.int64`) and the signature gives another.

## Example
```text
--signature \"i32\"                 # for kernel(n: tl.int64)
```

## Use instead
```text
--signature \"i64\"
```
"
    ),
    doc!(
        SIGNATURE_REQUIRED,
        "signature-required",
        "a parameter whose type or value is not known",
        "Without `--signature`, tritonc specializes a kernel from its annotations: \
`n: tl.int32` is an `i32` argument, `x_ptr: \"*fp32\"` a pointer, and a `tl.constexpr` \
parameter takes its default value. A parameter with none of these has no type, so the \
kernel cannot be compiled; the message lists every such parameter and a signature to start \
from.

## Example
```text
tritonc compile add.py --emit ttir          # def add_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr)
```

## Use instead
```text
tritonc compile add.py --emit ttir --signature \"*fp32:16, *fp32:16, i32, 1024\"
```
"
    ),
    doc!(
        HEURISTIC_NEEDS_VALUE,
        "heuristic-needs-value",
        "a heuristic that reads an argument value the signature does not fix",
        "`@triton.heuristics` functions run at launch over the actual arguments. Ahead of \
time, tritonc knows an integer argument's value only when the signature fixes it (`:1`) \
or the parameter is a `tl.constexpr`; pointer arguments are known by their dtype only.

## Example
```python
@triton.heuristics({'BLOCK': lambda args: triton.next_power_of_2(args['n'])})
```
```text
--signature \"*fp32, i32\"
```

## Use instead
Make the value a constexpr for this compilation (`n: tl.constexpr` and a value in the
signature), or give the meta-parameter explicitly in the signature.
"
    ),
    doc!(
        NON_CONSTEXPR_GLOBAL,
        "non-constexpr-global",
        "a kernel reads a module-level global that is not a `tl.constexpr`",
        "Triton 3.6 lets kernels read only globals defined as `X = tl.constexpr(v)` (plus \
modules, `@jit` functions and dtypes). A plain `X = 3` and an annotated \
`X: tl.constexpr = 3` both raise `NameError` at compile time.

## Example
```python
BLOCK: tl.constexpr = 128

@triton.jit
def kernel(x_ptr):
    offs = tl.arange(0, BLOCK)
```

## Use instead
```python
BLOCK = tl.constexpr(128)
```
"
    ),
    doc!(
        DEPRECATED_BOOL_OP,
        "deprecated-bool-op",
        "`and` / `or` on blocks",
        "Triton 3.6 lowers `a and b` on runtime values to `logical_and` (an elementwise `&` on \
`i1`), warning that this is deprecated for blocks: it evaluates both sides, unlike \
Python's short circuit. This is a warning; the kernel compiles. Non-boolean runtime \
operands are an error, as Triton cannot bitcast them to `i1`.

## Example
```python
m = (offs > 0) and (offs < n)
```

## Use instead
```python
m = (offs > 0) & (offs < n)
```
"
    ),
    doc!(
        ASSERT_ALWAYS_FAILS,
        "assert-always-fails",
        "`assert` or `tl.device_assert` on a constexpr false",
        "Triton 3.6 treats `assert cond, msg` like `tl.device_assert(cond, msg)` even when \
`cond` is known at compile time: outside debug mode it emits nothing, and in debug mode \
(`@triton.jit(debug=True)`, `TRITON_DEBUG=1`, `--debug`) it becomes a device assert that \
fails in every program. This is a warning; the kernel compiles as in Triton.

## Example
```python
assert BLOCK % 16 == 0, \"BLOCK must be a multiple of 16\"   # with BLOCK = 8
```

## Use instead
```python
tl.static_assert(BLOCK % 16 == 0, \"BLOCK must be a multiple of 16\")
```
"
    ),
    doc!(
        OVERFLOW_CHECKS_NOT_MODELLED,
        "overflow-checks-not-modelled",
        "debug mode's integer overflow checks are not added",
        "In debug mode Triton 3.6 also checks every integer `+`, `-` and `*` narrower than 64 \
bits on runtime values (its `sanitize_overflow` option): it recomputes the operation in 64 \
bits and device-asserts that the result fits, failing with `int32 overflow detected for \
operation add`. tritonc compiles the kernel's own asserts in debug mode but not these \
checks, so an overflow that Triton's debug build would report wraps silently. This \
warning names the first such operation.

## Example
```python
offs = pid * BLOCK + tl.arange(0, BLOCK)   # checked by Triton in debug mode
```

## Use instead
Assert the bound yourself where it matters:
```python
tl.device_assert(pid < n_programs, \"pid out of range\")
```
"
    ),
];

/// The registry of sema's codes, for the catalog of every stage.
pub static REGISTRY: CodeRegistry = CodeRegistry::new("sema", CODES);

/// Every code sema emits, documented.
pub fn codes() -> &'static [CodeDoc] {
    CODES
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_are_unique_well_formed_and_in_range() {
        let mut seen = std::collections::HashSet::new();
        for doc in CODES {
            assert!(seen.insert(doc.code), "duplicate code {}", doc.code);
            let c = doc.code.0;
            assert!(
                c.starts_with("E03") || c.starts_with("E04"),
                "{c} outside E03xx/E04xx"
            );
            assert_eq!(c.len(), 5, "{c}");
            assert!(
                !doc.summary.ends_with('.'),
                "{c}: summary ends with a period"
            );
            assert!(doc.explanation.contains("## Example"), "{c}: no example");
            assert!(doc.explanation.contains("## Use instead"), "{c}: no cure");
            assert!(
                doc.name
                    .chars()
                    .all(|ch| ch.is_ascii_lowercase() || ch == '-'),
                "{c}"
            );
        }
        assert_eq!(
            REGISTRY.lookup("e0302").map(|d| d.name),
            Some("unsupported-tl-op")
        );
    }
}
