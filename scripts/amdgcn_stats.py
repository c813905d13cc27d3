#!/usr/bin/env python3
"""Statistics of AMD code objects, the same for Triton's and tritonc's: kernel metadata from
`llvm-readelf --notes` and instruction counts from AMDGCN assembly.

    python3 scripts/amdgcn_stats.py KERNEL.amdgcn [CODE_OBJECT.hsaco]   # prints JSON
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from collections import Counter

# Instruction families counted, by mnemonic prefix (the width is part of the mnemonic:
# global_load_dwordx4 is a 128-bit load).
FAMILIES = ("global_load", "global_store", "buffer_load", "buffer_store", "ds_read", "ds_write",
            "ds_load", "ds_store", "ds_bpermute", "ds_swizzle", "ds_permute", "v_mfma",
            "s_barrier", "global_atomic", "buffer_atomic", "flat_load", "flat_store")


def instruction_counts(amdgcn: str) -> dict:
    """Mnemonic counts for the families above, plus the DPP-modified instructions."""
    counts: Counter = Counter()
    for line in amdgcn.splitlines():
        line = line.strip()
        if not line or line.startswith((";", ".", "//")) or line.endswith(":"):
            continue
        mnemonic = line.split()[0]
        if mnemonic.startswith(FAMILIES):
            counts[mnemonic] += 1
        if "row_" in line or "quad_perm" in line or "row_bcast" in line:
            counts["dpp"] += 1
    return dict(sorted(counts.items()))


def kernel_metadata(notes: str) -> dict:
    """The first kernel's `.amdhsa.kernels` entry from `llvm-readelf --notes` (YAML)."""
    args, meta, arg = [], {}, None
    in_args = False
    for raw in notes.splitlines():
        line = raw.strip()
        if line.startswith(".args:"):
            in_args = True
            continue
        m = re.match(r"^(- )?\.([a-z_]+):\s*(.*)$", line)
        if not m:
            continue
        dash, key, value = m.groups()
        indent = len(raw) - len(raw.lstrip())
        if in_args and indent >= 6:
            if dash:
                arg = {}
                args.append(arg)
            arg[key] = int(value) if value.isdigit() else value
            continue
        in_args = False
        if key in ("group_segment_fixed_size", "kernarg_segment_size", "sgpr_count", "vgpr_count",
                   "agpr_count", "sgpr_spill_count", "vgpr_spill_count", "private_segment_fixed_size",
                   "max_flat_workgroup_size", "wavefront_size", "name"):
            meta[key] = int(value) if value.isdigit() else value
    meta["args"] = [{k: a[k] for k in ("offset", "size", "value_kind", "address_space") if k in a}
                    for a in args]
    return meta


def main() -> None:
    out = {"amdgcn": instruction_counts(open(sys.argv[1]).read())}
    if len(sys.argv) > 2:
        notes = subprocess.run(["llvm-readelf-22", "--notes", sys.argv[2]], check=True,
                               capture_output=True, text=True).stdout
        out["metadata"] = kernel_metadata(notes)
    print(json.dumps(out, indent=1, sort_keys=True))


if __name__ == "__main__":
    main()
