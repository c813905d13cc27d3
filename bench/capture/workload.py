"""A small PyTorch workload on Triton kernels — a transformer block's forward pass and a
loss, written with the example kernels (examples/*.py) the way a project calls its own
Triton kernels — each result checked against PyTorch. bench/capture/run.sh runs it under
tritonc_rt.capture."""

import importlib.util
import pathlib
import sys

import torch

ROOT = pathlib.Path(__file__).resolve().parents[2]


def example(name):
    spec = importlib.util.spec_from_file_location(name, ROOT / "examples" / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


rms, ln, mm, sm, add, rope, xent = (example(n) for n in (
    "rms_norm", "layer_norm", "matmul", "softmax", "vector_add", "rotary", "cross_entropy"))


def close(name, got, want, atol, rtol):
    torch.testing.assert_close(got.float(), want.float(), atol=atol, rtol=rtol)
    print(f"workload: {name} ok")


def main():
    torch.manual_seed(0)
    tokens, d, vocab = 256, 512, 1000
    x = torch.randn(tokens, d, device="cuda", dtype=torch.float16)
    w_norm = torch.rand(d, device="cuda", dtype=torch.float16) + 0.5
    w_in = torch.randn(d, 4 * d, device="cuda", dtype=torch.float16) / d**0.5
    w_out = torch.randn(4 * d, d, device="cuda", dtype=torch.float16) / (4 * d) ** 0.5
    w_head = torch.randn(d, vocab, device="cuda", dtype=torch.float16) / d**0.5

    h, _ = rms.rms_norm(x, w_norm)
    ref = (x.float() * torch.rsqrt(x.float().pow(2).mean(-1, keepdim=True) + 1e-6) * w_norm.float())
    close("rms_norm", h, ref, 2e-2, 2e-2)
    up = mm.matmul(h, w_in, "gelu")
    close("matmul+gelu", up, torch.nn.functional.gelu(h.float() @ w_in.float()), 5e-2, 2e-2)
    down = mm.matmul(up, w_out)
    close("matmul", down, up.float() @ w_out.float(), 5e-2, 2e-2)
    res = add.add(x.float().flatten(), down.float().flatten()).view(tokens, d)
    close("residual add", res, x.float() + down.float(), 0, 0)
    y, _, _ = ln.layer_norm_forward(res.half(), w_norm, torch.zeros_like(w_norm))
    close("layer_norm", y, torch.nn.functional.layer_norm(res.half().float(), (d,), w_norm.float()), 2e-2, 2e-2)
    probs = sm.softmax(y)
    close("softmax", probs, torch.softmax(y.float(), -1), 1e-3, 1e-3)
    logits = mm.matmul(y, w_head)
    labels = torch.randint(0, vocab, (tokens,), device="cuda")
    labels[3] = -100  # an ignored position
    loss, _ = xent.cross_entropy(logits, labels)
    want = torch.nn.functional.cross_entropy(logits.float(), labels, reduction="none")
    close("cross_entropy", loss, want, 1e-3, 1e-3)
    heads, head_dim = 8, 64
    q = y.view(tokens, heads, head_dim)
    angle = torch.arange(tokens, device="cuda")[:, None] / 10000 ** (
        torch.arange(head_dim // 2, device="cuda")[None, :] / (head_dim // 2))
    cos, sin = angle.cos().float().contiguous(), angle.sin().float().contiguous()
    rotated = rope.apply_rope(q, cos, sin)
    q1, q2 = q.float()[..., : head_dim // 2], q.float()[..., head_dim // 2:]
    want = torch.cat([q1 * cos[:, None] - q2 * sin[:, None], q1 * sin[:, None] + q2 * cos[:, None]], -1)
    close("rope", rotated, want, 2e-2, 2e-2)
    torch.cuda.synchronize()
    print("workload: done")


if __name__ == "__main__":
    sys.exit(main())
