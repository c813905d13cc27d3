#!/usr/bin/env python3
"""tritonc's interpreter against Triton's (TRITON_INTERPRET=1), on one CPU, in one run:
elementwise add, softmax, LayerNorm, matmul (tl.dot) and a row scan, launched from
Python with Triton's syntax both ways; tritonc at 1, 2, 4, … threads up to every core.

    python3 bench/interp/bench.py OUT [--threads 1,2,4,8,16] [--scale 1.0] [--reps 3]

Writes OUT/interp.json (every time, the speedups and the scaling) and OUT/scaling.png
(needs matplotlib; without it, `python3 bench/interp/plot.py OUT/interp.json` makes it
later). Needs torch and triton (CPU is enough) and libtritonc_pyinterp.so (`cargo build
--release -p tritonc-pyinterp`; TRITONC_INTERP_LIB names it elsewhere).
"""

import argparse
import json
import os
import platform
import statistics
import sys
import time

os.environ["TRITON_INTERPRET"] = "1"  # before triton is imported: kernels are interpreted

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, "python"))
sys.path.insert(0, HERE)

import torch  # noqa: E402
import triton  # noqa: E402

import kernels as K  # noqa: E402
from tritonc_rt import interpret  # noqa: E402


def workloads(scale):
    """(name, description, setup() -> (launch(), outputs))."""
    g = torch.Generator().manual_seed(0)

    def rnd(*shape, dtype=torch.float32):
        return torch.randn(*shape, generator=g).to(dtype)

    def add():
        n = int(4_194_304 * scale)
        x, y, out = rnd(n), rnd(n), torch.empty(n)
        return (lambda: K.add_kernel[(triton.cdiv(n, 1024),)](x, y, out, n, BLOCK=1024)), out

    def softmax():
        rows, cols = int(4096 * scale), 1024
        x, out = rnd(rows, cols, dtype=torch.float16), torch.empty(rows, cols, dtype=torch.float16)
        return (lambda: K.softmax_kernel[(rows,)](out, x, x.stride(0), out.stride(0), cols,
                                                  BLOCK=1024, num_warps=4)), out

    def layer_norm():
        rows, cols = int(2048 * scale), 1024
        x, y = rnd(rows, cols, dtype=torch.float16), torch.empty(rows, cols, dtype=torch.float16)
        w, b = rnd(cols), rnd(cols)
        return (lambda: K.layer_norm_kernel[(rows,)](x, y, w, b, x.stride(0), cols, 1e-5,
                                                     BLOCK=1024, num_warps=4)), y

    def matmul():
        m = n = k = max(64, int(512 * scale ** (1 / 3)) // 64 * 64)
        a, b = rnd(m, k, dtype=torch.float16), rnd(k, n, dtype=torch.float16)
        c = torch.empty(m, n, dtype=torch.float16)
        return (lambda: K.matmul_kernel[(m // 64, n // 64)](
            a, b, c, m, n, k, a.stride(0), a.stride(1), b.stride(0), b.stride(1),
            c.stride(0), c.stride(1), BLOCK_M=64, BLOCK_N=64, BLOCK_K=32, num_warps=4)), c

    def scan():
        rows, cols = int(4096 * scale), 1024
        x, out = rnd(rows, cols), torch.empty(rows, cols)
        return (lambda: K.cumsum_kernel[(rows,)](x, out, x.stride(0), cols, BLOCK=1024)), out

    return [("add", "fp32 add, 4M elements, BLOCK 1024", add),
            ("softmax", "fp16 row softmax, 4096x1024", softmax),
            ("layer_norm", "fp16 LayerNorm forward, 2048x1024", layer_norm),
            ("matmul", "fp16 matmul (tl.dot), 512^3, 64x64x32 tiles", matmul),
            ("scan", "fp32 row cumsum, 4096x1024", scan)]


def timed(launch, reps):
    times = []
    for _ in range(reps):
        t0 = time.perf_counter()
        launch()
        times.append(time.perf_counter() - t0)
    return statistics.median(times), times


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("out")
    cores = os.cpu_count() or 1
    default_threads = sorted({t for t in (1, 2, 4, 8, 16, cores) if t <= cores})
    ap.add_argument("--threads", default=",".join(map(str, default_threads)))
    ap.add_argument("--scale", type=float, default=1.0, help="problem size factor")
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--triton-reps", type=int, default=1)
    ap.add_argument("--only", default="", help="comma-separated workload names")
    args = ap.parse_args()
    threads = [int(t) for t in args.threads.split(",")]
    os.makedirs(args.out, exist_ok=True)
    import numpy
    if tuple(int(p) for p in numpy.__version__.split(".")[:2]) >= (2, 4):
        print(f"note: NumPy {numpy.__version__}: Triton 3.6's interpreter fails on loops over "
              "a runtime bound (the matmul workload) with NumPy >= 2.4; run with NumPy < 2.4 "
              "for its time", flush=True)
    report = {"host": platform.node(), "cpu_count": cores, "processor": platform.processor(),
              "triton": triton.__version__, "torch": torch.__version__,
              "numpy": numpy.__version__,
              "date": time.strftime("%Y-%m-%d %H:%M"), "threads": threads,
              "scale": args.scale, "workloads": []}
    only = set(filter(None, args.only.split(",")))
    path = os.path.join(args.out, "interp.json")
    for name, desc, setup in workloads(args.scale):
        if only and name not in only:
            continue
        launch, out = setup()
        interpret.uninstall()
        try:
            t_triton, _ = timed(launch, args.triton_reps)
        except Exception as e:  # noqa: BLE001 - one workload's failure is reported, not fatal
            print(f"{name:11} Triton's interpreter failed: {e!r}", flush=True)
            report["workloads"].append({"name": name, "what": desc, "triton_error": repr(e)})
            continue
        ref = out.clone()
        interpret.install()
        row = {"name": name, "what": desc, "triton_s": t_triton, "tritonc_s": {}}
        for t in threads:
            interpret.set_threads(t)
            launch()  # warm: the kernel is lowered once per specialization
            row["tritonc_s"][str(t)], _ = timed(launch, args.reps)
        interpret.set_threads(0)
        interpret.uninstall()
        diff = (out.float() - ref.float()).abs()
        row["max_abs_diff_vs_triton"] = float(diff.max())
        base = row["tritonc_s"][str(threads[0])]
        row["speedup_vs_triton"] = {k: t_triton / v for k, v in row["tritonc_s"].items()}
        row["parallel_efficiency"] = {k: base / v / (int(k) / threads[0])
                                      for k, v in row["tritonc_s"].items()}
        report["workloads"].append(row)
        best = max(row["speedup_vs_triton"].values())
        print(f"{name:11} triton {t_triton:8.3f} s   tritonc " +
              "  ".join(f"{k}t {v:.3f}s" for k, v in row["tritonc_s"].items()) +
              f"   best {best:.1f}x   max|diff| {row['max_abs_diff_vs_triton']:.3g}",
              flush=True)
        with open(path, "w") as f:  # after each workload: a cut-short run keeps its rows
            json.dump(report, f, indent=1)
    print(f"wrote {path}")
    try:
        import plot
        plot.plot(report, os.path.join(args.out, "scaling.png"))
        print(f"wrote {os.path.join(args.out, 'scaling.png')}")
    except ImportError as e:
        print(f"no PNG ({e}); run: python3 bench/interp/plot.py {path}")


if __name__ == "__main__":
    main()
