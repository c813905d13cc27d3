"""Capture: while a PyTorch program or test suite runs with Triton, record every Triton
launch as a tritonc launch spec (docs/launch-specs.md), so that its kernels can be
compiled and checked with ``tritonc verify SPEC --against triton`` on the shapes the
program really used (docs/python.md, "Capturing launches").

    python -m tritonc_rt.capture --out specs/ [--save-tensors] script.py [args...]
    python -m tritonc_rt.capture --out specs/ -m pytest tests/
    pytest -p tritonc_rt.capture            # with TRITONC_CAPTURE=specs/

or from code: ``tritonc_rt.capture.install("specs/")`` … ``uninstall()``.

``install`` wraps Triton 3.6's ``JITFunction.run``, the one place every
``kernel[grid](...)`` goes through (``@triton.autotune`` and ``@triton.heuristics``
call it too, with each config's meta-parameters). For each launch (not ``warmup``) it
binds the arguments as Triton does, evaluates the grid, lets Triton launch, then reads
``num_warps`` and ``num_stages`` from the compiled kernel and writes a spec: the kernel's
source file and name, one tensor table per tensor argument (shape, dtype, strides and
storage offset when it is a view), every scalar and constexpr by value, the grid as
integers, and ``debug`` when on. Tensors the launch changed (compared bit for bit with
a copy taken just before) are marked ``output``. Their values are not kept unless
``save_tensors`` is set: then each tensor is saved before the launch as ``.npy`` and
the spec initializes it from that file (``init = "npy"``); otherwise floating-point
tensors are ``randn`` and integer and boolean ones ``zeros`` (an index of 0 is always in
range). Launches that would give the same spec are written once
(``captured.json``, written as specs are added and at exit, counts them). A launch whose arguments a spec cannot describe (a
tuple, a tensor descriptor, an object of another kind) is still launched, and listed in
``captured.json`` with the reason instead of a spec.
"""

from __future__ import annotations

import hashlib
import inspect
import json
import math
import os
import struct
import sys
import threading
from typing import Any, Dict, List, Optional, Tuple

#: PyTorch dtype names to the spec's dtype names.
_DTYPES = {
    "float16": "float16", "bfloat16": "bfloat16", "float32": "float32", "float64": "float64",
    "int8": "int8", "int16": "int16", "int32": "int32", "int64": "int64",
    "uint8": "uint8", "uint16": "uint16", "uint32": "uint32", "uint64": "uint64",
    "bool": "int1", "float8_e4m3fn": "float8e4nv", "float8_e5m2": "float8e5",
}
#: numpy descr of each spec dtype (raw bits for bfloat16 and fp8, as tritonc writes them).
_NPY = {
    "float16": "<f2", "float32": "<f4", "float64": "<f8", "int8": "|i1", "int16": "<i2",
    "int32": "<i4", "int64": "<i8", "uint8": "|u1", "uint16": "<u2", "uint32": "<u4",
    "uint64": "<u8", "int1": "|b1", "bfloat16": "<u2", "float8e4nv": "|u1", "float8e5": "|u1",
}
_SIGNED = {1: "int8", 2: "int16", 4: "int32", 8: "int64"}


class Unsupported(Exception):
    """An argument a launch spec cannot describe."""


class Recorder:
    """Where captured specs go, and what has been written."""

    def __init__(self, out: str, save_tensors: bool = False):
        self.out = os.path.abspath(out)
        self.save_tensors = save_tensors
        self.lock = threading.Lock()
        #: spec digest -> entry in captured.json
        self.seen: Dict[str, Dict[str, Any]] = {}
        self.skipped: List[Dict[str, Any]] = []
        self.counts: Dict[str, int] = {}
        os.makedirs(self.out, exist_ok=True)

    def index(self) -> Dict[str, Any]:
        return {"specs": list(self.seen.values()), "skipped": self.skipped}

    def write_index(self) -> None:
        with open(os.path.join(self.out, "captured.json"), "w") as f:
            json.dump(self.index(), f, indent=1)
            f.write("\n")


_RECORDER: Optional[Recorder] = None
_SAVED: Dict[type, Any] = {}
_local = threading.local()
_ATEXIT: List[bool] = []


def _torch():
    return sys.modules.get("torch")


