"""Checking launch arguments against the assumptions a bundle was compiled under, and
packing them as the kernel's parameters."""

from __future__ import annotations

import ctypes
import math
import struct
from dataclasses import dataclass
from typing import Any, List, Optional, Sequence, Tuple

from ._bundle import Bundle, Param

#: PyTorch dtype names (``str(torch.float16)`` without ``torch.``) to signature names.
TORCH_DTYPES = {
    "bool": "i1", "int8": "i8", "int16": "i16", "int32": "i32", "int64": "i64",
    "uint8": "u8", "uint16": "u16", "uint32": "u32", "uint64": "u64",
    "float16": "fp16", "bfloat16": "bf16", "float32": "fp32", "float64": "fp64",
    "float8_e4m3fn": "fp8e4nv", "float8_e5m2": "fp8e5",
    "float8_e4m3fnuz": "fp8e4b8", "float8_e5m2fnuz": "fp8e5b16",
}

#: ``__cuda_array_interface__`` type strings (byte order stripped) to signature names.
TYPESTRS = {
    "b1": "i1", "i1": "i8", "i2": "i16", "i4": "i32", "i8": "i64",
    "u1": "u8", "u2": "u16", "u4": "u32", "u8": "u64",
    "f2": "fp16", "f4": "fp32", "f8": "fp64",
}

_INT_RANGES = {
    "i1": (0, 1), "i8": (-(2**7), 2**7 - 1), "i16": (-(2**15), 2**15 - 1),
    "i32": (-(2**31), 2**31 - 1), "i64": (-(2**63), 2**63 - 1),
    "u8": (0, 2**8 - 1), "u16": (0, 2**16 - 1), "u32": (0, 2**32 - 1), "u64": (0, 2**64 - 1),
}

_CTYPES = {
    "i1": ctypes.c_uint8, "i8": ctypes.c_int8, "i16": ctypes.c_int16, "i32": ctypes.c_int32,
    "i64": ctypes.c_int64, "u8": ctypes.c_uint8, "u16": ctypes.c_uint16,
    "u32": ctypes.c_uint32, "u64": ctypes.c_uint64,
}


@dataclass(frozen=True)
class Violation:
    """One broken assumption, naming the parameter."""

    param: str
    message: str

    def __str__(self) -> str:
        return f"`{self.param}` {self.message}"


class LaunchError(ValueError):
    """The arguments break assumptions the variant was compiled under; nothing was
    launched."""

    def __init__(self, variant: str, violations: Sequence[Violation]):
        self.variant = variant
        self.violations = list(violations)
        lines = "\n".join(f"  - {v}" for v in self.violations)
        super().__init__(f"launch of {variant} refused:\n{lines}")


# Signature dtype names of the tensor dtypes seen so far (str() of a dtype on every launch
# is a measurable part of the launch).
_TORCH_NAMES: dict = {}


def tensor_info(obj: Any, stream: Optional[int] = None) -> Optional[Tuple[int, str, Optional[str]]]:
    """(device address, signature dtype name or the foreign name, why it is unusable)
    of a tensor-like object — a PyTorch tensor, an object with
    ``__cuda_array_interface__`` or one exporting DLPack — or None for anything else.
    ``stream``: the stream the launch will use (for DLPack producers)."""
    if hasattr(obj, "data_ptr") and hasattr(obj, "dtype") and callable(obj.data_ptr):
        dtype = obj.dtype
        try:
            name = _TORCH_NAMES[dtype]
        except (KeyError, TypeError):
            name = str(dtype).replace("torch.", "")
            name = TORCH_DTYPES.get(name, name)
            try:
                _TORCH_NAMES[dtype] = name
            except TypeError:
                pass
        problem = None
        if getattr(obj, "is_cuda", True) is False:
            problem = f"is a tensor on {getattr(obj, 'device', 'the CPU')}, not on a CUDA device"
        return int(obj.data_ptr()), name, problem
    iface = getattr(obj, "__cuda_array_interface__", None)
    if isinstance(iface, dict):
        typestr = str(iface.get("typestr", ""))
        dtype = TYPESTRS.get(typestr[1:], typestr)
        return int(iface["data"][0]), dtype, None
    if hasattr(obj, "__dlpack__") and hasattr(obj, "__dlpack_device__"):
        return _dlpack_info(obj, stream)
    return None


