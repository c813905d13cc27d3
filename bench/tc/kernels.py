"""Benchmark kernels for the tensor-core path, written for this benchmark (not tuned for):
a row-major matmul in both accumulation spellings and an attention forward with two dots.
Every argument is a pointer or a multiple-of-16 integer, so tritonc's and Triton's
kernels take the same parameters (Triton's PTX adds its two scratch pointers)."""

import triton
import triton.language as tl


@triton.jit
def bench_matmul(a_ptr, b_ptr, c_ptr, M, N, K, stride_a, stride_b, stride_c,
                 BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr, GROUP: tl.constexpr,
                 PLUS_EQUALS: tl.constexpr):
    pid = tl.program_id(0)
    grid_m = tl.cdiv(M, BM)
    grid_n = tl.cdiv(N, BN)
    width = GROUP * grid_n
    group = pid // width
    size = min(grid_m - group * GROUP, GROUP)
    pid_m = group * GROUP + (pid % size)
    pid_n = (pid % width) // size
    rm = pid_m * BM + tl.arange(0, BM)
    rn = pid_n * BN + tl.arange(0, BN)
    rk = tl.arange(0, BK)
    a_ptrs = a_ptr + rm[:, None] * stride_a + rk[None, :]
    b_ptrs = b_ptr + rk[:, None] * stride_b + rn[None, :]
    if c_ptr.dtype.element_ty == tl.int32:
        acc = tl.zeros((BM, BN), dtype=tl.int32)
    else:
        acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k in range(0, K, BK):
        a = tl.load(a_ptrs)
        b = tl.load(b_ptrs)
        if PLUS_EQUALS:
            acc += tl.dot(a, b)
        else:
            acc = tl.dot(a, b, acc)
        a_ptrs += BK
        b_ptrs += BK * stride_b
    c_ptrs = c_ptr + rm[:, None] * stride_c + rn[None, :]
    tl.store(c_ptrs, acc.to(c_ptr.dtype.element_ty))


@triton.jit
def bench_matmul_bt(a_ptr, b_ptr, c_ptr, M, N, K, stride_a, stride_b, stride_c,
                    BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr, GROUP: tl.constexpr):
    # C = A @ Bt.T with Bt an N x K row-major matrix: B's tiles arrive K-contiguous (the
    # order every wgmma type accepts without a transpose).
    pid = tl.program_id(0)
    grid_m = tl.cdiv(M, BM)
    grid_n = tl.cdiv(N, BN)
    width = GROUP * grid_n
    group = pid // width
    size = min(grid_m - group * GROUP, GROUP)
    pid_m = group * GROUP + (pid % size)
    pid_n = (pid % width) // size
    rm = pid_m * BM + tl.arange(0, BM)
    rn = pid_n * BN + tl.arange(0, BN)
    rk = tl.arange(0, BK)
    a_ptrs = a_ptr + rm[:, None] * stride_a + rk[None, :]
    b_ptrs = b_ptr + rn[None, :] * stride_b + rk[:, None]
    if c_ptr.dtype.element_ty == tl.int32:
        acc = tl.zeros((BM, BN), dtype=tl.int32)
    else:
        acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k in range(0, K, BK):
        a = tl.load(a_ptrs)
        b = tl.load(b_ptrs)
        acc = tl.dot(a, b, acc)
        a_ptrs += BK
        b_ptrs += BK
    c_ptrs = c_ptr + rm[:, None] * stride_c + rn[None, :]
    tl.store(c_ptrs, acc.to(c_ptr.dtype.element_ty))


@triton.jit
def bench_matmul_x3(a_ptr, b_ptr, c_ptr, M, N, K, stride_a, stride_b, stride_c,
                    BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr, GROUP: tl.constexpr):
    # fp32 matmul with input_precision="tf32x3" (three tf32 dots per K step).
    pid = tl.program_id(0)
    grid_m = tl.cdiv(M, BM)
    grid_n = tl.cdiv(N, BN)
    width = GROUP * grid_n
    group = pid // width
    size = min(grid_m - group * GROUP, GROUP)
    pid_m = group * GROUP + (pid % size)
    pid_n = (pid % width) // size
    rm = pid_m * BM + tl.arange(0, BM)
    rn = pid_n * BN + tl.arange(0, BN)
    rk = tl.arange(0, BK)
    a_ptrs = a_ptr + rm[:, None] * stride_a + rk[None, :]
    b_ptrs = b_ptr + rk[:, None] * stride_b + rn[None, :]
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k in range(0, K, BK):
        a = tl.load(a_ptrs)
        b = tl.load(b_ptrs)
        acc = tl.dot(a, b, acc, input_precision="tf32x3")
        a_ptrs += BK
        b_ptrs += BK * stride_b
    c_ptrs = c_ptr + rm[:, None] * stride_c + rn[None, :]
    tl.store(c_ptrs, acc)


@triton.jit
def bench_attention(q_ptr, k_ptr, v_ptr, o_ptr, N_CTX, stride_h, stride_s,
                    HEAD_DIM: tl.constexpr, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    start_m = tl.program_id(0)
    off_h = tl.program_id(1).to(tl.int64) * stride_h
    offs_m = start_m * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_n = tl.arange(0, BLOCK_N)
    offs_d = tl.arange(0, HEAD_DIM)
    q = tl.load(q_ptr + off_h + offs_m[:, None] * stride_s + offs_d[None, :])
    m_i = tl.zeros((BLOCK_M,), dtype=tl.float32) - float("inf")
    l_i = tl.zeros((BLOCK_M,), dtype=tl.float32)
    acc = tl.zeros((BLOCK_M, HEAD_DIM), dtype=tl.float32)
    scale = 0.125 * 1.44269504
    for start_n in range(0, N_CTX, BLOCK_N):
        kt = tl.load(k_ptr + off_h + (start_n + offs_n)[None, :] * stride_s + offs_d[:, None])
        qk = tl.dot(q, kt) * scale
        m_new = tl.maximum(m_i, tl.max(qk, 1))
        p = tl.math.exp2(qk - m_new[:, None])
        alpha = tl.math.exp2(m_i - m_new)
        l_i = l_i * alpha + tl.sum(p, 1)
        v = tl.load(v_ptr + off_h + (start_n + offs_n)[:, None] * stride_s + offs_d[None, :])
        acc = acc * alpha[:, None]
        acc = tl.dot(p.to(tl.float16), v, acc)
        m_i = m_new
    acc = acc / l_i[:, None]
    tl.store(o_ptr + off_h + offs_m[:, None] * stride_s + offs_d[None, :], acc.to(tl.float16))
