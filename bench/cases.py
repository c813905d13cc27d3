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
    tags: list = field(default_factory=list)


CASES = []


def case(**kw):
    CASES.append(Case(**kw))


def _vector_add(n, dtype_name, block, sig_dtype, size):
    nbytes = 4 if sig_dtype == "fp32" else 2
    hint = ":16" if n % 16 == 0 else ""
    case(
        name=f"vector_add_{sig_dtype}_{size}",
        family="vector add",
        file="examples/vector_add.py",
        kernel="add_kernel",
        signature=f"*{sig_dtype}:16, *{sig_dtype}:16, *{sig_dtype}:16, i32{hint}, {block}",
        num_warps=4,
        size=size,
        setup=lambda torch: {
            "x": torch.randn(n, device="cuda", dtype=getattr(torch, dtype_name)),
            "y": torch.randn(n, device="cuda", dtype=getattr(torch, dtype_name)),
        },
        call=lambda m, i: m.add(i["x"], i["y"], block_size=block),
        bytes_moved=lambda i: 3 * n * nbytes,
        torch_ref=lambda torch, i: torch.add(i["x"], i["y"]),
    )


_vector_add(1 << 28, "float32", 1024, "fp32", "2^28")
_vector_add(1 << 28, "float16", 2048, "fp16", "2^28")
_vector_add(1 << 16, "float32", 1024, "fp32", "2^16")


def _softmax(rows, cols, dtype_name, sig_dtype, size):
    nbytes = 4 if sig_dtype == "fp32" else 2
    block = 1 << (cols - 1).bit_length()
    warps = 4 if block <= 2048 else (8 if block <= 8192 else 16)
    hint = ":16" if cols % 16 == 0 else ""
    case(
        name=f"softmax_{sig_dtype}_{size}",
        family="fused softmax",
        file="examples/softmax.py",
        kernel="softmax_kernel",
        signature=f"*{sig_dtype}:16, *{sig_dtype}:16, i32{hint}, i32{hint}, i32{hint}, {block}",
        num_warps=warps,
        size=size,
        setup=lambda torch: {"x": torch.randn(rows, cols, device="cuda", dtype=getattr(torch, dtype_name))},
        call=lambda m, i: m.softmax(i["x"]),
        bytes_moved=lambda i: 2 * rows * cols * nbytes,
        torch_ref=lambda torch, i: torch.softmax(i["x"], dim=-1),
    )


_softmax(4096, 8192, "float16", "fp16", "4096x8192")
_softmax(4096, 8192, "float32", "fp32", "4096x8192")
_softmax(32, 1024, "float16", "fp16", "32x1024")


def _rms_norm(rows, cols, size):
    block = 1 << (cols - 1).bit_length()
    case(
        name=f"rms_norm_fp16_{size}",
        family="RMSNorm",
        file="examples/rms_norm.py",
        kernel="rms_norm_fwd_kernel",
        signature=f"*fp16:16, *fp16:16, *fp16:16, *fp32:16, i32:16, i32:16, i32:16, fp32, {block}",
        num_warps=min(max(block // 256, 1), 16),
        size=size,
        setup=lambda torch: {
            "x": torch.randn(rows, cols, device="cuda", dtype=torch.float16),
            "w": torch.randn(cols, device="cuda", dtype=torch.float16),
        },
        call=lambda m, i: m.rms_norm(i["x"], i["w"]),
        bytes_moved=lambda i: 2 * rows * cols * 2 + cols * 2 + rows * 4,
        torch_ref=lambda torch, i: torch.nn.functional.rms_norm(i["x"], (cols,), i["w"], 1e-6),
    )


_rms_norm(4096, 8192, "4096x8192")


def _layer_norm(rows, cols, size):
    block = 1 << (cols - 1).bit_length()
    case(
        name=f"layer_norm_fwd_fp16_{size}",
        family="LayerNorm",
        file="examples/layer_norm.py",
        kernel="layer_norm_fwd_kernel",
        signature=f"*fp16:16, *fp16:16, *fp16:16, *fp16:16, *fp32:16, *fp32:16, i32:16, i32:16, fp32, {block}",
        num_warps=8,
        size=size,
        setup=lambda torch: {
            "x": torch.randn(rows, cols, device="cuda", dtype=torch.float16),
            "w": torch.randn(cols, device="cuda", dtype=torch.float16),
            "b": torch.randn(cols, device="cuda", dtype=torch.float16),
        },
        call=lambda m, i: m.layer_norm_forward(i["x"], i["w"], i["b"]),
        bytes_moved=lambda i: 2 * rows * cols * 2 + 2 * cols * 2 + 2 * rows * 4,
        torch_ref=lambda torch, i: torch.nn.functional.layer_norm(i["x"], (cols,), i["w"], i["b"], 1e-5),
    )


_layer_norm(4096, 8192, "4096x8192")


def _dropout(n, size):
    case(
        name=f"dropout_fp32_{size}",
        family="dropout",
        file="examples/dropout.py",
        kernel="dropout_kernel",
        signature="*fp32:16, *fp32:16, i32:16, fp32, i32, 1024",
        num_warps=4,
        size=size,
        setup=lambda torch: {"x": torch.randn(n, device="cuda", dtype=torch.float32)},
        call=lambda m, i: m.dropout(i["x"], 0.5, 1234),
        bytes_moved=lambda i: 2 * n * 4,
        torch_ref=lambda torch, i: torch.nn.functional.dropout(i["x"], 0.5, True),
    )


_dropout(1 << 28, "2^28")


def _rope(tokens, heads, head_dim, size):
    block_h = min(1 << (heads - 1).bit_length(), 16)
    case(
        name=f"rope_fp16_{size}",
        family="rotary embedding",
        file="examples/rotary.py",
        kernel="rope_kernel",
        signature=f"*fp16:16, *fp32:16, *fp32:16, *fp16:16, i32:16, i32:16, i32:16, i32:16, i32:16, i32{':16' if heads % 16 == 0 else ''}, {head_dim}, {block_h}",
        num_warps=4,
        size=size,
        setup=lambda torch: {
            "q": torch.randn(tokens, heads, head_dim, device="cuda", dtype=torch.float16),
            "cos": torch.randn(tokens, head_dim // 2, device="cuda", dtype=torch.float32),
            "sin": torch.randn(tokens, head_dim // 2, device="cuda", dtype=torch.float32),
        },
        call=lambda m, i: m.apply_rope(i["q"], i["cos"], i["sin"]),
        bytes_moved=lambda i: 2 * tokens * heads * head_dim * 2 + 2 * tokens * head_dim // 2 * 4,
    )


_rope(16384, 32, 128, "16384x32x128")


def _cross_entropy(rows, vocab, size):
    case(
        name=f"cross_entropy_bf16_{size}",
        family="cross-entropy",
        file="examples/cross_entropy.py",
        kernel="cross_entropy_fwd_kernel",
        signature="*bf16:16, *i64:16, *fp32:16, *fp32:16, i32:16, i32:16, i32, 4096",
        num_warps=8,
        size=size,
        setup=lambda torch: {
            "logits": torch.randn(rows, vocab, device="cuda", dtype=torch.bfloat16),
            "labels": torch.randint(0, vocab, (rows,), device="cuda", dtype=torch.int64),
        },
        call=lambda m, i: m.cross_entropy(i["logits"], i["labels"]),
        bytes_moved=lambda i: rows * vocab * 2 + rows * 8 + 2 * rows * 4,
        torch_ref=lambda torch, i: torch.nn.functional.cross_entropy(i["logits"].float(), i["labels"], reduction="none"),
    )


_cross_entropy(4096, 32768, "4096x32768")
