#!/usr/bin/env python3
"""Upstream Triton 3.6's MFMA decisions and code for `tl.dot` on AMD: the facts tritonc's
AMD dot lowering is checked against (crates/tritonc-ir's `MfmaLayout` tests,
crates/tritonc-ttgir's `accelerate_amd` tests, crates/tritonc/tests/amd.rs).

For each dot kernel and specialization below, Triton compiles for `GPUTarget("hip", ARCH,
64)` (no GPU needed) and this script records, in tests/fixtures/triton_amd_dot/NAME.ARCH.json:

- the `#ttg.amd_mfma` layout of the dot's result (version, warpsPerCTA, instrShape,
  isTransposed), the `kWidth` of its `#ttg.dot_op` operands and the shared layouts the
  operands are staged in, as Triton's ttgir spells them;
- the linear form Triton gives the accumulator and both operand layouts on the dot's
  shapes (register, lane and warp bases, from Triton's own `to_linear_layout`);
- the code object's kernel-argument metadata, LDS, register counts and spills
  (`llvm-readelf --notes`) and the AMDGCN instruction counts (`v_mfma_*` by mnemonic,
  loads, stores, LDS traffic), by the statistics scripts/amdgcn_stats.py computes for
  tritonc's side too.

    python3 scripts/triton_amd_dot_reference.py [--arch gfx942 --arch gfx90a]

Notes on what Triton 3.6 decides here: the default `input_precision` on AMD is `ieee`
(fp32 dots use `v_mfma_f32_*_f32`); `tf32` is accepted on gfx942 only (`*_xf32`) and
refused on gfx90a.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import triton_common as tc  # noqa: E402
import amdgcn_stats  # noqa: E402
from triton_amd_reference import readelf_notes, triton_source  # noqa: E402

import triton  # noqa: E402
from triton.backends.compiler import GPUTarget  # noqa: E402
from triton._C.libtriton import ir, gluon_ir  # noqa: E402
import triton.experimental.gluon.language as gl  # noqa: E402
from triton.experimental.gluon.language import amd as gl_amd  # noqa: E402

OUT = tc.REPO_ROOT / "tests" / "fixtures" / "triton_amd_dot"

DOT = "tests/amd/dot_kernels.py"


def tile(a: str, c: str, m: int, n: int, k: int, warps: int, precision: str = "ieee"):
    """A dot_tile specialization: operand dtype `a`, result `c`, an M×N×K block."""
    name = f"dot_tile_{a}_{precision}_{m}x{n}x{k}_w{warps}"
    sig = f"*{a}:16, *{a}:16, *{c}:16, i32:16, i32:16, i32:16, {m}, {n}, {k}, '{precision}'"
    return name, DOT, "dot_tile", sig, warps, ("gfx942", "gfx90a")


CASES = [
    tile("fp16", "fp32", 128, 128, 32, 4),
    tile("fp16", "fp32", 128, 128, 64, 8),
    tile("fp16", "fp32", 64, 64, 32, 4),
    tile("fp16", "fp32", 32, 32, 16, 4),
    tile("fp16", "fp32", 16, 16, 16, 1),
    tile("fp16", "fp32", 16, 64, 16, 4),
    tile("fp16", "fp32", 256, 64, 32, 8),
    tile("fp16", "fp32", 64, 256, 32, 8),
    # An operand of 64 KiB: all of a workgroup's LDS.
    tile("fp16", "fp32", 256, 256, 128, 8),
    tile("bf16", "fp32", 128, 128, 32, 4),
    tile("bf16", "fp32", 16, 16, 16, 4),
    tile("fp32", "fp32", 64, 64, 16, 4),
    tile("fp32", "fp32", 16, 16, 16, 4),
    # `tf32` exists on gfx942 only (`v_mfma_f32_*_xf32`); gfx90a refuses it.
    tile("fp32", "fp32", 64, 64, 16, 4, "tf32")[:5] + (("gfx942",),),
    tile("i8", "i32", 128, 128, 64, 4),
    tile("i8", "i32", 16, 16, 32, 4),
    # An fp16 accumulator: Triton runs the fp32 instruction and rounds the result.
    ("dot_tile_out_fp16_64x64x32_w4", DOT, "dot_tile_out_fp16",
     "*fp16:16, *fp16:16, *fp16:16, i32:16, i32:16, i32:16, 64, 64, 32", 4, ("gfx942", "gfx90a")),
    # examples/matmul.toml's specialization (M, N, K = 150, 100, 130: no divisibility;
    # unit strides are constants, as Triton specializes them).
    ("matmul_kernel", "examples/matmul.py", "matmul_kernel",
     "*fp16:16, *fp16:16, *fp16:16, i32, i32, i32, i32, i32:1, i32, i32:1, i32, i32:1, 64, 64, 32, 8, ''",
     4, ("gfx942", "gfx90a")),
]


def source(fn, signature: str):
    """`triton_source` plus string constants (`'ieee'`) and ints equal to one (`i32:1`, which
    Triton makes the constant 1)."""
    items = [s.strip() for s in signature.split(",")]
    items = ["1" if s == "i32:1" else s for s in items]
    strings = {i: s[1:-1] for i, s in enumerate(items) if s[:1] in "'\"" and len(s) >= 2}
    plain = ", ".join("0" if i in strings else s for i, s in enumerate(items))
    src = triton_source(fn, plain)
    names = fn.arg_names
    for i, value in strings.items():
        src.constants[(i,)] = value
        src.signature[names[i]] = "constexpr"
    return src


def layouts(ttgir: str) -> dict:
    mfma = re.search(r"#ttg\.amd_mfma<\{version = (\d+), warpsPerCTA = \[([\d, ]+)\], "
                     r"instrShape = \[([\d, ]+)\], isTransposed = (\w+)\}>", ttgir)
    if not mfma:
        return {}
    ints = lambda s: [int(x) for x in s.split(",")]  # noqa: E731
    dot = re.search(r"tt\.dot %\S+, %\S+, %\S+.*: tensor<([\dx]+)x\w+, #ttg\.dot_op<\{opIdx = 0, "
                    r"parent = #mma, kWidth = (\d+)\}>> \* tensor<([\dx]+)x\w+, .*-> tensor<([\dx]+)x", ttgir)
    shared = sorted(set(re.findall(r"^#shared\d* = (.*)$", ttgir, re.M)))
    return {
        "version": int(mfma.group(1)),
        "warps_per_cta": ints(mfma.group(2)),
        "instr_shape": ints(mfma.group(3)),
        "is_transposed": mfma.group(4) == "true",
        "k_width": int(dot.group(2)),
        "a_shape": [int(x) for x in dot.group(1).split("x")],
        "b_shape": [int(x) for x in dot.group(3).split("x")],
        "c_shape": [int(x) for x in dot.group(4).split("x")],
        "shared": shared,
    }


def linear_forms(lay: dict) -> dict:
    """Triton's linear layouts of the accumulator and both operands on their shapes."""
    ctx = ir.context()
    ir.load_dialects(ctx)
    b = gluon_ir.GluonOpBuilder(ctx)
    mfma = gl_amd.AMDMFMALayout(version=lay["version"], instr_shape=lay["instr_shape"],
                                transposed=lay["is_transposed"], warps_per_cta=lay["warps_per_cta"])

    def bases(attr, shape):
        ll = b.to_linear_layout(attr, shape)
        return {"registers": ll.reg_bases, "lanes": ll.lane_bases, "warps": ll.warp_bases}

    out = {"acc": bases(mfma._to_ir(b), lay["c_shape"])}
    for idx, key, shape in ((0, "a", lay["a_shape"]), (1, "b", lay["b_shape"])):
        dop = gl.DotOperandLayout(operand_index=idx, parent=mfma, k_width=lay["k_width"])
        out[key] = bases(dop._to_ir(b), shape)
    return out


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--arch", action="append")
    args = parser.parse_args()
    tc.install_torch_stub()
    OUT.mkdir(parents=True, exist_ok=True)
    for name, path, kernel, signature, warps, archs in CASES:
        fn = getattr(tc.load_module(tc.REPO_ROOT / path), kernel)
        if hasattr(fn, "configs"):  # under @triton.autotune
            fn = fn.fn
        for arch in archs:
            if args.arch and arch not in args.arch:
                continue
            compiled = triton.compile(source(fn, signature), target=GPUTarget("hip", arch, 64),
                                      options={"num_warps": warps})
            lay = layouts(compiled.asm["ttgir"])
            record = {
                "triton_version": triton.__version__,
                "file": path,
                "kernel": kernel,
                "signature": signature,
                "num_warps": warps,
                "arch": arch,
                "mfma": lay,
                "linear": linear_forms(lay) if lay else None,
                "metadata": readelf_notes(compiled.asm["hsaco"]),
                "amdgcn": amdgcn_stats.instruction_counts(compiled.asm["amdgcn"]),
                "hsaco_bytes": len(compiled.asm["hsaco"]),
                "dynamic_lds_bytes": compiled.metadata.shared,
            }
            out = OUT / f"{name}.{arch}.json"
            out.write_text(json.dumps(record, indent=1, sort_keys=True) + "\n")
            print(out.relative_to(tc.REPO_ROOT))


if __name__ == "__main__":
    main()
