#!/usr/bin/env python3
"""Compile the Triton kernels of pinned releases of real projects with tritonc.

Fetches each project's wheel from the package index (`pip download --no-deps`, nothing
is installed), unpacks it into a temporary directory, finds every `@triton.jit` function
(with Python's own `ast`), keeps the entry points (a `@jit` function that another `@jit`
function of the same file names is a helper, compiled as part of its callers), derives a
signature for each, and runs

    tritonc compile FILE --kernel NAME --signature SIG --target sm_90 -o OUT --no-cache

which compiles through MLIR to PTX and assembles it with ptxas. A kernel counts as compiled
when that exits 0. Kernels defined inside functions or classes are counted apart: tritonc
reports each with E0205 instead of compiling it.

The signature is derived from names alone (no launcher is run), so it is a plausible
specialization, not the one each project's launcher uses:
  * a constexpr parameter takes its default, else 64 for sizes (`BLOCK_*`, `BT`, ...),
    `False` for flags (`HAS_*`, `IS_*`, `USE_*`, ...), else 64;
  * a constexpr that a decorator (`autotune` config, `heuristics`) names is left to it;
  * a runtime parameter is `*fp32:16` when it looks like a tensor (`*i64:16` when its
    name says it holds labels, indices or offsets), `fp32` for `eps`, `scale`, ..., and
    `i32` for sizes and strides.
A kernel whose derived signature is wrong for it fails here although it is valid; the
report lists first errors so such cases can be told apart.

With `--triton`, upstream Triton (the installed wheel) gives its own verdict on each
sampled kernel first, in child interpreters that each serve one release's kernels one
after another (importing torch and Triton is most of a verdict's cost; a kernel that
crashes its child or runs past the time limit is reported as such and the next one gets
a fresh child). `--triton-cache FILE` keeps the verdicts (JSON Lines, keyed by release,
file, kernel and guessed signature), so a later run with another tritonc asks Triton
only about kernels it has not seen. The kernel's module is imported from the unpacked release, statement by
statement (a top-level statement that fails here, such as an import of a package this
environment lacks, is skipped, and a function whose decorator fails here is defined
without that decorator; the `__init__.py` files of its parent packages are not run;
Triton's NVIDIA driver counts as active), its `JITFunction` is compiled
with `triton.compile(ASTSource(...), target=GPUTarget("cuda", 90, 32))` for the same
guessed signature (every parameter given; a parameter an `@triton.autotune` config sets
takes the first config's value, with its `num_warps` and `num_stages`; one a
`@triton.heuristics` entry sets takes the entry's value for the guessed arguments), and
tritonc then compiles exactly that specialization. Each kernel falls in one of:
  * both compile;
  * Triton compiles and tritonc fails: a tritonc gap (listed with its first error);
  * both fail: a bad guess (or a kernel Triton 3.6 itself rejects);
  * tritonc compiles and Triton fails;
  * Triton could not be asked (the module does not import here).

Usage: python3 scripts/real_world_coverage.py [--tritonc PATH] [--jobs N] [--json OUT]
       [--only PROJECT[,PROJECT...]] [--limit N] [--cache DIR] [--triton]
       [--triton-cache FILE] [--keep]
Prints a Markdown table (per project: entry kernels, compiled, share; with `--triton`,
the verdicts, the kernels Triton compiles and tritonc does not with their first errors)
and the most common first errors (with `--triton`, of those gaps only).
"""

from __future__ import annotations

import argparse
import ast
import collections
import concurrent.futures
import json
import os
import re
import shutil
import subprocess
import sys
import tarfile
import queue
import tempfile
import threading
import zipfile
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parent.parent
TIMEOUT_S = 120

# Pinned releases (the newest on the index when this list was last updated).
PROJECTS = {
    "liger-kernel": "0.8.5",
    "flag-gems": "5.0.2",
    "fla-core": "0.6.0",
    "unsloth": "2026.10.9",
    "torchao": "0.18.0",
    "triton-kernels": "0.1.0",
    "vllm": "0.33.0",
    "sglang": "0.5.23",
    "mamba-ssm": "2.3.2.post1",
    "flashinfer-python": "0.7.2.post1",
    "xformers": "0.0.35",
    "bitsandbytes": "0.50.2",
    "gemlite": "0.6.0.post2",
}

