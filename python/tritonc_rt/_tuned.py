"""Tuning tables written by ``tritonc tune`` (``KERNEL.tune-HASH.json`` next to the
bundles), and the dispatch rule that picks a config for the actual key values — the same
rule as tritonc's own (``tritonc_bundle::tuned``; docs/tune.md):

1. the winner tuned for exactly these key values;
2. else, among entries whose non-numeric key values (dtypes, strings) are equal, the
   winner of the nearest: the smallest sum over numeric keys of
   ``|log2(actual) - log2(tuned)|`` (ties: the entry tuned first);
3. else the first config.

A table is used only when it was measured on the device model the launch runs on, and
only its entries whose variants are all among the bundles loaded, each with the code
digest the entry records (an entry measured on code recompiled since is left out).
"""

from __future__ import annotations

import hashlib
import json
import math
import os
from typing import Any, Dict, List, Optional, Sequence, Tuple

#: The table format this package reads.
TUNE_FORMAT_VERSION = 1


def code_digest(bundle: Any) -> str:
    """SHA-256 of a variant's code, as ``tritonc tune`` records it."""
    h = hashlib.sha256()
    h.update(b"tritonc-code-v1\0")
    h.update(str(bundle.meta["key_hash"]).encode())
    h.update(b"\0")
    h.update(bundle.ptx)
    h.update(b"\0")
    if bundle.cubin:
        h.update(bundle.cubin)
    return h.hexdigest()


class TuneTable:
    """One table: its configs (meta-parameter values, warps, stages, bundle directory)
    and one entry per tuned key value."""

    def __init__(self, data: Dict[str, Any]):
        self.kernel: str = data["kernel"]
        self.device: str = data["device"]
        self.key: List[str] = list(data["key"])
        self.configs: List[Dict[str, Any]] = list(data["configs"])
        self.entries: List[Dict[str, Any]] = list(data["entries"])

    def usable(self, digests: Any) -> "TuneTable":
        """The table with only the entries whose variants' digests are all in
        ``digests``."""
        t = TuneTable.__new__(TuneTable)
        t.__dict__.update(self.__dict__)
        t.entries = [e for e in self.entries
                     if all(v is None or v["digest"] in digests for v in e.get("variants", []))]
        return t

    def meta_names(self) -> List[str]:
        """The meta-parameters the configs set."""
        names: List[str] = []
        for c in self.configs:
            for k in c["values"]:
                if k not in names:
                    names.append(k)
        return names

    def choose(self, key: Dict[str, Any]) -> Tuple[int, str]:
        """The config index for the actual key values, and how it was decided
        (``exact``, ``nearest``, ``default``)."""
        for e in self.entries:
            if e["key"] == key:
                return int(e["winner"]), "exact"
        best: Optional[Tuple[float, int]] = None
        for e in self.entries:
            d = _distance(key, e["key"])
            if d is not None and (best is None or d < best[0]):
                best = (d, int(e["winner"]))
        if best is not None:
            return best[1], "nearest"
        return 0, "default"


def _distance(actual: Dict[str, Any], tuned: Dict[str, Any]) -> Optional[float]:
    if set(actual) != set(tuned):
        return None
    d = 0.0
    for name, a in actual.items():
        t = tuned[name]
        numeric = all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in (a, t))
        if numeric:
            d += abs(math.log2(max(abs(a), 1)) - math.log2(max(abs(t), 1)))
        elif a != t:
            return None
    return d


def tables_in(path: str, kernel: str) -> List[TuneTable]:
    """Every table of ``kernel`` in the directory ``path`` (by file name order)."""
    try:
        names = sorted(os.listdir(path))
    except OSError:
        return []
    out = []
    for n in names:
        if not (n.startswith(f"{kernel}.tune-") and n.endswith(".json")):
            continue
        try:
            with open(os.path.join(path, n), "rb") as f:
                data = json.load(f)
        except (OSError, ValueError):
            continue
        if data.get("format_version") == TUNE_FORMAT_VERSION and data.get("kernel") == kernel:
            out.append(TuneTable(data))
    return out


def matching_table(tables: Sequence[TuneTable], device: str, digests: Any) -> Optional[TuneTable]:
    """The table measured on ``device`` with the most entries usable with the code in
    ``digests`` (the loaded variants' code digests), reduced to those entries."""
    best = None
    for t in tables:
        if t.device != device:
            continue
        u = t.usable(digests)
        if best is None or len(u.entries) > len(best.entries):
            best = u
    return best


def key_value(value: Any) -> Any:
    """A launch argument as a key value: ints and floats as numbers, booleans as 0/1,
    anything else as its text (tensors are not supported as key values here)."""
    if isinstance(value, bool):
        return int(value)
    if isinstance(value, (int, float)):
        return value
    return str(value)
