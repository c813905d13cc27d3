"""Kernels for the back end's tests: atomics, i1 and i8 memory, shape ops, a scan with
a custom combiner and a reversed scan."""

import triton
import triton.language as tl


@triton.jit
def histogram_kernel(x_ptr, hist_ptr, count_ptr, n, BLOCK: tl.constexpr):
    """hist[x & 15] += 1 for every element; count += the program's element count."""
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, other=0)
    tl.atomic_add(hist_ptr + (x & 15), 1, mask=mask)
    total = tl.sum(mask.to(tl.int32), axis=0)
    tl.atomic_add(count_ptr, total)


@triton.jit
def flags_kernel(flag_ptr, byte_ptr, out_flag_ptr, out_byte_ptr, n, BLOCK: tl.constexpr):
    """out_flag = !flag; out_byte = byte + 1 where flag, else byte (masked i1/i8)."""
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    f = tl.load(flag_ptr + offs, mask=mask, other=False)
    b = tl.load(byte_ptr + offs, mask=mask, other=0)
    tl.store(out_flag_ptr + offs, f == 0, mask=mask)
    tl.store(out_byte_ptr + offs, tl.where(f, b + 1, b), mask=mask)


@triton.jit
def shapes_kernel(x_ptr, t_ptr, j_ptr, M: tl.constexpr, N: tl.constexpr):
    """t = x.T ([N, M]); j = join(x, x * 2) ([M, N, 2])."""
    rm = tl.arange(0, M)
    rn = tl.arange(0, N)
    x = tl.load(x_ptr + rm[:, None] * N + rn[None, :])
    t = tl.trans(x)
    tl.store(t_ptr + rn[:, None] * M + rm[None, :], t)
    j = tl.join(x, x * 2)
    r2 = tl.arange(0, 2)
    tl.store(j_ptr + rm[:, None, None] * (2 * N) + rn[None, :, None] * 2 + r2[None, None, :], j)


@triton.jit
def _last(a, b):
    return b


@triton.jit
def scans_kernel(x_ptr, rev_ptr, last_ptr, N: tl.constexpr):
    """rev = reverse cumsum of x; last = associative_scan keeping the right operand."""
    offs = tl.arange(0, N)
    x = tl.load(x_ptr + offs)
    tl.store(rev_ptr + offs, tl.cumsum(x, axis=0, reverse=True))
    tl.store(last_ptr + offs, tl.associative_scan(x, 0, _last))


@triton.jit
def control_kernel(x_ptr, out_ptr, n, flag, BLOCK: tl.constexpr):
    """out = (x * 2 if flag > 0 else x - 1) + flag (the flag added by a while loop)."""
    offs = tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, other=0.0)
    if flag > 0:
        y = x * 2.0
    else:
        y = x - 1.0
    i = 0
    while i < flag:
        y = y + 1.0
        i += 1
    tl.store(out_ptr + offs, y, mask=mask)


@triton.jit
def dot_f32_kernel(a_ptr, b_ptr, c_ptr, d_ptr, M: tl.constexpr, N: tl.constexpr, K: tl.constexpr):
    """c = a @ b with the default tf32 inputs; d = a @ b in full fp32 ("ieee")."""
    rm = tl.arange(0, M)
    rn = tl.arange(0, N)
    rk = tl.arange(0, K)
    a = tl.load(a_ptr + rm[:, None] * K + rk[None, :])
    b = tl.load(b_ptr + rk[:, None] * N + rn[None, :])
    tl.store(c_ptr + rm[:, None] * N + rn[None, :], tl.dot(a, b))
    tl.store(d_ptr + rm[:, None] * N + rn[None, :], tl.dot(a, b, input_precision="ieee"))


@triton.jit
def print_kernel(x_ptr, n, BLOCK: tl.constexpr):
    """Prints a block, a scalar and a 100% literal prefix."""
    offs = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs, mask=offs < n, other=0.0)
    tl.device_print("x", x)
    tl.device_print("n is 100%", n)


@triton.jit
def rtz_kernel(x_ptr, h_ptr, b_ptr, BLOCK: tl.constexpr):
    """fp32 rounded toward zero to fp16 and to bf16."""
    offs = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs)
    tl.store(h_ptr + offs, x.to(tl.float16, fp_downcast_rounding="rtz"))
    tl.store(b_ptr + offs, x.to(tl.bfloat16, fp_downcast_rounding="rtz"))


@triton.jit
def fp8_kernel(b4_ptr, b5_ptr, f4_ptr, f5_ptr, e4_ptr, e5_ptr, BLOCK: tl.constexpr):
    """Every byte decoded from e4m3 and e5m2 to fp32, and the fp32 values encoded back."""
    offs = tl.arange(0, BLOCK)
    b4 = tl.load(b4_ptr + offs)
    b5 = tl.load(b5_ptr + offs)
    f4 = b4.to(tl.float32)
    f5 = b5.to(tl.float32)
    tl.store(f4_ptr + offs, f4)
    tl.store(f5_ptr + offs, f5)
    tl.store(e4_ptr + offs, f4.to(tl.float8e4nv))
    tl.store(e5_ptr + offs, f5.to(tl.float8e5))
