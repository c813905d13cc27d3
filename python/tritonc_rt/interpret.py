"""Run ``@triton.jit`` kernels on tritonc's CPU interpreter, as ``TRITON_INTERPRET=1`` does.

    import tritonc_rt.interpret
    tritonc_rt.interpret.install()      # from now on kernel[grid](...) runs on tritonc

or, for an unchanged test suite, ``pytest -p tritonc_rt.interpret`` (with ``python/`` on
``PYTHONPATH``), or ``TRITONC_INTERPRET=1`` with ``import tritonc_rt``.

A launch reads the kernel's source file (tritonc's front end, not Python), specializes it
as Triton's launcher does (``:16`` and ``==1`` ints, constexprs, ``num_warps`` deciding the
reduction order), and interprets every program of the grid on all cores (bitwise the same
result on any number of threads) against the host tensors (PyTorch CPU tensors, NumPy
arrays, anything with ``__array_interface__``), bounds-checked and race-checked.
Failures raise :class:`InterpreterError` subclasses carrying tritonc's diagnostic.

The interpreter is ``libtritonc_pyinterp.so`` (``cargo build --release -p
tritonc-pyinterp``), loaded with ctypes; ``TRITONC_INTERP_LIB`` names it explicitly.
docs/python.md describes the mechanism.
"""

import ctypes
import inspect
import json
import numbers
import os
import sys

__all__ = [
    "DataRaceError",
    "DeviceAssertError",
    "InterpreterError",
    "KernelCompileError",
    "OutOfBoundsError",
    "install",
    "installed",
    "launch",
    "set_threads",
    "uninstall",
]


class InterpreterError(RuntimeError):
    """A launch tritonc's interpreter refused or stopped.

    ``kind`` is the class of failure, ``code`` tritonc's diagnostic code, ``diagnostic``
    the full diagnostic as tritonc prints it, ``program`` the failing program id (x, y, z)
    and ``lane`` the failing element of the block, where known."""

    def __init__(self, reply):
        self.kind = reply.get("kind", "internal")
        self.code = reply.get("code", "")
        self.headline = reply.get("message", "")
        self.diagnostic = reply.get("rendered") or self.headline
        self.program = tuple(reply["program"]) if reply.get("program") else None
        self.lane = reply.get("lane")
        super().__init__(self.diagnostic)


class OutOfBoundsError(InterpreterError, IndexError):
    """An active lane accessed memory outside every tensor (or misaligned)."""


class DataRaceError(InterpreterError):
    """Two programs wrote, or wrote and read, the same bytes."""


class DeviceAssertError(InterpreterError, AssertionError):
    """``tl.device_assert`` (or ``assert`` in debug mode) failed."""


class KernelCompileError(InterpreterError):
    """tritonc's front end rejected the kernel (or does not support a construct in it)."""


_ERRORS = {
    "out_of_bounds": OutOfBoundsError,
    "misaligned": OutOfBoundsError,
    "race": DataRaceError,
    "assert": DeviceAssertError,
    "compile": KernelCompileError,
    "unsupported": KernelCompileError,
}


class _HostBuffer(ctypes.Structure):
    _fields_ = [("ptr", ctypes.c_void_p), ("len", ctypes.c_size_t)]


_LIB = None
_THREADS = int(os.environ.get("TRITONC_INTERPRET_THREADS", "0") or 0)


def set_threads(n):
    """Worker threads for the following launches (0: every core)."""
    global _THREADS
    _THREADS = int(n)


def _library_path():
    explicit = os.environ.get("TRITONC_INTERP_LIB")
    if explicit:
        return explicit
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    targets = [os.environ.get("CARGO_TARGET_DIR"), os.path.join(root, "target")]
    found = []
    for t in filter(None, targets):
        for profile in ("release", "debug"):
            p = os.path.join(t, profile, "libtritonc_pyinterp.so")
            if os.path.exists(p):
                found.append((os.path.getmtime(p), profile == "release", p))
    if not found:
        raise OSError(
            "libtritonc_pyinterp.so not found: build it with `cargo build --release -p "
            "tritonc-pyinterp` or name it with TRITONC_INTERP_LIB")
    return max(found)[2]


