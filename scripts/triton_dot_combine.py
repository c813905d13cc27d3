#!/usr/bin/env python3
"""Record when Triton 3.6 folds an addition into a `tt.dot` accumulator.

Triton's TTIR pipeline rewrites `acc + tl.dot(a, b)` (either order) into
`tl.dot(a, b, acc)` under conditions of its own (the dot's accumulator is zero, the
dot result has no other use, no imprecise-accumulation limit). tritonc's
`DotAccumulate` tile-IR pass must fold exactly where Triton does, because the fold
changes rounding (one accumulation instead of a dot plus an add).

Writes tests/fixtures/triton/dot_combine.json: for each case, the kernel source and
whether Triton's TTIR folded every addition into the dot (`folded: true`) or keeps a
dot into zeros next to an add (`folded: false`).

Usage: python3 scripts/triton_dot_combine.py
"""

from __future__ import annotations

import json
import re
import sys
import textwrap
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from triton_common import REPO_ROOT, compile_ttir, jit_from_source, strip_locations  # noqa: E402

OUT = REPO_ROOT / "tests" / "fixtures" / "triton" / "dot_combine.json"

HEADER = """import triton
import triton.language as tl


@triton.jit
def kernel(a_ptr, b_ptr, c_ptr, K, BLOCK: tl.constexpr):
    r = tl.arange(0, BLOCK)
    a_ptrs = a_ptr + r[:, None] * BLOCK + r[None, :]
    b_ptrs = b_ptr + r[:, None] * BLOCK + r[None, :]
"""

# (name, element type of a and b, the kernel body after HEADER; stores `acc`).
CASES: list[tuple[str, str, str]] = [
    ("plus_equals_in_loop", "fp16", """
    acc = tl.zeros((BLOCK, BLOCK), dtype=tl.float32)
    for k in range(0, K):
        acc += tl.dot(tl.load(a_ptrs), tl.load(b_ptrs))
"""),
    ("dot_plus_acc", "fp16", """
    acc = tl.zeros((BLOCK, BLOCK), dtype=tl.float32)
    for k in range(0, K):
        acc = tl.dot(tl.load(a_ptrs), tl.load(b_ptrs)) + acc
"""),
    ("three_argument_form", "fp16", """
    acc = tl.zeros((BLOCK, BLOCK), dtype=tl.float32)
    for k in range(0, K):
        acc = tl.dot(tl.load(a_ptrs), tl.load(b_ptrs), acc)
"""),
    ("dot_result_used_twice", "fp16", """
    acc = tl.zeros((BLOCK, BLOCK), dtype=tl.float32)
    d = tl.dot(tl.load(a_ptrs), tl.load(b_ptrs))
    acc += d
    acc += d * 2.0
"""),
    ("nonzero_accumulator", "fp16", """
    acc = tl.full((BLOCK, BLOCK), 1.0, dtype=tl.float32)
    d = tl.dot(tl.load(a_ptrs), tl.load(b_ptrs), tl.full((BLOCK, BLOCK), 2.0, dtype=tl.float32))
    acc += d
"""),
    ("int8_plus_equals", "i8", """
    acc = tl.zeros((BLOCK, BLOCK), dtype=tl.int32)
    for k in range(0, K):
        acc += tl.dot(tl.load(a_ptrs), tl.load(b_ptrs))
"""),
    ("fp32_tf32_plus_equals", "fp32", """
    acc = tl.zeros((BLOCK, BLOCK), dtype=tl.float32)
    for k in range(0, K):
        acc += tl.dot(tl.load(a_ptrs), tl.load(b_ptrs))
"""),
    ("fp8_imprecise_accumulation", "fp8e4nv", """
    acc = tl.zeros((BLOCK, BLOCK), dtype=tl.float32)
    for k in range(0, K):
        acc += tl.dot(tl.load(a_ptrs), tl.load(b_ptrs), max_num_imprecise_acc=32)
"""),
    ("scaled_dot_plus_acc", "fp16", """
    acc = tl.zeros((BLOCK, BLOCK), dtype=tl.float32)
    for k in range(0, K):
        acc += 0.5 * tl.dot(tl.load(a_ptrs), tl.load(b_ptrs))
"""),
]


def folded(ttir: str) -> bool:
    """Whether every dot accumulates into a real accumulator: no `tt.dot` adds into a
    zero constant and no `arith.addf`/`arith.addi` reads a dot's result."""
    zeros = set(re.findall(r"(%[\w.]+) = arith\.constant dense<(?:0\.000000e\+00|0)>", ttir))
    dots = set()
    for m in re.finditer(r"(%[\w.]+) = tt\.dot (%[\w.]+), (%[\w.]+), (%[\w.]+)", ttir):
        dots.add(m.group(1))
        if m.group(4) in zeros:
            return False
    for line in ttir.splitlines():
        m = re.search(r"= arith\.add[fi] (%[\w.]+), (%[\w.]+)", line)
        if m and (m.group(1) in dots or m.group(2) in dots):
            return False
    return True


def main() -> None:
    out = []
    for name, dtype, body in CASES:
        acc_dtype = "i32" if dtype == "i8" else "fp32"
        source = HEADER + textwrap.dedent(body).replace("\n", "\n    ").rstrip() + "\n"
        source = source.replace("\n    \n", "\n")
        source += "    tl.store(c_ptr + r[:, None] * BLOCK + r[None, :], acc)\n"
        fn = jit_from_source(source, "kernel")
        signature = {"a_ptr": f"*{dtype}", "b_ptr": f"*{dtype}", "c_ptr": f"*{acc_dtype}", "K": "i32", "BLOCK": "constexpr"}
        ttir = strip_locations(compile_ttir(fn, signature, {"BLOCK": 32}, {}))
        out.append({
            "name": name,
            "dtype": dtype,
            "source": source,
            "signature": f"*{dtype}, *{dtype}, *{acc_dtype}, i32, 32",
            "folded": folded(ttir),
            "dots": [l.strip() for l in ttir.splitlines() if "tt.dot" in l],
        })
        print(f"{name}: folded={out[-1]['folded']}")
    OUT.write_text(json.dumps({"triton": __import__("triton").__version__, "cases": out}, indent=1) + "\n")
    print(f"wrote {OUT}")


if __name__ == "__main__":
    main()
