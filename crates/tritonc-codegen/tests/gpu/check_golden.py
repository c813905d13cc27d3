"""Loads the golden PTX kernels with CuPy on an NVIDIA GPU and checks their results.

Run on a machine with a GPU, CUDA driver and CuPy:
    python3 crates/tritonc-codegen/tests/gpu/check_golden.py
Prints one line per check and 'N passed, N failed'; exits non-zero on a failure.
"""

import pathlib
import sys

import cupy as cp
import numpy as np

GOLDEN = pathlib.Path(__file__).resolve().parent.parent / "golden"


def check_vector_add(results):
    module = cp.RawModule(path=str(GOLDEN / "vector_add.ptx"))
    kernel = module.get_function("vector_add")
    for n in (1, 1000, 1 << 20, (1 << 20) + 3):
        rng = np.random.default_rng(n)
        x = cp.asarray(rng.standard_normal(n, dtype=np.float32))
        y = cp.asarray(rng.standard_normal(n, dtype=np.float32))
        out = cp.full(n + 1, 7.0, dtype=cp.float32)  # one guard element past the end
        threads = 256
        kernel(((n + threads - 1) // threads,), (threads,), (x, y, out, np.int32(n)))
        cp.cuda.runtime.deviceSynchronize()
        ok = bool(cp.array_equal(out[:n], x + y)) and float(out[n]) == 7.0
        results.append((f"vector_add n={n}", ok))


def check_softmax_row(results):
    module = cp.RawModule(path=str(GOLDEN / "softmax_row.ptx"))
    kernel = module.get_function("softmax_row")
    for rows, n_cols, stride in ((1, 1024, 1024), (37, 1000, 1024), (5, 1, 8), (64, 781, 800)):
        rng = np.random.default_rng(rows * n_cols)
        x = rng.standard_normal((rows, stride), dtype=np.float32) * 4
        expected = np.exp(x[:, :n_cols] - x[:, :n_cols].max(axis=1, keepdims=True))
        expected /= expected.sum(axis=1, keepdims=True)
        x_gpu = cp.asarray(x)
        out = cp.full((rows, stride), -5.0, dtype=cp.float32)
        kernel((rows,), (256,), (x_gpu, out, np.int32(stride), np.int32(n_cols)))
        cp.cuda.runtime.deviceSynchronize()
        got = cp.asnumpy(out)
        close = np.allclose(got[:, :n_cols], expected, rtol=1e-5, atol=1e-7)
        untouched = bool((got[:, n_cols:] == -5.0).all())
        err = float(np.abs(got[:, :n_cols] - expected).max())
        results.append((f"softmax_row rows={rows} n_cols={n_cols} (max abs err {err:.2e})", close and untouched))


def main():
    results = []
    check_vector_add(results)
    check_softmax_row(results)
    for name, ok in results:
        print(("ok    " if ok else "FAIL  ") + name)
    failed = sum(1 for _, ok in results if not ok)
    print(f"{len(results) - failed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
