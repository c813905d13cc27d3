"""The launch fast path: for each kernel, Python source generated from its variants (as
Triton generates its argument binder) that binds, checks, picks the variant, packs the
parameters into one preallocated buffer and launches, with no loop over parameters and
one ctypes call besides the launch.

It covers the common case only: PyTorch tensors whose dtype a launch has already seen,
integer and fp32/fp64 scalars, constexprs and ``==1`` integers, a grid of ints or a
function returning them, a current context in which the variant was loaded before. Any
other call — or any argument a variant would refuse — returns ``None`` before anything
is launched, and the general path (``Kernel.launch``) does the launch or raises the
error that names every broken assumption (a tensor on another GPU than the current
context's among them). So the fast path decides nothing the general
path would decide differently; ``python/tests`` checks the two against each other.
"""

from __future__ import annotations

import ctypes
import struct
import sys
import threading
from typing import Any, Callable, Dict, List, Optional

from ._bundle import Bundle
from ._check import _INT_RANGES, _TORCH_NAMES, _same_constexpr

#: struct format characters of the scalars the fast path packs.
_FORMATS = {
    "i8": "b", "i16": "h", "i32": "i", "i64": "q",
    "u8": "B", "u16": "H", "u32": "I", "u64": "Q",
    "fp32": "f", "fp64": "d",
}


class _Plan:
    """One variant's parameter buffer: a struct format over a fixed buffer and the
    ``void*`` array pointing into it that ``cuLaunchKernel`` takes."""

    def __init__(self, bundle: Bundle):
        passed = sorted((p for p in bundle.params if p.role == "passed"), key=lambda p: p.index)
        fmt, offsets, offset = "<", [], 0
        for p in passed:
            code = "Q" if p.kind == "pointer" else _FORMATS[p.dtype]
            size = struct.calcsize(code)
            pad = -offset % size
            fmt += "x" * pad + code
            offset += pad
            offsets.append(offset)
            offset += size
        self.format = fmt
        # 8 spare bytes: nothing reads past the last parameter.
        self.buffer = ctypes.create_string_buffer(max(offset, 1) + 8)
        base = ctypes.addressof(self.buffer)
        self.params = (ctypes.c_void_p * max(len(offsets), 1))(*[base + o for o in offsets])
        self.threads = 32 * bundle.num_warps
        self.shared = bundle.dynamic_shared_bytes


def supported(bundle: Bundle) -> bool:
    """Whether the fast path can check and pack every parameter of ``bundle``."""
    for p in bundle.params:
        if p.role == "passed" and p.kind == "scalar" and p.dtype not in _FORMATS:
            return False
    return True


