"""Reading a bundle directory: bundle.json, kernel.ptx and, when present, kernel.cubin."""

from __future__ import annotations

import json
import os
import re
import struct
from dataclasses import dataclass
from typing import Any, List, Optional

#: The bundle format versions this package reads (1: NVIDIA; AMD bundles, 2, are not
#: launched from Python).
FORMAT_VERSION = 1


class BundleError(ValueError):
    """A bundle that cannot be read or used."""


@dataclass(frozen=True)
class Param:
    """One source parameter of the kernel and what the compiled variant does with it."""

    name: str
    #: "constexpr", "equal_to_one" or "passed".
    role: str
    #: The folded value of a constexpr (a Python value: int, float, bool, str, None or
    #: a dtype name as {"dtype": "fp16"}).
    value: Any = None
    #: For a passed parameter: its position among the kernel's parameters.
    index: int = -1
    #: "pointer" or "scalar".
    kind: str = ""
    #: The pointee dtype (pointer) or the dtype (scalar), by signature name ("fp32").
    dtype: str = ""
    #: A pointer's assumed alignment in bytes (16 for `:16`, else 1).
    align: int = 1
    #: A scalar's assumed divisibility (16 for `:16`), or None.
    divisibility: Optional[int] = None


@dataclass
class Bundle:
    """One compiled variant of one kernel."""

    path: str
    meta: dict
    ptx: bytes
    cubin: Optional[bytes]
    params: List[Param]

    @property
    def entry(self) -> str:
        return self.meta["entry"]

    @property
    def target(self) -> str:
        return self.meta["target"]

    @property
    def kernel_name(self) -> str:
        return self.meta["key"]["kernel"]

    @property
    def num_warps(self) -> int:
        return int(self.meta["num_warps"])

    @property
    def dynamic_shared_bytes(self) -> int:
        return int(self.meta.get("dynamic_shared_bytes", 0))

    @property
    def sm(self):
        """(major, minor, arch_specific) the code needs, e.g. (8, 0, False) for sm_80: the
        PTX's ``.target`` where it names one (an sm_90 bundle's PTX is sm_90a, which runs on
        capability 9.0 only), else the metadata's target."""
        m = re.fullmatch(r"sm_(\d+)(\d)([af]?)", self.target)
        if not m:
            raise BundleError(f"{self.path}: target {self.target!r} is not an NVIDIA target")
        ptx = self.ptx.decode("ascii", "replace") if isinstance(self.ptx, bytes) else (self.ptx or "")
        code = re.search(r"^\s*\.target\s+sm_(\d+)(\d)([af]?)\b", ptx, re.M)
        m = code or m
        return int(m.group(1)), int(m.group(2)), bool(m.group(3))

    @property
    def min_driver_version(self) -> Optional[int]:
        """The oldest CUDA driver (cuDriverGetVersion) that can compile the PTX."""
        v = self.meta.get("min_driver_version")
        return int(v) if v is not None else min_driver_for_ptx(self.ptx)

    def describe(self) -> str:
        """The specialization, as tritonc prints it: ``add_kernel(x_ptr=*fp32:16, ...)``."""
        key = self.meta["key"]
        args = ", ".join(f"{a['name']}={a['spec']}" for a in key["args"])
        return f"{key['kernel']}({args})"


_PTX_DRIVER = {(7, m): 11000 + 10 * m for m in range(9)}
_PTX_DRIVER.update({(8, m): 12000 + 10 * m for m in range(6)})
_PTX_DRIVER.update({(8, 6): 12070, (8, 7): 12080, (8, 8): 12090, (9, 0): 13000})


def min_driver_for_ptx(ptx: bytes) -> Optional[int]:
    """The oldest driver whose JIT accepts the PTX's ``.version`` (None if unknown)."""
    m = re.search(rb"^\s*\.version\s+(\d+)\.(\d+)", ptx, re.M)
    return _PTX_DRIVER.get((int(m.group(1)), int(m.group(2)))) if m else None


