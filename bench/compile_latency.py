#!/usr/bin/env python3
"""Compile latency to PTX: tritonc against upstream Triton, same source, same
specialization, same target (sm_90), on this machine (no GPU needed).

- tritonc: the whole process, `tritonc compile FILE --signature SIG --emit ptx` (parse,
  analysis, MLIR, PTX), wall time, median of --runs.
- Triton: `triton.compile(ASTSource(...), target=GPUTarget("cuda", 90, 32))` in a warm
  process with TRITON_ALWAYS_COMPILE=1, with the ptxas stage stubbed out so the time is
  source to PTX, median of --runs. (Triton's own process start and import cost, about a
  second, is not counted: the comparison favours Triton.)

Prints a table with the ratio Triton / tritonc per case. With --breakdown, prints instead
where the time goes: tritonc's LLVM part (translation, O3, NVPTX back end, as
TRITONC_MLIR_TIMING=1 reports it) against a tenth of Triton's total and Triton's own
stages (each stage of CUDABackend.add_stages timed; "ptx" is LLVM's NVPTX back end).

    python3 bench/compile_latency.py [--tritonc target/release/tritonc] [--runs 10] [--breakdown]
"""

import argparse
import os
import pathlib
import statistics
import subprocess
import sys
import time

ROOT = pathlib.Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "bench"))
import cases as case_defs  # noqa: E402


def parse_signature(sig, arg_names):
    """Triton AOT signature -> (signature dict, constexprs dict, attrs dict)."""
    signature, constexprs, attrs = {}, {}, {}
    for i, (name, item) in enumerate(zip(arg_names, [s.strip() for s in sig.split(",")])):
        ty, _, hint = item.partition(":")
        if ty.startswith("*") or ty[:1] in ("i", "u") and ty[1:].isdigit() or ty in ("fp32", "fp16", "bf16", "fp64"):
            if hint == "1":
                signature[name] = "constexpr"
                constexprs[name] = 1
                continue
            signature[name] = ty
            if hint == "16":
                attrs[(i,)] = [["tt.divisibility", 16]]
        else:
            signature[name] = "constexpr"
            constexprs[name] = eval(item, {"True": True, "False": False})  # literals from cases.py only
    return signature, constexprs, attrs


def load_example(path):
    sys.path.insert(0, str(ROOT / "scripts"))
    from triton_common import install_torch_stub  # host code only; kernels need no torch

    from triton_common import load_module

    install_torch_stub()
    return load_module(ROOT / path)


def triton_ptx_ms(case, runs):
    import triton
    from triton.backends.compiler import GPUTarget
    from triton.backends.nvidia.compiler import CUDABackend
    from triton.compiler import ASTSource

    CUDABackend.make_cubin = lambda self, src, metadata, opt, capability: b""  # stop at PTX
    fn = getattr(load_example(case.file), case.kernel)
    while not isinstance(fn, triton.runtime.JITFunction):  # unwrap autotune/heuristics
        fn = fn.fn
    sig, consts, attrs = parse_signature(case.signature, fn.arg_names)
    target = GPUTarget("cuda", 90, 32)
    times = []
    for _ in range(runs + 1):
        t0 = time.perf_counter()
        k = triton.compile(ASTSource(fn, sig, consts, attrs), target=target, options=triton_options(case))
        times.append((time.perf_counter() - t0) * 1e3)
        assert ".entry" in k.asm["ptx"]
    return statistics.median(times[1:])


def triton_stage_ms(case, runs):
    """Median total and per-stage times of `triton.compile` (warm), stopping at PTX."""
    import triton
    from triton.backends.compiler import GPUTarget
    from triton.backends.nvidia.compiler import CUDABackend
    from triton.compiler import ASTSource

    stage_times = {}
    add_stages = CUDABackend.add_stages

    def timed_stages(self, stages, options, language):
        add_stages(self, stages, options, language)
        stages["cubin"] = lambda src, metadata: b""  # stop at PTX
        for name, stage in list(stages.items()):
            def timed(src, metadata, stage=stage, name=name):
                t0 = time.perf_counter()
                out = stage(src, metadata)
                stage_times.setdefault(name, []).append((time.perf_counter() - t0) * 1e3)
                return out
            stages[name] = timed

    CUDABackend.add_stages = timed_stages
    try:
        fn = getattr(load_example(case.file), case.kernel)
        while not isinstance(fn, triton.runtime.JITFunction):
            fn = fn.fn
        sig, consts, attrs = parse_signature(case.signature, fn.arg_names)
        totals = []
        for _ in range(runs + 1):
            t0 = time.perf_counter()
            triton.compile(ASTSource(fn, sig, consts, attrs), target=GPUTarget("cuda", 90, 32),
                           options=triton_options(case))
            totals.append((time.perf_counter() - t0) * 1e3)
    finally:
        CUDABackend.add_stages = add_stages
    return statistics.median(totals[1:]), {k: statistics.median(v[1:]) for k, v in stage_times.items()}