def _lib():
    global _LIB
    if _LIB is None:
        lib = ctypes.CDLL(_library_path())
        lib.tritonc_interp_launch.argtypes = [
            ctypes.c_char_p, ctypes.POINTER(_HostBuffer), ctypes.c_size_t]
        lib.tritonc_interp_launch.restype = ctypes.c_void_p
        lib.tritonc_interp_free.argtypes = [ctypes.c_void_p]
        lib.tritonc_interp_free.restype = None
        _LIB = lib
    return _LIB


# Element dtype names as Triton spells them, from PyTorch's and NumPy's names.
_DTYPE_NAMES = {
    "bool": "int1", "int8": "int8", "int16": "int16", "int32": "int32", "int64": "int64",
    "uint8": "uint8", "uint16": "uint16", "uint32": "uint32", "uint64": "uint64",
    "float16": "float16", "half": "float16", "bfloat16": "bfloat16", "float32": "float32",
    "float": "float32", "float64": "float64", "double": "float64",
    "float8_e4m3fn": "float8e4nv", "float8_e5m2": "float8e5",
    "float8_e4m3fnuz": "float8e4b8", "float8_e5m2fnuz": "float8e5b16",
}
# NumPy's __array_interface__ type strings.
_TYPESTR = {
    "b1": "int1", "i1": "int8", "i2": "int16", "i4": "int32", "i8": "int64",
    "u1": "uint8", "u2": "uint16", "u4": "uint32", "u8": "uint64",
    "f2": "float16", "f4": "float32", "f8": "float64",
}
# Triton's short dtype names (`str(tl.float16)`) to attributes of triton.language.
_TL_NAMES = {
    "int1": "int1", "i1": "int1", "int8": "int8", "int16": "int16", "int32": "int32",
    "int64": "int64", "uint8": "uint8", "uint16": "uint16", "uint32": "uint32",
    "uint64": "uint64", "fp16": "float16", "bf16": "bfloat16", "fp32": "float32",
    "fp64": "float64", "fp8e4nv": "float8e4nv", "fp8e5": "float8e5",
    "fp8e4b8": "float8e4b8", "fp8e5b16": "float8e5b16", "fp8e4b15": "float8e4b15",
}

_LAUNCH_OPTIONS = {
    "num_warps", "num_stages", "num_ctas", "enable_fp_fusion", "maxnreg", "debug",
    "launch_cooperative_grid", "launch_pdl", "stream", "num_buffers_warp_spec",
    "num_consumer_groups", "reg_dec_producer", "reg_inc_consumer", "waves_per_eu",
    "matrix_instr_nonkdim", "kpack", "instrumentation_mode", "sanitize_overflow",
}


