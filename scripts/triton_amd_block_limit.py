#!/usr/bin/env python3
"""What upstream Triton 3.6 does with more warps than an AMD block can hold: the facts
tritonc's compile-time check of the threads per block is tested against
(crates/tritonc/tests/amd.rs).

For `num_warps` 1 to 32 on gfx942 and gfx90a (64 lanes per wave), Triton compiles
examples/vector_add.py's `add_kernel` for `GPUTarget("hip", ARCH, 64)` (no GPU needed)
and this script records, in tests/fixtures/triton_amd_block_limit.json, whether it
compiled, the threads the launcher would start per block (`num_warps * 64`, as
Triton's HIP launcher passes `hipModuleLaunchKernel`) and the code object's
`.max_flat_workgroup_size` (`llvm-readelf --notes`): the most threads a block of that
kernel may have.

    python3 scripts/triton_amd_block_limit.py
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import triton_common as tc  # noqa: E402
from triton_amd_reference import readelf_notes, triton_source  # noqa: E402

import triton  # noqa: E402
from triton.backends.compiler import GPUTarget  # noqa: E402

OUT = tc.REPO_ROOT / "tests" / "fixtures" / "triton_amd_block_limit.json"
SIGNATURE = "*fp32:16, *fp32:16, *fp32:16, i32, 4096"


def main() -> None:
    tc.install_torch_stub()
    fn = tc.load_module(tc.REPO_ROOT / "examples" / "vector_add.py").add_kernel
    rows = []
    for arch in ("gfx942", "gfx90a"):
        for warps in (1, 2, 4, 8, 16, 32):
            row = {"arch": arch, "num_warps": warps, "launch_threads": warps * 64}
            try:
                k = triton.compile(triton_source(fn, SIGNATURE), target=GPUTarget("hip", arch, 64),
                                   options={"num_warps": warps})
                row["compiles"] = True
                row["max_flat_workgroup_size"] = int(
                    readelf_notes(k.asm["hsaco"])["max_flat_workgroup_size"])
            except Exception as e:  # noqa: BLE001 - recorded, whatever it is
                row["compiles"] = False
                row["error"] = f"{type(e).__name__}: {str(e).splitlines()[0][:200]}"
            rows.append(row)
            print(row)
    record = {"triton_version": triton.__version__, "file": "examples/vector_add.py",
              "kernel": "add_kernel", "signature": SIGNATURE, "rows": rows}
    OUT.write_text(json.dumps(record, indent=1, sort_keys=True) + "\n")
    print(OUT.relative_to(tc.REPO_ROOT))


if __name__ == "__main__":
    main()
