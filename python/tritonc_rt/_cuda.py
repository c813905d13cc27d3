"""The CUDA driver API through ctypes: libcuda.so.1 loaded on first use."""

from __future__ import annotations

import ctypes
import threading
from typing import Dict, Optional, Tuple

from ._bundle import Bundle


class TritoncRuntimeError(RuntimeError):
    """A failure between a bundle and a finished launch (not an argument error)."""


class NoDriverError(TritoncRuntimeError):
    """libcuda could not be loaded: no NVIDIA driver on this machine."""


class NoDeviceError(TritoncRuntimeError):
    """The driver found no CUDA device."""


class DriverTooOldError(TritoncRuntimeError):
    """The driver is older than the bundle's PTX needs, or lacks an entry point."""


class CudaError(TritoncRuntimeError):
    """A driver call failed."""


CUDA_ERROR_NO_DEVICE = 100
_ATTR_CC_MAJOR, _ATTR_CC_MINOR = 75, 76
_FUNC_ATTR_MAX_DYNAMIC_SHARED = 8

_lock = threading.Lock()
_driver: Optional["Driver"] = None


class Driver:
    """libcuda, initialized."""

    def __init__(self) -> None:
        try:
            self.lib = ctypes.CDLL("libcuda.so.1")
        except OSError as e:
            raise NoDriverError(f"no NVIDIA driver: libcuda.so.1 could not be loaded ({e})") from None
        for name in ("cuInit", "cuDriverGetVersion", "cuGetErrorName", "cuCtxGetCurrent",
                     "cuCtxSetCurrent", "cuCtxGetDevice", "cuDeviceGet", "cuDeviceGetCount",
                     "cuDeviceGetAttribute", "cuDevicePrimaryCtxRetain", "cuModuleLoadData",
                     "cuModuleGetFunction", "cuFuncSetAttribute", "cuLaunchKernel"):
            if not hasattr(self.lib, name):
                raise DriverTooOldError(f"the NVIDIA driver has no `{name}`: it is too old")
        r = self.lib.cuInit(0)
        if r == CUDA_ERROR_NO_DEVICE:
            raise NoDeviceError(f"no CUDA device: cuInit failed with {self.error_name(r)}")
        self.check("cuInit", r)
        version = ctypes.c_int(0)
        self.check("cuDriverGetVersion", self.lib.cuDriverGetVersion(ctypes.byref(version)))
        self.version = version.value
        self._fast_state = None
        self.lib.cuLaunchKernel.argtypes = [
            ctypes.c_void_p, ctypes.c_uint, ctypes.c_uint, ctypes.c_uint, ctypes.c_uint,
            ctypes.c_uint, ctypes.c_uint, ctypes.c_uint, ctypes.c_void_p,
            ctypes.POINTER(ctypes.c_void_p), ctypes.c_void_p,
        ]

    def error_name(self, r: int) -> str:
        name = ctypes.c_char_p()
        if self.lib.cuGetErrorName(r, ctypes.byref(name)) == 0 and name.value:
            return name.value.decode()
        return f"CUresult {r}"

    def check(self, call: str, r: int) -> None:
        if r != 0:
            raise CudaError(f"{call} failed with {self.error_name(r)}")

    def context(self, device: int) -> Tuple[int, int]:
        """The calling thread's current context and its device; with none, ``device``'s
        primary context, made current (as the CUDA runtime and PyTorch do)."""
        ctx = ctypes.c_void_p()
        self.check("cuCtxGetCurrent", self.lib.cuCtxGetCurrent(ctypes.byref(ctx)))
        dev = ctypes.c_int(0)
        if not ctx.value:
            count = ctypes.c_int(0)
            self.check("cuDeviceGetCount", self.lib.cuDeviceGetCount(ctypes.byref(count)))
            if count.value == 0:
                raise NoDeviceError("no CUDA device")
            self.check("cuDeviceGet", self.lib.cuDeviceGet(ctypes.byref(dev), device))
            self.check("cuDevicePrimaryCtxRetain",
                       self.lib.cuDevicePrimaryCtxRetain(ctypes.byref(ctx), dev))
            self.check("cuCtxSetCurrent", self.lib.cuCtxSetCurrent(ctx))
        else:
            self.check("cuCtxGetDevice", self.lib.cuCtxGetDevice(ctypes.byref(dev)))
        return int(ctx.value), dev.value

    def device_name(self, device: int) -> str:
        """``cuDeviceGetName`` of CUDA device ``device``."""
        dev = ctypes.c_int(0)
        self.check("cuDeviceGet", self.lib.cuDeviceGet(ctypes.byref(dev), device))
        name = ctypes.create_string_buffer(256)
        self.check("cuDeviceGetName", self.lib.cuDeviceGetName(name, 256, dev))
        return name.value.decode(errors="replace")

    def capability(self, dev: int) -> Tuple[int, int]:
        major, minor = ctypes.c_int(0), ctypes.c_int(0)
        self.check("cuDeviceGetAttribute",
                   self.lib.cuDeviceGetAttribute(ctypes.byref(major), _ATTR_CC_MAJOR, dev))
        self.check("cuDeviceGetAttribute",
                   self.lib.cuDeviceGetAttribute(ctypes.byref(minor), _ATTR_CC_MINOR, dev))
        return major.value, minor.value

    def load(self, bundle: Bundle, dev: int) -> int:
        """Loads the bundle on ``dev`` in the current context; returns the function."""
        major, minor, specific = bundle.sm
        cc = self.capability(dev)
        cubin_fits = bundle.cubin is not None and cc[0] == major and (
            cc[1] == minor if specific else cc[1] >= minor)
        ptx_fits = cc == (major, minor) if specific else cc >= (major, minor)
        module = ctypes.c_void_p()
        cubin_error = None
        if cubin_fits:
            image = ctypes.create_string_buffer(bundle.cubin, len(bundle.cubin))
            r = self.lib.cuModuleLoadData(ctypes.byref(module), image)
            if r != 0:
                cubin_error, module = self.error_name(r), ctypes.c_void_p()
        if not module.value:
            if not ptx_fits:
                raise TritoncRuntimeError(
                    f"{bundle.describe()} was compiled for {bundle.target}; the GPU is "
                    f"sm_{cc[0]}{cc[1]}")
            needed = bundle.min_driver_version
            if needed and self.version < needed:
                raise DriverTooOldError(
                    f"the PTX of {bundle.describe()} needs a CUDA {needed // 1000}."
                    f"{needed % 1000 // 10} driver or newer, but this driver supports CUDA "
                    f"{self.version // 1000}.{self.version % 1000 // 10}"
                    + (f" (its cubin failed to load: {cubin_error})" if cubin_error else ""))
            text = ctypes.create_string_buffer(bundle.ptx + b"\0")
            self.check("cuModuleLoadData (PTX)", self.lib.cuModuleLoadData(ctypes.byref(module), text))
        function = ctypes.c_void_p()
        self.check("cuModuleGetFunction", self.lib.cuModuleGetFunction(
            ctypes.byref(function), module, bundle.entry.encode()))
        if bundle.dynamic_shared_bytes > 48 * 1024:
            self.check("cuFuncSetAttribute", self.lib.cuFuncSetAttribute(
                function, _FUNC_ATTR_MAX_DYNAMIC_SHARED, bundle.dynamic_shared_bytes))
        return int(function.value)

    def launch(self, function: int, grid, threads: int, shared: int, stream: int, values) -> None:
        params = (ctypes.c_void_p * max(len(values), 1))(
            *[ctypes.addressof(v) for v in values])
        self.check("cuLaunchKernel", self.lib.cuLaunchKernel(
            function, grid[0], grid[1], grid[2], threads, 1, 1, shared, stream or None,
            params, None))


    def fast_state(self):
        """The driver calls of the fast launch path (one per process)."""
        if self._fast_state is None:
            from ._fast import DriverState
            self._fast_state = DriverState(self)
        return self._fast_state


def driver() -> Driver:
    """The process's driver, loaded and initialized once."""
    global _driver
    with _lock:
        if _driver is None:
            _driver = Driver()
        return _driver


class Loaded:
    """A bundle's function per context it was loaded in."""

    def __init__(self, bundle: Bundle):
        self.bundle = bundle
        #: context -> (function, device, function as a void*), as loaded there.
        self.by_context: Dict[int, Tuple[int, int, ctypes.c_void_p]] = {}
        self.lock = threading.Lock()

    def function(self, d: Driver, ctx: int, dev: int) -> int:
        with self.lock:
            f = self.by_context.get(ctx)
            if f is None:
                loaded = d.load(self.bundle, dev)
                f = self.by_context[ctx] = (loaded, dev, ctypes.c_void_p(loaded))
            return f[0]