# Projects that publish only a source distribution: it is downloaded, not built (pip still
# prepares its metadata, for which mamba-ssm's setup.py must be told to skip its CUDA
# build, and needs `wheel` and torch in the running Python: `--no-build-isolation`).
SDIST_ONLY = {"mamba-ssm": {"MAMBA_SKIP_CUDA_BUILD": "TRUE"}, "gemlite": {}}

FLAG_PREFIXES = ("HAS_", "IS_", "USE_", "ENABLE_", "RETURN_", "SAVE_", "STORE_", "EVEN_", "NEED_", "DO_",
                 "APPLY_", "WITH_", "OUTPUT_", "INPUT_", "SPLIT_", "CAUSAL", "TRANS")
FLOAT_NAMES = re.compile(r"^(eps|epsilon|scale|sm_scale|alpha|beta|gamma|softcap|temperature|p|dropout_p|"
                         r"lr|momentum|weight_decay|threshold|label_smoothing|ignore_value|min_val|max_val|"
                         r"negative_slope|qk_scale|rms_eps|ln_eps|logit_scale|softmax_scale)$", re.I)
INT_NAMES = re.compile(r"(stride|^n_|^num_|^n$|_size$|^size|numel|^len|^seq|^batch|^offset|^start|^end|"
                       r"^dim|^idx|^index|^count|^total|^max_|^min_|^seed|^step|"
                       r"^ignore_index|^chunk|^block|^rows?$|^cols?$|^n_rows|^n_cols|_len$|_dim$)", re.I)
# Size letters (`M`, `N`, `K`, `T`, `H`, ...) and two capitals (`BT`) are sizes; `X`, `Y`, `W`
# and lower-case single letters
# (`q`, `k`, `v`, `o`, `x`) are tensors.
SHORT_INT = re.compile(r"^([MNKTHDLSVBCER]|[A-Z]{2})$")
INT_POINTER = re.compile(r"(label|target|^y_ptr$|^Y$|idx|index|indices|ids|offsets|lens|lengths|cu_seqlens|"
                         r"seq_len|count|mask_ptr|expert|topk|token|perm|^row_map|^map)", re.I)
SIZE_CONSTEXPR = re.compile(r"(BLOCK|TILE|CHUNK|SIZE|^B[A-Z]?$|^B[TKVCSDNM]\w*$|GROUP|WARP|^[A-Z]$|^D|_D$|"
                            r"^N|^M|^K|DIM|ROWS|COLS|WIDTH|HEIGHT|^R\w*$)")


def is_jit_decorator(d: ast.expr) -> bool:
    """`@triton.jit`, `@tl.jit`, `@triton.jit(...)` or a bare `@jit` (other `jit`s, such as
    `cute.jit`, are not Triton's)."""
    f = d.func if isinstance(d, ast.Call) else d
    if isinstance(f, ast.Attribute):
        return f.attr == "jit" and isinstance(f.value, ast.Name) and f.value.id in ("triton", "tl")
    return isinstance(f, ast.Name) and f.id == "jit"


def returns_value(fn: ast.FunctionDef) -> bool:
    """A `@jit` function that returns a value is a helper, never a launched kernel."""
    return any(isinstance(n, ast.Return) and n.value is not None for n in ast.walk(fn))


def is_constexpr(a: ast.expr | None) -> bool:
    if a is None:
        return False
    if isinstance(a, ast.Attribute):
        return a.attr == "constexpr"
    if isinstance(a, ast.Name):
        return a.id == "constexpr"
    if isinstance(a, ast.Constant) and isinstance(a.value, str):
        return a.value.endswith("constexpr")
    return False


ANNOTATION_TYPES = {"int32": "i32", "int64": "i64", "uint32": "u32", "uint64": "u64", "float32": "fp32",
                    "float64": "fp64", "float16": "fp16", "bfloat16": "bf16", "int1": "i1", "int16": "i16",
                    "int8": "i8", "uint8": "u8", "uint16": "u16"}


def annotation_item(a: ast.expr | None) -> str | None:
    """The signature item a runtime parameter's dtype annotation fixes (`tl.int64` ->
    `i64`), if it has one."""
    name = a.attr if isinstance(a, ast.Attribute) else a.value if isinstance(a, ast.Constant) else None
    if not isinstance(name, str):
        return None
    return ANNOTATION_TYPES.get(name.removeprefix("tl."))