def _tensor_view(value):
    """(storage low address, storage high address, data address, Triton dtype name) of a
    host tensor, or None for a value that is not one."""
    if hasattr(value, "untyped_storage") and hasattr(value, "data_ptr"):  # PyTorch
        if getattr(value.device, "type", "cpu") != "cpu":
            raise TypeError(
                f"a {value.device} tensor was passed; tritonc's interpreter runs on host "
                "tensors (create them on the CPU)")
        storage = value.untyped_storage()
        lo = storage.data_ptr()
        dtype = str(value.dtype).rsplit(".", 1)[-1]
        return lo, lo + storage.nbytes(), value.data_ptr(), _dtype_name(dtype)
    if hasattr(value, "base") and hasattr(value, "dtype") and hasattr(
            getattr(value, "base"), "data_ptr") and not hasattr(value, "__array_interface__"):
        # triton.reinterpret's TensorWrapper: the base tensor's memory as another dtype.
        lo, hi, ptr, _ = _tensor_view(value.base)
        return lo, hi, ptr, _TL_NAMES.get(str(value.dtype), str(value.dtype))
    iface = getattr(value, "__array_interface__", None)
    if iface is not None:  # NumPy and friends
        ptr = iface["data"][0]
        typestr = iface["typestr"]
        if typestr[0] == ">":
            raise TypeError("big-endian arrays are not supported")
        dtype = _TYPESTR.get(typestr[1:])
        if dtype is None:
            raise TypeError(f"array element type {typestr!r} has no Triton dtype")
        itemsize = int(typestr[2:])
        shape = iface["shape"]
        strides = iface.get("strides")
        if strides is None:
            strides, acc = [], itemsize
            for d in reversed(shape):
                strides.insert(0, acc)
                acc *= d
        lo = hi = ptr
        if all(d > 0 for d in shape):
            for d, s in zip(shape, strides):
                if s < 0:
                    lo += (d - 1) * s
                else:
                    hi += (d - 1) * s
            hi += itemsize
        return lo, hi, ptr, dtype
    return None


def _dtype_name(name):
    out = _DTYPE_NAMES.get(name)
    if out is None:
        raise TypeError(f"tensor dtype {name} has no Triton dtype")
    return out


def _constexpr_text(value):
    """A compile-time value as a Python expression tritonc evaluates, or None."""
    tname = type(value).__name__
    if tname == "dtype" and hasattr(value, "primitive_bitwidth"):  # triton.language.dtype
        name = _TL_NAMES.get(str(value))
        return f"tl.{name}" if name else None
    if type(value).__module__ == "torch" and tname == "dtype":
        return "tl." + _dtype_name(str(value).rsplit(".", 1)[-1])
    if isinstance(value, str):
        return repr(value)
    if isinstance(value, (tuple, list)):
        parts = [_constexpr_text(v) for v in value]
        if any(p is None for p in parts):
            return None
        return "(" + "".join(p + ", " for p in parts) + ")"
    if isinstance(value, bool) or value is None or isinstance(value, (int, float)):
        return repr(value)
    return None


def _arg(value):
    """A scalar parameter's JSON form."""
    if hasattr(value, "value") and type(value).__name__ == "constexpr":
        value = value.value
    if isinstance(value, bool):
        return {"bool": value}
    if isinstance(value, numbers.Integral):
        return {"int": str(int(value))}
    if isinstance(value, numbers.Real):
        return {"float": float(value)}
    if value is None:
        return "none"
    text = _constexpr_text(value)
    if text is None:
        raise TypeError(f"tritonc's interpreter cannot pass a {type(value).__name__}")
    return {"expr": text}


def _is_jit_function(value):
    """Whether ``value`` is a ``@triton.jit`` function (Triton's ``JITFunction``, also as
    ``TRITON_INTERPRET=1`` makes it)."""
    return any(c.__name__ in ("JITFunction", "InterpretedFunction", "JITCallable")
               for c in type(value).__mro__) and hasattr(value, "fn")


def _closure(fn):
    """The variables of the enclosing function that a kernel defined inside a function
    reads (``inspect.getclosurevars(fn).nonlocals``: what Triton adds to the module's
    globals when it compiles the kernel), each as tritonc reads it."""
    if not fn.__code__.co_freevars:
        return []
    out = []
    for name, value in inspect.getclosurevars(fn).nonlocals.items():
        if _is_jit_function(value):
            inner = value.fn
            out.append([name, {"jit": {"name": inner.__name__,
                                       "file": inspect.getsourcefile(inner),
                                       "line": inner.__code__.co_firstlineno}}])
        elif type(value).__name__ == "module" or inspect.ismodule(value):
            out.append([name, {"module": value.__name__}])
        else:
            wrapped = type(value).__name__ == "constexpr" and hasattr(value, "value")
            is_dtype = type(value).__name__ == "dtype" and hasattr(value, "primitive_bitwidth")
            text = _constexpr_text(value.value if wrapped else value) if (
                wrapped or is_dtype or value is None) else None
            if text is not None:
                out.append([name, {"constexpr": text}])
            else:
                out.append([name, {"other": type(value).__name__}])
    return out


