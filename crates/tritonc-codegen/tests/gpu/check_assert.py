"""Runs the golden PTX of examples/debug_assert.py (debug mode) on an NVIDIA GPU.

Needs only the CUDA driver (libcuda through ctypes): no CuPy, no toolkit.
    python3 crates/tritonc-codegen/tests/gpu/check_assert.py
Each case runs in a child process, since a device-side assert leaves the CUDA context
unusable. Checks that in-bounds indices gather correctly and that out-of-bounds ones stop
the launch with CUDA_ERROR_ASSERT (710) after the device printed
`examples/debug_assert.py:26: unknown: block: [31,0,0], thread: [T,0,0] Assertion
`gather index out of bounds` failed.` for failing threads T in 32..127.
Prints one line per check and 'N passed, N failed'; exits non-zero on a failure.
"""

import ctypes
import pathlib
import re
import struct
import subprocess
import sys

GOLDEN = pathlib.Path(__file__).resolve().parent.parent / "golden" / "debug_assert.ptx"
BLOCK = 128
N_SRC = 4000
ASSERT_LINE = re.compile(
    r"examples/debug_assert\.py:26: unknown: block: \[(\d+),0,0\], thread: \[(\d+),0,0\] "
    r"Assertion `gather index out of bounds` failed\."
)


def child(n):
    """Gathers idx = 0..n-1 from a 4000-element source; prints `status <CUresult>`."""
    cu = ctypes.CDLL("libcuda.so.1")

    def check(r, what):
        if r != 0:
            print(f"status {r} at {what}", flush=True)
            sys.exit(0)

    check(cu.cuInit(0), "cuInit")
    dev = ctypes.c_int()
    check(cu.cuDeviceGet(ctypes.byref(dev), 0), "cuDeviceGet")
    ctx = ctypes.c_void_p()
    check(cu.cuDevicePrimaryCtxRetain(ctypes.byref(ctx), dev), "cuDevicePrimaryCtxRetain")
    check(cu.cuCtxSetCurrent(ctx), "cuCtxSetCurrent")
    module = ctypes.c_void_p()
    check(cu.cuModuleLoadData(ctypes.byref(module), GOLDEN.read_bytes() + b"\0"), "cuModuleLoadData")
    func = ctypes.c_void_p()
    check(cu.cuModuleGetFunction(ctypes.byref(func), module, b"gather_kernel"), "cuModuleGetFunction")

    def alloc(data):
        p = ctypes.c_uint64()
        check(cu.cuMemAlloc_v2(ctypes.byref(p), ctypes.c_size_t(len(data))), "cuMemAlloc")
        check(cu.cuMemcpyHtoD_v2(p, data, ctypes.c_size_t(len(data))), "cuMemcpyHtoD")
        return p

    src_vals = [float(i) * 0.5 for i in range(N_SRC)]
    src = alloc(struct.pack(f"{N_SRC}f", *src_vals))
    idx = alloc(struct.pack(f"{n}i", *range(n)))
    out = alloc(b"\0" * (4 * n))
    n_src, n_c = ctypes.c_int32(N_SRC), ctypes.c_int32(n)
    args = [ctypes.byref(src), ctypes.byref(idx), ctypes.byref(out), ctypes.byref(n_src), ctypes.byref(n_c)]
    params = (ctypes.c_void_p * len(args))(*[ctypes.cast(a, ctypes.c_void_p) for a in args])
    grid = (n + BLOCK - 1) // BLOCK
    check(cu.cuLaunchKernel(func, grid, 1, 1, BLOCK, 1, 1, 0, None, params, None), "cuLaunchKernel")
    r = cu.cuCtxSynchronize()
    if r == 0:
        host = ctypes.create_string_buffer(4 * n)
        check(cu.cuMemcpyDtoH_v2(host, out, ctypes.c_size_t(4 * n)), "cuMemcpyDtoH")
        got = struct.unpack(f"{n}f", host.raw)
        print("gathered", "ok" if list(got) == src_vals[:n] else "WRONG", flush=True)
    print(f"status {r} at cuCtxSynchronize", flush=True)


def run_child(n):
    p = subprocess.run([sys.executable, __file__, "child", str(n)], capture_output=True, text=True, timeout=120)
    return p.stdout + p.stderr


def main():
    results = []
    text = run_child(N_SRC)
    results.append(("in-bounds gather completes and is exact", "gathered ok" in text and "status 0 at cuCtxSynchronize" in text))
    text = run_child(4096)
    lanes = [(int(b), int(t)) for b, t in ASSERT_LINE.findall(text)]
    results.append(("out-of-bounds gather fails with CUDA_ERROR_ASSERT (710)", "status 710 at cuCtxSynchronize" in text))
    results.append((f"the device printed {len(lanes)} assert line(s), all block 31, threads 32..127",
                    bool(lanes) and all(b == 31 and 32 <= t < 128 for b, t in lanes)))
    failed = 0
    for name, ok in results:
        print(("pass  " if ok else "FAIL  ") + name)
        failed += not ok
    if failed:
        print(text)
    print(f"{len(results) - failed} passed, {failed} failed")
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    if len(sys.argv) == 3 and sys.argv[1] == "child":
        child(int(sys.argv[2]))
    else:
        main()
