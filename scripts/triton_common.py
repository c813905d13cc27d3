"""Shared helpers for the scripts that query upstream Triton for reference facts.

Everything here runs on a machine without a GPU: kernels are compiled for a
named target (CUDA sm_90, warp size 32), usually only up to TTIR.
"""

from __future__ import annotations

import importlib.util
import os
import re
import sys
import tempfile
import types
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parent.parent

# Keep Triton's on-disk cache out of the user's home and away from stale entries.
os.environ.setdefault("TRITON_CACHE_DIR", tempfile.mkdtemp(prefix="tritonc-ref-cache-"))

import triton  # noqa: E402
from triton.backends.compiler import GPUTarget  # noqa: E402
from triton.compiler import ASTSource, make_backend  # noqa: E402
from triton._C.libtriton import ir  # noqa: E402

TARGET = GPUTarget("cuda", 90, 32)


def install_torch_stub() -> None:
    """Let example modules `import torch` for their host code on a machine without torch.

    Only the @triton.jit kernels are compiled here; host wrappers are never called,
    so any attribute access on the stub (type annotations, defaults) may yield a
    placeholder.
    """
    try:
        import torch  # noqa: F401
    except ImportError:
        stub = types.ModuleType("torch")
        stub.__getattr__ = lambda name: object  # type: ignore[attr-defined]
        sys.modules["torch"] = stub


def load_module(path: Path, name: str | None = None):
    """Import a Python file as a module (it must stay importable for Triton's source lookup)."""
    name = name or f"_tritonc_ref_{path.stem}"
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


def compile_ttir(fn, signature: dict, constexprs: dict, attrs: dict, num_warps: int = 4, num_stages: int = 3) -> str:
    """Run Triton's front end and TTIR passes only; return the TTIR text (with locations)."""
    backend = make_backend(TARGET)
    src = ASTSource(fn, signature, constexprs, attrs)
    options = backend.parse_options({"num_warps": num_warps, "num_stages": num_stages})
    context = ir.context()
    ir.load_dialects(context)
    backend.load_dialects(context)
    codegen_fns = backend.get_codegen_implementation(options)
    module_map = backend.get_module_map()
    module = src.make_ir(TARGET, options, codegen_fns, module_map, context)
    stages: dict = {}
    backend.add_stages(stages, options, src.language)
    module = stages["ttir"](module, {})
    return str(module)


def compile_full(fn, signature: dict, constexprs: dict, attrs: dict, num_warps: int = 4, num_stages: int = 3):
    """Compile all the way to a cubin (uses the ptxas bundled with Triton)."""
    src = ASTSource(fn, signature, constexprs, attrs)
    return triton.compile(src, target=TARGET, options={"num_warps": num_warps, "num_stages": num_stages})


def strip_locations(text: str) -> str:
    """Remove `#locN = ...` definitions and every ` loc(...)` suffix from MLIR text.

    Locations carry absolute file paths of this machine; the op structure and the
    SSA value names (which Triton derives from Python variable names) remain.
    """
    out_lines = []
    for line in text.splitlines():
        if line.startswith("#loc"):
            continue
        out_lines.append(_strip_loc_calls(line))
    return "\n".join(out_lines).rstrip() + "\n"


def _strip_loc_calls(line: str) -> str:
    result = []
    i = 0
    while True:
        j = line.find("loc(", i)
        # Only a `loc(` that starts a token is a location (not e.g. `#loc(`, `alloc(`).
        while j > 0 and (line[j - 1].isalnum() or line[j - 1] in "_#."):
            j = line.find("loc(", j + 1)
        if j < 0:
            result.append(line[i:])
            break
        end = _matching_paren(line, j + 3)
        start = j
        if start > 0 and line[start - 1] == " ":
            start -= 1
        result.append(line[i:start])
        i = end + 1
    return "".join(result).rstrip()


def _matching_paren(s: str, open_idx: int) -> int:
    depth = 0
    in_str = False
    k = open_idx
    while k < len(s):
        c = s[k]
        if in_str:
            if c == "\\":
                k += 1
            elif c == '"':
                in_str = False
        elif c == '"':
            in_str = True
        elif c == "(":
            depth += 1
        elif c == ")":
            depth -= 1
            if depth == 0:
                return k
        k += 1
    raise ValueError(f"unbalanced parentheses in: {s}")


