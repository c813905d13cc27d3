#!/usr/bin/env python3
"""Times tritonc-compiled kernels against upstream Triton and PyTorch on one GPU, in one run.

For every case in cases.py whose bundle exists (bench/build.sh compiles them here):
  1. build the inputs and call the example's own host wrapper with the kernel object
     wrapped, capturing the exact launch (grid, arguments, num_warps) that Triton makes;
  2. replay that launch on tritonc's bundle (PTX or cubin loaded with CuPy) after checking
     every assumption of the bundle's signature against the actual arguments;
  3. compare every tensor argument after tritonc's launch with the state after Triton's;
  4. time Triton, tritonc, PyTorch's equivalent and a device-to-device copy with one
     method: L2 flushed before every run, CUDA events around the launch, sides alternated
     in rounds, median of ROUNDS runs. Host launch cost is timed separately (enqueueing
     back-to-back launches, no sync).
Prints a table and writes JSON to --json. Exit 1 if any tritonc result disagrees.

    python3 bench/gpu_bench.py --bundles bench/out/bundles [--json out.json] [--rounds 50]
"""

import argparse
import importlib.util
import json
import math
import os
import pathlib
import statistics
import sys
import time

import cupy as cp
import numpy as np
import torch
import triton

ROOT = pathlib.Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "bench"))
import cases as case_defs  # noqa: E402

L2_FLUSH_BYTES = 256 << 20
SIG_DTYPES = {
    "fp16": torch.float16, "bf16": torch.bfloat16, "fp32": torch.float32, "fp64": torch.float64,
    "i8": torch.int8, "i16": torch.int16, "i32": torch.int32, "i64": torch.int64, "u8": torch.uint8,
    "i1": torch.bool,
}