def _grid3(grid, meta):
    if callable(grid):
        grid = grid(meta)
    if not isinstance(grid, (tuple, list)):
        grid = (grid,)
    return [int(g) for g in grid]


def launch(fn, grid, args, kwargs, *, do_not_specialize=(), do_not_specialize_on_alignment=(),
           debug=False):
    """Runs the Python function ``fn`` of a ``@triton.jit`` kernel over ``grid`` with
    ``args``/``kwargs`` (launch options such as ``num_warps`` among them) on the
    interpreter. The tensors' memory is written in place."""
    kwargs = dict(kwargs)
    sig = inspect.signature(fn)
    # A launch option the kernel also declares as a parameter (`num_warps:
    # tl.constexpr`) is both, as in Triton: the kernel receives it too.
    options = {k: (kwargs[k] if k in sig.parameters else kwargs.pop(k))
               for k in list(kwargs) if k in _LAUNCH_OPTIONS}
    try:
        bound = sig.bind(*args, **kwargs)
    except TypeError as e:
        raise TypeError(f"{fn.__name__}: {e}") from None
    bound.apply_defaults()
    meta = dict(bound.arguments)
    grid = _grid3(grid, meta)
    if len(grid) == 0 or len(grid) > 3:
        raise ValueError(f"a grid has 1 to 3 dimensions, not {len(grid)}")
    if any(g == 0 for g in grid):
        return None
    views, arg_json = [], []
    for name, value in meta.items():
        if hasattr(value, "value") and type(value).__name__ == "constexpr":
            value = value.value
        view = _tensor_view(value)
        if view is None:
            arg_json.append([name, _arg(value)])
        else:
            views.append((name, view))
            arg_json.append([name, None])
    # Tensors sharing memory (views of one storage) become one buffer.
    ranges = sorted((v[0], v[1], name) for name, v in views)
    groups = []  # [lo, hi, first name]
    for lo, hi, name in ranges:
        if groups and lo < groups[-1][1]:
            groups[-1][1] = max(groups[-1][1], hi)
        else:
            groups.append([lo, hi, name])
    buffer_of = {}
    for name, (lo, hi, ptr, dtype) in views:
        i = next(i for i, g in enumerate(groups) if g[0] <= lo and hi <= g[1])
        buffer_of[name] = {"tensor": {
            "buffer": i, "offset": ptr - groups[i][0], "dtype": dtype,
            "aligned16": ptr % 16 == 0 and name not in do_not_specialize_on_alignment}}
    for a in arg_json:
        if a[1] is None:
            a[1] = buffer_of[a[0]]
    buffer_dtype = {}
    for name, (lo, hi, ptr, dtype) in views:
        buffer_dtype.setdefault(buffer_of[name]["tensor"]["buffer"], dtype)
    request = {
        "file": inspect.getsourcefile(fn),
        "kernel": fn.__name__,
        "line": fn.__code__.co_firstlineno,
        "closure": _closure(fn),
        "args": arg_json,
        "do_not_specialize": list(do_not_specialize),
        "grid": grid,
        "num_warps": int(options.get("num_warps") or 4),
        "num_stages": int(options.get("num_stages") or 3),
        "debug": bool(options.get("debug") or debug
                      or os.environ.get("TRITON_DEBUG", "0") not in ("", "0")),
        "threads": _THREADS,
        "buffers": [{"name": g[2], "dtype": buffer_dtype[i]} for i, g in enumerate(groups)],
    }
    hosts = (_HostBuffer * max(len(groups), 1))(
        *[_HostBuffer(g[0], g[1] - g[0]) for g in groups])
    lib = _lib()
    raw = lib.tritonc_interp_launch(json.dumps(request).encode(), hosts, len(groups))
    try:
        reply = json.loads(ctypes.string_at(raw).decode())
    finally:
        lib.tritonc_interp_free(raw)
    for line in reply.get("prints", []):
        print(line)
    if not reply.get("ok"):
        raise _ERRORS.get(reply.get("kind"), InterpreterError)(reply)
    return None


