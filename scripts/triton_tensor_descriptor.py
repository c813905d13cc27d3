#!/usr/bin/env python3
"""Record what Triton 3.6 makes of device-side tensor descriptors
(`tl.make_tensor_descriptor`, `desc.load`, `desc.store`).

1. Values: each kernel of tests/fixtures/triton/tensor_descriptor/kernels.py runs on
   Triton's own interpreter (TRITON_INTERPRET=1, CPU tensors) over inputs made here; the
   inputs and Triton's outputs are written as `.npy` files next to it, with a launch spec
   (`CASE.toml`) whose outputs name Triton's result as an exact reference. tritonc's
   interpreter must give the same bits (crates/tritonc-spec/tests/tensor_descriptor.rs).
   Outputs start filled with -1, so elements a masked store must leave alone are checked.
2. Lowering: the TTIR Triton compiles for sm_80 (no TMA), where its
   `triton-rewrite-tensor-descriptor-to-pointer` pass turns descriptor loads and stores
   into masked pointer loads and stores: the op counts are written to
   tests/fixtures/triton/tensor_descriptor.json (tritonc lowers descriptors that way on
   every target).

Usage: python3 scripts/triton_tensor_descriptor.py
"""

from __future__ import annotations

import importlib.util
import json
import os
import re
import sys
from pathlib import Path

os.environ["TRITON_INTERPRET"] = "1"

import numpy as np  # noqa: E402
import torch  # noqa: E402
import triton  # noqa: E402

REPO_ROOT = Path(__file__).resolve().parent.parent
DIR = REPO_ROOT / "tests" / "fixtures" / "triton" / "tensor_descriptor"
OUT = REPO_ROOT / "tests" / "fixtures" / "triton" / "tensor_descriptor.json"

DTYPES = {np.float32: "float32", np.float16: "float16", np.int16: "int16"}


