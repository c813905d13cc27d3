"""tritonc_rt.interpret: @triton.jit kernels launched with Triton's syntax on tritonc's CPU
interpreter (libtritonc_pyinterp.so): results against values computed here, Triton's
argument handling, and the interpreter's diagnostics as Python exceptions.

Needs the library (`cargo build -p tritonc-pyinterp`); uses the real Triton when it is
importable and the stand-in under fake_triton/ otherwise, NumPy nowhere."""

import ctypes
import math
import os
import struct
import sys
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, "python"))
try:
    import triton  # noqa: F401
except ImportError:
    sys.path.insert(0, os.path.join(HERE, "fake_triton"))
sys.path.insert(0, HERE)

import interp_kernels as K  # noqa: E402
import triton.language as tl  # noqa: E402

from tritonc_rt import interpret  # noqa: E402

_CT = {"<f4": ctypes.c_float, "<f2": ctypes.c_uint16, "<i4": ctypes.c_int32}


class HostArray:
    """A 1-D host array exposing __array_interface__ (as NumPy arrays do), over ctypes."""

    def __init__(self, values, typestr="<f4", base=None, offset=0):
        if base is None:
            self.mem = (_CT[typestr] * len(values))(*values)
        else:
            self.mem = base.mem
        self.typestr, self.n = typestr, len(values)
        self.size = struct.calcsize(typestr[1:].replace("f2", "e").replace("f4", "f")
                                    .replace("i4", "i"))
        self.addr = ctypes.addressof(self.mem) + offset * self.size
        self.__array_interface__ = {
            "data": (self.addr, False), "typestr": typestr, "shape": (self.n,),
            "strides": None, "version": 3}

    def view(self, start, n):
        return HostArray([0] * n, self.typestr, base=self, offset=start)

    def values(self):
        raw = ctypes.string_at(self.addr, self.n * self.size)
        code = {"<f4": "f", "<f2": "e", "<i4": "i"}[self.typestr]
        return list(struct.unpack(f"<{self.n}{code}", raw))


def f32(x):
    return struct.unpack("<f", struct.pack("<f", x))[0]


def f16_bits(x):
    return struct.unpack("<H", struct.pack("<e", x))[0]


class InterpretTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        interpret.install()

    @classmethod
    def tearDownClass(cls):
        interpret.uninstall()

    def test_add_with_launch_syntax_and_a_grid_function(self):
        n = 1000
        xs = [f32(math.sin(i) * 100) for i in range(n)]
        ys = [f32(math.cos(i) / 3) for i in range(n)]
        x, y, out = HostArray(xs), HostArray(ys), HostArray([0.0] * n)
        K.add_kernel[lambda meta: (triton_cdiv(meta["n"], meta["BLOCK"]),)](
            x, y, out, n, BLOCK=256)
        self.assertEqual(out.values(), [f32(a + b) for a, b in zip(xs, ys)])

    def test_constexpr_dtype_and_float_argument(self):
        n = 77
        xs = [f32(i * 0.37 - 9) for i in range(n)]
        x, out = HostArray(xs), HostArray([0] * n, "<f2")
        K.scale_cast_kernel[(2,)](x, out, n, 1.5, BLOCK=64, OUT=tl.float16)
        want = [f16_bits(f32(v * f32(1.5))) for v in xs]
        self.assertEqual(out.values(), [struct.unpack("<e", struct.pack("<H", w))[0]
                                        for w in want])

    def test_out_of_bounds_names_program_and_lane(self):
        x, out = HostArray([1.0] * 100), HostArray([0.0] * 128)
        with self.assertRaises(interpret.OutOfBoundsError) as cm:
            K.unmasked_copy[(2,)](x, out, BLOCK=64)
        e = cm.exception
        self.assertEqual(e.program, (1, 0, 0))
        self.assertEqual(e.lane, 36)  # 64 + 36 = 100, the first element past x
        self.assertIn("interp_kernels.py", e.diagnostic)
        self.assertIn("tl.load", e.diagnostic)
        self.assertEqual(out.values(), [0.0] * 128, "a failed launch writes nothing back")

    def test_race_between_programs(self):
        x, out = HostArray([1.0] * 256), HostArray([0.0])
        with self.assertRaises(interpret.DataRaceError) as cm:
            K.racy_sum[(4,)](x, out, BLOCK=64)
        self.assertIn("race", str(cm.exception))

    def test_device_assert_in_debug_mode(self):
        x = HostArray([1.0, 2.0, -3.0, 4.0])
        K.positive_check[(1,)](x, 4, BLOCK=4)  # asserts are compiled out without debug
        with self.assertRaises(interpret.DeviceAssertError) as cm:
            K.positive_check[(1,)](x, 4, BLOCK=4, debug=True)
        self.assertIn("x must be positive", str(cm.exception))

    def test_overlapping_views_of_one_array_share_a_buffer(self):
        base = HostArray([float(i) for i in range(96)])
        src, dst = base.view(0, 96), base.view(32, 64)  # dst aliases src[32:]
        K.add_kernel[(1,)](src, src, dst, 64, BLOCK=64)
        # One program loads src[0:64] before it stores, as on the GPU.
        self.assertEqual(base.values(), [float(i) for i in range(32)] +
                         [2.0 * i for i in range(64)])

    def test_results_do_not_depend_on_the_thread_count(self):
        rows, cols = 37, 100
        xs = [f32(math.sin(i * 0.1) * 4) for i in range(rows * cols)]
        outs = []
        for threads in (1, 2, 3):
            interpret.set_threads(threads)
            x, out = HostArray(xs), HostArray([0.0] * (rows * cols))
            K.row_softmax[(rows,)](out, x, cols, cols, BLOCK=128)
            outs.append(ctypes.string_at(out.addr, rows * cols * 4))
        interpret.set_threads(0)
        self.assertEqual(outs[0], outs[1])
        self.assertEqual(outs[0], outs[2])
        row = [struct.unpack("<f", outs[0][i * 4:i * 4 + 4])[0] for i in range(cols)]
        m = max(xs[:cols])
        e = [math.exp(v - m) for v in xs[:cols]]
        for got, want in zip(row, e):
            self.assertAlmostEqual(got, want / sum(e), delta=1e-6)

    def test_scan(self):
        xs = [float(i % 7 - 3) for i in range(32)]
        x, out = HostArray(xs), HostArray([0.0] * 32)
        K.cumsum_kernel[(1,)](x, out, BLOCK=32)
        acc, want = 0.0, []
        for v in xs:
            acc += v
            want.append(acc)
        self.assertEqual(out.values(), want)

    def test_a_string_for_a_runtime_parameter_is_a_type_error_from_tritonc(self):
        x, out = HostArray([1.0] * 4), HostArray([0.0] * 4)
        with self.assertRaises(interpret.InterpreterError) as cm:
            K.add_kernel[(1,)](x, x, out, "four", BLOCK=4)
        self.assertIn("`n` is a runtime parameter", str(cm.exception))

    def test_missing_argument_is_pythons_type_error(self):
        with self.assertRaises(TypeError):
            K.add_kernel[(1,)](HostArray([1.0]), BLOCK=4)


def triton_cdiv(a, b):
    return (a + b - 1) // b


if __name__ == "__main__":
    unittest.main()