def _is_tensor(v: Any) -> bool:
    return hasattr(v, "data_ptr") and hasattr(v, "dtype") and hasattr(v, "shape") \
        and callable(getattr(v, "stride", None))


def _dtype_name(t: Any) -> str:
    name = str(t.dtype).replace("torch.", "")
    if name not in _DTYPES:
        raise Unsupported(f"a tensor of dtype {name}")
    return _DTYPES[name]


def _literal(name: str, v: Any) -> str:
    """A scalar or constexpr as the spec's expression text."""
    if v is None:
        return "None"
    if isinstance(v, bool):
        return "True" if v else "False"
    if isinstance(v, int):
        return str(v)
    if isinstance(v, float):
        if math.isnan(v) or math.isinf(v):
            raise Unsupported(f"`{name}` is {v!r} (no spec expression for it)")
        return repr(v)
    if isinstance(v, str):
        return repr(v)
    tl_name = getattr(v, "name", None)
    if type(v).__name__ == "dtype" and isinstance(tl_name, str):
        if type(v).__module__.startswith("torch"):
            return f"tl.{_DTYPES.get(str(v).replace('torch.', ''), tl_name)}"
        return f"tl.{tl_name}"
    value = getattr(v, "value", None)  # tl.constexpr(…)
    if type(v).__name__ == "constexpr":
        return _literal(name, value)
    raise Unsupported(f"`{name}` is a {type(v).__name__}")


def _toml_str(s: str) -> str:
    return json.dumps(s)  # a TOML basic string is a JSON string for these characters


def _bits_view(t: Any):
    """``t`` viewed as signed integers of its element size (bitwise comparison: a NaN
    equals itself)."""
    torch = _torch()
    return t.view(getattr(torch, _SIGNED[t.element_size()]))


def _save_npy(path: str, t: Any, dtype: str) -> None:
    """Writes ``t``'s values (C order) as ``.npy`` the way tritonc reads them."""
    torch = _torch()
    host = t.detach().to("cpu").contiguous()
    if dtype in ("bfloat16", "float8e4nv", "float8e5"):
        host = host.view(getattr(torch, _SIGNED[host.element_size()]))
    data = host.numpy().tobytes()
    extra = f"'tritonc_dtype': '{dtype}', " if dtype in ("bfloat16", "float8e4nv", "float8e5") else ""
    shape = "(" + "".join(f"{d}, " for d in t.shape) + ")" if len(t.shape) != 1 \
        else f"({t.shape[0]},)"
    header = f"{{'descr': '{_NPY[dtype]}', 'fortran_order': False, 'shape': {shape}, {extra}}}"
    pad = -(10 + len(header) + 1) % 64
    header = header + " " * pad + "\n"
    with open(path, "wb") as f:
        f.write(b"\x93NUMPY\x01\x00" + struct.pack("<H", len(header)) + header.encode())
        f.write(data)


