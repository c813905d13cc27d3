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
def bench_matmul_imprecise(a_ptr, b_ptr, c_ptr, M, N, K, stride_a, stride_b, stride_c,
                           BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr, GROUP: tl.constexpr,
                           MAX_IMP: tl.constexpr):
    # C = A @ Bt.T (B K-contiguous) for fp8, with `max_num_imprecise_acc=MAX_IMP`: runs of
    # MAX_IMP K elements are accumulated by the tensor core and added in fp32.
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
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k in range(0, K, BK):
        a = tl.load(a_ptrs)
        b = tl.load(b_ptrs)
        acc = tl.dot(a, b, acc, max_num_imprecise_acc=MAX_IMP)
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
                    HEAD_DIM: tl.constexpr, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr,
                    CAUSAL: tl.constexpr):
    # One loop over the keys; causal rows stop at the diagonal block and mask inside it.
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
    if CAUSAL:
        hi = (start_m + 1) * BLOCK_M
    else:
        hi = N_CTX
    for start_n in range(0, hi, BLOCK_N):
        kt = tl.load(k_ptr + off_h + (start_n + offs_n)[None, :] * stride_s + offs_d[:, None])
        qk = tl.dot(q, kt) * scale
        if CAUSAL:
            qk = tl.where(offs_m[:, None] >= (start_n + offs_n)[None, :], qk, float("-inf"))
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


@triton.jit
def _staged_attention_inner(acc, l_i, m_i, q, k_base, v_base, stride_s, start_m, qk_scale,
                            BLOCK_M: tl.constexpr, HEAD_DIM: tl.constexpr, BLOCK_N: tl.constexpr,
                            STAGE: tl.constexpr, offs_m, offs_n, N_CTX):
    # STAGE 1: the key blocks left of the diagonal (no mask); 2: the diagonal block (masked);
    # 3: every key block (non-causal).
    if STAGE == 1:
        lo, hi = 0, start_m * BLOCK_M
    elif STAGE == 2:
        lo, hi = start_m * BLOCK_M, (start_m + 1) * BLOCK_M
        lo = tl.multiple_of(lo, BLOCK_M)
    else:
        lo, hi = 0, N_CTX
    offs_d = tl.arange(0, HEAD_DIM)
    for start_n in tl.range(lo, hi, BLOCK_N):
        start_n = tl.multiple_of(start_n, BLOCK_N)
        kt = tl.load(k_base + (start_n + offs_n)[None, :] * stride_s + offs_d[:, None])
        qk = tl.dot(q, kt)
        if STAGE == 2:
            mask = offs_m[:, None] >= (start_n + offs_n[None, :])
            qk = qk * qk_scale + tl.where(mask, 0, -1.0e6)
            m_ij = tl.maximum(m_i, tl.max(qk, 1))
            qk -= m_ij[:, None]
        else:
            m_ij = tl.maximum(m_i, tl.max(qk, 1) * qk_scale)
            qk = qk * qk_scale - m_ij[:, None]
        p = tl.math.exp2(qk)
        alpha = tl.math.exp2(m_i - m_ij)
        l_ij = tl.sum(p, 1)
        acc = acc * alpha[:, None]
        v = tl.load(v_base + (start_n + offs_n)[:, None] * stride_s + offs_d[None, :])
        acc = tl.dot(p.to(tl.float16), v, acc)
        l_i = l_i * alpha + l_ij
        m_i = m_ij
    return acc, l_i, m_i


@triton.jit
def bench_attention_staged(q_ptr, k_ptr, v_ptr, o_ptr, N_CTX, stride_h, stride_s,
                           HEAD_DIM: tl.constexpr, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr,
                           STAGE: tl.constexpr):
    # The schedule of a common fused-attention forward: a `@jit` helper runs the key loop;
    # causal attention (STAGE 3) runs it twice, once left of the diagonal without a mask
    # and once on the diagonal block with one; the scale is folded into exp2's argument.
    start_m = tl.program_id(0)
    off_h = tl.program_id(1).to(tl.int64) * stride_h
    offs_m = start_m * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_n = tl.arange(0, BLOCK_N)
    offs_d = tl.arange(0, HEAD_DIM)
    m_i = tl.zeros([BLOCK_M], dtype=tl.float32) - float("inf")
    l_i = tl.zeros([BLOCK_M], dtype=tl.float32) + 1.0
    acc = tl.zeros([BLOCK_M, HEAD_DIM], dtype=tl.float32)
    qk_scale = 0.125 * 1.44269504
    q = tl.load(q_ptr + off_h + offs_m[:, None] * stride_s + offs_d[None, :])
    if STAGE & 1:
        acc, l_i, m_i = _staged_attention_inner(acc, l_i, m_i, q, k_ptr + off_h, v_ptr + off_h, stride_s,
                                                start_m, qk_scale, BLOCK_M, HEAD_DIM, BLOCK_N,
                                                4 - STAGE, offs_m, offs_n, N_CTX)
    if STAGE & 2:
        acc, l_i, m_i = _staged_attention_inner(acc, l_i, m_i, q, k_ptr + off_h, v_ptr + off_h, stride_s,
                                                start_m, qk_scale, BLOCK_M, HEAD_DIM, BLOCK_N,
                                                2, offs_m, offs_n, N_CTX)
    acc = acc / l_i[:, None]
    tl.store(o_ptr + off_h + offs_m[:, None] * stride_s + offs_d[None, :], acc.to(tl.float16))
