"""What bench/tc/run.py and bench/mem/run.py share: a kernel loaded from a cubin with CuPy
and the L2 flush done before every timed launch (one 256 MiB buffer written, another
read; docs/benchmarks.md)."""

import cupy as cp
import numpy as np
import torch


class Kernel:
    """A cubin's entry point, launched with `shared` bytes of dynamic shared memory and
    `extra_args` trailing null pointers (Triton's scratch arguments)."""

    def __init__(self, cubin, entry, shared, extra_args, block):
        self.fn = cp.RawModule(path=str(cubin)).get_function(entry)
        self.shared = shared
        if shared > 48 * 1024:
            self.fn.max_dynamic_shared_size_bytes = shared
        self.extra = (np.uint64(0),) * extra_args
        self.block = block

    def launch(self, grid, args):
        self.fn(grid, self.block, tuple(args) + self.extra, shared_mem=self.shared)


def flusher():
    """A function that evicts L2: writes one 256 MiB buffer and reads another."""
    a = torch.empty(256 << 20, dtype=torch.uint8, device="cuda")
    b = torch.ones(256 << 20, dtype=torch.uint8, device="cuda")

    def flush():
        a.fill_(1)
        b.sum()
    return flush
