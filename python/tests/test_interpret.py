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
import triton  # noqa: E402
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

    def test_layer_norm_example_sums_dw_and_db_in_fp32(self):
        # examples/layer_norm.py's kernels, forward then backward, on fp16 data: dw and db
        # are column sums over every row accumulated in fp32 and rounded once to fp16, so
        # they are within half an fp16 ulp (plus fp32 rounding) of the exact sums.
        try:
            import torch  # noqa: F401
        except ImportError:
            sys.path.insert(0, os.path.join(HERE, "fake_torch"))
        sys.path.insert(0, os.path.join(ROOT, "examples"))
        import layer_norm as L
        rows, cols, block = 150, 40, 64
        def half(v):
            return struct.unpack("<e", struct.pack("<e", v))[0]
        xs = [half(math.sin(i * 0.37) * 3 + (i % 7) * 0.25) for i in range(rows * cols)]
        ws = [half(0.5 + (j % 5) * 0.125) for j in range(cols)]
        bs = [half(j * 0.01) for j in range(cols)]
        dys = [half(math.cos(i * 0.11) * 2) for i in range(rows * cols)]
        f16 = lambda vs: HostArray([f16_bits(v) for v in vs], "<f2")
        x, w, b, dy = f16(xs), f16(ws), f16(bs), f16(dys)
        y, dx = f16([0.0] * (rows * cols)), f16([0.0] * (rows * cols))
        mean, rstd = HostArray([0.0] * rows), HostArray([0.0] * rows)
        L.layer_norm_fwd_kernel[(rows,)](x, y, w, b, mean, rstd, cols, cols, 1e-5,
                                         BLOCK_N=block, num_warps=1)
        per_program = 64
        programs = (rows + per_program - 1) // per_program
        dw_part, db_part = HostArray([0.0] * (programs * cols)), HostArray([0.0] * (programs * cols))
        L.layer_norm_bwd_dx_kernel[(programs,)](
            dx, dy, dw_part, db_part, x, w, mean, rstd, cols, rows, cols,
            ROWS_PER_PROGRAM=per_program, BLOCK_N=block, num_warps=1)
        dw, db = f16([0.0] * cols), f16([0.0] * cols)
        L.layer_norm_bwd_dwdb_kernel[(1,)](dw_part, db_part, dw, db, programs, cols,
                                            BLOCK_M=32, BLOCK_N=64)
        # The exact sums, from the mean and rstd the forward kernel stored.
        ms, rs = mean.values(), rstd.values()
        for i in range(rows):
            self.assertAlmostEqual(ms[i], sum(xs[i * cols:(i + 1) * cols]) / cols, delta=1e-5)
        for j in range(cols):
            want_dw = sum(dys[i * cols + j] * (xs[i * cols + j] - ms[i]) * rs[i]
                          for i in range(rows))
            want_db = sum(dys[i * cols + j] for i in range(rows))
            for got, want in ((dw.values()[j], want_dw), (db.values()[j], want_db)):
                ulp = 2.0 ** (math.frexp(abs(want))[1] - 11) if want else 2.0 ** -24
                self.assertLessEqual(abs(got - want), ulp / 2 + 1e-4 * abs(want) + 1e-6,
                                     f"column {j}: {got} against {want}")

    def test_autotune_takes_the_first_config_without_timing(self):
        if not hasattr(K, "tuned_fill"):
            self.skipTest("needs the real Triton's autotuner")
        n = 100
        out = HostArray([0] * n, "<i4")
        K.tuned_fill[lambda meta: (triton_cdiv(n, meta["BLOCK"]),)](out, n)
        self.assertEqual(out.values(), [32] * n)
        self.assertEqual(K.tuned_fill.best_config.kwargs, {"BLOCK": 32})

    def test_a_launch_option_declared_as_a_parameter_reaches_the_kernel(self):
        # As Triton does: `num_warps` sets the launch and is passed to the kernel too.
        out = HostArray([0] * 4, "<i4")
        K.warps_as_parameter[(1,)](out, num_warps=2)
        self.assertEqual(out.values(), [2] * 4)

    def test_a_kernel_defined_inside_a_function_runs(self):
        # As in test suites that define kernels inside test functions: the kernel, a helper
        # beside it and a tl.constexpr of the enclosing function, all reached through the
        # closure (Triton's capture scope: the module's globals and the nonlocals).
        SCALE = tl.constexpr(3)

        @triton.jit
        def twice(v):
            return v * 2

        @triton.jit
        def add_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
            offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
            mask = offs < n
            tl.store(out_ptr + offs, twice(tl.load(x_ptr + offs, mask=mask)) + SCALE,
                     mask=mask)

        n = 100
        x, out = HostArray([float(i) for i in range(n)]), HostArray([0.0] * n)
        # Named as interp_kernels' module-level add_kernel, which is not the one run.
        add_kernel[(2,)](x, out, n, BLOCK=64)
        self.assertEqual(out.values(), [2.0 * i + 3 for i in range(n)])

    def test_kernels_of_one_name_in_two_functions_are_told_apart(self):
        def make(k):
            if k == 1:
                @triton.jit
                def kernel(out_ptr, BLOCK: tl.constexpr):
                    tl.store(out_ptr + tl.arange(0, BLOCK), tl.arange(0, BLOCK) + 1)
            else:
                @triton.jit
                def kernel(out_ptr, BLOCK: tl.constexpr):
                    tl.store(out_ptr + tl.arange(0, BLOCK), tl.arange(0, BLOCK) * 10)
            return kernel

        a, b = HostArray([0] * 8, "<i4"), HostArray([0] * 8, "<i4")
        make(1)[(1,)](a, BLOCK=8)
        make(2)[(1,)](b, BLOCK=8)
        self.assertEqual(a.values(), [i + 1 for i in range(8)])
        self.assertEqual(b.values(), [10 * i for i in range(8)])

    def test_a_plain_variable_of_the_enclosing_function_is_refused_as_triton_does(self):
        # Triton reads only constexprs, dtypes, jit functions and modules from a kernel's
        # capture scope: a plain int is its "Cannot access global variable" error.
        offset = 5

        @triton.jit
        def shifted(out_ptr, BLOCK: tl.constexpr):
            tl.store(out_ptr + tl.arange(0, BLOCK), tl.arange(0, BLOCK) + offset)

        with self.assertRaises(interpret.KernelCompileError) as cm:
            shifted[(1,)](HostArray([0] * 4, "<i4"), BLOCK=4)
        self.assertIn("`offset`", str(cm.exception))
        self.assertIn("not a `tl.constexpr`", str(cm.exception))

    def test_sort_topk_and_flip_match_triton_bit_for_bit(self):
        # fixtures/sort_triton.json: Triton 3.6's own results (its interpreter, running
        # the bitonic network of triton/language/standard.py) on rows with NaNs, signed
        # zeros, infinities and ties, in fp32, fp16 and int32, ascending and descending
        # (scripts/triton_sort_fixture.py).
        import json
        import sort_kernels as S
        with open(os.path.join(HERE, "fixtures", "sort_triton.json")) as f:
            cases = json.load(f)["cases"]
        self.assertGreaterEqual(len(cases), 60)
        typestr = {"float32": "<f4", "float16": "<f2", "int32": "<i4"}
        size = {"float32": 4, "float16": 2, "int32": 4}
        for c in cases:
            with self.subTest(kernel=c["kernel"], dtype=c["dtype"], **c["constexprs"]):
                w = size[c["dtype"]]
                xb, want = bytes.fromhex(c["x"]), c["out"]
                n_out = len(bytes.fromhex(want)) // w
                code = {2: "H", 4: "I"}[w]
                x = HostArray(list(struct.unpack(f"<{len(xb) // w}{code}", xb)),
                              {2: "<f2", 4: "<i4"}[w])
                out = HostArray([0] * n_out, {2: "<f2", 4: "<i4"}[w])
                # The bits go in as ints; the kernel reads them as the case's dtype.
                x.__array_interface__["typestr"] = typestr[c["dtype"]]
                out.__array_interface__["typestr"] = typestr[c["dtype"]]
                getattr(S, c["kernel"])[(1,)](x, out, **c["constexprs"])
                got = ctypes.string_at(out.addr, n_out * w).hex()
                self.assertEqual(got, want)

    def test_sort_along_another_dim_is_refused_as_triton_refuses_it(self):
        import sort_kernels as S  # noqa: F401 - the file's kernels are read from source

        @triton.jit
        def sort_dim0(x_ptr, out_ptr, N: tl.constexpr):
            offs = tl.arange(0, N)[:, None] * N + tl.arange(0, N)[None, :]
            tl.store(out_ptr + offs, tl.sort(tl.load(x_ptr + offs), dim=0))

        with self.assertRaises(interpret.KernelCompileError) as cm:
            sort_dim0[(1,)](HostArray([1.0] * 16), HostArray([0.0] * 16), N=4)
        self.assertIn("only minor dimension is currently supported", str(cm.exception))

    def test_missing_argument_is_pythons_type_error(self):
        with self.assertRaises(TypeError):
            K.add_kernel[(1,)](HostArray([1.0]), BLOCK=4)


def triton_cdiv(a, b):
    return (a + b - 1) // b


if __name__ == "__main__":
    unittest.main()
