#!/usr/bin/env python3
"""The host side of a `tritonc_rt` launch, measured on any machine: the driver is a
stand-in libcuda (bench/launch/fake_libcuda.c, built here with `cc`) whose calls return at
once, the tensors stand-ins with `data_ptr()`, `dtype`, `device` and `is_cuda`. What is
left is tritonc_rt's own Python work and its ctypes calls: binding, checks, variant
choice, packing, the context and stream queries and the launch call.

    python3 bench/launch/host_only.py [--launches N] [--rounds N] [--profile]

`--profile` prints cProfile's top functions for one round instead of timing.
"""

import argparse
import ctypes
import os
import pathlib
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = pathlib.Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "python"))


def fake_libcuda(directory):
    """Builds the stand-in libcuda.so.1 and loads it, so that tritonc_rt's
    ``ctypes.CDLL("libcuda.so.1")`` finds it (by its soname) instead of a real driver."""
    lib = pathlib.Path(directory) / "libcuda.so.1"
    subprocess.run(["cc", "-O2", "-shared", "-fPIC", "-Wl,-soname,libcuda.so.1", "-o", str(lib),
                    str(ROOT / "bench/launch/fake_libcuda.c")], check=True)
    return ctypes.CDLL(str(lib), mode=ctypes.RTLD_GLOBAL)


class DType:
    def __init__(self, name):
        self.name = name

    def __str__(self):
        return f"torch.{self.name}"


class Device:
    type = "cuda"
    index = 0


class Tensor:
    """What tritonc_rt reads of a PyTorch CUDA tensor."""

    is_cuda = True
    device = Device()

    def __init__(self, addr, dtype):
        self._addr, self.dtype = addr, dtype

    def data_ptr(self):
        return self._addr


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--bundle", default=str(ROOT / "examples/rust/kernels/add_kernel.tcb"))
    ap.add_argument("--launches", type=int, default=20000)
    ap.add_argument("--rounds", type=int, default=7)
    ap.add_argument("--profile", action="store_true")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        fake_libcuda(tmp)
        import tritonc_rt

        kernel = tritonc_rt.load(args.bundle)
        f32 = DType("float32")
        x, y, out = (Tensor(0x7F0000000000 + i * 0x100000, f32) for i in range(3))
        n = 16 * 1024

        def grid(meta):
            return ((meta["n_elements"] + meta["BLOCK_SIZE"] - 1) // meta["BLOCK_SIZE"],)

        def launches(count):
            for _ in range(count):
                kernel[grid](x, y, out, n, BLOCK_SIZE=1024)

        launches(100)
        if args.profile:
            import cProfile
            import pstats

            cProfile.runctx("launches(args.launches)", globals(), locals(), sort="tottime")
            return
        rounds = []
        for _ in range(args.rounds):
            t0 = time.perf_counter()
            launches(args.launches)
            rounds.append((time.perf_counter() - t0) / args.launches * 1e6)
        print(f"tritonc_rt host-only: {statistics.median(rounds):.2f} µs per launch "
              f"(median of {args.rounds} rounds of {args.launches}; min {min(rounds):.2f})")


if __name__ == "__main__":
    main()
