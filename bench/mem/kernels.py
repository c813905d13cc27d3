"""Memory-bound kernels written for the sweep (bench/mem/), not taken from the examples:
row reductions (softmax, LayerNorm forward with the centred variance through `tl.where`,
RMSNorm, log-softmax, cross-entropy), a column reduction, an elementwise kernel, a row
scan and a row gather, plus two shapes from real kernels (a rotary embedding whose halves
are loaded apart, a JSD-style row loss). Every row kernel reads one row of `n_cols`
elements per program with one block of `BLOCK` (the next power of two); reductions
accumulate in fp32 and results are stored in the input's type.

Every integer argument is a multiple of 16, so tritonc's signature (`i32:16`) and
Triton's `tt.divisibility` attributes describe the same launch."""

import triton
import triton.language as tl


@triton.jit
def sweep_softmax(x_ptr, y_ptr, n_cols, BLOCK: tl.constexpr):
    row = tl.program_id(0).to(tl.int64) * n_cols
    cols = tl.arange(0, BLOCK)
    mask = cols < n_cols
    x = tl.load(x_ptr + row + cols, mask=mask, other=-float("inf")).to(tl.float32)
    z = x - tl.max(x, axis=0)
    num = tl.exp(z)
    y = num / tl.sum(num, axis=0)
    tl.store(y_ptr + row + cols, y.to(y_ptr.dtype.element_ty), mask=mask)


@triton.jit
def sweep_layernorm(x_ptr, w_ptr, b_ptr, y_ptr, n_cols, BLOCK: tl.constexpr):
    row = tl.program_id(0).to(tl.int64) * n_cols
    cols = tl.arange(0, BLOCK)
    mask = cols < n_cols
    x = tl.load(x_ptr + row + cols, mask=mask, other=0.0).to(tl.float32)
    mean = tl.sum(x, axis=0) / n_cols
    xc = tl.where(mask, x - mean, 0.0)
    var = tl.sum(xc * xc, axis=0) / n_cols
    rstd = tl.rsqrt(var + 1e-5)
    w = tl.load(w_ptr + cols, mask=mask, other=0.0).to(tl.float32)
    b = tl.load(b_ptr + cols, mask=mask, other=0.0).to(tl.float32)
    y = xc * rstd * w + b
    tl.store(y_ptr + row + cols, y.to(y_ptr.dtype.element_ty), mask=mask)


@triton.jit
def sweep_rmsnorm(x_ptr, w_ptr, y_ptr, n_cols, BLOCK: tl.constexpr):
    row = tl.program_id(0).to(tl.int64) * n_cols
    cols = tl.arange(0, BLOCK)
    mask = cols < n_cols
    x = tl.load(x_ptr + row + cols, mask=mask, other=0.0).to(tl.float32)
    rstd = tl.rsqrt(tl.sum(x * x, axis=0) / n_cols + 1e-6)
    w = tl.load(w_ptr + cols, mask=mask, other=0.0).to(tl.float32)
    tl.store(y_ptr + row + cols, (x * rstd * w).to(y_ptr.dtype.element_ty), mask=mask)


@triton.jit
def sweep_logsoftmax(x_ptr, y_ptr, n_cols, BLOCK: tl.constexpr):
    row = tl.program_id(0).to(tl.int64) * n_cols
    cols = tl.arange(0, BLOCK)
    mask = cols < n_cols
    x = tl.load(x_ptr + row + cols, mask=mask, other=-float("inf")).to(tl.float32)
    z = x - tl.max(x, axis=0)
    y = z - tl.log(tl.sum(tl.exp(z), axis=0))
    tl.store(y_ptr + row + cols, y.to(y_ptr.dtype.element_ty), mask=mask)


@triton.jit
def sweep_cross_entropy(x_ptr, target_ptr, loss_ptr, n_cols, BLOCK: tl.constexpr):
    """Per-row loss logsumexp(x) - x[target], fp32 out."""
    pid = tl.program_id(0)
    row = pid.to(tl.int64) * n_cols
    cols = tl.arange(0, BLOCK)
    mask = cols < n_cols
    x = tl.load(x_ptr + row + cols, mask=mask, other=-float("inf")).to(tl.float32)
    t = tl.load(target_ptr + pid)
    m = tl.max(x, axis=0)
    lse = m + tl.log(tl.sum(tl.exp(x - m), axis=0))
    picked = tl.sum(tl.where(cols == t, x, 0.0), axis=0)
    tl.store(loss_ptr + pid, lse - picked)