def split_top_level(s: str, sep: str = ",") -> list[str]:
    """Split on `sep` outside of <>, (), [], {} and string literals."""
    parts, depth, cur, in_str = [], 0, [], False
    for idx, c in enumerate(s):
        if in_str:
            cur.append(c)
            if c == '"' and s[idx - 1] != "\\":
                in_str = False
            continue
        if c == '"':
            in_str = True
        elif c in "<([{":
            depth += 1
        elif c in ">)]}":
            # `->` is an arrow, not a closing bracket.
            if not (c == ">" and idx > 0 and s[idx - 1] == "-"):
                depth -= 1
        if c == sep and depth == 0:
            parts.append("".join(cur).strip())
            cur = []
        else:
            cur.append(c)
    tail = "".join(cur).strip()
    if tail:
        parts.append(tail)
    return parts


def describe_exception(exc: BaseException) -> dict:
    """Exception type and the first line of its message, for the error that caused it.

    Triton wraps an error raised while generating code in a CompilationError whose
    text starts with a source excerpt; the original exception is its `__context__`
    (nested once per @jit call level). Errors Triton raises itself as
    CompilationError subclasses (e.g. UnsupportedLanguageConstruct) carry the
    message in `error_message`.
    """
    from triton.compiler.errors import CompilationError

    root = exc
    while isinstance(root, CompilationError) and root.__context__ is not None:
        root = root.__context__
    if isinstance(root, CompilationError):
        message = root.error_message or ""
    else:
        message = str(root)
    first = next((ln.strip() for ln in message.splitlines() if ln.strip()), "")
    return {"type": type(root).__name__, "message": first}


def compile_front_end(fn, signature: dict, constexprs: dict | None = None, attrs: dict | None = None,
                      num_warps: int = 4):
    """Run only Triton's code generator (AST -> TTIR before any pass); return the module.

    Type inference, promotion and every front-end error happen here; the TTIR
    passes only simplify.
    """
    backend = make_backend(TARGET)
    src = ASTSource(fn, signature, constexprs or {}, attrs or {})
    options = backend.parse_options({"num_warps": num_warps})
    context = ir.context()
    ir.load_dialects(context)
    backend.load_dialects(context)
    return src.make_ir(TARGET, options, backend.get_codegen_implementation(options),
                       backend.get_module_map(), context)


_SOURCE_COUNTER = [0]


def jit_from_source(source: str, name: str, extra_globals: dict | None = None):
    """Define `name` from generated Python source and return it (a JITFunction).

    The source is registered with linecache under a synthetic file name so that
    Triton's `inspect.getsource` finds it without a file on disk.
    """
    import linecache

    _SOURCE_COUNTER[0] += 1
    filename = f"<tritonc-generated-{_SOURCE_COUNTER[0]}>"
    linecache.cache[filename] = (len(source), None, source.splitlines(True), filename)
    namespace = {"__name__": f"tritonc_generated_{_SOURCE_COUNTER[0]}", **(extra_globals or {})}
    exec(compile(source, filename, "exec"), namespace)
    return namespace[name]


class capture_stderr:
    """Capture file descriptor 2 (MLIR prints its diagnostics there, not to sys.stderr)."""

    def __enter__(self):
        sys.stderr.flush()
        self._file = tempfile.TemporaryFile(mode="w+b")
        self._saved = os.dup(2)
        os.dup2(self._file.fileno(), 2)
        return self

    def __exit__(self, *exc_info):
        sys.stderr.flush()
        os.dup2(self._saved, 2)
        os.close(self._saved)
        self._file.seek(0)
        self._text = self._file.read().decode("utf-8", "replace")
        self._file.close()
        return False

    def text(self) -> str:
        return self._text


def mlir_error(stderr_text: str) -> str | None:
    """The first MLIR `error:` diagnostic in captured stderr text, without its location."""
    for line in stderr_text.splitlines():
        m = re.search(r"error: (.*)$", line)
        if m:
            return m.group(1).strip()
    return None
