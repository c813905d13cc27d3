#!/usr/bin/env python3
"""Record Triton 3.6's verdict on constructs real-world kernels use and tritonc once refused.

Each case is a small module in the style of the projects it comes from (optional
pointers passed as `None`, `@triton.constexpr_function` helpers, `.value` on a dtype
handed to a helper, `raise` in a branch dead at compile time, f-strings in
`tl.static_assert`, `tl.extra.cuda` helpers, `tl.abs` on bf16, unknown
`do_not_specialize` names, `tl.constexpr(...)` globals, `tl.range` keywords,
`isinstance` against Triton's classes, `int.bit_length()`, `~` on booleans and unsigned
integers).

The signature a case is compiled with is the one Triton's launcher derives: an
argument given as `None` gets the type `mangle_type(None)` (`constexpr`) and the
constant `None`, whatever the parameter's annotation.

Writes tests/fixtures/triton/coverage.json: for each case the module source, the
kernel, the signature in tritonc's syntax, whether Triton accepts it (code generator
plus TTIR passes, sm_90), the error type and first message line when it does not, and
`facts`: how many times each listed TTIR op occurs (and `constants`: the integer
constants in the TTIR) where a case's meaning matters.

Usage: python3 scripts/triton_coverage.py
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from triton_common import (  # noqa: E402
    REPO_ROOT,
    compile_ttir,
    describe_exception,
    jit_from_source,
    strip_locations,
)

import triton  # noqa: E402
from triton.runtime.jit import mangle_type  # noqa: E402

OUT = REPO_ROOT / "tests" / "fixtures" / "triton" / "coverage.json"

HEADER = "import triton\nimport triton.language as tl\n\n"

# TTIR ops whose counts each case records.
OPS = ["tt.load", "tt.store", "scf.for", "scf.if", "tt.elementwise_inline_asm", "math.absf", "arith.extf",
       "arith.truncf", "arith.fptosi", "tt.descriptor_load", "tt.descriptor_store", "tt.descriptor_reduce",
       "arith.sitofp", "tt.ptr_to_int"]

OPTIONAL_BIAS = """
@triton.jit
def kernel(x_ptr, b_ptr, n, BLOCK: tl.constexpr):
    r = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + r, mask=r < n)
    if b_ptr is not None:
        x += tl.load(b_ptr + r, mask=r < n)
    tl.store(x_ptr + r, x, mask=r < n)
"""

IS_NONE_BRANCH = """
@triton.jit
def kernel(x_ptr, w_ptr, n, BLOCK: tl.constexpr):
    r = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + r, mask=r < n)
    if w_ptr is None:
        w = 1.0
    else:
        w = tl.load(w_ptr + r, mask=r < n)
    tl.store(x_ptr + r, x * w, mask=r < n)
"""

NONE_PASSED_TO_HELPER = """
@triton.jit
def scale(x, s_ptr, r, n):
    if s_ptr is not None:
        x = x * tl.load(s_ptr + r, mask=r < n)
    return x


@triton.jit
def kernel(x_ptr, s_ptr, n, BLOCK: tl.constexpr):
    r = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + r, mask=r < n)
    tl.store(x_ptr + r, scale(x, s_ptr, r, n), mask=r < n)
"""

NONE_USED_AS_POINTER = """
@triton.jit
def kernel(x_ptr, b_ptr, n, BLOCK: tl.constexpr):
    r = tl.arange(0, BLOCK)
    tl.store(x_ptr + r, tl.load(b_ptr + r), mask=r < n)
"""

CONSTEXPR_FUNCTION = """
@triton.constexpr_function
def chunk_for(n):
    return max(16, n * 2)


@triton.jit
def kernel(x_ptr, BLOCK: tl.constexpr):
    C: tl.constexpr = chunk_for(BLOCK)
    r = tl.arange(0, C)
    tl.store(x_ptr + r, r)
"""

TL_CONSTEXPR_FUNCTION = """
@tl.constexpr
def chunk_for(n):
    return max(16, n * 2)


@triton.jit
def kernel(x_ptr, BLOCK: tl.constexpr):
    C: tl.constexpr = chunk_for(BLOCK)
    r = tl.arange(0, C)
    tl.store(x_ptr + r, r)
"""

DTYPE_VALUE_IN_HELPER = """
@triton.jit
def load_as(ptr, r, dtype):
    return tl.load(ptr + r).to(dtype.value)


@triton.jit
def kernel(x_ptr, y_ptr, BLOCK: tl.constexpr):
    r = tl.arange(0, BLOCK)
    tl.store(y_ptr + r, load_as(x_ptr, r, tl.float32))
"""

DTYPE_VALUE_COMPARE_IN_HELPER = """
@triton.jit
def widen(x, dtype: tl.constexpr):
    if dtype.value == tl.bfloat16:
        x = x.to(tl.float32)
    return x


@triton.jit
def kernel(x_ptr, y_ptr, BLOCK: tl.constexpr):
    r = tl.arange(0, BLOCK)
    tl.store(y_ptr + r, widen(tl.load(x_ptr + r), x_ptr.dtype.element_ty))
"""

CONSTEXPR_VALUE_IN_KERNEL = """
@triton.jit
def kernel(x_ptr, BLOCK: tl.constexpr):
    r = tl.arange(0, BLOCK.value)
    tl.store(x_ptr + r, r)
"""

RAISE_DEAD = """
@triton.jit
def kernel(x_ptr, MODE: tl.constexpr):
    if MODE == 0:
        tl.store(x_ptr, 1.0)
    elif MODE == 1:
        tl.store(x_ptr, 2.0)
    else:
        raise ValueError("unknown MODE")