def triton_options(case):
    options = {"num_warps": case.num_warps}
    if getattr(case, "num_stages", None):
        options["num_stages"] = case.num_stages
    return options


def tritonc_command(case, tritonc):
    # --no-cache: every run compiles (Triton runs with TRITON_ALWAYS_COMPILE=1).
    cmd = [tritonc, "compile", case.file, "--kernel", case.kernel, "--signature", case.signature,
           "--num-warps", str(case.num_warps), "--target", "sm_90", "--emit", "ptx", "--no-cache"]
    if getattr(case, "num_stages", None):
        cmd += ["--num-stages", str(case.num_stages)]
    return cmd


def tensor_core_cases():
    """The cases of bench/tc/prepare.py's quick sm_90 table (wgmma matmuls of every tile,
    both attention kernels), as compile-latency cases."""
    import types
    sys.path.insert(0, str(ROOT / "bench" / "tc"))
    import prepare
    out = []
    for c in prepare.cases(True, "sm_90"):
        text, _names, _types, _consts, _fn, kname = prepare.signature(c)
        out.append(types.SimpleNamespace(name=c["name"], file="bench/tc/kernels.py", kernel=kname,
                                         signature=text, num_warps=c["warps"], num_stages=c["stages"]))
    return out


def tritonc_llvm_ms(case, tritonc, runs):
    """Median of the LLVM time TRITONC_MLIR_TIMING=1 reports, one process per run."""
    times = []
    env = dict(os.environ, TRITONC_MLIR_TIMING="1")
    for _ in range(runs):
        p = subprocess.run(tritonc_command(case, tritonc), capture_output=True, text=True, cwd=ROOT, env=env)
        if p.returncode != 0:
            return None
        times += [float(line.rsplit(":", 1)[1].split()[0]) for line in p.stderr.splitlines() if line.startswith("LLVM (")]
    return statistics.median(times) if times else None


def tritonc_ptx_ms(case, tritonc, runs):
    cmd = tritonc_command(case, tritonc)
    times = []
    for _ in range(runs + 1):
        t0 = time.perf_counter()
        p = subprocess.run(cmd, capture_output=True, text=True, cwd=ROOT)
        times.append((time.perf_counter() - t0) * 1e3)
        if p.returncode != 0:
            return None, (p.stderr.strip().splitlines() or ["?"])[0]
    return statistics.median(times[1:]), None


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--tritonc", default=str(ROOT / "target" / "release" / "tritonc"))
    ap.add_argument("--runs", type=int, default=10)
    ap.add_argument("--only", help="comma-separated case names (default: every distinct specialization)")
    ap.add_argument("--breakdown", action="store_true", help="where the time goes instead of the ratios")
    ap.add_argument("--tensor-cores", action="store_true",
                    help="the sm_90 tensor-core cases of bench/tc/prepare.py instead of bench/cases.py")
    args = ap.parse_args()
    os.environ["TRITON_ALWAYS_COMPILE"] = "1"
    if args.breakdown:
        print("| case | Triton total | a tenth of it | tritonc: LLVM alone | Triton: `ptx` stage alone | Triton: `llir` stage |")
        print("|---|---|---|---|---|---|")
    else:
        print("| case | tritonc (whole process) ms | Triton (warm, in-process) ms | Triton / tritonc |")
        print("|---|---|---|---|")
    seen = set()
    for case in (tensor_core_cases() if args.tensor_cores else case_defs.CASES):
        key = (case.file, case.kernel, case.signature, case.num_warps, getattr(case, "num_stages", None))
        if key in seen or (args.only and case.name not in args.only.split(",")):
            continue
        seen.add(key)
        if args.breakdown:
            total, stages = triton_stage_ms(case, args.runs)
            llvm = tritonc_llvm_ms(case, args.tritonc, args.runs)
            llvm_text = "not compiled" if llvm is None else f"{llvm:.1f}"
            print(f"| {case.name} | {total:.1f} | {total / 10:.1f} | {llvm_text} | "
                  f"{stages.get('ptx', 0):.1f} | {stages.get('llir', 0):.1f} |")
            continue
        tc, err = tritonc_ptx_ms(case, args.tritonc, args.runs)
        try:
            tr = triton_ptx_ms(case, args.runs)
        except Exception as e:  # noqa: BLE001 (a kernel Triton rejects is a row, not a stop)
            reason = str(e).strip().splitlines()[-1][:80] if str(e).strip() else type(e).__name__
            print(f"| {case.name} | {'not compiled: ' + err if tc is None else f'{tc:.1f}'} | "
                  f"Triton rejects it: {reason} | — |")
            continue
        if tc is None:
            print(f"| {case.name} | not compiled: {err} | {tr:.1f} | — |")
        else:
            print(f"| {case.name} | {tc:.1f} | {tr:.1f} | {tr / tc:.1f}× |")


if __name__ == "__main__":
    main()
