"""tritonc_rt.capture without a GPU: Triton 3.6's real ``JITFunction`` objects and
CPU PyTorch tensors, with Triton's launch replaced by a stand-in that computes the
kernel's result on the CPU (what the GPU would write) and returns what a compiled
kernel reports (``metadata.num_warps``/``num_stages``). When ``TRITONC`` names a tritonc
binary, the captured spec is run on tritonc's interpreter and its output compared with
the program's (python3 -m unittest discover -s python/tests -p test_capture.py)."""

import importlib.util
import json
import os
import shutil
import subprocess
import sys
import tempfile
import types
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, "python"))

try:
    import numpy as np
    import torch
    import triton  # noqa: F401
except ImportError:  # pragma: no cover - the machine lacks them
    torch = None

from tritonc_rt import capture  # noqa: E402


def load_example(name):
    spec = importlib.util.spec_from_file_location(name, os.path.join(ROOT, "examples", f"{name}.py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def stand_in_launch(fn, *args, grid, warmup, **kwargs):
    """Triton's launch, for the kernels of these tests: computes on the CPU."""
    names = [p.name for p in fn.params]
    bound = dict(zip(names, args))
    bound.update({k: v for k, v in kwargs.items() if k in names})
    if fn.fn.__name__ == "add_kernel" and isinstance(bound["x_ptr"], torch.Tensor):
        n = bound["n_elements"]
        bound["out_ptr"][:n] = bound["x_ptr"][:n] + bound["y_ptr"][:n]
    stand_in_launch.calls += 1
    return types.SimpleNamespace(metadata=types.SimpleNamespace(
        num_warps=kwargs.get("num_warps", 4), num_stages=kwargs.get("num_stages", 3)))


@unittest.skipIf(torch is None, "needs torch, numpy and triton")
class Capture(unittest.TestCase):
    def setUp(self):
        self.out = tempfile.mkdtemp(prefix="tritonc-capture-")
        self.vector_add = load_example("vector_add")
        stand_in_launch.calls = 0

    def tearDown(self):
        capture.uninstall()
        shutil.rmtree(self.out)

    def start(self, save_tensors=False):
        rec = capture.install(self.out, save_tensors)
        from triton.runtime import jit
        capture._SAVED[jit.JITFunction] = stand_in_launch
        return rec

    def spec(self, name):
        with open(os.path.join(self.out, name)) as f:
            return f.read()

    def test_a_launch_becomes_a_spec_and_repeats_are_counted(self):
        self.start()
        x, y = torch.rand(98432), torch.rand(98432)
        self.vector_add.add(x, y)
        self.vector_add.add(torch.rand(98432), torch.rand(98432))
        self.assertEqual(stand_in_launch.calls, 2, "every launch still launches")
        text = self.spec("add_kernel-001.toml")
        kernel = os.path.relpath(os.path.join(ROOT, "examples", "vector_add.py"), self.out)
        for line in [f'kernel = "{kernel}"', 'name = "add_kernel"', "grid = [97]",
                     "num_warps = 4", "num_stages = 3", "[tensors.x_ptr]", "shape = [98432]",
                     'dtype = "float32"', 'init = "randn"', 'x_ptr = "x_ptr"',
                     'n_elements = "98432"', 'BLOCK_SIZE = "1024"']:
            self.assertIn(line + "\n", text)
        # Only the tensor the launch wrote is an output.
        self.assertIn('[tensors.out_ptr]\nshape = [98432]\ndtype = "float32"\ninit = "randn"\n'
                      'output = true\n', text)
        self.assertEqual(text.count("output = true"), 1, text)
        capture._RECORDER.write_index()  # as at exit or uninstall
        with open(os.path.join(self.out, "captured.json")) as f:
            index = json.load(f)
        self.assertEqual(index["specs"], [{"spec": "add_kernel-001.toml", "kernel": "add_kernel",
                                           "file": os.path.join(ROOT, "examples", "vector_add.py"),
                                           "launches": 2, "outputs": ["out_ptr"]}])
        # Another shape is another spec.
        self.vector_add.add(torch.rand(1000), torch.rand(1000))
        self.assertIn("grid = [1]", self.spec("add_kernel-002.toml"))

    def test_views_keep_their_strides_and_offset_and_options_are_read_back(self):
        self.start()
        base = torch.rand(4, 1030)
        x, y = base[1, 3:1027], torch.rand(1024)
        out = torch.empty(1024)
        self.vector_add.add_kernel[(1,)](x, y, out, 1024, BLOCK_SIZE=1024, num_warps=8)
        text = self.spec("add_kernel-001.toml")
        self.assertIn("[tensors.x_ptr]\nshape = [1024]\ndtype = \"float32\"\nstrides = [1]\n"
                      "offset = 1033\n", text)
        self.assertIn("num_warps = 8\n", text)

    def test_tensors_are_saved_before_the_launch_and_the_spec_reads_them(self):
        self.start(save_tensors=True)
        x, y = torch.rand(4096), torch.rand(4096)
        out = torch.full((4096,), 7.0)
        self.vector_add.add_kernel[(4,)](x, y, out, 4096, BLOCK_SIZE=1024)
        text = self.spec("add_kernel-001.toml")
        self.assertIn('init = "npy"\npath = "add_kernel-001.out_ptr.npy"\noutput = true\n', text)
        saved = np.load(os.path.join(self.out, "add_kernel-001.out_ptr.npy"))
        self.assertTrue((saved == 7.0).all(), "the output as it was before the launch")
        self.assertTrue(np.array_equal(np.load(os.path.join(self.out, "add_kernel-001.x_ptr.npy")),
                                       x.numpy()))
        tritonc = os.environ.get("TRITONC")
        if not tritonc:
            return
        # The captured spec on tritonc's interpreter computes what the program computed.
        saved_dir = os.path.join(self.out, "run")
        r = subprocess.run([tritonc, "run", os.path.join(self.out, "add_kernel-001.toml"),
                            "--interpret", "--save", saved_dir], capture_output=True, text=True)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertTrue(np.array_equal(np.load(os.path.join(saved_dir, "out_ptr.npy")),
                                       (x + y).numpy()))

    def test_a_launch_a_spec_cannot_describe_is_launched_and_listed(self):
        self.start()
        fn = self.vector_add.add_kernel
        fn[(1,)]((1, 2), torch.rand(16), torch.rand(16), 16, BLOCK_SIZE=16)
        self.assertEqual(stand_in_launch.calls, 1)
        with open(os.path.join(self.out, "captured.json")) as f:
            index = json.load(f)
        self.assertEqual(index["specs"], [])
        self.assertEqual(index["skipped"], [{"kernel": "add_kernel", "why": "`x_ptr` is a tuple"}])

    def test_a_workload_on_the_interpreter_is_captured_and_replays_bit_for_bit(self):
        """Capture over tritonc's CPU interpreter (tritonc_rt.interpret) as the launcher:
        the captured specs, run by `tritonc run --interpret`, give the program's output
        bit for bit."""
        from tritonc_rt import interpret
        tritonc = os.environ.get("TRITONC")
        try:
            interpret._library_path()
        except Exception:  # noqa: BLE001 - the library is not built here
            self.skipTest("libtritonc_pyinterp.so is not built")
        if not tritonc:
            self.skipTest("TRITONC is not set")
        interpret.install()
        try:
            capture.install(self.out, save_tensors=True)
            softmax = load_example("softmax")
            torch.manual_seed(0)
            x = torch.randn(64, 300, dtype=torch.float16)
            p = softmax.softmax(x)
            self.vector_add.add(torch.rand(5000), torch.rand(5000))
        finally:
            capture.uninstall()
            interpret.uninstall()
        saved = os.path.join(self.out, "run")
        r = subprocess.run([tritonc, "run", os.path.join(self.out, "softmax_kernel-001.toml"),
                            "--interpret", "--save", saved], capture_output=True, text=True)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertTrue(np.array_equal(np.load(os.path.join(saved, "out_ptr.npy")), p.numpy()))
        with open(os.path.join(self.out, "captured.json")) as f:
            self.assertEqual([e["spec"] for e in json.load(f)["specs"]],
                             ["softmax_kernel-001.toml", "add_kernel-001.toml"])

    def test_uninstall_restores_triton(self):
        from triton.runtime import jit
        run = jit.JITFunction.run
        capture.install(self.out)
        self.assertIsNot(jit.JITFunction.run, run)
        capture.uninstall()
        self.assertIs(jit.JITFunction.run, run)


if __name__ == "__main__":
    unittest.main()