def build(name: str, params: List[str], variants: List[Any], driver_state: Any) -> Optional[Callable]:
    """The fast launcher of a kernel whose variants (``Loaded``, most specialized first)
    take source parameters ``params``, or None when one of them has a parameter it
    cannot handle. The launcher takes ``(grid, stream, *args, **kwargs)`` and returns
    True when it launched, None when the general path must handle the call."""
    bundles = [v.bundle for v in variants]
    if not all(supported(b) for b in bundles) or not params:
        return None
    if not all(p.isidentifier() for p in params):
        return None
    first = bundles[0]
    env: Dict[str, Any] = {
        "_NAMES": _TORCH_NAMES, "_same": _same_constexpr, "_lock": threading.Lock(),
        "_pack": struct.pack_into, "_state": driver_state, "_int": int, "_tuple": tuple,
        "_type": type, "_callable": callable, "_len": len, "_VP": ctypes.c_void_p,
        "_local": driver_state.local, "_get_ctx": driver_state.get_ctx,
        "_launch": driver_state.launch_raw,
    }
    # The signature: Python binds the call (in C); folded parameters of the most
    # specialized variant default to their compiled value where a default is allowed.
    sig, defaults_ok = [], True
    for i, pname in reversed(list(enumerate(params))):
        p = first.params[i]
        if defaults_ok and p.role in ("constexpr", "equal_to_one"):
            value = p.value if p.role == "constexpr" else 1
            env[f"_D{i}"] = value
            sig.append(f"{pname}=_D{i}")
        else:
            defaults_ok = False
            sig.append(pname)
    sig.reverse()
    lines = [f"def _fast_launch(_grid, _stream, {', '.join(sig)}):"]
    # Tensors: their address and their dtype's signature name, once.
    pointer_params = sorted({i for b in bundles for i, p in enumerate(b.params)
                             if p.role == "passed" and p.kind == "pointer"})
    for i in pointer_params:
        a = params[i]
        lines += [
            "    try:",
            f"        _a{i} = {a}.data_ptr()",
            f"        _t{i} = _NAMES.get({a}.dtype)",
            f"        if {a}.is_cuda is not True: return None",
            f"        _d{i} = {a}.device.index",
            "    except (AttributeError, TypeError):",
            "        return None",
        ]
    # The variants' conditions, most specialized first.
    for vi, b in enumerate(bundles):
        conds = []
        values = []
        for i, p in enumerate(b.params):
            a = params[i]
            if p.role == "constexpr":
                v = p.value
                if v is None:
                    conds.append(f"{a} is None")
                elif isinstance(v, bool):
                    conds.append(f"_type({a}) is bool and {a} == {v!r}")
                elif isinstance(v, int):
                    conds.append(f"_type({a}) is int and {a} == {v!r}")
                elif isinstance(v, str):
                    conds.append(f"_type({a}) is str and {a} == {v!r}")
                else:
                    env[f"_C{vi}_{i}"] = v
                    conds.append(f"_same({a}, _C{vi}_{i})")
            elif p.role == "equal_to_one":
                conds.append(f"_type({a}) is int and {a} == 1")
            elif p.kind == "pointer":
                conds.append(f"_t{i} == {p.dtype!r}")
                if p.align > 1:
                    conds.append(f"_a{i} % {p.align} == 0")
                values.append((p.index, f"_a{i}"))
            elif p.dtype in _INT_RANGES:
                lo, hi = _INT_RANGES[p.dtype]
                conds.append(f"_type({a}) is int and {lo} <= {a} <= {hi}")
                if p.divisibility:
                    conds.append(f"{a} % {p.divisibility} == 0")
                values.append((p.index, a))
            else:  # fp32, fp64
                conds.append(f"(_type({a}) is float or _type({a}) is int)")
                values.append((p.index, a))
        env[f"_P{vi}"] = _Plan(b)
        env[f"_V{vi}"] = variants[vi]
        packed = ", ".join(v for _, v in sorted(values))
        keyword = "if" if vi == 0 else "elif"
        lines.append(f"    {keyword} {' and '.join(conds) or 'True'}:")
        lines.append(f"        _v, _p, _vals = _V{vi}, _P{vi}, ({packed}{',' if packed else ''})")
    lines.append("    else:")
    lines.append("        return None")
    # The variant's function in the current context (loaded there by the general path
    # before; one driver call), then the grid: ints, or a function of the arguments by
    # name.
    meta = ", ".join(f"{p!r}: {p}" for p in params)
    lines += [
        "    try:",
        "        _c, _r = _local.ctx",
        "    except AttributeError:",
        "        _c, _r = _state.context_slot()",
        "    if _get_ctx(_r) != 0: return None",
        "    _f = _v.by_context.get(_c.value)",
        "    if _f is None: return None",
    ]
    # Every tensor on the context's device (else the general path refuses the launch).
    if pointer_params:
        lines.append("    if " + " or ".join(f"_d{i} != _f[1]" for i in pointer_params)
                     + ": return None")
    lines += [
        "    _g = _grid({" + meta + "}) if _callable(_grid) else _grid",
        "    if _type(_g) is _int:",
        "        _gx, _gy, _gz = _g, 1, 1",
        "    else:",
        "        if _type(_g) is not _tuple: _g = _tuple(_g)",
        "        _n = _len(_g)",
        "        if _n == 1: _gx, _gy, _gz = _g[0], 1, 1",
        "        elif _n == 2: _gx, _gy, _gz = _g[0], _g[1], 1",
        "        elif _n == 3: _gx, _gy, _gz = _g",
        "        else: return None",
        "    if not (_type(_gx) is _int and _type(_gy) is _int and _type(_gz) is _int",
        "            and 0 < _gx < 2147483648 and 0 < _gy <= 65535 and 0 < _gz <= 65535):",
        "        return None",
        # PyTorch's current stream on the context's device (or the one given).
        "    if _stream is None:",
        "        _rs = _state.raw_stream",
        "        _stream = _rs(_f[1]) if _rs is not None else _state.stream(_f[1])",
        "    with _lock:",
        "        _pack(_p.format, _p.buffer, 0, *_vals)",
        "        _e = _launch(_f[2], _gx, _gy, _gz, _p.threads, 1, 1, _p.shared,",
        "                     _VP(_stream) if _stream else None, _p.params, None)",
        "    if _e != 0: _state.driver.check('cuLaunchKernel', _e)",
        "    return True",
    ]
    source = "\n".join(lines) + "\n"
    code = compile(source, f"<tritonc_rt fast launcher of {name}>", "exec")
    exec(code, env)  # noqa: S102 - generated from the bundle's metadata only
    launcher = env["_fast_launch"]
    launcher.source = source
    return launcher


class DriverState:
    """The driver calls of the fast path: the current context (``cuCtxGetCurrent`` into
    a per-thread slot), PyTorch's current raw stream (``torch._C``'s, found once PyTorch
    has initialized CUDA) and ``cuLaunchKernel`` through a function object without
    ``argtypes`` (the arguments are given as the C types they are: ints that fit
    ``unsigned int`` and ``void*`` objects), which halves ctypes' cost of the call."""

    def __init__(self, driver: Any):
        self.driver = driver
        self.get_ctx = driver.lib.cuCtxGetCurrent
        self.local = threading.local()
        # A second handle on the same library: its function objects are independent of
        # the ones the general path gave argtypes to.
        self.launch_raw = ctypes.CDLL(driver.lib._name).cuLaunchKernel
        self.launch_raw.restype = ctypes.c_int
        self.raw_stream: Optional[Callable[[int], int]] = None

    def context_slot(self):
        """This thread's ``CUcontext`` slot and a pointer to it."""
        ctx = ctypes.c_void_p()
        self.local.ctx = (ctx, ctypes.byref(ctx))
        return self.local.ctx

    def stream(self, device: int) -> int:
        """PyTorch's current stream on ``device`` (0 without PyTorch or before it has
        initialized CUDA); remembers PyTorch's raw-stream query once it can be used."""
        torch = sys.modules.get("torch")
        if torch is None or not torch.cuda.is_initialized():
            return 0
        raw = getattr(getattr(torch, "_C", None), "_cuda_getCurrentRawStream", None)
        if raw is None:
            return int(torch.cuda.current_stream(device).cuda_stream)
        self.raw_stream = raw
        return raw(device)