"""

RAISE_DYNAMIC = """
@triton.jit
def kernel(x_ptr, n):
    if n > 0:
        tl.store(x_ptr, 1.0)
    else:
        raise ValueError("n must be positive")
"""

RAISE_IN_HELPER = """
@triton.jit
def act(x, ACT: tl.constexpr):
    if ACT == "relu":
        return tl.maximum(x, 0.0)
    elif ACT == "none":
        return x
    else:
        raise NotImplementedError(f"activation {ACT}")


@triton.jit
def kernel(x_ptr, ACT: tl.constexpr):
    tl.store(x_ptr, act(tl.load(x_ptr), ACT))
"""

STATIC_ASSERT_FSTRING = """
@triton.jit
def kernel(x_ptr, BLOCK: tl.constexpr):
    tl.static_assert(BLOCK >= 16, f"{BLOCK=} is too small")
    r = tl.arange(0, BLOCK)
    tl.store(x_ptr + r, r)
"""

GDC = """
@triton.jit
def kernel(x_ptr, BLOCK: tl.constexpr):
    tl.extra.cuda.gdc_wait()
    r = tl.arange(0, BLOCK)
    tl.store(x_ptr + r, r)
    tl.extra.cuda.gdc_launch_dependents()
"""

NUM_THREADS = """
@triton.jit
def kernel(x_ptr):
    tl.store(x_ptr, tl.extra.cuda.num_threads())
"""

ABS_BF16 = """
@triton.jit
def kernel(x_ptr, y_ptr, BLOCK: tl.constexpr):
    r = tl.arange(0, BLOCK)
    tl.store(y_ptr + r, tl.abs(tl.load(x_ptr + r)))
"""

FP8_OTHER = """
@triton.jit
def kernel(x_ptr, y_ptr, BLOCK: tl.constexpr):
    r = tl.arange(0, BLOCK)
    tl.store(y_ptr + r, tl.load(x_ptr + r, mask=r < 3, other=OTHER))
"""

DO_NOT_SPECIALIZE_UNKNOWN = """
@triton.jit(do_not_specialize=["missing", 7])
def kernel(x_ptr, n):
    tl.store(x_ptr, n)
"""

CONSTEXPR_GLOBAL_CALL = """
_CASTING_MODE_NONE: tl.constexpr = tl.constexpr(-1)
_CASTING_MODE_LLAMA: tl.constexpr = tl.constexpr(0)
_CASTING_MODE_GEMMA: tl.constexpr = tl.constexpr(1)


@triton.jit
def kernel(x_ptr, casting_mode: tl.constexpr, BLOCK: tl.constexpr):
    r = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + r)
    if casting_mode == _CASTING_MODE_LLAMA:
        x = x.to(tl.float32)
    tl.store(x_ptr + r, x)
"""


ASSUME = """
@triton.jit
def kernel(x_ptr, n, stride, BLOCK: tl.constexpr):
    tl.assume(n > 0)
    tl.assume(stride % 16 == 0)
    tl.assume(cond=BLOCK > 0)
    r = tl.arange(0, BLOCK)
    tl.store(x_ptr + r * stride, r, mask=r < n)
"""


def assume(cond: str) -> str:
    return f"""
@triton.jit
def kernel(x_ptr, n, BLOCK: tl.constexpr):
    r = tl.arange(0, BLOCK)
    tl.assume({cond})
    tl.store(x_ptr + r, r, mask=r < n)
"""


POINTER_CAST = """
@triton.jit
def kernel(x_ptr, y_ptr, BLOCK: tl.constexpr):
    r = tl.arange(0, BLOCK)
    p = x_ptr.to(tl.pointer_type(tl.float16))
    q = (y_ptr + r).to(tl.pointer_type(tl.float16), bitcast=True)
    tl.store(q, tl.load(p + r))
"""

POINTER_FROM_INT64 = """
@triton.jit
def kernel(addrs_ptr, y_ptr, BLOCK: tl.constexpr):
    r = tl.arange(0, BLOCK)
    a = tl.load(addrs_ptr)
    p = a.to(tl.pointer_type(tl.float32))
    tl.store(y_ptr + r, tl.load(p + r))
"""


def pointer_stmt(stmt: str) -> str:
    return f"""
@triton.jit
def kernel(x_ptr, y_ptr, n):
    {stmt}
"""


ARGMAX_AFTER_SOFTMAX = """
@triton.jit
def kernel(x_ptr, y_ptr, N: tl.constexpr, M: tl.constexpr):
    r = tl.arange(0, M)[:, None] * N + tl.arange(0, N)[None, :]
    x = tl.load(x_ptr + r)
    x = x - tl.max(x, axis=1)[:, None]
    e = tl.exp(x)
    p = e / tl.sum(e, axis=1)[:, None]
    idx = tl.argmax(p, axis=1)
    tl.store(y_ptr + tl.arange(0, M), idx)
"""

TENSOR_DESCRIPTOR = """
@triton.jit
def kernel(x_ptr, M, N, BM: tl.constexpr, BN: tl.constexpr):
    d = tl.make_tensor_descriptor(x_ptr, shape=[M, N], strides=[N, 1], block_shape=[BM, BN])
    t = d.load([0, 0])
    d.store([0, 0], t + 1)
"""


def descriptor(make_args: str, body: str = "    t = d.load([0, 0])\n    d.store([0, 0], t + 1)",
               params: str = "") -> str:
    """A kernel making a descriptor of `x_ptr` with `make_args` (after the base) and using it."""
    return f"""
