"""Record Triton 3.6's own `tl.randint`, `tl.rand`, `tl.randn` and `tl.randint4x` outputs
for a few seeds and offsets, so tritonc's Philox can be compared with them bit for bit.

Runs the kernel in crates/tritonc-spec/tests/fixtures/rng.py under `TRITON_INTERPRET=1`
(Triton's interpreter evaluates the same @jit code of triton/language/random.py with
numpy; no GPU and no torch needed) and writes
crates/tritonc-spec/tests/fixtures/philox_triton.json. Floats are stored as their u32 bit
patterns.

    python3 scripts/philox_fixture.py
"""

from __future__ import annotations

import json
import os
import sys

os.environ["TRITON_INTERPRET"] = "1"

import numpy as np  # noqa: E402
import triton  # noqa: E402

from triton_common import REPO_ROOT, load_module  # noqa: E402

FIXTURES = REPO_ROOT / "crates" / "tritonc-spec" / "tests" / "fixtures"
BLOCK = 64
# Seeds: zero, small, large i32, and one that only fits i64 (the launcher passes it as i64,
# Philox splits it into two 32-bit key words). Offsets: zero, a few thousand, and one where
# `offset + arange` wraps past 2^31 in int32.
CASES = [(0, 0), (123, 0), (123, 5000), (987654321, 77), (2**40 + 7, 3), (42, 2**31 - 20)]


class _Storage:
    """The slice of torch's untyped storage Triton's interpreter touches."""

    def __init__(self, arr: np.ndarray):
        self.arr = arr

    def data_ptr(self) -> int:
        return self.arr.ctypes.data

    def cpu(self) -> "_Storage":
        return self

    def copy_(self, other) -> None:
        pass  # host and "device" share the numpy buffer


class NumpyTensor:
    """A contiguous numpy array presented as the torch tensor the interpreter expects."""

    def __init__(self, arr: np.ndarray):
        self.arr = arr
        self.dtype = arr.dtype

    def data_ptr(self) -> int:
        return self.arr.ctypes.data

    def untyped_storage(self) -> _Storage:
        return _Storage(self.arr)

    def new_empty(self, *args, **kwargs) -> "NumpyTensor":
        return NumpyTensor(self.arr)

    def set_(self, *args) -> "NumpyTensor":
        return self

    def storage_offset(self) -> int:
        return 0

    def size(self):
        return self.arr.shape

    def stride(self):
        return tuple(s // self.arr.itemsize for s in self.arr.strides)

    def copy_(self, other) -> None:
        pass


def main() -> int:
    rng = load_module(FIXTURES / "rng.py")
    cases = []
    for seed, offset in CASES:
        u = np.zeros(BLOCK, np.uint32)
        f = np.zeros(BLOCK, np.float32)
        n = np.zeros(BLOCK, np.float32)
        r4 = np.zeros(4 * BLOCK, np.uint32)
        args = [NumpyTensor(a) for a in (u, f, n, r4)]
        with np.errstate(over="ignore"):
            rng.rng_kernel[(1,)](*args, seed, offset, BLOCK=BLOCK)
        cases.append({
            "seed": seed,
            "offset": offset,
            "randint": u.tolist(),
            "rand_bits": f.view(np.uint32).tolist(),
            "randn_bits": n.view(np.uint32).tolist(),
            "randint4x": r4.tolist(),
        })
    out = {"triton": triton.__version__, "block": BLOCK, "cases": cases}
    path = FIXTURES / "philox_triton.json"
    path.write_text(json.dumps(out, indent=None, separators=(",", ":")) + "\n")
    print(f"wrote {path} ({len(cases)} cases of {BLOCK})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
