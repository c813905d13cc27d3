#!/usr/bin/env python3
"""Compiles the memory-bound sweep (bench/mem/kernels.py) on this GPU-less machine, both
sides, for sm_90: tritonc's bundle (`tritonc compile --target sm_90`; its cubin is what
runs) and upstream Triton's kernel for the same source, signature (every integer `:16`,
as `tt.divisibility`), `num_warps` and `num_stages` (`triton.compile(...,
GPUTarget("cuda", 90, 32))`; its own cubin, assembled by Triton's bundled ptxas as a
Triton launch would). Records per point: registers, spills and shared bytes of both
cubins, and the PTX facts the report compares (global/shared loads and stores by width,
`bar.sync`, shuffles). Points where Triton's own cubin spills are dropped, as the sweep
asks.

    python3 bench/mem/prepare.py [--tritonc target/release/tritonc] [--out bench/out/mem]
                                 [--quick] [--only SUBSTR] [--jobs 2]

Writes OUT/device/ (cases.json and one directory of two cubins per point: what
bench/mem/gpu_run.sh needs on the GPU host) and OUT/ptx/ (both PTX files and tritonc's
GPU IR per point, kept here for the comparisons). bench/mem/compare.py tabulates them."""

import argparse
import collections
import concurrent.futures
import json
import os
import pathlib
import re
import shutil
import subprocess
import sys

ROOT = pathlib.Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "bench" / "mem"))

ROWS = 4096
WIDTHS = [1024, 4096, 8192, 16384]
WARPS = [4, 8, 16]
DTYPES = ["fp16", "bf16", "fp32"]
ELEMENTWISE_N = 1 << 28
ROW_FAMILIES = ["softmax", "layernorm", "rmsnorm", "logsoftmax", "cross_entropy", "scan",
                "gather", "jsd"]


def pow2(n):
    return 1 << (n - 1).bit_length()


def cases(quick=False):
    """Every point of the sweep: family, kernel, dtype, width, BLOCK, warps, signature."""
    out = []
    widths = [8192] if quick else WIDTHS
    warps = [16] if quick else WARPS
    for fam in ROW_FAMILIES + ["colsum", "elementwise"]:
        for dt in DTYPES:
            for w in widths:
                for nw in warps:
                    c = dict(family=fam, dtype=dt, width=w, warps=nw, stages=3)
                    p = f"*{dt}:16"
                    if fam in ("softmax", "logsoftmax", "scan"):
                        c.update(kernel=f"sweep_{fam}", sig=[p, p, "i32:16"], block=pow2(w))
                    elif fam == "layernorm":
                        c.update(kernel="sweep_layernorm", sig=[p, p, p, p, "i32:16"], block=pow2(w))
                    elif fam == "rmsnorm":
                        c.update(kernel="sweep_rmsnorm", sig=[p, p, p, "i32:16"], block=pow2(w))
                    elif fam == "cross_entropy":
                        c.update(kernel="sweep_cross_entropy", sig=[p, "*i32:16", "*fp32:16", "i32:16"],
                                 block=pow2(w))
                    elif fam == "gather":
                        c.update(kernel="sweep_gather", sig=[p, "*i32:16", p, "i32:16"], block=pow2(w))
                    elif fam == "jsd":
                        c.update(kernel="sweep_jsd", sig=[p, p, "*fp32:16", p, "i32:16"], block=pow2(w))
                    elif fam == "colsum":
                        # [ROWS x width], BLOCK_N columns x 256 rows per program, fp32 partials.
                        c.update(kernel="sweep_colsum", sig=[p, "*fp32:16", "i32:16", "i32:16"],
                                 consts=[256, 32, 64], block=64)
                    elif fam == "elementwise":
                        # 2^28 elements, BLOCK = width.
                        c.update(kernel="sweep_elementwise", sig=[p, p, p, "i32:16"], block=w)
                    if fam != "colsum":
                        c["consts"] = [c["block"]]
                    c["name"] = f"{fam}_{dt}_{w}_w{nw}"
                    out.append(c)
    # Two shapes from real kernels: rotary embedding halves loaded apart.
    for dt in DTYPES:
        for nw in ([4] if quick else [4, 8]):
            out.append(dict(family="rope", dtype=dt, width=128, warps=nw, stages=3, kernel="sweep_rope",
                            sig=[f"*{dt}:16", "*fp32:16", "*fp32:16", f"*{dt}:16", "i32:16"],
                            consts=[128, 32], block=32, name=f"rope_{dt}_128_w{nw}"))
    return out


