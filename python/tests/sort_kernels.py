"""Kernels for the tl.sort / tl.topk / tl.flip cases of test_interpret.py and
scripts/triton_sort_fixture.py: each row of a [ROWS, N] block is sorted (or its top K
taken, or flipped) along the last dim."""

import triton
import triton.language as tl


@triton.jit
def sort_rows(x_ptr, out_ptr, ROWS: tl.constexpr, N: tl.constexpr, DESCENDING: tl.constexpr):
    offs = tl.arange(0, ROWS)[:, None] * N + tl.arange(0, N)[None, :]
    x = tl.load(x_ptr + offs)
    tl.store(out_ptr + offs, tl.sort(x, descending=DESCENDING))


@triton.jit
def sort_rows_dim(x_ptr, out_ptr, ROWS: tl.constexpr, N: tl.constexpr):
    # `dim=1`: the last dim, spelled out.
    offs = tl.arange(0, ROWS)[:, None] * N + tl.arange(0, N)[None, :]
    x = tl.load(x_ptr + offs)
    tl.store(out_ptr + offs, tl.sort(x, dim=1))


@triton.jit
def topk_rows(x_ptr, out_ptr, ROWS: tl.constexpr, N: tl.constexpr, K: tl.constexpr):
    offs = tl.arange(0, ROWS)[:, None] * N + tl.arange(0, N)[None, :]
    x = tl.load(x_ptr + offs)
    outs = tl.arange(0, ROWS)[:, None] * K + tl.arange(0, K)[None, :]
    tl.store(out_ptr + outs, tl.topk(x, K))


@triton.jit
def sort_1d(x_ptr, out_ptr, N: tl.constexpr, DESCENDING: tl.constexpr):
    offs = tl.arange(0, N)
    tl.store(out_ptr + offs, tl.sort(tl.load(x_ptr + offs), descending=DESCENDING))


@triton.jit
def flip_rows(x_ptr, out_ptr, ROWS: tl.constexpr, N: tl.constexpr):
    offs = tl.arange(0, ROWS)[:, None] * N + tl.arange(0, N)[None, :]
    tl.store(out_ptr + offs, tl.flip(tl.load(x_ptr + offs), 1))
