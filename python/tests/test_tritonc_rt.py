"""tritonc_rt without a GPU: bundle reading, argument checks, variant choice, grids, and
the no-driver path (python3 -m unittest discover -s python/tests)."""

import ctypes.util
import json
import os
import shutil
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, "python"))

import tritonc_rt  # noqa: E402
import tritonc_rt._bundle  # noqa: E402
from tritonc_rt._check import _float_bits  # noqa: E402

BUNDLE = os.path.join(ROOT, "examples", "rust", "kernels", "add_kernel.tcb")
NO_DRIVER = ctypes.util.find_library("cuda") is None


class Array:
    """An object exposing __cuda_array_interface__ (as CuPy and Numba arrays do)."""

    def __init__(self, addr, typestr="<f4"):
        self.__cuda_array_interface__ = {
            "data": (addr, False), "typestr": typestr, "shape": (4096,), "version": 3}


class CpuTensor:
    """What a PyTorch tensor on the CPU looks like to the checks."""

    is_cuda = False
    device = "cpu"

    def __init__(self, name="float32"):
        self.dtype = f"torch.{name}"

    def data_ptr(self):
        return 0x1000


def variant(tmp, name, edit):
    """A copy of the example bundle under tmp/name with its metadata edited."""
    path = os.path.join(tmp, name)
    shutil.copytree(BUNDLE, path)
    meta_path = os.path.join(path, "bundle.json")
    with open(meta_path) as f:
        meta = json.load(f)
    edit(meta)
    with open(meta_path, "w") as f:
        json.dump(meta, f)
    return path


def unaligned(meta):
    for p in meta["params"][:3]:
        p["role"]["passed"]["kind"]["pointer"]["align"] = 1
    meta["params"][3]["role"]["passed"]["kind"]["scalar"].pop("divisibility")
    meta["key"]["args"] = [dict(a, spec=a["spec"].replace(":16", "")) for a in meta["key"]["args"]]


