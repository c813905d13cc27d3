#!/usr/bin/env python3
"""Compile every example kernel with upstream Triton 3.6 and record reference TTIR facts.

For each entry of KERNELS this writes, under tests/fixtures/triton/:

  <example>__<kernel>[__<variant>].ttir   TTIR after Triton's TTIR passes, locations stripped
  <example>__<kernel>[__<variant>].json   the specialization plus facts parsed from that TTIR

The JSON schema is described in tests/fixtures/triton/README.md. By default each
kernel is also compiled all the way to a cubin for sm_90 (Triton's bundled
ptxas) as a check that the example is valid; `--ttir-only` skips that.

Usage: python3 scripts/triton_reference.py [--ttir-only] [--only SUBSTRING]
"""

from __future__ import annotations

import argparse
import ast
import json
import sys
import time
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from triton_common import (  # noqa: E402
    REPO_ROOT,
    compile_full,
    compile_ttir,
    install_torch_stub,
    load_module,
    split_top_level,
    strip_locations,
)
from ttir_facts import extract_facts  # noqa: E402

import triton  # noqa: E402

FIXTURE_DIR = REPO_ROOT / "tests" / "fixtures" / "triton"


@dataclass(frozen=True)
class KernelSpec:
    """One specialization of one example kernel."""

    example: str  # file stem under examples/
    kernel: str  # name of the @triton.jit (or autotuned) function
    signature: str  # Triton AOT syntax, positional over all parameters
    num_warps: int = 4
    num_stages: int = 3
    variant: str = ""  # suffix distinguishing several specializations of one kernel

    @property
    def fixture_stem(self) -> str:
        stem = f"{self.example}__{self.kernel}"
        return f"{stem}__{self.variant}" if self.variant else stem


P16 = "*fp16:16"
P32 = "*fp32:16"

KERNELS: list[KernelSpec] = [
    KernelSpec("vector_add", "add_kernel", "*fp32:16, *fp32:16, *fp32:16, i32:16, 1024"),
    KernelSpec("vector_add", "add_kernel", "*fp16:16, *fp16:16, *fp16:16, i32, 2048", variant="fp16"),
    KernelSpec("softmax", "softmax_kernel", "*fp16:16, *fp16:16, i32:16, i32:16, i32, 1024"),
    KernelSpec("softmax", "softmax_kernel", "*fp32:16, *fp32:16, i32:16, i32:16, i32:16, 8192",
               num_warps=16, variant="fp32"),
    KernelSpec("rms_norm", "rms_norm_fwd_kernel",
               "*fp16:16, *fp16:16, *fp16:16, *fp32:16, i32:16, i32:16, i32:16, fp32, 4096", num_warps=8),
    KernelSpec("layer_norm", "layer_norm_fwd_kernel",
               "*fp16:16, *fp16:16, *fp16:16, *fp16:16, *fp32:16, *fp32:16, i32:16, i32:16, fp32, 8192",
               num_warps=8),
    KernelSpec("layer_norm", "layer_norm_bwd_dx_kernel",
               "*fp16:16, *fp16:16, *fp32:16, *fp32:16, *fp16:16, *fp16:16, *fp32:16, *fp32:16, "
               "i32:16, i32, i32:16, 64, 8192", num_warps=8),
    KernelSpec("layer_norm", "layer_norm_bwd_dwdb_kernel",
               "*fp32:16, *fp32:16, *fp16:16, *fp16:16, i32, i32:16, 32, 64"),
    KernelSpec("matmul", "matmul_kernel",
               "*fp16:16, *fp16:16, *fp16:16, i32:16, i32:16, i32:16, i32:16, i32:1, i32:16, i32:1, "
               "i32:16, i32:1, 128, 256, 64, 8, 'gelu'", num_warps=8, num_stages=3),
    KernelSpec("matmul", "matmul_kernel",
               "*fp16:16, *fp16:16, *fp16:16, i32, i32, i32, i32, i32:1, i32, i32:1, i32, i32:1, "
               "64, 64, 32, 8, 'leaky_relu'", num_warps=4, num_stages=5, variant="leaky_relu"),
    KernelSpec("dropout", "dropout_kernel", "*fp32:16, *fp32:16, i32:16, fp32, i32, 1024"),
    KernelSpec("cross_entropy", "cross_entropy_fwd_kernel",
               "*bf16:16, *i64:16, *fp32:16, *fp32:16, i32:16, i32:16, i32, 4096", num_warps=8),
    KernelSpec("rotary", "rope_kernel",
               "*fp16:16, *fp32:16, *fp32:16, *fp16:16, i32:16, i32:16, i32:16, i32:16, i32:16, i32, 128, 16"),
    KernelSpec("flash_attention", "attention_fwd_kernel",
               "*fp16:16, *fp16:16, *fp16:16, *fp16:16, fp32, i32:16, i32:16, i32:16, i32, i32:16, "
               "64, 128, 64, False", num_warps=8, num_stages=3),
    KernelSpec("flash_attention", "attention_fwd_kernel",
               "*fp16:16, *fp16:16, *fp16:16, *fp16:16, fp32, i32:16, i32:16, i32:16, i32, i32, "
               "64, 128, 64, True", num_warps=8, num_stages=3, variant="causal"),
    KernelSpec("cumsum", "cumsum_kernel", "*i32:16, *i64:16, i32:16, i32:16, i32, i32, 8, 512"),
    KernelSpec("cumsum", "cumsum_kernel", "*fp16:16, *fp32:16, i32, i32, i32, i32, 2, 2048", variant="fp16"),
    KernelSpec("quantize", "quantize_int8_rowwise_kernel",
               "*fp16:16, *i8:16, *fp32:16, i32:16, i32:16, i32:16, 4096"),
    KernelSpec("quantize", "dequantize_int8_rowwise_kernel",
               "*i8:16, *fp32:16, *fp16:16, i32:16, i32:16, i32, i32:16, 4, 4096"),
]


