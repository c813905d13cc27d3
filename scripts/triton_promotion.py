#!/usr/bin/env python3
"""Record Triton 3.6's result dtypes (or errors) for operators over every dtype.

Writes tests/fixtures/triton/promotion.json (schema in the README next to it).
Each table cell comes from compiling a generated kernel through Triton's code
generator for sm_90 and reading the result's dtype with `tl.static_print`; an
exception is recorded as its type and the first line of its message.

Many expressions go into one kernel; when Triton rejects one of them, that
expression is identified by the error's source line, recorded, removed, and
the kernel is compiled again, so one error never hides the others.

Usage: python3 scripts/triton_promotion.py [--jobs N]
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import multiprocessing
import re
import sys
import time
import warnings
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from triton_common import (  # noqa: E402
    REPO_ROOT,
    capture_stderr,
    compile_front_end,
    describe_exception,
    jit_from_source,
    mlir_error,
)

import triton  # noqa: E402
from triton.compiler.errors import CompilationError  # noqa: E402

OUT = REPO_ROOT / "tests" / "fixtures" / "triton" / "promotion.json"

# Signature names (the keys used throughout the JSON).
DTYPES = ["i1", "i8", "i16", "i32", "i64", "u8", "u16", "u32", "u64",
          "fp16", "bf16", "fp32", "fp64", "fp8e4nv", "fp8e5"]
INT_LITERAL = 3
FLOAT_LITERAL = 2.5

BINARY_OPS = ["+", "-", "*", "/", "//", "%", "&", "|", "^", "<<", ">>", "<", "<=", "==", "!=", ">", ">="]
# Functions that follow binary promotion; `m` is a block i1 mask defined in every kernel.
BINARY_FUNCS = {
    "maximum": "tl.maximum({a}, {b})",
    "minimum": "tl.minimum({a}, {b})",
    "where": "tl.where(m, {a}, {b})",
}
BINARY = {**{op: "{a} " + op + " {b}" for op in BINARY_OPS}, **BINARY_FUNCS}

UNARY = {"-x": "-{a}", "+x": "+{a}", "~x": "~{a}", "not x": "not {a}"}

REDUCTIONS = {
    "sum": "tl.sum({a}, axis=0)",
    "max": "tl.max({a}, axis=0)",
    "min": "tl.min({a}, axis=0)",
    "argmax": "tl.argmax({a}, axis=0)",
    "argmin": "tl.argmin({a}, axis=0)",
    "xor_sum": "tl.xor_sum({a}, axis=0)",
    "cumsum": "tl.cumsum({a}, axis=0)",
    "cumprod": "tl.cumprod({a}, axis=0)",
}

MATH = {name: f"tl.{name}({{a}})" for name in
        ["exp", "exp2", "log", "log2", "sqrt", "sqrt_rn", "rsqrt", "sin", "cos", "erf",
         "floor", "ceil", "abs", "sigmoid"]}
MATH["fma"] = "tl.fma({a}, {a}, {a})"
MATH["clamp"] = "tl.clamp({a}, {a}, {a})"
MATH["fdiv"] = "tl.fdiv({a}, {a})"
MATH["div_rn"] = "tl.div_rn({a}, {a})"
MATH["umulhi"] = "tl.umulhi({a}, {a})"

# Literal values checked against each dtype for range errors (tensor OP literal).
RANGE_LITERALS = [-1, 127, 128, 255, 256, 300, -129, 32767, 32768, 65535, 65536,
                  2**31 - 1, 2**31, -2**31 - 1, 2**32, 2**63 - 1, 2**63, 2**64 - 1, 2**64,
                  65504.0, 70000.0, 1e39, -0.0]
RANGE_OPS = ["+", "<"]

# Operand forms for binary cells: how `a` and `b` are produced.
# `tensor` is a 16-element block, `scalar` a 0-d tensor loaded from a scalar pointer.
BINARY_KINDS = {
    "tensor_tensor": ("tensor", "tensor"),
    "scalar_tensor": ("scalar", "tensor"),
    "tensor_int": ("tensor", "int"),
    "int_tensor": ("int", "tensor"),
    "tensor_float": ("tensor", "float"),
    "float_tensor": ("float", "tensor"),
}


def operand_setup(role: str, kind: str, lines: list[str]) -> str:
    """Emit the statement producing an operand; return the expression naming it."""
    ptr = "pa" if role == "a" else "pb"
    if kind == "tensor":
        lines.append(f"    {role} = tl.load({ptr} + offs)")
        return role
    if kind == "scalar":
        lines.append(f"    {role} = tl.load({ptr})")
        return role
    if kind == "int":
        return str(INT_LITERAL)
    if kind == "float":
        return repr(FLOAT_LITERAL)
    if kind.startswith("literal:"):
        return kind.split(":", 1)[1]
    raise ValueError(kind)


def build_kernel(a_kind: str, b_kind: str, exprs: list[tuple[str, str]]) -> tuple[str, dict]:
    """Kernel source computing each expression and printing its dtype; return it and line->key."""
    lines = ["import triton", "import triton.language as tl", "", "", "@triton.jit",
             "def case_kernel(pa, pb):",
             "    offs = tl.arange(0, 16)",
             "    m = offs < 8"]
    a = operand_setup("a", a_kind, lines)
    b = operand_setup("b", b_kind, lines) if b_kind != "none" else ""
    line_of = {}
    for idx, (key, template) in enumerate(exprs):
        expr = template.format(a=a, b=b)
        lines.append(f"    r{idx} = {expr}")
        line_of[len(lines)] = key  # 1-based line number within the source
        lines.append(f'    tl.static_print("@@", {idx}, r{idx}.dtype)')
    return "\n".join(lines) + "\n", line_of


def run_case(a_kind: str, b_kind: str, a_dtype: str, b_dtype: str | None, exprs: dict) -> dict:
    """Result dtype or error (plus any warnings) for every expression over one operand pairing."""
    remaining = list(exprs.items())
    results: dict = {}
    while remaining:
        src, line_of = build_kernel(a_kind, b_kind, remaining)
        fn = jit_from_source(src, "case_kernel")
        sig = {"pa": f"*{a_dtype}", "pb": f"*{b_dtype or a_dtype}"}
        out = io.StringIO()
        with warnings.catch_warnings(record=True) as caught, capture_stderr() as err:
            warnings.simplefilter("always")
            try:
                with contextlib.redirect_stdout(out):
                    compile_front_end(fn, sig)
                exc = None
            except Exception as e:  # an unsupported combination: find which expression
                exc = e
        if exc is not None:
            key = _failing_key(exc, fn, line_of)
            if key is None:
                if len(remaining) == 1:
                    key = remaining[0][0]
                else:
                    # Cannot attribute the error: compile each expression on its own.
                    for k, t in remaining:
                        results.update(run_case(a_kind, b_kind, a_dtype, b_dtype, {k: t}))
                    return {k: results[k] for k in exprs}
            error = describe_exception(exc)
            diagnostic = mlir_error(err.text())
            if diagnostic:
                error["mlir_diagnostic"] = diagnostic
            results[key] = {"error": error}
            remaining = [(k, t) for k, t in remaining if k != key]
            continue
        if caught and len(remaining) > 1:
            # Warnings cannot be attributed within one kernel: one expression per kernel.
            for k, t in remaining:
                results.update(run_case(a_kind, b_kind, a_dtype, b_dtype, {k: t}))
            return {k: results[k] for k in exprs}
        for m in re.finditer(r"^@@ (\d+) (\S+)$", out.getvalue(), re.M):
            results[remaining[int(m.group(1))][0]] = {"dtype": m.group(2)}
        for k, _ in remaining:
            results.setdefault(k, {"error": {"type": "NoResult", "message": "no dtype printed"}})
            if caught:
                results[k]["warnings"] = sorted({str(w.message).splitlines()[0] for w in caught})
        remaining = []
    return {k: results[k] for k in exprs}


def _failing_key(exc: BaseException, fn, line_of: dict):
    if not isinstance(exc, CompilationError) or not hasattr(exc.node, "lineno"):
        return None
    # Node line numbers are relative to the function source, which starts at the decorator.
    return line_of.get(exc.node.lineno + fn.starting_line_number - 1)


def task_list() -> list[tuple]:
    tasks = []
    for kind, (ak, bk) in BINARY_KINDS.items():
        for da in DTYPES:
            if "tensor" in (ak, bk) and ak in ("tensor", "scalar") and bk in ("tensor", "scalar"):
                for db in DTYPES:
                    tasks.append(("binary", kind, ak, bk, da, db, BINARY))
            else:
                # One dtype: the tensor side; the other operand is a Python literal.
                tasks.append(("binary", kind, ak, bk, da, None, BINARY))
    for da in DTYPES:
        tasks.append(("unary", "tensor", "tensor", "none", da, None, UNARY))
        tasks.append(("unary", "scalar", "scalar", "none", da, None, UNARY))
        tasks.append(("reductions", None, "tensor", "none", da, None, REDUCTIONS))
        tasks.append(("math", None, "tensor", "none", da, None, MATH))
        for lit in RANGE_LITERALS:
            exprs = {op: "{a} " + op + " {b}" for op in RANGE_OPS}
            tasks.append(("literal_range", repr(lit), "tensor", f"literal:{lit!r}", da, None, exprs))
    return tasks


def run_task(task: tuple):
    section, kind, ak, bk, da, db, exprs = task
    return task[:-1], run_case(ak, bk, da, db, exprs)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--jobs", type=int, default=2)
    args = parser.parse_args()
    t0 = time.perf_counter()
    tasks = task_list()
    if args.jobs > 1:
        with multiprocessing.get_context("fork").Pool(args.jobs) as pool:
            outcomes = pool.map(run_task, tasks, chunksize=4)
    else:
        outcomes = [run_task(t) for t in tasks]

    table: dict = {
        "triton_version": triton.__version__,
        "target": "cuda:90",
        "int_literal": INT_LITERAL,
        "float_literal": FLOAT_LITERAL,
        "dtypes": DTYPES,
        "binary_ops": list(BINARY),
        "binary_exprs": BINARY,
        "unary_exprs": UNARY,
        "reduction_exprs": REDUCTIONS,
        "math_exprs": MATH,
        "binary": {kind: {} for kind in BINARY_KINDS},
        "unary": {"tensor": {}, "scalar": {}},
        "reductions": {},
        "math": {},
        "literal_range": [],
    }
    for (section, kind, ak, bk, da, db), results in outcomes:
        if section == "binary":
            if db is None:
                table["binary"][kind][da] = results
            else:
                table["binary"][kind].setdefault(da, {})[db] = results
        elif section == "unary":
            table["unary"][kind][da] = results
        elif section in ("reductions", "math"):
            table[section][da] = results
        else:
            for op, res in results.items():
                table["literal_range"].append({"tensor_dtype": da, "literal": eval(kind), "op": op, "result": res})
    OUT.write_text(json.dumps(table, indent=1) + "\n")
    print(f"{len(tasks)} cases in {time.perf_counter() - t0:.1f}s -> {OUT.relative_to(REPO_ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