@triton.jit
def kernel(x_ptr, M, N, s, o{params}):
    d = tl.make_tensor_descriptor(x_ptr, {make_args})
{body}
"""


DESCRIPTOR_OK = "shape=[M, N], strides=[N, 1], block_shape=[16, 16]"
DESCRIPTOR_SIG = {"x_ptr": "*fp32", "M": "i32", "N": "i32", "s": "i32", "o": "i64"}
DESCRIPTOR_CASES = [
    ("descriptor_last_stride_not_one", descriptor("shape=[M, N], strides=[1, M], block_shape=[16, 16]")),
    ("descriptor_block_of_pointers", """
@triton.jit
def kernel(x_ptr, M, N, s, o):
    d = tl.make_tensor_descriptor(x_ptr + tl.arange(0, 16), shape=[M, N], strides=[N, 1], block_shape=[16, 16])
    d.store([0, 0], d.load([0, 0]))
"""),
    ("descriptor_last_stride_two", descriptor("shape=[M, N], strides=[N, 2], block_shape=[16, 16]")),
    ("descriptor_runtime_last_stride", descriptor("shape=[M, N], strides=[N, s], block_shape=[16, 16]")),
    ("descriptor_strides_count", descriptor("shape=[M, N], strides=[1], block_shape=[16, 16]")),
    ("descriptor_six_dims", descriptor("shape=[M, N, M, N, M, N], strides=[N, 1, 1, 1, 1, 1], "
                                       "block_shape=[16, 16, 16, 16, 16, 16]")),
    ("descriptor_last_dim_under_16_bytes", descriptor("shape=[M, N], strides=[N, 1], block_shape=[16, 2]")),
    ("descriptor_nan_padding_int", descriptor("shape=[M, N], strides=[N, 1], block_shape=[16, 16], "
                                              "padding_option='nan'").replace("t + 1", "t")),
    ("descriptor_store_wrong_shape", descriptor(DESCRIPTOR_OK, "    d.store([0, 0], tl.zeros([16, 8], tl.float32))")),
    ("descriptor_store_scalar", descriptor(DESCRIPTOR_OK, "    d.store([0, 0], 1.0)")),
    ("descriptor_int64_offset", descriptor(DESCRIPTOR_OK, "    d.store([0, 0], d.load([o, 0]))")),
    ("descriptor_offsets_count", descriptor(DESCRIPTOR_OK, "    d.store([0, 0], d.load([0]))")),
    ("descriptor_store_converts", descriptor(DESCRIPTOR_OK, "    d.store([s, 0], tl.zeros([16, 16], tl.int32) + s)")),
    ("descriptor_block_shape_attr", descriptor(DESCRIPTOR_OK,
                                               "    t = d.load([0, 0])\n"
                                               "    tl.static_assert(d.block_shape[1] == 16)\n"
                                               "    tl.store(x_ptr + tl.arange(0, d.block_shape[0]), tl.sum(t, axis=1))")),
    ("descriptor_in_helper", """
@triton.jit
def load_tile(src, i):
    return src.load([i, 0])


@triton.jit
def kernel(x_ptr, M, N, s, o):
    d = tl.make_tensor_descriptor(x_ptr, shape=[M, N], strides=[N, 1], block_shape=[16, 16])
    tl.store_tensor_descriptor(d, [0, 0], load_tile(d, s) * 2)
"""),
    ("isinstance_descriptor_is_descriptor", descriptor(DESCRIPTOR_OK,
                                                       "    if isinstance(d, tl.tensor_descriptor):\n"
                                                       "        d.store([0, 0], d.load([0, 0]) + 1)")),
    ("isinstance_descriptor_is_not_tensor", descriptor(DESCRIPTOR_OK,
                                                       "    if isinstance(d, tl.tensor):\n"
                                                       "        d.store([0, 0], d.load([0, 0]) + 1)")),
    ("descriptor_atomic_add", descriptor(DESCRIPTOR_OK, "    d.atomic_add([0, 0], d.load([0, 0]))")),
]
INT_DESCRIPTOR_SIG = dict(DESCRIPTOR_SIG, x_ptr="*i32")


def sum_of_loads(terms: int) -> str:
    total = " + ".join(f"tl.load(x_ptr + {i})" for i in range(terms))
    return f"""
@triton.jit
def kernel(x_ptr, y_ptr):
    s = {total}
    tl.store(y_ptr, s)
"""


def tl_range(keywords: str, extra_params: str = "") -> str:
    return f"""
@triton.jit
def kernel(x_ptr, n{extra_params}):
    acc = 0.0
    for i in tl.range(0, n{keywords}):
        acc += tl.load(x_ptr + i)
    tl.store(x_ptr, acc)
"""


# (name, source after HEADER, {param: value} of the launch (None = passed as None), tritonc signature)
def isinstance_case(cond: str) -> str:
    """A kernel that adds 1 (an i32 constant in the TTIR) only when `cond` holds."""
    return f"""
@triton.jit
def kernel(x_ptr, BLOCK: tl.constexpr):
    r = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + r)
    if {cond}:
        x = x + 1
    tl.store(x_ptr + r, x)
"""


# A helper that takes a pointer or a tensor descriptor, as real projects write it.
ISINSTANCE_DESCRIPTOR_HELPER = """
@triton.jit
def load_tile(src, r):
    if isinstance(src, tl.tensor_descriptor):
        return src.load([0])
    else:
        return tl.load(src + r)