def signature_text(c):
    return ", ".join(c["sig"] + [str(v) for v in c["consts"]])


def ptx_facts(ptx):
    """Static counts over the PTX: memory instructions by kind and width, barriers, shuffles."""
    c = collections.Counter()
    for line in ptx.splitlines():
        m = re.match(r"\s*(@!?%p\d+\s+)?((?:ld|st)\.(?:global|shared)[\w.]*|bar\.sync|barrier\.sync[\w.]*|"
                     r"shfl\.sync[\w.]*|cp\.async[\w.]*)", line)
        if m:
            c[m.group(2)] += 1
    shared = sum(int(x) for x in re.findall(r"\.shared\s+\.align\s+\d+\s+\.b8\s+\w+\[(\d+)\]", ptx))
    return dict(sorted(c.items())), shared


def ptxas_v(ptxas, ptx, arch):
    p = subprocess.run([ptxas, f"-arch={arch}", "-v", str(ptx), "-o", os.devnull], capture_output=True, text=True)
    if p.returncode != 0:
        raise RuntimeError(f"ptxas {arch} {ptx}: {p.stderr.strip()[:400]}")
    get = lambda pat: int(m.group(1)) if (m := re.search(pat, p.stderr)) else 0  # noqa: E731
    return {"registers": get(r"Used (\d+) registers"), "spill_stores": get(r"(\d+) bytes spill stores"),
            "spill_loads": get(r"(\d+) bytes spill loads"), "smem": get(r"(\d+) bytes smem")}


def compile_triton(c, ptxdir, devdir):
    import triton
    from triton.backends.compiler import GPUTarget
    from triton.compiler import ASTSource

    import kernels
    fn = getattr(kernels, c["kernel"])
    names = fn.arg_names
    sig, consts, attrs = {}, {}, {}
    for i, t in enumerate(c["sig"]):
        sig[names[i]] = t.split(":")[0]
        if t.endswith(":16"):
            attrs[(i,)] = [["tt.divisibility", 16]]
    for name, v in zip(names[len(c["sig"]):], c["consts"]):
        sig[name] = "constexpr"
        consts[name] = v
    k = triton.compile(ASTSource(fn, sig, consts, attrs), target=GPUTarget("cuda", 90, 32),
                       options={"num_warps": c["warps"], "num_stages": c["stages"]})
    (ptxdir / "triton.ptx").write_text(k.asm["ptx"])
    (ptxdir / "triton.ttgir").write_text(k.asm["ttgir"])
    (devdir / "triton.cubin").write_bytes(k.asm["cubin"])
    params = set(re.findall(r"\b" + re.escape(k.metadata.name) + r"_param_(\d+)", k.asm["ptx"]))
    return dict(triton_entry=k.metadata.name, triton_shared=k.metadata.shared,
                triton_extra_args=len(params) - len(names) + len(c["consts"]),
                triton_global_scratch=getattr(k.metadata, "global_scratch_size", 0) or 0)


def compile_tritonc(tritonc, c, ptxdir, devdir):
    work = ptxdir / "tc"
    shutil.rmtree(work, ignore_errors=True)
    cmd = [tritonc, "compile", str(ROOT / "bench" / "mem" / "kernels.py"), "--kernel", c["kernel"],
           "--signature", signature_text(c), "--num-warps", str(c["warps"]), "--num-stages", str(c["stages"]),
           "--target", "sm_90", "-o", str(work), "--no-cache"]
    p = subprocess.run(cmd, capture_output=True, text=True)
    if p.returncode != 0:
        raise RuntimeError(f"tritonc: {p.stderr.strip()[:600]}")
    bundle = next(work.iterdir())
    meta = json.loads((bundle / "bundle.json").read_text())
    shutil.copy(bundle / "kernel.ptx", ptxdir / "tritonc.ptx")
    shutil.copy(bundle / "kernel.cubin", devdir / "tritonc.cubin")
    # The GPU IR, for the layout comparisons.
    subprocess.run(cmd[:-3] + ["--emit", "ttgir", "-o", str(work / "ttgir")], capture_output=True)
    for f in (work / "ttgir").glob("*.ttgir"):
        shutil.copy(f, ptxdir / "tritonc.ttgir")
    shutil.rmtree(work, ignore_errors=True)
    return dict(tritonc_entry=meta["entry"], tritonc_shared=meta.get("dynamic_shared_bytes", 0))


