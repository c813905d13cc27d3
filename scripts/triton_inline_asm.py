#!/usr/bin/env python3
"""Record what Triton 3.6 makes of `tl.inline_asm_elementwise` on sm_90.

Each case is a kernel in the style of the projects that use the builtin (fla's
`mov.f32` around a dot, vllm's stochastic-rounding `cvt.rs.f16x2.f32` with `pack=2`,
the docstring's two-result `pack=4` example over uint8 and float32 inputs, torchao's
side-effecting `bar.sync` with no arguments, a pointer operand, broadcast arguments,
scalar arguments, `pack` larger than the elements a thread holds). For each, Triton's
verdict, and when it compiles:

  * `ttir`: the `tt.elementwise_inline_asm` ops (result types, `pure`, `packed_element`);
  * `asm`: every inline-assembly block of the PTX (between `// begin inline asm` and
    `// end inline asm`), with register names reduced to their class (`%r12` -> `%r`,
    `%rd3` -> `%rd`), in order; the number of times each occurs is the number of
    `llvm.inline_asm` instances per thread.

Writes tests/fixtures/triton/inline_asm.json.
`crates/tritonc-codegen/tests/codegen/inline_asm.rs` compiles the same kernels and
compares the blocks (as a multiset: the order of independent blocks is the scheduler's);
`crates/tritonc-sema/tests/coverage.rs`-style acceptance is checked there too.

Usage: python3 scripts/triton_inline_asm.py
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from triton_common import REPO_ROOT, TARGET, describe_exception, jit_from_source  # noqa: E402

OUT = REPO_ROOT / "tests" / "fixtures" / "triton" / "inline_asm.json"

HEADER = "import triton\nimport triton.language as tl\n\n"

CASES = [
    # fla `safe_dot`-style identity move, one fp32 argument, pack=1.
    ("mov_f32", """
@triton.jit
def kernel(x_ptr, y_ptr, BLOCK: tl.constexpr):
    r = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + r)
    y = tl.inline_asm_elementwise(asm="mov.f32 $0, $1;", constraints="=r,r", args=[x], dtype=tl.float32,
                                  is_pure=True, pack=1)
    tl.store(y_ptr + r, y)
""", "*fp32, *fp32, 512", {"num_warps": 4}),
    # vllm mamba_ssm-style (its `cvt.rs` needs sm_100a): two fp32 and two uint32 inputs per fp16 pair.
    ("cvt_rs_f16x2_pack2", """
@triton.jit
def kernel(x_ptr, r_ptr, y_ptr, BLOCK: tl.constexpr):
    r = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + r)
    rand = tl.load(r_ptr + r)
    y = tl.inline_asm_elementwise(asm=\"\"\"{
cvt.rn.f16x2.f32 $0, $2, $1;
}\"\"\", constraints="=r,r,r,r,r", args=(x, rand), dtype=tl.float16, is_pure=True, pack=2)
    tl.store(y_ptr + r, y)
""", "*fp32, *u32, *fp16, 1024", {"num_warps": 4}),
    # Triton's docstring example: two results, uint8 inputs packed four to a register.
    ("two_results_pack4", """
@triton.jit
def kernel(a_ptr, b_ptr, c_ptr, d_ptr, BLOCK: tl.constexpr):
    r = tl.arange(0, BLOCK)
    a = tl.load(a_ptr + r)
    b = tl.load(b_ptr + r)
    (c, d) = tl.inline_asm_elementwise(
        asm=\"\"\"
        {
            .reg .b8 tmp<4>;
            mov.b32 {tmp0, tmp1, tmp2, tmp3}, $8;
            cvt.u32.u8 $0, tmp0;
            cvt.u32.u8 $1, tmp1;
            cvt.u32.u8 $2, tmp2;
            cvt.u32.u8 $3, tmp3;
        }
        cvt.rn.f32.s32 $4, $0;
        cvt.rn.f32.s32 $5, $1;
        cvt.rn.f32.s32 $6, $2;
        cvt.rn.f32.s32 $7, $3;
        max.f32 $4, $4, $9;
        max.f32 $5, $5, $10;
        max.f32 $6, $6, $11;
        max.f32 $7, $7, $12;
        \"\"\",
        constraints="=r,=r,=r,=r,=r,=r,=r,=r,r,r,r,r,r",
        args=[a, b], dtype=(tl.int32, tl.float32), is_pure=True, pack=4)
    tl.store(c_ptr + r, c)
    tl.store(d_ptr + r, d)
""", "*u8, *fp32, *i32, *fp32, 512", {"num_warps": 4}),
    # torchao `sync_threads`: no arguments, a side effect, the result unused.
    ("no_args_side_effect", """
@triton.jit
def kernel(x_ptr):
    tl.inline_asm_elementwise("bar.sync 0;", "=r", [], dtype=tl.int32, is_pure=False, pack=1)
    tl.store(x_ptr, 1)
""", "*i32", {"num_warps": 4}),
    # A pure block whose result is unused: removed, as any unused pure value.
    ("pure_unused_removed", """
@triton.jit
def kernel(x_ptr, BLOCK: tl.constexpr):
    r = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + r)
    tl.inline_asm_elementwise("mov.b32 $0, $1;", "=r,r", [x], dtype=tl.int32, is_pure=True, pack=1)
    tl.store(x_ptr + r, x + 1)
""", "*i32, 128", {"num_warps": 4}),
    # A pointer operand (`l`, 64 bits: never packed).
    ("pointer_operand", """