class _Launch:
    """One launch being captured: what was read before Triton launched it."""

    def __init__(self, fn: Any, args: Tuple[Any, ...], kwargs: Dict[str, Any], grid: Any):
        names = [p.name for p in fn.params]
        self.kernel = fn.fn.__name__
        self.file = inspect.getsourcefile(fn.fn) or "<unknown>"
        call_kwargs = {k: v for k, v in kwargs.items() if k in names}
        self.options = {k: v for k, v in kwargs.items() if k not in names}
        bound = fn.signature.bind(*args, **call_kwargs)
        bound.apply_defaults()
        self.bound = dict(bound.arguments)
        self.tensors: List[Tuple[str, Any]] = []
        lines_args: List[str] = []
        tables: List[str] = []
        for p in fn.params:
            v = self.bound[p.name]
            if _is_tensor(v) and not p.is_constexpr:
                dtype = _dtype_name(v)
                self.tensors.append((p.name, v))
                table = [f"[tensors.{p.name}]", f"shape = {list(v.shape)}", f'dtype = "{dtype}"']
                contiguous = getattr(v, "is_contiguous", lambda: True)()
                offset = int(getattr(v, "storage_offset", lambda: 0)())
                if not contiguous or offset:
                    table.append(f"strides = {list(v.stride())}")
                    table.append(f"offset = {offset}")
                tables.append("\n".join(table))
                lines_args.append(f"{p.name} = {_toml_str(p.name)}")
            elif isinstance(v, (tuple, list)):
                raise Unsupported(f"`{p.name}` is a {type(v).__name__}")
            else:
                lines_args.append(f"{p.name} = {_toml_str(_literal(p.name, v))}")
        g = grid(self.bound) if callable(grid) else grid
        g = (g,) if isinstance(g, int) else tuple(g)
        if not 1 <= len(g) <= 3 or not all(isinstance(d, int) for d in g):
            raise Unsupported(f"the grid {g!r}")
        self.grid = list(g)
        self.tables = tables
        self.args = lines_args
        self.debug = bool(kwargs.get("debug") or getattr(fn, "debug", False))
        self.before: Dict[str, Any] = {}

    def key(self, kwargs: Dict[str, Any]) -> str:
        """What makes two launches one spec: kernel, file, arguments, grid and the
        launch options given (``num_warps`` and ``num_stages`` are read after the
        launch, but they follow from these)."""
        options = sorted((k, repr(v)) for k, v in self.options.items())
        text = repr((self.file, self.kernel, self.tables, self.args, self.grid, self.debug,
                     options))
        return hashlib.sha256(text.encode()).hexdigest()[:16]

    def spec_text(self, spec_dir: str, num_warps: int, num_stages: int,
                  outputs: Optional[set], inits: Dict[str, List[str]]) -> str:
        try:
            kernel = os.path.relpath(self.file, spec_dir)
        except ValueError:
            kernel = self.file
        head = [
            f"# Captured from a Triton launch of {self.kernel} ({os.path.basename(self.file)}).",
            f"kernel = {_toml_str(kernel)}",
            f"name = {_toml_str(self.kernel)}",
            f"grid = {self.grid}",
            f"num_warps = {num_warps}",
            f"num_stages = {num_stages}",
        ]
        if self.debug:
            head.append("debug = true")
        parts = ["\n".join(head)]
        for (name, _), table in zip(self.tensors, self.tables):
            extra = list(inits.get(name, []))
            if outputs is not None and name in outputs:
                extra.append("output = true")
            parts.append("\n".join([table] + extra))
        parts.append("\n".join(["[args]"] + self.args))
        return "\n\n".join(parts) + "\n"


def _default_init(t: Any, dtype: str) -> List[str]:
    if dtype.startswith("float") or dtype == "bfloat16":
        return ['init = "randn"']
    return ['init = "zeros"']


def _run(self, *args, grid, warmup, **kwargs):
    """``JITFunction.run``, recording the launch (see the module documentation)."""
    original = _SAVED.get(type(self)) or next(iter(_SAVED.values()))
    rec = _RECORDER
    if warmup or rec is None or getattr(_local, "busy", False):
        return original(self, *args, grid=grid, warmup=warmup, **kwargs)
    _local.busy = True
    try:
        launch: Optional[_Launch] = None
        try:
            launch = _Launch(self, args, kwargs, grid)
        except Unsupported as e:
            with rec.lock:
                rec.skipped.append({"kernel": getattr(self.fn, "__name__", "?"), "why": str(e)})
                rec.write_index()
        copies = {}
        if launch is not None:
            # A launch like one already written is only counted: no copies.
            key = launch.key(kwargs)
            with rec.lock:
                entry = rec.seen.get(key)
                if entry is not None:
                    entry["launches"] += 1
            if entry is not None:
                launch = None
            else:
                for name, t in launch.tensors:
                    copies[name] = t.detach().clone()
        result = original(self, *args, grid=grid, warmup=warmup, **kwargs)
        if launch is not None:
            _record(rec, launch, key, result, copies, kwargs)
        return result
    finally:
        _local.busy = False