@triton.jit
def sweep_colsum(x_ptr, out_ptr, n_rows, n_cols, ROWS_PER_PROG: tl.constexpr,
                 BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    """Partial column sums: program (j, i) sums rows [i*R, (i+1)*R) of columns
    [j*BLOCK_N, (j+1)*BLOCK_N) into out[i, cols] (fp32)."""
    pid_n = tl.program_id(0)
    pid_m = tl.program_id(1)
    cols = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    rows = tl.arange(0, BLOCK_M)
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    start = pid_m * ROWS_PER_PROG
    for r in range(start, start + ROWS_PER_PROG, BLOCK_M):
        offs = (r + rows).to(tl.int64)[:, None] * n_cols + cols[None, :]
        acc += tl.load(x_ptr + offs).to(tl.float32)
    tl.store(out_ptr + pid_m * n_cols + cols, tl.sum(acc, axis=0))


@triton.jit
def sweep_elementwise(a_ptr, b_ptr, y_ptr, n, BLOCK: tl.constexpr):
    """SwiGLU-style: y = silu(a) * b."""
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    a = tl.load(a_ptr + offs, mask=mask).to(tl.float32)
    b = tl.load(b_ptr + offs, mask=mask).to(tl.float32)
    y = a * tl.sigmoid(a) * b
    tl.store(y_ptr + offs, y.to(y_ptr.dtype.element_ty), mask=mask)


@triton.jit
def sweep_scan(x_ptr, y_ptr, n_cols, BLOCK: tl.constexpr):
    """Row-wise inclusive prefix sum, accumulated in fp32."""
    row = tl.program_id(0).to(tl.int64) * n_cols
    cols = tl.arange(0, BLOCK)
    mask = cols < n_cols
    x = tl.load(x_ptr + row + cols, mask=mask, other=0.0).to(tl.float32)
    y = tl.cumsum(x, axis=0)
    tl.store(y_ptr + row + cols, y.to(y_ptr.dtype.element_ty), mask=mask)


@triton.jit
def sweep_gather(table_ptr, idx_ptr, y_ptr, n_cols, BLOCK: tl.constexpr):
    """Embedding-style row gather: y[r, :] = table[idx[r], :]."""
    pid = tl.program_id(0)
    src = tl.load(idx_ptr + pid).to(tl.int64) * n_cols
    cols = tl.arange(0, BLOCK)
    mask = cols < n_cols
    x = tl.load(table_ptr + src + cols, mask=mask)
    tl.store(y_ptr + pid.to(tl.int64) * n_cols + cols, x, mask=mask)


@triton.jit
def sweep_rope(q_ptr, cos_ptr, sin_ptr, y_ptr, n_heads, HEAD_DIM: tl.constexpr, BLOCK_H: tl.constexpr):
    """Rotary embedding over [tokens, heads, HEAD_DIM], the two halves of each head loaded
    apart (as real kernels write it); program per token and block of heads."""
    tok = tl.program_id(0)
    heads = tl.program_id(1) * BLOCK_H + tl.arange(0, BLOCK_H)
    half = tl.arange(0, HEAD_DIM // 2)
    cos = tl.load(cos_ptr + tok * (HEAD_DIM // 2) + half).to(tl.float32)
    sin = tl.load(sin_ptr + tok * (HEAD_DIM // 2) + half).to(tl.float32)
    base = tok.to(tl.int64) * n_heads * HEAD_DIM + heads[:, None] * HEAD_DIM + half[None, :]
    mask = heads[:, None] < n_heads
    x1 = tl.load(q_ptr + base, mask=mask, other=0.0).to(tl.float32)
    x2 = tl.load(q_ptr + base + HEAD_DIM // 2, mask=mask, other=0.0).to(tl.float32)
    y1 = x1 * cos[None, :] - x2 * sin[None, :]
    y2 = x2 * cos[None, :] + x1 * sin[None, :]
    tl.store(y_ptr + base, y1.to(y_ptr.dtype.element_ty), mask=mask)
    tl.store(y_ptr + base + HEAD_DIM // 2, y2.to(y_ptr.dtype.element_ty), mask=mask)


@triton.jit
def sweep_jsd(x_ptr, y_ptr, loss_ptr, dx_ptr, n_cols, BLOCK: tl.constexpr):
    """Generalized JSD (beta 0.5) of two rows of log-probabilities, as a JSD loss kernel
    writes it: per-element loss (fp32) and the gradient (input type)."""
    row = tl.program_id(0).to(tl.int64) * n_cols
    cols = tl.arange(0, BLOCK)
    mask = cols < n_cols
    x = tl.load(x_ptr + row + cols, mask=mask, other=float("-inf")).to(tl.float32)
    y = tl.load(y_ptr + row + cols, mask=mask, other=float("-inf")).to(tl.float32)
    q = tl.exp(x)
    p = tl.exp(y)
    m = 0.5 * (p + q)
    log_m = tl.log(m)
    loss = 0.5 * (p * y + q * x - 2.0 * m * log_m)
    dx = 0.5 * q * (x - log_m)
    tl.store(loss_ptr + row + cols, loss, mask=mask)
    tl.store(dx_ptr + row + cols, dx.to(dx_ptr.dtype.element_ty), mask=mask)
