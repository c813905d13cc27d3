#!/usr/bin/env python3
"""What upstream Triton 3.6 computes for `tl.sort`, `tl.topk` and `tl.flip`: the facts
python/tests/test_interpret.py checks tritonc's interpreter against, bit for bit.

Triton 3.6 defines these in `triton/language/standard.py` as a bitonic network of
reshapes, xor reductions, compares and selects, so NaN, ±0 and ties come out wherever
that network puts them (`x > y` is false for a NaN). This script runs the kernels of
python/tests/sort_kernels.py under Triton's own interpreter (`TRITON_INTERPRET=1`,
no GPU needed) on inputs with NaNs, signed zeros, infinities and ties, in fp32, fp16
and int32, ascending and descending, and writes python/tests/fixtures/sort_triton.json:
per case the kernel, its constexprs, the dtype, and the input and output bits (hex of
the little-endian elements).

    python3 scripts/triton_sort_fixture.py
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

os.environ["TRITON_INTERPRET"] = "1"

import torch  # noqa: E402
import triton  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "python" / "tests"))
import sort_kernels as K  # noqa: E402

OUT = ROOT / "python" / "tests" / "fixtures" / "sort_triton.json"


def values(n: int, seed: int, dtype: torch.dtype) -> torch.Tensor:
    """Ties (few distinct values), and for floats NaNs, ±0 and ±inf among them."""
    g = torch.Generator().manual_seed(seed)
    if dtype == torch.int32:
        v = torch.randint(-5, 5, (n,), generator=g, dtype=torch.int32)
        v[:: 7] = 2**31 - 1
        v[3:: 11] = -(2**31)
        return v
    v = torch.randint(-6, 6, (n,), generator=g).to(torch.float32) / 4
    special = [float("nan"), -0.0, 0.0, float("inf"), float("-inf"), -float("nan")]
    for i, s in enumerate(special):
        v[(i * 5 + seed) % n] = s
    v[(seed + 1) % n] = float("nan")
    return v.to(dtype)


def hex_of(t: torch.Tensor) -> str:
    return t.contiguous().view(torch.uint8).numpy().tobytes().hex()


def main() -> None:
    cases = []
    dtypes = {"float32": torch.float32, "float16": torch.float16, "int32": torch.int32}
    for dname, dtype in dtypes.items():
        for seed, (rows, n) in enumerate([(4, 16), (2, 64), (1, 8)]):
            x = values(rows * n, seed, dtype).reshape(rows, n)
            for desc in (False, True):
                out = torch.empty_like(x)
                K.sort_rows[(1,)](x, out, ROWS=rows, N=n, DESCENDING=desc)
                cases.append({"kernel": "sort_rows", "dtype": dname, "shape": [rows, n],
                              "constexprs": {"ROWS": rows, "N": n, "DESCENDING": desc},
                              "x": hex_of(x), "out": hex_of(out), "out_shape": [rows, n]})
            out = torch.empty_like(x)
            K.sort_rows_dim[(1,)](x, out, ROWS=rows, N=n)
            cases.append({"kernel": "sort_rows_dim", "dtype": dname, "shape": [rows, n],
                          "constexprs": {"ROWS": rows, "N": n},
                          "x": hex_of(x), "out": hex_of(out), "out_shape": [rows, n]})
            for k in (2, 4):
                out = torch.empty(rows, k, dtype=dtype)
                K.topk_rows[(1,)](x, out, ROWS=rows, N=n, K=k)
                cases.append({"kernel": "topk_rows", "dtype": dname, "shape": [rows, n],
                              "constexprs": {"ROWS": rows, "N": n, "K": k},
                              "x": hex_of(x), "out": hex_of(out), "out_shape": [rows, k]})
            out = torch.empty_like(x)
            K.flip_rows[(1,)](x, out, ROWS=rows, N=n)
            cases.append({"kernel": "flip_rows", "dtype": dname, "shape": [rows, n],
                          "constexprs": {"ROWS": rows, "N": n},
                          "x": hex_of(x), "out": hex_of(out), "out_shape": [rows, n]})
        x = values(32, 9, dtype)
        for desc in (False, True):
            out = torch.empty_like(x)
            K.sort_1d[(1,)](x, out, N=32, DESCENDING=desc)
            cases.append({"kernel": "sort_1d", "dtype": dname, "shape": [32],
                          "constexprs": {"N": 32, "DESCENDING": desc},
                          "x": hex_of(x), "out": hex_of(out), "out_shape": [32]})
    OUT.parent.mkdir(parents=True, exist_ok=True)
    OUT.write_text(json.dumps({"triton_version": triton.__version__, "cases": cases},
                              indent=1) + "\n")
    print(f"{OUT.relative_to(ROOT)}: {len(cases)} cases")


if __name__ == "__main__":
    main()
