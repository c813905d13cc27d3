"""Extract typed facts from Triton TTIR text (the form printed by `str(module)`).

The parser is line-based: Triton prints one operation per line, and ops with
regions (scf.for, scf.if, scf.while, tt.reduce, tt.scan, tt.func) open the
region with a trailing `{` and close it with a line starting with `}`. Input is
expected with locations already stripped (see triton_common.strip_locations).
"""

from __future__ import annotations

import re
from collections import Counter

from triton_common import split_top_level

_RESULT = r"(?:(?P<results>%[\w.$-]+(?::\d+)?(?:\s*,\s*%[\w.$-]+)*)\s*=\s*)?"
_OP_NAME = re.compile(r"^\s*" + _RESULT + r"(?P<op>\"[\w.]+\"|[a-z_][\w]*\.[\w.]+)")
_LOOP_KINDS = ("scf.for", "scf.while")


def normalize_type(t: str) -> str:
    """MLIR type text with all whitespace removed (TTIR carries no layout encodings)."""
    return re.sub(r"\s+", "", t)


def pointee(ptr_type: str) -> str:
    """The element type a (tensor of) pointer(s) loads or stores.

    `!tt.ptr<T>` -> `T`; `tensor<AxBx!tt.ptr<T>>` -> `tensor<AxBxT>`;
    a block pointer `!tt.ptr<tensor<AxBxT>>` -> `tensor<AxBxT>`.
    """
    t = normalize_type(ptr_type)
    m = re.fullmatch(r"tensor<((?:\d+x)+)!tt\.ptr<(.+)>>", t)
    if m:
        return f"tensor<{m.group(1)}{m.group(2)}>"
    m = re.fullmatch(r"!tt\.ptr<(.+)>", t)
    if m:
        return m.group(1)
    raise ValueError(f"not a pointer type: {ptr_type}")


def _operands_and_type(body: str) -> tuple[list[str], str]:
    """Split `%a, %b, %c kw = v : TYPE` into the `%` operands and the trailing type."""
    head, _, ty = body.rpartition(" : ")
    operands = [p.split()[0] for p in split_top_level(head) if p.startswith("%")]
    return operands, normalize_type(ty)


def _types_list(text: str) -> list[str]:
    text = text.strip()
    if text.startswith("(") and text.endswith(")"):
        text = text[1:-1]
    return [normalize_type(t) for t in split_top_level(text) if t]


def _int_attr(attrs: str, name: str):
    m = re.search(rf"\b{name}\s*=\s*(-?\d+)", attrs)
    return int(m.group(1)) if m else None


def parse_func_args(line: str) -> list[dict]:
    """Arguments of the `tt.func public @name(...)` line: name, type and hint attributes."""
    start = line.index("(")
    depth, end = 0, start
    for end in range(start, len(line)):
        if line[end] == "(":
            depth += 1
        elif line[end] == ")":
            depth -= 1
            if depth == 0:
                break
    args = []
    for part in split_top_level(line[start + 1 : end]):
        name, _, rest = part.partition(":")
        rest = rest.strip()
        attrs = ""
        if "{" in rest:
            ty, _, attrs = rest.partition("{")
        else:
            ty = rest
        arg = {"name": name.strip().lstrip("%"), "type": normalize_type(ty)}
        for key, attr in (("divisibility", "tt.divisibility"), ("equal_to", "tt.equal_to")):
            m = re.search(rf"{re.escape(attr)}\s*=\s*(\d+)", attrs)
            if m:
                arg[key] = int(m.group(1))
        args.append(arg)
    return args