def _param(p: dict, where: str) -> Param:
    role = p["role"]
    if role == "equal_to_one":
        return Param(p["name"], "equal_to_one")
    if "constexpr" in role:
        value = role["constexpr"]
        if value == "none":
            v: Any = None
        elif isinstance(value, dict) and len(value) == 1:
            (kind, v), = value.items()
            if kind == "dtype":
                v = {"dtype": v}
        else:
            raise BundleError(f"{where}: unknown constexpr value {value!r}")
        return Param(p["name"], "constexpr", value=v)
    if "passed" in role:
        passed = role["passed"]
        kind = passed["kind"]
        if "pointer" in kind:
            k = kind["pointer"]
            return Param(p["name"], "passed", index=passed["index"], kind="pointer",
                         dtype=k["pointee"], align=int(k.get("align", 1)))
        if "scalar" in kind:
            k = kind["scalar"]
            return Param(p["name"], "passed", index=passed["index"], kind="scalar",
                         dtype=k["dtype"], divisibility=k.get("divisibility"))
    raise BundleError(f"{where}: parameter {p.get('name')!r} has an unknown role {role!r}")


#: ``EM_CUDA``, the ELF machine of every cubin.
EM_CUDA = 190


def check_elf_bounds(image: bytes, what: str, machine: int = EM_CUDA) -> None:
    """Raises :class:`BundleError` unless ``image`` is a 64-bit little-endian ELF file
    for ``machine`` whose headers, sections and segments all lie inside it: the driver
    (``cuModuleLoadData``) takes the image by address alone and would read past the end
    of a truncated or forged one (the Rust runtime's ``tritonc_bundle`` check)."""
    n = len(image)
    if n < 64 or image[:4] != b"\x7fELF":
        raise BundleError(f"{what} is not an ELF file")
    if image[4] != 2 or image[5] != 1:
        raise BundleError(f"{what} is not a 64-bit little-endian ELF file")
    (e_machine,) = struct.unpack_from("<H", image, 18)
    if e_machine != machine:
        raise BundleError(f"{what} is an ELF file for machine {e_machine}, expected {machine}")
    e_phoff, e_shoff = struct.unpack_from("<QQ", image, 32)
    e_phentsize, e_phnum, e_shentsize, e_shnum = struct.unpack_from("<HHHH", image, 54)

    def inside(offset: int, size: int, part: str) -> None:
        if offset > n or size > n - offset:
            raise BundleError(f"{what}'s {part} lies outside the file ({offset} + {size} > {n})")

    if e_phnum:
        if e_phentsize < 56:
            raise BundleError(f"{what}'s program header entries are {e_phentsize} bytes")
        inside(e_phoff, e_phnum * e_phentsize, "program header table")
        for i in range(e_phnum):
            p_offset, = struct.unpack_from("<Q", image, e_phoff + i * e_phentsize + 8)
            p_filesz, = struct.unpack_from("<Q", image, e_phoff + i * e_phentsize + 32)
            inside(p_offset, p_filesz, f"segment {i}")
    if e_shoff:
        if e_shentsize < 64:
            raise BundleError(f"{what}'s section header entries are {e_shentsize} bytes")
        inside(e_shoff, 64, "section header table")
        count = e_shnum or struct.unpack_from("<Q", image, e_shoff + 32)[0]
        inside(e_shoff, count * e_shentsize, "section header table")
        for i in range(count):
            base = e_shoff + i * e_shentsize
            sh_type, = struct.unpack_from("<I", image, base + 4)
            sh_offset, sh_size = struct.unpack_from("<QQ", image, base + 24)
            if sh_type != 8:  # SHT_NOBITS occupies no bytes of the file
                inside(sh_offset, sh_size, f"section {i}")


def _expect(value: Any, kind: Any, where: str, what: str) -> Any:
    if not isinstance(value, kind) or (kind is int and isinstance(value, bool)):
        raise BundleError(f"{where}: {what} is {value!r}, not {getattr(kind, '__name__', kind)}")
    return value


