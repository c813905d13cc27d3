"""Seeded dropout.

The keep-mask is not stored: it is regenerated from ``(seed, offset)`` with
Triton's counter-based Philox generator, so the backward pass only needs the
seed. Kept elements are scaled by ``1 / (1 - p)``.
"""

import torch
import triton
import triton.language as tl


@triton.jit
def dropout_kernel(
    x_ptr,
    out_ptr,
    n_elements,
    p,
    seed,
    BLOCK_SIZE: tl.constexpr,
):
    pid = tl.program_id(0)
    offsets = pid * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offsets < n_elements
    x = tl.load(x_ptr + offsets, mask=mask)
    # One uniform sample in [0, 1) per element, a pure function of seed and offset.
    random = tl.rand(seed, offsets)
    keep = random > p
    scale = 1.0 / (1.0 - p)
    out = tl.where(keep, x * scale, 0.0)
    tl.store(out_ptr + offsets, out.to(out_ptr.dtype.element_ty), mask=mask)


def dropout(x: torch.Tensor, p: float, seed: int) -> torch.Tensor:
    """Apply dropout with probability ``p``; the same seed gives the same mask."""
    out = torch.empty_like(x)
    n = x.numel()
    grid = (triton.cdiv(n, 1024),)
    dropout_kernel[grid](x, out, n, p, seed, BLOCK_SIZE=1024)
    return out


if __name__ == "__main__":
    x = torch.randn(10_000, device="cuda")
    a = dropout(x, 0.5, seed=123)
    b = dropout(x, 0.5, seed=123)
    assert torch.equal(a, b)
    kept = a != 0
    torch.testing.assert_close(a[kept], x[kept] * 2.0)
    print("dropout: ok")
