#!/usr/bin/env python3
"""PTX report: tritonc's PTX beside upstream Triton 3.6's for every memory-bound example.

For each case, the same source, specialization (signature, `num_warps`) and target (sm_90)
is compiled twice, on this machine, without a GPU:

- tritonc: `tritonc compile FILE --kernel K --signature SIG --num-warps N --target sm_90
  -o DIR` (a bundle: kernel.ptx, kernel.cubin assembled by tritonc's ptxas, bundle.json);
- Triton: `triton.compile(ASTSource(fn, signature, constexprs, attrs),
  target=GPUTarget("cuda", 90, 32), options={"num_warps": N})` in this process (PTX, and
  the cubin Triton assembles with the ptxas of its own wheel).

Both PTX files are then assembled by one ptxas (`--ptxas`, CUDA 13.5 by default) with
`-v` for registers, spills and shared memory, both PTX files are counted (global
loads/stores by vector width, shared-memory traffic, barriers, shuffles, key math,
instruction totals), and both cubins as they would be launched (tritonc's bundle cubin,
Triton's own cubin) are disassembled with cuobjdump for SASS counts.

The cases are the GPU benchmark's (bench/cases.py: the signature and `num_warps` Triton's
captured launch uses), plus the remaining memory-bound examples with the specialization
recorded in tests/fixtures/triton/*.json. Each case's reading (a hand-written paragraph
kept below in READINGS) lists the counts it was written for; when a recompile changes
one of them, the report says so under the paragraph instead of silently keeping stale
prose.

    python3 scripts/ptx_report.py --tritonc target/release/tritonc --out docs/backend-report.md
"""

from __future__ import annotations

import argparse
import collections
import datetime
import json
import os
import re
import shlex
import shutil
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "bench"))
sys.path.insert(0, str(ROOT / "scripts"))

import cases as bench_cases  # noqa: E402

# Memory-bound examples that bench/cases.py does not time: the fixture stem under
# tests/fixtures/triton/ whose recorded specialization (Triton 3.6's) is used.
FIXTURE_CASES = [
    ("quantize__quantize_int8_rowwise_kernel", "int8 quantize (row-wise)"),
    ("quantize__dequantize_int8_rowwise_kernel", "int8 dequantize (row-wise)"),
    ("layer_norm__layer_norm_bwd_dx_kernel", "LayerNorm bwd dx"),
    ("layer_norm__layer_norm_bwd_dwdb_kernel", "LayerNorm bwd dw/db"),
    ("cumsum__cumsum_kernel", "cumsum i32 → i64"),
    ("cumsum__cumsum_kernel__fp16", "cumsum fp16 → fp32"),
]

# Points of the memory-bound sweep (bench/mem/) that lost to Triton or differed from it:
# (name, title, kernel of bench/mem/kernels.py, signature, num_warps).
SWEEP_CASES = [
    ("sweep_layernorm_fp16_8192_w16", "sweep: LayerNorm forward, fp16 4096×8192, 16 warps", "sweep_layernorm",
     "*fp16:16, *fp16:16, *fp16:16, *fp16:16, i32:16, 8192", 16),
    ("sweep_softmax_fp16_8192_w16", "sweep: softmax, fp16 4096×8192, 16 warps", "sweep_softmax",
     "*fp16:16, *fp16:16, i32:16, 8192", 16),
    ("sweep_rmsnorm_fp16_8192_w16", "sweep: RMSNorm, fp16 4096×8192, 16 warps", "sweep_rmsnorm",
     "*fp16:16, *fp16:16, *fp16:16, i32:16, 8192", 16),
    ("sweep_jsd_bf16_32768_w16", "sweep: JSD-style loss, bf16 rows of 32768, 16 warps", "sweep_jsd",
     "*bf16:16, *bf16:16, *fp32:16, *bf16:16, i32:16, 32768", 16),
    ("sweep_scan_fp32_16384_w8", "sweep: row scan, fp32 4096×16384, 8 warps", "sweep_scan",
     "*fp32:16, *fp32:16, i32:16, 16384", 8),
    ("sweep_colsum_fp16_4096_w16", "sweep: column sums, fp16 [4096, 4096], 16 warps", "sweep_colsum",
     "*fp16:16, *fp32:16, i32:16, i32:16, 256, 32, 64", 16),
]


@dataclass
class Case:
    """One specialization of one example kernel, compiled by both compilers."""

    name: str  # the last (largest) bench case of this specialization, or the fixture stem
    title: str
    file: str
    kernel: str
    signature: str
    num_warps: int
    num_stages: int
    origin: str  # where the specialization comes from
    aliases: list  # every case name with this specialization (READINGS may use any)


def collect_cases() -> list[Case]:
    """bench/cases.py's cases (one per distinct specialization), then the fixture ones."""
    groups: dict = {}
    for c in bench_cases.CASES:
        groups.setdefault((c.file, c.kernel, c.signature, c.num_warps), []).append(c)
    out = []
    for (file, kernel, signature, num_warps), cs in groups.items():
        dtype = signature.split(":")[0].split(",")[0].lstrip("*")
        names = [c.name for c in cs]
        sizes = ", ".join(c.size for c in cs)
        out.append(Case(names[-1], f"{cs[0].family}, {dtype} ({sizes})", file, kernel, signature, num_warps, 3,
                        "bench/cases.py " + ", ".join(f"`{n}`" for n in names), names))
    for stem, title in FIXTURE_CASES:
        spec = json.loads((ROOT / "tests" / "fixtures" / "triton" / f"{stem}.json").read_text())
        name = stem.replace("__", ".")
        out.append(Case(name, title, spec["file"], spec["kernel"], spec["signature"], spec["num_warps"],
                        spec.get("num_stages", 3), f"tests/fixtures/triton/{stem}.json", [name]))
    for name, title, kernel, signature, num_warps in SWEEP_CASES:
        out.append(Case(name, title, "bench/mem/kernels.py", kernel, signature, num_warps, 3,
                        "the memory-bound sweep, bench/mem/prepare.py", [name]))
    return out


# ---------------------------------------------------------------------------------------
# PTX counting

_PRED = re.compile(r"^@!?%\w+\s+")
_BITS = {"8": 8, "16": 16, "32": 32, "64": 64, "128": 128}


def ptx_body(ptx: str) -> list[str]:
    """The instruction statements of the (single) entry function, comments and debug info removed."""
    start = ptx.index(".entry")
    brace = ptx.index("{", ptx.index(")", start))
    depth, end = 0, brace
    for i in range(brace, len(ptx)):
        if ptx[i] == "{":
            depth += 1
        elif ptx[i] == "}":
            depth -= 1
            if depth == 0:
                end = i
                break
    stmts = []
    for line in ptx[brace + 1:end].splitlines():
        line = line.split("//")[0].strip()
        if not line or line.startswith(".") or line.endswith(":") or line in ("{", "}"):
            continue
        for part in line.split(";"):
            part = part.strip()
            if part and not part.startswith("."):
                stmts.append(part)
    return stmts


def split_access(op: str) -> tuple[str, str]:
    """`ld.global.L1::evict_last.v4.b32` -> ("v4.b32", ".L1::evict_last"): vector.type and other qualifiers."""
    parts = op.split(".")[2:]  # after ld/st and the state space
    vec = next((p for p in parts if re.fullmatch(r"v\d", p)), "v1")
    ty = parts[-1] if parts else "?"
    quals = [p for p in parts[:-1] if p != vec]
    return f"{vec}.{ty}", "".join("." + q for q in quals)


def access_bits(key: str) -> int:
    """Bits one access of kind `v4.b32` moves (128)."""
    vec, ty = key.split(".", 1)
    return int(vec[1:]) * _BITS.get(re.sub(r"\D", "", ty), 0)


MATH = [
    ("ex2.approx", lambda op: op.startswith("ex2.approx")),
    ("lg2.approx", lambda op: op.startswith("lg2.approx")),
    ("div.full", lambda op: op.startswith("div.full")),
    ("div.rn", lambda op: op.startswith("div.rn") and op.endswith("f32")),
    ("div.approx", lambda op: op.startswith("div.approx")),
    ("rcp", lambda op: op.startswith("rcp.")),
    ("sqrt", lambda op: op.startswith("sqrt.")),
    ("rsqrt", lambda op: op.startswith("rsqrt.")),
    ("fma.f32", lambda op: op.startswith("fma.") and op.endswith("f32")),
    ("mul.hi", lambda op: op.startswith("mul.hi.")),
    ("mul.lo", lambda op: op.startswith("mul.lo.")),
    ("mul/mad.wide", lambda op: op.startswith(("mul.wide.", "mad.wide."))),
    ("selp", lambda op: op.startswith("selp.")),
    ("cvt", lambda op: op.startswith("cvt.")),
]

_INT64_OPS = ("add.", "sub.", "mul.lo.", "mad.lo.", "shl.", "shr.", "and.", "or.", "xor.", "neg.", "min.", "max.")


@dataclass
class PtxCounts:
    """What one PTX entry function contains."""

    total: int
    gload: collections.Counter  # (key, quals, predicated) -> count
    gstore: collections.Counter
    sload: collections.Counter
    sstore: collections.Counter
    atomics: collections.Counter
    barriers: int
    shfl: int
    math: dict
    int64: int  # 64-bit integer arithmetic (address math), mul/mad.wide excluded
    ptx_version: str
    ptx_target: str
    maxntid: str


def count_ptx(ptx: str) -> PtxCounts:
    stmts = ptx_body(ptx)
    gload, gstore, sload, sstore, atomics = (collections.Counter() for _ in range(5))
    math = {name: 0 for name, _ in MATH}
    barriers = shfl = int64 = 0
    for s in stmts:
        pred = bool(_PRED.match(s))
        s = _PRED.sub("", s)
        op = s.split()[0]
        if op.startswith(("ld.global", "st.global", "ld.shared", "st.shared")):
            key, quals = split_access(op)
            target = {"ld.global": gload, "st.global": gstore, "ld.shared": sload, "st.shared": sstore}[op[:9]]
            target[(key, quals, pred)] += 1
        elif op.startswith(("atom.", "red.")):
            atomics[op] += 1
        elif op.startswith(("bar.sync", "barrier.sync", "bar.arrive", "barrier.cta")):
            barriers += 1
        elif op.startswith("shfl."):
            shfl += 1
        elif op.startswith(_INT64_OPS) and op.endswith(("s64", "u64", "b64")):
            int64 += 1
        for name, test in MATH:
            if test(op):
                math[name] += 1
    version = re.search(r"^\.version\s+(\S+)", ptx, re.M)
    target = re.search(r"^\.target\s+(\S+)", ptx, re.M)
    ntid = re.search(r"^\.(maxntid|reqntid)\s+([^\n{]+)", ptx, re.M)
    return PtxCounts(
        total=len(stmts), gload=gload, gstore=gstore, sload=sload, sstore=sstore, atomics=atomics,
        barriers=barriers, shfl=shfl, math=math, int64=int64,
        ptx_version=version.group(1) if version else "?", ptx_target=target.group(1) if target else "?",
        maxntid=f".{ntid.group(1)} {ntid.group(2).strip()}" if ntid else "none",
    )


