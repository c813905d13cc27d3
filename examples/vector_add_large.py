"""Element-wise vector addition for tensors of any size: ``out = x + y``.

As in ``vector_add.py``, each program owns one contiguous block of ``BLOCK_SIZE``
elements, but the block's offsets are computed in int64. In int32,
``pid * BLOCK_SIZE`` wraps negative at program ``2**31 // BLOCK_SIZE``: past 2^31
elements the loads and stores would address memory before the tensors.
``vector_add_large.toml`` declares a launch past 2^31 elements for ``tritonc verify``.
"""

import torch
import triton
import triton.language as tl


@triton.jit
def add_kernel_i64(
    x_ptr,
    y_ptr,
    out_ptr,
    n_elements,
    BLOCK_SIZE: tl.constexpr,
):
    pid = tl.program_id(axis=0).to(tl.int64)
    block_start = pid * BLOCK_SIZE
    offsets = block_start + tl.arange(0, BLOCK_SIZE)
    # Every block starts at a multiple of BLOCK_SIZE and is contiguous.
    offsets = tl.max_contiguous(tl.multiple_of(offsets, BLOCK_SIZE), BLOCK_SIZE)
    mask = offsets < n_elements
    x = tl.load(x_ptr + offsets, mask=mask)
    y = tl.load(y_ptr + offsets, mask=mask)
    tl.store(out_ptr + offsets, x + y, mask=mask)


def add(x: torch.Tensor, y: torch.Tensor, block_size: int = 1024) -> torch.Tensor:
    """Return ``x + y`` for two contiguous tensors of equal shape and dtype."""
    assert x.shape == y.shape and x.dtype == y.dtype
    out = torch.empty_like(x)
    n = out.numel()
    grid = (triton.cdiv(n, block_size),)
    add_kernel_i64[grid](x, y, out, n, BLOCK_SIZE=block_size)
    return out


if __name__ == "__main__":
    n = 2**31 + 5000
    a = torch.rand(n, device="cuda", dtype=torch.float16)
    b = torch.rand(n, device="cuda", dtype=torch.float16)
    torch.testing.assert_close(add(a, b), a + b)
    print("vector_add_large: ok")
