#!/usr/bin/env python3
"""tritonc's AMD code objects beside upstream Triton 3.6's, for docs/backend-amd-report.md.

For every fixture of scripts/triton_amd_reference.py (tests/fixtures/triton_amd/*.json:
kernel, specialization, architecture, Triton's statistics), compiles the same kernel and
specialization with tritonc (`tritonc compile --target ARCH --signature … -o DIR` and
`--emit amdgcn`), computes the same statistics (scripts/amdgcn_stats.py) and prints one
Markdown table per kernel and architecture. No GPU is involved: these are static counts.

    python3 scripts/amd_report.py [TRITONC]          # default target/debug/tritonc
    python3 scripts/amd_report.py --dots [TRITONC]   # the MFMA dot kernels
"""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import amdgcn_stats  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = ROOT / "tests" / "fixtures" / "triton_amd"
# The dot kernels of scripts/triton_amd_dot_reference.py (`--dots`).
DOT_FIXTURES = ROOT / "tests" / "fixtures" / "triton_amd_dot"


def tritonc_side(tritonc: str, fx: dict) -> dict:
    base = [tritonc, "compile", str(ROOT / fx["file"]), "--kernel", fx["kernel"], "--target",
            fx["arch"], "--signature", fx["signature"], "--num-warps", str(fx["num_warps"])]
    with tempfile.TemporaryDirectory() as out:
        subprocess.run(base + ["-o", out], check=True, capture_output=True)
        hsaco = next(Path(out).glob("*.tcb/kernel.hsaco"))
        notes = subprocess.run(["llvm-readelf-22", "--notes", str(hsaco)], check=True,
                               capture_output=True, text=True).stdout
        size = hsaco.stat().st_size
        bundle = json.loads((hsaco.parent / "bundle.json").read_text())
    asm = subprocess.run(base + ["--emit", "amdgcn"], check=True, capture_output=True, text=True).stdout
    return {"metadata": amdgcn_stats.kernel_metadata(notes),
            "amdgcn": amdgcn_stats.instruction_counts(asm), "hsaco_bytes": size,
            "dynamic_lds_bytes": bundle["dynamic_shared_bytes"]}


def waves_per_simd(meta: dict) -> int:
    """VGPR-limited waves per SIMD on gfx90a/gfx942: 512 registers per lane, allocated in
    granules of 8, at most 8 waves."""
    regs = meta.get("vgpr_count", 0) + meta.get("agpr_count", 0)
    granules = max(8, -(-regs // 8) * 8)
    return min(8, 512 // granules)


def row(name: str, a, b) -> str:
    mark = "" if a == b else " ≠"
    return f"| {name}{mark} | {a} | {b} |"


def table(fx: dict, mine: dict) -> str:
    t, m = fx["metadata"], mine["metadata"]
    lines = [f"### `{fx['kernel']}` ({fx['file']}), {fx['arch']}", "",
             f"`{fx['signature']}`, num_warps={fx['num_warps']}", "",
             "| | tritonc | Triton 3.6 |", "|---|---|---|"]
    lines.append(row("kernel arguments (offset:size:kind)",
                     " ".join(f"{a['offset']}:{a['size']}:{a['value_kind']}" for a in m["args"]),
                     " ".join(f"{a['offset']}:{a['size']}:{a['value_kind']}" for a in t["args"])))
    for key, label in [("kernarg_segment_size", "kernarg bytes"),
                       ("group_segment_fixed_size", "static LDS bytes"), ("vgpr_count", "VGPRs"),
                       ("agpr_count", "AGPRs"), ("sgpr_count", "SGPRs"),
                       ("vgpr_spill_count", "VGPR spills"), ("sgpr_spill_count", "SGPR spills"),
                       ("private_segment_fixed_size", "scratch bytes")]:
        lines.append(row(label, m.get(key), t.get(key)))
    lines.append(row("LDS bytes requested at launch", mine["dynamic_lds_bytes"], fx["dynamic_lds_bytes"]))
    lines.append(row("waves/SIMD (VGPR-limited)", waves_per_simd(m), waves_per_simd(t)))
    ops = sorted(set(mine["amdgcn"]) | set(fx["amdgcn"]))
    for op in ops:
        lines.append(row(f"`{op}`", mine["amdgcn"].get(op, 0), fx["amdgcn"].get(op, 0)))
    lines.append(row("code object bytes", mine["hsaco_bytes"], fx["hsaco_bytes"]))
    return "\n".join(lines) + "\n"


def dot_summary(rows: list) -> str:
    """One line per dot fixture: MFMA counts, LDS, registers, spills (tritonc / Triton)."""
    lines = ["| kernel | arch | `v_mfma` | LDS bytes | VGPRs | AGPRs | spills (VGPR, scratch bytes) |",
             "|---|---|---|---|---|---|---|"]
    for fx, mine in rows:
        t, m = fx["metadata"], mine["metadata"]
        mfma = lambda c: " ".join(f"{k}×{n}" for k, n in sorted(c.items()) if k.startswith("v_mfma"))  # noqa: E731
        pair = lambda a, b: f"{a} / {b}" if a == b else f"**{a}** / {b}"  # noqa: E731
        name = fx["kernel"] if fx["kernel"] != "dot_tile" else \
            "dot_tile " + fx["signature"].split(",")[0].lstrip("*").split(":")[0] + " " + \
            "x".join(x.strip() for x in fx["signature"].split(",")[6:9]) + \
            f" w{fx['num_warps']}" + (" tf32" if "'tf32'" in fx["signature"] else "")
        lines.append(f"| {name} | {fx['arch']} | {pair(mfma(mine['amdgcn']), mfma(fx['amdgcn']))} "
                     f"| {pair(mine['dynamic_lds_bytes'], fx['dynamic_lds_bytes'])} "
                     f"| {pair(m.get('vgpr_count'), t.get('vgpr_count'))} "
                     f"| {pair(m.get('agpr_count'), t.get('agpr_count'))} "
                     f"| {pair((m.get('vgpr_spill_count'), m.get('private_segment_fixed_size')), (t.get('vgpr_spill_count'), t.get('private_segment_fixed_size')))} |")
    return "\n".join(lines) + "\n"


def main() -> None:
    args = sys.argv[1:]
    dots = "--dots" in args
    args = [a for a in args if a != "--dots"]
    tritonc = args[0] if args else str(ROOT / "target" / "debug" / "tritonc")
    if dots:
        rows = []
        for path in sorted(DOT_FIXTURES.glob("*.json")):
            fx = json.loads(path.read_text())
            rows.append((fx, tritonc_side(tritonc, fx)))
        print(dot_summary(rows))
        return
    for path in sorted(FIXTURES.glob("*.json")):
        fx = json.loads(path.read_text())
        print(table(fx, tritonc_side(tritonc, fx)))


if __name__ == "__main__":
    main()
