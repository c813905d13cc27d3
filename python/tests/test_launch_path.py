"""tritonc_rt's launches against a stand-in libcuda (bench/launch/fake_libcuda.c, built
here with `cc`), which records what cuLaunchKernel was given: the fast path launches
exactly what the general path launches, refuses nothing differently, and DLPack exports
are launched from their own address (python3 -m unittest discover -s python/tests -p
test_launch_path.py; a process of its own, since the stand-in replaces the driver)."""

import ctypes
import json
import os
import shutil
import struct
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, "python"))

_LIBDIR = tempfile.mkdtemp(prefix="tritonc-fake-libcuda-")
subprocess.run(["cc", "-O2", "-shared", "-fPIC", "-Wl,-soname,libcuda.so.1", "-o",
                os.path.join(_LIBDIR, "libcuda.so.1"),
                os.path.join(ROOT, "bench", "launch", "fake_libcuda.c")], check=True)
# Loaded first, so tritonc_rt's dlopen("libcuda.so.1") finds it by its soname.
FAKE = ctypes.CDLL(os.path.join(_LIBDIR, "libcuda.so.1"), mode=ctypes.RTLD_GLOBAL)
FAKE.fake_set_param_count(4)  # add_kernel's: three pointers and an i32

import tritonc_rt  # noqa: E402

BUNDLE = os.path.join(ROOT, "examples", "rust", "kernels", "add_kernel.tcb")


def last_launch(nparams):
    """(launch count, grid, block, shared bytes, stream, each parameter's 8 bytes)."""
    dims = (ctypes.c_uint * 7)()
    stream = ctypes.c_uint64()
    params = (ctypes.c_ubyte * (8 * nparams))()
    count = FAKE.fake_last_launch(dims, ctypes.byref(stream), params, nparams)
    raw = bytes(params)
    return count, tuple(dims[:3]), tuple(dims[3:6]), dims[6], stream.value, \
        [raw[8 * i:8 * i + 8] for i in range(nparams)]


class DType:
    def __init__(self, name):
        self.name = name

    def __str__(self):
        return f"torch.{self.name}"


F32, F16 = DType("float32"), DType("float16")


class Device:
    type = "cuda"
    index = 0


class Device1(Device):
    index = 1


class Tensor:
    """What tritonc_rt reads of a PyTorch CUDA tensor."""

    is_cuda = True
    device = Device()

    def __init__(self, addr, dtype=F32, device=None):
        self._addr, self.dtype = addr, dtype
        if device is not None:
            self.device = device

    def data_ptr(self):
        return self._addr


class _DLTensor(ctypes.Structure):
    _fields_ = [("data", ctypes.c_void_p), ("device_type", ctypes.c_int32),
                ("device_id", ctypes.c_int32), ("ndim", ctypes.c_int32),
                ("code", ctypes.c_uint8), ("bits", ctypes.c_uint8), ("lanes", ctypes.c_uint16),
                ("shape", ctypes.c_void_p), ("strides", ctypes.c_void_p),
                ("byte_offset", ctypes.c_uint64), ("manager_ctx", ctypes.c_void_p),
                ("deleter", ctypes.c_void_p)]


_new_capsule = ctypes.pythonapi.PyCapsule_New
_new_capsule.restype = ctypes.py_object
_new_capsule.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_void_p]


class DLPackArray:
    """An object exporting DLPack (as JAX, CuPy or TensorFlow arrays do): a real
    ``dltensor`` capsule over a DLManagedTensor that this object owns."""

    def __init__(self, data, byte_offset=0, device=(2, 0), code=2, bits=32):
        self.shape = (ctypes.c_int64 * 1)(4096)
        self.t = _DLTensor(data=data, device_type=device[0], device_id=device[1], ndim=1,
                           code=code, bits=bits, lanes=1,
                           shape=ctypes.addressof(self.shape), byte_offset=byte_offset)
        self.device = device
        self.streams = []

    def __dlpack_device__(self):
        return self.device

    def __dlpack__(self, stream=None):
        self.streams.append(stream)
        return _new_capsule(ctypes.addressof(self.t), b"dltensor", None)


def variant(tmp, name, edit):
    path = os.path.join(tmp, name)
    shutil.copytree(BUNDLE, path)
    with open(os.path.join(path, "bundle.json")) as f:
        meta = json.load(f)
    edit(meta)
    with open(os.path.join(path, "bundle.json"), "w") as f:
        json.dump(meta, f)
    return path


def unaligned(meta):
    for p in meta["params"][:3]:
        p["role"]["passed"]["kind"]["pointer"]["align"] = 1
    meta["params"][3]["role"]["passed"]["kind"]["scalar"].pop("divisibility")
    meta["key"]["args"] = [dict(a, spec=a["spec"].replace(":16", "")) for a in meta["key"]["args"]]


