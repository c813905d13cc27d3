#!/usr/bin/env python3
"""Splits a matmul case's time into a per-K-step part and a fixed part (prologue,
epilogue, launch): times tritonc's and Triton's cubins of one case prepared by
prepare.py at M = N = the case's size and several K (the kernel takes M, N, K at run
time), with the method of run.py (L2 flushed, sides alternated, median). The slope of
time over K is the K loop's cost, the intercept everything else.

    python3 bench/tc/ksweep.py --cases DIR --only NAME [--ks 64,256,1024,4096,16384]"""

import argparse
import json
import pathlib

import torch

from run import TORCH, Kernel, flusher, time_sides


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--cases", required=True)
    ap.add_argument("--only", required=True)
    ap.add_argument("--ks", default="64,256,1024,4096,16384")
    ap.add_argument("--rounds", type=int, default=30)
    a = ap.parse_args()
    root = pathlib.Path(a.cases)
    flush = flusher()
    for c in json.loads((root / "cases.json").read_text()):
        if a.only not in c["name"] or c["kind"] != "matmul":
            continue
        d = root / c["name"]
        block = (32 * c["warps"], 1, 1)
        tc = Kernel(d / "tritonc.cubin", c["tritonc_entry"], c["tritonc_shared"], 0, block)
        tr = Kernel(d / "triton.cubin", c["triton_entry"], c["triton_shared"], c["triton_extra_args"], block)
        n = c["size"]
        dt = TORCH[c["dtype"]]
        grid = ((n // c["bm"]) * (n // c["bn"]), 1, 1)
        rows = []
        for k in [int(x) for x in a.ks.split(",")]:
            A = torch.randn(n, k, device="cuda").to(dt)
            B = torch.randn(k, n, device="cuda").to(dt)
            out = torch.empty(n, n, device="cuda", dtype=TORCH[c["out"]])
            args = [A.data_ptr(), B.data_ptr(), out.data_ptr(), n, n, k, k, n, n]
            t = time_sides({"tritonc": lambda: tc.launch(grid, args),
                            "triton": lambda: tr.launch(grid, args)}, a.rounds, flush)
            rows.append((k, t["tritonc"], t["triton"]))
            print(f"{c['name']} K={k:6} tritonc {t['tritonc']*1e3:9.1f} us  Triton {t['triton']*1e3:9.1f} us  ratio {t['triton']/t['tritonc']:.3f}", flush=True)
        (k0, a0, b0), (k1, a1, b1) = rows[-2], rows[-1]
        print(f"{c['name']}: per 64 of K: tritonc {(a1-a0)/(k1-k0)*64*1e3:.2f} us, Triton {(b1-b0)/(k1-k0)*64*1e3:.2f} us; "
              f"fixed (K={rows[0][0]}): tritonc {rows[0][1]*1e3:.1f} us, Triton {rows[0][2]*1e3:.1f} us")
        break


if __name__ == "__main__":
    main()