@triton.jit
def kernel(x_ptr, y_ptr, BLOCK: tl.constexpr):
    r = tl.arange(0, BLOCK)
    v = tl.inline_asm_elementwise("ld.global.b32 $0, [$1];", "=r,l", [x_ptr + r], dtype=tl.int32,
                                  is_pure=False, pack=1)
    tl.store(y_ptr + r, v)
""", "*i32, *i32, 256", {"num_warps": 4}),
    # Arguments broadcast to one shape; an fp16 result packed two to a register.
    ("broadcast_fp16_pack2", """
@triton.jit
def kernel(x_ptr, y_ptr, o_ptr, M: tl.constexpr, N: tl.constexpr):
    rm = tl.arange(0, M)[:, None]
    rn = tl.arange(0, N)[None, :]
    x = tl.load(x_ptr + rm)
    y = tl.load(y_ptr + rn)
    o = tl.inline_asm_elementwise("add.rn.f16x2 $0, $1, $2;", "=r,r,r", [x, y], dtype=tl.float16,
                                  is_pure=True, pack=2)
    tl.store(o_ptr + rm * N + rn, o)
""", "*fp16, *fp16, *fp16, 32, 64", {"num_warps": 4}),
    # Scalar arguments: a scalar result.
    ("scalar_args", """
@triton.jit
def kernel(x_ptr, n):
    v = tl.inline_asm_elementwise("add.s32 $0, $1, 7;", "=r,r", [n], dtype=tl.int32, is_pure=True, pack=1)
    tl.store(x_ptr, v)
""", "*i32, i32", {"num_warps": 4}),
    # `pack` larger than the one element each thread holds.
    ("pack_beyond_elements", """
@triton.jit
def kernel(x_ptr, y_ptr, BLOCK: tl.constexpr):
    r = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + r)
    y = tl.inline_asm_elementwise("mov.b32 $0, $4; mov.b32 $1, $5; mov.b32 $2, $6; mov.b32 $3, $7;",
                                  "=r,=r,=r,=r,r,r,r,r", [x], dtype=tl.int32, is_pure=True, pack=4)
    tl.store(y_ptr + r, y)
""", "*i32, *i32, 128", {"num_warps": 4}),
    # Rejected: `dtype` a tuple with no element (Triton needs at least one result).
    ("empty_dtype_tuple", """
@triton.jit
def kernel(x_ptr, BLOCK: tl.constexpr):
    r = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + r)
    tl.inline_asm_elementwise("mov.b32 $0, $1;", "=r,r", [x], dtype=(), is_pure=True, pack=1)
""", "*i32, 128", {"num_warps": 4}),
    # Rejected: a runtime `asm` string is not possible; a non-constexpr `pack`.
    ("runtime_pack", """
@triton.jit
def kernel(x_ptr, n, BLOCK: tl.constexpr):
    r = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + r)
    y = tl.inline_asm_elementwise("mov.b32 $0, $1;", "=r,r", [x], dtype=tl.int32, is_pure=True, pack=n)
    tl.store(x_ptr + r, y)
""", "*i32, i32, 128", {"num_warps": 4}),
]


def signature_of(fn, sig: str) -> tuple[dict, dict]:
    signature, constexprs = {}, {}
    for name, item in zip(fn.arg_names, [s.strip() for s in sig.split(",")]):
        if item.startswith("*") or re.fullmatch(r"(i|u|fp|bf)\d+", item):
            signature[name] = item
        else:
            signature[name] = "constexpr"
            constexprs[name] = int(item)
    return signature, constexprs


def asm_blocks(ptx: str) -> list[str]:
    blocks = re.findall(r"// begin inline asm\n(.*?)// end inline asm", ptx, re.S)
    out = []
    for b in blocks:
        text = "\n".join(line.strip() for line in b.strip().splitlines() if line.strip())
        out.append(re.sub(r"%(rd|r|rs|f|fd|p|h|hh)\d+", r"%\1", text))
    return out


def ttir_ops(ttir: str) -> list[dict]:
    ops = []
    for line in ttir.splitlines():
        if "tt.elementwise_inline_asm" not in line:
            continue
        ops.append({
            "pure": "pure = true" in line,
            "packed_element": int(re.search(r"packed_element = (\d+)", line).group(1)),
            "results": line.split("->")[-1].strip().split(" loc(")[0],
        })
    return ops


def main() -> int:
    import triton
    from triton.compiler import ASTSource

    from triton_common import strip_locations

    cases = []
    for name, body, sig, options in CASES:
        source = HEADER + body.lstrip("\n")
        entry = {"name": name, "source": source, "signature": sig, "options": options}
        fn = jit_from_source(source, "kernel", {"triton": triton})
        signature, constexprs = signature_of(fn, sig)
        try:
            k = triton.compile(ASTSource(fn, signature, constexprs), target=TARGET, options=options)
            entry.update(accepted=True, ttir=ttir_ops(strip_locations(k.asm["ttir"])),
                         asm=asm_blocks(k.asm["ptx"]))
        except Exception as exc:  # noqa: BLE001 - Triton's verdict is the point
            entry.update(accepted=False, error=describe_exception(exc))
        print(name, "accepted" if entry["accepted"] else entry["error"], len(entry.get("asm", [])))
        cases.append(entry)
    doc = {"triton_version": triton.__version__, "target": "cuda:90", "cases": cases}
    OUT.write_text(json.dumps(doc, indent=1) + "\n")
    print(f"wrote {OUT.relative_to(REPO_ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