def _check_meta(meta: Any, where: str) -> None:
    """The fields a launch reads, with the types it reads them as: a damaged or forged
    bundle.json is a :class:`BundleError` here, never a ``KeyError`` or a wrong launch
    later."""
    _expect(meta, dict, where, "the metadata")
    _expect(meta.get("entry"), str, where, "`entry`")
    target = _expect(meta.get("target"), str, where, "`target`")
    if not re.fullmatch(r"sm_(\d+)(\d)([af]?)", target):
        raise BundleError(f"{where}: target {target!r} is not an NVIDIA target")
    warps = _expect(meta.get("num_warps"), int, where, "`num_warps`")
    if warps < 1 or warps > 32 or warps & (warps - 1):
        raise BundleError(f"{where}: num_warps {warps} is not a power of two up to 32")
    for field in ("dynamic_shared_bytes", "static_shared_bytes"):
        v = _expect(meta.get(field, 0), int, where, f"`{field}`")
        if not 0 <= v < 2**32:
            raise BundleError(f"{where}: {field} {v} is out of range")
    key = _expect(meta.get("key"), dict, where, "`key`")
    _expect(key.get("kernel"), str, where, "`key.kernel`")
    for a in _expect(key.get("args"), list, where, "`key.args`"):
        _expect(a, dict, where, "an entry of `key.args`")
        _expect(a.get("name"), str, where, "an argument's `name`")
        _expect(a.get("spec"), str, where, "an argument's `spec`")
    for p in _expect(meta.get("params"), list, where, "`params`"):
        _expect(p, dict, where, "a parameter")
        _expect(p.get("name"), str, where, "a parameter's `name`")


def load_bundle(path: str) -> Bundle:
    """Reads the bundle directory ``path`` (``KERNEL-HASH.tcb``)."""
    meta_path = os.path.join(path, "bundle.json")
    try:
        with open(meta_path, "rb") as f:
            meta = json.load(f)
    except (OSError, ValueError, RecursionError) as e:
        raise BundleError(f"{meta_path}: {e}") from None
    if not isinstance(meta, dict):
        raise BundleError(f"{meta_path}: the metadata is {type(meta).__name__}, not an object")
    version = meta.get("format_version")
    if version != FORMAT_VERSION:
        newer = isinstance(version, int) and version > FORMAT_VERSION
        raise BundleError(
            f"{meta_path}: bundle format version {version} is not supported (this package "
            f"reads NVIDIA bundles, version {FORMAT_VERSION})"
            + ("; it was written by a newer tritonc" if newer else "")
        )
    _check_meta(meta, meta_path)
    try:
        with open(os.path.join(path, "kernel.ptx"), "rb") as f:
            ptx = f.read()
    except OSError as e:
        raise BundleError(f"{path}: {e}") from None
    try:
        with open(os.path.join(path, "kernel.cubin"), "rb") as f:
            cubin: Optional[bytes] = f.read()
    except FileNotFoundError:
        cubin = None
    except OSError as e:
        raise BundleError(f"{path}: {e}") from None
    if cubin is not None:
        check_elf_bounds(cubin, f"{path}: kernel.cubin")
    try:
        params = [_param(p, meta_path) for p in meta["params"]]
    except (KeyError, TypeError, AttributeError, ValueError) as e:
        if isinstance(e, BundleError):
            raise
        raise BundleError(f"{meta_path}: a parameter is malformed ({type(e).__name__}: {e})") \
            from None
    for p in params:
        if p.role != "passed":
            continue
        if type(p.index) is not int or not isinstance(p.dtype, str) \
                or type(p.align) is not int or p.align < 1 or p.align & (p.align - 1) \
                or not (p.divisibility is None or (type(p.divisibility) is int
                                                   and p.divisibility > 0)):
            raise BundleError(f"{meta_path}: parameter {p.name!r} is malformed")
    if meta.get("hidden_params"):
        raise BundleError(f"{meta_path}: hidden parameters are not supported here")
    passed = sorted(p.index for p in params if p.role == "passed")
    if passed != list(range(len(passed))):
        raise BundleError(f"{meta_path}: passed parameter indices {passed} have gaps")
    return Bundle(path=path, meta=meta, ptx=ptx, cubin=cubin, params=params)