def fmt_access(counter: collections.Counter) -> str:
    """`4× v4.b32 (pred)` items, widest first, and the bytes each thread moves."""
    if not counter:
        return "—"
    items = sorted(counter.items(), key=lambda kv: (-access_bits(kv[0][0]), kv[0]))
    parts = []
    for (key, quals, pred), n in items:
        parts.append(f"{n}× {key}{quals}{' (pred)' if pred else ''}")
    nbytes = sum(access_bits(k[0]) // 8 * n for k, n in counter.items())
    return ", ".join(parts) + f" = {nbytes} B"


def fmt_math(m: dict) -> str:
    items = [f"{name} {n}" for name, n in m.items() if n]
    return ", ".join(items) if items else "—"


# ---------------------------------------------------------------------------------------
# ptxas -v and SASS


@dataclass
class PtxasInfo:
    """ptxas -v for one entry function."""

    registers: int
    stack: int
    spill_stores: int
    spill_loads: int
    smem: int
    barriers: int


def run_ptxas(ptxas: str, ptx_path: Path, arch: str) -> PtxasInfo:
    cubin = ptx_path.with_suffix(f".{arch}.cubin")
    p = subprocess.run([ptxas, f"-arch={arch}", "-v", str(ptx_path), "-o", str(cubin)], capture_output=True, text=True)
    log = p.stdout + p.stderr
    if p.returncode != 0:
        raise RuntimeError(f"ptxas failed on {ptx_path}:\n{log}")

    def grab(pattern, default=0):
        m = re.search(pattern, log)
        return int(m.group(1)) if m else default

    return PtxasInfo(
        registers=grab(r"Used (\d+) registers"),
        stack=grab(r"(\d+) bytes stack frame"),
        spill_stores=grab(r"(\d+) bytes spill stores"),
        spill_loads=grab(r"(\d+) bytes spill loads"),
        smem=grab(r"(\d+) bytes smem"),
        barriers=grab(r"used (\d+) barriers"),
    )


_SASS = re.compile(r"/\*[0-9a-f]{4}\*/\s+(?:@!?U?P\w+\s+)?([A-Z][A-Z0-9_.]*)")


@dataclass
class SassInfo:
    """What one cubin (as it would be launched) holds."""

    registers: int
    total: int
    ops: collections.Counter


def sass_info(cuobjdump: str, cubin: Path) -> SassInfo:
    res = subprocess.run([cuobjdump, "-res-usage", str(cubin)], capture_output=True, text=True, check=True).stdout
    regs = re.search(r"REG:(\d+)", res)
    sass = subprocess.run([cuobjdump, "-sass", str(cubin)], capture_output=True, text=True, check=True).stdout
    ops = collections.Counter(m.group(1) for m in _SASS.finditer(sass))
    ops.pop("NOP", None)
    return SassInfo(int(regs.group(1)) if regs else -1, sum(ops.values()), ops)


# sm_90 limits for the theoretical occupancy (CUDA occupancy calculator's rules).
SM90_REGS, SM90_REG_UNIT, SM90_MAX_WARPS, SM90_MAX_BLOCKS = 65536, 256, 64, 32
SM90_SMEM, SM90_SMEM_RESERVED, SM90_SMEM_UNIT = 233472, 1024, 128


def occupancy(registers: int, smem_bytes: int, num_warps: int) -> tuple[int, int]:
    """(resident CTAs per SM, resident warps per SM) on sm_90 from registers and shared memory."""
    per_warp = -(-registers * 32 // SM90_REG_UNIT) * SM90_REG_UNIT
    by_regs = (SM90_REGS // per_warp) // num_warps if per_warp else SM90_MAX_BLOCKS
    smem = -(-(smem_bytes + SM90_SMEM_RESERVED) // SM90_SMEM_UNIT) * SM90_SMEM_UNIT
    by_smem = SM90_SMEM // smem
    by_warps = SM90_MAX_WARPS // num_warps
    ctas = min(by_regs, by_smem, by_warps, SM90_MAX_BLOCKS)
    return ctas, ctas * num_warps


def fmt_occupancy(r: dict, num_warps: int) -> str:
    ctas, warps = occupancy(r["sass"].registers, r["ptxas"].smem + r["dynamic_smem"], num_warps)
    return f"{ctas} CTAs, {warps}/64 warps ({100 * warps // 64}%)"


def fmt_sass_mem(ops: collections.Counter) -> str:
    keys = sorted(k for k in ops if k.split(".")[0] in ("LDG", "STG", "LDS", "STS", "BAR", "SHFL"))
    return ", ".join(f"{ops[k]}× {k}" for k in keys) or "—"


def fmt_sass_alu(ops: collections.Counter) -> str:
    groups = collections.Counter()
    for k, n in ops.items():
        head = k.split(".")[0]
        if head in ("IMAD", "IADD3", "LOP3", "SHF", "LEA", "ISETP", "FFMA", "FMUL", "FADD", "MUFU", "F2F", "I2F",
                    "HADD2", "FSEL", "SEL", "PRMT", "FSETP", "F2FP"):
            groups[head if head != "MUFU" else k] += n
    return ", ".join(f"{k} {n}" for k, n in sorted(groups.items(), key=lambda kv: (-kv[1], kv[0])))


# ---------------------------------------------------------------------------------------
# Compiling


def compile_tritonc(tritonc: str, case: Case, work: Path) -> tuple[str, Path, dict]:
    """tritonc's bundle for `case`: (PTX text, cubin path, bundle.json)."""
    out = work / "tritonc" / case.name
    shutil.rmtree(out, ignore_errors=True)  # a kept work directory must not hold an older bundle
    cmd = [tritonc, "compile", case.file, "--kernel", case.kernel, "--signature", case.signature,
           "--num-warps", str(case.num_warps), "--num-stages", str(case.num_stages), "--target", "sm_90",
           "-o", str(out)]
    p = subprocess.run(cmd, capture_output=True, text=True, cwd=ROOT)
    if p.returncode != 0:
        raise RuntimeError(f"tritonc failed ({p.returncode}) on {case.name}:\n{p.stderr}")
    (bundle,) = sorted(out.glob("*.tcb"))
    return (bundle / "kernel.ptx").read_text(), bundle / "kernel.cubin", json.loads((bundle / "bundle.json").read_text())


def compile_triton(case: Case, work: Path) -> tuple[str, Path, int]:
    """Upstream Triton's compile of `case`: (PTX text, cubin path, dynamic shared bytes)."""
    from triton_common import compile_full, install_torch_stub, load_module
    from triton_reference import build_source_args, jit_function

    install_torch_stub()
    module = load_module(ROOT / case.file)
    fn = jit_function(getattr(module, case.kernel))
    sig, constexprs, attrs = build_source_args(fn, case.signature)
    k = compile_full(fn, sig, constexprs, attrs, case.num_warps, case.num_stages)
    d = work / "triton" / case.name
    d.mkdir(parents=True, exist_ok=True)
    cubin = d / "kernel.cubin"
    cubin.write_bytes(k.asm["cubin"])
    return k.asm["ptx"], cubin, int(k.metadata.shared)


def tool_version(path: str) -> str:
    out = subprocess.run([path, "--version"], capture_output=True, text=True).stdout
    m = re.search(r"release ([\d.]+), V([\d.]+)", out)
    return f"V{m.group(2)}" if m else out.strip().splitlines()[-1]


# ---------------------------------------------------------------------------------------
# Readings: hand-written, each with the counts it was written for.

# Each entry: (facts, text). A fact is (case name, side, metric, expected); side is "tc"
# (tritonc) or "tr" (Triton). Metrics: see `metrics()`. A fact that no longer holds marks
# the reading as stale in the report. Paragraphs are separated by blank lines.
READINGS: dict[str, tuple[list, str]] = {
    "summary": (
        [
            ("rope_fp16_16384x32x128", "tc", "bar", 0), ("rope_fp16_16384x32x128", "tr", "bar", 0),
            ("rope_fp16_16384x32x128", "tc", "gload", 6), ("rope_fp16_16384x32x128", "tr", "gload", 6),
            ("rope_fp16_16384x32x128", "tc", "sload", 0), ("rope_fp32_16384x32x128", "tc", "bar", 0),
            ("dropout_fp32_2^28", "tc", "math:mul.lo", 106), ("dropout_fp32_2^28", "tr", "math:mul.lo", 106),
            ("dropout_fp32_2^28", "tc", "sass_regs", 40), ("dropout_fp32_2^28", "tr", "sass_regs", 32),
            ("layer_norm_fwd_fp16_4096x8192", "tc", "sass_total", 469), ("layer_norm_fwd_fp16_4096x8192", "tr", "sass_total", 470),
            ("layer_norm_fwd_fp16_4096x4096", "tc", "sass_total", 292), ("layer_norm_fwd_fp16_4096x4096", "tr", "sass_total", 284),
            ("rms_norm_fp16_4096x8192", "tc", "sass_regs", 32), ("rms_norm_fp16_4096x8192", "tr", "sass_regs", 32),
            ("sweep_layernorm_fp16_8192_w16", "tc", "sass_regs", 40), ("sweep_layernorm_fp16_8192_w16", "tr", "sass_regs", 40),
            ("sweep_jsd_bf16_32768_w16", "tc", "bar", 0), ("quantize_fp16_4096x8192", "tc", "sload", 1),
        ],
        """
        Global memory is not the difference: in {n_same_global} of the {n_cases} specializations both
        compilers issue the same global loads and stores (same count, width, predication), 128-bit
        wherever Triton's are, with no spills on either side except at the JSD sweep point (64 elements
        per thread: both spill, see its reading). The two kernels that ran below Triton on
        the H200 in the earlier round each had one concrete cause, confirmed then by timing hand-edited
        variants of tritonc's PTX; both are fixed, and the PTX now matches Triton's where it differed.
        Ratios below are tritonc / Triton from one run of bench/gpu_bench.py on an H200 (2026-11-30,
        bench/results-h200.json), in which every result is bitwise equal to Triton's except
        cross-entropy (1.9e-6, see its reading):

        1. **rotary (was 0.945× at fp16 16384×32×128)**: tritonc loaded the 64-element `cos`/`sin`
        rows one element per thread and moved them into the broadcast layout through shared memory
        (3 `bar.sync`), so each CTA waited for three dependent global round trips (cos, sin, then q)
        instead of one. Since commit 39d7a5a (ttgir), a small 1-D load (fewer elements than threads)
        whose value is only converted to one other layout is loaded in that layout, as Triton's
        rematerialization does: 6 × `ld.global.v4.b32`, no shared memory, no barrier, the same global
        accesses as Triton. Now **1.010×** (fp16) and **0.992×** (fp32) at 16384 tokens. At 1024 tokens
        fp32 is still **0.952×** (4096: 0.983×; fp16 1024: 1.065×); its PTX and SASS differ from
        Triton's only in address arithmetic (see rotary fp32), an open lead.

        2. **dropout (was 0.975× at fp32 2^28)**: tritonc's PTX multiplied each of the 7 derived
        Philox counters (`base | k`) by the round constant (113 `mul.lo.s32`) where Triton's has
        `base·C + k·C` (106). Since commit 8f5b23e (crates/tritonc-codegen/src/lower/affine.rs), an
        arange-derived ("register-affine") integer block multiplied by a constant is emitted as one
        multiply plus per-register constant adds: 106 `mul.lo.s32`, as Triton. Now **0.998×** (fp32)
        and **1.008×** (fp16) at 2^28. tritonc's fp32 cubin still has 40 registers against Triton's 32
        (48 against 64 warps per SM); the earlier round measured that this is not a cost (a 32-register
        variant ran slower).

        Since commit bf672df, an elementwise op is computed once per constant run of its result (axis
        analysis constancy), as Triton's lowering deduplicates: LayerNorm forward's masks take 4–11
        `setp` (were 19–35); LayerNorm forward ran at 0.994–1.028× (its SASS is now 469 against 470
        at fp16 8192 columns and 292 against 284 at 4096, after the reduction change below). fp32 rotary uses one predicate for
        its q loads and stores, as Triton.

        The memory-bound sweep (bench/mem/, docs/benchmarks.md) found two layout-level losses on kernels
        written elsewhere, both fixed here (the last four sections, before and after):

        3. **Cross-warp reductions of many partials.** Every thread read all warp partials of its
        outputs and folded them in registers: 16 live values for a 16-warp row reduction, which cost a
        CTA per SM: LayerNorm forward fp16 4096×8192 with 16 warps had 42 registers against Triton's 40
        (32 against 48 warps per SM; 0.83× on the H200), softmax 40 against 32 (48 against 64 warps;
        0.93×), RMSNorm at 16384 columns 68 against 63 (16 against 32 warps). Since that change, with
        more than four partials per thread the partials are folded as Triton does (one per lane, a
        `shfl.sync.bfly` butterfly, the result written back and read by all after a second barrier):
        the same barriers, shuffles and shared accesses as Triton, and 40 / 31 / 32 registers for those
        three (48 / 64 / 64 warps per SM, Triton's or better). The combine tree is unchanged, so results
        are what the interpreter predicts. With at most four partials (4 warps, one output) the former
        way stays: one `ld.shared.v4` after one barrier.

        4. **1-D layouts differing only in elements per thread.** A bf16 row loaded 8 per thread and an
        fp32 result stored 4 per thread got two layouts, and every value crossing between them went
        through shared memory: a JSD-style kernel over 32768 columns had seven conversions and 128 KiB
        of shared scratch (Triton: one conversion, 16 KiB at 16 warps). Now the 1-D accesses of one
        shape share the widest layout, each keeping its own vector width: that kernel has no shared
        memory and no barrier, and the int8 quantize kernels lost their 8–16 KiB row conversions too
        (dequantize now has 0 barriers against Triton's 15–31).

        Smaller findings: tritonc's 4-warp cross-warp reductions use fewer barriers and shuffles than
        Triton's (each thread reads the 4 warp partials with one `ld.shared.v4`), harmless or better;
        LayerNorm backward (dx) still has more mask
        compares than Triton and less fma contraction (see its reading), so its results are not bitwise
        Triton's; `tl.log` is `lg2.approx × ln 2` in tritonc and libdevice `__nv_logf` in
        Triton (why the cross-entropy results differ by 1.9e-6); scans now run Triton's algorithm and
        order (shuffle-up lane rounds, warp totals folded left to right): the same shuffles as Triton,
        122/92 registers against 126/80 for the i32 and fp16 cumsum fixtures (were 144/96).
        """,
    ),
    "vector_add_fp32_2^28": (
        [("vector_add_fp32_2^28", s, m, v) for s in ("tc", "tr") for m, v in
         (("gload", 4), ("gstore", 2), ("sass_total", 42), ("sass_regs", 26))],
        """
        Identical where it matters: four predicated 128-bit loads and two 128-bit stores per thread,
        26 registers, 42 SASS instructions on both sides (the ALU mix differs by one `LOP3` against an
        `IADD3` + `LEA` for the same index). The remaining differences are declarations: PTX 8.0 /
        `sm_90` / `.maxntid` against 8.7 / `sm_90a` / `.reqntid`, `.align 16` on the pointer
        parameters (Triton writes `.align 1`), and Triton's two extra scratch-pointer parameters. All
        harmless; 1.001× (2^28) and 0.986× (2^16) on the H200.
        """,
    ),
    "vector_add_fp16_2^28": (
        [("vector_add_fp16_2^28", s, m, v) for s in ("tc", "tr") for m, v in
         (("gload", 4), ("gstore", 2), ("sass_total", 42), ("sass_regs", 26))],
        """
        As for fp32: the same four 128-bit loads (eight halves each) and two 128-bit stores, packed
        `add.f16x2` work (4 `HADD2`), 26 registers and 42 SASS instructions on both sides. Parity on the
        H200 (1.000× at 2^28).
        """,
    ),
    "softmax_fp16_4096x8192": (
        [("softmax_fp16_4096x8192", "tc", "bar", 5), ("softmax_fp16_4096x8192", "tr", "bar", 5),
         ("softmax_fp16_4096x8192", "tc", "shfl", 16), ("softmax_fp16_4096x8192", "tr", "shfl", 16),
         ("softmax_fp16_4096x8192", "tc", "math:div.full", 32), ("softmax_fp16_4096x8192", "tc", "sass_regs", 46)],
        """
        Same global traffic (4 + 4 × 128-bit per thread), same math (32 `ex2.approx`, 32 `div.full`).
        The two row reductions over 8 warps now have Triton's structure: 5 butterfly shuffles per
        reduction inside the warp, one partial per warp to shared memory, a second butterfly over the
        8 partials (one per lane), the result written back and broadcast (5 barriers, 16 shuffles on
        both sides). Before, every thread read all eight partials with two `ld.shared.v4.b32` (3
        barriers, 10 shuffles, 48 registers, 515 SASS; 1.012× on the H200); now 46 against 48
        registers and 521 against 525 SASS (40 warps per SM on both sides).
        """,
    ),
    "softmax_fp32_4096x8192": (
        [("softmax_fp32_4096x8192", "tc", "bar", 5), ("softmax_fp32_4096x8192", "tr", "bar", 5),
         ("softmax_fp32_4096x8192", "tc", "sass_regs", 52), ("softmax_fp32_4096x8192", "tr", "sass_regs", 55)],
        """
        As fp16: identical 8 + 8 × 128-bit global accesses, the same reductions as Triton's (5
        barriers, 16 shuffles; 3 and 10 before, 1.001× on the H200), three registers fewer (52 against
        55; both give 32 warps per SM).
        """,
    ),
    "softmax_fp16_32x1024": (
        [("softmax_fp16_32x1024", "tc", "bar", 3), ("softmax_fp16_32x1024", "tr", "bar", 5),
         ("softmax_fp16_32x1024", "tc", "sass_total", 181), ("softmax_fp16_32x1024", "tr", "sass_total", 193)],
        """
        One 128-bit load and store per thread on both sides; the same reduction difference as the
        large softmax (3 barriers / 10 shuffles against 5 / 14). The 32-row benchmark of this
        specialization is latency-bound, and the shorter reduction shows: 181 against 193 SASS
        instructions, 1.032× on the H200.
        """,
    ),
    "rms_norm_fp16_4096x8192": (
        [("rms_norm_fp16_4096x8192", "tc", "sass_regs", 32), ("rms_norm_fp16_4096x8192", "tr", "sass_regs", 32),
         ("rms_norm_fp16_4096x8192", "tc", "bar", 2), ("rms_norm_fp16_4096x8192", "tr", "bar", 2),
         ("rms_norm_fp16_4096x8192", "tc", "sload", 2)],
        """
        Global accesses identical (4 × 128-bit loads, 2 × 128-bit stores and the scalar `rstd` store).
        One reduction over 16 warps, now with Triton's structure (2 barriers, 9 shuffles on both sides)
        and Triton's 32 registers (64 warps per SM). Before, tritonc used 1 barrier and 5 shuffles and
        every thread read the 16 partials with four `ld.shared.v4.b32` (11 more `FADD`), at 40
        registers (48 warps per SM). That did not cost here: measured in the earlier round on one H200, like rotary and dropout
        (median of 100 rounds, two runs, bitwise equal results), Triton 37.4 µs, tritonc 37.4–37.5 µs
        (0.996–1.000×), and tritonc's PTX forced to 32 registers (`.minnctapersm 4`, which adds a
        4-byte spill) 38.1–38.2 µs (0.98×). The 2026-11-30 run of bench/gpu_bench.py: 1.000×.
        """,
    ),
    "layer_norm_fwd_fp16_4096x8192": (
        [("layer_norm_fwd_fp16_4096x8192", "tc", "sass_total", 469), ("layer_norm_fwd_fp16_4096x8192", "tr", "sass_total", 470),
         ("layer_norm_fwd_fp16_4096x8192", "tc", "sass_regs", 64), ("layer_norm_fwd_fp16_4096x8192", "tr", "sass_regs", 63),
         ("layer_norm_fwd_fp16_4096x8192", "tc", "bar", 5), ("layer_norm_fwd_fp16_4096x8192", "tc", "math:div.full", 3)],
        """
        Global accesses identical (12 × 128-bit loads of x, w, b; 4 × 128-bit stores of y; the two
        scalar stores). Reductions as in softmax, now Triton's structure (5 barriers / 16 shuffles on
        both sides; 3 / 10 before). The mask
        `cols < n_cols` is now evaluated once per run of 8 contiguous columns (each thread's columns
        start at a multiple of 8 and `n_cols` is a multiple of 16), as in Triton: 5 `setp.lt.s32`
        against Triton's 4 (it was 33 before commit bf672df). The one extra compare is the first run's,
        evaluated twice: once for the loads and once more, from the `cvt.u32.u64` of its 64-bit
        column, for `tl.where`. tritonc's SASS is 469 against 470 (462 before the reduction change) with
        64 against 63 registers (60 before; 32 warps per SM on both sides either way); 1.011× on the H200
        before the reduction change. tritonc uses `sqrt.approx.f32`, Triton
        `sqrt.approx.ftz.f32` (they differ only for subnormal inputs).
        """,
    ),
    "dropout_fp32_2^28": (
        [("dropout_fp32_2^28", "tc", "sass_regs", 40), ("dropout_fp32_2^28", "tr", "sass_regs", 32),
         ("dropout_fp32_2^28", "tc", "regs", 40), ("dropout_fp32_2^28", "tr", "regs", 32),
         ("dropout_fp32_2^28", "tc", "math:mul.lo", 106), ("dropout_fp32_2^28", "tr", "math:mul.lo", 106),
         ("dropout_fp32_2^28", "tc", "math:mul.hi", 130), ("dropout_fp32_2^28", "tc", "gload", 2),
         ("dropout_fp32_2^28", "tc", "sass_total", 495), ("dropout_fp32_2^28", "tr", "sass_total", 502)],
        """
        Memory is identical: per thread two predicated 128-bit loads and two 128-bit stores, the same
        64-bit address arithmetic (one `mul.wide.s32`, four `add.s64`), no shared memory. The Philox
        code is now the same instruction for instruction in kind and count (130 `mul.hi.u32`, 106
        `mul.lo.s32`, the same 10 rounds over 8 counters, the same `cvt.rn.f32.s32` and scale to
        [0, 1), `div.full` for `1 / (1 - p)`, 8 `selp` for the drop, which tritonc writes as
        `selp.f32` and Triton as `selp.b32`); the PTX opcode counts differ only in `mov` forms and one
        `and.b32`.

        (a) **Counter multiplies: fixed.** Each thread's 8 counters are `base | k` with k = 0–3 and
        512–515, and each round multiplies them by 0xD2511F53. tritonc used to multiply all eight (113
        `mul.lo.s32`; Debian's LLVM 22.1.8 does not distribute the multiply over the disjoint `or`,
        as Triton's bundled LLVM does). Since commit 8f5b23e tritonc emits the distributed form itself
        (crates/tritonc-codegen/src/lower/affine.rs: an arange-derived integer block times a constant
        becomes one multiply plus per-register constant adds), which LLVM keeps. In the earlier round,
        tritonc's PTX with exactly this change hand-applied ran at 0.998× Triton on an H200 (809
        against 807 µs); the compiler's own output now runs at **0.998×** (fp32 2^28, bench/gpu_bench.py,
        2026-11-30; 2^20: 1.004×, 2^24: 0.997×).

        (b) **Registers: still different, not the cost.** ptxas 13.5 gives tritonc's PTX 40 registers
        and Triton's 32 (Triton's cubin, from its ptxas 12.8, also 32): 12 against 16 resident CTAs per SM. In Triton's
        SASS the round keys (`seed + i·0x9E3779B9`, `hi + i·0xBB67AE85`) live in uniform registers (16
        `UIADD3`); in tritonc's every thread computes them (`IADD3` 23 against 14, no `UIADD3`), and
        tritonc's SASS has 7 more `LOP3` while Triton's has 8 `SEL` and 9 `MOV`. In the earlier round,
        moving the 16 key additions up to the seed's load in tritonc's PTX gave 32 registers and
        uniform keys, as did moving the two `x` loads below the Philox code (ptxas's heuristics,
        sensitive to instruction order); that 32-register variant ran slower, both alone (0.966×) and
        combined with the multiply change (0.987×, against 0.998× with 40 registers), so the register
        difference is left as it is.
        """,
    ),
    "rope_fp16_16384x32x128": (
        [("rope_fp16_16384x32x128", "tc", "bar", 0), ("rope_fp16_16384x32x128", "tr", "bar", 0),
         ("rope_fp16_16384x32x128", "tc", "gload", 6), ("rope_fp16_16384x32x128", "tr", "gload", 6),
         ("rope_fp16_16384x32x128", "tc", "sload", 0), ("rope_fp16_16384x32x128", "tc", "sass_regs", 40),
         ("rope_fp16_16384x32x128", "tr", "sass_regs", 40), ("rope_fp16_16384x32x128", "tc", "sass_total", 107),
         ("rope_fp16_16384x32x128", "tr", "sass_total", 116)],
        """
        Global accesses are now the same as Triton's: each thread loads the 8 contiguous `cos` and 8
        `sin` values its columns need directly (2 + 2 unpredicated `ld.global.v4.b32`), beside the two
        predicated q loads; no shared memory, no barrier. In the SASS both issue the 6 `LDG.E.128` in
        the same order (the two q loads first, then cos and sin) and the 2 `STG.E.128` at the end; the
        16 rows of threads (heads) of a CTA read the same 256 bytes of cos/sin. The math (24 `fma.rn.f32`,
        8 `mul.f32`, 24 conversions) is the same; registers are 40 on both sides (48 warps per SM).
        The remaining PTX difference is address arithmetic: tritonc forms each 64-bit address as
        `mul.wide.s32` + `add.s64` (5 `mul.wide.s32`, 12 `add.s64`), Triton with `mad.wide.s32` (4
        `mad.wide.s32`, 1 `mul.wide.s32`, 10 `add.s64`); tritonc's SASS is shorter (107 against 116).

        Before commit 39d7a5a tritonc loaded cos and sin one element per thread (a 1-D
        `sizePerThread = [1]` layout, 128 threads for 64 elements) and converted them to the broadcast
        layout through shared memory (2 `st.shared`, 4 `ld.shared.v4`, 3 `bar.sync`); in its SASS the
        q loads waited behind the barriers, so each CTA waited for three dependent global round trips.
        In the earlier round, timed on an H200 with a CuPy launcher and bench/gpu_bench.py's method
        (median of 100 rounds, two runs, bitwise equal outputs), that bundle ran at 0.941–0.945× Triton,
        and tritonc's PTX with only the cos/sin path replaced by the direct 128-bit loads at
        0.998–1.000×. The ttgir change now loads a small 1-D tensor (fewer elements than threads)
        whose only use is one layout conversion directly in the converted-to layout, as Triton's
        rematerialization does. The compiler's own output now runs at **1.010×** at 16384 tokens
        (4096: 1.029×, 1024: 1.065×; bench/gpu_bench.py, 2026-11-30).
        """,
    ),
    "cross_entropy_bf16_4096x32768": (
        [("cross_entropy_bf16_4096x32768", "tc", "math:lg2.approx", 1), ("cross_entropy_bf16_4096x32768", "tr", "math:fma.f32", 13),
         ("cross_entropy_bf16_4096x32768", "tc", "bar", 6), ("cross_entropy_bf16_4096x32768", "tr", "bar", 6)],
        """
        Counts are static (the kernel loops over the vocabulary in chunks of 4096). The loop body's
        global loads are identical (2 × 128-bit bf16 loads per thread, then one 8-byte label load and
        one 2-byte target-logit load after the loop). Reductions as in softmax, with Triton's
        structure at 8 warps (6 barriers / 16 shuffles on both sides; 4 / 10 before). One real semantic difference: `lse = m + tl.log(s)` is
        `lg2.approx.f32` × ln 2 in tritonc (docs/numerics.md, 3 ulp) but libdevice's `__nv_logf` in
        Triton (the 12 `fma.rn.ftz.f32` of its polynomial, 1 ulp). This is why the H200 run found the
        cross-entropy results equal to Triton's only to 1.9e-6 while every other kernel was bitwise
        equal. It runs once per row, so it costs nothing (1.018×); for bitwise parity fp32 `tl.log`
        would have to call `__nv_logf` as Triton does.
        """,
    ),
    "softmax_fp16_4096x2048": (
        [("softmax_fp16_4096x2048", s, m, v) for s, m, v in
         (("tc", "bar", 3), ("tr", "bar", 5), ("tc", "sass_total", 289), ("tr", "sass_total", 301))],
        """
        As the 8192-column case at a quarter of the width: the same 128-bit loads and stores (2 + 2 per
        thread), 3 barriers / 10 shuffles against 5 / 14, 29 against 30 registers, 289 against 301 SASS.
        Harmless.
        """,
    ),
    "softmax_fp16_4096x4096": (
        [("softmax_fp16_4096x4096", s, m, v) for s, m, v in
         (("tc", "bar", 5), ("tr", "bar", 5), ("tc", "sass_regs", 31), ("tr", "sass_regs", 32))],
        """
        Same pattern as the 8192-column case (8 warps): identical 128-bit global accesses, Triton's
        reduction structure (5 barriers, 16 shuffles on both sides; 3 / 10 before), 31 against 32
        registers, 305 SASS on both sides.
        """,
    ),
    "softmax_fp32_4096x1024": (
        [("softmax_fp32_4096x1024", s, m, v) for s, m, v in
         (("tc", "bar", 3), ("tr", "bar", 5), ("tc", "sass_total", 177), ("tr", "sass_total", 189))],
        """
        Same pattern: identical 128-bit global accesses (2 + 2 per thread), 3 / 10 barriers and
        shuffles against 5 / 14, 21 against 22 registers, 177 against 189 SASS. Harmless.
        """,
    ),
    "softmax_fp32_4096x2048": (
        [("softmax_fp32_4096x2048", s, m, v) for s, m, v in
         (("tc", "bar", 3), ("tr", "bar", 5), ("tc", "sass_total", 281), ("tr", "sass_total", 295))],
        """
        Same pattern: identical 128-bit global accesses (4 + 4 per thread), 3 / 10 barriers and
        shuffles against 5 / 14, 30 against 31 registers, 281 against 295 SASS. Harmless.
        """,
    ),
    "softmax_fp32_4096x4096": (
        [("softmax_fp32_4096x4096", s, m, v) for s, m, v in
         (("tc", "sass_regs", 29), ("tr", "sass_regs", 34), ("tc", "warps", 64), ("tr", "warps", 48))],
        """
        Same pattern (identical 128-bit global accesses, 5 / 16 barriers and shuffles on both sides),
        and here the register count favours tritonc: 29 against 34, across the line between 8 and 6
        resident CTAs of 8 warps (64 against 48 warps per SM). If anything an advantage.
        """,
    ),
    "rms_norm_fp16_4096x1024": (
        [("rms_norm_fp16_4096x1024", s, m, v) for s, m, v in
         (("tc", "sass_regs", 26), ("tr", "sass_regs", 22), ("tc", "warps", 64), ("tc", "bar", 1))],
        """
        Identical global accesses (2 × 128-bit loads, 2 × 128-bit stores, the `rstd` store). With 4
        warps tritonc reads the 4 partials with one `ld.shared.v4` after 1 barrier (Triton: 2 barriers,
        7 shuffles); 26 against 22 registers, both at full occupancy; 120 against 129 SASS. Harmless.
        """,
    ),
    "rms_norm_fp16_4096x4096": (
        [("rms_norm_fp16_4096x4096", s, m, v) for s, m, v in
         (("tc", "sass_regs", 25), ("tr", "sass_regs", 23), ("tc", "warps", 64), ("tc", "sload", 2))],
        """
        As the 8192-column case: identical global accesses, the 16 warp partials folded as Triton
        does (2 barriers, 9 shuffles; it was one barrier and four `ld.shared.v4`). 25 against 23
        registers (32 before), full occupancy on both sides; 132 against 133 SASS. Harmless.
        """,
    ),
    "rms_norm_fp32_4096x1024": (
        [("rms_norm_fp32_4096x1024", s, m, v) for s, m, v in
         (("tc", "sass_regs", 32), ("tr", "sass_regs", 26), ("tc", "warps", 64))],
        """
        Identical global accesses (4 × 128-bit loads, 2 × 128-bit stores, the `rstd` store); 1 barrier
        against 2; 32 against 26 registers, both at full occupancy; 109 against 118 SASS. Harmless.
        """,
    ),
    "rms_norm_fp32_4096x4096": (
        [("rms_norm_fp32_4096x4096", s, m, v) for s, m, v in
         (("tc", "sass_regs", 32), ("tr", "sass_regs", 30), ("tc", "warps", 64))],
        """
        Identical global accesses; 1 barrier against 2; 32 against 30 registers, both at full
        occupancy; 126 against 125 SASS. Harmless.
        """,
    ),
    "rms_norm_fp32_4096x8192": (
        [("rms_norm_fp32_4096x8192", s, m, v) for s, m, v in
         (("tc", "sass_regs", 40), ("tr", "sass_regs", 32), ("tc", "warps", 48), ("tr", "warps", 64))],
        """
        As fp16 at 8192 columns: identical global accesses (8 × 128-bit loads, 4 × 128-bit stores),
        the same reduction structure as Triton (2 barriers, 9 shuffles), but still 40 against 32
        registers (48 against 64 warps per SM): the remaining difference is not the reduction here.
        The fp16 case with this register split (before the reduction change) measured at Triton's
        speed, so this is probably harmless too (not measured).
        """,
    ),
    "layer_norm_fwd_fp16_4096x1024": (
        [("layer_norm_fwd_fp16_4096x1024", s, m, v) for s, m, v in
         (("tc", "sass_total", 188), ("tr", "sass_total", 189), ("tc", "sass_regs", 32), ("tc", "bar", 3))],
        """
        As the 8192-column case: identical global accesses, the lighter reductions, and the mask
        compared once per run of 8 columns (2 `setp.lt.s32` against 1 in PTX: the first run's compare
        is repeated for `tl.where`; 9 before commit bf672df). SASS 188 against 189, same registers
        (32); 1.026× on the H200.
        """,
    ),
    "layer_norm_fwd_fp16_4096x4096": (
        [("layer_norm_fwd_fp16_4096x4096", s, m, v) for s, m, v in
         (("tc", "sass_total", 292), ("tr", "sass_total", 284), ("tc", "sass_regs", 40), ("tr", "sass_regs", 40))],
        """
        As the other LayerNorm forward cases: identical global accesses, the lighter reductions, the
        mask compared once per run of 8 columns (3 `setp.lt.s32` against 2; the first run's compare is
        repeated for `tl.where`). With 8 warps its reductions now have Triton's structure (5 barriers,
        16 shuffles), which made tritonc's SASS 292 against 284 (286 before, when every thread read the
        8 partials itself), same registers (40); 0.994× on the H200 before this change (0.982× before
        commit bf672df).
        """,
    ),
    "layer_norm_fwd_fp32_4096x1024": (
        [("layer_norm_fwd_fp32_4096x1024", s, m, v) for s, m, v in
         (("tc", "sass_total", 172), ("tr", "sass_total", 176), ("tc", "sass_regs", 32))],
        """
        Same pattern in fp32: identical global accesses, the mask compared once per run of 4 columns
        (3 `setp.lt.s32` against 2; the first run's compare is repeated for `tl.where`), SASS 172
        against 176, same registers (32); 1.028× on the H200.
        """,
    ),
    "layer_norm_fwd_fp32_4096x4096": (
        [("layer_norm_fwd_fp32_4096x4096", s, m, v) for s, m, v in
         (("tc", "sass_total", 261), ("tr", "sass_total", 263), ("tc", "sass_regs", 44), ("tr", "sass_regs", 48))],
        """
        Same pattern: identical global accesses, the mask compared once per run of 4 columns (5
        `setp.lt.s32` against 4), Triton's reduction structure (5 barriers, 16 shuffles), SASS 261
        against 263 (254 before that); tritonc needs fewer registers (44 against 48;
        both give 40 warps per SM). 1.018× on the H200.
        """,
    ),
    "layer_norm_fwd_fp32_4096x8192": (
        [("layer_norm_fwd_fp32_4096x8192", s, m, v) for s, m, v in
         (("tc", "sass_total", 426), ("tr", "sass_total", 431), ("tc", "sass_regs", 75), ("tr", "sass_regs", 70))],
        """
        Same pattern: identical global accesses (24 × 128-bit loads), the mask compared once per run of
        4 columns (9 `setp.lt.s32` against 8; 33 before commit bf672df), Triton's reduction structure
        (5 barriers, 16 shuffles), SASS 426 against 431, 75 against 70 registers (71 before; 24 warps
        per SM on both sides either way). 1.004× on the H200 before the reduction change.
        """,
    ),
    "dropout_fp16_2^28": (
        [("dropout_fp16_2^28", s, m, v) for s, m, v in
         (("tc", "math:mul.lo", 106), ("tr", "math:mul.lo", 106), ("tc", "sass_regs", 31), ("tr", "sass_regs", 32),
          ("tc", "sass_total", 511), ("tr", "sass_total", 511))],
        """
        The fp16 variant has the same Philox code as fp32 and, since commit 8f5b23e, the same 106
        `mul.lo.s32` as Triton (113 before). One 128-bit load and store per thread on both sides, 511
        SASS instructions on both, and tritonc has the lower register count (31 against 32; 64 warps
        per SM on both). 1.008× on the H200 at 2^28 (2^20: 0.987×, 2^24: 1.004×).
        """,
    ),
    "rope_fp32_16384x32x128": (
        [("rope_fp32_16384x32x128", s, m, v) for s, m, v in
         (("tc", "bar", 0), ("tr", "bar", 0), ("tc", "gload_bytes", 96), ("tr", "gload_bytes", 96),
          ("tc", "math:mul.lo", 7), ("tr", "math:mul.lo", 5), ("tc", "sass_regs", 34), ("tr", "sass_regs", 38),
          ("tc", "sass_total", 99), ("tr", "sass_total", 105))],
        """
        As fp16 since commit 39d7a5a: `cos` and `sin` are loaded directly, 4 fp32 per thread (2
        unpredicated `ld.global.v4.b32`), beside 4 predicated 128-bit q loads and 4 128-bit stores per
        thread; no shared memory, no barrier. Since commit bf672df all q loads and stores use one
        predicate (`row < n_rows`), as Triton's. In the SASS the 6 `LDG.E.128` and 4 `STG.E.128` come
        in the same order on both sides, with the same predication and the same branch around the
        stores; registers 34 against 38 (48 warps per SM on both). H200: 0.992× at 16384 tokens,
        0.983× at 4096, **0.952× at 1024** (13.6 against 14.3 µs; one run of bench/gpu_bench.py,
        2026-11-30).

        What still differs is address arithmetic only. (1) Each thread handles rows `row` and
        `row + 8` of q and out (`row | 8` in tritonc's PTX): tritonc multiplies the row stride by both
        (`mul.lo.s32` 7 against 5; SASS `IMAD` of the stride twice), Triton multiplies once and adds
        `stride << 3` (`shl` + `add.s32`; SASS `LEA`). (2) tritonc forms each 64-bit address as
        `mul.wide.s32 x, 4` + `add.s64` (7 `mul.wide.s32`, 18 `add.s64`), Triton with `mad.wide.s32`
        (6, plus 1 `mul.wide.s32` and 12 `add.s64`); in the SASS tritonc's become `IMAD.WIDE`
        (`IMAD` 21, no `LEA`) and Triton's `LEA` / `LEA.HI.X.SX32` pairs (`LEA` 14, `IMAD` 13). tritonc's SASS is shorter (99 against 105). Nothing shown here
        explains the 1024-token ratio: the kernel is the same code at every size, and at 1024 tokens
        (2048 CTAs, about 1.3 waves at 12 CTAs per SM on 132 SMs) each launch lasts about 14 µs.
        Open lead: time tritonc's PTX with Triton's address arithmetic (`LEA` form, one stride
        multiply) hand-applied, and compare ncu's issue-stall breakdown at 1024 tokens, before
        changing anything. Ruled out on the H200 since (docs/benchmarks.md): the assembler
        (tritonc's PTX assembled by Triton's ptxas 12.8 runs at the same ratio as with 13.5) and
        the thread bound (`.reqntid 128` hand-edited in for `.maxntid 128, 1, 1`: no change).
        """,
    ),
    "cross_entropy_fp32_4096x32768": (
        [("cross_entropy_fp32_4096x32768", s, m, v) for s, m, v in
         (("tc", "math:lg2.approx", 1), ("tr", "math:fma.f32", 13), ("tc", "bar", 6), ("tr", "bar", 6))],
        """
        As bf16: identical global accesses in the loop body (4 × 128-bit loads per chunk), Triton's
        reduction structure (6 barriers / 16 shuffles), shorter code (299 against 322 SASS), and
        the same `tl.log` difference (`lg2.approx` × ln 2 against libdevice `__nv_logf`), so the loss
        is not bitwise Triton's.
        """,
    ),
    "quantize.quantize_int8_rowwise_kernel": (
        [("quantize.quantize_int8_rowwise_kernel", "tc", "sstore", 1), ("quantize.quantize_int8_rowwise_kernel", "tc", "bar", 1),
         ("quantize.quantize_int8_rowwise_kernel", "tr", "bar", 2), ("quantize.quantize_int8_rowwise_kernel", "tc", "sass_total", 417)],
        """
        Global accesses identical: 4 × 128-bit fp16 loads (32 halves) and 2 × 128-bit int8 stores (32
        bytes) per thread. tritonc used to pick two layouts, 8 elements per thread for the fp16 load and
        16 for the int8 store, and convert the loaded row between them through 8 KiB of shared memory
        (3 barriers, 439 SASS). Since the 1-D accesses of one shape share the widest layout, it uses 16
        elements per thread throughout, as Triton does, and splits each thread's 32-byte fp16 run into
        two 128-bit loads: 16 B of shared memory (the reduction), 1 barrier against 2, 417 against 398
        SASS, 48 against 45 registers (40 warps per SM on both sides).
        """,
    ),
    "quantize.dequantize_int8_rowwise_kernel": (
        [("quantize.dequantize_int8_rowwise_kernel", "tc", "bar", 0), ("quantize.dequantize_int8_rowwise_kernel", "tr", "bar", 15),
         ("quantize.dequantize_int8_rowwise_kernel", "tc", "sass_total", 547)],
        """
        Global accesses identical (8 × 128-bit int8 loads, 4 scale loads, 16 × 128-bit fp16 stores per
        thread). Triton converts the int8 row to the fp16 store's layout through 4 KiB of shared memory
        (15 barriers, 16 + 16 `v4` accesses); tritonc did too (7 barriers) until the 1-D accesses of
        one shape shared the widest layout: now it stores the fp16 values in the int8 load's layout
        (two 128-bit stores per 16 elements) with no shared memory and no barrier. 547 against 648
        SASS; 40 against 34 registers (48 warps per SM on both sides).
        """,
    ),
    "matmul_fp16_2048x2048x2048": (
        [("matmul_fp16_2048x2048x2048", "tc", "math:fma.f32", 32), ("matmul_fp16_2048x2048x2048", "tc", "sass_regs", 80),
         ("matmul_fp16_2048x2048x2048", "tr", "sass_regs", 60)],
        """
        Not comparable in kind: Triton 3.6 feeds `tl.dot` to Hopper's tensor cores (operands staged in
        shared memory through asynchronous copies, which is why its PTX shows no global loads of the
        operands per thread), while tritonc's dot is still a register FMA loop (32 `fma.f32` per k-step
        per thread here, operand tiles staged through 16 KiB of shared memory). That is the whole
        0.043× on the H200 (13.7 against 320 TFLOP/s, docs/benchmarks.md). The next lever is the
        tensor-core path (`mma.sync` / `wgmma` with shared-memory operand layouts).
        """,
    ),
    "attention_fp16_4x16x1024x64": (
        [("attention_fp16_4x16x1024x64", "tc", "bar", 14), ("attention_fp16_4x16x1024x64", "tr", "bar", 5),
         ("attention_fp16_4x16x1024x64", "tc", "sass_regs", 156)],
        """
        As matmul: both `tl.dot`s are FMA loops in tritonc and tensor-core instructions in Triton
        (0.033–0.040× on the H200). tritonc also moves the `p` tile and the row statistics between
        the two dots' layouts through shared memory (14 barriers against 5, 32 KiB static). The
        tensor-core path would replace both.
        """,
    ),
    "cumsum_fp32_16384x1024": (
        [("cumsum_fp32_16384x1024", "tc", "shfl", 48), ("cumsum_fp32_16384x1024", "tr", "shfl", 48),
         ("cumsum_fp32_16384x1024", "tc", "math:selp", 84), ("cumsum_fp32_16384x1024", "tr", "math:selp", 84),
         ("cumsum_fp32_16384x1024", "tc", "sass_regs", 56), ("cumsum_fp32_16384x1024", "tr", "sass_regs", 56),
         ("cumsum_fp32_16384x1024", "tc", "sass_total", 314), ("cumsum_fp32_16384x1024", "tr", "sass_total", 343)],
        """
        Global accesses identical (8 × 128-bit loads and stores per thread). The scan is now Triton's
        algorithm and order (docs/numerics.md): 48 `shfl.sync.up` and 84 `selp` on both sides, 56
        registers on both, 314 against 343 SASS. Before, tritonc merged bit by bit with
        `shfl.sync.bfly` in its own order and selected per element which partial applied (224 `selp`
        against 84): 471 SASS and 62 registers, 0.969× on the H200 at 1024 columns, 1.016× at 256.
        """,
    ),
    "cumsum_fp32_65536x256": (
        [("cumsum_fp32_65536x256", "tc", "shfl", 48), ("cumsum_fp32_65536x256", "tr", "shfl", 48),
         ("cumsum_fp32_65536x256", "tc", "sass_regs", 56), ("cumsum_fp32_65536x256", "tr", "sass_regs", 48)],
        """
        The same scan as at 1024 columns, now in Triton's form on both sides (48 shuffles each; 314
        against 324 SASS, was 440); with 16 rows per program tritonc takes 56 registers against 48
        (36 against 40 warps per SM). 1.016× on the H200 before the change.
        """,
    ),
    "quantize_fp16_4096x8192": (
        [("quantize_fp16_4096x8192", "tc", "sload", 1), ("quantize_fp16_4096x8192", "tr", "sload", 2)],
        """
        Global accesses identical. tritonc converted the loaded row to the int8 store's layout through
        16 KiB of shared memory (8 `st.shared.v4` + 8 `ld.shared.v4` per thread, one extra barrier;
        1.028× on the H200 all the same); now, as Triton, it keeps one layout (16 elements per thread)
        for the row, the absolute maximum and the store: 16 B of shared memory, 1 barrier against 2.
        """,
    ),
    "dequantize_fp16_4096x8192": (
        [("dequantize_fp16_4096x8192", "tc", "bar", 0), ("dequantize_fp16_4096x8192", "tr", "bar", 31)],
        """
        Global accesses identical. Triton converts the int8 rows to the fp16 store's layout through
        shared memory (31 barriers, 512 B per thread); tritonc did too (7 barriers, 256 B; 1.010× on
        the H200) and now needs no conversion (the row's 1-D accesses share one layout): no shared
        memory, fewer registers (38 against 54) and SASS (1026 against 1213).
        """,
    ),
    "layer_norm_bwd_dx_fp16_4096x8192": (
        [("layer_norm_bwd_dx_fp16_4096x8192", "tc", "bar", 6), ("layer_norm_bwd_dx_fp16_4096x8192", "tr", "bar", 22)],
        """
        The benchmark's specialization of the kernel below (`n_rows` divisible by 16): the same code,
        read there. 1.066× on the H200 since the loop-result stores keep the carried layout (0.580×
        before).
        """,
    ),
    "layer_norm.layer_norm_bwd_dx_kernel": (
        [("layer_norm.layer_norm_bwd_dx_kernel", "tc", "math:fma.f32", 95), ("layer_norm.layer_norm_bwd_dx_kernel", "tr", "math:fma.f32", 158),
         ("layer_norm.layer_norm_bwd_dx_kernel", "tc", "sass_total", 753), ("layer_norm.layer_norm_bwd_dx_kernel", "tr", "sass_total", 809),
         ("layer_norm.layer_norm_bwd_dx_kernel", "tc", "sload", 4), ("layer_norm.layer_norm_bwd_dx_kernel", "tc", "bar", 6)],
        """
        Global accesses identical (loop body counted once). Both sit at about 250 registers (8 warps per
        SM) without spills. Since commit 0dd75ee the loop carries the loads' layout and the `dw`/`db`
        partial sums are stored in it: the only shared memory left is the two row sums' cross-warp
        scratch (32 B; since the cross-warp reductions of 8 warps fold their partials as Triton's do,
        4 `ld.shared` and 6 barriers against Triton's 22), and tritonc's SASS is shorter (753 against
        809; 747 before that change). Before, the f32 stores' layout reached back into the loop and every row's
        loaded data went through 32 KiB of shared memory (0.580× Triton on the H200, now 1.066×;
        docs/benchmarks.md). Still different: **less fma contraction**, 95 `fma.rn.f32` against 158.
        Triton contracts `w_dy = w * dy` into each of its users (`tl.sum(w_dy)` becomes an fma chain,
        `w_dy - (x_hat * c1 + c2)` becomes `fma(w, dy, -t)`) although `w_dy` has several uses; tritonc
        keeps that product as a separate `mul.f32` and contracts only single-use products. Both are
        allowed by Triton's default `enable_fp_fusion`. The results used to differ in the last bits
        from Triton's (2e-3 on fp16 `dx` in the benchmark): NVPTX printed the products it did not
        contract as `mul.rn.f32`, which ptxas may not contract either. Since commit c87e925 the
        target machine fuses as Triton's does (`FPOpFusion::Fast`), the leftover products are plain
        `mul.f32`, ptxas contracts them in the SASS as it does Triton's, and `dx` is bitwise
        Triton's on the H200 (docs/benchmarks.md, run 4); the PTX counts above are unchanged.
        """,
    ),
    "layer_norm.layer_norm_bwd_dwdb_kernel": (
        [("layer_norm.layer_norm_bwd_dwdb_kernel", "tc", "bar", 10), ("layer_norm.layer_norm_bwd_dwdb_kernel", "tr", "bar", 9),
         ("layer_norm.layer_norm_bwd_dwdb_kernel", "tc", "sass_total", 261)],
        """
        Global accesses identical (8 × 128-bit fp32 loads per iteration, two fp16 stores). Column sums
        over the rows, several columns per thread across 4 warps: the partials are now folded as
        Triton folds them (one per lane, a lane butterfly, written back): 10 barriers / 16 shuffles
        against 9 / 16 (8 / 8 before, when every thread read all partials of its columns). Same
        registers (56), shorter code (261 against 281 SASS; 254 before). No concern.
        """,
    ),
    "sweep_layernorm_fp16_8192_w16": (
        [("sweep_layernorm_fp16_8192_w16", s, m, v) for s, m, v in
         (("tc", "sass_regs", 40), ("tr", "sass_regs", 40), ("tc", "bar", 5), ("tr", "bar", 5), ("tc", "shfl", 18),
          ("tc", "warps", 48), ("tr", "warps", 48))],
        """
        The sweep's worst point (0.83× on the H200 in the run that prompted it). Global accesses were
        and are identical (6 × 128-bit loads of x, w, b and 2 × 128-bit stores per thread). The two
        reductions over 16 warps were not: every thread read the 16 partials with four
        `ld.shared.v4.b32` and folded them in registers (3 barriers, 10 shuffles), which took 42
        registers against Triton's 40, one step over the 3-CTA line for 512 threads: 32 against 48
        warps per SM. Now the partials are folded one per lane as Triton does (5 barriers, 18 shuffles,
        4 `ld.shared.b32` on both sides): 40 registers, 48 warps per SM and 282 SASS on both sides.
        """,
    ),
    "sweep_softmax_fp16_8192_w16": (
        [("sweep_softmax_fp16_8192_w16", s, m, v) for s, m, v in
         (("tc", "sass_regs", 31), ("tr", "sass_regs", 32), ("tc", "bar", 5), ("tc", "warps", 64), ("tr", "warps", 64))],
        """
        0.93× on the H200 before. Same cause as LayerNorm at this shape: reading all 16 partials per
        thread took 40 registers against Triton's 32 (48 against 64 warps per SM). With the partials
        folded one per lane: 31 against 32 registers, full occupancy on both sides, the same barriers
        (5), shuffles (18) and shared accesses as Triton, 305 against 308 SASS.
        """,
    ),
    "sweep_rmsnorm_fp16_8192_w16": (
        [("sweep_rmsnorm_fp16_8192_w16", s, m, v) for s, m, v in
         (("tc", "sass_regs", 32), ("tr", "sass_regs", 32), ("tc", "bar", 2), ("tc", "sass_total", 183), ("tr", "sass_total", 183))],
        """
        0.97–1.00× on the H200 before. This kernel (no `rstd` output) already had Triton's 32
        registers before the change; its one reduction read the 16 partials with four
        `ld.shared.v4.b32` after one barrier. Now identical in every count the report takes: 32
        registers, 2 barriers, 9 shuffles, 183 SASS on both sides. (At 16384 columns the old way had
        cost half the occupancy: 68 against 63 registers, 16 against 32 warps per SM; now 63.)
        """,
    ),
    "sweep_jsd_bf16_32768_w16": (
        [("sweep_jsd_bf16_32768_w16", s, m, v) for s, m, v in
         (("tc", "bar", 0), ("tr", "bar", 15), ("tc", "sload", 0), ("tc", "sass_regs", 128), ("tr", "sass_regs", 64))],
        """
        The JSD-style kernel at the real kernel's width (32768 columns, 64 per thread). The bf16 loads
        want 8 elements per thread and the fp32 loss store 4: tritonc assigned both layouts and
        converted seven 32768-element blocks between them (loaded rows, their fp32 casts, an
        intermediate, the offsets and the mask), with 128 KiB of shared scratch, 9 barriers and 32
        registers plus 3.8 KB of spills per thread. Triton gives the loads 8 per thread and converts
        only the stored loss (16 KiB here, in 15 barrier-separated chunks), at 64 registers plus 1.8 KB
        of spills. Now the 1-D accesses share the 8-wide layout (the fp32 store is two 128-bit stores
        per 8 elements): no shared memory, no barrier, the same global accesses, 128 registers and
        296 B of spills. Inside the sweep (up to 16384 columns) the JSD points where Triton spills are
        dropped; the others compare without conversions on tritonc's side.
        """,
    ),
    "sweep_scan_fp32_16384_w8": (
        [("sweep_scan_fp32_16384_w8", s, m, v) for s, m, v in
         (("tc", "shfl", 96), ("tr", "shfl", 96), ("tc", "bar", 1), ("tr", "bar", 1),
          ("tc", "sass_regs", 101), ("tr", "sass_regs", 125), ("tc", "warps", 16), ("tr", "warps", 16))],
        """
        The sweep's worst point in run 1 (0.72×, 178 against 128 µs). tritonc scanned bit by bit in its
        own order: 80 `shfl.sync.bfly`, every thread reading its warp group's block totals with 44
        `ld.shared.v4.b32`, 141 registers against Triton's 125 (8 against 16 warps per SM). Now the
        scan is Triton's algorithm and order (docs/numerics.md): 96 `shfl.sync.up` on both sides, each
        warp's last lane writing its 16 totals under a predicate, one barrier, the totals read
        repetition by repetition where they are used: 101 registers against 125, 16 warps per SM on
        both sides, 818 against 831 SASS. Results are Triton's bit for bit for the same layout. Not
        re-timed yet.
        """,
    ),
    "sweep_colsum_fp16_4096_w16": (
        [("sweep_colsum_fp16_4096_w16", s, m, v) for s, m, v in
         (("tc", "gload", 8), ("tr", "gload", 8), ("tc", "bar", 4), ("tr", "bar", 4),
          ("tc", "sass_regs", 32), ("tr", "sass_regs", 32))],
        """
        Partial column sums (256 rows per program, `[32, 64]` tiles): 0.905× in run 1. Triton does not
        software-pipeline this loop (no buffer or async copy in its TTGIR); its LLVM unrolls the 8
        iterations, and so does tritonc's here. In run 1 tritonc spelled the 8-byte loads
        `ld.global.v4.b16` (Triton `ld.global.v2.b32`) and used 5 barriers; now the loads are inline
        `ld.global.v2.b32` as Triton's and both sides have 4 barriers, 8 loads, 32 registers; SASS 195
        against 185. What remains of the loss is not in these counts. At 4 warps (fp16/bf16) Triton's
        LLVM unrolls the loop and tritonc's does not (docs/benchmarks.md, "After run 1").
        """,
    ),
    "cumsum.cumsum_kernel": (
        [("cumsum.cumsum_kernel", "tc", "sass_regs", 122), ("cumsum.cumsum_kernel", "tr", "sass_regs", 126),
         ("cumsum.cumsum_kernel", "tc", "shfl", 192), ("cumsum.cumsum_kernel", "tr", "shfl", 192),
         ("cumsum.cumsum_kernel", "tc", "bar", 3), ("cumsum.cumsum_kernel", "tr", "bar", 9)],
        """
        Global accesses identical (32 scalar i32 loads and 32 i64 stores per thread: the rows are
        strided, so neither side vectorizes). The scans are now the same algorithm: 192
        `shfl.sync.up` on both sides (tritonc had 160 `shfl.sync.bfly`), and tritonc takes 122
        registers against 126 (was 144: 12 against 16 warps per SM, now 16 on both). tritonc still
        uses 3 barriers against 9 and less SASS (1195 against 1338). Not benchmarked.
        """,
    ),
    "cumsum.cumsum_kernel.fp16": (
        [("cumsum.cumsum_kernel.fp16", "tc", "sass_regs", 92), ("cumsum.cumsum_kernel.fp16", "tr", "sass_regs", 80),
         ("cumsum.cumsum_kernel.fp16", "tc", "shfl", 192), ("cumsum.cumsum_kernel.fp16", "tr", "shfl", 192)],
        """
        Global accesses identical (unhinted strides: 32 scalar fp16 loads, 32 fp32 stores per thread).
        The in-warp scans are now the same shape (192 `shfl.sync.up` and 256 `selp` on both sides; 1026
        against 1066 SASS). tritonc needs 92 registers against 80 (was 96; 20 against 24 warps per
        SM). Not benchmarked.
        """,
    ),
}


def metrics(r: dict) -> dict:
    """The scalar facts a reading may rely on, for one side of one case."""
    c: PtxCounts = r["ptx"]
    return {
        "gload": sum(c.gload.values()),
        "gstore": sum(c.gstore.values()),
        "gload_bytes": sum(access_bits(k[0]) // 8 * n for k, n in c.gload.items()),
        "gstore_bytes": sum(access_bits(k[0]) // 8 * n for k, n in c.gstore.items()),
        "sload": sum(c.sload.values()),
        "sstore": sum(c.sstore.values()),
        "bar": c.barriers,
        "shfl": c.shfl,
        "regs": r["ptxas"].registers,
        "sass_regs": r["sass"].registers,
        "warps": r["warps"],
        "spill": r["ptxas"].spill_stores + r["ptxas"].spill_loads,
        "ptx_total": c.total,
        "sass_total": r["sass"].total,
        **{f"math:{k}": v for k, v in c.math.items()},
    }


# ---------------------------------------------------------------------------------------
# Report


def table(case: Case, tc: dict, tr: dict) -> list[str]:
    a, b = tc["ptx"], tr["ptx"]
    pa, pb = tc["ptxas"], tr["ptxas"]
    sa, sb = tc["sass"], tr["sass"]
    rows = [
        ("PTX `.version` / `.target` / thread bound", f"{a.ptx_version} / {a.ptx_target} / `{a.maxntid}`",
         f"{b.ptx_version} / {b.ptx_target} / `{b.maxntid}`"),
        ("global loads (PTX, per thread)", fmt_access(a.gload), fmt_access(b.gload)),
        ("global stores (PTX, per thread)", fmt_access(a.gstore), fmt_access(b.gstore)),
        ("shared loads", fmt_access(a.sload), fmt_access(b.sload)),
        ("shared stores", fmt_access(a.sstore), fmt_access(b.sstore)),
        ("atomics", ", ".join(f"{n}× {k}" for k, n in sorted(a.atomics.items())) or "—",
         ", ".join(f"{n}× {k}" for k, n in sorted(b.atomics.items())) or "—"),
        ("`bar.sync` / `shfl.sync`", f"{a.barriers} / {a.shfl}", f"{b.barriers} / {b.shfl}"),
        ("key math and conversions", fmt_math(a.math), fmt_math(b.math)),
        ("64-bit integer ops (add/shl/… .s64/.u64/.b64)", str(a.int64), str(b.int64)),
        ("PTX instructions (static)", str(a.total), str(b.total)),
        ("ptxas 13.5 `-v`: registers", str(pa.registers), str(pb.registers)),
        ("ptxas 13.5 `-v`: stack / spill stores / spill loads (bytes)",
         f"{pa.stack} / {pa.spill_stores} / {pa.spill_loads}", f"{pb.stack} / {pb.spill_stores} / {pb.spill_loads}"),
        ("shared memory: static (ptxas) + dynamic (launch)",
         f"{pa.smem} + {tc['dynamic_smem']} B", f"{pb.smem} + {tr['dynamic_smem']} B"),
        ("cubin as launched: assembler, registers", f"ptxas {tc['assembler']}, {sa.registers}",
         f"ptxas {tr['assembler']}, {sb.registers}"),
        ("theoretical occupancy on sm_90 (as launched)", fmt_occupancy(tc, case.num_warps),
         fmt_occupancy(tr, case.num_warps)),
        ("SASS instructions (static, NOP excluded)", str(sa.total), str(sb.total)),
        ("SASS memory / sync", fmt_sass_mem(sa.ops), fmt_sass_mem(sb.ops)),
        ("SASS ALU mix", fmt_sass_alu(sa.ops), fmt_sass_alu(sb.ops)),
    ]
    lines = ["| | tritonc | Triton 3.6 |", "|---|---|---|"]
    for label, x, y in rows:
        mark = "" if x == y else " ≠"
        lines.append(f"| {label}{mark} | {x} | {y} |")
    return lines


SUMMARY = "summary"


def reading(case: Case | None, results: list) -> list[str]:
    """The hand-written paragraph(s) for `case` (None: the summary), and a warning for every
    fact that no longer holds or names a case that is not in this report.

    A fact is (case name, side, metric, expected); side is "tc" (tritonc) or "tr" (Triton).
    """
    keys = [SUMMARY] if case is None else [a for a in case.aliases if a in READINGS]
    if not keys:
        return ["*No reading written for this case yet.*"]
    facts, text = READINGS[keys[0]]
    by_alias = {a: (metrics(tc), metrics(tr)) for c, tc, tr in results for a in c.aliases}
    stale = []
    for case_name, side, key, expected in facts:
        if case_name not in by_alias:
            stale.append(f"{case_name} is not among this report's cases")
            continue
        got = by_alias[case_name][0 if side == "tc" else 1][key]
        if got != expected:
            who = "tritonc" if side == "tc" else "Triton"
            stale.append(f"{case_name}: {who} {key} is now {got} (written for {expected})")
    counts = {"n_cases": len(results),
              "n_same_global": sum((tc["ptx"].gload, tc["ptx"].gstore) == (tr["ptx"].gload, tr["ptx"].gstore)
                                   for _, tc, tr in results)}
    text = "\n\n".join(" ".join(par.split()) for par in text.strip().split("\n\n"))
    out = [text.format(**counts) if case is None else text]
    if stale:
        out += ["", "> **The counts changed since this reading was written; re-read the PTX:** " + "; ".join(stale) + "."]
    return out


def unused_readings(results: list) -> list[str]:
    """READINGS keys that match no case of this report (e.g. after bench/cases.py changed)."""
    aliases = {a for c, _, _ in results for a in c.aliases}
    return [k for k in READINGS if k != SUMMARY and k not in aliases]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--tritonc", default=str(ROOT / "target" / "release" / "tritonc"))
    ap.add_argument("--ptxas", default=str(ROOT / ".tools" / "cuda" / "bin" / "ptxas"))
    ap.add_argument("--cuobjdump", default=None, help="default: the one in Triton's wheel")
    ap.add_argument("--out", default=str(ROOT / "docs" / "backend-report.md"))
    ap.add_argument("--keep", default=None, help="keep the PTX/cubin files in this directory")
    ap.add_argument("--only", default=None, help="only cases whose name contains this")
    ap.add_argument("--tritonc-built-from", default=None,
                    help="what the tritonc binary was built from, for the method section "
                         "(default: its modification time and `git describe --dirty`)")
    ap.add_argument("--print-metrics", action="store_true",
                    help="print each case's metrics (what READINGS' facts may name) as JSON on stdout")
    args = ap.parse_args()

    scratch = None if args.keep else tempfile.TemporaryDirectory(prefix="ptx-report-")
    work = Path(args.keep) if args.keep else Path(scratch.name)
    work.mkdir(parents=True, exist_ok=True)
    os.environ["TRITON_CACHE_DIR"] = str(work / "triton-cache")  # a fresh cache: every kernel is compiled
    import triton

    triton_bin = Path(triton.__file__).parent / "backends" / "nvidia" / "bin"
    cuobjdump = args.cuobjdump or str(triton_bin / "cuobjdump")
    ptxas_version = tool_version(args.ptxas)
    triton_ptxas_version = tool_version(str(triton_bin / "ptxas"))
    if args.tritonc_built_from:
        built_from = args.tritonc_built_from
    else:
        head = subprocess.run(["git", "describe", "--always", "--dirty", "--abbrev=7"], capture_output=True,
                              text=True, cwd=ROOT).stdout.strip()
        mtime = datetime.datetime.fromtimestamp(Path(args.tritonc).stat().st_mtime, datetime.timezone.utc)
        built_from = f"binary of {mtime:%Y-%m-%d %H:%M} UTC; repository at `{head}`"
    tritonc_version = subprocess.run([args.tritonc, "--version"], capture_output=True, text=True).stdout.strip()

    results = []
    for case in collect_cases():
        if args.only and args.only not in case.name:
            continue
        print(f"{case.name} ...", file=sys.stderr)
        tc_ptx, tc_cubin, bundle = compile_tritonc(args.tritonc, case, work)
        tr_ptx, tr_cubin, tr_shared = compile_triton(case, work)
        sides = {}
        for side, ptx, cubin, dyn, assembler in (
            ("tc", tc_ptx, tc_cubin, bundle.get("dynamic_shared_bytes", 0), ptxas_version),
            ("tr", tr_ptx, tr_cubin, tr_shared, triton_ptxas_version),
        ):
            d = work / ("tritonc" if side == "tc" else "triton") / case.name
            d.mkdir(parents=True, exist_ok=True)
            path = d / "kernel.ptx"
            path.write_text(ptx)
            counts = count_ptx(ptx)
            arch = counts.ptx_target if counts.ptx_target.startswith("sm_") else "sm_90"
            sides[side] = {
                "ptx": counts,
                "ptxas": run_ptxas(args.ptxas, path, arch),
                "sass": sass_info(cuobjdump, cubin),
                "dynamic_smem": dyn,
                "assembler": assembler,
            }
        for r in sides.values():
            r["warps"] = occupancy(r["sass"].registers, r["ptxas"].smem + r["dynamic_smem"], case.num_warps)[1]
        results.append((case, sides["tc"], sides["tr"]))

    if args.print_metrics:
        print(json.dumps({c.name: {"tc": metrics(tc), "tr": metrics(tr)} for c, tc, tr in results}, indent=1))

    lines = [
        "# NVIDIA back end: tritonc's PTX beside Triton's",
        "",
        "Generated by `scripts/ptx_report.py`; do not edit by hand (the readings live in the script).",
        "",
        "## Method",
        "",
        "```",
        " ".join(["python3", "scripts/ptx_report.py"] + [shlex.quote(a) for a in sys.argv[1:]]),
        "```",
        "",
        f"- Date: {datetime.datetime.now(datetime.timezone.utc).date().isoformat()}; "
        f"tritonc {built_from} (`{tritonc_version}`), upstream Triton {triton.__version__}, "
        f"ptxas {ptxas_version} (`{Path(args.ptxas).relative_to(ROOT) if Path(args.ptxas).is_relative_to(ROOT) else args.ptxas}`), "
        f"Triton's bundled ptxas {triton_ptxas_version}, cuobjdump from Triton's wheel.",
        "- Each kernel is compiled with the specialization named under its heading (signature and "
        "`num_warps` of bench/cases.py, which the GPU benchmark checks against Triton's captured "
        "launch; then six from tests/fixtures/triton and four points of the memory-bound sweep, "
        "bench/mem/kernels.py), for sm_90, by "
        "`tritonc compile FILE --kernel K --signature SIG --num-warps N --target sm_90 -o DIR` and by "
        "`triton.compile(ASTSource(fn, signature, constexprs, attrs), target=GPUTarget(\"cuda\", 90, 32), "
        "options={\"num_warps\": N})` (`:16` hints as `tt.divisibility` attributes, as Triton's launcher passes them).",
        "- PTX counts are static, per thread, over the entry function: `(pred)` marks an access under a "
        "predicate; `= N B` is the bytes one thread's accesses of that kind cover. For straight-line "
        "kernels static = dynamic; for kernels with loops, the loop body is counted once.",
        f"- `ptxas {ptxas_version} -v -arch=ARCH` assembles both PTX files (ARCH = the PTX's own `.target`: "
        "sm_90 for tritonc, sm_90a for Triton), so registers and spills compare PTX against PTX with one "
        "assembler. Shared memory: ptxas's static figure plus the dynamic bytes the launch requests "
        "(bundle.json `dynamic_shared_bytes`; Triton's `metadata.shared`).",
        f"- \"Cubin as launched\" is what the GPU benchmark actually runs: tritonc's bundle cubin "
        f"(assembled by tritonc with ptxas {ptxas_version}, `-arch=sm_90`) and Triton's own cubin (its bundled "
        f"ptxas {triton_ptxas_version}, `-lineinfo --gpu-name=sm_90a`, unless `TRITON_PTXAS_PATH` points "
        "elsewhere on the GPU host). SASS counts come from `cuobjdump -sass`; `LDG.E.128` is a 16-byte load.",
        "- Theoretical occupancy: resident CTAs per SM on sm_90 from the cubin's registers (allocated per warp "
        "in units of 256 of 65,536), shared memory (static + dynamic + 1 KiB reserved per CTA, of 228 KiB) "
        "and the 64-warp / 32-CTA limits.",
        "- A `≠` after a row's label marks rows where the two sides differ.",
        "- The readings of dropout, rotary and RMSNorm quote GPU timings of the two compilers' cubins and "
        "of hand-edited variants of tritonc's PTX, measured once on an H200 in an earlier round (before the "
        "fixes they describe), and tritonc / Triton ratios from one later run of bench/gpu_bench.py on an H200 "
        "(2026-11-30, bench/results-h200.json); this script does not re-measure either, it only flags a "
        "reading whose PTX facts no longer hold.",
        "",
        "Throughput on an H200 for the benchmarked cases is in docs/benchmarks.md.",
        "",
    ]
    lines += ["## Overview", "",
              "tritonc / Triton per case: global accesses (same = identical kinds, widths, predication and "
              "counts), barriers, shared bytes per CTA, registers and occupancy of the cubins as launched, "
              "static SASS instructions.", "",
              "| case | global loads / stores | `bar.sync` | shared B | registers | warps/SM | SASS |",
              "|---|---|---|---|---|---|---|"]
    for case, tc, tr in results:
        same = "same" if (tc["ptx"].gload, tc["ptx"].gstore) == (tr["ptx"].gload, tr["ptx"].gstore) else "**differ**"
        sh = [r["ptxas"].smem + r["dynamic_smem"] for r in (tc, tr)]
        oc = [occupancy(r["sass"].registers, r["ptxas"].smem + r["dynamic_smem"], case.num_warps)[1] for r in (tc, tr)]
        lines.append(
            f"| {case.name} | {same} | {tc['ptx'].barriers} / {tr['ptx'].barriers} "
            f"| {sh[0]} / {sh[1]} | {tc['sass'].registers} / {tr['sass'].registers} | {oc[0]} / {oc[1]} "
            f"| {tc['sass'].total} / {tr['sass'].total} |")
    lines.append("")
    if "summary" in READINGS:
        lines += ["## Findings", ""] + reading(None, results) + [""]
    for case, tc, tr in results:
        lines += [f"## {case.title}: `{case.kernel}`", "",
                  f"`{case.file}`, signature `{case.signature}`, `num_warps={case.num_warps}` ({case.origin}).", ""]
        lines += table(case, tc, tr)
        lines += [""] + reading(case, results) + [""]
    orphans = unused_readings(results) if not args.only else []
    if orphans:
        lines += ["## Readings without a case", "",
                  "These readings name cases this run did not compile (bench/cases.py changed?): "
                  + ", ".join(f"`{o}`" for o in orphans) + "."]
        print(f"warning: readings without a case: {', '.join(orphans)}", file=sys.stderr)
    Path(args.out).write_text("\n".join(lines).rstrip() + "\n")
    print(f"wrote {args.out}", file=sys.stderr)
    if scratch is not None:
        scratch.cleanup()
    return 0


if __name__ == "__main__":
    sys.exit(main())
