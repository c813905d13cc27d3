#!/usr/bin/env python3
"""Host launch overhead of one small kernel, launched from Python: tritonc's `tritonc_rt`
package (a bundle, no Triton import) against upstream Triton's `kernel[grid](...)` for the
same source (`examples/vector_add.py`'s `add_kernel`) and arguments, in one process.

Each side is timed over LAUNCHES back-to-back launches of a 16 Ki-element add (the GPU
finishes each in about 2 µs, so the host is the bottleneck), sides alternated, ROUNDS
rounds; the median microseconds per launch are printed, with an A/A pair for the noise,
and written to OUT/python.json. `tritonc (general)` is tritonc_rt with its fast path off
(every launch through the general checks), for comparison.

    PYTHONPATH=python python3 bench/launch/overhead.py OUT [--bundle DIR] [--rounds N]
"""

import argparse
import importlib.util
import json
import pathlib
import statistics
import sys
import time

import torch

ROOT = pathlib.Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "python"))

import tritonc_rt  # noqa: E402


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("out", help="directory for python.json")
    ap.add_argument("--bundle", default=str(ROOT / "examples/rust/kernels/add_kernel.tcb"))
    ap.add_argument("--rounds", type=int, default=15)
    ap.add_argument("--launches", type=int, default=500)
    args = ap.parse_args()

    spec = importlib.util.spec_from_file_location("vector_add", ROOT / "examples/vector_add.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    triton_kernel = module.add_kernel
    tritonc_kernel = tritonc_rt.load(args.bundle)
    general_kernel = tritonc_rt.load(args.bundle)

    n = 16 * 1024
    x = torch.rand(n, device="cuda")
    y = torch.rand(n, device="cuda")
    out_a = torch.empty_like(x)
    out_b = torch.empty_like(x)

    def grid(meta):
        return ((meta["n_elements"] + meta["BLOCK_SIZE"] - 1) // meta["BLOCK_SIZE"],)

    sides = {
        "tritonc": lambda: tritonc_kernel[grid](x, y, out_a, n, BLOCK_SIZE=1024),
        "triton": lambda: triton_kernel[grid](x, y, out_b, n, BLOCK_SIZE=1024),
        "tritonc (A/A)": lambda: tritonc_kernel[grid](x, y, out_a, n, BLOCK_SIZE=1024),
        "tritonc (general)": lambda: general_kernel[grid](x, y, out_a, n, BLOCK_SIZE=1024),
    }
    for launch in sides.values():  # compile, load, warm up
        for _ in range(20):
            launch()
    torch.cuda.synchronize()
    assert torch.equal(out_a, x + y) and torch.equal(out_b, x + y), "wrong sums"
    assert callable(tritonc_kernel._fast), "tritonc_rt's fast path was not built"
    general_kernel._fast = None  # every launch through the general path

    times = {name: [] for name in sides}
    for r in range(args.rounds):
        order = list(sides.items())
        if r % 2:
            order.reverse()
        for name, launch in order:
            torch.cuda.synchronize()
            t0 = time.perf_counter()
            for _ in range(args.launches):
                launch()
            t1 = time.perf_counter()
            torch.cuda.synchronize()
            times[name].append((t1 - t0) / args.launches * 1e6)
    med = {name: statistics.median(v) for name, v in times.items()}
    for name, v in med.items():
        print(f"{name:14s} {v:7.2f} µs per launch (median of {args.rounds} rounds of {args.launches})")
    print(f"ratio tritonc / triton {med['tritonc'] / med['triton']:.3f}, "
          f"A/A {med['tritonc (A/A)'] / med['tritonc']:.3f}")
    out = pathlib.Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    (out / "python.json").write_text(json.dumps({
        "us_per_launch_median": med, "rounds": times, "launches_per_round": args.launches,
        "torch": torch.__version__, "gpu": torch.cuda.get_device_name(),
    }, indent=1) + "\n")


if __name__ == "__main__":
    main()