def literal(e: ast.expr):
    try:
        return ast.literal_eval(e)
    except Exception:  # noqa: BLE001 - any non-literal default
        return None


def signature_item(value) -> str | None:
    if isinstance(value, bool):
        return "True" if value else "False"
    if isinstance(value, (int, float)):
        return repr(value)
    if isinstance(value, str):
        return repr(value)
    if value is None:
        return "None"
    return None


def derive_signature(fn: ast.FunctionDef, decorator_text: str, every_param: bool = False) -> str:
    return ", ".join(item for _, item in derive_items(fn, decorator_text, every_param))


def derive_items(fn: ast.FunctionDef, decorator_text: str, every_param: bool = False) -> list[tuple[str, str]]:
    """(parameter, signature item) for each parameter the signature lists."""
    args = fn.args
    params = args.posonlyargs + args.args + args.kwonlyargs
    defaults = [None] * (len(args.posonlyargs + args.args) - len(args.defaults)) + list(args.defaults)
    defaults += list(args.kw_defaults)
    items = []
    set_by_decorator = []
    for p, default in zip(params, defaults):
        name = p.arg
        mentioned = not every_param and re.search(rf"""['"]{re.escape(name)}['"]""", decorator_text) is not None
        if is_constexpr(p.annotation):
            if mentioned:
                set_by_decorator.append(name)
                continue
            item = signature_item(literal(default)) if default is not None else None
            if item is None:
                if name.upper().startswith(FLAG_PREFIXES) or name.lower().startswith(("has_", "is_", "use_")):
                    item = "False"
                else:
                    item = "64"
            items.append((name, item))
        else:
            if mentioned:
                set_by_decorator.append(name)
                continue
            annotated = annotation_item(p.annotation)
            if annotated is not None:
                # `stride: tl.int64`: Triton's launcher takes the annotation's type.
                items.append((name, annotated))
            elif default is not None and isinstance(default, ast.Constant) and default.value is None:
                items.append((name, "None"))
            elif FLOAT_NAMES.match(name):
                items.append((name, "fp32"))
            elif (INT_NAMES.search(name) or SHORT_INT.match(name)) and "ptr" not in name.lower():
                items.append((name, "i32"))
            elif INT_POINTER.search(name):
                items.append((name, "*i64:16"))
            else:
                items.append((name, "*fp32:16"))
    return items


def jit_functions(tree: ast.Module):
    """(def, nested) for every @jit function; nested = inside a function or class."""
    out = []

    def visit(body, nested):
        for node in body:
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                if any(is_jit_decorator(d) for d in node.decorator_list):
                    out.append((node, nested))
                visit(node.body, True)
            elif isinstance(node, ast.ClassDef):
                visit(node.body, True)
            elif isinstance(node, (ast.If, ast.Try, ast.With, ast.For, ast.While)):
                for field in ("body", "orelse", "finalbody"):
                    visit(getattr(node, field, []) or [], nested)
                for h in getattr(node, "handlers", []) or []:
                    visit(h.body, nested)

    visit(tree.body, False)
    return out


def names_read(fn: ast.FunctionDef) -> set[str]:
    return {n.id for n in ast.walk(fn) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)}


def fetch(project: str, version: str, into: Path, cache: Path | None = None) -> Path | None:
    dl = cache or into / "dl"
    dl.mkdir(parents=True, exist_ok=True)
    stem = project.replace("-", "_")
    sdist = project in SDIST_ONLY
    pattern = f"{stem}-{version}.tar.gz" if sdist else f"{stem}-{version}-*.whl"
    found = list(dl.glob(pattern))
    if not found:
        kind = ["--no-binary", ":all:", "--no-build-isolation"] if sdist else ["--only-binary", ":all:"]
        env = dict(os.environ, **SDIST_ONLY.get(project, {}))
        r = subprocess.run([sys.executable, "-m", "pip", "download", "--no-deps", *kind, "-q", "-d", str(dl),
                            f"{project}=={version}"], capture_output=True, text=True, env=env)
        found = list(dl.glob(pattern))
        if r.returncode != 0 or not found:
            print(f"{project}=={version}: download failed: {r.stderr.strip().splitlines()[-1:]}", file=sys.stderr)
            return None
    root = into / f"{project}-{version}"
    if sdist:
        with tarfile.open(found[0]) as t:
            t.extractall(root, filter="data")
        # An sdist holds one `NAME-VERSION/` directory: the sources' root is inside it.
        inner = list(root.iterdir())
        if len(inner) == 1 and inner[0].is_dir():
            root = inner[0]
    else:
        with zipfile.ZipFile(found[0]) as z:
            # Python sources and the metadata only: some wheels carry hundreds of MB of
            # native libraries.
            z.extractall(root, [n for n in z.namelist() if n.endswith(".py") or ".dist-info/" in n])
    return root


