#!/usr/bin/env python3
"""Compiles the tensor-core benchmark cases on this (GPU-less) machine, both sides:
tritonc's bundle for `--target sm_80` and upstream Triton's sm_80 PTX for the same source
and launch config; then assembles both PTX files with the same ptxas for `-arch=sm_90`
(so the H200 runs both as compiled here, not JIT-compiled by the driver) and records
`ptxas -v` for sm_80 and sm_90 (registers, spills, shared memory).

With `--arch sm_90` both sides compile for capability 9.0 instead (tritonc `--target
sm_90`, Triton `GPUTarget("cuda", 90, 32)`: Hopper's `wgmma`), both PTX files are
assembled for `-arch=sm_90a`, and the matmul table covers more tiles (64 to 256, 4 and 8
warps, 3 and 4 stages) and the attention one causal and non-causal forms.

    python3 bench/tc/prepare.py [--tritonc target/release/tritonc] [--out bench/tc/out] [--quick] [--arch sm_90]

bench/tc/run.py times the cases on the GPU."""

import argparse
import json
import os
import pathlib
import re
import subprocess
import sys

ROOT = pathlib.Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "bench" / "tc"))

import triton  # noqa: E402
from triton.backends.compiler import GPUTarget  # noqa: E402
from triton.compiler import ASTSource  # noqa: E402

import kernels  # noqa: E402

SIG = {"fp16": "*fp16", "bf16": "*bf16", "fp32": "*fp32", "i8": "*i8", "i32": "*i32", "fp8": "*fp8e4nv"}


def cases(quick, arch="sm_80"):
    out = []
    sizes = [4096] if quick else [4096, 8192]
    tiles = [(128, 256, 64, 8), (128, 128, 64, 4)]
    if arch == "sm_90":
        tiles += [(128, 128, 64, 8), (64, 128, 64, 4), (128, 64, 64, 4), (64, 256, 64, 4), (256, 128, 64, 8)]
    for dt in ["fp16", "bf16"]:
        for size in sizes:
            for (bm, bn, bk, w) in tiles:
                for stages in ([3] if quick else [3, 4]):
                    for form in ["plus_equals", "three_arg"]:
                        if dt == "bf16" and form == "three_arg":
                            continue
                        out.append(dict(kind="matmul", dtype=dt, out=dt, size=size, bm=bm, bn=bn, bk=bk,
                                        warps=w, stages=stages, form=form))
    out.append(dict(kind="matmul", dtype="fp32", out="fp32", size=4096, bm=128, bn=128, bk=32,
                    warps=4, stages=3, form="plus_equals"))
    out.append(dict(kind="matmul", dtype="fp32", out="fp32", size=4096, bm=128, bn=128, bk=32,
                    warps=4, stages=3, form="tf32x3"))
    out.append(dict(kind="matmul", dtype="i8", out="i32", size=4096, bm=128, bn=128, bk=64,
                    warps=4, stages=3, form="plus_equals"))
    if arch == "sm_90":
        # 8-bit operands with B in both orders (wgmma transposes only 16-bit types; an
        # N-major B is staged K-major from registers), and fp16 with a K-major B.
        for dt, out_dt in [("fp8", "fp16"), ("i8", "i32")]:
            for form in ["plus_equals", "bt"]:
                out.append(dict(kind="matmul", dtype=dt, out=out_dt, size=8192, bm=128, bn=256, bk=128,
                                warps=8, stages=3, form=form))
        out.append(dict(kind="matmul", dtype="fp16", out="fp16", size=8192, bm=128, bn=256, bk=64,
                        warps=8, stages=3, form="bt"))
        # fp8 with `max_num_imprecise_acc` 32 and 64 (split accumulation).
        for imp in [32, 64]:
            out.append(dict(kind="matmul", dtype="fp8", out="fp16", size=8192, bm=128, bn=256, bk=128,
                            warps=8, stages=3, form=f"imp{imp}"))
    # Attention forward over batch x heads = 4 x 32, 4096 positions: the project's one-loop
    # kernel and the staged kernel (a helper run left of and on the diagonal), causal and not.
    att_tiles = [(64, 128, 64, 4), (128, 128, 64, 8)]
    if arch == "sm_90":
        att_tiles += [(64, 128, 128, 8), (128, 128, 128, 8)]
    for kernel in (["own"] if quick else ["own", "staged"]):
        for causal in ([False] if quick else [False, True]):
            for (d, bm, bn, w) in att_tiles:
                out.append(dict(kind="attention", dtype="fp16", batch=4, heads=32, seq=4096, dim=d, bm=bm,
                                bn=bn, warps=w, stages=3, kernel=kernel, causal=causal))
    for c in out:
        if c["kind"] == "matmul":
            c["name"] = (f"mm_{c['dtype']}_{c['size']}_{c['bm']}x{c['bn']}x{c['bk']}_w{c['warps']}"
                         f"_s{c['stages']}_{c['form']}")
        else:
            c["name"] = (f"attn_{c['kernel']}{'_causal' if c['causal'] else ''}_d{c['dim']}_{c['bm']}x{c['bn']}"
                         f"_w{c['warps']}")
    return out