def extract_facts(ttir: str) -> dict:
    """Facts about the single public kernel in a TTIR module, in textual op order."""
    lines = ttir.splitlines()
    stack: list[str] = []  # region-owning op names enclosing the current line
    facts: dict = {
        "func_name": None,
        "args": [],
        "loads": [],
        "stores": [],
        "reduces": [],
        "scans": [],
        "dots": [],
        "loops": [],
        "extern_calls": [],
        "calls": [],
        "op_counts": {},
    }
    counts: Counter = Counter()
    pending_region: list[dict] = []  # open tt.reduce / tt.scan entries awaiting their closing line

    for raw in lines:
        line = raw.strip()
        if not line or line.startswith("^bb") or line.startswith("//"):
            continue
        if line.startswith("}"):
            closed = stack.pop() if stack else None
            if closed in ('"tt.reduce"', '"tt.scan"') and line.startswith("})"):
                entry = pending_region.pop()
                sig = line.split(" : ", 1)[1]
                ins, _, outs = sig.partition(" -> ")
                entry["operand_types"] = _types_list(ins)
                entry["result_types"] = _types_list(outs)
            if line.endswith("{"):  # `} else {`, `} do {`
                stack.append(closed)
            continue
        m = _OP_NAME.match(line)
        if not m:
            continue
        op = m.group("op")
        opname = op.strip('"')
        counts[opname] += 1
        loop_depth = sum(1 for s in stack if s in _LOOP_KINDS)
        in_region = [s.strip('"') for s in stack if s in ('"tt.reduce"', '"tt.scan"')]
        body = line[m.end("op"):].strip()

        if opname == "tt.func":
            if "public" in line.split("@")[0]:
                facts["func_name"] = re.search(r"@([\w$.]+)", line).group(1)
                facts["args"] = parse_func_args(line)
        elif in_region:
            # Ops of a combine region: remember them on the enclosing reduce/scan.
            if opname not in ("tt.reduce.return", "tt.scan.return"):
                pending_region[-1]["combine_ops"].append(opname)
        elif opname == "tt.load":
            operands, ptr_ty = _operands_and_type(body)
            facts["loads"].append({
                "ptr_type": ptr_ty,
                "result_type": pointee(ptr_ty),
                "has_mask": len(operands) >= 2,
                "has_other": len(operands) >= 3,
                "loop_depth": loop_depth,
            })
        elif opname == "tt.store":
            operands, ptr_ty = _operands_and_type(body)
            facts["stores"].append({
                "ptr_type": ptr_ty,
                "value_type": pointee(ptr_ty),
                "has_mask": len(operands) >= 3,
                "loop_depth": loop_depth,
            })
        elif opname in ("tt.reduce", "tt.scan"):
            attrs = body[body.index("<{"): body.index("}>") + 2]
            entry = {"axis": _int_attr(attrs, "axis"), "combine_ops": [], "loop_depth": loop_depth}
            if opname == "tt.scan":
                entry["reverse"] = "reverse = true" in attrs
            (facts["reduces"] if opname == "tt.reduce" else facts["scans"]).append(entry)
            pending_region.append(entry)
        elif opname == "tt.dot":
            head, _, sig = body.rpartition(" : ")
            a_ty, _, rest = sig.partition(" * ")
            b_ty, _, c_ty = rest.partition(" -> ")
            prec = re.search(r"inputPrecision\s*=\s*(\w+)", head)
            entry = {
                "a_type": normalize_type(a_ty),
                "b_type": normalize_type(b_ty),
                "c_type": normalize_type(c_ty),
                "result_type": normalize_type(c_ty),
                "input_precision": prec.group(1) if prec else None,
                "max_num_imprecise_acc": _int_attr(head, "maxNumImpreciseAcc") or 0,
                "loop_depth": loop_depth,
            }
            facts["dots"].append(entry)
        elif opname in _LOOP_KINDS:
            entry = {"kind": opname, "loop_depth": loop_depth}
            if opname == "scf.for":
                m_ind = re.search(r":\s*([\w<>x]+)\s*\{$", line)
                entry["induction_type"] = m_ind.group(1) if m_ind else None
                m_iter = re.search(r"iter_args\((.*)\)\s*->\s*\((.*)\)\s*:", line)
                if m_iter:
                    entry["iter_types"] = _types_list(m_iter.group(2))
                else:
                    m_one = re.search(r"iter_args\((.*)\)\s*->\s*([^\s(][^:]*?)\s*:", line)
                    entry["iter_types"] = _types_list(m_one.group(2)) if m_one else []
                for key in ("tt.num_stages", "tt.loop_unroll_factor"):
                    v = _int_attr(line, re.escape(key))
                    if v is not None:
                        entry[key] = v
            facts["loops"].append(entry)
        elif opname == "tt.extern_elementwise":
            sym = re.search(r'symbol\s*=\s*"([^"]+)"', body)
            sig = body.rsplit(" : ", 1)[1]
            ins, _, outs = sig.partition(" -> ")
            facts["extern_calls"].append({
                "symbol": sym.group(1) if sym else None,
                "operand_types": _types_list(ins),
                "result_type": normalize_type(outs),
            })
        elif opname == "tt.call":
            facts["calls"].append(re.search(r"@([\w$.]+)", body).group(1))

        if line.endswith("{") or line.endswith("({"):
            stack.append(op)

    facts["op_counts"] = dict(sorted(counts.items()))
    return facts
