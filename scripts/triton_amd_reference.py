#!/usr/bin/env python3
"""Upstream Triton 3.6's AMD code for tritonc's memory-bound examples: the facts
tests/amd_reference.rs and docs/backend-amd-report.md compare tritonc's code objects with.

For each kernel and specialization below (AOT signatures, as `tritonc compile
--signature` takes them), Triton compiles for `GPUTarget("hip", ARCH, 64)` (no GPU needed)
and this script records, in tests/fixtures/triton_amd/FILE__KERNEL.ARCH.json:

- the code object's kernel-argument metadata (`.amdhsa.kernels[0].args`: offset, size,
  value kind, address space), the kernarg segment size, LDS bytes
  (`.group_segment_fixed_size`), SGPR/VGPR/AGPR counts and spills (`llvm-readelf
  --notes`);
- counts of the AMDGCN instructions that matter for memory-bound kernels (global and
  buffer loads and stores by width, LDS reads and writes, cross-lane ops, MFMA).

    python3 scripts/triton_amd_reference.py [--arch gfx942 --arch gfx90a]

Re-run it when Triton or a listed kernel changes; tritonc's side is computed by the same
statistics (scripts/amdgcn_stats.py) from its own `--emit amdgcn` and bundle.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import triton_common as tc  # noqa: E402
import amdgcn_stats  # noqa: E402

import triton  # noqa: E402
from triton.backends.compiler import GPUTarget  # noqa: E402
from triton.compiler import ASTSource  # noqa: E402

OUT = tc.REPO_ROOT / "tests" / "fixtures" / "triton_amd"

# (file, kernel, AOT signature, num_warps): the specializations the examples' launch specs
# give on a 16-aligned allocation.
KERNELS = [
    ("examples/vector_add.py", "add_kernel", "*fp32:16, *fp32:16, *fp32:16, i32, 1024", 4),
    ("examples/softmax.py", "softmax_kernel", "*fp16:16, *fp16:16, i32, i32, i32, 1024", 4),
    ("examples/rms_norm.py", "rms_norm_fwd_kernel",
     "*fp16:16, *fp16:16, *fp16:16, *fp32:16, i32, i32, i32, fp32, 1024", 4),
    ("examples/layer_norm.py", "layer_norm_fwd_kernel",
     "*fp16:16, *fp16:16, *fp16:16, *fp16:16, *fp32:16, *fp32:16, i32, i32, fp32, 1024", 4),
    # Triton's tutorials (tests/amd/tutorial_kernels.py), written outside this project.
    ("tests/amd/tutorial_kernels.py", "softmax_kernel",
     "*fp32:16, *fp32:16, i32:16, i32:16, i32, i32, 1024, 2", 4),
    ("tests/amd/tutorial_kernels.py", "_layer_norm_fwd_fused",
     "*fp16:16, *fp16:16, *fp16:16, *fp16:16, *fp32:16, *fp32:16, i32:16, i32, fp32, 1024", 8),
]


def triton_source(fn, signature: str) -> ASTSource:
    """The ASTSource of `fn` for an AOT signature (`*fp32:16, i32, 1024`)."""
    names = fn.arg_names
    items = [s.strip() for s in signature.split(",")]
    assert len(items) == len(names), (fn.__name__, items, names)
    sig, constexprs, attrs = {}, {}, {}
    for i, (name, item) in enumerate(zip(names, items)):
        ty, _, hint = item.partition(":")
        if ty.startswith("*") or ty in ("i32", "i64", "fp32", "fp16", "u32"):
            sig[name] = ty
            if hint == "16":
                attrs[(i,)] = [["tt.divisibility", 16]]
        else:
            sig[name] = "constexpr"
            constexprs[name] = int(ty) if ty.lstrip("-").isdigit() else float(ty)
    return ASTSource(fn, sig, constexprs, attrs)


def readelf_notes(hsaco: bytes) -> dict:
    with tempfile.NamedTemporaryFile(suffix=".hsaco") as f:
        f.write(hsaco)
        f.flush()
        text = subprocess.run(["llvm-readelf-22", "--notes", f.name], check=True,
                              capture_output=True, text=True).stdout
    return amdgcn_stats.kernel_metadata(text)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--arch", action="append")
    args = parser.parse_args()
    archs = args.arch or ["gfx942", "gfx90a"]
    tc.install_torch_stub()
    OUT.mkdir(parents=True, exist_ok=True)
    for path, name, signature, warps in KERNELS:
        module = tc.load_module(tc.REPO_ROOT / path)
        fn = getattr(module, name)
        for arch in archs:
            compiled = triton.compile(triton_source(fn, signature), target=GPUTarget("hip", arch, 64),
                                      options={"num_warps": warps})
            record = {
                "triton_version": triton.__version__,
                "file": path,
                "kernel": name,
                "signature": signature,
                "num_warps": warps,
                "arch": arch,
                "metadata": readelf_notes(compiled.asm["hsaco"]),
                "amdgcn": amdgcn_stats.instruction_counts(compiled.asm["amdgcn"]),
                "hsaco_bytes": len(compiled.asm["hsaco"]),
                # LDS the launch requests (Triton's AMD kernels declare it dynamic).
                "dynamic_lds_bytes": compiled.metadata.shared,
            }
            out = OUT / f"{Path(path).stem}__{name.lstrip('_')}.{arch}.json"
            out.write_text(json.dumps(record, indent=1, sort_keys=True) + "\n")
            print(out.relative_to(tc.REPO_ROOT))


if __name__ == "__main__":
    main()