class TritoncRt(unittest.TestCase):
    def setUp(self):
        self.kernel = tritonc_rt.load(BUNDLE)
        self.tmp = tempfile.mkdtemp()

    def tearDown(self):
        shutil.rmtree(self.tmp)

    def test_the_bundle_is_read(self):
        b = self.kernel.variants[0].bundle
        self.assertEqual(self.kernel.params, ["x_ptr", "y_ptr", "out_ptr", "n_elements", "BLOCK_SIZE"])
        self.assertEqual((b.entry, b.target, b.num_warps, b.sm), ("add_kernel", "sm_90", 4, (9, 0, False)))
        self.assertIsNotNone(b.cubin)
        self.assertEqual(b.min_driver_version, 12000)

    def test_the_code_capability_comes_from_the_ptx_target(self):
        # `--target sm_90` compiles sm_90a PTX: it runs on capability 9.0 only.
        b = self.kernel.variants[0].bundle
        b.ptx = b.ptx.replace(b".target sm_90\n", b".target sm_90a\n")
        self.assertEqual((b.target, b.sm), ("sm_90", (9, 0, True)))

    def test_every_violation_is_reported_before_the_driver(self):
        with self.assertRaises(tritonc_rt.LaunchError) as c:
            self.kernel[(4,)](Array(0x1004), Array(0x2000, "<f2"), CpuTensor(), 1000, BLOCK_SIZE=512)
        text = [str(v) for v in c.exception.violations]
        self.assertEqual(text, [
            "`x_ptr` was specialized as 16-byte aligned (:16), but its address 0x1004 is not a multiple of 16",
            "`y_ptr` was compiled for fp32 elements, but the tensor holds fp16",
            "`out_ptr` is a tensor on cpu, not on a CUDA device",
            "`n_elements` was specialized as divisible by 16 (:16), but it is 1000",
            "`BLOCK_SIZE` was compiled as the constexpr 1024, but 512 was given",
        ])
        self.assertIn("add_kernel(x_ptr=*fp32:16", str(c.exception))

    def test_scalars_are_range_checked_and_typed(self):
        for bad, message in [(2**31, "out of its range"), (16.0, "is not an int"), (True, "is not an int")]:
            with self.assertRaises(tritonc_rt.LaunchError) as c:
                self.kernel[(1,)](Array(0x1000), Array(0x2000), Array(0x3000), bad)
            self.assertIn(message, str(c.exception))
        with self.assertRaises(tritonc_rt.LaunchError) as c:
            self.kernel[(1,)](Array(0x1000), 7, Array(0x3000), 16)
        self.assertIn("`y_ptr` expects a tensor of fp32, but int was given", str(c.exception))

    def test_arguments_bind_like_a_python_call(self):
        with self.assertRaises(TypeError):
            self.kernel[(1,)](Array(0x1000), Array(0x2000), Array(0x3000))
        with self.assertRaises(TypeError):
            self.kernel[(1,)](Array(0x1000), Array(0x2000), Array(0x3000), 16, BLOCK=1024)
        bound = self.kernel.bind([Array(0x1000), Array(0x2000)], {"out_ptr": Array(0x3000), "n_elements": 16})
        self.assertEqual(bound[3:], [16, 1024])  # the constexpr left out takes its compiled value

    def test_the_most_specialized_variant_that_accepts_the_arguments_is_chosen(self):
        os.rmdir(self.tmp)
        os.makedirs(self.tmp)
        variant(self.tmp, "aligned.tcb", lambda m: None)
        variant(self.tmp, "plain.tcb", unaligned)
        kernel = tritonc_rt.load(self.tmp)
        self.assertEqual(len(kernel.variants), 2)
        chosen = lambda *a: os.path.basename(kernel.select(kernel.bind(a, {}))[0].bundle.path)  # noqa: E731
        self.assertEqual(chosen(Array(0x1000), Array(0x2000), Array(0x3000), 4096), "aligned.tcb")
        self.assertEqual(chosen(Array(0x1004), Array(0x2000), Array(0x3000), 4096), "plain.tcb")
        self.assertEqual(chosen(Array(0x1000), Array(0x2000), Array(0x3000), 4095), "plain.tcb")
        with self.assertRaises(tritonc_rt.NoMatchingVariantError) as c:
            chosen(Array(0x1000, "<f2"), Array(0x2000), Array(0x3000), 4096)
        self.assertEqual(len(c.exception.refusals), 2)

    def test_an_equal_to_one_parameter_must_be_one(self):
        def one(meta):
            meta["params"][3]["role"] = "equal_to_one"
            meta["key"]["args"][3]["spec"] = "i32:1"
        kernel = tritonc_rt.load(variant(self.tmp, "one.tcb", one))
        with self.assertRaises(tritonc_rt.LaunchError) as c:
            kernel[(1,)](Array(0x1000), Array(0x2000), Array(0x3000), 2)
        self.assertIn("`n_elements` was specialized as equal to 1 (==1), but 2 was given", str(c.exception))

    def test_a_newer_format_is_refused(self):
        path = variant(self.tmp, "new.tcb", lambda m: m.update(format_version=9))
        with self.assertRaises(tritonc_rt.BundleError) as c:
            tritonc_rt.load(path)
        self.assertIn("written by a newer tritonc", str(c.exception))

    def test_the_format_stability_policy(self):
        """docs/runtime.md, "Stability of the format", as crates/tritonc-bundle/tests/
        stability.rs checks it for the Rust reader: a bundle without the optional fields
        added since the first version-1 writers loads with their defaults, a field from a
        newer writer is ignored, a newer version is refused by name."""
        added_since = ["static_shared_bytes", "hidden_params", "reduction_layouts", "ptxas",
                       "min_driver_version"]
        old = tritonc_rt.load_bundle(variant(
            self.tmp, "old.tcb", lambda m: [m.pop(f) for f in added_since]))
        self.assertEqual(old.min_driver_version, 12000)  # read from the PTX's .version
        self.assertEqual(old.params, tritonc_rt.load_bundle(BUNDLE).params)
        newer_field = tritonc_rt.load_bundle(variant(
            self.tmp, "field.tcb", lambda m: m.update(a_field_from_a_newer_tritonc={"x": 1})))
        self.assertEqual(newer_field.params, old.params)
        with self.assertRaises(tritonc_rt.BundleError) as c:
            tritonc_rt.load_bundle(variant(
                self.tmp, "v3.tcb", lambda m: m.update(format_version=3, params="?")))
        self.assertIn("written by a newer tritonc", str(c.exception))

    def test_a_damaged_bundle_is_a_bundle_error_never_another_exception(self):
        with open(os.path.join(BUNDLE, "kernel.cubin"), "rb") as f:
            cubin = f.read()
        import struct as st
        past_end = bytearray(cubin)
        st.pack_into("<Q", past_end, 40, len(cubin) - 8)  # section headers past the end
        big_section = bytearray(cubin)
        e_shoff, = st.unpack_from("<Q", cubin, 40)
        st.pack_into("<Q", big_section, e_shoff + 64 + 32, 1 << 40)  # section 1's size
        cases = {
            "not JSON": ("bundle.json", b"{\"format_version\": 1,"),
            "a JSON list": ("bundle.json", b"[1, 2]"),
            "deeply nested JSON": ("bundle.json", b"[" * 100000 + b"]" * 100000),
            "a truncated cubin": ("kernel.cubin", cubin[: len(cubin) // 2]),
            "a cubin that is not ELF": ("kernel.cubin", b"\x00" * 4096),
            "a cubin of another machine": ("kernel.cubin", cubin[:18] + b"\x3e\x00" + cubin[20:]),
            "section headers past the end": ("kernel.cubin", bytes(past_end)),
            "a section past the end": ("kernel.cubin", bytes(big_section)),
        }
        edits = {
            "no entry": lambda m: m.pop("entry"),
            "num_warps as text": lambda m: m.update(num_warps="4"),
            "num_warps 3": lambda m: m.update(num_warps=3),
            "num_warps 0": lambda m: m.update(num_warps=0),
            "negative shared memory": lambda m: m.update(dynamic_shared_bytes=-1),
            "an AMD target": lambda m: m.update(target="gfx942"),
            "no params": lambda m: m.pop("params"),
            "params as a dict": lambda m: m.update(params={"x": 1}),
            "a role of nonsense": lambda m: m["params"][0].update(role=[1]),
            "an index as text": lambda m: m["params"][0]["role"]["passed"].update(index="0"),
            "an alignment of 3": lambda m: m["params"][0]["role"]["passed"]["kind"]["pointer"]
            .update(align=3),
            "no key": lambda m: m.pop("key"),
            "key args as text": lambda m: m["key"].update(args="x"),
        }
        paths = []
        for name, (file, data) in cases.items():
            path = variant(self.tmp, name.replace(" ", "_") + ".tcb", lambda m: None)
            with open(os.path.join(path, file), "wb") as f:
                f.write(data)
            paths.append((name, path))
        for name, edit in edits.items():
            paths.append((name, variant(self.tmp, name.replace(" ", "_") + ".tcb", edit)))
        for name, path in paths:
            with self.subTest(name):
                with self.assertRaises(tritonc_rt.BundleError) as c:
                    tritonc_rt.load(path)
                self.assertIn(path, str(c.exception))
        # The intact cubin passes the same check.
        tritonc_rt._bundle.check_elf_bounds(cubin, "kernel.cubin")

    def test_tensors_on_two_devices_are_refused_before_the_driver(self):
        class OnDevice(CpuTensor):
            is_cuda = True

            def __init__(self, index, addr):
                super().__init__()
                self.device = type("Device", (), {"type": "cuda", "index": index})()
                self._addr = addr

            def data_ptr(self):
                return self._addr

        with self.assertRaises(tritonc_rt.LaunchError) as c:
            self.kernel[(4,)](OnDevice(0, 0x1000), OnDevice(1, 0x2000), OnDevice(0, 0x3000), 4096)
        self.assertEqual([str(v) for v in c.exception.violations], [
            "`y_ptr` is on cuda:1, but the launch runs on cuda:0 (the device of the first "
            "tensor): move every tensor to one device"])

    def test_grids(self):
        args = (Array(0x1000), Array(0x2000), Array(0x3000), 4096)
        seen = {}
        # No programs: nothing is launched, and the driver is not needed.
        self.kernel[lambda meta: seen.update(meta) or (0,)](*args)
        self.assertEqual(seen["n_elements"], 4096)
        self.assertEqual(seen["BLOCK_SIZE"], 1024)
        self.kernel[(4, 0)](*args)
        for bad in [(1, 70000), (1, 2, 3, 4), (-1,)]:
            with self.assertRaises(ValueError):
                self.kernel[bad](*args)

    def test_half_precision_scalars_are_passed_as_bits(self):
        self.assertEqual(_float_bits(1.0, "fp16"), 0x3C00)
        self.assertEqual(_float_bits(-2.5, "fp16"), 0xC100)
        self.assertEqual(_float_bits(1.0, "bf16"), 0x3F80)
        self.assertEqual(_float_bits(1.00390625, "bf16"), 0x3F80)  # a tie rounds to even

    @unittest.skipUnless(NO_DRIVER, "a machine with an NVIDIA driver")
    def test_without_a_driver_the_launch_says_so(self):
        with self.assertRaises(tritonc_rt.NoDriverError) as c:
            self.kernel[(4,)](Array(0x1000), Array(0x2000), Array(0x3000), 4096)
        self.assertIn("libcuda.so.1 could not be loaded", str(c.exception))

    @unittest.skipUnless(NO_DRIVER, "a machine with an NVIDIA driver")
    def test_the_documented_example_runs_up_to_the_driver(self):
        env = dict(os.environ, PYTHONPATH=os.pathsep.join(
            [os.path.join(HERE, "fake_torch"), os.path.join(ROOT, "python")]))
        run = subprocess.run([sys.executable, "examples/python/add.py"], cwd=ROOT, env=env,
                             capture_output=True, text=True)
        self.assertEqual(run.returncode, 3, run.stderr)
        self.assertIn("add: no NVIDIA driver: libcuda.so.1 could not be loaded", run.stderr)

    def test_tuning_tables_dispatch_by_the_documented_rule(self):
        from tritonc_rt import _tuned

        def table(entries):
            return _tuned.TuneTable({
                "kernel": "k", "device": "NVIDIA H200", "key": ["M", "dt"],
                "configs": [{"label": f"c{i}", "values": {"BLOCK": 16 << i}, "num_warps": 4,
                             "num_stages": 3} for i in range(3)],
                "entries": [{"key": {"M": m, "dt": dt}, "winner": w,
                             "variants": [{"bundle": None, "digest": f"d{i}-{m}"} for i in range(3)]}
                            for m, dt, w in entries]})

        # The same cases as tritonc_bundle::tuned's test of the rule.
        t = table([(1024, "fp16", 1), (8192, "fp16", 2), (4096, "fp32", 0)])
        self.assertEqual(t.choose({"M": 1024, "dt": "fp16"}), (1, "exact"))
        self.assertEqual(t.choose({"M": 2048, "dt": "fp16"}), (1, "nearest"))
        self.assertEqual(t.choose({"M": 5000, "dt": "fp16"}), (2, "nearest"))
        tie = table([(512, "fp16", 2), (2048, "fp16", 1)])
        self.assertEqual(tie.choose({"M": 1024, "dt": "fp16"}), (2, "nearest"))
        self.assertEqual(t.choose({"M": 1024, "dt": "bf16"}), (0, "default"))
        self.assertEqual(t.meta_names(), ["BLOCK"])
        digests = {f"d{i}-{m}" for i in range(3) for m in (1024, 8192, 4096)}
        self.assertEqual(len(_tuned.matching_table([t], "NVIDIA H200", digests).entries), 3)
        self.assertIsNone(_tuned.matching_table([t], "NVIDIA A100", digests))
        # 8192's variants recompiled: its entry is left out, 5000 goes to 1024's winner.
        digests.discard("d2-8192")
        usable = _tuned.matching_table([t], "NVIDIA H200", digests)
        self.assertEqual(usable.choose({"M": 5000, "dt": "fp16"}), (1, "nearest"))

    def test_docs_python_md_shows_the_example(self):
        with open(os.path.join(ROOT, "docs", "python.md")) as f:
            doc = f.read()
        with open(os.path.join(ROOT, "examples", "python", "add.py")) as f:
            example = f.read()
        self.assertIn(f"```python\n{example}```", doc)


if __name__ == "__main__":
    unittest.main()
