#!/usr/bin/env python3
"""Times the tensor-core cases prepare.py compiled: tritonc's code against Triton's code for
the same source and launch config, both assembled by the same ptxas (the project's), loaded
with CuPy, on one GPU in one run; a fourth side is Triton's code as its own ptxas (the one
in its wheel) assembled it, and a fifth the library's kernel (cuBLAS, or torch's flash
attention) where there is one.

Method (docs/benchmarks.md): before every timed launch L2 is flushed by writing one
buffer and reading another; sides alternate within each round; the median of ROUNDS
launches per side is reported; an A/A pair (tritonc against itself) gives the run's noise
floor. Every output is checked against PyTorch first (fp32 reference; int8 exact).

    python3 bench/tc/run.py --cases bench/tc/out [--rounds 30] [--json out.json]"""

import argparse
import json
import pathlib
import sys
import statistics

import torch

sys.path.append(str(pathlib.Path(__file__).resolve().parents[1]))  # bench/
from cubin_timing import Kernel, flusher  # noqa: E402,F401 (re-exported for ksweep/profile_one)

TORCH = {"fp16": torch.float16, "bf16": torch.bfloat16, "fp32": torch.float32, "i8": torch.int8,
         "i32": torch.int32, "fp8": torch.float8_e4m3fn}


def time_sides(sides, rounds, flush):
    for fn in sides.values():
        fn()
    torch.cuda.synchronize()
    ev = {k: [] for k in sides}
    for _ in range(rounds):
        for k, fn in sides.items():
            flush()
            s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
            s.record()
            fn()
            e.record()
            ev[k].append((s, e))
    torch.cuda.synchronize()
    return {k: statistics.median(s.elapsed_time(e) for s, e in v) for k, v in ev.items()}


