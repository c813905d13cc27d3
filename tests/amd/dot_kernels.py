"""Single-tile dot kernels for the AMD back end's MFMA comparison with upstream Triton
(scripts/triton_amd_dot_reference.py): one `tl.dot` of a BLOCK_M×BLOCK_K tile of A by a
BLOCK_K×BLOCK_N tile of B, stored as the accumulator type."""

import triton
import triton.language as tl


@triton.jit
def dot_tile(a_ptr, b_ptr, c_ptr, stride_am, stride_bk, stride_cm,
             BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr,
             PRECISION: tl.constexpr):
    offs_m = tl.arange(0, BLOCK_M)
    offs_n = tl.arange(0, BLOCK_N)
    offs_k = tl.arange(0, BLOCK_K)
    a = tl.load(a_ptr + offs_m[:, None] * stride_am + offs_k[None, :])
    b = tl.load(b_ptr + offs_k[:, None] * stride_bk + offs_n[None, :])
    c = tl.dot(a, b, input_precision=PRECISION)
    tl.store(c_ptr + offs_m[:, None] * stride_cm + offs_n[None, :], c)


@triton.jit
def dot_tile_out_fp16(a_ptr, b_ptr, c_ptr, stride_am, stride_bk, stride_cm,
                      BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
    """`dot_tile` with an fp16 accumulator (`out_dtype=tl.float16`)."""
    offs_m = tl.arange(0, BLOCK_M)
    offs_n = tl.arange(0, BLOCK_N)
    offs_k = tl.arange(0, BLOCK_K)
    a = tl.load(a_ptr + offs_m[:, None] * stride_am + offs_k[None, :])
    b = tl.load(b_ptr + offs_k[:, None] * stride_bk + offs_n[None, :])
    c = tl.dot(a, b, out_dtype=tl.float16)
    tl.store(c_ptr + offs_m[:, None] * stride_cm + offs_n[None, :], c)