def signature(c):
    """(tritonc signature text, Triton signature dict, constexprs, kernel fn, kernel name)."""
    if c["kind"] == "matmul":
        ptr, out = SIG[c["dtype"]], SIG[c["out"]]
        plus = c["form"] == "plus_equals"
        if c["form"] == "tf32x3":
            names = ["a_ptr", "b_ptr", "c_ptr", "M", "N", "K", "stride_a", "stride_b", "stride_c"]
            types = [ptr, ptr, out] + ["i32"] * 6
            consts = {"BM": c["bm"], "BN": c["bn"], "BK": c["bk"], "GROUP": 8}
            text = ", ".join(f"{t}:16" for t in types) + f", {c['bm']}, {c['bn']}, {c['bk']}, 8"
            return text, names, types, consts, kernels.bench_matmul_x3, "bench_matmul_x3"
        if c["form"].startswith("imp"):
            names = ["a_ptr", "b_ptr", "c_ptr", "M", "N", "K", "stride_a", "stride_b", "stride_c"]
            types = [ptr, ptr, out] + ["i32"] * 6
            imp = int(c["form"][3:])
            consts = {"BM": c["bm"], "BN": c["bn"], "BK": c["bk"], "GROUP": 8, "MAX_IMP": imp}
            text = ", ".join(f"{t}:16" for t in types) + f", {c['bm']}, {c['bn']}, {c['bk']}, 8, {imp}"
            return text, names, types, consts, kernels.bench_matmul_imprecise, "bench_matmul_imprecise"
        if c["form"] == "bt":
            names = ["a_ptr", "b_ptr", "c_ptr", "M", "N", "K", "stride_a", "stride_b", "stride_c"]
            types = [ptr, ptr, out] + ["i32"] * 6
            consts = {"BM": c["bm"], "BN": c["bn"], "BK": c["bk"], "GROUP": 8}
            text = ", ".join(f"{t}:16" for t in types) + f", {c['bm']}, {c['bn']}, {c['bk']}, 8"
            return text, names, types, consts, kernels.bench_matmul_bt, "bench_matmul_bt"
        names = ["a_ptr", "b_ptr", "c_ptr", "M", "N", "K", "stride_a", "stride_b", "stride_c"]
        types = [ptr, ptr, out] + ["i32"] * 6
        consts = {"BM": c["bm"], "BN": c["bn"], "BK": c["bk"], "GROUP": 8, "PLUS_EQUALS": plus}
        text = ", ".join(f"{t}:16" for t in types) + f", {c['bm']}, {c['bn']}, {c['bk']}, 8, {plus}"
        return text, names, types, consts, kernels.bench_matmul, "bench_matmul"
    names = ["q_ptr", "k_ptr", "v_ptr", "o_ptr", "N_CTX", "stride_h", "stride_s"]
    types = ["*fp16"] * 4 + ["i32"] * 3
    consts = {"HEAD_DIM": c["dim"], "BLOCK_M": c["bm"], "BLOCK_N": c["bn"]}
    if c["kernel"] == "staged":
        consts["STAGE"] = 3 if c["causal"] else 1
        fn, kname = kernels.bench_attention_staged, "bench_attention_staged"
    else:
        consts["CAUSAL"] = c["causal"]
        fn, kname = kernels.bench_attention, "bench_attention"
    text = ", ".join(f"{t}:16" for t in types) + ", " + ", ".join(str(v) for v in consts.values())
    return text, names, types, consts, fn, kname


def ptxas_v(ptxas, ptx, arch, cubin=None):
    cmd = [ptxas, f"-arch={arch}", "-v", str(ptx), "-o", str(cubin or os.devnull)]
    p = subprocess.run(cmd, capture_output=True, text=True)
    if p.returncode != 0:
        raise RuntimeError(f"ptxas {arch} {ptx}: {p.stderr.strip()[:400]}")
    text = p.stderr
    get = lambda pat: int(m.group(1)) if (m := re.search(pat, text)) else 0  # noqa: E731
    return {"registers": get(r"Used (\d+) registers"), "spill_stores": get(r"(\d+) bytes spill stores"),
            "spill_loads": get(r"(\d+) bytes spill loads"), "smem": get(r"(\d+) bytes smem")}