def load_kernels():
    spec = importlib.util.spec_from_file_location("td_kernels", DIR / "kernels.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules["td_kernels"] = module
    spec.loader.exec_module(module)
    return module


def rng_inputs(seed: int, shape, dtype):
    g = np.random.default_rng(seed)
    if np.issubdtype(dtype, np.integer):
        return g.integers(-1000, 1000, size=shape).astype(dtype)
    return g.standard_normal(shape).astype(dtype)


# name, kernel, inputs {param: array}, outputs {param: (shape, dtype)}, scalars {param: value},
# constexprs {param: value}, grid
def cases():
    return [
        ("copy_2d", "copy_2d", {"x_ptr": rng_inputs(1, (37, 52), np.float32)},
         {"y_ptr": ((37, 52), np.float32)}, {"M": 37, "N": 52}, {"BM": 16, "BN": 16}, (3, 4)),
        ("nan_padding", "nan_padding", {"x_ptr": rng_inputs(2, (20, 12), np.float32)},
         {"y_ptr": ((32, 8), np.float32)}, {"M": 20, "N": 12}, {"BM": 16, "BN": 8}, (2, )),
        ("helper_and_loop", "helper_and_loop", {"x_ptr": rng_inputs(3, (3, 24, 16), np.float32)},
         {"y_ptr": ((24, 16), np.float16)}, {"M": 24, "N": 16}, {"K": 3, "BM": 8, "BN": 16}, (3, )),
        ("int_rows", "int_rows", {"x_ptr": rng_inputs(4, (10, 24), np.int16)},
         {"y_ptr": ((10, 24), np.int16)}, {"M": 10, "N": 24}, {"BM": 4, "BN": 32}, (3, )),
        ("helper_descriptor", "helper_descriptor", {"x_ptr": rng_inputs(5, (12, 16), np.float32)},
         {"y_ptr": ((12, 16), np.float32)}, {"M": 12, "N": 16}, {"BM": 8, "BN": 16}, (2, )),
    ]


def toml_value(v) -> str:
    return json.dumps(v) if isinstance(v, str) else str(v)


def run_case(module, name, kernel, inputs, outputs, scalars, constexprs, grid) -> dict:
    fn = getattr(module, kernel)
    args, lines = {}, [f'kernel = "kernels.py"', f'name = "{kernel}"',
                       f"grid = [{', '.join(str(g) for g in grid)}]", ""]
    tensors = {}
    for param, array in inputs.items():
        tname = param.removesuffix("_ptr")
        path = f"{name}_{tname}.npy"
        np.save(DIR / path, array)
        tensors[param] = torch.from_numpy(array.copy())
        lines += [f"[tensors.{tname}]", f"shape = {list(array.shape)}", f'dtype = "{DTYPES[array.dtype.type]}"',
                  'init = "npy"', f'path = "{path}"', ""]
    for param, (shape, dtype) in outputs.items():
        tname = param.removesuffix("_ptr")
        tensors[param] = torch.from_numpy(np.full(shape, -1, dtype=dtype))
    for param in fn.arg_names:
        if param in tensors:
            args[param] = tensors[param]
        elif param in scalars:
            args[param] = scalars[param]
        else:
            args[param] = constexprs[param]
    fn[grid](*[args[p] for p in fn.arg_names])
    results = {}
    for param, (shape, dtype) in outputs.items():
        tname = param.removesuffix("_ptr")
        ref = f"{name}_{tname}_ref.npy"
        out = tensors[param].numpy()
        np.save(DIR / ref, out)
        results[tname] = {"nan": int(np.isnan(out).sum()) if np.issubdtype(dtype, np.floating) else 0,
                          "untouched": int((out == -1).sum())}
        lines += [f"[tensors.{tname}]", f"shape = {list(shape)}", f'dtype = "{DTYPES[dtype]}"', 'init = "full"',
                  "value = -1", "output = true", f'reference = "{ref}"', "atol = 0.0", "rtol = 0.0", ""]
    lines.append("[args]")
    for param in fn.arg_names:
        if param in tensors:
            lines.append(f'{param} = "{param.removesuffix("_ptr")}"')
        else:
            lines.append(f"{param} = {toml_value(scalars.get(param, constexprs.get(param)))}")
    (DIR / f"{name}.toml").write_text(
        f"# Written by scripts/triton_tensor_descriptor.py: the reference is Triton 3.6's interpreter.\n"
        + "\n".join(lines) + "\n")
    return {"name": name, "kernel": kernel, "outputs": results}


def sm80_lowering(module) -> dict:
    """Op counts of the sm_80 TTIR (compiled for real, outside the interpreter's patches)."""
    import subprocess
    code = f"""
import importlib.util, json, re, sys
sys.path.insert(0, {str(REPO_ROOT / 'scripts')!r})
import triton
from triton.backends.compiler import GPUTarget
from triton.compiler import ASTSource
spec = importlib.util.spec_from_file_location("td_kernels", {str(DIR / 'kernels.py')!r})
m = importlib.util.module_from_spec(spec); sys.modules["td_kernels"] = m; spec.loader.exec_module(m)
src = ASTSource(m.copy_2d, {{"x_ptr": "*fp32", "y_ptr": "*fp32", "M": "i32", "N": "i32",
                "BM": "constexpr", "BN": "constexpr"}}, {{"BM": 16, "BN": 16}})
out = {{}}
for cc in (80, 90):
    k = triton.compile(src, target=GPUTarget("cuda", cc, 32))
    ttir = k.asm["ttir"]
    out[f"sm_{{cc}}"] = {{op: len(re.findall(r"\\b" + re.escape(op) + r"\\b", ttir)) for op in
        ("tt.load", "tt.store", "tt.descriptor_load", "tt.descriptor_store", "tt.make_tensor_descriptor")}}
print(json.dumps(out))
"""
    env = dict(os.environ)
    env.pop("TRITON_INTERPRET")
    r = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True)
    return json.loads(r.stdout.strip().splitlines()[-1])


def main() -> int:
    DIR.mkdir(parents=True, exist_ok=True)
    triton.set_allocator(lambda size, alignment, stream: torch.empty(size, dtype=torch.int8))
    module = load_kernels()
    results = [run_case(module, *c) for c in cases()]
    doc = {"triton_version": triton.__version__, "cases": results, "copy_2d_ttir": sm80_lowering(module)}
    OUT.write_text(json.dumps(doc, indent=1) + "\n")
    print(json.dumps(doc, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
