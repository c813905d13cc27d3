#!/usr/bin/env python3
"""Record which Python constructs Triton 3.6 accepts inside a @triton.jit kernel.

Writes tests/fixtures/triton/subset.json: for each construct, the tiny kernel
source that exercises it and whether Triton accepts it (code generator plus
the TTIR passes, target sm_90), with the error's type and first message line when it does not.

Usage: python3 scripts/triton_subset.py
"""

from __future__ import annotations

import contextlib
import io
import json
import sys
import textwrap
import time
import warnings
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from triton_common import (  # noqa: E402
    REPO_ROOT,
    capture_stderr,
    compile_ttir,
    describe_exception,
    jit_from_source,
    mlir_error,
)

import triton  # noqa: E402

OUT = REPO_ROOT / "tests" / "fixtures" / "triton" / "subset.json"

DEFAULT_PARAMS = "x_ptr, n"
DEFAULT_SIG = {"x_ptr": "*fp32", "n": "i32"}

# (name, body, extra) where extra may set: params, signature, constexprs, prelude.
CASES: list[tuple[str, str, dict]] = [
    ("pass", "pass", {}),
    ("tuple_unpacking", "a, b = n, n + 1\ntl.store(x_ptr, (a + b).to(tl.float32))", {}),
    ("augmented_assign", "a = n\na += 1\ntl.store(x_ptr, a.to(tl.float32))", {}),
    ("local_constexpr_annotation", "B: tl.constexpr = 16\nr = tl.arange(0, B)\ntl.store(x_ptr + r, r.to(tl.float32))", {}),
    ("for_range", "acc = 0\nfor i in range(n):\n    acc += i\ntl.store(x_ptr, acc.to(tl.float32))", {}),
    ("for_tl_range", "acc = 0\nfor i in tl.range(0, n, 2, num_stages=2):\n    acc += i\ntl.store(x_ptr, acc.to(tl.float32))", {}),
    ("for_static_range", "acc = 0\nfor i in tl.static_range(4):\n    acc += i\ntl.store(x_ptr, acc + n.to(tl.float32))", {}),
    ("for_range_negative_constexpr_step", "acc = 0\nfor i in range(n, 0, -1):\n    acc += i\ntl.store(x_ptr, acc.to(tl.float32))", {}),
    ("for_over_tuple", "acc = 0\nfor v in (1, 2, 3):\n    acc += v\ntl.store(x_ptr, acc + n.to(tl.float32))", {}),
    ("for_over_list", "acc = 0\nfor v in [1, 2, 3]:\n    acc += v\ntl.store(x_ptr, acc + n.to(tl.float32))", {}),
    ("while", "i = 0\nwhile i < n:\n    i += 1\ntl.store(x_ptr, i.to(tl.float32))", {}),
    ("break", "acc = 0\nfor i in range(n):\n    if i > 3:\n        break\n    acc += i\ntl.store(x_ptr, acc.to(tl.float32))", {}),
    ("continue", "acc = 0\nfor i in range(n):\n    if i > 3:\n        continue\n    acc += i\ntl.store(x_ptr, acc.to(tl.float32))", {}),
    ("break_in_static_range", "for i in tl.static_range(4):\n    if i == 2:\n        break\n    tl.store(x_ptr + i, n.to(tl.float32))", {}),
    ("for_else", "for i in range(n):\n    pass\nelse:\n    tl.store(x_ptr, n.to(tl.float32))", {}),
    ("while_else", "i = 0\nwhile i < n:\n    i += 1\nelse:\n    tl.store(x_ptr, n.to(tl.float32))", {}),
    ("if_dynamic_scalar", "if n > 0:\n    tl.store(x_ptr, 1.0)\nelse:\n    tl.store(x_ptr, 2.0)", {}),
    ("if_block_condition", "r = tl.arange(0, 16)\nif r > 3:\n    tl.store(x_ptr, 1.0)", {}),
    ("if_var_defined_in_one_branch_then_used", "if n > 0:\n    y = 1.0\ntl.store(x_ptr, y)", {}),
    ("if_branch_type_mismatch", "if n > 0:\n    y = 1.0\nelse:\n    y = 1\ntl.store(x_ptr, y)", {}),
    ("ternary_dynamic", "y = 1.0 if n > 0 else 2.0\ntl.store(x_ptr, y)", {}),
    ("ternary_block_condition", "r = tl.arange(0, 16)\ny = 1.0 if r > 0 else 2.0\ntl.store(x_ptr, y)", {}),
    ("return_in_dynamic_if", "if n > 0:\n    return\ntl.store(x_ptr, 1.0)", {}),
    ("return_in_loop", "for i in range(n):\n    if i > 2:\n        return\ntl.store(x_ptr, 1.0)", {}),
    ("return_value_from_kernel", "return n", {}),
    ("loop_carried_type_change", "acc = 0\nfor i in range(n):\n    acc = acc + 0.5\ntl.store(x_ptr, acc)", {}),
    ("lambda", "f = lambda v: v + 1\ntl.store(x_ptr, f(n).to(tl.float32))", {}),
    ("nested_def", "def f(v):\n    return v + 1\ntl.store(x_ptr, f(n).to(tl.float32))", {}),
    ("try_except", "try:\n    y = n\nexcept Exception:\n    y = 0\ntl.store(x_ptr, y.to(tl.float32))", {}),
    ("with_user_context_manager", "with Ctx():\n    tl.store(x_ptr, 1.0)", {"prelude": "class Ctx:\n    def __enter__(self):\n        return self\n    def __exit__(self, *a):\n        return False\n"}),
    ("chained_comparison_dynamic", "c = 0 < n < 10\ntl.store(x_ptr, c.to(tl.float32))", {}),
    ("chained_comparison_constexpr", "c: tl.constexpr = 0 < 3 < 10\ntl.store(x_ptr, c + n.to(tl.float32))", {}),
    ("walrus", "if (m := n + 1) > 2:\n    tl.store(x_ptr, m.to(tl.float32))", {}),
    ("list_comprehension_over_static_range", "vals = [i * 2 for i in tl.static_range(4)]\ntl.store(x_ptr, vals[1] + n.to(tl.float32))", {}),
    ("list_comprehension_over_range_of_constexpr", "vals = [i * 2 for i in range(4)]\ntl.store(x_ptr, vals[1] + n.to(tl.float32))", {}),
    ("list_comprehension_over_tuple", "vals = [v * 2 for v in (n, n + 1)]\ntl.store(x_ptr, vals[1].to(tl.float32))", {}),
    ("generator_expression", "s = sum(v for v in (1, 2))\ntl.store(x_ptr, s + n.to(tl.float32))", {}),
    ("dict_comprehension", "d = {i: i for i in (1, 2)}\ntl.store(x_ptr, n.to(tl.float32))", {}),
    ("fstring_constexpr", "tl.static_print(f\"B={B}\")\ntl.store(x_ptr, n.to(tl.float32))",
     {"params": "x_ptr, n, B: tl.constexpr", "signature": {"x_ptr": "*fp32", "n": "i32", "B": "constexpr"}, "constexprs": {"B": 4}}),
    ("fstring_tensor", "tl.device_print(f\"n={n}\")", {}),
    ("is_none_constexpr", "if B is None:\n    tl.store(x_ptr, 1.0)",
     {"params": "x_ptr, n, B: tl.constexpr", "signature": {"x_ptr": "*fp32", "n": "i32", "B": "constexpr"}, "constexprs": {"B": None}}),
    ("is_not_on_tensor", "if n is not None:\n    tl.store(x_ptr, 1.0)", {}),
    ("assert_dynamic", "assert n > 0, \"n must be positive\"\ntl.store(x_ptr, 1.0)", {}),
    ("assert_constexpr_false", "assert B > 8, \"B too small\"\ntl.store(x_ptr, 1.0)",
     {"params": "x_ptr, n, B: tl.constexpr", "signature": {"x_ptr": "*fp32", "n": "i32", "B": "constexpr"}, "constexprs": {"B": 4}}),
    ("static_assert_false", "tl.static_assert(B > 8, \"B too small\")",
     {"params": "x_ptr, n, B: tl.constexpr", "signature": {"x_ptr": "*fp32", "n": "i32", "B": "constexpr"}, "constexprs": {"B": 4}}),
    ("global_statement", "global G\ntl.store(x_ptr, n.to(tl.float32))", {"prelude": "G = tl.constexpr(3)\n"}),
    ("constexpr_global", "tl.store(x_ptr, n.to(tl.float32) + G)", {"prelude": "G = tl.constexpr(3)\n"}),
    ("annotated_constexpr_global", "tl.store(x_ptr, n.to(tl.float32) + G)", {"prelude": "G: tl.constexpr = 3\n"}),
    ("plain_int_global", "tl.store(x_ptr, n.to(tl.float32) + G)", {"prelude": "G = 3\n"}),
    ("dtype_global", "tl.store(x_ptr, n.to(DT))", {"prelude": "DT = tl.float32\n"}),
    ("del", "y = n\ndel y\ntl.store(x_ptr, 1.0)", {}),
    ("raise", "raise ValueError(\"bad\")", {}),
    ("dict_literal", "d = {\"a\": 1}\ntl.store(x_ptr, n.to(tl.float32))", {}),
    ("set_literal", "s = {1, 2}\ntl.store(x_ptr, n.to(tl.float32))", {}),
    ("list_literal_index", "l = [n, n + 1]\ntl.store(x_ptr, l[1].to(tl.float32))", {}),
    ("tuple_index", "t = (n, n + 1)\ntl.store(x_ptr, t[1].to(tl.float32))", {}),
    ("tuple_item_assign", "t = (n, n + 1)\nt[0] = n\ntl.store(x_ptr, t[1].to(tl.float32))", {}),
    ("len_tuple", "t = (n, n)\ntl.store(x_ptr, len(t) + n.to(tl.float32))", {}),
    ("yield", "yield n", {}),
    ("star_args_call", "args = (n, n + 1)\ntl.store(x_ptr, tl.maximum(*args).to(tl.float32))", {}),
    ("kwargs_call", "kw = {\"axis\": 0}\nr = tl.arange(0, 16)\ntl.store(x_ptr, tl.sum(r, **kw).to(tl.float32))", {}),
    ("star_args_param", "tl.store(x_ptr, 1.0)", {"params": "x_ptr, *args", "signature": {"x_ptr": "*fp32"}}),
    ("keyword_only_param", "tl.store(x_ptr, n.to(tl.float32))", {"params": "x_ptr, *, n"}),
    # B is left out of the specialization: does the code generator fall back to the default?
    ("default_param_values", "tl.store(x_ptr, n.to(tl.float32) + B)",
     {"params": "x_ptr, n, B: tl.constexpr = 4", "signature": {"x_ptr": "*fp32", "n": "i32"}}),
    ("print_builtin", "print(\"n =\", n)", {}),
    ("min_max_builtins", "a = min(n, 3)\nb = max(n, 5)\ntl.store(x_ptr, (a + b).to(tl.float32))", {}),
    ("min_three_args", "a = min(n, 3, 2)\ntl.store(x_ptr, a.to(tl.float32))", {}),
    ("isinstance_constexpr", "if isinstance(B, int):\n    tl.store(x_ptr, 1.0)",
     {"params": "x_ptr, n, B: tl.constexpr", "signature": {"x_ptr": "*fp32", "n": "i32", "B": "constexpr"}, "constexprs": {"B": 4}}),
    ("int_float_builtins_constexpr", "tl.store(x_ptr, float(int(B)) + n.to(tl.float32))",
     {"params": "x_ptr, n, B: tl.constexpr", "signature": {"x_ptr": "*fp32", "n": "i32", "B": "constexpr"}, "constexprs": {"B": 4.5}}),
    ("abs_builtin", "tl.store(x_ptr, abs(n).to(tl.float32))", {}),
    ("pow_on_tensor", "tl.store(x_ptr, (n ** 2).to(tl.float32))", {}),
    ("pow_on_constexpr", "tl.store(x_ptr, n.to(tl.float32) + B ** 2)",
     {"params": "x_ptr, n, B: tl.constexpr", "signature": {"x_ptr": "*fp32", "n": "i32", "B": "constexpr"}, "constexprs": {"B": 4}}),
    ("in_operator_constexpr", "if B in (1, 4):\n    tl.store(x_ptr, 1.0)",
     {"params": "x_ptr, n, B: tl.constexpr", "signature": {"x_ptr": "*fp32", "n": "i32", "B": "constexpr"}, "constexprs": {"B": 4}}),
    ("string_constexpr_compare", "if S == \"gelu\":\n    tl.store(x_ptr, 1.0)",
     {"params": "x_ptr, n, S: tl.constexpr", "signature": {"x_ptr": "*fp32", "n": "i32", "S": "constexpr"}, "constexprs": {"S": "gelu"}}),
    ("slice_on_tensor", "r = tl.arange(0, 16)\ntl.store(x_ptr + r[2:], 1.0)", {}),
    ("none_indexing", "r = tl.arange(0, 16)\ntl.store(x_ptr + r[:, None] + r[None, :], 1.0)", {}),
    ("and_or_scalar", "c = (n > 0) and (n < 10)\ntl.store(x_ptr, c.to(tl.float32))", {}),
    ("and_or_block", "r = tl.arange(0, 16)\nc = (r > 0) and (r < 10)\ntl.store(x_ptr + r, c.to(tl.float32))", {}),
    ("not_scalar_bool", "c = not (n > 0)\ntl.store(x_ptr, c.to(tl.float32))", {}),
    ("attribute_assign", "x_ptr.foo = 1", {}),
    ("call_jit_helper", "tl.store(x_ptr, helper(n).to(tl.float32))",
     {"prelude": "@triton.jit\ndef helper(v):\n    return v * 2\n"}),
    ("call_plain_python_function", "tl.store(x_ptr, helper(n).to(tl.float32))",
     {"prelude": "def helper(v):\n    return v * 2\n"}),
    ("call_jit_helper_with_return_in_loop", "tl.store(x_ptr, helper(n).to(tl.float32))",
     {"prelude": "@triton.jit\ndef helper(v):\n    for i in range(v):\n        if i > 2:\n            return i\n    return v\n"}),
    ("jit_helper_inconsistent_returns", "tl.store(x_ptr, helper(n).to(tl.float32))",
     {"prelude": "@triton.jit\ndef helper(v):\n    if v > 0:\n        return 1.0\n    return 1\n"}),
    ("docstring", "\"\"\"A kernel docstring.\"\"\"\ntl.store(x_ptr, 1.0)", {}),
    ("bare_expression_statement", "n + 1\ntl.store(x_ptr, 1.0)", {}),
    ("ellipsis", "...", {}),
    ("match_statement", "match n:\n    case 1:\n        pass", {}),
    ("with_no_context_manager_builtin", "with tl.static_range(1):\n    tl.store(x_ptr, 1.0)", {}),
    ("walrus_in_assignment", "y = (m := n + 1)\ntl.store(x_ptr, (y + m).to(tl.float32))", {}),
    ("bitwise_not_python_bool_constexpr", "c: tl.constexpr = not True\ntl.store(x_ptr, c + n.to(tl.float32))", {}),
]

