#!/usr/bin/env python3
"""Record, for each Triton version tritonc can target (3.6, 3.7, 3.8, 3.9), the verdict of
that version's wheel on probe kernels whose meaning or validity changed between them.

The 3.6 wheel is the one installed (`import triton`); 3.7.1, 3.8.0 and 3.9.0 are
installed from the package index into their own directories
(`pip install --no-deps --target DIR triton==X`, reused when present) and each probe is
compiled to TTIR for sm_90 by a child Python whose `PYTHONPATH` puts that wheel first.

Writes tests/fixtures/triton/versions.json: for each probe its source and signature, and
per version whether it is accepted, the error (type and first line) when not, and `facts`:
how many times each listed TTIR op occurs, and for `arith.maxnumf`/`arith.cmpf` the
element types they work on.

Usage: python3 scripts/triton_versions.py [--wheels DIR]   (DIR default /tmp/tritonc-wheels)
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO_ROOT = HERE.parent
OUT = REPO_ROOT / "tests" / "fixtures" / "triton" / "versions.json"
RELEASES = {"3.7": "3.7.1", "3.8": "3.8.0", "3.9": "3.9.0"}

HEADER = "import triton\nimport triton.language as tl\n\n"

OPS = ["arith.subf", "arith.negf", "arith.extf", "arith.truncf", "arith.maxnumf", "arith.cmpf", "arith.divf",
       "tt.precise_divf",
       "tt.make_tensor_ptr", "tt.load", "tt.store", "tt.scan"]


def unary(expr: str) -> str:
    return f"""
@triton.jit
def kernel(x_ptr, y_ptr, BLOCK: tl.constexpr):
    r = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + r)
    tl.store(y_ptr + r, {expr})
"""


BINARY = """
@triton.jit
def kernel(x_ptr, y_ptr, z_ptr, BLOCK: tl.constexpr):
    r = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + r)
    y = tl.load(y_ptr + r)
    tl.store(z_ptr + r, EXPR)
"""

BLOCK_PTR = """
@triton.jit
def kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    p = tl.make_block_ptr(x_ptr, shape=(n,), strides=(1,), offsets=(0,), block_shape=(BLOCK,), order=(0,))
    x = tl.load(p, boundary_check=(0,))
    p = tl.advance(p, (BLOCK,))
    tl.store(y_ptr + tl.arange(0, BLOCK), x + tl.load(p, boundary_check=(0,)))
"""

HELPER_NUMBER = """
@triton.jit
def two():
    return 2.0


@triton.jit
def kernel(x_ptr, y_ptr, BLOCK: tl.constexpr):
    r = tl.arange(0, BLOCK)
    tl.store(y_ptr + r, tl.load(x_ptr + r) * two())
"""

HELPER_WIDTH = """
@triton.jit
def width():
    return 64


@triton.jit
def kernel(x_ptr, y_ptr, BLOCK: tl.constexpr):
    r = tl.arange(0, width())
    tl.store(y_ptr + r, tl.load(x_ptr + r))
