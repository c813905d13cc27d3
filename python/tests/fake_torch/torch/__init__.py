"""A stand-in for the few PyTorch calls examples/python/add.py makes, for running it on a
machine without PyTorch or a GPU: tensors are addresses that are never dereferenced."""

_next = [0x7F0000000000]


class dtype:
    def __init__(self, name):
        self.name = name

    def __str__(self):
        return f"torch.{self.name}"


float32 = dtype("float32")
float16 = dtype("float16")


class device:
    def __init__(self, spec):
        self.type, _, index = str(spec).partition(":")
        self.index = int(index or 0)


class Tensor:
    def __init__(self, n, dtype=float32, dev="cuda"):
        self.n, self.dtype, self.device = n, dtype, device(dev)
        self.is_cuda = self.device.type == "cuda"
        self._addr = _next[0]
        _next[0] += (4 * n + 255) // 256 * 256

    def data_ptr(self):
        return self._addr


def rand(n, device="cpu", dtype=float32):
    return Tensor(n, dtype, device)


def empty_like(t):
    return Tensor(t.n, t.dtype, f"{t.device.type}:{t.device.index}")


class cuda:
    @staticmethod
    def is_initialized():
        return False

    @staticmethod
    def synchronize():
        raise RuntimeError("the fake torch has no GPU")