@triton.jit
def kernel(x_ptr, BLOCK: tl.constexpr):
    r = tl.arange(0, BLOCK)
    tl.store(x_ptr + r, load_tile(x_ptr, r) + 1)
"""

ISINSTANCE_CASES = [
    ("isinstance_block_is_tensor", "isinstance(x, tl.tensor)"),
    ("isinstance_pointer_is_tensor", "isinstance(x_ptr, tl.tensor)"),
    ("isinstance_block_is_not_descriptor", "isinstance(x, tl.tensor_descriptor)"),
    ("isinstance_constexpr_is_int", "isinstance(BLOCK, int)"),
    ("isinstance_constexpr_is_not_constexpr", "isinstance(BLOCK, tl.constexpr)"),
    ("isinstance_constexpr_is_not_tensor", "isinstance(BLOCK, tl.tensor)"),
    ("isinstance_pointer_dtype", "isinstance(x_ptr.dtype, tl.pointer_type)"),
    ("isinstance_block_dtype_is_not_pointer_type", "isinstance(x.dtype, tl.pointer_type)"),
    ("isinstance_dtype", "isinstance(x.dtype, tl.dtype)"),
    ("isinstance_float", "isinstance(1.5, float)"),
    ("isinstance_tuple_of_classes", "isinstance(x, (tl.tensor_descriptor, tl.tensor))"),
]

BIT_LENGTH_IN_CONSTEXPR_FUNCTION = """
@triton.constexpr_function
def next_pow2(n):
    return 1 << (n - 1).bit_length()


@triton.jit
def kernel(x_ptr, N: tl.constexpr):
    B: tl.constexpr = next_pow2(N)
    r = tl.arange(0, B)
    tl.store(x_ptr + r, r, mask=r < N)
"""

BIT_LENGTH_IN_KERNEL = """
@triton.jit
def kernel(x_ptr, N: tl.constexpr):
    r = tl.arange(0, 1 << (N - 1).bit_length())
    tl.store(x_ptr + r, r, mask=r < N)
"""

INVERT_MASK = """
@triton.jit
def kernel(x_ptr, y_ptr, BLOCK: tl.constexpr):
    r = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + r)
    mask = x >= 0
    tl.store(y_ptr + r, x, mask=mask)
    tl.store(y_ptr + r, -1, mask=~mask)
"""

# vllm's `_topk_index_kernel` and others: private helpers of `triton.language.standard`
# and `triton.language.core` reached through `tl.standard.X`, `tl.core.X` or an import.
PRIVATE_HELPERS = """
from triton.language.standard import _log2


@triton.jit
def kernel(x_ptr, N: tl.constexpr):
    L: tl.constexpr = tl.standard._log2(N)
    P: tl.constexpr = tl.standard._is_power_of_two(N)
    M: tl.constexpr = _log2(N * 4 + 1)
    Z: tl.constexpr = tl.core.CONSTEXPR_0
    tl.store(x_ptr + tl.arange(0, 16), tl.full((16,), L * 10000 + M * 100 + P * 10 + Z, tl.int32))
"""


def private_dtype(expr: str) -> str:
    """A kernel storing `bits * 10 + signed` of the dtype `expr` gives."""
    return f"""
@triton.jit
def kernel(x_ptr, N: tl.constexpr):
    dt: tl.constexpr = {expr}
    tl.store(x_ptr + tl.arange(0, 16), tl.full((16,), dt.primitive_bitwidth * 10 + dt.is_int_signed(), tl.int32))
"""


def private_combine(reduction: str) -> str:
    return f"""
@triton.jit
def kernel(x_ptr, y_ptr, N: tl.constexpr):
    r = tl.arange(0, N)
    x = tl.load(x_ptr + r)
    tl.store(y_ptr + r, {reduction})