def compile_one(tritonc: str, path: Path, name: str, sigs: tuple[str, str], out: Path) -> dict:
    """Compiles with the signature that leaves decorator-set parameters to the decorators;
    when tritonc needs every parameter listed (E0408: configs it cannot read ahead of
    time) or the parameters the decorators set were guessed wrong (E0401), with every
    parameter."""
    r = compile_sig(tritonc, path, name, sigs[0], out)
    if r.get("code") in ("E0401", "E0408") and sigs[1] != sigs[0]:
        r = compile_sig(tritonc, path, name, sigs[1], out)
        r["signature"] = sigs[1]
    return r


def compile_sig(tritonc: str, path: Path, name: str, sig: str, out: Path, extra: tuple = ()) -> dict:
    cmd = [tritonc, "--format", "json", "-q", "compile", str(path), "--kernel", name, "--signature", sig,
           "--target", "sm_90", "-o", str(out), "--no-cache", *extra]
    try:
        r = subprocess.run(cmd, capture_output=True, text=True, timeout=TIMEOUT_S)
    except subprocess.TimeoutExpired:
        return {"rc": "timeout", "code": "timeout", "message": f"over {TIMEOUT_S} s"}
    first = {"rc": r.returncode}
    if r.returncode != 0:
        try:
            diags = json.loads(r.stderr or r.stdout or "[]")  # diagnostics go to stderr
            if isinstance(diags, dict):
                diags = diags.get("diagnostics", [])
            errors = [d for d in diags if d.get("severity") == "error"] or diags
            if errors:
                first["code"] = errors[0].get("code")
                first["message"] = errors[0].get("message", "")[:160]
        except json.JSONDecodeError:
            first["code"] = "?"
            first["message"] = (r.stderr or r.stdout).strip().splitlines()[-1:][0][:160] if (r.stderr or r.stdout).strip() else ""
    return first


# ---- Triton's own verdict (`--triton`), computed in child processes -------------------

TRITON_TIMEOUT_S = 300
VERDICT_TAG = "@@verdict "


class TritonWorker:
    """A child interpreter (`--triton-worker`) that answers one verdict request per line.

    Importing torch and Triton takes most of a verdict's time, so one child serves many
    kernels of one release; a kernel that crashes it or runs past `TRITON_TIMEOUT_S` is
    reported as such, and the next request starts a fresh child."""

    def __init__(self, work: Path):
        self.work = work
        self.proc = None
        self.root = None

    def start(self, root: str) -> None:
        env = dict(os.environ, TRITON_CACHE_DIR=str(self.work / "triton-cache"), PYTHONDONTWRITEBYTECODE="1")
        self.err = tempfile.TemporaryFile(mode="w+", dir=self.work)
        self.proc = subprocess.Popen([sys.executable, __file__, "--triton-worker"], stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, stderr=self.err, text=True, env=env,
                                     cwd=str(self.work))
        self.root = root
        self.lines: queue.Queue = queue.Queue()

        def pump(out, lines):
            for line in out:
                if line.startswith(VERDICT_TAG):
                    lines.put(line[len(VERDICT_TAG):])
            lines.put(None)

        threading.Thread(target=pump, args=(self.proc.stdout, self.lines), daemon=True).start()

    def stop(self) -> None:
        if self.proc is not None:
            self.proc.kill()
            self.proc.wait()
            self.proc = None

    def ask(self, request: dict) -> dict:
        # One release per child: two releases' modules could share names.
        if self.proc is None or self.proc.poll() is not None or self.root != request["root"]:
            self.stop()
            self.start(request["root"])
        try:
            self.proc.stdin.write(json.dumps(request) + "\n")
            self.proc.stdin.flush()
        except OSError:
            pass
        try:
            line = self.lines.get(timeout=TRITON_TIMEOUT_S)
        except queue.Empty:
            self.stop()
            return {"triton": "timeout", "triton_error": f"over {TRITON_TIMEOUT_S} s"}
        if line is None:
            code = self.proc.wait()
            self.proc = None
            self.err.seek(0)
            tail = self.err.read().strip().splitlines()[-1:]
            return {"triton": "crashed", "triton_error": (tail[0] if tail else f"exit {code}")[:160]}
        return json.loads(line)


