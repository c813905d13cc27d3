"""Benchmark cases shared by the compile step (this machine) and the GPU run.

Each case names an example kernel, the exact specialization tritonc compiles ahead of time
(`signature`, `num_warps`), how to build its inputs and call the example's own host
wrapper (which launches the kernel through upstream Triton), the bytes a launch moves,
and PyTorch's equivalent. The GPU run captures the wrapper's launch and replays the very
same arguments on tritonc's bundle, so both sides run one configuration; a launch whose
arguments break the bundle's signature is reported, never silently run.

Importing this module needs no torch: setup functions receive the torch module.
"""

from dataclasses import dataclass, field
from typing import Callable, Optional


@dataclass
class Case:
    name: str
    family: str
    file: str
    kernel: str
    signature: str
    num_warps: int
    # setup(torch) -> dict of inputs
    setup: Callable
    # call(module, inputs) -> calls the example's host wrapper
    call: Callable
    # bytes moved by one launch, from the inputs
    bytes_moved: Callable
    # torch_ref(torch, inputs) -> PyTorch's equivalent (timed as a peer), or None
    torch_ref: Optional[Callable] = None
    # size label for tables
    size: str = ""
    # element type of the main tensor ("fp16", "bf16", "fp32"): one plot series per dtype
    dtype: str = ""
    # flops(inputs) -> floating-point operations of one launch (TFLOP/s are reported)
    flops: Optional[Callable] = None
    # capture the JITFunction inside an autotuner, so `call` launches one explicit config
    unwrap: bool = False
    tags: list = field(default_factory=list)


CASES = []


def case(**kw):
    CASES.append(Case(**kw))



# Sign the main tensor's element type in signatures and plots.
_TORCH = {"fp16": "float16", "bf16": "bfloat16", "fp32": "float32"}
_BYTES = {"fp16": 2, "bf16": 2, "fp32": 4}


def _pow2(n):
    return 1 << (n - 1).bit_length()


def _label(n):
    """2^k for powers of two, else the number."""
    return f"2^{n.bit_length() - 1}" if n & (n - 1) == 0 else str(n)


def _vector_add(n, dt, block):
    nbytes = _BYTES[dt]
    hint = ":16" if n % 16 == 0 else ""
    size = _label(n)
    case(
        name=f"vector_add_{dt}_{size}",
        family="vector add",
        file="examples/vector_add.py",
        kernel="add_kernel",
        signature=f"*{dt}:16, *{dt}:16, *{dt}:16, i32{hint}, {block}",
        num_warps=4,
        size=size,
        dtype=dt,
        setup=lambda torch: {
            "x": torch.randn(n, device="cuda", dtype=getattr(torch, _TORCH[dt])),
            "y": torch.randn(n, device="cuda", dtype=getattr(torch, _TORCH[dt])),
        },
        call=lambda m, i: m.add(i["x"], i["y"], block_size=block),
        bytes_moved=lambda i: 3 * n * nbytes,
        torch_ref=lambda torch, i: torch.add(i["x"], i["y"]),
    )


for _n in (1 << 16, 1 << 20, 1 << 24, 1 << 28):
    _vector_add(_n, "fp32", 1024)
    _vector_add(_n, "fp16", 2048)


def _softmax(rows, cols, dt):
    nbytes = _BYTES[dt]
    block = _pow2(cols)
    warps = 4 if block <= 2048 else (8 if block <= 8192 else 16)
    hint = ":16" if cols % 16 == 0 else ""
    size = f"{rows}x{cols}"
    case(
        name=f"softmax_{dt}_{size}",
        family="fused softmax",
        file="examples/softmax.py",
        kernel="softmax_kernel",
        signature=f"*{dt}:16, *{dt}:16, i32{hint}, i32{hint}, i32{hint}, {block}",
        num_warps=warps,
        size=size,
        dtype=dt,
        setup=lambda torch: {"x": torch.randn(rows, cols, device="cuda", dtype=getattr(torch, _TORCH[dt]))},
        call=lambda m, i: m.softmax(i["x"]),
        bytes_moved=lambda i: 2 * rows * cols * nbytes,
        torch_ref=lambda torch, i: torch.softmax(i["x"], dim=-1),
    )


for _dt in ("fp16", "fp32"):
    for _cols in (1024, 2048, 4096, 8192):
        _softmax(4096, _cols, _dt)
_softmax(32, 1024, "fp16")