"""

# (name, source, {param: type or constexpr value}, tritonc signature)
CASES = [
    ("neg_float", unary("-x"), {"x_ptr": "*fp32", "y_ptr": "*fp32", "BLOCK": 64}, "*fp32, *fp32, 64"),
    ("neg_bf16", unary("-x"), {"x_ptr": "*bf16", "y_ptr": "*bf16", "BLOCK": 64}, "*bf16, *bf16, 64"),
    ("neg_int", unary("-x"), {"x_ptr": "*i32", "y_ptr": "*i32", "BLOCK": 64}, "*i32, *i32, 64"),
    ("maximum_bf16", BINARY.replace("EXPR", "tl.maximum(x, y)"),
     {"x_ptr": "*bf16", "y_ptr": "*bf16", "z_ptr": "*bf16", "BLOCK": 64}, "*bf16, *bf16, *bf16, 64"),
    ("maximum_fp16_python_float", unary("tl.maximum(x, 0.0)"),
     {"x_ptr": "*fp16", "y_ptr": "*fp16", "BLOCK": 64}, "*fp16, *fp16, 64"),
    ("cmp_fp16_python_float", unary("x < 0.1"), {"x_ptr": "*fp16", "y_ptr": "*i1", "BLOCK": 64},
     "*fp16, *i1, 64"),
    ("cumsum_bf16", unary("tl.cumsum(x, 0)"), {"x_ptr": "*bf16", "y_ptr": "*bf16", "BLOCK": 64},
     "*bf16, *bf16, 64"),
    ("helper_returns_number", HELPER_NUMBER, {"x_ptr": "*fp16", "y_ptr": "*fp16", "BLOCK": 64},
     "*fp16, *fp16, 64"),
    ("helper_returns_number_as_size", HELPER_WIDTH, {"x_ptr": "*fp32", "y_ptr": "*fp32", "BLOCK": 64},
     "*fp32, *fp32, 64"),
    ("fdiv_ieee_rounding", BINARY.replace("EXPR", "tl.fdiv(x, y, ieee_rounding=True)"),
     {"x_ptr": "*fp32", "y_ptr": "*fp32", "z_ptr": "*fp32", "BLOCK": 64}, "*fp32, *fp32, *fp32, 64"),
    ("fdiv_fp32", BINARY.replace("EXPR", "tl.fdiv(x, y)"),
     {"x_ptr": "*fp32", "y_ptr": "*fp32", "z_ptr": "*fp32", "BLOCK": 64}, "*fp32, *fp32, *fp32, 64"),
    ("make_block_ptr", BLOCK_PTR, {"x_ptr": "*fp32", "y_ptr": "*fp32", "n": "i32", "BLOCK": 64},
     "*fp32, *fp32, i32, 64"),
]


def facts(ttir: str) -> dict:
    out = {op: len(re.findall(rf"\b{re.escape(op)}\b", ttir)) for op in OPS}
    out = {k: v for k, v in out.items() if v}
    for op in ("arith.maxnumf", "arith.cmpf"):
        types = sorted(set(re.findall(rf"{re.escape(op)}[^\n]*: (?:tensor<\d+x)?(\w+?)>?$", ttir, re.M)))
        if types:
            out[f"{op} types"] = types
    return out


def child() -> None:
    """Runs in a child Python with one wheel first on the path: prints the results."""
    sys.path.insert(0, str(HERE))
    import triton
    from triton_common import compile_ttir, describe_exception, jit_from_source, strip_locations
    results = {}
    for name, body, launch, _ in CASES:
        source = HEADER + body.lstrip("\n")
        sig = {p: (v if isinstance(v, str) else "constexpr") for p, v in launch.items()}
        constexprs = {p: v for p, v in launch.items() if not isinstance(v, str)}
        try:
            fn = jit_from_source(source, "kernel", {"triton": triton})
            ttir = strip_locations(compile_ttir(fn, sig, constexprs, {}))
            results[name] = {"accepted": True, "facts": facts(ttir)}
        except Exception as exc:  # noqa: BLE001 - every failure is a verdict
            results[name] = {"accepted": False, "error": describe_exception(exc)}
    print("RESULTS " + json.dumps({"version": triton.__version__, "results": results}))


def run_version(path: str | None) -> dict:
    env = dict(os.environ)
    if path:
        env["PYTHONPATH"] = path + os.pathsep + env.get("PYTHONPATH", "")
    r = subprocess.run([sys.executable, __file__, "--child"], env=env, capture_output=True, text=True)
    line = next((l for l in r.stdout.splitlines() if l.startswith("RESULTS ")), None)
    if line is None:
        sys.exit(f"the child for {path or 'the installed triton'} failed:\n{r.stderr[-2000:]}")
    return json.loads(line[len("RESULTS "):])


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--wheels", default="/tmp/tritonc-wheels")
    ap.add_argument("--child", action="store_true")
    opts = ap.parse_args()
    if opts.child:
        child()
        return 0
    by_version = {"3.6": run_version(None)}
    assert by_version["3.6"]["version"].startswith("3.6"), by_version["3.6"]["version"]
    for minor, release in RELEASES.items():
        target = Path(opts.wheels) / release
        if not (target / "triton").is_dir():
            subprocess.run([sys.executable, "-m", "pip", "install", "-q", "--no-deps", "--target", str(target),
                            f"triton=={release}"], check=True)
        by_version[minor] = run_version(str(target))
        assert by_version[minor]["version"] == release, by_version[minor]["version"]
    cases = []
    for name, body, _, signature in CASES:
        entry = {"name": name, "source": HEADER + body.lstrip("\n"), "signature": signature,
                 "versions": {m: by_version[m]["results"][name] for m in by_version}}
        cases.append(entry)
        print(name, {m: (v["facts"] if v["accepted"] else v["error"]["type"]) for m, v in entry["versions"].items()})
    doc = {"releases": {m: v["version"] for m, v in by_version.items()}, "target": "cuda:90", "cases": cases}
    OUT.write_text(json.dumps(doc, indent=1) + "\n")
    print(f"wrote {OUT.relative_to(REPO_ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