"""


CASES: list[tuple[str, str, dict, str]] = [
    ("none_for_optional_pointer", OPTIONAL_BIAS, {"x_ptr": "*fp32", "b_ptr": None, "n": "i32", "BLOCK": 128},
     "*fp32, None, i32, 128"),
    ("pointer_for_optional_pointer", OPTIONAL_BIAS, {"x_ptr": "*fp32", "b_ptr": "*fp32", "n": "i32", "BLOCK": 128},
     "*fp32, *fp32, i32, 128"),
    ("is_none_else_branch_with_none", IS_NONE_BRANCH, {"x_ptr": "*fp32", "w_ptr": None, "n": "i32", "BLOCK": 128},
     "*fp32, None, i32, 128"),
    ("is_none_else_branch_with_pointer", IS_NONE_BRANCH,
     {"x_ptr": "*fp32", "w_ptr": "*fp32", "n": "i32", "BLOCK": 128}, "*fp32, *fp32, i32, 128"),
    ("none_passed_on_to_helper", NONE_PASSED_TO_HELPER, {"x_ptr": "*fp32", "s_ptr": None, "n": "i32", "BLOCK": 128},
     "*fp32, None, i32, 128"),
    ("none_used_as_pointer", NONE_USED_AS_POINTER, {"x_ptr": "*fp32", "b_ptr": None, "n": "i32", "BLOCK": 128},
     "*fp32, None, i32, 128"),
    ("triton_constexpr_function_helper", CONSTEXPR_FUNCTION, {"x_ptr": "*i32", "BLOCK": 64}, "*i32, 64"),
    ("tl_constexpr_decorated_helper", TL_CONSTEXPR_FUNCTION, {"x_ptr": "*i32", "BLOCK": 64}, "*i32, 64"),
    ("dtype_value_in_helper", DTYPE_VALUE_IN_HELPER, {"x_ptr": "*fp16", "y_ptr": "*fp32", "BLOCK": 64},
     "*fp16, *fp32, 64"),
    ("dtype_value_compare_in_helper", DTYPE_VALUE_COMPARE_IN_HELPER,
     {"x_ptr": "*bf16", "y_ptr": "*fp32", "BLOCK": 64}, "*bf16, *fp32, 64"),
    ("constexpr_value_in_kernel", CONSTEXPR_VALUE_IN_KERNEL, {"x_ptr": "*i32", "BLOCK": 64}, "*i32, 64"),
    ("raise_in_dead_else", RAISE_DEAD, {"x_ptr": "*fp32", "MODE": 1}, "*fp32, 1"),
    ("raise_reached", RAISE_DEAD, {"x_ptr": "*fp32", "MODE": 2}, "*fp32, 2"),
    ("raise_in_runtime_branch", RAISE_DYNAMIC, {"x_ptr": "*fp32", "n": "i32"}, "*fp32, i32"),
    ("raise_in_helper_dead", RAISE_IN_HELPER, {"x_ptr": "*fp32", "ACT": "relu"}, "*fp32, 'relu'"),
    ("raise_in_helper_reached", RAISE_IN_HELPER, {"x_ptr": "*fp32", "ACT": "gelu"}, "*fp32, 'gelu'"),
    ("static_assert_fstring_holds", STATIC_ASSERT_FSTRING, {"x_ptr": "*i32", "BLOCK": 32}, "*i32, 32"),
    ("static_assert_fstring_fails", STATIC_ASSERT_FSTRING, {"x_ptr": "*i32", "BLOCK": 8}, "*i32, 8"),
    ("gdc_wait_and_launch_dependents", GDC, {"x_ptr": "*i32", "BLOCK": 64}, "*i32, 64"),
    ("num_threads", NUM_THREADS, {"x_ptr": "*i32"}, "*i32"),
    ("abs_bf16", ABS_BF16, {"x_ptr": "*bf16", "y_ptr": "*bf16", "BLOCK": 64}, "*bf16, *bf16, 64"),
    ("fp8_load_int_other", FP8_OTHER.replace("OTHER", "0"), {"x_ptr": "*fp8e4nv", "y_ptr": "*fp8e4nv", "BLOCK": 64},
     "*fp8e4nv, *fp8e4nv, 64"),
    ("fp8_load_float_other", FP8_OTHER.replace("OTHER", "0.0"),
     {"x_ptr": "*fp8e4nv", "y_ptr": "*fp8e4nv", "BLOCK": 64}, "*fp8e4nv, *fp8e4nv, 64"),
    ("abs_fp16", ABS_BF16, {"x_ptr": "*fp16", "y_ptr": "*fp16", "BLOCK": 64}, "*fp16, *fp16, 64"),
    ("do_not_specialize_unknown_names", DO_NOT_SPECIALIZE_UNKNOWN, {"x_ptr": "*i32", "n": "i32"}, "*i32, i32"),
    ("constexpr_global_from_call", CONSTEXPR_GLOBAL_CALL, {"x_ptr": "*bf16", "casting_mode": 0, "BLOCK": 64},
     "*bf16, 0, 64"),
    ("assume_hints", ASSUME, {"x_ptr": "*i32", "n": "i32", "stride": "i32", "BLOCK": 64}, "*i32, i32, i32, 64"),
    ("assume_on_block", assume("r < n"), {"x_ptr": "*i32", "n": "i32", "BLOCK": 64}, "*i32, i32, 64"),
    ("assume_on_int", assume("n"), {"x_ptr": "*i32", "n": "i32", "BLOCK": 64}, "*i32, i32, 64"),
    ("pointer_cast_between_pointers", POINTER_CAST, {"x_ptr": "*fp16", "y_ptr": "*bf16", "BLOCK": 64},
     "*fp16, *bf16, 64"),
    ("pointer_cast_from_int64", POINTER_FROM_INT64, {"addrs_ptr": "*i64", "y_ptr": "*fp32", "BLOCK": 64},
     "*i64, *fp32, 64"),
    ("pointer_cast_from_int32", pointer_stmt("tl.store(n.to(tl.pointer_type(tl.float32)), 1.0)"),
     {"x_ptr": "*fp32", "y_ptr": "*i64", "n": "i32"}, "*fp32, *i64, i32"),
    ("pointer_to_int64", pointer_stmt("tl.store(y_ptr, x_ptr.to(tl.int64))"),
     {"x_ptr": "*fp32", "y_ptr": "*i64", "n": "i32"}, "*fp32, *i64, i32"),
    ("pointer_to_int1", pointer_stmt("tl.store(y_ptr, x_ptr.to(tl.int1))"),
     {"x_ptr": "*fp32", "y_ptr": "*i64", "n": "i32"}, "*fp32, *i64, i32"),
    ("pointer_to_int32", pointer_stmt("tl.store(y_ptr, x_ptr.to(tl.int32))"),
     {"x_ptr": "*fp32", "y_ptr": "*i64", "n": "i32"}, "*fp32, *i64, i32"),
    ("pointer_cast_other_address_space", pointer_stmt("tl.store(x_ptr.to(tl.pointer_type(tl.float32, 3)), 1.0)"),
     {"x_ptr": "*fp32", "y_ptr": "*i64", "n": "i32"}, "*fp32, *i64, i32"),
    ("argmax_after_softmax", ARGMAX_AFTER_SOFTMAX, {"x_ptr": "*fp32", "y_ptr": "*i32", "N": 64, "M": 16},
     "*fp32, *i32, 64, 16"),
    ("make_tensor_descriptor", TENSOR_DESCRIPTOR, {"x_ptr": "*fp16", "M": "i32", "N": "i32", "BM": 64, "BN": 64},
     "*fp16, i32, i32, 64, 64"),
    # Triton's code generator recurses once per operand of a chain; with Python's default
    # recursion limit it fails between 300 and 400 operands.
    ("sum_of_300_loads", sum_of_loads(300), {"x_ptr": "*fp32", "y_ptr": "*fp32"}, "*fp32, *fp32"),
    ("sum_of_1000_loads", sum_of_loads(1000), {"x_ptr": "*fp32", "y_ptr": "*fp32"}, "*fp32, *fp32"),
    ("int_load_float_inf_other", """