def _names(fn, entries):
    params = list(inspect.signature(fn).parameters)
    return [params[e] if isinstance(e, int) else e for e in (entries or ())]


def _run(self, *args, grid, warmup, **kwargs):
    """``JITFunction.run`` / ``InterpretedFunction.run`` on tritonc's interpreter."""
    if warmup:
        return None
    own = getattr(self, "kwargs", {}) or {}
    dns = getattr(self, "do_not_specialize", None) or own.get("do_not_specialize")
    dnsa = (getattr(self, "do_not_specialize_on_alignment", None)
            or own.get("do_not_specialize_on_alignment"))
    debug = getattr(self, "debug", None) or own.get("debug")
    return launch(self.fn, grid, args, kwargs, do_not_specialize=_names(self.fn, dns),
                  do_not_specialize_on_alignment=_names(self.fn, dnsa), debug=bool(debug))


_SAVED = {}
_SAVED_BENCH = {}


def _untimed_bench(kernel_call, quantiles=None, **_):
    """The autotuner's benchmark under the drop-in: every config takes the same (zero)
    time without being run, so ``@triton.autotune`` picks its first config (after
    pruning). Timing an interpreter says nothing about the GPU, and a fixed choice keeps
    results the same from run to run and on machines without a GPU driver."""
    return [0.0] * len(quantiles) if quantiles else 0.0


def _autotuner():
    try:
        from triton.runtime import autotuner
        return autotuner.Autotuner if "do_bench" in vars(autotuner.Autotuner) else None
    except ImportError:
        return None


def _classes():
    out = []
    try:
        from triton.runtime import jit
        out.append(jit.JITFunction)
    except ImportError:
        pass
    try:
        from triton.runtime import interpreter
        out.append(interpreter.InterpretedFunction)
    except ImportError:
        pass
    return out


def install():
    """Makes every ``kernel[grid](...)`` of a ``@triton.jit`` kernel (also through
    ``@triton.autotune`` and ``@triton.heuristics``) run on tritonc's interpreter.
    ``@triton.autotune`` then takes its first config without timing any."""
    classes = _classes()
    if not classes:
        raise ImportError("triton is not importable: nothing to install into")
    for cls in classes:
        if cls not in _SAVED:
            _SAVED[cls] = cls.run
            cls.run = _run
    tuner = _autotuner()
    if tuner is not None and tuner not in _SAVED_BENCH:
        _SAVED_BENCH[tuner] = vars(tuner)["do_bench"]
        tuner.do_bench = property(lambda self: _untimed_bench)


def uninstall():
    """Restores Triton's own launch."""
    for cls, run in _SAVED.items():
        cls.run = run
    _SAVED.clear()
    for cls, bench in _SAVED_BENCH.items():
        cls.do_bench = bench
    _SAVED_BENCH.clear()


def installed():
    """Whether :func:`install` is in effect."""
    return bool(_SAVED)


def pytest_configure(config):
    """As a pytest plugin (``pytest -p tritonc_rt.interpret``): install for the session."""
    install()


if __name__ == "__main__":
    # python -m tritonc_rt.interpret SCRIPT ARGS...: runs SCRIPT with the drop-in installed.
    import runpy
    if len(sys.argv) < 2:
        sys.exit("usage: python -m tritonc_rt.interpret SCRIPT [ARGS...]")
    install()
    sys.argv = sys.argv[1:]
    runpy.run_path(sys.argv[0], run_name="__main__")