def _record(rec: Recorder, launch: _Launch, key: str, result: Any, copies: Dict[str, Any],
            kwargs: Dict[str, Any]) -> None:
    meta = getattr(result, "metadata", None)
    num_warps = int(getattr(meta, "num_warps", kwargs.get("num_warps", 4)))
    num_stages = int(getattr(meta, "num_stages", kwargs.get("num_stages", 3)))
    outputs = set()
    for name, t in launch.tensors:
        c = copies[name]
        if t.numel() and not bool((_bits_view(c) == _bits_view(t)).all()):
            outputs.add(name)
    with rec.lock:
        entry = rec.seen.get(key)
        if entry is not None:  # written meanwhile by another thread
            entry["launches"] += 1
            rec.write_index()
            return
        n = rec.counts.get(launch.kernel, 0) + 1
        rec.counts[launch.kernel] = n
        stem = f"{launch.kernel}-{n:03d}"
        inits: Dict[str, List[str]] = {}
        for name, t in launch.tensors:
            dtype = _dtype_name(t)
            if rec.save_tensors:
                npy = f"{stem}.{name}.npy"
                _save_npy(os.path.join(rec.out, npy), copies[name], dtype)
                inits[name] = ['init = "npy"', f"path = {_toml_str(npy)}"]
            else:
                inits[name] = _default_init(t, dtype)
        path = os.path.join(rec.out, stem + ".toml")
        with open(path, "w") as f:
            f.write(launch.spec_text(rec.out, num_warps, num_stages, outputs, inits))
        rec.seen[key] = {"spec": stem + ".toml", "kernel": launch.kernel,
                            "file": launch.file, "launches": 1, "outputs": sorted(outputs)}
        rec.write_index()


def _classes():
    from triton.runtime import jit
    return [jit.JITFunction]


def install(out: str, save_tensors: bool = False) -> Recorder:
    """Records every following Triton launch of this process as a spec under ``out``."""
    global _RECORDER
    if _RECORDER is not None:
        _RECORDER.write_index()
    _RECORDER = Recorder(out, save_tensors)
    if not _ATEXIT:
        import atexit
        atexit.register(lambda: _RECORDER is not None and _RECORDER.write_index())
        _ATEXIT.append(True)
    for cls in _classes():
        if cls not in _SAVED:
            _SAVED[cls] = cls.run
            cls.run = _run
    return _RECORDER


def uninstall() -> None:
    """Stops recording (writing ``captured.json`` with the final counts) and restores
    Triton's own ``run``."""
    global _RECORDER
    if _RECORDER is not None:
        _RECORDER.write_index()
    for cls, run in _SAVED.items():
        cls.run = run
    _SAVED.clear()
    _RECORDER = None


def pytest_configure(config):
    """As a pytest plugin (``pytest -p tritonc_rt.capture``): records into
    ``$TRITONC_CAPTURE`` (default ``tritonc-captured/``) for the session."""
    install(os.environ.get("TRITONC_CAPTURE", "tritonc-captured"),
            os.environ.get("TRITONC_CAPTURE_TENSORS", "0") not in ("", "0"))


def main(argv: Optional[List[str]] = None) -> int:
    import argparse
    import runpy

    ap = argparse.ArgumentParser(
        prog="python -m tritonc_rt.capture",
        description="Run a Python program (or -m module) and record its Triton launches "
                    "as tritonc launch specs.")
    ap.add_argument("--out", required=True, help="directory for the specs")
    ap.add_argument("--save-tensors", action="store_true",
                    help="save each tensor argument as .npy and initialize the spec from it")
    ap.add_argument("-m", dest="module", help="run a module (as python -m)")
    ap.add_argument("program", nargs=argparse.REMAINDER, help="script.py [args...]")
    ns = ap.parse_args(argv)
    if not ns.module and not ns.program:
        ap.error("give a script or -m MODULE")
    rec = install(ns.out, ns.save_tensors)
    code = 0
    try:
        if ns.module:
            sys.argv = [ns.module] + ns.program
            runpy.run_module(ns.module, run_name="__main__", alter_sys=True)
        else:
            sys.argv = list(ns.program)
            sys.path.insert(0, os.path.dirname(os.path.abspath(ns.program[0])))
            runpy.run_path(ns.program[0], run_name="__main__")
    except SystemExit as e:
        code = e.code if isinstance(e.code, int) else (0 if e.code is None else 1)
    finally:
        rec.write_index()
        print(f"tritonc_rt.capture: {len(rec.seen)} spec(s) in {rec.out} "
              f"({sum(e['launches'] for e in rec.seen.values())} launches, "
              f"{len(rec.skipped)} skipped)", file=sys.stderr)
        uninstall()
    return code


if __name__ == "__main__":
    sys.exit(main())
