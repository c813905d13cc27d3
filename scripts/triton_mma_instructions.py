#!/usr/bin/env python3
"""Record which tensor-core instruction Triton 3.6 uses for a `tl.dot` on sm_80 (sm_90
for fp8, which needs sm_89).

For each operand dtype the kernel below is compiled (4 warps, one 32x32x32 dot) and the distinct `mma` instructions of its PTX are
recorded, together with whether the PTX rounds fp32 operands to TF32 itself
(`cvt.rna.tf32.f32`) before a TF32 MMA. tritonc's back end must pick the same
instruction (shape, types, `.satfinite`) and treat TF32 inputs the same way: the test
`crates/tritonc-codegen/tests/codegen/tensor_cores.rs` compiles the same kernels and
compares.

Writes tests/fixtures/triton/mma_instructions.json.

Usage: python3 scripts/triton_mma_instructions.py
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from triton_common import REPO_ROOT, jit_from_source  # noqa: E402

OUT = REPO_ROOT / "tests" / "fixtures" / "triton" / "mma_instructions.json"

SOURCE = """import triton
import triton.language as tl


@triton.jit
def kernel(a_ptr, b_ptr, c_ptr, BLOCK: tl.constexpr):
    r = tl.arange(0, BLOCK)
    a = tl.load(a_ptr + r[:, None] * BLOCK + r[None, :])
    b = tl.load(b_ptr + r[:, None] * BLOCK + r[None, :])
    c = tl.dot(a, b)
    tl.store(c_ptr + r[:, None] * BLOCK + r[None, :], c)
"""

# (name, operand pointer type, output pointer type, capability). fp8 needs sm_89; on
# sm_90 Triton widens it to fp16 for `mma.sync` (a 32x32 block is below wgmma's tile).
CASES = [
    ("fp16", "*fp16", "*fp32", 80),
    ("bf16", "*bf16", "*fp32", 80),
    ("fp32", "*fp32", "*fp32", 80),
    ("i8", "*i8", "*i32", 80),
    ("fp8e4nv", "*fp8e4nv", "*fp32", 90),
    # fp32 with input_precision="tf32x3": Triton's F32DotTC splits the dot into three tf32
    # dots (small(a)*big(b), big(a)*small(b), NaN -> 0, big(a)*big(b)) plus C, rounding
    # with cvt.rna.tf32.f32 in registers; `order` records that sequence from its ttgir.
    ("fp32_tf32x3", "*fp32", "*fp32", 80),
]


def dot_order(ttgir: str) -> list[str]:
    """The dots and the ops between them, in program order: `dot(a_part, b_part)` with
    each operand named by how it was made (`x`: loaded, `big`: rounded to tf32, `small`:
    x - big), `nan_to_zero`, `add_c`."""
    made: dict[str, str] = {}
    order = []
    for line in ttgir.splitlines():
        m = re.match(r"\s*(%[\w.]+) = (\S+)(.*)", line)
        if not m:
            continue
        name, op, rest = m.groups()
        args = re.findall(r"%[\w.]+", rest)
        if op == "tt.elementwise_inline_asm" and "cvt.rna.tf32.f32" in rest:
            made[name] = "big"
        elif op == "arith.subf" and len(args) >= 2 and made.get(args[1]) == "big":
            made[name] = "small"
        elif op == "tt.dot":
            order.append(f"dot({made.get(args[0], 'x')}, {made.get(args[1], 'x')})")
        elif op == "arith.select" and order:
            order.append("nan_to_zero")
        elif op == "arith.addf" and order:
            order.append("add_c")
    return order


def main() -> None:
    import triton
    from triton.backends.compiler import GPUTarget
    from triton.compiler import ASTSource

    cases = []
    for name, ptr, out, cc in CASES:
        source = SOURCE
        if name.endswith("tf32x3"):
            source = SOURCE.replace("tl.dot(a, b)", 'tl.dot(a, b, input_precision="tf32x3")')
        fn = jit_from_source(source, "kernel")
        signature = {"a_ptr": ptr, "b_ptr": ptr, "c_ptr": out, "BLOCK": "constexpr"}
        attrs = {(i,): [["tt.divisibility", 16]] for i in range(3)}
        src = ASTSource(fn, signature, {"BLOCK": 32}, attrs)
        k = triton.compile(src, target=GPUTarget("cuda", cc, 32), options={"num_warps": 4})
        ptx = k.asm["ptx"]
        instrs = sorted(set(re.findall(r"\b(mma\.sync\.aligned\.[\w.]+)", ptx)))
        cases.append({
            "name": name,
            "sm": cc,
            "signature": f"{ptr}:16, {ptr}:16, {out}:16, 32",
            "source": source,
            "mma": instrs,
            "ldmatrix": bool(re.search(r"\bldmatrix\.", ptx)),
            "rounds_tf32": "cvt.rna.tf32.f32" in ptx,
            "order": dot_order(k.asm["ttgir"]),
        })
    OUT.write_text(json.dumps({"triton": triton.__version__, "cases": cases}, indent=1) + "\n")
    print(f"wrote {OUT}")


if __name__ == "__main__":
    main()
