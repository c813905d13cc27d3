"""Device-side asserts: a gather whose indices must stay inside the source.

``tl.device_assert(cond, msg)`` (and a plain ``assert cond, msg`` in a kernel) is
compiled only in Triton's debug mode: ``triton.jit(debug=True)`` on the kernel, the environment
variable ``TRITON_DEBUG=1``, or for tritonc ``--debug`` / ``debug = true`` in the launch
spec. Outside debug mode it costs nothing and checks nothing.

In debug mode every lane whose condition is false calls CUDA's ``__assertfail``: the
device prints ``debug_assert.py:LINE: unknown: block: [...], thread: [...] Assertion
`gather index out of bounds` failed.`` and the launch fails with
``CUDA_ERROR_ASSERT`` (710). The interpreter (``tritonc run --interpret``) reports
the first failing program and lane at the assert.
"""

import torch
import triton
import triton.language as tl


@triton.jit
def gather_kernel(src_ptr, idx_ptr, out_ptr, n_src, n, BLOCK: tl.constexpr):
    pid = tl.program_id(axis=0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    idx = tl.load(idx_ptr + offs, mask=mask, other=0)
    tl.device_assert((idx >= 0) & (idx < n_src), "gather index out of bounds", mask=mask)
    x = tl.load(src_ptr + idx, mask=mask)
    tl.store(out_ptr + offs, x, mask=mask)


def gather(src: torch.Tensor, idx: torch.Tensor) -> torch.Tensor:
    out = torch.empty(idx.shape, dtype=src.dtype, device=src.device)
    n = idx.numel()
    grid = (triton.cdiv(n, 128),)
    gather_kernel[grid](src, idx, out, src.numel(), n, BLOCK=128, debug=True)
    return out


if __name__ == "__main__":
    src = torch.randn(4000, device="cuda")
    idx = torch.arange(4096, device="cuda", dtype=torch.int32)  # 4000..4095 are past the end
    gather(src, idx)
    torch.cuda.synchronize()  # RuntimeError: CUDA error: device-side assert triggered