def grid(meta):
    return ((meta["n_elements"] + meta["BLOCK_SIZE"] - 1) // meta["BLOCK_SIZE"],)


#: Calls (grid, args, kwargs) both paths must launch alike.
CALLS = [
    (grid, (Tensor(0x10000), Tensor(0x20000), Tensor(0x30000), 4096), {}),
    (grid, (Tensor(0x10004), Tensor(0x20000), Tensor(0x30000), 4096), {"BLOCK_SIZE": 1024}),
    ((7,), (Tensor(0x10000), Tensor(0x20000), Tensor(0x30000), 4095), {}),
    ([3, 2], (Tensor(0x10000), Tensor(0x20000)), {"out_ptr": Tensor(0x30010), "n_elements": -16}),
    (5, (Tensor(0x10000), Tensor(0x20000), Tensor(0x30000), 2**31 - 1), {"stream": 0x77}),
    ((1, 1, 9), (Tensor(0x10000), Tensor(0x20000), Tensor(0x30000), 16), {}),
]

#: Calls both paths must refuse alike, with nothing launched.
REFUSED = [
    (grid, (Tensor(0x10000, F16), Tensor(0x20000), Tensor(0x30000), 4096), {}),
    (grid, (Tensor(0x10000), Tensor(0x20000), Tensor(0x30000), 2**31), {}),
    (grid, (Tensor(0x10000), Tensor(0x20000), Tensor(0x30000), 4096), {"BLOCK_SIZE": 512}),
    (grid, (Tensor(0x10000), Tensor(0x20000), Tensor(0x30000), 4096.0), {}),
    (grid, (Tensor(0x10000), 3, Tensor(0x30000), 4096), {}),
    ((1, 70000), (Tensor(0x10000), Tensor(0x20000), Tensor(0x30000), 16), {}),
    ((1,), (Tensor(0x10000), Tensor(0x20000), Tensor(0x30000)), {}),
    ((1,), (Tensor(0x10000), Tensor(0x20000), Tensor(0x30000), 16), {"BLOCK": 1}),
    # Tensors on two GPUs; every tensor on a GPU other than the current context's (the
    # stand-in driver's context is device 0's).
    (grid, (Tensor(0x10000), Tensor(0x20000, device=Device1()), Tensor(0x30000), 4096), {}),
    (grid, (Tensor(0x10000, device=Device1()), Tensor(0x20000, device=Device1()),
            Tensor(0x30000, device=Device1()), 4096), {}),
]


class LaunchPath(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.mkdtemp()
        variant(cls.tmp, "aligned.tcb", lambda m: None)
        variant(cls.tmp, "plain.tcb", unaligned)

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.tmp)
        shutil.rmtree(_LIBDIR, ignore_errors=True)

    def kernel(self, fast):
        k = tritonc_rt.load(self.tmp)
        k[(1,)](Tensor(0x10000), Tensor(0x20000), Tensor(0x30000), 16)  # loads, builds
        k[(1,)](Tensor(0x10004), Tensor(0x20000), Tensor(0x30000), 16)
        self.assertTrue(callable(k._fast), "the fast path is built after a launch")
        if not fast:
            k._fast = None
        return k

    def outcome(self, kernel, g, args, kwargs):
        before = last_launch(4)[0]
        try:
            kernel[g](*args, **kwargs)
        except Exception as e:  # noqa: BLE001 - compared as type and message
            self.assertEqual(last_launch(4)[0], before, "a refused launch launched")
            return type(e).__name__, str(e)
        count, *rest = last_launch(4)
        self.assertEqual(count, before + 1)
        return rest

    def test_the_fast_path_launches_what_the_general_path_launches(self):
        fast, general = self.kernel(True), self.kernel(False)
        for g, args, kwargs in CALLS:
            a = self.outcome(fast, g, args, kwargs)
            b = self.outcome(general, g, args, kwargs)
            self.assertNotIsInstance(a, tuple, f"{args}: {a}")
            # Parameters compared over their own bytes: 8 for pointers, 4 for the i32.
            a[4][3], b[4][3] = a[4][3][:4], b[4][3][:4]
            self.assertEqual(a, b, f"{g} {args} {kwargs}")
        # An independent check of one launch: 4 programs of 128 threads, the addresses
        # and 4096 as the kernel's parameters, on the default stream.
        self.outcome(fast, *CALLS[0])
        _, dims, block, shared, stream, params = last_launch(4)
        self.assertEqual((dims, block, shared, stream), ((4, 1, 1), (128, 1, 1), 0, 0))
        self.assertEqual([struct.unpack("<Q", p)[0] for p in params[:3]], [0x10000, 0x20000, 0x30000])
        self.assertEqual(struct.unpack("<i", params[3][:4])[0], 4096)

    def test_the_fast_path_refuses_nothing_differently(self):
        fast, general = self.kernel(True), self.kernel(False)
        for g, args, kwargs in REFUSED:
            a = self.outcome(fast, g, args, kwargs)
            b = self.outcome(general, g, args, kwargs)
            self.assertIsInstance(a, tuple, f"{args} launched")
            self.assertEqual(a, b)

    def test_the_fast_path_does_not_go_through_the_general_path(self):
        k = self.kernel(True)

        def general(*a, **kw):
            raise AssertionError("the general path was taken")
        k.launch = general
        k[grid](Tensor(0x10000), Tensor(0x20000), Tensor(0x30000), 4096)
        with self.assertRaises(AssertionError):  # a refusal is the general path's
            k[grid](Tensor(0x10000, F16), Tensor(0x20000), Tensor(0x30000), 4096)

    def test_a_tuned_launch_decides_once_and_takes_the_fast_path(self):
        # Two configs of add_kernel that differ in warps only (4 and 8) and a table
        # measured on the stand-in GPU: 8 warps won at n=1024, 4 warps at n=2^20.
        from tritonc_rt import _bundle, _tuned
        tmp = tempfile.mkdtemp()
        try:
            def warps8(m):
                m["num_warps"] = m["key"]["num_warps"] = 8
                m["key_hash"] = "2bbbe5f98fd84e7d"
            paths = [variant(tmp, "w4.tcb", lambda m: None), variant(tmp, "w8.tcb", warps8)]
            digests = [_tuned.code_digest(_bundle.load_bundle(p)) for p in paths]
            configs = [{"label": f"num_warps={w}, num_stages=3", "values": {},
                        "num_warps": w, "num_stages": 3} for w in (4, 8)]
            timed = {"status": "timed", "median_ms": 1.0, "rounds_ms": [1.0]}
            entries = [{"key": {"n_elements": n}, "winner": w, "outcomes": [timed, timed],
                        "reference": "config 0",
                        "variants": [{"bundle": os.path.basename(p), "digest": d}
                                     for p, d in zip(paths, digests)]}
                       for n, w in ((1024, 1), (1 << 20, 0))]
            with open(os.path.join(tmp, "add_kernel.tune-0123456789abcdef.json"), "w") as f:
                json.dump({"format_version": 1, "kernel": "add_kernel", "device": "stand-in GPU",
                           "target": "sm_90", "key": ["n_elements"], "configs": configs,
                           "entries": entries, "method": "test"}, f)
            k = tritonc_rt.load(tmp)
            args = (Tensor(0x10000), Tensor(0x20000), Tensor(0x30000))
            k[grid](*args, 1024)  # loads the driver, builds the fast paths
            calls = []
            real = _tuned.code_digest
            _tuned.code_digest = lambda b: calls.append(b) or real(b)
            general = k.launch
            k.launch = lambda *a, **kw: calls.append("general") or general(*a, **kw)
            try:
                for n, threads, how in ((1024, 256, "config 1 (exact)"),
                                        (1 << 20, 128, "config 0 (exact)"),
                                        (2048, 256, "config 1 (nearest)"),
                                        (1 << 19, 128, "config 0 (nearest)")):
                    for _ in range(3):
                        k[grid](*args, n)
                        _, dims, block, _, _, params = last_launch(4)
                        self.assertEqual(block, (threads, 1, 1), n)
                        self.assertEqual(dims, ((n + 1023) // 1024, 1, 1), n)
                        self.assertEqual(struct.unpack("<i", params[3][:4])[0], n)
                        self.assertEqual(k.last_tuned, how)
            finally:
                _tuned.code_digest = real
            # No digest is recomputed per call; the general path runs once, for the first
            # launch of the 4-warp variant (it loads its module; the fast path launches
            # only variants loaded before), and never to decide a config.
            self.assertEqual([c for c in calls if c != "general"], [],
                             "code digests recomputed after the first launch")
            self.assertEqual(calls.count("general"), 1, "tuned launches took the general path")
        finally:
            shutil.rmtree(tmp)

    def test_dlpack_exports_launch_from_their_address_on_the_launch_stream(self):
        k = self.kernel(True)
        x = DLPackArray(0x40000)
        y = DLPackArray(0x50000, byte_offset=16)
        k[grid](x, y, Tensor(0x30000), 4096, stream=0x99)
        _, dims, _, _, stream, params = last_launch(4)
        self.assertEqual(stream, 0x99)
        self.assertEqual([struct.unpack("<Q", p)[0] for p in params[:2]], [0x40000, 0x50010])
        self.assertEqual(x.streams, [0x99], "the producer is told the launch's stream")
        # Four bytes in: only the unaligned variant accepts it.
        k[grid](DLPackArray(0x40004), y, Tensor(0x30000), 4096)
        with self.assertRaises(tritonc_rt.NoMatchingVariantError) as c:
            k[grid](DLPackArray(0x40000, code=2, bits=16), y, Tensor(0x30000), 4096)
        self.assertIn("was compiled for fp32 elements, but the tensor holds fp16", str(c.exception))
        with self.assertRaises(tritonc_rt.NoMatchingVariantError) as c:
            k[grid](DLPackArray(0x40000, device=(1, 0)), y, Tensor(0x30000), 4096)
        self.assertIn("is on DLPack device type 1, not in CUDA memory", str(c.exception))


if __name__ == "__main__":
    unittest.main()