@triton.jit
def kernel(x_ptr, y_ptr, BLOCK: tl.constexpr):
    r = tl.arange(0, BLOCK)
    tl.store(y_ptr + r, tl.load(x_ptr + r, mask=r < 3, other=float("-inf")))
""", {"x_ptr": "*i64", "y_ptr": "*i64", "BLOCK": 64}, "*i64, *i64, 64"),
    ("range_num_stages", tl_range(", num_stages=2"), {"x_ptr": "*fp32", "n": "i32"}, "*fp32, i32"),
    ("range_all_keywords", tl_range(", 1, num_stages=3, loop_unroll_factor=2, disallow_acc_multi_buffer=True, "
                                    "flatten=True, warp_specialize=False, disable_licm=True"),
     {"x_ptr": "*fp32", "n": "i32"}, "*fp32, i32"),
    ("range_num_stages_constexpr", tl_range(", num_stages=S", ", S: tl.constexpr"),
     {"x_ptr": "*fp32", "n": "i32", "S": 4}, "*fp32, i32, 4"),
    ("range_num_stages_runtime", tl_range(", num_stages=n"), {"x_ptr": "*fp32", "n": "i32"}, "*fp32, i32"),
    ("range_unknown_keyword", tl_range(", num_stage=2"), {"x_ptr": "*fp32", "n": "i32"}, "*fp32, i32"),
    ("range_step_keyword", tl_range(", step=2"), {"x_ptr": "*fp32", "n": "i32"}, "*fp32, i32"),
    ("range_num_stages_float", tl_range(", num_stages=2.5"), {"x_ptr": "*fp32", "n": "i32"}, "*fp32, i32"),
    *[(name, isinstance_case(cond), {"x_ptr": "*i32", "BLOCK": 64}, "*i32, 64") for name, cond in ISINSTANCE_CASES],
    ("isinstance_descriptor_helper", ISINSTANCE_DESCRIPTOR_HELPER, {"x_ptr": "*i32", "BLOCK": 64}, "*i32, 64"),
    ("bit_length_in_constexpr_function", BIT_LENGTH_IN_CONSTEXPR_FUNCTION, {"x_ptr": "*i32", "N": 100}, "*i32, 100"),
    ("bit_length_in_kernel", BIT_LENGTH_IN_KERNEL, {"x_ptr": "*i32", "N": 100}, "*i32, 100"),
    *[(name, body, INT_DESCRIPTOR_SIG if "nan" in name else DESCRIPTOR_SIG,
       ("*i32" if "nan" in name else "*fp32") + ", i32, i32, i32, i64") for name, body in DESCRIPTOR_CASES],
    # sglang's `transform_index_page_table_decode_kernel`: a store masked by `~mask`. `~`
    # is `xor` with every bit set (`true` for i1, 0xFF.. for unsigned types).
    ("invert_bool_mask", INVERT_MASK, {"x_ptr": "*i32", "y_ptr": "*i32", "BLOCK": 64}, "*i32, *i32, 64"),
    ("invert_scalar_bool", """
@triton.jit
def kernel(y_ptr, n):
    tl.store(y_ptr, (~(n > 0)).to(tl.int32))
""", {"y_ptr": "*i32", "n": "i32"}, "*i32, i32"),
    *[(f"invert_{t}", f"""
@triton.jit
def kernel(x_ptr, y_ptr, BLOCK: tl.constexpr):
    r = tl.arange(0, BLOCK)
    tl.store(y_ptr + r, ~tl.load(x_ptr + r))
""", {"x_ptr": f"*{t}", "y_ptr": f"*{t}", "BLOCK": 64}, f"*{t}, *{t}, 64") for t in ("u8", "u32", "i16", "u64")],
    # flag-gems `adaptive_avg_pool3d_kernel`: `tl.full((), x, tl.int64)` with a pointer `x`
    # is Triton's `semantic.cast` of the pointer (`tt.ptr_to_int`); so is a pointer stored
    # through an int64 pointer.
    *[(name, f"""
@triton.jit
def kernel(x_ptr, y_ptr):
    {stmt}
""", {"x_ptr": "*fp32", "y_ptr": "*i64"}, "*fp32, *i64") for name, stmt in (
        ("full_of_pointer_int64", "tl.store(y_ptr, tl.full((), x_ptr, tl.int64))"),
        ("full_of_pointer_block_int64", "tl.store(y_ptr + tl.arange(0, 4), tl.full((4,), x_ptr, tl.int64))"),
        ("full_of_pointer_int32", "tl.store(y_ptr, tl.full((), x_ptr, tl.int32))"),
        ("store_pointer_to_int64_pointer", "tl.store(y_ptr, x_ptr)"),
    )],
    *[(f"private_helper_log2_{n}", PRIVATE_HELPERS, {"x_ptr": "*i32", "N": n}, f"*i32, {n}")
      for n in (1, 2, 16, 24, 1000)],
    ("private_helper_log2_runtime", """