def prepare_one(args, c):
    ptxdir = pathlib.Path(args.out) / "ptx" / c["name"]
    devdir = pathlib.Path(args.out) / "device" / c["name"]
    ptxdir.mkdir(parents=True, exist_ok=True)
    devdir.mkdir(parents=True, exist_ok=True)
    try:
        c.update(compile_tritonc(args.tritonc, c, ptxdir, devdir))
        c.update(compile_triton(c, ptxdir, devdir))
    except Exception as e:  # noqa: BLE001 - reported per point, the sweep goes on
        shutil.rmtree(devdir, ignore_errors=True)
        return dict(c, error=str(e)[:600])
    for side, arch, ptxas in [("tritonc", "sm_90", args.ptxas), ("triton", "sm_90a", args.triton_ptxas)]:
        ptx = ptxdir / f"{side}.ptx"
        c[f"{side}_ptxas"] = ptxas_v(ptxas, ptx, arch)
        c[f"{side}_ptx"], static = ptx_facts(ptx.read_text())
        c[f"{side}_static_shared"] = static
    if c["triton_ptxas"]["spill_stores"] or c["triton_ptxas"]["spill_loads"]:
        shutil.rmtree(devdir, ignore_errors=True)
        c["dropped"] = "Triton spills"
    return c


def main():
    import triton
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--tritonc", default=str(ROOT / "target" / "release" / "tritonc"))
    ap.add_argument("--ptxas", default=str(ROOT / ".tools" / "cuda" / "bin" / "ptxas"),
                    help="assembles tritonc's PTX for the facts (its bundle cubin is what runs)")
    ap.add_argument("--triton-ptxas", default=str(pathlib.Path(triton.__file__).parent / "backends" / "nvidia" / "bin" / "ptxas"))
    ap.add_argument("--out", default=str(ROOT / "bench" / "out" / "mem"))
    ap.add_argument("--quick", action="store_true", help="8192 columns, 16 warps only")
    ap.add_argument("--only", default="", help="points whose name contains this")
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    args = ap.parse_args()
    out = pathlib.Path(args.out)
    todo = [c for c in cases(args.quick) if args.only in c["name"]]
    done = []
    with concurrent.futures.ThreadPoolExecutor(args.jobs) as pool:
        for c in pool.map(lambda c: prepare_one(args, c), todo):
            done.append(c)
            if "error" in c:
                print(f"{c['name']:34} ERROR {c['error'][:200]}", flush=True)
                continue
            t, r = c["tritonc_ptxas"], c["triton_ptxas"]
            print(f"{c['name']:34} regs {t['registers']:3}/{r['registers']:<3} shared "
                  f"{c['tritonc_shared'] + c['tritonc_static_shared']:6}/{c['triton_shared']:<6} "
                  f"bar {c['tritonc_ptx'].get('bar.sync', 0)}/{c['triton_ptx'].get('bar.sync', 0)}"
                  + (f"  DROPPED ({c['dropped']})" if "dropped" in c else ""), flush=True)
    (out / "device").mkdir(parents=True, exist_ok=True)
    (out / "cases.json").write_text(json.dumps(done, indent=1))
    runnable = [c for c in done if "error" not in c and "dropped" not in c]
    (out / "device" / "cases.json").write_text(json.dumps(runnable, indent=1))
    size = sum(f.stat().st_size for f in (out / "device").rglob("*") if f.is_file())
    print(f"{len(runnable)} points ready in {out / 'device'} ({size / 2**20:.1f} MiB), "
          f"{sum('dropped' in c for c in done)} dropped, {sum('error' in c for c in done)} failed")


if __name__ == "__main__":
    main()
