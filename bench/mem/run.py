#!/usr/bin/env python3
"""Times the memory-bound sweep prepare.py compiled, on one GPU in one run: tritonc's
cubin against Triton's cubin for the same source and launch, loaded with CuPy.

Method (as bench/tc/run.py, docs/benchmarks.md): every output is checked first (against
PyTorch in fp32 and against Triton's output); before every timed launch L2 is flushed by
writing one 256 MiB buffer and reading another; tritonc, Triton and tritonc again (the
A/A pair, the run's noise floor) alternate within each round, their order rotating from
round to round; CUDA events around each launch; the median of ROUNDS launches per side.
ratio = Triton's time / tritonc's time (above 1: tritonc faster). A point whose ratio is
below its bar (0.98 minus the run's A/A deviation; 0.95 for kernels under 40 µs) is
timed once more and the second reading kept. The whole run stops taking new points at
--budget seconds.

    python3 run.py --cases DIR [--rounds 60] --out OUT [--budget 420]

Writes OUT/mem_sweep.json and, where matplotlib is installed, OUT/mem_<family>.png."""

import argparse
import json
import math
import pathlib
import sys
import statistics
import time

import torch

sys.path.append(str(pathlib.Path(__file__).resolve().parents[1]))  # bench/
from cubin_timing import Kernel, flusher  # noqa: E402

import plot

TORCH = {"fp16": torch.float16, "bf16": torch.bfloat16, "fp32": torch.float32}
ROWS = 4096
ELEMENTWISE_N = 1 << 28


def time_sides(sides, rounds, flush):
    names = list(sides)
    for fn in sides.values():
        fn()
    torch.cuda.synchronize()
    ev = {k: [] for k in sides}
    for r in range(rounds):
        for k in names[r % len(names):] + names[:r % len(names)]:
            flush()
            s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
            s.record()
            sides[k]()
            e.record()
            ev[k].append((s, e))
    torch.cuda.synchronize()
    return {k: statistics.median(s.elapsed_time(e) for s, e in v) for k, v in ev.items()}


_inputs = {}


def rand(shape, dt, key, fn=torch.randn):
    """Inputs cached per (key, shape, dtype) so neighbouring points share them."""
    k = (key, tuple(shape), dt)
    if k not in _inputs:
        if len(_inputs) > 6:
            _inputs.clear()
            torch.cuda.empty_cache()
        _inputs[k] = fn(*shape, device="cuda", dtype=torch.float32).to(TORCH[dt])
    return _inputs[k]