@triton.jit
def kernel(x_ptr, n):
    tl.store(x_ptr, tl.standard._log2(n))
""", {"x_ptr": "*i32", "n": "i32"}, "*i32, i32"),
    *[(f"private_helper_{name}", private_dtype(expr), {"x_ptr": "*i32", "N": 16}, "*i32, 16") for name, expr in (
        ("core_get_int_dtype_u16", "tl.core.get_int_dtype(16, False)"),
        ("core_get_int_dtype_i1", "tl.core.get_int_dtype(1, True)"),
        ("standard_get_int_dtype_kw", "tl.standard._get_int_dtype(bitwidth=64, signed=True)"),
        ("core_get_int_dtype_12", "tl.core.get_int_dtype(12, True)"),
        ("pick_sum_dtype_i8", "tl.standard._pick_sum_dtype(tl.int8, None)"),
        ("pick_sum_dtype_u16", "tl.standard._pick_sum_dtype(tl.uint16, None)"),
        ("pick_sum_dtype_i1", "tl.standard._pick_sum_dtype(tl.int1, None)"),
        ("pick_sum_dtype_given", "tl.standard._pick_sum_dtype(tl.int8, tl.int64)"),
    )],
    *[(f"private_helper_{name}", private_combine(expr), {"x_ptr": "*fp32", "y_ptr": "*fp32", "N": 64},
       "*fp32, *fp32, 64") for name, expr in (
        ("sum_combine", "tl.reduce(x, 0, tl.standard._sum_combine) + x"),
        ("prod_combine_scan", "tl.associative_scan(x, 0, tl.standard._prod_combine)"),
        ("elementwise_max", "tl.reduce(x, 0, tl.standard._elementwise_max) + x"),
        ("argmax_combine", "tl.reduce((x, r), 0, tl.standard._argmax_combine_tie_break_left)[1] + x"),
        ("argmax_combine_one_operand", "tl.reduce(x, 0, tl.standard._argmax_combine_tie_break_left) + x"),
    )],
    # unsloth's `_bias_add_kernel(..., n_cols: "tl.constexpr", BLOCK: "tl.constexpr")`: Triton's
    # `KernelParam.is_constexpr` is `"constexpr" in annotation`.
    ("string_constexpr_annotation", """
@triton.jit
def kernel(x_ptr, n_cols: "tl.constexpr", BLOCK: "tl.constexpr"):
    r = tl.arange(0, BLOCK)
    tl.store(x_ptr + r, r % n_cols)
""", {"x_ptr": "*i32", "n_cols": 24, "BLOCK": 64}, "*i32, 24, 64"),
    # Triton's `visit_Assign` makes a Python number assigned to a variable a scalar tensor
    # of its literal dtype: `s = 0.5; x * s` computes an fp16 `x` in fp32, and
    # `stride = 1 << 31; d ^ stride` is uint32 (torchao's Hadamard butterfly), where the
    # same number written in place keeps the tensor's dtype (or is out of its range).
    ("assigned_float_promotes", """
@triton.jit
def kernel(x_ptr, BLOCK: tl.constexpr):
    r = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + r)
    s = 0.5
    tl.store(x_ptr + r, x * s)
""", {"x_ptr": "*fp16", "BLOCK": 64}, "*fp16, 64"),
    ("literal_float_keeps_dtype", """
@triton.jit
def kernel(x_ptr, BLOCK: tl.constexpr):
    r = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + r)
    tl.store(x_ptr + r, x * 0.5)
""", {"x_ptr": "*fp16", "BLOCK": 64}, "*fp16, 64"),
    ("tuple_assigned_float_promotes", """
@triton.jit
def kernel(x_ptr, BLOCK: tl.constexpr):
    r = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + r)
    s, t = 0.5, 0.25
    tl.store(x_ptr + r, x * s + t)
""", {"x_ptr": "*fp16", "BLOCK": 64}, "*fp16, 64"),
    ("assigned_int_beyond_int32", """
@triton.jit
def kernel(x_ptr, S: tl.constexpr):
    d = tl.arange(0, 16)
    stride = 1 << S
    tl.store(x_ptr + d, d ^ stride)
""", {"x_ptr": "*i32", "S": 31}, "*i32, 31"),
    ("literal_int_beyond_int32", """
@triton.jit
def kernel(x_ptr, S: tl.constexpr):
    d = tl.arange(0, 16)
    tl.store(x_ptr + d, d ^ (1 << S))
""", {"x_ptr": "*i32", "S": 31}, "*i32, 31"),
    # torchao's `triton_fp8_blockwise_weight_quant_transposed_rhs_kernel`: `pid[:, None]` on
    # a scalar program id. Triton's `tensor.__getitem__` never checks `:`, and a `None`
    # makes a scalar a `[1]` block wherever it stands.
    ("index_scalar_slice_none", """
@triton.jit
def kernel(x_ptr, n):
    pid = tl.program_id(0)
    offs = pid[:, None] * n + pid[None, :]
    tl.store(x_ptr + offs, offs, mask=offs < n)
""", {"x_ptr": "*i32", "n": "i32"}, "*i32, i32"),
    ("index_extra_slice", """