def parse_signature_entry(entry: str):
    """One AOT signature entry -> ("arg", type, hint) or ("constexpr", value, None).

    Runtime arguments are a type name with an optional `:16` (divisible by 16) or
    `:1` (equal to one, which makes the argument a constexpr 1, as Triton's AOT
    compiler does). Anything else is a Python literal: int, float, True/False or
    a quoted string.
    """
    head, _, hint = entry.partition(":")
    head = head.strip()
    if head.startswith("*") or head in _SCALAR_TYPES:
        return ("arg", head, int(hint) if hint else None)
    return ("constexpr", ast.literal_eval(entry.strip()), None)


_SCALAR_TYPES = {
    "i1", "u1", "i8", "i16", "i32", "i64", "u8", "u16", "u32", "u64",
    "fp16", "bf16", "fp32", "fp64", "fp8e4nv", "fp8e5",
}


def build_source_args(fn, signature: str):
    """Turn an AOT signature string into ASTSource's (signature, constexprs, attrs)."""
    entries = split_top_level(signature)
    names = fn.arg_names
    if len(entries) != len(names):
        raise ValueError(f"{fn.__name__}: signature has {len(entries)} entries, kernel has {len(names)} parameters")
    sig, constexprs, attrs = {}, {}, {}
    for i, (name, entry) in enumerate(zip(names, entries)):
        kind, value, hint = parse_signature_entry(entry)
        if kind == "constexpr":
            sig[name] = "constexpr"
            constexprs[name] = value
        elif hint == 1:
            sig[name] = "constexpr"
            constexprs[name] = 1
        else:
            sig[name] = value
            if hint == 16:
                attrs[(i,)] = [["tt.divisibility", 16]]
            elif hint is not None:
                raise ValueError(f"{fn.__name__}: only :16 and :1 hints exist, got {entry!r}")
    return sig, constexprs, attrs


def jit_function(obj):
    """The JITFunction under an @autotune/@heuristics wrapper."""
    while not isinstance(obj, triton.runtime.jit.JITFunction):
        obj = obj.fn
    return obj


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--ttir-only", action="store_true", help="skip the full compile to cubin")
    parser.add_argument("--only", default="", help="only kernels whose fixture name contains this")
    args = parser.parse_args()

    install_torch_stub()
    FIXTURE_DIR.mkdir(parents=True, exist_ok=True)
    modules: dict = {}
    failures = 0
    t_start = time.perf_counter()
    for spec in KERNELS:
        if args.only not in spec.fixture_stem:
            continue
        path = REPO_ROOT / "examples" / f"{spec.example}.py"
        if spec.example not in modules:
            modules[spec.example] = load_module(path, f"examples_{spec.example}")
        fn = jit_function(getattr(modules[spec.example], spec.kernel))
        sig, constexprs, attrs = build_source_args(fn, spec.signature)
        t0 = time.perf_counter()
        try:
            ttir = strip_locations(compile_ttir(fn, sig, constexprs, attrs, spec.num_warps, spec.num_stages))
            if not args.ttir_only:
                compile_full(fn, sig, constexprs, attrs, spec.num_warps, spec.num_stages)
        except Exception as exc:  # report every kernel, then fail
            failures += 1
            print(f"FAIL {spec.fixture_stem}: {type(exc).__name__}: {exc}", file=sys.stderr)
            continue
        elapsed = time.perf_counter() - t0
        facts = extract_facts(ttir)
        record = {
            "file": str(path.relative_to(REPO_ROOT)),
            "kernel": spec.kernel,
            "signature": spec.signature,
            "num_warps": spec.num_warps,
            "num_stages": spec.num_stages,
            "target": "cuda:90",
            "triton_version": triton.__version__,
            "constexprs": {k: v for k, v in constexprs.items()},
            "ttir_file": f"{spec.fixture_stem}.ttir",
            **facts,
        }
        (FIXTURE_DIR / f"{spec.fixture_stem}.ttir").write_text(ttir)
        (FIXTURE_DIR / f"{spec.fixture_stem}.json").write_text(json.dumps(record, indent=2) + "\n")
        print(f"ok   {spec.fixture_stem} ({elapsed:.2f}s)")
    print(f"total {time.perf_counter() - t_start:.1f}s, {failures} failure(s)")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
