"""Adds two vectors on the GPU with `add_kernel` (examples/vector_add.py) compiled ahead of
time by tritonc, from PyTorch, without importing Triton (docs/python.md).

Run from the repository root:  PYTHONPATH=python python3 examples/python/add.py
"""

import sys

import torch

import tritonc_rt

# A bundle `tritonc compile examples/vector_add.py --target sm_90 -o DIR` wrote (or a
# folder of several variants of the kernel).
add_kernel = tritonc_rt.load("examples/rust/kernels/add_kernel.tcb")

n = 1 << 20  # a multiple of 16: the bundle was compiled for `n_elements: i32:16`
x = torch.rand(n, device="cuda")
y = torch.rand(n, device="cuda")
out = torch.empty_like(x)


def grid(meta):
    return ((meta["n_elements"] + meta["BLOCK_SIZE"] - 1) // meta["BLOCK_SIZE"],)


try:
    # As with @triton.jit: the grid in brackets, then the kernel's arguments; launched on
    # PyTorch's current stream after every assumption of the bundle is checked.
    add_kernel[grid](x, y, out, n, BLOCK_SIZE=1024)
except (tritonc_rt.NoDriverError, tritonc_rt.NoDeviceError) as e:
    print(f"add: {e}", file=sys.stderr)
    sys.exit(3)
torch.cuda.synchronize()
right = int((out == x + y).sum())
print(f"{right} of {n} sums right")
sys.exit(0 if right == n else 1)