def setup(c):
    """(output tensors for each side, grid, args(outputs), reference(), bytes moved)."""
    fam, dt, w = c["family"], c["dtype"], c["width"]
    T = TORCH[dt]
    esz = torch.empty((), dtype=T).element_size()
    if fam in ("softmax", "logsoftmax", "scan", "layernorm", "rmsnorm", "jsd"):
        x = rand((ROWS, w), dt, "x")
        outs = [torch.empty_like(x) for _ in range(2)]
        grid = (ROWS, 1, 1)
        xf = x.float()
        if fam == "softmax":
            return outs, grid, lambda o: [x.data_ptr(), o.data_ptr(), w], lambda: torch.softmax(xf, -1), 2 * x.nbytes
        if fam == "logsoftmax":
            return outs, grid, lambda o: [x.data_ptr(), o.data_ptr(), w], lambda: torch.log_softmax(xf, -1), 2 * x.nbytes
        if fam == "scan":
            return outs, grid, lambda o: [x.data_ptr(), o.data_ptr(), w], lambda: torch.cumsum(xf, -1), 2 * x.nbytes
        if fam == "rmsnorm":
            wt = rand((w,), dt, "w")
            ref = lambda: xf * torch.rsqrt((xf * xf).mean(-1, keepdim=True) + 1e-6) * wt.float()  # noqa: E731
            return outs, grid, lambda o: [x.data_ptr(), wt.data_ptr(), o.data_ptr(), w], ref, 2 * x.nbytes + wt.nbytes
        if fam == "layernorm":
            wt, bt = rand((w,), dt, "w"), rand((w,), dt, "b")
            ref = lambda: torch.nn.functional.layer_norm(xf, (w,), wt.float(), bt.float(), 1e-5)  # noqa: E731
            return (outs, grid, lambda o: [x.data_ptr(), wt.data_ptr(), bt.data_ptr(), o.data_ptr(), w], ref,
                    2 * x.nbytes + 2 * wt.nbytes)
        # jsd: two rows of log-probabilities; outputs: loss (fp32) and dx (input type).
        lx = torch.log_softmax(rand((ROWS, w), dt, "x").float(), -1).to(T)
        ly = torch.log_softmax(rand((ROWS, w), dt, "y").float(), -1).to(T)
        outs = [(torch.empty(ROWS, w, device="cuda"), torch.empty_like(lx)) for _ in range(2)]

        def ref():
            q, p = lx.float().exp(), ly.float().exp()
            m = 0.5 * (p + q)
            return 0.5 * q * (lx.float() - m.log())
        return (outs, grid, lambda o: [lx.data_ptr(), ly.data_ptr(), o[0].data_ptr(), o[1].data_ptr(), w], ref,
                2 * lx.nbytes + 4 * ROWS * w + lx.nbytes)
    if fam == "cross_entropy":
        x = rand((ROWS, w), dt, "x")
        t = torch.randint(0, w, (ROWS,), device="cuda", dtype=torch.int32)
        outs = [torch.empty(ROWS, device="cuda") for _ in range(2)]
        ref = lambda: torch.nn.functional.cross_entropy(x.float(), t.long(), reduction="none")  # noqa: E731
        return outs, (ROWS, 1, 1), lambda o: [x.data_ptr(), t.data_ptr(), o.data_ptr(), w], ref, x.nbytes
    if fam == "gather":
        table = rand((ROWS, w), dt, "x")
        idx = torch.randperm(ROWS, device="cuda").to(torch.int32)
        outs = [torch.empty_like(table) for _ in range(2)]
        return (outs, (ROWS, 1, 1), lambda o: [table.data_ptr(), idx.data_ptr(), o.data_ptr(), w],
                lambda: table[idx.long()].float(), 2 * table.nbytes)
    if fam == "colsum":
        x = rand((ROWS, w), dt, "x")
        parts = ROWS // c["consts"][0]
        outs = [torch.empty(parts, w, device="cuda") for _ in range(2)]
        ref = lambda: x.float().view(parts, -1, w).sum(1)  # noqa: E731
        return (outs, (w // c["consts"][2], parts, 1), lambda o: [x.data_ptr(), o.data_ptr(), ROWS, w], ref,
                x.nbytes + 4 * parts * w)
    if fam == "elementwise":
        a, b = rand((ELEMENTWISE_N,), dt, "a"), rand((ELEMENTWISE_N,), dt, "b")
        outs = [torch.empty_like(a) for _ in range(2)]
        ref = lambda: torch.nn.functional.silu(a.float()) * b.float()  # noqa: E731
        return (outs, (ELEMENTWISE_N // c["block"], 1, 1), lambda o: [a.data_ptr(), b.data_ptr(), o.data_ptr(), ELEMENTWISE_N],
                ref, 3 * a.nbytes)
    if fam == "rope":
        tokens, heads, d = 16384, 32, 128
        q = rand((tokens, heads, d), dt, "q")
        ang = torch.rand(tokens, d // 2, device="cuda") * 6.28
        cos, sin = ang.cos(), ang.sin()
        outs = [torch.empty_like(q) for _ in range(2)]

        def ref():
            x1, x2 = q.float()[..., :d // 2], q.float()[..., d // 2:]
            c_, s_ = cos[:, None, :], sin[:, None, :]
            return torch.cat([x1 * c_ - x2 * s_, x2 * c_ + x1 * s_], -1)
        return (outs, (tokens, heads // c["consts"][1], 1), lambda o: [q.data_ptr(), cos.data_ptr(), sin.data_ptr(), o.data_ptr(), heads],
                ref, 2 * q.nbytes + 2 * cos.nbytes)
    raise ValueError(fam)


def first(o):
    return o[1] if isinstance(o, tuple) else o


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--cases", required=True)
    ap.add_argument("--rounds", type=int, default=60)
    ap.add_argument("--out", required=True)
    ap.add_argument("--budget", type=float, default=420, help="seconds; no new point starts after it")
    ap.add_argument("--only", default="")
    a = ap.parse_args()
    start = time.monotonic()
    root = pathlib.Path(a.cases)
    out = pathlib.Path(a.out)
    out.mkdir(parents=True, exist_ok=True)
    cases = [c for c in json.loads((root / "cases.json").read_text()) if a.only in c["name"]]
    # Neighbouring points share inputs: group by shape.
    cases.sort(key=lambda c: (c["family"] in ("elementwise", "rope"), c["dtype"], c["width"], c["family"], c["warps"]))
    flush = flusher()
    results, skipped = [], []
    print(f"{'point':30} {'tritonc µs':>10} {'Triton µs':>10} {'ratio':>6} {'A/A':>6} {'err t/T':>17} {'t-T':>8}")

    def measure(c, tc, tr, grid, args, outs):
        t = time_sides({"tritonc": lambda: tc.launch(grid, args(outs[0])),
                        "triton": lambda: tr.launch(grid, args(outs[1])),
                        "tritonc_again": lambda: tc.launch(grid, args(outs[0]))}, a.rounds, flush)
        return dict(us_tritonc=t["tritonc"] * 1e3, us_triton=t["triton"] * 1e3, us_aa=t["tritonc_again"] * 1e3,
                    ratio=t["triton"] / t["tritonc"], aa=t["tritonc_again"] / t["tritonc"])

    def kernels(c):
        d = root / c["name"]
        block = (32 * c["warps"], 1, 1)
        return (Kernel(d / "tritonc.cubin", c["tritonc_entry"], c["tritonc_shared"], 0, block),
                Kernel(d / "triton.cubin", c["triton_entry"], c["triton_shared"], c["triton_extra_args"], block))

    for c in cases:
        if time.monotonic() - start > a.budget:
            skipped.append(c["name"])
            continue
        if c.get("triton_global_scratch"):
            skipped.append(c["name"])
            print(f"{c['name']:30} skipped: Triton's kernel needs global scratch")
            continue
        tc, tr = kernels(c)
        outs, grid, args, ref, nbytes = setup(c)
        tc.launch(grid, args(outs[0]))
        tr.launch(grid, args(outs[1]))
        torch.cuda.synchronize()
        expect = ref().float()
        err_tc = float((first(outs[0]).float() - expect).abs().max())
        err_tr = float((first(outs[1]).float() - expect).abs().max())
        diff = float((first(outs[0]).float() - first(outs[1]).float()).abs().max())
        tol = {"fp32": 1e-4, "fp16": 2e-2, "bf16": 1.6e-1}[c["dtype"]] * (64 if c["family"] == "scan" else 1)
        ok = math.isfinite(err_tc) and err_tc <= max(2 * err_tr, tol)
        r = dict(c, err_tritonc=err_tc, err_triton=err_tr, diff=diff, correct=ok, bytes=nbytes,
                 **measure(c, tc, tr, grid, args, outs))
        r["gbps_tritonc"] = nbytes / r["us_tritonc"] / 1e3
        r["gbps_triton"] = nbytes / r["us_triton"] / 1e3
        results.append(r)
        print(f"{c['name']:30} {r['us_tritonc']:10.1f} {r['us_triton']:10.1f} {r['ratio']:6.3f} {r['aa']:6.3f} "
              f"{err_tc:8.2g}/{err_tr:<8.2g} {diff:8.2g}{'' if ok else '  WRONG'}", flush=True)
    aa_dev = max((abs(1 - r["aa"]) for r in results), default=0.0)
    # Re-run once the points below their bar.
    for r in results:
        bar = (0.95 if r["us_triton"] < 40 else 0.98) - aa_dev
        r["bar"] = bar
        if r["ratio"] < bar and time.monotonic() - start < a.budget + 40:
            first_ratio = r["ratio"]
            tc, tr = kernels(r)
            outs, grid, args, _, _ = setup(r)
            r.update(measure(r, tc, tr, grid, args, outs))
            del outs
            r["first_ratio"] = first_ratio
            print(f"re-run {r['name']:23} {first_ratio:.3f} -> {r['ratio']:.3f} (A/A {r['aa']:.3f})", flush=True)
    ratios = [r["ratio"] for r in results]
    summary = {}
    if ratios:
        summary = dict(points=len(ratios), geomean=math.exp(sum(map(math.log, ratios)) / len(ratios)),
                       median=statistics.median(ratios), min=min(ratios), aa_min=min(r["aa"] for r in results),
                       aa_max=max(r["aa"] for r in results), below_bar=[r["name"] for r in results if r["ratio"] < r["bar"]],
                       wrong=[r["name"] for r in results if not r["correct"]], skipped=skipped,
                       seconds=time.monotonic() - start, device=torch.cuda.get_device_name(),
                       date=time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()))
        print(f"{len(ratios)} points: geomean {summary['geomean']:.3f}, median {summary['median']:.3f}, "
              f"min {summary['min']:.3f}; A/A {summary['aa_min']:.3f}–{summary['aa_max']:.3f}; "
              f"below bar: {summary['below_bar']}; wrong: {summary['wrong']}; skipped {len(skipped)}")
    (out / "mem_sweep.json").write_text(json.dumps(dict(summary=summary, points=results), indent=1))
    plot.plot(results, out)


if __name__ == "__main__":
    main()
