"""Per-row symmetric int8 quantization and the matching dequantization.

``quantize``: ``scale[r] = max(|x[r, :]|) / 127`` and
``q[r, c] = round_half_even(x[r, c] / scale[r])``, stored as int8 together
with the fp32 scale. ``dequantize``: ``x'[r, c] = q[r, c] * scale[r]``.
"""

import torch
import triton
import triton.language as tl
from triton.language.extra import libdevice


@triton.jit
def quantize_int8_rowwise_kernel(
    x_ptr,
    q_ptr,
    scale_ptr,
    x_row_stride,
    q_row_stride,
    n_cols,
    BLOCK_N: tl.constexpr,
):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK_N)
    mask = cols < n_cols
    x = tl.load(x_ptr + row * x_row_stride + cols, mask=mask, other=0.0).to(tl.float32)
    absmax = tl.max(tl.abs(x), axis=0)
    # An all-zero row would give scale 0 and 0/0 = NaN; clamp it away.
    scale = tl.maximum(absmax, 1e-12) / 127.0
    q = libdevice.rint(x / scale)
    q = tl.clamp(q, -127.0, 127.0)
    tl.store(q_ptr + row * q_row_stride + cols, q.to(tl.int8), mask=mask)
    tl.store(scale_ptr + row, scale)


@triton.jit
def dequantize_int8_rowwise_kernel(
    q_ptr,
    scale_ptr,
    out_ptr,
    q_row_stride,
    out_row_stride,
    n_rows,
    n_cols,
    ROWS_PER_PROGRAM: tl.constexpr,
    BLOCK_N: tl.constexpr,
):
    pid = tl.program_id(0)
    cols = tl.arange(0, BLOCK_N)
    col_mask = cols < n_cols
    # A few short rows per program amortize the launch; the loop is unrolled.
    for i in tl.static_range(ROWS_PER_PROGRAM):
        row = pid * ROWS_PER_PROGRAM + i
        row_ok = row < n_rows
        q = tl.load(q_ptr + row * q_row_stride + cols, mask=col_mask & row_ok, other=0)
        scale = tl.load(scale_ptr + row, mask=row_ok, other=0.0)
        out = q.to(tl.float32) * scale
        tl.store(out_ptr + row * out_row_stride + cols, out.to(out_ptr.dtype.element_ty), mask=col_mask & row_ok)


def quantize(x: torch.Tensor):
    """Return ``(q_int8, scale_fp32)`` for a 2-D floating tensor."""
    n_rows, n_cols = x.shape
    q = torch.empty((n_rows, n_cols), device=x.device, dtype=torch.int8)
    scale = torch.empty(n_rows, device=x.device, dtype=torch.float32)
    quantize_int8_rowwise_kernel[(n_rows,)](
        x, q, scale, x.stride(0), q.stride(0), n_cols, BLOCK_N=triton.next_power_of_2(n_cols),
    )
    return q, scale


def dequantize(q: torch.Tensor, scale: torch.Tensor, dtype=torch.float16) -> torch.Tensor:
    """Inverse of :func:`quantize` up to rounding."""
    n_rows, n_cols = q.shape
    out = torch.empty((n_rows, n_cols), device=q.device, dtype=dtype)
    rows_per_program = 4
    dequantize_int8_rowwise_kernel[(triton.cdiv(n_rows, rows_per_program),)](
        q, scale, out, q.stride(0), out.stride(0), n_rows, n_cols,
        ROWS_PER_PROGRAM=rows_per_program, BLOCK_N=triton.next_power_of_2(n_cols),
    )
    return out


if __name__ == "__main__":
    x = torch.randn(1001, 4096, device="cuda", dtype=torch.float16)
    q, scale = quantize(x)
    ref_scale = x.float().abs().amax(dim=1) / 127.0
    torch.testing.assert_close(scale, ref_scale)
    torch.testing.assert_close(q, torch.round(x.float() / ref_scale[:, None]).to(torch.int8), atol=1, rtol=0)
    torch.testing.assert_close(dequantize(q, scale), x, atol=ref_scale.max().item(), rtol=0)
    print("quantize: ok")
