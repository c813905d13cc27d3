#!/usr/bin/env python3
"""Record how Triton 3.6 compiles `tl.dot` for capability 9.0 (`sm_90a`): which dots take
the `wgmma` accumulator layout (`#ttg.nvidia_mma` version 3) with which `warpsPerCTA` and
`instrShape`, how the operands are staged (`#ttg.nvmma_shared`: swizzle width,
`transposed`), how many buffers the K loop's pipeline allocates, and which `wgmma`
instructions, descriptor constants and transpose immediates the PTX carries.

tritonc's GPU IR must make the same decisions: the test
`crates/tritonc-codegen/tests/codegen/tensor_cores.rs` compiles the same kernels for
sm_90a and compares.

Writes tests/fixtures/triton/wgmma.json.

Usage: python3 scripts/triton_wgmma.py
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from triton_common import REPO_ROOT, jit_from_source  # noqa: E402

OUT = REPO_ROOT / "tests" / "fixtures" / "triton" / "wgmma.json"

# A K loop over one tile of C; `B_KMAJOR` loads B with K contiguous (as `b.T` of an N x K
# matrix), which every wgmma dtype accepts; otherwise B is N-contiguous, which wgmma
# transposes only for 16-bit types.
SOURCE = """import triton
import triton.language as tl


@triton.jit
def matmul(a_ptr, b_ptr, c_ptr, M, N, K, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr,
           B_KMAJOR: tl.constexpr, PRECISION: tl.constexpr):
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    rm = pid_m * BM + tl.arange(0, BM)
    rn = pid_n * BN + tl.arange(0, BN)
    rk = tl.arange(0, BK)
    a_ptrs = a_ptr + rm[:, None] * K + rk[None, :]
    if B_KMAJOR:
        b_ptrs = b_ptr + rn[None, :] * K + rk[:, None]
    else:
        b_ptrs = b_ptr + rk[:, None] * N + rn[None, :]
    acc = tl.zeros((BM, BN), dtype=ACC)
    for k in range(0, K, BK):
        a = tl.load(a_ptrs)
        b = tl.load(b_ptrs)
        acc += tl.dot(a, b, out_dtype=ACC, input_precision=PRECISION)
        a_ptrs += BK
        if B_KMAJOR:
            b_ptrs += BK
        else:
            b_ptrs += BK * N
    tl.store(c_ptr + rm[:, None] * N + rn[None, :], acc)
