#!/usr/bin/env python3
"""Record which PTX approximation instruction Triton 3.6 uses for fp32 `tl.math.exp2`,
`tl.exp2` and `tl.exp` on sm_80 and sm_90: whether it flushes subnormals (`.ftz`).

tritonc's back end must emit the same instruction (the `.ftz` decides the result bits
below 2^-126, and the non-ftz form costs a scaling around `ex2.approx`), and its
interpreter must flush where the GPU flushes. The test
`crates/tritonc-codegen/tests/codegen/approx.rs` compiles the same kernel and compares.

Writes tests/fixtures/triton/approx_instructions.json.

Usage: python3 scripts/triton_approx_instructions.py
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from triton_common import REPO_ROOT, jit_from_source  # noqa: E402

OUT = REPO_ROOT / "tests" / "fixtures" / "triton" / "approx_instructions.json"

# One function per kernel, so each kernel's PTX holds one `ex2` form.
FUNCTIONS = {
    "math.exp2": "tl.math.exp2(x)",
    "exp2": "tl.exp2(x)",
    "exp": "tl.exp(x)",
}

SOURCE = """import triton
import triton.language as tl


@triton.jit
def kernel(x_ptr, y_ptr, BLOCK: tl.constexpr):
    r = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + r)
    tl.store(y_ptr + r, {expr})
"""


def main() -> None:
    import triton
    from triton.backends.compiler import GPUTarget
    from triton.compiler import ASTSource

    cases = []
    for name, expr in FUNCTIONS.items():
        source = SOURCE.format(expr=expr)
        fn = jit_from_source(source, "kernel")
        for cc in (80, 90):
            signature = {"x_ptr": "*fp32", "y_ptr": "*fp32", "BLOCK": "constexpr"}
            src = ASTSource(fn, signature, {"BLOCK": 128})
            k = triton.compile(src, target=GPUTarget("cuda", cc, 32), options={"num_warps": 4})
            instrs = sorted(set(re.findall(r"\b(ex2\.approx[\w.]*)", k.asm["ptx"])))
            cases.append({
                "name": name,
                "sm": cc,
                "signature": "*fp32, *fp32, 128",
                "source": source,
                "ex2": instrs,
            })
    OUT.write_text(json.dumps({"triton": triton.__version__, "cases": cases}, indent=1) + "\n")
    print(f"wrote {OUT}")


if __name__ == "__main__":
    main()
