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


def scan_schedule_f32(values, spt, lanes, warps):
    """tritonc's scan order (tritonc_ttgir::ScanSchedule, Triton 3.6's) in float32 over the
    rows of `values` (last axis a power of two), for `spt` elements per thread, `lanes`
    and `warps` along the axis."""
    add32 = lambda a, b: np.float32(np.float32(a) + np.float32(b))
    return np.array([schedule_scan_generic(list(row), add32, False, spt, lanes, warps)
                     for row in values.astype(np.float32)], dtype=np.float32)


def check_example_cross_entropy(results):
    """cross_entropy_fwd_kernel(logits *fp32, labels *i64, loss *fp32, lse *fp32,
    row_stride i32:16, n_vocab i32, ignore_index i32), BLOCK_V 1024, 128 threads, one
    program per row; a loop over the vocabulary carries the running max and sum."""
    kernel = cp.RawModule(path=str(GOLDEN / "example_cross_entropy.ptx")).get_function("cross_entropy_fwd_kernel")
    for rows, n_vocab in ((3, 1000), (5, 3000), (2, 4096), (4, 17)):
        stride = (n_vocab + 15) // 16 * 16 + 16
        rng = np.random.default_rng(n_vocab)
        x = (rng.standard_normal((rows, stride)) * 3).astype(np.float32)
        labels = rng.integers(0, n_vocab, rows).astype(np.int64)
        labels[0] = -100
        loss = cp.full(rows, 9.0, dtype=cp.float32)
        lse = cp.full(rows, 9.0, dtype=cp.float32)
        kernel((rows,), (128,), (cp.asarray(x), cp.asarray(labels), loss, lse, np.int32(stride), np.int32(n_vocab), np.int32(-100)))
        cp.cuda.runtime.deviceSynchronize()
        xf = x[:, :n_vocab].astype(np.float64)
        m = xf.max(axis=1)
        ref_lse = m + np.log(np.exp(xf - m[:, None]).sum(axis=1))
        ref_loss = np.where(labels == -100, 0.0, ref_lse - xf[np.arange(rows), np.clip(labels, 0, None)])
        got_lse, got_loss = cp.asnumpy(lse), cp.asnumpy(loss)
        err = max(float(np.abs(got_lse - ref_lse).max()), float(np.abs(got_loss - ref_loss).max()))
        ok = np.allclose(got_lse, ref_lse, rtol=1e-5, atol=1e-4) and np.allclose(got_loss, ref_loss, rtol=1e-5, atol=1e-4)
        results.append((f"example_cross_entropy rows={rows} n_vocab={n_vocab} (max abs err {err:.2e})", ok))


