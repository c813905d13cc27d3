"""Kernels for test_interpret.py: tritonc's interpreter reads this file's source."""

import triton
import triton.language as tl


@triton.jit
def add_kernel(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    y = tl.load(y_ptr + offs, mask=mask)
    tl.store(out_ptr + offs, x + y, mask=mask)


@triton.jit
def scale_cast_kernel(x_ptr, out_ptr, n, scale, BLOCK: tl.constexpr, OUT: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    tl.store(out_ptr + offs, (x * scale).to(OUT), mask=mask)


@triton.jit
def unmasked_copy(x_ptr, out_ptr, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(out_ptr + offs, tl.load(x_ptr + offs))


@triton.jit
def racy_sum(x_ptr, out_ptr, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(out_ptr, tl.sum(tl.load(x_ptr + offs), axis=0))


@triton.jit
def positive_check(x_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs, mask=offs < n, other=1.0)
    tl.device_assert(x > 0, "x must be positive")


@triton.jit
def row_softmax(out_ptr, in_ptr, stride, n_cols, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    mask = cols < n_cols
    x = tl.load(in_ptr + row * stride + cols, mask=mask, other=-float("inf"))
    z = x - tl.max(x, axis=0)
    num = tl.exp(z)
    tl.store(out_ptr + row * stride + cols, num / tl.sum(num, axis=0), mask=mask)


@triton.jit
def cumsum_kernel(x_ptr, out_ptr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    tl.store(out_ptr + offs, tl.cumsum(tl.load(x_ptr + offs), axis=0))


if hasattr(triton, "autotune"):  # the real Triton (the stand-in has no autotuner)

    @triton.autotune(configs=[triton.Config({"BLOCK": 32}, num_warps=1),
                              triton.Config({"BLOCK": 64}, num_warps=2)], key=["n"])
    @triton.jit
    def tuned_fill(out_ptr, n, BLOCK: tl.constexpr):
        offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
        tl.store(out_ptr + offs, offs * 0 + BLOCK, mask=offs < n)


@triton.jit
def warps_as_parameter(out_ptr, num_warps: tl.constexpr):
    tl.store(out_ptr + tl.arange(0, 4), tl.full((4,), num_warps, tl.int32))
