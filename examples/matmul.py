"""Tiled matrix multiplication ``C = act(A @ B)`` with grouped program order.

Programs are numbered so that ``GROUP_M`` consecutive row-blocks of C are
visited before moving to the next column-block. Neighbouring programs then
share tiles of A and B in L2, which matters once the matrices no longer fit.

The optional activation is fused into the epilogue while the accumulator is
still in registers; ``ACTIVATION`` is a compile-time string so the untaken
branches are not generated at all.
"""

import torch
import triton
import triton.language as tl
from triton.language.extra import libdevice

# 1/sqrt(2), shared by every kernel in this module as a compile-time constant.
INV_SQRT2 = tl.constexpr(0.7071067811865476)


@triton.jit
def leaky_relu(x, negative_slope: tl.constexpr = 0.01):
    """max(x, 0) + negative_slope * min(x, 0), element-wise."""
    return tl.where(x >= 0, x, x * negative_slope)


@triton.jit
def gelu(x):
    """Exact (erf-based) GELU, evaluated in fp32."""
    return 0.5 * x * (1.0 + libdevice.erf(x * INV_SQRT2))


def _matmul_configs():
    return [
        triton.Config({"BLOCK_M": 128, "BLOCK_N": 256, "BLOCK_K": 64, "GROUP_M": 8}, num_warps=8, num_stages=3),
        triton.Config({"BLOCK_M": 128, "BLOCK_N": 128, "BLOCK_K": 64, "GROUP_M": 8}, num_warps=4, num_stages=4),
        triton.Config({"BLOCK_M": 64, "BLOCK_N": 128, "BLOCK_K": 32, "GROUP_M": 8}, num_warps=4, num_stages=4),
        triton.Config({"BLOCK_M": 64, "BLOCK_N": 64, "BLOCK_K": 32, "GROUP_M": 8}, num_warps=4, num_stages=5),
    ]


@triton.autotune(configs=_matmul_configs(), key=["M", "N", "K"])
@triton.jit
def matmul_kernel(
    a_ptr,
    b_ptr,
    c_ptr,
    M,
    N,
    K,
    stride_am,
    stride_ak,
    stride_bk,
    stride_bn,
    stride_cm,
    stride_cn,
    BLOCK_M: tl.constexpr,
    BLOCK_N: tl.constexpr,
    BLOCK_K: tl.constexpr,
    GROUP_M: tl.constexpr,
    ACTIVATION: tl.constexpr,
):
    pid = tl.program_id(axis=0)
    num_pid_m = tl.cdiv(M, BLOCK_M)
    num_pid_n = tl.cdiv(N, BLOCK_N)
    # Grouped ordering: walk GROUP_M row-blocks down one column-block at a time.
    num_pid_in_group = GROUP_M * num_pid_n
    group_id = pid // num_pid_in_group
    first_pid_m = group_id * GROUP_M
    group_size_m = min(num_pid_m - first_pid_m, GROUP_M)
    pid_m = first_pid_m + ((pid % num_pid_in_group) % group_size_m)
    pid_n = (pid % num_pid_in_group) // group_size_m

    offs_m = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_n = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    offs_m = tl.max_contiguous(tl.multiple_of(offs_m, BLOCK_M), BLOCK_M)
    offs_n = tl.max_contiguous(tl.multiple_of(offs_n, BLOCK_N), BLOCK_N)
    offs_k = tl.arange(0, BLOCK_K)
    a_ptrs = a_ptr + (offs_m[:, None] * stride_am + offs_k[None, :] * stride_ak)
    b_ptrs = b_ptr + (offs_k[:, None] * stride_bk + offs_n[None, :] * stride_bn)
    m_mask = offs_m[:, None] < M
    n_mask = offs_n[None, :] < N

    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k in range(0, tl.cdiv(K, BLOCK_K)):
        k_remaining = K - k * BLOCK_K
        # Out-of-range rows, columns and the K tail read as zero, which leaves
        # the in-range part of the product unchanged.
        a = tl.load(a_ptrs, mask=m_mask & (offs_k[None, :] < k_remaining), other=0.0)
        b = tl.load(b_ptrs, mask=(offs_k[:, None] < k_remaining) & n_mask, other=0.0)
        acc = tl.dot(a, b, acc)
        a_ptrs += BLOCK_K * stride_ak
        b_ptrs += BLOCK_K * stride_bk

    if ACTIVATION == "leaky_relu":
        acc = leaky_relu(acc)
    elif ACTIVATION == "gelu":
        acc = gelu(acc)
    c = acc.to(c_ptr.dtype.element_ty)

    c_ptrs = c_ptr + stride_cm * offs_m[:, None] + stride_cn * offs_n[None, :]
    tl.store(c_ptrs, c, mask=m_mask & n_mask)


def matmul(a: torch.Tensor, b: torch.Tensor, activation: str = "") -> torch.Tensor:
    """Return ``act(a @ b)``; ``activation`` is "", "leaky_relu" or "gelu"."""
    assert a.shape[1] == b.shape[0], "incompatible dimensions"
    M, K = a.shape
    _, N = b.shape
    c = torch.empty((M, N), device=a.device, dtype=torch.float16)

    def grid(meta):
        return (triton.cdiv(M, meta["BLOCK_M"]) * triton.cdiv(N, meta["BLOCK_N"]),)

    matmul_kernel[grid](
        a, b, c, M, N, K,
        a.stride(0), a.stride(1), b.stride(0), b.stride(1), c.stride(0), c.stride(1),
        ACTIVATION=activation,
    )
    return c


if __name__ == "__main__":
    a = torch.randn(512, 384, device="cuda", dtype=torch.float16)
    b = torch.randn(384, 640, device="cuda", dtype=torch.float16)
    torch.testing.assert_close(matmul(a, b), (a @ b), atol=1e-1, rtol=1e-2)
    ref = torch.nn.functional.gelu((a.float() @ b.float())).half()
    torch.testing.assert_close(matmul(a, b, "gelu"), ref, atol=1e-1, rtol=1e-2)
    print("matmul: ok")