_workers = threading.local()
_all_workers: list = []
_cache_lock = threading.Lock()


def triton_verdict(root: Path, rel: str, kernel: str, items: list[tuple[str, str]], work: Path) -> dict:
    """Triton's verdict from this thread's worker process."""
    worker = getattr(_workers, "worker", None)
    if worker is None:
        worker = _workers.worker = TritonWorker(work)
        _all_workers.append(worker)
    return worker.ask({"root": str(root), "file": rel, "kernel": kernel, "items": items})


def _lenient_project_imports(root: str) -> None:
    """Imports the release's own modules statement by statement, skipping each top-level
    statement that fails (an import of a package this environment lacks, a platform
    probe, a host decorator of another library), so that a kernel module's `@triton.jit`
    functions, its Triton imports and its constants are defined as they are where the
    project runs; modules outside the release import normally."""
    import importlib.abc
    import importlib.util

    class Loader(importlib.abc.Loader):
        def __init__(self, path: Path):
            self.path = path

        def create_module(self, spec):
            return None

        def exec_module(self, module):
            tree = ast.parse(self.path.read_text(errors="replace"), str(self.path))
            for stmt in tree.body:
                if not self.run(stmt, module) and isinstance(stmt, (ast.FunctionDef, ast.ClassDef)) \
                        and stmt.decorator_list:
                    # Again with each decorator applied by hand, innermost first, leaving
                    # out those that fail here (another library's registry or wrapper).
                    decorators, stmt.decorator_list = stmt.decorator_list, []
                    if not self.run(stmt, module):
                        continue
                    obj = module.__dict__[stmt.name]
                    for d in reversed(decorators):
                        try:
                            obj = eval(compile(ast.Expression(d), str(self.path), "eval"),  # noqa: S307
                                       module.__dict__)(obj)
                        except Exception:  # noqa: BLE001
                            pass
                    module.__dict__[stmt.name] = obj

        def run(self, stmt, module) -> bool:
            code = compile(ast.Module([stmt], []), str(self.path), "exec")
            try:
                exec(code, module.__dict__)  # noqa: S102 - the release's own module code
                return True
            except Exception:  # noqa: BLE001 - skip what this environment cannot run
                return False

    class Finder(importlib.abc.MetaPathFinder):
        def find_spec(self, name, path=None, target=None):
            base = Path(root, *name.split("."))
            if (base / "__init__.py").is_file():
                return importlib.util.spec_from_file_location(name, base / "__init__.py", loader=Loader(
                    base / "__init__.py"), submodule_search_locations=[str(base)])
            if base.with_suffix(".py").is_file():
                return importlib.util.spec_from_file_location(name, base.with_suffix(".py"),
                                                              loader=Loader(base.with_suffix(".py")))
            return None

    sys.meta_path.insert(0, Finder())


_FINDERS: set = set()


def _import_kernel_module(root: str, rel: str):
    """Imports the kernel's file as the module it is in its release
    ([`_lenient_project_imports`])."""
    import importlib

    import types

    import triton.backends

    # As on a machine with an NVIDIA GPU: projects check for an active driver before they
    # import Triton for real (vllm's `HAS_TRITON`).
    nvidia = triton.backends.backends.get("nvidia")
    if nvidia is not None and nvidia.driver is not None:
        nvidia.driver.is_active = staticmethod(lambda: True)
    parts = rel[:-3].split("/")
    if parts[-1] == "__init__":
        parts.pop()
    # The parent packages are bare namespaces: their `__init__.py` files import the whole
    # project (a package a module imports by name runs its own).
    for i in range(1, len(parts)):
        name = ".".join(parts[:i])
        pkg = types.ModuleType(name)
        pkg.__path__ = [str(Path(root, *parts[:i]))]
        sys.modules[name] = pkg
    if root not in _FINDERS:  # one finder per release for the worker's life
        _FINDERS.add(root)
        _lenient_project_imports(root)
    sys.path.insert(0, root)  # the release's `.dist-info`: projects read their own version
    return importlib.import_module(".".join(parts))