"""

# (name, operand type, accumulator type, BM, BN, BK, num_warps, B K-major, precision)
CASES = [
    ("fp16_128x256x64_w8", "fp16", "fp32", 128, 256, 64, 8, False, "tf32"),
    ("fp16_128x128x64_w4", "fp16", "fp32", 128, 128, 64, 4, False, "tf32"),
    ("fp16_128x128x64_w8", "fp16", "fp32", 128, 128, 64, 8, False, "tf32"),
    ("fp16_64x64x32_w4", "fp16", "fp32", 64, 64, 32, 4, False, "tf32"),
    ("fp16_64x256x64_w4", "fp16", "fp32", 64, 256, 64, 4, False, "tf32"),
    ("fp16_256x128x64_w8", "fp16", "fp32", 256, 128, 64, 8, False, "tf32"),
    ("fp16_128x64x32_w4", "fp16", "fp32", 128, 64, 32, 4, False, "tf32"),
    ("fp16_64x128x128_w4", "fp16", "fp32", 64, 128, 128, 4, False, "tf32"),
    ("fp16_kmajor_128x128x64_w4", "fp16", "fp32", 128, 128, 64, 4, True, "tf32"),
    ("bf16_128x256x64_w8", "bf16", "fp32", 128, 256, 64, 8, False, "tf32"),
    ("bf16_128x128x32_w4", "bf16", "fp32", 128, 128, 32, 4, False, "tf32"),
    ("fp16_32x32x32_w4", "fp16", "fp32", 32, 32, 32, 4, False, "tf32"),
    ("fp16_64x64x32_w2", "fp16", "fp32", 64, 64, 32, 2, False, "tf32"),
    ("fp8e4nv_kmajor_128x128x64_w4", "fp8e4nv", "fp32", 128, 128, 64, 4, True, "tf32"),
    ("fp8e4nv_128x128x64_w4", "fp8e4nv", "fp32", 128, 128, 64, 4, False, "tf32"),
    ("tf32_kmajor_128x128x32_w4", "fp32", "fp32", 128, 128, 32, 4, True, "tf32"),
    ("tf32_128x128x32_w4", "fp32", "fp32", 128, 128, 32, 4, False, "tf32"),
    ("i8_kmajor_128x128x64_w4", "i8", "i32", 128, 128, 64, 4, True, "tf32"),
    ("i8_128x128x64_w4", "i8", "i32", 128, 128, 64, 4, False, "tf32"),
]

# fp8 dots with `max_num_imprecise_acc` at most K: Triton's `wgmma` accumulates each run of
# that many K elements from zero and adds it to the fp32 result (`needsPartialAccumulator`).
# (name, operand type, BM, BN, BK, num_warps, B K-major, max_num_imprecise_acc)
IMPRECISE = [
    ("fp8e4nv_kmajor_128x128x64_w4_imp32", "fp8e4nv", 128, 128, 64, 4, True, 32),
    ("fp8e4nv_kmajor_128x128x128_w4_imp64", "fp8e4nv", 128, 128, 128, 4, True, 64),
    ("fp8e5_kmajor_64x128x64_w4_imp64", "fp8e5", 64, 128, 64, 4, True, 64),
]

# The same K loop written `tl.range(0, K, BK, warp_specialize=True)`. At 8 warps Triton 3.6
# accepts the keyword and emits no warp specialization for these loops on capability 9.0
# (no `ttg.warp_specialize` region, no `setmaxnreg`): the code is the plain loop's. At 4
# warps its Hopper warp-specialization pass fails an assertion (WSLowerToken.cpp) and the
# compile raises; that outcome is recorded as `triton_error`.
WARP_SPECIALIZED = [
    ("fp16_128x256x64_w8_ws", "fp16", "fp32", 128, 256, 64, 8, False, "tf32"),
    ("fp16_128x128x64_w8_ws", "fp16", "fp32", 128, 128, 64, 8, False, "tf32"),
    ("bf16_128x128x64_w4_ws", "bf16", "fp32", 128, 128, 64, 4, False, "tf32"),
]


def facts(ttgir: str, ptx: str) -> dict:
    mma = re.search(r"#ttg\.nvidia_mma<\{versionMajor = (\d+), versionMinor = \d+, warpsPerCTA = \[([\d, ]+)\], "
                    r"instrShape = \[([\d, ]+)\]\}>", ttgir)
    shared = sorted(set(re.findall(r"#ttg\.(nvmma_shared<[^>]*>|swizzled_shared<[^>]*>)", ttgir)))
    allocs = re.findall(r"ttg\.local_alloc\s*:\s*\(\)\s*->\s*!ttg\.memdesc<([\dx]+)\w+,", ttgir)
    wgmma = sorted(set(re.findall(r"\b(wgmma\.mma_async\.sync\.aligned\.[\w.]+)", ptx)))
    descs = sorted({int(c) & (2**64 - 1) for c in re.findall(r"or\.b64\s+%rd\d+, %rd\d+, (-?\d{12,});", ptx)})
    immediates = sorted(set(re.findall(r"wgmma\.mma_async[^;]*\}, (?:%rd\d+|\{[^}]*\}), %rd\d+, [^,]+, (-?1, -?1, \d, \d);", ptx)))
    return {
        "mma_version": int(mma.group(1)) if mma else None,
        "warps_per_cta": [int(x) for x in mma.group(2).split(",")] if mma else None,
        "instr_shape": [int(x) for x in mma.group(3).split(",")] if mma else None,
        "shared": shared,
        "buffers": allocs,
        "wgmma": wgmma,
        "descriptor_bits": [hex(d) for d in descs],
        "scale_trans": immediates,
        "mma_sync": sorted(set(re.findall(r"\b(mma\.sync\.aligned\.[\w.]+)", ptx))),
        "fence_proxy_async": ptx.count("fence.proxy.async"),
        "wait_group": sorted(set(re.findall(r"wgmma\.wait_group\.sync\.aligned (\d+)", ptx))),
        "warp_specialize_regions": ttgir.count("ttg.warp_specialize("),
        "setmaxnreg": ptx.count("setmaxnreg"),
        "wgmma_count": len(re.findall(r"\bwgmma\.mma_async\.", ptx)),
        "f32_adds": len(re.findall(r"\badd(?:\.rn)?\.f32\b", ptx)),
    }


def ptxas_spills(ptx: str) -> dict | None:
    """Registers and spill-store bytes of `ptx` for sm_90a by the project's ptxas
    (`.tools/cuda/bin/ptxas`, what tritonc assembles with), or None without it."""
    import subprocess
    import tempfile

    ptxas = REPO_ROOT / ".tools" / "cuda" / "bin" / "ptxas"
    if not ptxas.is_file():
        return None
    with tempfile.TemporaryDirectory() as d:
        src = Path(d) / "k.ptx"
        src.write_text(ptx)
        p = subprocess.run([str(ptxas), "-arch=sm_90a", "-v", str(src), "-o", str(Path(d) / "k.cubin")],
                           capture_output=True, text=True, check=True)
    regs = re.search(r"Used (\d+) registers", p.stderr)
    spills = re.search(r"(\d+) bytes spill stores", p.stderr)
    return {"registers": int(regs.group(1)) if regs else 0, "spill_stores": int(spills.group(1)) if spills else 0}


def main() -> None:
    import triton
    from triton.backends.compiler import GPUTarget
    from triton.compiler import ASTSource

    cases = []
    runs = [(c, False, None) for c in CASES] + [(c, True, None) for c in WARP_SPECIALIZED]
    runs += [((n, dt, "fp32", bm, bn, bk, w, km, "tf32"), False, imp) for n, dt, bm, bn, bk, w, km, imp in IMPRECISE]
    for (name, dt, acc, bm, bn, bk, warps, kmajor, precision), ws, imp in runs:
        acc_tl = {"fp32": "tl.float32", "i32": "tl.int32"}[acc]
        source = SOURCE.replace("ACC", acc_tl)
        if imp is not None:
            source = source.replace("input_precision=PRECISION)",
                                    f"input_precision=PRECISION, max_num_imprecise_acc={imp})")
        if ws:
            loop = "for k in range(0, K, BK):"
            assert loop in source
            source = source.replace(loop, "for k in tl.range(0, K, BK, warp_specialize=True):")
        fn = jit_from_source(source, "matmul")
        signature = {"a_ptr": f"*{dt}", "b_ptr": f"*{dt}", "c_ptr": f"*{acc}", "M": "i32", "N": "i32", "K": "i32",
                     "BM": "constexpr", "BN": "constexpr", "BK": "constexpr", "B_KMAJOR": "constexpr",
                     "PRECISION": "constexpr"}
        attrs = {(i,): [["tt.divisibility", 16]] for i in range(6)}
        consts = {"BM": bm, "BN": bn, "BK": bk, "B_KMAJOR": kmajor, "PRECISION": precision}
        src = ASTSource(fn, signature, consts, attrs)
        case = {"name": name, "dtype": dt, "acc": acc, "block": [bm, bn, bk], "num_warps": warps,
                "b_k_major": kmajor, "num_stages": 3, "warp_specialize": ws, "max_num_imprecise_acc": imp,
                "source": source}
        try:
            k = triton.compile(src, target=GPUTarget("cuda", 90, 32), options={"num_warps": warps, "num_stages": 3})
        except RuntimeError as e:
            if not ws:
                raise
            case["triton_error"] = str(e).strip().splitlines()[-1]
            print(name, "Triton fails:", case["triton_error"], file=sys.stderr)
            cases.append(case)
            continue
        case.update(facts(k.asm["ttgir"], k.asm["ptx"]))
        case["ptxas_sm90a"] = ptxas_spills(k.asm["ptx"])
        case["target"] = re.search(r"\.target (\w+)", k.asm["ptx"]).group(1)
        print(name, case["mma_version"], case["warps_per_cta"], case["instr_shape"], case["wgmma"], case["shared"],
              case["buffers"], case["descriptor_bits"], case["scale_trans"], file=sys.stderr)
        cases.append(case)
    OUT.write_text(json.dumps({"triton": triton.__version__, "cases": cases}, indent=1) + "\n")
    print(f"wrote {OUT}")


if __name__ == "__main__":
    main()
