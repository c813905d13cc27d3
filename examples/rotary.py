"""Rotary position embedding (RoPE), "rotate half" convention.

``q`` has shape ``[tokens, heads, head_dim]``; ``cos`` and ``sin`` have shape
``[tokens, head_dim // 2]``. For each head, with ``q1 = q[..., :half]`` and
``q2 = q[..., half:]``:

    out1 = q1 * cos - q2 * sin
    out2 = q2 * cos + q1 * sin

One program handles one token and a block of ``BLOCK_H`` heads, so the cos/sin
row is loaded once and broadcast over the heads.
"""

import torch
import triton
import triton.language as tl


@triton.jit
def rope_kernel(
    q_ptr,
    cos_ptr,
    sin_ptr,
    out_ptr,
    stride_q_tok,
    stride_q_head,
    stride_o_tok,
    stride_o_head,
    stride_cs_tok,
    n_heads,
    HEAD_DIM: tl.constexpr,
    BLOCK_H: tl.constexpr,
):
    HALF: tl.constexpr = HEAD_DIM // 2
    tok = tl.program_id(0)
    head_block = tl.program_id(1)
    heads = head_block * BLOCK_H + tl.arange(0, BLOCK_H)
    dims = tl.arange(0, HALF)
    mask = heads[:, None] < n_heads

    cos = tl.load(cos_ptr + tok * stride_cs_tok + dims).to(tl.float32)[None, :]
    sin = tl.load(sin_ptr + tok * stride_cs_tok + dims).to(tl.float32)[None, :]

    q_base = q_ptr + tok * stride_q_tok + heads[:, None] * stride_q_head + dims[None, :]
    q1 = tl.load(q_base, mask=mask, other=0.0).to(tl.float32)
    q2 = tl.load(q_base + HALF, mask=mask, other=0.0).to(tl.float32)
    out1 = tl.math.fma(q1, cos, -(q2 * sin))
    out2 = tl.math.fma(q2, cos, q1 * sin)

    o_base = out_ptr + tok * stride_o_tok + heads[:, None] * stride_o_head + dims[None, :]
    tl.store(o_base, out1.to(out_ptr.dtype.element_ty), mask=mask)
    tl.store(o_base + HALF, out2.to(out_ptr.dtype.element_ty), mask=mask)


def apply_rope(q: torch.Tensor, cos: torch.Tensor, sin: torch.Tensor) -> torch.Tensor:
    """Rotate ``q[tokens, heads, head_dim]`` by the per-token angles in ``cos``/``sin``."""
    tokens, heads, head_dim = q.shape
    assert q.stride(2) == 1 and cos.stride(1) == 1 and cos.stride() == sin.stride()
    out = torch.empty_like(q)
    block_h = min(triton.next_power_of_2(heads), 16)
    grid = (tokens, triton.cdiv(heads, block_h))
    rope_kernel[grid](
        q, cos, sin, out, q.stride(0), q.stride(1), out.stride(0), out.stride(1), cos.stride(0), heads,
        HEAD_DIM=head_dim, BLOCK_H=block_h,
    )
    return out


if __name__ == "__main__":
    T, H, D = 1000, 12, 128
    q = torch.randn(T, H, D, device="cuda", dtype=torch.float16)
    inv_freq = 1.0 / (10000 ** (torch.arange(0, D, 2, device="cuda").float() / D))
    angles = torch.arange(T, device="cuda").float()[:, None] * inv_freq[None, :]
    cos, sin = angles.cos(), angles.sin()
    q1, q2 = q.float()[..., : D // 2], q.float()[..., D // 2 :]
    c, s = cos[:, None, :], sin[:, None, :]
    ref = torch.cat([q1 * c - q2 * s, q2 * c + q1 * s], dim=-1).half()
    torch.testing.assert_close(apply_rope(q, cos, sin), ref, atol=1e-2, rtol=1e-2)
    print("rotary: ok")
