"""Launch kernels compiled ahead of time by tritonc, from Python, without Triton.

    import tritonc_rt
    add_kernel = tritonc_rt.load("bundles/")          # a bundle directory, or a folder of them
    add_kernel[grid](x, y, out, n, BLOCK_SIZE=1024)   # as with @triton.jit

Tensors are PyTorch tensors (or any object with ``__cuda_array_interface__``); the
launch goes through the CUDA driver (libcuda, loaded with ctypes) on PyTorch's current
stream. Every assumption the bundle was compiled under is checked first — pointee dtype,
``:16`` alignment and divisibility, ``==1`` integers, constexpr values, integer ranges —
and a launch that breaks one raises :class:`LaunchError` listing them all, before the
driver is touched. docs/python.md has the details.
"""

from ._bundle import Bundle, BundleError, Param, load_bundle
from ._check import LaunchError, Violation, check_args
from ._cuda import CudaError, DriverTooOldError, NoDeviceError, NoDriverError, TritoncRuntimeError
from ._kernel import Kernel, NoMatchingVariantError, load

__all__ = [
    "Bundle",
    "BundleError",
    "CudaError",
    "DriverTooOldError",
    "Kernel",
    "LaunchError",
    "NoDeviceError",
    "NoDriverError",
    "NoMatchingVariantError",
    "Param",
    "TritoncRuntimeError",
    "Violation",
    "check_args",
    "load",
    "load_bundle",
]

if __import__("os").environ.get("TRITONC_INTERPRET", "0") not in ("", "0"):
    # TRITONC_INTERPRET=1: kernel[grid](...) of @triton.jit kernels runs on tritonc's CPU
    # interpreter (tritonc_rt.interpret, docs/python.md).
    from . import interpret as _interpret

    _interpret.install()