def load_module(path):
    spec = importlib.util.spec_from_file_location(pathlib.Path(path).stem, ROOT / path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


class LaunchCapture:
    """Stands in for a JITFunction: `kernel[grid](*args, **kw)` records and forwards."""

    def __init__(self, kernel):
        self.kernel = kernel
        self.launches = []

    def __getitem__(self, grid):
        def launch(*args, **kwargs):
            self.launches.append((grid, args, kwargs))
            return self.kernel[grid](*args, **kwargs)

        return launch

    def __getattr__(self, name):
        return getattr(self.kernel, name)


def bind(kernel, args, kwargs):
    names = kernel.arg_names
    bound = dict(zip(names, args))
    bound.update({k: v for k, v in kwargs.items() if k in names})
    return bound


def grid_dims(grid, bound):
    g = grid(bound) if callable(grid) else grid
    g = tuple(int(v) for v in g)
    return g + (1,) * (3 - len(g))


class TritoncLaunch:
    """A bundle's kernel with arguments marshalled from the captured Triton launch."""

    def __init__(self, bundle_dir, bound, grid, num_warps):
        meta = json.loads((bundle_dir / "bundle.json").read_text())
        self.meta = meta
        code = bundle_dir / "kernel.cubin"
        if not code.exists():
            code = bundle_dir / "kernel.ptx"
        self.function = cp.RawModule(path=str(code)).get_function(meta["entry"])
        self.grid = grid
        self.block = (32 * meta["num_warps"], 1, 1)
        self.shared = meta.get("dynamic_shared_bytes", 0)
        problems = []
        if meta["num_warps"] != num_warps:
            problems.append(f"num_warps: bundle {meta['num_warps']}, Triton launch {num_warps}")
        passed = []
        for p in meta["params"]:
            name, role = p["name"], p["role"]
            value = bound.get(name)
            if role == "equal_to_one":
                if value != 1:
                    problems.append(f"{name}: compiled as ==1, launched with {value}")
            elif "constexpr" in role:
                want = role["constexpr"]
                got = next(iter(want.values())) if isinstance(want, dict) else None
                if isinstance(want, dict) and value != got:
                    problems.append(f"{name}: compiled as constexpr {got}, launched with {value}")
            else:
                index, kind = role["passed"]["index"], role["passed"]["kind"]
                if "pointer" in kind:
                    ptr = kind["pointer"]
                    if not torch.is_tensor(value):
                        problems.append(f"{name}: expected a tensor")
                        continue
                    if value.dtype != SIG_DTYPES.get(ptr["pointee"]):
                        problems.append(f"{name}: compiled for *{ptr['pointee']}, launched with {value.dtype}")
                    if value.data_ptr() % ptr["align"]:
                        problems.append(f"{name}: compiled {ptr['align']}-byte aligned, address {value.data_ptr():#x}")
                    passed.append((index, np.uint64(value.data_ptr())))
                else:
                    sc = kind["scalar"]
                    div = sc.get("divisibility") or 1
                    if sc["dtype"].startswith(("i", "u")) and isinstance(value, int) and value % div:
                        problems.append(f"{name}: compiled divisible by {div}, launched with {value}")
                    conv = {"i32": np.int32, "u32": np.uint32, "i64": np.int64, "u64": np.uint64,
                            "fp32": np.float32, "fp64": np.float64}[sc["dtype"]]
                    passed.append((index, conv(value)))
        self.problems = problems
        self.args = tuple(v for _, v in sorted(passed, key=lambda t: t[0]))

    def __call__(self):
        self.function(self.grid, self.block, self.args, shared_mem=self.shared)


def tensors_of(bound):
    return {k: v for k, v in bound.items() if torch.is_tensor(v)}


def compare(case, triton_after, tritonc_after):
    """Max abs error over every tensor argument; exact for ints, tolerance for floats."""
    worst, ok = 0.0, True
    for name, want in triton_after.items():
        got = tritonc_after[name]
        if want.dtype.is_floating_point:
            w, g = want.float(), got.float()
            nan_ok = torch.equal(torch.isnan(w), torch.isnan(g))
            finite = ~torch.isnan(w)
            err = (w[finite] - g[finite]).abs().max().item() if finite.any() else 0.0
            tol = 1e-2 if want.dtype in (torch.float16, torch.bfloat16) else 1e-4
            scale = max(1.0, w[finite].abs().max().item() if finite.any() else 1.0)
            ok &= nan_ok and err <= tol * scale
            worst = max(worst, err)
        else:
            ok &= torch.equal(want, got)
    return ok, worst


def time_sides(sides, rounds):
    flush = torch.empty(L2_FLUSH_BYTES, dtype=torch.uint8, device="cuda")
    events = {name: [] for name in sides}
    for fn in sides.values():  # warm up (module load, JIT)
        fn()
    torch.cuda.synchronize()
    for _ in range(rounds):
        for name, fn in sides.items():
            flush.zero_()
            start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
            start.record()
            fn()
            end.record()
            events[name].append((start, end))
    torch.cuda.synchronize()
    return {name: statistics.median(s.elapsed_time(e) for s, e in ev) for name, ev in events.items()}


def host_launch_us(fn, n=200):
    fn()
    torch.cuda.synchronize()
    t0 = time.perf_counter()
    for _ in range(n):
        fn()
    t1 = time.perf_counter()
    torch.cuda.synchronize()
    return (t1 - t0) / n * 1e6


def copy_roofline(rounds):
    src = torch.empty(1 << 30, dtype=torch.uint8, device="cuda")
    dst = torch.empty_like(src)
    ms = time_sides({"copy": lambda: dst.copy_(src)}, rounds)["copy"]
    return 2 * src.numel() / (ms * 1e-3) / 1e9


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--bundles", default=str(ROOT / "bench" / "out" / "bundles"))
    ap.add_argument("--json")
    ap.add_argument("--rounds", type=int, default=50)
    ap.add_argument("--only", help="comma-separated case names")
    args = ap.parse_args()
    bundles = pathlib.Path(args.bundles)
    torch.manual_seed(0)

    copy_gbs = copy_roofline(args.rounds)
    print(f"device: {torch.cuda.get_device_name()}  copy roofline (read+write): {copy_gbs:.0f} GB/s")
    results, failures = [], 0
    for case in case_defs.CASES:
        if args.only and case.name not in args.only.split(","):
            continue
        bdir = bundles / case.name
        found = sorted(bdir.glob("*.tcb")) if bdir.exists() else []
        row = {"case": case.name, "family": case.family, "size": case.size, "dtype": case.dtype}
        if not found:
            row["status"] = "no tritonc bundle (not compiled)"
            results.append(row)
            print(f"{case.name:34} skipped: {row['status']}")
            continue
        mod = load_module(case.file)
        kernel = getattr(mod, case.kernel)
        if case.unwrap:  # an autotuned kernel launched with one explicit config
            while not isinstance(kernel, triton.runtime.JITFunction):
                kernel = kernel.fn
        capture = LaunchCapture(kernel)
        setattr(mod, case.kernel, capture)
        inputs = case.setup(torch)
        case.call(mod, inputs)
        torch.cuda.synchronize()
        grid, targs, tkw = capture.launches[-1]
        bound = bind(capture.kernel, targs, tkw)
        dims = grid_dims(grid, bound)
        num_warps = tkw.get("num_warps", 4)
        try:
            tc = TritoncLaunch(found[0], bound, dims, num_warps)
        except Exception as e:  # a bundle the driver refuses is a finding, not a crash
            row["status"] = f"tritonc load failed: {e}"
            failures += 1
            results.append(row)
            print(f"{case.name:34} FAILED: {row['status']}")
            continue
        if tc.problems:
            row["status"] = "signature mismatch: " + "; ".join(tc.problems)
            failures += 1
            results.append(row)
            print(f"{case.name:34} FAILED: {row['status']}")
            continue
        tensors = tensors_of(bound)
        before = {k: v.clone() for k, v in tensors.items()}
        triton_launch = lambda: capture.kernel[grid](*targs, **tkw)  # noqa: E731
        triton_launch()
        torch.cuda.synchronize()
        triton_after = {k: v.clone() for k, v in tensors.items()}
        for k, v in tensors.items():
            v.copy_(before[k])
        tc()
        torch.cuda.synchronize()
        ok, err = compare(case, triton_after, {k: v.clone() for k, v in tensors.items()})
        sides = {"triton": triton_launch, "tritonc": tc}
        if case.torch_ref is not None:
            sides["torch"] = lambda: case.torch_ref(torch, inputs)  # noqa: E731
        ms = time_sides(sides, args.rounds)
        nbytes = case.bytes_moved(inputs)
        row.update({
            "status": "ok" if ok else "MISMATCH",
            "bytes_moved": nbytes,
            "max_abs_err_vs_triton": err,
            "gpu_ms": ms,
            "gb_per_s": {k: nbytes / (v * 1e-3) / 1e9 for k, v in ms.items()},
            "tritonc_over_triton": ms["triton"] / ms["tritonc"],
            "tritonc_fraction_of_copy": nbytes / (ms["tritonc"] * 1e-3) / 1e9 / copy_gbs,
            "host_launch_us": {"triton": host_launch_us(triton_launch), "tritonc_via_cupy": host_launch_us(tc)},
            "registers": (json.loads((found[0] / "bundle.json").read_text()).get("ptxas") or {}).get("registers"),
        })
        if case.flops is not None:
            flops = case.flops(inputs)
            row["tflop_per_s"] = {k: flops / (v * 1e-3) / 1e12 for k, v in ms.items()}
        failures += 0 if ok else 1
        results.append(row)
        if "tflop_per_s" in row:
            tf = row["tflop_per_s"]
            print(f"{case.name:34} {row['status']:8} triton {tf['triton']:7.1f} TFLOP/s  tritonc {tf['tritonc']:7.1f} TFLOP/s"
                  f"  torch {tf.get('torch', float('nan')):7.1f} TFLOP/s  ratio {row['tritonc_over_triton']:.3f}"
                  f"  err {err:.1e}")
        else:
            gbs = row["gb_per_s"]
            print(f"{case.name:34} {row['status']:8} triton {gbs['triton']:7.0f} GB/s  tritonc {gbs['tritonc']:7.0f} GB/s"
                  f"  torch {gbs.get('torch', float('nan')):7.0f} GB/s  ratio {row['tritonc_over_triton']:.3f}"
                  f"  err {err:.1e}")
    report = {"device": torch.cuda.get_device_name(), "copy_gb_per_s": copy_gbs, "rounds": args.rounds,
              "date": time.strftime("%Y-%m-%d"), "results": results}
    if args.json:
        pathlib.Path(args.json).write_text(json.dumps(report, indent=2))
    print(f"{sum(r.get('status') == 'ok' for r in results)} passed, {failures} failed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