def setup(c):
    if c["kind"] == "matmul":
        n = c["size"]
        dt = TORCH[c["dtype"]]
        if c["dtype"] == "i8":
            a = torch.randint(-128, 128, (n, n), device="cuda", dtype=torch.int8)
            b = torch.randint(-128, 128, (n, n), device="cuda", dtype=torch.int8)
        else:
            a = torch.randn(n, n, device="cuda", dtype=torch.float32).to(dt)
            b = torch.randn(n, n, device="cuda", dtype=torch.float32).to(dt)
        outs = [torch.empty(n, n, device="cuda", dtype=TORCH[c["out"]]) for _ in range(2)]
        grid = ((n // c["bm"]) * (n // c["bn"]), 1, 1)
        args = lambda o: [a.data_ptr(), b.data_ptr(), o.data_ptr(), n, n, n, n, n, n]  # noqa: E731
        bt = c.get("form") == "bt" or c.get("form", "").startswith("imp")
        bm = b.T if bt else b
        if c["dtype"] == "i8":
            ref = (a.double() @ bm.double())  # exact in fp64 for these sizes
            ref = ref.to(torch.int64).to(torch.int32)
        else:
            ref = a.float() @ bm.float()
        flops = 2 * n ** 3
        # The library's own kernel on the same inputs (cuBLAS), where torch has one.
        lib = None
        if c["dtype"] in ("fp16", "bf16") and c["out"] == c["dtype"]:
            lib_out = torch.empty(n, n, device="cuda", dtype=dt)
            lib = lambda: torch.matmul(a, bm, out=lib_out)  # noqa: E731
        return outs, grid, args, ref, flops, lib
    z, h, s, d = c.get("batch", 1), c["heads"], c["seq"], c["dim"]
    causal = c.get("causal", False)
    q, k, v = (torch.randn(z * h, s, d, device="cuda", dtype=torch.float16) for _ in range(3))
    outs = [torch.empty_like(q) for _ in range(2)]
    grid = (s // c["bm"], z * h, 1)
    args = lambda o: [q.data_ptr(), k.data_ptr(), v.data_ptr(), o.data_ptr(), s, s * d, d]  # noqa: E731
    # fp32 reference, a few heads at a time (a 4096 x 4096 score matrix per head).
    ref = torch.empty(z * h, s, d, device="cuda", dtype=torch.float32)
    keep = torch.ones(s, s, device="cuda", dtype=torch.bool).tril() if causal else None
    for i in range(0, z * h, 8):
        sc = (q[i:i + 8].float() @ k[i:i + 8].float().transpose(1, 2)) * 0.125
        if causal:
            sc = sc.masked_fill(~keep, float("-inf"))
        ref[i:i + 8] = torch.softmax(sc, dim=-1) @ v[i:i + 8].float()
        del sc
    # torch's flash attention on the same 4-D problem (batch, heads, positions, dim).
    q4, k4, v4 = (x.view(z, h, s, d) for x in (q, k, v))

    def lib():
        from torch.nn.attention import SDPBackend, sdpa_kernel
        with sdpa_kernel(SDPBackend.FLASH_ATTENTION):
            torch.nn.functional.scaled_dot_product_attention(q4, k4, v4, scale=0.125, is_causal=causal)
    flops = 4 * z * h * s * s * d * (0.5 if causal else 1.0)
    return outs, grid, args, ref, flops, lib


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--cases", default="bench/tc/out")
    ap.add_argument("--rounds", type=int, default=30)
    ap.add_argument("--json")
    ap.add_argument("--only", default="")
    a = ap.parse_args()
    root = pathlib.Path(a.cases)
    cases = json.loads((root / "cases.json").read_text())
    flush = flusher()
    results = []
    print(f"{'case':46} {'tritonc':>9} {'Triton':>9} {'ratio':>6} {'A/A':>6} {'err t/T':>15}  regs t/T")
    for c in cases:
        if a.only and a.only not in c["name"]:
            continue
        d = root / c["name"]
        block = (32 * c["warps"], 1, 1)
        tc = Kernel(d / "tritonc.cubin", c["tritonc_entry"], c["tritonc_shared"], 0, block)
        tr = Kernel(d / "triton.cubin", c["triton_entry"], c["triton_shared"], c["triton_extra_args"], block)
        # Triton's code as its own ptxas assembled it (prepare.py writes it where it can).
        own = d / "triton_own.cubin"
        tro = Kernel(own, c["triton_entry"], c["triton_shared"], c["triton_extra_args"], block) \
            if own.is_file() else None
        outs, grid, args, ref, flops, lib = setup(c)
        tc.launch(grid, args(outs[0]))
        tr.launch(grid, args(outs[1]))
        torch.cuda.synchronize()
        errs = []
        for o in outs:
            if c.get("out") == "i32":
                errs.append(0.0 if torch.equal(o, ref) else float((o.long() - ref.long()).abs().max()))
            else:
                errs.append(float((o.float() - ref).abs().max()))
        sides = {"tritonc": lambda: tc.launch(grid, args(outs[0])),
                 "triton": lambda: tr.launch(grid, args(outs[1])),
                 "tritonc_again": lambda: tc.launch(grid, args(outs[0]))}
        if tro is not None:
            sides["triton_own_ptxas"] = lambda: tro.launch(grid, args(outs[1]))
        if lib is not None:
            try:
                lib()
                sides["library"] = lib
            except Exception as e:  # noqa: BLE001 (a library without the kernel: no column)
                print(f"{c['name']}: no library column ({type(e).__name__}: {str(e)[:80]})")
        t = time_sides(sides, a.rounds, flush)
        r = dict(c, ms_tritonc=t["tritonc"], ms_triton=t["triton"], ms_aa=t["tritonc_again"],
                 ratio=t["triton"] / t["tritonc"], aa=t["tritonc_again"] / t["tritonc"],
                 tflops_tritonc=flops / t["tritonc"] / 1e9, tflops_triton=flops / t["triton"] / 1e9,
                 err_tritonc=errs[0], err_triton=errs[1],
                 bitwise_equal=bool(torch.equal(outs[0], outs[1])),
                 max_diff_sides=float((outs[0].double() - outs[1].double()).abs().max()),
                 tflops_library=(flops / t["library"] / 1e9) if "library" in t else None,
                 ratio_triton_own_ptxas=(t["triton_own_ptxas"] / t["tritonc"]) if "triton_own_ptxas" in t else None)
        results.append(r)
        print(f"{c['name']:46} {r['tflops_tritonc']:9.1f} {r['tflops_triton']:9.1f} {r['ratio']:6.3f} "
              f"{r['aa']:6.3f} {errs[0]:7.3g}/{errs[1]:<7.3g}  {c['tritonc_sm90']['registers']}/{c['triton_sm90']['registers']}"
              f"  {'bitwise' if r['bitwise_equal'] else 'diff %.3g' % r['max_diff_sides']}"
              + (f"  library {r['tflops_library']:.1f}" if r["tflops_library"] else "")
              + (f"  vs Triton+own ptxas {r['ratio_triton_own_ptxas']:.3f}" if r["ratio_triton_own_ptxas"] else ""),
              flush=True)
    if a.json:
        pathlib.Path(a.json).write_text(json.dumps(results, indent=1))
    ratios = [r["ratio"] for r in results]
    if ratios:
        print(f"median ratio {statistics.median(ratios):.3f} over {len(ratios)} cases "
              f"(A/A {min(r['aa'] for r in results):.3f}–{max(r['aa'] for r in results):.3f})")
    own = [r["ratio_triton_own_ptxas"] for r in results if r["ratio_triton_own_ptxas"]]
    if own:
        print(f"median ratio against Triton assembled by its own ptxas {statistics.median(own):.3f} "
              f"over {len(own)} cases")


if __name__ == "__main__":
    main()
