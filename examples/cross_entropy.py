"""Cross-entropy loss over a large vocabulary.

One program per row (token). The vocabulary is streamed in chunks of
``BLOCK_V`` logits; a running max ``m`` and a running sum ``s`` of
``exp(logit - m)`` give ``logsumexp`` in one pass without materializing the
row. The loss for the row is ``logsumexp - logit[label]``; rows whose label
equals ``ignore_index`` get loss 0.
"""

import torch
import triton
import triton.language as tl


@triton.jit
def cross_entropy_fwd_kernel(
    logits_ptr,
    labels_ptr,
    loss_ptr,
    lse_ptr,
    logits_row_stride,
    n_vocab,
    ignore_index,
    BLOCK_V: tl.constexpr,
):
    row = tl.program_id(0).to(tl.int64)
    row_ptr = logits_ptr + row * logits_row_stride
    m = -float("inf")
    s = 0.0
    for start in tl.range(0, n_vocab, BLOCK_V):
        cols = start + tl.arange(0, BLOCK_V)
        x = tl.load(row_ptr + cols, mask=cols < n_vocab, other=-float("inf")).to(tl.float32)
        # Each chunk holds at least one real logit, so m_new is finite and
        # exp(m - m_new) is 0 on the first iteration rather than NaN.
        m_new = tl.maximum(m, tl.max(x, axis=0))
        s = s * tl.exp(m - m_new) + tl.sum(tl.exp(x - m_new), axis=0)
        m = m_new
    lse = m + tl.log(s)
    label = tl.load(labels_ptr + row)
    valid = label != ignore_index
    # Only dereference the target logit when the label is a real class index.
    target = tl.load(row_ptr + label, mask=valid, other=0.0).to(tl.float32)
    loss = tl.where(valid, lse - target, 0.0)
    tl.store(loss_ptr + row, loss)
    tl.store(lse_ptr + row, lse)


def cross_entropy(logits: torch.Tensor, labels: torch.Tensor, ignore_index: int = -100):
    """Per-row loss and logsumexp for ``logits[n_rows, n_vocab]`` and int64 ``labels``."""
    n_rows, n_vocab = logits.shape
    loss = torch.empty(n_rows, device=logits.device, dtype=torch.float32)
    lse = torch.empty_like(loss)
    cross_entropy_fwd_kernel[(n_rows,)](
        logits, labels, loss, lse, logits.stride(0), n_vocab, ignore_index, BLOCK_V=4096, num_warps=8,
    )
    return loss, lse


if __name__ == "__main__":
    logits = torch.randn(64, 128_256, device="cuda", dtype=torch.bfloat16)
    labels = torch.randint(0, 128_256, (64,), device="cuda")
    labels[3] = -100
    loss, _ = cross_entropy(logits, labels)
    ref = torch.nn.functional.cross_entropy(logits.float(), labels, reduction="none")
    torch.testing.assert_close(loss, ref, atol=1e-3, rtol=1e-3)
    print("cross_entropy: ok")