def _item_value(item: str):
    """A signature item as Triton's `ASTSource` takes it: (type, constexpr value, divisibility)."""
    if item.startswith("*") or re.fullmatch(r"(i|u|fp|bf)\d+", item):
        ty, _, hint = item.partition(":")
        return ty, None, hint == "16"
    return "constexpr", ast.literal_eval(item), False


def _literal(v) -> str | None:
    return signature_item(v) if isinstance(v, (bool, int, float, str)) or v is None else None


def _fake_arg(ty: str):
    """A launch argument for a heuristic to look at: a small tensor for a pointer, 1024
    for an integer, 1.0 for a float."""
    import torch

    if ty.startswith("*"):
        dtypes = {"*fp32": torch.float32, "*fp16": torch.float16, "*bf16": torch.bfloat16, "*i64": torch.int64,
                  "*i32": torch.int32}
        return torch.empty(16, dtype=dtypes.get(ty, torch.float32))
    return 1.0 if ty.startswith(("fp", "bf")) else 1024


def triton_worker() -> int:
    """Answers verdict requests, one JSON object per line of stdin, each with one tagged
    line on stdout."""
    for line in sys.stdin:
        if line.strip():
            out = triton_verdict_here(json.loads(line))
            print(VERDICT_TAG + json.dumps(out), flush=True)
    return 0


def triton_verdict_here(req: dict) -> dict:
    out: dict = {}
    try:
        import triton
        from triton.backends.compiler import GPUTarget
        from triton.compiler import ASTSource

        module = _import_kernel_module(req["root"], req["file"])
        obj = getattr(module, req["kernel"])
        items = dict((k, v) for k, v in req["items"])
        options = {"num_warps": 4, "num_stages": 3}
        # Autotune and heuristics wrap the JITFunction; each sets its parameters.
        layers = []
        while not isinstance(obj, triton.runtime.JITFunction) and hasattr(obj, "fn"):
            layers.append(obj)
            obj = obj.fn
        fn = obj
        for layer in layers:
            configs = getattr(layer, "configs", None)
            if configs:
                cfg = configs[0]
                for k, v in cfg.all_kwargs().items() if hasattr(cfg, "all_kwargs") else cfg.kwargs.items():
                    if k in ("num_warps", "num_stages"):
                        options[k] = v
                    elif k in items and _literal(v) is not None:
                        items[k] = _literal(v)
                options["num_warps"] = cfg.num_warps or options["num_warps"]
                options["num_stages"] = cfg.num_stages or options["num_stages"]
        for layer in reversed(layers):
            for k, f in (getattr(layer, "values", None) or {}).items():
                args = {}
                for name, item in items.items():
                    ty, value, _ = _item_value(item)
                    args[name] = value if ty == "constexpr" else _fake_arg(ty)
                try:
                    v = f(args)
                except Exception:  # noqa: BLE001 - keep the guess
                    continue
                if k in items and _literal(v) is not None:
                    items[k] = _literal(v)
        names = fn.arg_names
        signature, constexprs, attrs = {}, {}, {}
        for i, name in enumerate(names):
            if name not in items:
                raise ValueError(f"no signature item for `{name}`")
            ty, value, div16 = _item_value(items[name])
            signature[name] = ty
            if ty == "constexpr":
                constexprs[name] = value
            if div16:
                attrs[(i,)] = [["tt.divisibility", 16]]
        out["signature"] = ", ".join(items[n] for n in names)
        out["num_warps"] = options["num_warps"]
        out["num_stages"] = options["num_stages"]
    except BaseException as exc:  # noqa: BLE001
        out.update(triton="unavailable", triton_error=f"{type(exc).__name__}: {str(exc).splitlines()[0] if str(exc) else ''}"[:160])
        return out
    try:
        # The cache key hashes Triton's whole shared library on first use (seconds of
        # disk reads per process); the cache is this run's own, so the version will do.
        import triton.runtime.cache

        triton.runtime.cache.triton_key = lambda: triton.__version__
        triton.compile(ASTSource(fn, signature, constexprs, attrs), target=GPUTarget("cuda", 90, 32), options=options)
        out["triton"] = "ok"
    except BaseException as exc:  # noqa: BLE001
        msg = str(exc).strip().splitlines()
        out.update(triton="fail", triton_error=f"{type(exc).__name__}: {msg[-1] if msg else ''}"[:160])
    return out