@triton.jit
def kernel(x_ptr, BLOCK: tl.constexpr):
    r = tl.arange(0, BLOCK)
    tl.store(x_ptr + r[:, :], r)
""", {"x_ptr": "*i32", "BLOCK": 64}, "*i32, 64"),
    ("index_none_past_rank", """
@triton.jit
def kernel(x_ptr, BLOCK: tl.constexpr):
    r = tl.arange(0, BLOCK)
    tl.store(x_ptr + r[:, :, None], r[:, None, None])
""", {"x_ptr": "*i32", "BLOCK": 64}, "*i32, 64"),
    # gemlite's `next_power_of_2_triton = next_power_of_2_bitwise_triton`: a module-level
    # alias of a `@jit` helper.
    ("module_alias_of_jit_helper", """
@triton.jit
def twice_impl(x):
    return x * 2


twice = twice_impl


@triton.jit
def kernel(x_ptr, BLOCK: tl.constexpr):
    r = tl.arange(0, BLOCK)
    tl.store(x_ptr + r, twice(tl.load(x_ptr + r)))
""", {"x_ptr": "*i32", "BLOCK": 64}, "*i32, 64"),
    ("builtin_range_keyword", """
@triton.jit
def kernel(x_ptr, n):
    acc = 0.0
    for i in range(0, n, num_stages=2):
        acc += tl.load(x_ptr + i)
    tl.store(x_ptr, acc)
""", {"x_ptr": "*fp32", "n": "i32"}, "*fp32, i32"),
]


def facts(ttir: str) -> dict:
    out = {op: len(re.findall(rf"\b{re.escape(op)}\b", ttir)) for op in OPS}
    out = {k: v for k, v in out.items() if v}
    consts = sorted({int(m) for m in re.findall(r"arith\.constant (?:dense<)?(-?\d+)>? : (?:tensor<[^>]*xi32>|i32)",
                                                ttir)})
    if consts:
        out["i32_constants"] = consts
    xor = xor_constants(ttir)
    if xor:
        out["xori_constants"] = xor
    for attr in ("tt.num_stages", "tt.loop_unroll_factor", "tt.flatten", "tt.disallow_acc_multi_buffer",
                 "tt.disable_licm", "tt.warp_specialize"):
        m = re.search(rf"{re.escape(attr)}( = (\d+) : i32)?", ttir)
        if m:
            out[attr] = int(m.group(2)) if m.group(2) else True
    return out


def xor_constants(ttir: str) -> list[str]:
    """The constant operands of each `arith.xori`, as `<bits>:<value as unsigned>` (Triton's
    IR has no unsigned types: `uint32` all-ones prints as -1 in i32)."""
    consts = {}
    for m in re.finditer(r"(%[\w.]+) = arith\.constant (?:dense<)?(true|false|-?\d+)>? : "
                         r"(?:tensor<[^>]*x)?i(\d+)>?", ttir):
        value = {"true": 1, "false": 0}.get(m.group(2))
        bits = int(m.group(3))
        value = int(m.group(2)) if value is None else value
        consts[m.group(1)] = f"{bits}:{value % (1 << bits)}"
    out = []
    for m in re.finditer(r"= arith\.xori (%[\w.]+), (%[\w.]+)", ttir):
        out.extend(consts[v] for v in m.groups() if v in consts)
    return sorted(out)


def run_case(name: str, body: str, launch: dict, signature: str) -> dict:
    source = HEADER + body.lstrip("\n")
    entry: dict = {"name": name, "source": source, "signature": signature}
    sig, constexprs = {}, {}
    for param, value in launch.items():
        if value is None:
            sig[param] = mangle_type(None)  # what the launcher derives for a None argument
            constexprs[param] = None
        elif isinstance(value, str) and (value.startswith("*") or value in ("i32", "i64", "fp32")):
            sig[param] = value
        else:
            sig[param] = "constexpr"
            constexprs[param] = value
    try:
        fn = jit_from_source(source, "kernel", {"triton": triton})
        ttir = strip_locations(compile_ttir(fn, sig, constexprs, {}))
        entry.update(accepted=True, facts=facts(ttir))
    except Exception as exc:
        entry.update(accepted=False, error=describe_exception(exc))
    return entry


def private_names() -> dict:
    """The names of `triton.language.standard` and `triton.language.core` that
    `triton.language` does not export, by kind."""
    import triton.language as tl
    import triton.language.core as core
    import triton.language.standard as standard
    from triton.runtime.jit import ConstexprFunction, JITFunction

    public = set(dir(tl))
    std = {n: getattr(standard, n) for n in dir(standard) if not n.startswith("__")}
    return {
        "standard_public": sorted(n for n in std if not n.startswith("_") and n in public),
        "standard_constexpr": sorted(n for n, v in std.items() if n not in public and isinstance(v, ConstexprFunction)),
        "standard_jit": sorted(n for n, v in std.items() if n not in public and isinstance(v, JITFunction)),
        "core_only": sorted(n for n in dir(core) if not n.startswith("__") and n not in public),
    }


def main() -> int:
    results = []
    for case in CASES:
        results.append(run_case(*case))
        r = results[-1]
        print(f"{r['name']}: {'accepted ' + json.dumps(r['facts']) if r['accepted'] else r['error']}")
    doc = {"triton_version": triton.__version__, "target": "cuda:90", "none_argument_type": mangle_type(None),
           "private_names": private_names(), "cases": results}
    OUT.write_text(json.dumps(doc, indent=1) + "\n")
    print(f"wrote {OUT.relative_to(REPO_ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
