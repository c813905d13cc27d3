"""Reading a bundle directory: bundle.json, kernel.ptx and, when present, kernel.cubin."""

from __future__ import annotations

import json
import os
import re
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
        """(major, minor, arch_specific) of the target, e.g. (9, 0, False) for sm_90."""
        m = re.fullmatch(r"sm_(\d+)(\d)([af]?)", self.target)
        if not m:
            raise BundleError(f"{self.path}: target {self.target!r} is not an NVIDIA target")
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


def load_bundle(path: str) -> Bundle:
    """Reads the bundle directory ``path`` (``KERNEL-HASH.tcb``)."""
    meta_path = os.path.join(path, "bundle.json")
    try:
        with open(meta_path, "rb") as f:
            meta = json.load(f)
    except (OSError, ValueError) as e:
        raise BundleError(f"{meta_path}: {e}") from None
    version = meta.get("format_version")
    if version != FORMAT_VERSION:
        newer = isinstance(version, int) and version > FORMAT_VERSION
        raise BundleError(
            f"{meta_path}: bundle format version {version} is not supported (this package "
            f"reads NVIDIA bundles, version {FORMAT_VERSION})"
            + ("; it was written by a newer tritonc" if newer else "")
        )
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
    params = [_param(p, meta_path) for p in meta["params"]]
    if meta.get("hidden_params"):
        raise BundleError(f"{meta_path}: hidden parameters are not supported here")
    passed = sorted(p.index for p in params if p.role == "passed")
    if passed != list(range(len(passed))):
        raise BundleError(f"{meta_path}: passed parameter indices {passed} have gaps")
    return Bundle(path=path, meta=meta, ptx=ptx, cubin=cubin, params=params)
