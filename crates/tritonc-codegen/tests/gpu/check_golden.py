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


def check_tile_vector_add(results):
    """Goldens compiled from tile IR: add_kernel(x, y, out, n), BLOCK elements per program,
    128 threads (4 warps). `n` carries the `:16` hint, so it must be a multiple of 16."""
    for stem, dtype, block in (("tile_vector_add_fp32", np.float32, 1024), ("tile_vector_add_fp16", np.float16, 2048)):
        kernel = cp.RawModule(path=str(GOLDEN / f"{stem}.ptx")).get_function("add_kernel")
        for n in (16, 1008, 1 << 20, (1 << 20) + 48):
            rng = np.random.default_rng(n)
            x = cp.asarray(rng.standard_normal(n).astype(dtype))
            y = cp.asarray(rng.standard_normal(n).astype(dtype))
            out = cp.full(n + 64, 7.0, dtype=dtype)  # guard elements past the end
            kernel(((n + block - 1) // block,), (128,), (x, y, out, np.int32(n)))
            cp.cuda.runtime.deviceSynchronize()
            ok = bool(cp.array_equal(out[:n], x + y)) and bool((out[n:] == 7.0).all())
            results.append((f"{stem} n={n}", ok))


def check_tile_softmax(results):
    """softmax_kernel(out, in, in_row_stride, out_row_stride, n_cols), one program per row.
    fp16: BLOCK 1024, 4 warps, n_cols unhinted. fp32: BLOCK 8192, 16 warps, every int `:16`."""
    cases = (
        ("tile_softmax_fp16", np.float16, 128, ((1, 1024, 1024), (37, 1000, 1024), (5, 1, 16), (64, 781, 800))),
        ("tile_softmax_fp32", np.float32, 512, ((1, 8192, 8192), (19, 8000, 8192), (4, 16, 32), (33, 4096, 4112))),
    )
    for stem, dtype, threads, shapes in cases:
        kernel = cp.RawModule(path=str(GOLDEN / f"{stem}.ptx")).get_function("softmax_kernel")
        for rows, n_cols, stride in shapes:
            rng = np.random.default_rng(rows * n_cols)
            x = (rng.standard_normal((rows, stride)) * 4).astype(dtype)
            xf = x[:, :n_cols].astype(np.float64)
            expected = np.exp(xf - xf.max(axis=1, keepdims=True))
            expected /= expected.sum(axis=1, keepdims=True)
            out = cp.full((rows, stride), -5.0, dtype=dtype)
            kernel((rows,), (threads,), (out, cp.asarray(x), np.int32(stride), np.int32(stride), np.int32(n_cols)))
            cp.cuda.runtime.deviceSynchronize()
            got = cp.asnumpy(out).astype(np.float64)
            tol = 2e-3 if dtype == np.float16 else 1e-5
            err = float(np.abs(got[:, :n_cols] - expected).max())
            close = np.allclose(got[:, :n_cols], expected, rtol=tol, atol=tol * 1e-2)
            untouched = bool((got[:, n_cols:] == -5.0).all())
            results.append((f"{stem} rows={rows} n_cols={n_cols} (max abs err {err:.2e})", close and untouched))


def check_tile_reduce_2d(results):
    """reduce_2d(x, row_sum, col_max): one [16, 64] fp32 tile, one program of 128 threads."""
    kernel = cp.RawModule(path=str(GOLDEN / "tile_reduce_2d.ptx")).get_function("reduce_2d")
    for seed in (1, 2):
        rng = np.random.default_rng(seed)
        x = rng.standard_normal((16, 64), dtype=np.float32)
        row_sum = cp.zeros(16 + 4, dtype=cp.float32)
        col_max = cp.zeros(64 + 4, dtype=cp.float32)
        kernel((1,), (128,), (cp.asarray(x), row_sum, col_max))
        cp.cuda.runtime.deviceSynchronize()
        sums, maxes = cp.asnumpy(row_sum), cp.asnumpy(col_max)
        ok = np.allclose(sums[:16], x.astype(np.float64).sum(axis=1), rtol=1e-5, atol=1e-5)
        ok = ok and bool((maxes[:64] == x.max(axis=0)).all())
        ok = ok and bool((sums[16:] == 0).all() and (maxes[64:] == 0).all())
        results.append((f"tile_reduce_2d seed={seed}", ok))


def check_tile_downcast(results):
    """downcast(x: *fp32, out: *fp16, n: i32:16), BLOCK 1024, 128 threads."""
    kernel = cp.RawModule(path=str(GOLDEN / "tile_downcast.ptx")).get_function("downcast")
    for n in (16, 1040, 1 << 20):
        rng = np.random.default_rng(n)
        x = rng.standard_normal(n, dtype=np.float32) * 100
        out = cp.full(n + 64, 3.0, dtype=cp.float16)
        kernel(((n + 1023) // 1024,), (128,), (cp.asarray(x), out, np.int32(n)))
        cp.cuda.runtime.deviceSynchronize()
        got = cp.asnumpy(out)
        ok = bool((got[:n] == x.astype(np.float16)).all()) and bool((got[n:] == 3.0).all())
        results.append((f"tile_downcast n={n}", ok))


def main():
    results = []
    check_vector_add(results)
    check_softmax_row(results)
    check_tile_vector_add(results)
    check_tile_softmax(results)
    check_tile_reduce_2d(results)
    check_tile_downcast(results)
    for name, ok in results:
        print(("ok    " if ok else "FAIL  ") + name)
    failed = sum(1 for _, ok in results if not ok)
    print(f"{len(results) - failed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