def triton_ptxas_version():
    """The version line of the ptxas in Triton's wheel (what `k.asm["cubin"]` came from)."""
    from triton.backends.nvidia import compiler as nv
    try:
        return subprocess.run([nv.get_ptxas(90).path, "--version"], capture_output=True,
                              text=True).stdout.strip().splitlines()[-1]
    except Exception as e:  # noqa: BLE001 (the version is a label only)
        return f"unknown ({type(e).__name__})"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--tritonc", default=str(ROOT / "target" / "release" / "tritonc"))
    ap.add_argument("--ptxas", default=str(ROOT / ".tools" / "cuda" / "bin" / "ptxas"))
    ap.add_argument("--out", default=str(ROOT / "bench" / "tc" / "out"))
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--arch", default="sm_80", choices=["sm_80", "sm_90"])
    args = ap.parse_args()
    cap = 90 if args.arch == "sm_90" else 80
    # The architecture both cubins are assembled for.
    run_arch = "sm_90a" if cap == 90 else "sm_90"
    out = pathlib.Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    index = []
    for c in cases(args.quick, args.arch):
        d = out / c["name"]
        d.mkdir(exist_ok=True)
        text, names, types, consts, fn, kname = signature(c)
        # tritonc
        cmd = [args.tritonc, "compile", str(ROOT / "bench" / "tc" / "kernels.py"), "--kernel", kname,
               "--signature", text, "--num-warps", str(c["warps"]), "--num-stages", str(c["stages"]), "--target", args.arch,
               "-o", str(d / "tritonc"), "--no-cache"]
        p = subprocess.run(cmd, capture_output=True, text=True)
        if p.returncode != 0:
            print(f"{c['name']}: tritonc failed: {p.stderr.strip()[:300]}")
            continue
        bundle = next((d / "tritonc").iterdir())
        meta = json.loads((bundle / "bundle.json").read_text())
        c["tritonc_entry"] = meta["entry"]
        c["tritonc_shared"] = meta.get("dynamic_shared_bytes", 0)
        c["arch"] = args.arch
        if cap == 80:
            c["tritonc_sm80"] = ptxas_v(args.ptxas, bundle / "kernel.ptx", "sm_80")
        c["tritonc_sm90"] = ptxas_v(args.ptxas, bundle / "kernel.ptx", run_arch, d / "tritonc.cubin")
        # Triton
        sig = dict(zip(names, types))
        sig.update({k: "constexpr" for k in consts})
        attrs = {(i,): [["tt.divisibility", 16]] for i in range(len(names))}
        src = ASTSource(fn, sig, consts, attrs)
        k = triton.compile(src, target=GPUTarget("cuda", cap, 32),
                           options={"num_warps": c["warps"], "num_stages": c["stages"]})
        (d / "triton.ptx").write_text(k.asm["ptx"])
        c["triton_entry"] = k.metadata.name
        c["triton_shared"] = k.metadata.shared
        if cap == 80:
            c["triton_sm80"] = ptxas_v(args.ptxas, d / "triton.ptx", "sm_80")
        c["triton_sm90"] = ptxas_v(args.ptxas, d / "triton.ptx", run_arch, d / "triton.cubin")
        # Triton's cubin as its own ptxas (the one in its wheel) assembled it.
        (d / "triton_own.cubin").write_bytes(k.asm["cubin"])
        c["triton_ptxas"] = triton_ptxas_version()
        c["args"] = names
        params = set(re.findall(r"\b" + re.escape(k.metadata.name) + r"_param_(\d+)", k.asm["ptx"]))
        c["triton_extra_args"] = len(params) - len(names)
        index.append(c)
        key = "sm80" if cap == 80 else "sm90"
        t, r = c[f"tritonc_{key}"], c[f"triton_{key}"]
        print(f"{c['name']:44} {key} regs/spill/smem tritonc {t['registers']}/{t['spill_stores']}/"
              f"{c['tritonc_shared'] or t['smem']} Triton {r['registers']}/{r['spill_stores']}/{c['triton_shared']}", flush=True)
    (out / "cases.json").write_text(json.dumps(index, indent=1))
    print(f"{len(index)} cases in {out}")


if __name__ == "__main__":
    main()