#: DLPack device types that are CUDA memory (kDLCUDA, kDLCUDAHost, kDLCUDAManaged).
_DLPACK_CUDA = {2: "CUDA", 3: "CUDA host", 13: "CUDA managed"}
#: (type code, bits) of DLPack dtypes to signature names (kDLInt 0, kDLUInt 1,
#: kDLFloat 2, kDLBfloat 4, kDLBool 6).
_DLPACK_DTYPES = {
    (0, 8): "i8", (0, 16): "i16", (0, 32): "i32", (0, 64): "i64",
    (1, 8): "u8", (1, 16): "u16", (1, 32): "u32", (1, 64): "u64",
    (2, 16): "fp16", (2, 32): "fp32", (2, 64): "fp64", (4, 16): "bf16", (6, 8): "i1",
}


class _DLDevice(ctypes.Structure):
    _fields_ = [("device_type", ctypes.c_int32), ("device_id", ctypes.c_int32)]


class _DLDataType(ctypes.Structure):
    _fields_ = [("code", ctypes.c_uint8), ("bits", ctypes.c_uint8), ("lanes", ctypes.c_uint16)]


class _DLTensor(ctypes.Structure):
    """The start of a (legacy, unversioned) ``DLManagedTensor``: its ``DLTensor``."""

    _fields_ = [
        ("data", ctypes.c_void_p), ("device", _DLDevice), ("ndim", ctypes.c_int32),
        ("dtype", _DLDataType), ("shape", ctypes.POINTER(ctypes.c_int64)),
        ("strides", ctypes.POINTER(ctypes.c_int64)), ("byte_offset", ctypes.c_uint64),
    ]


_capsule_pointer = ctypes.pythonapi.PyCapsule_GetPointer
_capsule_pointer.restype = ctypes.c_void_p
_capsule_pointer.argtypes = [ctypes.py_object, ctypes.c_char_p]


def _dlpack_info(obj: Any, stream: Optional[int]) -> Tuple[int, str, Optional[str]]:
    """Address, dtype and problem of an object exporting DLPack (``__dlpack__``): JAX,
    CuPy, TensorFlow, NumPy (on the CPU) and anything else that does. The capsule is
    read, not consumed: its producer keeps ownership and frees it as usual. ``stream``
    is the stream the kernel will run on (DLPack's convention: 1 for the legacy default
    stream), passed so that the producer orders its pending work before it."""
    device_type, device_id = obj.__dlpack_device__()
    if int(device_type) not in _DLPACK_CUDA:
        return 0, "?", (f"is on DLPack device type {int(device_type)}, not in CUDA memory "
                        "(device type 2)")
    try:
        capsule = obj.__dlpack__(stream=stream if stream else 1)
    except TypeError:  # a producer older than the stream keyword
        capsule = obj.__dlpack__()
    t = _DLTensor.from_address(_capsule_pointer(capsule, b"dltensor"))
    dtype = _DLPACK_DTYPES.get((t.dtype.code, t.dtype.bits))
    if dtype is None or t.dtype.lanes != 1:
        dtype = f"DLPack dtype (code {t.dtype.code}, {t.dtype.bits} bits, {t.dtype.lanes} lanes)"
    return (t.data or 0) + t.byte_offset, dtype, None


def _float_bits(value: float, dtype: str) -> int:
    if dtype == "fp16":
        return struct.unpack("<H", struct.pack("<e", value))[0]
    # bf16: the top half of the fp32 bits, rounded to nearest even.
    bits = struct.unpack("<I", struct.pack("<f", value))[0]
    if math.isnan(value):
        return (bits >> 16) | 0x40
    return ((bits + 0x7FFF + ((bits >> 16) & 1)) >> 16) & 0xFFFF


def _dtype_value(value: Any) -> Optional[str]:
    """A dtype given as a constexpr: ``torch.float16``, ``"fp16"`` or ``{"dtype": "fp16"}``."""
    if isinstance(value, dict) and "dtype" in value:
        return value["dtype"]
    name = str(value).replace("torch.", "").replace("tl.", "")
    return TORCH_DTYPES.get(name, name)