def compare_one(tritonc: str, root: Path, path: Path, name: str, items: list, out: Path, work: Path,
                cache: dict | None = None, cache_key: str | None = None, cache_file: str | None = None) -> dict:
    """Triton's verdict (from `cache` when it holds this kernel and guess), then tritonc's
    on the specialization Triton compiled."""
    t = cache.get(cache_key) if cache is not None else None
    if t is None:
        t = triton_verdict(root, str(path.relative_to(root)), name, items, work)
        if cache_file and t.get("triton") in ("ok", "fail", "unavailable"):
            with _cache_lock, open(cache_file, "a") as f:
                f.write(json.dumps({"key": cache_key, "verdict": t}) + "\n")
    if "signature" not in t:
        return {"rc": "not compared", **t}
    extra = ("--num-warps", str(t["num_warps"]), "--num-stages", str(t["num_stages"]))
    r = compile_sig(tritonc, path, name, t["signature"], out, extra)
    r.update(t)
    return r


def verdict(r: dict) -> str:
    t = r.get("triton")
    if t not in ("ok", "fail"):
        return "not asked"
    return {("ok", True): "both compile", ("ok", False): "tritonc gap", ("fail", False): "both fail",
            ("fail", True): "Triton fails"}[(t, r["rc"] == 0)]


