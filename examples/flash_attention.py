"""Attention forward pass with online softmax (flash-attention style).

Q, K, V and O have shape ``[batch, heads, seq_len, HEAD_DIM]`` with a unit
stride on the last dimension. One program computes ``BLOCK_M`` query rows of
one (batch, head). K and V are streamed in blocks of ``BLOCK_N`` keys; for
each query row the kernel keeps the running max ``m_i`` of the scaled scores,
the running softmax denominator ``l_i`` and the unnormalized output ``acc``,
rescaling the latter two whenever the max grows. Scores are computed in the
base-2 domain (``exp2`` with the scale pre-multiplied by log2(e)), which maps
to a single hardware instruction.
"""

import torch
import triton
import triton.language as tl

LOG2E = tl.constexpr(1.4426950408889634)


@triton.jit
def attention_fwd_kernel(
    q_ptr,
    k_ptr,
    v_ptr,
    o_ptr,
    sm_scale,
    stride_b,
    stride_h,
    stride_s,
    n_heads,
    seq_len,
    HEAD_DIM: tl.constexpr,
    BLOCK_M: tl.constexpr,
    BLOCK_N: tl.constexpr,
    IS_CAUSAL: tl.constexpr,
):
    start_m = tl.program_id(0)
    batch_head = tl.program_id(1)
    batch = batch_head // n_heads
    head = batch_head % n_heads
    # Q, K, V and O share one layout, so one base offset serves all four.
    base = batch.to(tl.int64) * stride_b + head.to(tl.int64) * stride_h

    offs_m = start_m * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_n = tl.arange(0, BLOCK_N)
    offs_d = tl.arange(0, HEAD_DIM)
    row_mask = offs_m[:, None] < seq_len

    q = tl.load(q_ptr + base + offs_m[:, None] * stride_s + offs_d[None, :], mask=row_mask, other=0.0)

    m_i = tl.full((BLOCK_M,), -float("inf"), dtype=tl.float32)
    l_i = tl.zeros((BLOCK_M,), dtype=tl.float32)
    acc = tl.zeros((BLOCK_M, HEAD_DIM), dtype=tl.float32)
    qk_scale = sm_scale * LOG2E

    # With a causal mask, keys past the last query row of this block never count.
    if IS_CAUSAL:
        hi = tl.minimum(seq_len, (start_m + 1) * BLOCK_M)
    else:
        hi = seq_len

    for start_n in range(0, hi, BLOCK_N):
        cols = start_n + offs_n
        # K is read transposed ([HEAD_DIM, BLOCK_N]) so QK^T is a plain dot.
        k = tl.load(k_ptr + base + cols[None, :] * stride_s + offs_d[:, None], mask=cols[None, :] < seq_len, other=0.0)
        qk = tl.dot(q, k) * qk_scale
        valid = cols[None, :] < seq_len
        if IS_CAUSAL:
            valid = valid & (offs_m[:, None] >= cols[None, :])
        qk = tl.where(valid, qk, -float("inf"))

        m_new = tl.maximum(m_i, tl.max(qk, axis=1))
        p = tl.exp2(qk - m_new[:, None])
        alpha = tl.exp2(m_i - m_new)
        l_i = l_i * alpha + tl.sum(p, axis=1)

        v = tl.load(v_ptr + base + cols[:, None] * stride_s + offs_d[None, :], mask=cols[:, None] < seq_len, other=0.0)
        acc = acc * alpha[:, None]
        acc = tl.dot(p.to(v.dtype), v, acc)
        m_i = m_new

    out = acc / l_i[:, None]
    tl.store(o_ptr + base + offs_m[:, None] * stride_s + offs_d[None, :], out.to(o_ptr.dtype.element_ty), mask=row_mask)


def attention(q: torch.Tensor, k: torch.Tensor, v: torch.Tensor, causal: bool = False) -> torch.Tensor:
    """Softmax(Q K^T / sqrt(d)) V for contiguous ``[B, H, S, D]`` fp16 tensors."""
    B, H, S, D = q.shape
    assert q.is_contiguous() and k.is_contiguous() and v.is_contiguous()
    o = torch.empty_like(q)
    block_m, block_n = 128, 64
    grid = (triton.cdiv(S, block_m), B * H)
    attention_fwd_kernel[grid](
        q, k, v, o, D ** -0.5, q.stride(0), q.stride(1), q.stride(2), H, S,
        HEAD_DIM=D, BLOCK_M=block_m, BLOCK_N=block_n, IS_CAUSAL=causal, num_warps=8, num_stages=3,
    )
    return o


if __name__ == "__main__":
    q, k, v = (torch.randn(2, 8, 1000, 64, device="cuda", dtype=torch.float16) for _ in range(3))
    for causal in (False, True):
        ref = torch.nn.functional.scaled_dot_product_attention(q, k, v, is_causal=causal)
        torch.testing.assert_close(attention(q, k, v, causal), ref, atol=2e-2, rtol=2e-2)
    print("flash_attention: ok")