def _rms_norm(rows, cols, dt):
    nbytes = _BYTES[dt]
    block = _pow2(cols)
    size = f"{rows}x{cols}"
    case(
        name=f"rms_norm_{dt}_{size}",
        family="RMSNorm",
        file="examples/rms_norm.py",
        kernel="rms_norm_fwd_kernel",
        signature=f"*{dt}:16, *{dt}:16, *{dt}:16, *fp32:16, i32:16, i32:16, i32:16, fp32, {block}",
        num_warps=min(max(block // 256, 1), 16),
        size=size,
        dtype=dt,
        setup=lambda torch: {
            "x": torch.randn(rows, cols, device="cuda", dtype=getattr(torch, _TORCH[dt])),
            "w": torch.randn(cols, device="cuda", dtype=getattr(torch, _TORCH[dt])),
        },
        call=lambda m, i: m.rms_norm(i["x"], i["w"]),
        bytes_moved=lambda i: 2 * rows * cols * nbytes + cols * nbytes + rows * 4,
        torch_ref=lambda torch, i: torch.nn.functional.rms_norm(i["x"], (cols,), i["w"], 1e-6),
    )


for _dt in ("fp16", "fp32"):
    for _cols in (1024, 4096, 8192):
        _rms_norm(4096, _cols, _dt)


def _layer_norm(rows, cols, dt):
    nbytes = _BYTES[dt]
    block = _pow2(cols)
    size = f"{rows}x{cols}"
    case(
        name=f"layer_norm_fwd_{dt}_{size}",
        family="LayerNorm",
        file="examples/layer_norm.py",
        kernel="layer_norm_fwd_kernel",
        signature=f"*{dt}:16, *{dt}:16, *{dt}:16, *{dt}:16, *fp32:16, *fp32:16, i32:16, i32:16, fp32, {block}",
        num_warps=min(max(block // 256, 1), 8),
        size=size,
        dtype=dt,
        setup=lambda torch: {
            "x": torch.randn(rows, cols, device="cuda", dtype=getattr(torch, _TORCH[dt])),
            "w": torch.randn(cols, device="cuda", dtype=getattr(torch, _TORCH[dt])),
            "b": torch.randn(cols, device="cuda", dtype=getattr(torch, _TORCH[dt])),
        },
        call=lambda m, i: m.layer_norm_forward(i["x"], i["w"], i["b"]),
        bytes_moved=lambda i: 2 * rows * cols * nbytes + 2 * cols * nbytes + 2 * rows * 4,
        torch_ref=lambda torch, i: torch.nn.functional.layer_norm(i["x"], (cols,), i["w"], i["b"], 1e-5),
    )


for _dt in ("fp16", "fp32"):
    for _cols in (1024, 4096, 8192):
        _layer_norm(4096, _cols, _dt)


def _dropout(n, dt):
    nbytes = _BYTES[dt]
    size = _label(n)
    case(
        name=f"dropout_{dt}_{size}",
        family="dropout",
        file="examples/dropout.py",
        kernel="dropout_kernel",
        signature=f"*{dt}:16, *{dt}:16, i32:16, fp32, i32, 1024",
        num_warps=4,
        size=size,
        dtype=dt,
        setup=lambda torch: {"x": torch.randn(n, device="cuda", dtype=getattr(torch, _TORCH[dt]))},
        call=lambda m, i: m.dropout(i["x"], 0.5, 1234),
        bytes_moved=lambda i: 2 * n * nbytes,
        torch_ref=lambda torch, i: torch.nn.functional.dropout(i["x"], 0.5, True),
    )


for _n in (1 << 20, 1 << 24, 1 << 28):
    _dropout(_n, "fp32")
    _dropout(_n, "fp16")


def _rope(tokens, heads, head_dim, dt):
    nbytes = _BYTES[dt]
    block_h = min(_pow2(heads), 16)
    size = f"{tokens}x{heads}x{head_dim}"
    case(
        name=f"rope_{dt}_{size}",
        family="rotary embedding",
        file="examples/rotary.py",
        kernel="rope_kernel",
        signature=f"*{dt}:16, *fp32:16, *fp32:16, *{dt}:16, i32:16, i32:16, i32:16, i32:16, i32:16, i32{':16' if heads % 16 == 0 else ''}, {head_dim}, {block_h}",
        num_warps=4,
        size=size,
        dtype=dt,
        setup=lambda torch: {
            "q": torch.randn(tokens, heads, head_dim, device="cuda", dtype=getattr(torch, _TORCH[dt])),
            "cos": torch.randn(tokens, head_dim // 2, device="cuda", dtype=torch.float32),
            "sin": torch.randn(tokens, head_dim // 2, device="cuda", dtype=torch.float32),
        },
        call=lambda m, i: m.apply_rope(i["q"], i["cos"], i["sin"]),
        bytes_moved=lambda i: 2 * tokens * heads * head_dim * nbytes + 2 * tokens * head_dim // 2 * 4,
    )


for _tokens in (1024, 4096, 16384):
    _rope(_tokens, 32, 128, "fp16")
    _rope(_tokens, 32, 128, "fp32")


def _cross_entropy(rows, vocab, dt):
    nbytes = _BYTES[dt]
    size = f"{rows}x{vocab}"
    case(
        name=f"cross_entropy_{dt}_{size}",
        family="cross-entropy",
        file="examples/cross_entropy.py",
        kernel="cross_entropy_fwd_kernel",
        signature=f"*{dt}:16, *i64:16, *fp32:16, *fp32:16, i32:16, i32:16, i32, 4096",
        num_warps=8,
        size=size,
        dtype=dt,
        setup=lambda torch: {
            "logits": torch.randn(rows, vocab, device="cuda", dtype=getattr(torch, _TORCH[dt])),
            "labels": torch.randint(0, vocab, (rows,), device="cuda", dtype=torch.int64),
        },
        call=lambda m, i: m.cross_entropy(i["logits"], i["labels"]),
        bytes_moved=lambda i: rows * vocab * nbytes + rows * 8 + 2 * rows * 4,
        torch_ref=lambda torch, i: torch.nn.functional.cross_entropy(i["logits"].float(), i["labels"], reduction="none"),
    )


for _vocab in (8192, 32768):
    _cross_entropy(4096, _vocab, "bf16")
    _cross_entropy(4096, _vocab, "fp32")


# Compute-bound and the remaining example kernels. On sm_90 both sides run `tl.dot` on
# Hopper's wgmma.


def _matmul(m, n, k):
    grid = ((m + 63) // 64 * ((n + 63) // 64),)
    case(
        name=f"matmul_fp16_{m}x{n}x{k}",
        family="matmul",
        file="examples/matmul.py",
        kernel="matmul_kernel",
        # strides of contiguous operands: the ones equal to 1 are specialized (`:1`), as
        # Triton's launcher does
        signature="*fp16:16, *fp16:16, *fp16:16, i32:16, i32:16, i32:16, i32:16, i32:1, "
        "i32:16, i32:1, i32:16, i32:1, 64, 64, 32, 8, 'leaky_relu'",
        num_warps=4,
        size=f"{m}x{n}x{k}",
        dtype="fp16",
        unwrap=True,
        setup=lambda torch: {
            "a": torch.randn(m, k, device="cuda", dtype=torch.float16),
            "b": torch.randn(k, n, device="cuda", dtype=torch.float16),
            "c": torch.empty(m, n, device="cuda", dtype=torch.float16),
        },
        # one of the example's autotune configs, launched explicitly on both sides
        call=lambda mod, i: mod.matmul_kernel[grid](
            i["a"], i["b"], i["c"], m, n, k, k, 1, n, 1, n, 1,
            BLOCK_M=64, BLOCK_N=64, BLOCK_K=32, GROUP_M=8, ACTIVATION="leaky_relu",
            num_warps=4, num_stages=5,
        ),
        bytes_moved=lambda i: 2 * (m * k + k * n + m * n),
        flops=lambda i: 2 * m * n * k,
        torch_ref=lambda torch, i: torch.nn.functional.leaky_relu(i["a"] @ i["b"], 0.01),
    )


_matmul(2048, 2048, 2048)
_matmul(4096, 4096, 4096)


def _attention(batch, heads, seq, dim):
    case(
        name=f"attention_fp16_{batch}x{heads}x{seq}x{dim}",
        family="flash attention",
        file="examples/flash_attention.py",
        kernel="attention_fwd_kernel",
        signature=f"*fp16:16, *fp16:16, *fp16:16, *fp16:16, fp32, i32:16, i32:16, i32:16, "
        f"i32:16, i32:16, {dim}, 128, 64, False",
        num_warps=8,
        size=f"{batch}x{heads}x{seq}x{dim}",
        dtype="fp16",
        setup=lambda torch: {
            n: torch.randn(batch, heads, seq, dim, device="cuda", dtype=torch.float16) for n in "qkv"
        },
        call=lambda mod, i: mod.attention(i["q"], i["k"], i["v"]),
        bytes_moved=lambda i: 4 * batch * heads * seq * dim * 2,
        flops=lambda i: 4 * batch * heads * seq * seq * dim,
        torch_ref=lambda torch, i: torch.nn.functional.scaled_dot_product_attention(i["q"], i["k"], i["v"]),
    )


_attention(4, 16, 1024, 64)
_attention(4, 16, 4096, 64)


def _cumsum(rows, cols):
    block_m = max(1, min(16, 4096 // cols))
    case(
        name=f"cumsum_fp32_{rows}x{cols}",
        family="cumsum",
        file="examples/cumsum.py",
        kernel="cumsum_kernel",
        signature=f"*fp32:16, *fp32:16, i32:16, i32:16, i32:16, i32:16, {block_m}, {cols}",
        num_warps=4,
        size=f"{rows}x{cols}",
        dtype="fp32",
        setup=lambda torch: {"x": torch.randn(rows, cols, device="cuda", dtype=torch.float32)},
        call=lambda mod, i: mod.cumsum(i["x"]),
        bytes_moved=lambda i: 2 * rows * cols * 4,
        torch_ref=lambda torch, i: torch.cumsum(i["x"], dim=1),
    )


_cumsum(16384, 1024)
_cumsum(65536, 256)


def _quantize(rows, cols):
    case(
        name=f"quantize_fp16_{rows}x{cols}",
        family="int8 quantize",
        file="examples/quantize.py",
        kernel="quantize_int8_rowwise_kernel",
        signature=f"*fp16:16, *i8:16, *fp32:16, i32:16, i32:16, i32:16, {_pow2(cols)}",
        num_warps=4,
        size=f"{rows}x{cols}",
        dtype="fp16",
        setup=lambda torch: {"x": torch.randn(rows, cols, device="cuda", dtype=torch.float16)},
        call=lambda mod, i: mod.quantize(i["x"]),
        bytes_moved=lambda i: rows * cols * (2 + 1) + rows * 4,
    )
    case(
        name=f"dequantize_fp16_{rows}x{cols}",
        family="int8 quantize",
        file="examples/quantize.py",
        kernel="dequantize_int8_rowwise_kernel",
        signature=f"*i8:16, *fp32:16, *fp16:16, i32:16, i32:16, i32:16, i32:16, 4, {_pow2(cols)}",
        num_warps=4,
        size=f"{rows}x{cols} (dequantize)",
        dtype="int8",
        setup=lambda torch: {
            "q": torch.randint(-127, 128, (rows, cols), device="cuda", dtype=torch.int8),
            "scale": torch.rand(rows, device="cuda", dtype=torch.float32),
        },
        call=lambda mod, i: mod.dequantize(i["q"], i["scale"]),
        bytes_moved=lambda i: rows * cols * (1 + 2) + rows * 4,
    )


_quantize(4096, 8192)


def _layer_norm_bwd(rows, cols):
    block = _pow2(cols)
    case(
        name=f"layer_norm_bwd_dx_fp16_{rows}x{cols}",
        family="LayerNorm backward",
        file="examples/layer_norm.py",
        kernel="layer_norm_bwd_dx_kernel",
        signature="*fp16:16, *fp16:16, *fp32:16, *fp32:16, *fp16:16, *fp16:16, *fp32:16, *fp32:16, "
        f"i32:16, i32:16, i32:16, 64, {block}",
        num_warps=min(max(block // 256, 1), 8),
        size=f"{rows}x{cols}",
        dtype="fp16",
        setup=lambda torch: {
            "dy": torch.randn(rows, cols, device="cuda", dtype=torch.float16),
            "x": torch.randn(rows, cols, device="cuda", dtype=torch.float16),
            "w": torch.randn(cols, device="cuda", dtype=torch.float16),
            "mean": torch.randn(rows, device="cuda", dtype=torch.float32),
            "rstd": torch.rand(rows, device="cuda", dtype=torch.float32) + 0.5,
        },
        call=lambda mod, i: mod.layer_norm_backward(i["dy"], i["x"], i["w"], i["mean"], i["rstd"]),
        # dy, x read; dx written; per-program partial dw/db rows written
        bytes_moved=lambda i: 3 * rows * cols * 2 + 2 * ((rows + 63) // 64) * cols * 4,
    )


_layer_norm_bwd(4096, 8192)
