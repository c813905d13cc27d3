"""Record what Triton 3.6 computes on an NVIDIA GPU for fp16 `tl.cumsum`, so the
interpreter's scan order can be checked bit for bit against the hardware.

fp16 scans round after every combine, so their result depends on the order of the
combines, which Triton's GPU lowering fixes by the operand's layout (in-thread, then a
shuffle-up scan across lanes, then across warps). This script runs examples/cumsum.py's
kernel (fp16 in, fp16 out) and tests/fixtures/reverse_scan.py for a few shapes and
`num_warps`, and writes crates/tritonc-spec/tests/fixtures/scan_gpu.json: per case the shape, the launch,
the scan operand's `#ttg.blocked` layout from the TTGIR, and the output bits (hex of
little-endian u16). Inputs are not stored: element i of case `seed` is
`input_value(seed, i)`, multiples of 2^-10 in [-2, 2) that fp16 holds exactly;
tests/scan_order.rs computes the same values.

Needs a CUDA GPU with torch and triton 3.6:  python3 scripts/scan_fixture.py [OUT.json]
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

import torch
import triton

REPO_ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO_ROOT / "examples"))
sys.path.insert(0, str(REPO_ROOT / "crates" / "tritonc-spec" / "tests" / "fixtures"))
from cumsum import cumsum_kernel  # noqa: E402
from reverse_scan import reverse_cumsum_kernel  # noqa: E402


def input_value(seed: int, i: int) -> float:
    """A 32-bit integer hash of (seed, i) mapped to k / 1024 with k in [-2048, 2048)."""
    m = 0xFFFFFFFF
    h = (i + seed * 0x9E3779B9) & m
    h ^= h >> 16
    h = (h * 0x45D9F3B) & m
    h ^= h >> 16
    h = (h * 0x45D9F3B) & m
    h ^= h >> 16
    return ((h % 4096) - 2048) / 1024.0


# (rows, cols, num_warps): rows of one 4096-wide block in 4 blocks of 1024 per warp group,
# several warps along the axis with and without repetition, one warp along the axis, 8
# warps, short rows where lanes wrap onto several rows.
CASES = [(1, 4096, 4), (4, 1000, 4), (16, 200, 4), (8, 500, 4), (1, 2048, 8), (1, 8192, 4), (3, 64, 4)]
REVERSE_CASES = [(2048, 4), (256, 1)]


def layout_of(ttgir: str) -> str:
    """The #blocked layout of the scan's result type (the operand's layout, as Triton
    requires); every #blocked definition if the scan's type cannot be found."""
    layouts = dict(re.findall(r"^(#blocked\d*) = (#ttg\.blocked<.*>)$", ttgir, re.M))
    try:
        start = ttgir.index("tt.scan")
        end = ttgir.index("}) :", start)
        signature = ttgir[end:ttgir.index("\n", end)]
        return layouts[re.findall(r"(#blocked\d*)>", signature)[-1]]
    except (ValueError, KeyError, IndexError):
        return "; ".join(f"{k} = {v}" for k, v in layouts.items())


def main() -> int:
    out_path = Path(sys.argv[1]) if len(sys.argv) > 1 else REPO_ROOT / "crates/tritonc-spec/tests/fixtures/scan_gpu.json"
    cases = []
    for seed, (rows, cols, warps) in enumerate(CASES):
        x = torch.tensor([input_value(seed, i) for i in range(rows * cols)], dtype=torch.float16).reshape(rows, cols)
        x = x.cuda()
        out = torch.empty_like(x)
        block_n = triton.next_power_of_2(cols)
        block_m = max(1, min(16, 4096 // block_n))
        k = cumsum_kernel[(triton.cdiv(rows, block_m),)](
            x, out, x.stride(0), out.stride(0), rows, cols, BLOCK_M=block_m, BLOCK_N=block_n, num_warps=warps)
        torch.cuda.synchronize()
        seq = torch.cumsum(x.float(), dim=1).cpu()
        cases.append({
            "kind": "cumsum_kernel", "seed": seed, "rows": rows, "cols": cols, "num_warps": warps,
            "BLOCK_M": block_m, "BLOCK_N": block_n, "layout": layout_of(k.asm["ttgir"]),
            "out_hex": out.cpu().view(torch.int16).numpy().astype("<i2").tobytes().hex(),
            "max_abs_diff_vs_fp32": float((out.cpu().float() - seq).abs().max()),
        })
    for j, (n, warps) in enumerate(REVERSE_CASES):
        seed = 100 + j
        x = torch.tensor([input_value(seed, i) for i in range(n)], dtype=torch.float16).cuda()
        out = torch.empty_like(x)
        k = reverse_cumsum_kernel[(1,)](x, out, BLOCK=n, num_warps=warps)
        torch.cuda.synchronize()
        cases.append({
            "kind": "reverse", "seed": seed, "rows": 1, "cols": n, "num_warps": warps,
            "layout": layout_of(k.asm["ttgir"]),
            "out_hex": out.cpu().view(torch.int16).numpy().astype("<i2").tobytes().hex(),
        })
    meta = {"triton": triton.__version__, "torch": torch.__version__, "device": torch.cuda.get_device_name()}
    out_path.write_text(json.dumps({"meta": meta, "cases": cases}, indent=1) + "\n")
    print(f"wrote {out_path}: {len(cases)} cases on {meta['device']}")
    for c in cases:
        print(c["kind"], c["rows"], c["cols"], c["num_warps"], c["layout"], c.get("max_abs_diff_vs_fp32"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
