#!/usr/bin/env python3
"""Record what Triton 3.6 makes of `tl.extra.cuda.gdc_wait()` and
`tl.extra.cuda.gdc_launch_dependents()` (grid dependency control) on sm_80 and sm_90.

Triton writes each as side-effecting inline PTX (`griddepcontrol.wait; // dummy $0`,
`griddepcontrol.launch_dependents; ...`). For sm_90 the PTX holds both instructions, in
program order around the kernel's store; for sm_80 Triton writes the same PTX and ptxas
refuses it (`griddepcontrol` needs sm_90).

Writes tests/fixtures/triton/gdc.json: for each target whether Triton compiles the kernel,
the PTX instructions of interest in program order (`griddepcontrol.*` and global stores),
or the first ptxas error line. `crates/tritonc-codegen/tests/codegen/grid_dep.rs` compiles
the same kernel and compares; the interpreter treats both calls as no-ops.

Usage: python3 scripts/triton_gdc.py
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from triton_common import REPO_ROOT, jit_from_source  # noqa: E402

OUT = REPO_ROOT / "tests" / "fixtures" / "triton" / "gdc.json"

SOURCE = """import triton
import triton.language as tl


@triton.jit
def kernel(x_ptr, y_ptr, BLOCK: tl.constexpr):
    tl.extra.cuda.gdc_wait()
    r = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + r)
    tl.store(y_ptr + r, x + 1)
    tl.extra.cuda.gdc_launch_dependents()
"""

SIGNATURE = "*i32, *i32, 128"


def main() -> None:
    import triton
    from triton.backends.compiler import GPUTarget
    from triton.compiler import ASTSource

    fn = jit_from_source(SOURCE, "kernel")
    cases = []
    for cc in (80, 90):
        case = {"sm": cc}
        src = ASTSource(fn, {"x_ptr": "*i32", "y_ptr": "*i32", "BLOCK": "constexpr"}, {"BLOCK": 128})
        try:
            k = triton.compile(src, target=GPUTarget("cuda", cc, 32), options={"num_warps": 4})
            ptx = k.asm["ptx"]
            case["accepted"] = True
            case["ttir_inline_asm"] = re.findall(r'tt\.elementwise_inline_asm "([^"]*)"', k.asm["ttir"])
            # Program order of the instructions that matter: the grid-dependency controls and
            # the global loads and stores between them.
            case["ptx_order"] = [
                m.group(1) for m in re.finditer(r"^\s*(?:@%p\d+\s+)?(griddepcontrol\.\w+|ld\.global|st\.global)",
                                                 ptx, re.M)
            ]
        except Exception as exc:  # Triton's PTXASError
            case["accepted"] = False
            lines = [ln.strip() for ln in str(exc).splitlines() if "error" in ln and "ptxas" in ln and ", line" in ln]
            # Drop the temporary file name: `ptxas /tmp/x.ptx, line 30; error : ...`.
            case["ptxas_errors"] = sorted({ln.split("; ", 1)[1] for ln in lines})
            case["error_type"] = type(exc).__name__
        cases.append(case)
    OUT.write_text(json.dumps({"triton": triton.__version__, "source": SOURCE, "signature": SIGNATURE,
                               "cases": cases}, indent=1) + "\n")
    print(json.dumps(cases, indent=1))
    print(f"wrote {OUT}")


if __name__ == "__main__":
    main()