def _same_constexpr(given: Any, compiled: Any) -> bool:
    if isinstance(compiled, dict):
        return _dtype_value(given) == compiled["dtype"]
    if compiled is None or given is None:
        return given is compiled
    if isinstance(compiled, bool) or isinstance(given, bool):
        return type(given) is type(compiled) and given == compiled
    if isinstance(compiled, float):
        return isinstance(given, float) and struct.pack("<d", given) == struct.pack("<d", compiled)
    return type(given) is type(compiled) and given == compiled


def _show(value: Any) -> str:
    return {True: "True", False: "False", None: "None"}.get(value, repr(value)) \
        if isinstance(value, (bool, type(None))) else repr(value)


def check_args(bundle: Bundle, args: Sequence[Any], stream: Optional[int] = None) -> List[Any]:
    """Checks ``args`` (one per source parameter, in order) against ``bundle`` and
    returns the kernel's parameters as ctypes values in ``.entry`` order; raises
    :class:`LaunchError` listing every violation. ``stream``: the stream the launch will
    use, for tensors exported through DLPack."""
    if len(args) != len(bundle.params):
        raise TypeError(
            f"{bundle.kernel_name} takes {len(bundle.params)} arguments "
            f"({', '.join(p.name for p in bundle.params)}), {len(args)} given"
        )
    violations: List[Violation] = []
    values: List[Tuple[int, Any]] = []
    for p, a in zip(bundle.params, args):
        bad = lambda message, p=p: violations.append(Violation(p.name, message))  # noqa: E731
        if p.role == "constexpr":
            if not _same_constexpr(a, p.value):
                bad(f"was compiled as the constexpr {_show(p.value)}, but {_show(a)} was given")
        elif p.role == "equal_to_one":
            if not (type(a) is int and a == 1):
                bad(f"was specialized as equal to 1 (==1), but {_show(a)} was given")
        elif p.kind == "pointer":
            info = tensor_info(a, stream)
            if info is None:
                bad(f"expects a tensor of {p.dtype}, but {type(a).__name__} was given")
                continue
            addr, dtype, problem = info
            if problem:
                bad(problem)
            if dtype != p.dtype:
                bad(f"was compiled for {p.dtype} elements, but the tensor holds {dtype}")
            if p.align > 1 and addr % p.align:
                bad(f"was specialized as {p.align}-byte aligned (:{p.align}), but its address "
                    f"{addr:#x} is not a multiple of {p.align}")
            values.append((p.index, ctypes.c_uint64(addr)))
        elif p.dtype in _INT_RANGES:
            if p.dtype == "i1" and isinstance(a, bool):
                a = int(a)
            if type(a) is not int:
                bad(f"is {p.dtype}, but {_show(a)} is not an int")
                continue
            lo, hi = _INT_RANGES[p.dtype]
            if not lo <= a <= hi:
                bad(f"is {p.dtype}, but {a} is out of its range [{lo}, {hi}]")
                continue
            if p.divisibility and a % p.divisibility:
                bad(f"was specialized as divisible by {p.divisibility} (:{p.divisibility}), "
                    f"but it is {a}")
            values.append((p.index, _CTYPES[p.dtype](a)))
        elif p.dtype in ("fp32", "fp64", "fp16", "bf16"):
            if isinstance(a, bool) or not isinstance(a, (int, float)):
                bad(f"is {p.dtype}, but {_show(a)} is not a number")
                continue
            x = float(a)
            if p.dtype == "fp32":
                values.append((p.index, ctypes.c_float(x)))
            elif p.dtype == "fp64":
                values.append((p.index, ctypes.c_double(x)))
            else:
                values.append((p.index, ctypes.c_uint16(_float_bits(x, p.dtype))))
        else:
            bad(f"has dtype {p.dtype}, which this package cannot pass")
    if violations:
        raise LaunchError(bundle.describe(), violations)
    return [v for _, v in sorted(values, key=lambda iv: iv[0])]


def specialization_score(bundle: Bundle) -> int:
    """How many assumptions a variant makes (`:16` pointers and ints, ``==1`` ints):
    among variants that accept the arguments, the one with most is launched."""
    score = 0
    for p in bundle.params:
        if p.role == "equal_to_one":
            score += 1
        elif p.kind == "pointer" and p.align > 1:
            score += 1
        elif p.kind == "scalar" and p.divisibility:
            score += 1
    return score