def check_example_layer_norm_bwd_dwdb(results):
    """layer_norm_bwd_dwdb_kernel(dw_partial *fp32, db_partial *fp32, dw *fp16, db *fp16,
    n_partial i32, n_cols i32:16), BLOCK_M 32, BLOCK_N 64, 128 threads; a loop carries two
    [32, 64] accumulators, then column sums."""
    kernel = cp.RawModule(path=str(GOLDEN / "example_layer_norm_bwd_dwdb.ptx")).get_function("layer_norm_bwd_dwdb_kernel")
    for n_partial, n_cols in ((1, 64), (37, 80), (100, 1008)):
        rng = np.random.default_rng(n_partial * n_cols)
        dwp = rng.standard_normal((n_partial, n_cols)).astype(np.float32)
        dbp = rng.standard_normal((n_partial, n_cols)).astype(np.float32)
        dw = cp.full(n_cols + 8, 5.0, dtype=cp.float16)
        db = cp.full(n_cols + 8, 5.0, dtype=cp.float16)
        kernel(((n_cols + 63) // 64,), (128,), (cp.asarray(dwp), cp.asarray(dbp), dw, db, np.int32(n_partial), np.int32(n_cols)))
        cp.cuda.runtime.deviceSynchronize()
        ref_dw = dwp.astype(np.float64).sum(axis=0)
        ref_db = dbp.astype(np.float64).sum(axis=0)
        got_dw, got_db = cp.asnumpy(dw).astype(np.float64), cp.asnumpy(db).astype(np.float64)
        ok = np.allclose(got_dw[:n_cols], ref_dw, rtol=2e-3, atol=2e-3) and np.allclose(got_db[:n_cols], ref_db, rtol=2e-3, atol=2e-3)
        ok = ok and bool((got_dw[n_cols:] == 5.0).all() and (got_db[n_cols:] == 5.0).all())
        results.append((f"example_layer_norm_bwd_dwdb n_partial={n_partial} n_cols={n_cols}", ok))


def check_example_cumsum(results):
    """cumsum_kernel(x, out, x_row_stride, out_row_stride, n_rows, n_cols), 128 threads.
    i32 -> i64 (BLOCK_M 8, BLOCK_N 512, strides :16) must be exact; fp16 -> fp32 (BLOCK_M 2,
    BLOCK_N 2048) must equal tritonc's documented scan order bit for bit."""
    k32 = cp.RawModule(path=str(GOLDEN / "example_cumsum_i32.ptx")).get_function("cumsum_kernel")
    for n_rows, n_cols in ((1, 1), (13, 300), (100, 512)):
        rng = np.random.default_rng(n_rows + n_cols)
        x = rng.integers(-1000, 1000, (n_rows, 512)).astype(np.int32)
        out = cp.full((n_rows, 512), -7, dtype=cp.int64)
        k32(((n_rows + 7) // 8,), (128,), (cp.asarray(x), out, np.int32(512), np.int32(512), np.int32(n_rows), np.int32(n_cols)))
        cp.cuda.runtime.deviceSynchronize()
        got = cp.asnumpy(out)
        ok = bool((got[:, :n_cols] == np.cumsum(x[:, :n_cols].astype(np.int64), axis=1)).all())
        ok = ok and bool((got[:, n_cols:] == -7).all())
        results.append((f"example_cumsum_i32 n_rows={n_rows} n_cols={n_cols}", ok))
    k16 = cp.RawModule(path=str(GOLDEN / "example_cumsum_fp16.ptx")).get_function("cumsum_kernel")
    for n_rows, n_cols, stride in ((1, 2048, 2048), (7, 1500, 1503), (4, 3, 5)):
        rng = np.random.default_rng(n_rows * n_cols)
        x = rng.standard_normal((n_rows, stride)).astype(np.float16)
        out = cp.full((n_rows, stride), -7.0, dtype=cp.float32)
        k16(((n_rows + 1) // 2,), (128,), (cp.asarray(x), out, np.int32(stride), np.int32(stride), np.int32(n_rows), np.int32(n_cols)))
        cp.cuda.runtime.deviceSynchronize()
        got = cp.asnumpy(out)
        padded = np.zeros((n_rows, 2048), dtype=np.float32)
        padded[:, :n_cols] = x[:, :n_cols].astype(np.float32)
        # The scan's layout (`--emit ttgir`): 1 per thread, 32 lanes, 4 warps along the row.
        expected = scan_schedule_f32(padded, 1, 32, 4)[:, :n_cols]
        exact = bool((got[:, :n_cols] == expected).all())
        close = np.allclose(got[:, :n_cols], np.cumsum(x[:, :n_cols].astype(np.float64), axis=1), rtol=1e-4, atol=1e-3)
        ok = exact and close and bool((got[:, n_cols:] == -7.0).all())
        results.append((f"example_cumsum_fp16 n_rows={n_rows} n_cols={n_cols} (bit-exact schedule: {exact})", ok))


def check_example_matmul(results):
    """matmul_kernel(a, b, c, M, N, K, stride_am, stride_bk, stride_cm) with the unit
    strides specialized away; 64x64x32 tiles, GROUP_M 8, leaky_relu, 128 threads. The dot
    runs on the tensor cores (mma.sync m16n8k16): k steps of 16 in order, each summed by
    the hardware, so it is within K·2^-23·Σ|a b| of the in-order fp32 sum (docs/numerics.md),
    and usually bit-exact with it."""
    kernel = cp.RawModule(path=str(GOLDEN / "example_matmul_leaky_relu.ptx")).get_function("matmul_kernel")
    for m, n, k in ((64, 64, 32), (100, 130, 70), (256, 192, 96)):
        rng = np.random.default_rng(m * n * k)
        a = rng.standard_normal((m, k)).astype(np.float16)
        b = rng.standard_normal((k, n)).astype(np.float16)
        c = cp.full((m, n), 3.0, dtype=cp.float16)
        grid = ((m + 63) // 64 * ((n + 63) // 64),)
        kernel(grid, (128,), (cp.asarray(a), cp.asarray(b), c, np.int32(m), np.int32(n), np.int32(k), np.int32(k), np.int32(n), np.int32(n)))
        cp.cuda.runtime.deviceSynchronize()
        acc = np.zeros((m, n), dtype=np.float32)
        af, bf = a.astype(np.float32), b.astype(np.float32)
        for kk in range(k):
            acc = (acc + np.outer(af[:, kk], bf[kk, :]).astype(np.float32)).astype(np.float32)
        act = np.where(acc >= 0, acc, acc * np.float32(0.01)).astype(np.float16)
        got = cp.asnumpy(c)
        exact = bool((got == act).all())
        ref = a.astype(np.float64) @ b.astype(np.float64)
        ref = np.where(ref >= 0, ref, ref * 0.01)
        err = float(np.abs(got.astype(np.float64) - ref).max())
        ok = np.allclose(got.astype(np.float64), ref, rtol=1e-2, atol=1e-2)
        results.append((f"example_matmul_leaky_relu {m}x{n}x{k} (bit-exact: {exact}, max abs err {err:.2e})", ok))


def check_example_flash_attention(results):
    """attention_fwd_kernel(q, k, v, o, sm_scale, stride_b, stride_h, stride_s, n_heads,
    seq_len:16), HEAD_DIM 64, BLOCK_M 128, BLOCK_N 64, non-causal, 256 threads."""
    kernel = cp.RawModule(path=str(GOLDEN / "example_flash_attention.ptx")).get_function("attention_fwd_kernel")
    # Its buffers (K and V in three stages, Q) are dynamic shared memory (`.extern
    # .shared`, over 48 KiB): the launch gives the bytes, opted in above the default.
    dynamic = 200 * 1024
    kernel.max_dynamic_shared_size_bytes = dynamic
    for batch, heads, seq in ((1, 1, 64), (1, 2, 192), (2, 2, 256)):
        rng = np.random.default_rng(seq * heads)
        q, k, v = (rng.standard_normal((batch, heads, seq, 64)).astype(np.float16) for _ in range(3))
        o = cp.full((batch, heads, seq, 64), 9.0, dtype=cp.float16)
        scale = np.float32(64 ** -0.5)
        grid = ((seq + 127) // 128, batch * heads)
        kernel(grid, (256,), (cp.asarray(q), cp.asarray(k), cp.asarray(v), o, scale,
                              np.int32(heads * seq * 64), np.int32(seq * 64), np.int32(64), np.int32(heads), np.int32(seq)),
               shared_mem=dynamic)
        cp.cuda.runtime.deviceSynchronize()
        qf, kf, vf = (t.astype(np.float64) for t in (q, k, v))
        s = qf @ kf.transpose(0, 1, 3, 2) * float(scale)
        p = np.exp(s - s.max(axis=-1, keepdims=True))
        ref = (p / p.sum(axis=-1, keepdims=True)) @ vf
        got = cp.asnumpy(o).astype(np.float64)
        err = float(np.abs(got - ref).max())
        ok = np.allclose(got, ref, rtol=2e-2, atol=2e-2)
        results.append((f"example_flash_attention b={batch} h={heads} s={seq} (max abs err {err:.2e})", ok))


def schedule_scan_generic(values, combine, reverse, spt, lanes, warps):
    """tritonc's scan order on a Python list (tritonc_ttgir::ScanSchedule, Triton 3.6's
    ScanOpToLLVM order): each thread scans its `spt` elements, the thread totals are
    scanned over `lanes` by shuffle-up rounds, warp totals fold left to right onto the
    running total of earlier repetitions; the other elements take the lane before's last
    element (the warp's prefix in lane 0)."""
    n = len(values)
    blocks = n // (spt * lanes * warps)
    real = (lambda q: n - 1 - q) if reverse else (lambda q: q)
    x = [values[real(q)] for q in range(n)]
    pos = lambda b, w, l, e: ((b * warps + w) * lanes + l) * spt + e
    after = lambda p, v: v if p is None else combine(p, v)
    out = [None] * n
    total = None
    for b in range(blocks):
        s, t = {}, []
        for w in range(warps):
            for l in range(lanes):
                acc = None
                for e in range(spt):
                    acc = after(acc, x[pos(b, w, l, e)])
                    s[w, l, e] = acc
            tw = [s[w, l, spt - 1] for l in range(lanes)]
            d = 1
            while d < lanes:
                prev = list(tw)
                for l in range(d, lanes):
                    tw[l] = combine(prev[l - d], prev[l])
                d *= 2
            t.append(tw)
        carry = total
        for w in range(warps):
            prefix = carry
            last = [after(prefix, t[w][l]) for l in range(lanes)]
            for l in range(lanes):
                out[pos(b, w, l, spt - 1)] = last[l]
                before = last[l - 1] if l > 0 else prefix
                for e in range(spt - 1):
                    out[pos(b, w, l, e)] = after(before, s[w, l, e])
            if warps > 1:
                carry = after(carry, t[w][lanes - 1])
        total = carry if warps > 1 else out[pos(b, 0, lanes - 1, spt - 1)]
    res = [None] * n
    for q in range(n):
        res[real(q)] = out[q]
    return res


def check_test_kernels(results):
    """tests/kernels/memory_ops.py: atomics, i1/i8 memory, trans/join, reverse and custom
    scans (4 warps, 128 threads)."""
    hist = cp.RawModule(path=str(GOLDEN / "ops_histogram.ptx")).get_function("histogram_kernel")
    for n in (1, 1000, 5000):
        rng = np.random.default_rng(n)
        x = rng.integers(0, 1 << 20, n).astype(np.int32)
        h = cp.zeros(16, dtype=cp.int32)
        count = cp.zeros(1, dtype=cp.int32)
        hist(((n + 1023) // 1024,), (128,), (cp.asarray(x), h, count, np.int32(n)))
        cp.cuda.runtime.deviceSynchronize()
        ok = bool((cp.asnumpy(h) == np.bincount(x & 15, minlength=16)).all()) and int(count[0]) == n
        results.append((f"ops_histogram n={n}", ok))
    flags = cp.RawModule(path=str(GOLDEN / "ops_flags.ptx")).get_function("flags_kernel")
    for n in (1, 255, 1000):
        rng = np.random.default_rng(n)
        f = rng.integers(0, 2, n + 8).astype(np.bool_)
        b = rng.integers(-128, 127, n + 8).astype(np.int8)
        of = cp.full(n + 8, 7, dtype=cp.int8)
        ob = cp.full(n + 8, 7, dtype=cp.int8)
        flags(((n + 255) // 256,), (128,), (cp.asarray(f.view(np.int8)), cp.asarray(b), of, ob, np.int32(n)))
        cp.cuda.runtime.deviceSynchronize()
        got_f, got_b = cp.asnumpy(of), cp.asnumpy(ob)
        ok = bool((got_f[:n] == (~f[:n]).astype(np.int8)).all())
        ok = ok and bool((got_b[:n] == np.where(f[:n], (b[:n].astype(np.int16) + 1).astype(np.int8), b[:n])).all())
        ok = ok and bool((got_f[n:] == 7).all() and (got_b[n:] == 7).all())
        results.append((f"ops_flags n={n}", ok))
    shapes = cp.RawModule(path=str(GOLDEN / "ops_shapes.ptx")).get_function("shapes_kernel")
    x = np.random.default_rng(3).standard_normal((16, 32)).astype(np.float32)
    t = cp.zeros((32, 16), dtype=cp.float32)
    j = cp.zeros((16, 32, 2), dtype=cp.float32)
    shapes((1,), (128,), (cp.asarray(x), t, j))
    cp.cuda.runtime.deviceSynchronize()
    ok = bool((cp.asnumpy(t) == x.T).all()) and bool((cp.asnumpy(j) == np.stack([x, x * 2], axis=-1)).all())
    results.append(("ops_shapes trans and join", ok))
    scans = cp.RawModule(path=str(GOLDEN / "ops_scans.ptx")).get_function("scans_kernel")
    x = np.random.default_rng(4).standard_normal(1024).astype(np.float32)
    rev = cp.zeros(1024, dtype=cp.float32)
    last = cp.zeros(1024, dtype=cp.float32)
    scans((1,), (128,), (cp.asarray(x), rev, last))
    cp.cuda.runtime.deviceSynchronize()
    add32 = lambda a, b: np.float32(np.float32(a) + np.float32(b))
    # 4 per thread, 32 lanes, 4 warps, 2 repetitions (`--emit ttgir`).
    expected_rev = np.array(schedule_scan_generic(list(x), add32, True, 4, 32, 4), dtype=np.float32)
    exact = bool((cp.asnumpy(rev) == expected_rev).all())
    close = np.allclose(cp.asnumpy(rev), np.cumsum(x[::-1].astype(np.float64))[::-1], rtol=1e-4, atol=1e-3)
    results.append((f"ops_scans reverse cumsum (bit-exact schedule: {exact})", exact and close))
    results.append(("ops_scans associative_scan keeping the right operand", bool((cp.asnumpy(last) == x).all())))
    dot = cp.RawModule(path=str(GOLDEN / "ops_dot_f32.ptx")).get_function("dot_f32_kernel")
    rng = np.random.default_rng(5)
    a = rng.standard_normal((32, 16)).astype(np.float32)
    b = rng.standard_normal((16, 32)).astype(np.float32)
    c = cp.zeros((32, 32), dtype=cp.float32)
    d = cp.zeros((32, 32), dtype=cp.float32)
    dot((1,), (128,), (cp.asarray(a), cp.asarray(b), c, d))
    cp.cuda.runtime.deviceSynchronize()

    def tf32(x):
        # The tensor cores use the top 10 mantissa bits of the fp32 inputs (mma.sync .tf32).
        bits = x.view(np.uint32)
        return (bits & np.uint32(0xFFFFE000)).view(np.float32)

    # k steps of 8 summed by the hardware: within K·2^-23·Σ|a b| of the in-order sum.
    at, bt = tf32(a), tf32(b)
    acc = at.astype(np.float64) @ bt.astype(np.float64)
    bound = 16 * 2.0 ** -23 * (np.abs(at).astype(np.float64) @ np.abs(bt).astype(np.float64)) + 1e-30
    got = cp.asnumpy(c).astype(np.float64)
    results.append((f"ops_dot_f32 tf32 on tensor cores (max |err|/bound {float((np.abs(got - acc) / bound).max()):.2f})",
                    bool((np.abs(got - acc) <= bound).all())))
    ref = a.astype(np.float64) @ b.astype(np.float64)
    err = float(np.abs(cp.asnumpy(d) - ref).max())
    results.append((f"ops_dot_f32 ieee (max abs err {err:.2e})", err < 1e-5))
    rtz = cp.RawModule(path=str(GOLDEN / "ops_rtz.ptx")).get_function("rtz_kernel")
    x = (np.random.default_rng(6).standard_normal(512) * 1000).astype(np.float32)
    x[:4] = [1e5, -1e5, 65519.0, 1.0 + 2.0**-11]
    h = cp.zeros(512, dtype=cp.float16)
    bf = cp.zeros(512, dtype=cp.uint16)
    rtz((1,), (128,), (cp.asarray(x), h, bf))
    cp.cuda.runtime.deviceSynchronize()
    with np.errstate(over="ignore"):
        nearest = x.astype(np.float16)
    # Step back toward zero where nearest rounded away (overflow to inf included).
    away = np.abs(nearest.astype(np.float64)) > np.abs(x.astype(np.float64))
    expected_h = np.where(away, np.nextafter(nearest, np.float16(0)), nearest)
    expected_bf = (x.view(np.uint32) >> 16).astype(np.uint16)
    ok_h = bool((cp.asnumpy(h).view(np.uint16) == expected_h.view(np.uint16)).all())
    ok_bf = bool((cp.asnumpy(bf) == expected_bf).all())
    results.append(("ops_rtz fp32 -> fp16 round toward zero", ok_h))
    results.append(("ops_rtz fp32 -> bf16 round toward zero", ok_bf))
    fp8 = cp.RawModule(path=str(GOLDEN / "ops_fp8.ptx")).get_function("fp8_kernel")
    codes = np.arange(256, dtype=np.uint8)
    f4 = cp.zeros(256, dtype=cp.float32)
    f5 = cp.zeros(256, dtype=cp.float32)
    e4 = cp.zeros(256, dtype=cp.uint8)
    e5 = cp.zeros(256, dtype=cp.uint8)
    fp8((1,), (128,), (cp.asarray(codes), cp.asarray(codes), f4, f5, e4, e5))
    cp.cuda.runtime.deviceSynchronize()
    for name, got, exp_bits, man_bits, bias, enc in (
        ("e4m3fn", f4, 4, 3, 7, e4),
        ("e5m2", f5, 5, 2, 15, e5),
    ):
        sign = np.where(codes >> 7, -1.0, 1.0)
        e = (codes >> man_bits) & ((1 << exp_bits) - 1)
        m = codes & ((1 << man_bits) - 1)
        value = np.where(e == 0, m / 2.0**man_bits * 2.0 ** (1 - bias), (1 + m / 2.0**man_bits) * 2.0 ** (e.astype(np.int64) - bias))
        value = sign * value
        if name == "e4m3fn":
            nan = (e == 15) & (m == 7)
            inf = np.zeros(256, dtype=bool)
        else:
            nan = (e == 31) & (m != 0)
            inf = (e == 31) & (m == 0)
            value = np.where(inf, sign * np.inf, value)
        decoded = cp.asnumpy(got).astype(np.float64)
        ok = bool((decoded[~nan] == value[~nan]).all()) and bool(np.isnan(decoded[nan]).all())
        results.append((f"ops_fp8 {name} decodes every byte", ok))
        back = cp.asnumpy(enc)
        # Saturating encode: infinities become the largest finite value of their sign.
        expected = np.where(inf, codes - 1, codes)
        ok = bool((back[~nan] == expected[~nan]).all())
        results.append((f"ops_fp8 {name} encodes every value back (satfinite)", ok))
    control = cp.RawModule(path=str(GOLDEN / "ops_control.ptx")).get_function("control_kernel")
    for n, flag in ((512, 3), (300, 0), (100, -2), (1, 7)):
        x = np.random.default_rng(n).standard_normal(512).astype(np.float32)
        out = cp.full(512, 5.0, dtype=cp.float32)
        control((1,), (128,), (cp.asarray(x), out, np.int32(n), np.int32(flag)))
        cp.cuda.runtime.deviceSynchronize()
        y = (x * np.float32(2)) if flag > 0 else (x - np.float32(1))
        for _ in range(max(flag, 0)):
            y = (y + np.float32(1)).astype(np.float32)
        got = cp.asnumpy(out)
        ok = bool((got[:n] == y[:n]).all()) and bool((got[n:] == 5.0).all())
        results.append((f"ops_control if/while n={n} flag={flag}", ok))


def main():
    results = []
    check_vector_add(results)
    check_softmax_row(results)
    check_tile_vector_add(results)
    check_tile_softmax(results)
    check_tile_reduce_2d(results)
    check_tile_downcast(results)
    check_example_cross_entropy(results)
    check_example_layer_norm_bwd_dwdb(results)
    check_example_cumsum(results)
    check_example_matmul(results)
    check_example_flash_attention(results)
    check_test_kernels(results)
    for name, ok in results:
        print(("ok    " if ok else "FAIL  ") + name)
    failed = sum(1 for _, ok in results if not ok)
    print(f"{len(results) - failed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