def kernel_source(body: str, extra: dict) -> str:
    params = extra.get("params", DEFAULT_PARAMS)
    return ("import triton\nimport triton.language as tl\n\n" + extra.get("prelude", "") +
            "\n\n@triton.jit\ndef kernel(" + params + "):\n" + textwrap.indent(body, "    ") + "\n")


def run_case(name: str, body: str, extra: dict) -> dict:
    src = kernel_source(body, extra)
    entry: dict = {"construct": name, "source": src.split("@triton.jit\n", 1)[1] if not extra.get("prelude")
                   else extra["prelude"] + "\n" + src.split("\n\n\n", 1)[1].lstrip("\n")}
    try:
        fn = jit_from_source(src, "kernel", {"triton": triton})
    except Exception as exc:  # a definition-time rejection (e.g. @jit on a generator)
        entry.update(accepted=False, error=describe_exception(exc))
        return entry
    sig = extra.get("signature", DEFAULT_SIG)
    out = io.StringIO()
    with warnings.catch_warnings(record=True) as caught, capture_stderr() as err:
        warnings.simplefilter("always")
        try:
            with contextlib.redirect_stdout(out):
                compile_ttir(fn, sig, extra.get("constexprs", {}), {})
            entry["accepted"] = True
        except Exception as exc:
            entry.update(accepted=False, error=describe_exception(exc))
    if not entry["accepted"] and (diagnostic := mlir_error(err.text())):
        entry["error"]["mlir_diagnostic"] = diagnostic
    if caught:
        entry["warnings"] = sorted({str(w.message).splitlines()[0] for w in caught})
    return entry


def main() -> int:
    t0 = time.perf_counter()
    results = [run_case(name, body, extra) for name, body, extra in CASES]
    doc = {"triton_version": triton.__version__, "target": "cuda:90", "cases": results}
    OUT.write_text(json.dumps(doc, indent=1) + "\n")
    accepted = sum(r["accepted"] for r in results)
    print(f"{len(results)} constructs ({accepted} accepted) in {time.perf_counter() - t0:.1f}s"
          f" -> {OUT.relative_to(REPO_ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
