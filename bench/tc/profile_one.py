#!/usr/bin/env python3
"""Launches one prepared matmul case once per side (tritonc, then Triton) at M = N = K =
its size, for a profiler to attach to (`ncu --clock-control none python3 ...`).

    python3 bench/tc/profile_one.py --cases DIR --only NAME"""

import argparse
import json
import pathlib

import torch

from run import TORCH, Kernel


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--cases", required=True)
    ap.add_argument("--only", required=True)
    a = ap.parse_args()
    root = pathlib.Path(a.cases)
    for c in json.loads((root / "cases.json").read_text()):
        if a.only not in c["name"] or c["kind"] != "matmul":
            continue
        d = root / c["name"]
        block = (32 * c["warps"], 1, 1)
        tc = Kernel(d / "tritonc.cubin", c["tritonc_entry"], c["tritonc_shared"], 0, block)
        tr = Kernel(d / "triton.cubin", c["triton_entry"], c["triton_shared"], c["triton_extra_args"], block)
        n = c["size"]
        dt = TORCH[c["dtype"]]
        A = torch.randn(n, n, device="cuda").to(dt)
        B = torch.randn(n, n, device="cuda").to(dt)
        out = torch.empty(n, n, device="cuda", dtype=TORCH[c["out"]])
        args = [A.data_ptr(), B.data_ptr(), out.data_ptr(), n, n, n, n, n, n]
        grid = ((n // c["bm"]) * (n // c["bn"]), 1, 1)
        tc.launch(grid, args)
        tr.launch(grid, args)
        torch.cuda.synchronize()
        break


if __name__ == "__main__":
    main()
