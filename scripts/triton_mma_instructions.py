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
]


def main() -> None:
    import triton
    from triton.backends.compiler import GPUTarget
    from triton.compiler import ASTSource

    fn = jit_from_source(SOURCE, "kernel")
    cases = []
    for name, ptr, out, cc in CASES:
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
            "source": SOURCE,
            "mma": instrs,
            "ldmatrix": bool(re.search(r"\bldmatrix\.", ptx)),
            "rounds_tf32": "cvt.rna.tf32.f32" in ptx,
        })
    OUT.write_text(json.dumps({"triton": triton.__version__, "cases": cases}, indent=1) + "\n")
    print(f"wrote {OUT}")


if __name__ == "__main__":
    main()