def main() -> int:
    if sys.argv[1:] == ["--triton-worker"]:
        return triton_worker()
    ap = argparse.ArgumentParser()
    ap.add_argument("--tritonc", default=str(REPO_ROOT / "target" / "release" / "tritonc"))
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--json")
    ap.add_argument("--only", help="comma-separated projects to measure (default: all)")
    ap.add_argument("--limit", type=int, help="at most N entry kernels per project, evenly spaced")
    ap.add_argument("--cache", type=Path, help="keep downloaded wheels and sdists in this directory")
    ap.add_argument("--triton", action="store_true",
                    help="ask upstream Triton for its verdict on each kernel and compare on its specialization")
    ap.add_argument("--triton-cache", help="JSON Lines file of Triton's verdicts: read, and appended to (a "
                    "verdict depends only on the release, the kernel and the guessed signature)")
    ap.add_argument("--keep", action="store_true", help="keep the unpacked releases and outputs")
    opts = ap.parse_args()
    work = Path(tempfile.mkdtemp(prefix="tritonc-real-world-"))
    results = []
    cache: dict = {}
    if opts.triton_cache and Path(opts.triton_cache).exists():
        for line in Path(opts.triton_cache).read_text().splitlines():
            if line.strip():
                entry = json.loads(line)
                cache[entry["key"]] = entry["verdict"]
    for project, version in PROJECTS.items():
        if opts.only and project not in opts.only.split(","):
            continue
        root = fetch(project, version, work, opts.cache)
        if root is None:
            continue
        jobs = []
        nested = 0
        for path in sorted(root.rglob("*.py")):
            text = path.read_text(errors="replace")
            if "jit" not in text:
                continue
            try:
                tree = ast.parse(text)
            except SyntaxError:
                continue
            fns = jit_functions(tree)
            used = set()
            for fn, _ in fns:
                used |= names_read(fn) - {fn.name}
            lines = text.splitlines()
            for fn, is_nested in fns:
                if is_nested:
                    nested += 1
                    continue
                if fn.name in used or returns_value(fn):
                    continue
                deco = "\n".join("\n".join(lines[d.lineno - 1:d.end_lineno]) for d in fn.decorator_list)
                jobs.append((path, fn.name, (derive_signature(fn, deco), derive_signature(fn, deco, True)),
                             derive_items(fn, deco, True)))
        total = len(jobs)
        if opts.limit and len(jobs) > opts.limit:
            step = len(jobs) / opts.limit
            jobs = [jobs[int(i * step)] for i in range(opts.limit)]
        out = work / "out"
        with concurrent.futures.ThreadPoolExecutor(opts.jobs) as pool:
            if opts.triton:
                def key(p, n, items):
                    return json.dumps([project, version, str(p.relative_to(root)), n, items])
                futures = [pool.submit(compare_one, opts.tritonc, root, p, n, items, out / f"{project}-{i}", work,
                                       cache, key(p, n, items), opts.triton_cache)
                           for i, (p, n, s, items) in enumerate(jobs)]
            else:
                futures = [pool.submit(compile_one, opts.tritonc, p, n, s, out / f"{project}-{i}")
                           for i, (p, n, s, _) in enumerate(jobs)]
            for (p, n, s, _), f in zip(jobs, futures):
                r = f.result()
                r.setdefault("signature", s[0])
                r.update(project=project, version=version, file=str(p.relative_to(root)), kernel=n)
                if opts.triton:
                    r["verdict"] = verdict(r)
                results.append(r)
                if opts.json:
                    with open(opts.json + "l", "a") as log:  # one line per kernel, as they finish
                        log.write(json.dumps(r) + "\n")
        # This project's worker processes (one per pool thread) end with it.
        for w in _all_workers:
            w.stop()
        _all_workers.clear()
        ok = sum(1 for r in results if r["project"] == project and r["rc"] == 0)
        print(f"{project}=={version}: {ok}/{len(jobs)} entry kernels compile (of {total}); {nested} nested @jit "
              "functions", file=sys.stderr)
        results.append({"project": project, "version": version, "nested": nested, "entries": total,
                        "summary": True})
    if opts.json:
        Path(opts.json).write_text(json.dumps(results, indent=1) + "\n")
    print("| project | version | entry kernels | compiled (of those tried) | share | nested `@jit` (E0205) |")
    print("|---|---|---|---|---|---|")
    for project, version in PROJECTS.items():
        rows = [r for r in results if r["project"] == project and not r.get("summary")]
        summary = [r for r in results if r["project"] == project and r.get("summary")]
        nested = sum(r.get("nested", 0) for r in summary)
        entries = sum(r.get("entries", 0) for r in summary)
        if not rows and not nested:
            continue
        ok = sum(1 for r in rows if r["rc"] == 0)
        share = f"{100 * ok / len(rows):.0f}%" if rows else "-"
        print(f"| {project} | {version} | {entries} | {ok} of {len(rows)} | {share} | {nested} |")
    if opts.triton:
        kinds = ["both compile", "tritonc gap", "both fail", "Triton fails", "not asked"]
        print("\n| project | kernels | " + " | ".join(kinds) + " | tritonc compiles, of those Triton compiles |")
        print("|---|---|" + "---|" * (len(kinds) + 1))
        for project, version in PROJECTS.items():
            rows = [r for r in results if r["project"] == project and not r.get("summary")]
            if not rows:
                continue
            n = collections.Counter(r["verdict"] for r in rows)
            ok_triton = n["both compile"] + n["tritonc gap"]
            share = f"{n['both compile']} of {ok_triton} ({100 * n['both compile'] / ok_triton:.0f}%)" if ok_triton \
                else "-"
            print(f"| {project} | {len(rows)} | " + " | ".join(str(n[k]) for k in kinds) + f" | {share} |")
        gaps = [r for r in results if r.get("verdict") == "tritonc gap"]
        print("\nTriton compiles, tritonc fails (first error):\n\n| project | kernel | file | first error |\n"
              "|---|---|---|---|")
        for r in gaps:
            msg = r.get("message", "").replace("|", "\\|").replace("\n", " ")
            print(f"| {r['project']} | `{r['kernel']}` | {r['file']} | {r.get('code')}: {msg} |")
        unasked = collections.Counter(r.get("triton_error", "")[:80] for r in results if r.get("verdict") == "not asked")
        if unasked:
            print("\nNot asked (Triton could not load the kernel):\n\n| kernels | why |\n|---|---|")
            for e, k in unasked.most_common(10):
                print(f"| {k} | {e} |")

    def shape(message: str) -> str:
        return re.sub(r"\d+", "N", re.sub(r"`[^`]*`", "`…`", message))

    # With Triton's verdict, only the gaps: a kernel Triton rejects too was guessed wrong.
    errors = collections.Counter(f"{r.get('code')}: {shape(r.get('message', ''))}"
                                 for r in results if not r.get("summary") and r["rc"] != 0
                                 and (not opts.triton or r.get("verdict") == "tritonc gap"))
    print("\n| kernels | first error |\n|---|---|")
    for e, n in errors.most_common(25):
        print(f"| {n} | {e} |")
    for w in _all_workers:
        w.stop()
    if not opts.keep:
        shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
