"""A stand-in for the part of Triton's Python API the drop-in touches (`triton.jit`
returning a `JITFunction` whose `kernel[grid](...)` calls `run`), for machines without
Triton. Tests use the real package when it is importable."""

from . import language  # noqa: F401
from .runtime.jit import JITFunction


def jit(fn=None, **kwargs):
    if fn is None:
        return lambda f: JITFunction(f, **kwargs)
    return JITFunction(fn, **kwargs)


def cdiv(a, b):
    return (a + b - 1) // b
