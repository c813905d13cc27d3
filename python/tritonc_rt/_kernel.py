"""A kernel: one or several compiled variants, launched as ``kernel[grid](*args)``."""

from __future__ import annotations

import os
import sys
from typing import Any, Callable, Dict, List, Optional, Sequence, Tuple, Union

from ._bundle import Bundle, BundleError, load_bundle
from ._check import LaunchError, Violation, check_args, specialization_score
from . import _fast, _tuned
from ._cuda import Loaded, driver

Grid = Union[int, Sequence[int], Callable[[Dict[str, Any]], Sequence[int]]]


class NoMatchingVariantError(LaunchError):
    """Several variants were compiled and none accepts the arguments."""

    def __init__(self, kernel: str, refusals: Sequence[LaunchError]):
        self.refusals = list(refusals)
        ValueError.__init__(self, f"no compiled variant of {kernel} accepts these arguments:\n"
                            + "\n".join(str(r) for r in self.refusals))
        self.variant = kernel
        self.violations = [v for r in self.refusals for v in r.violations]


def load(path: str) -> "Kernel":
    """The kernel in ``path``: a bundle directory (``KERNEL-HASH.tcb``) or a folder of
    bundle directories of one kernel (its variants)."""
    if os.path.isfile(os.path.join(path, "bundle.json")):
        return Kernel([load_bundle(path)])
    try:
        names = sorted(os.listdir(path))
    except OSError as e:
        raise BundleError(f"{path}: {e}") from None
    bundles = [load_bundle(os.path.join(path, n)) for n in names
               if os.path.isfile(os.path.join(path, n, "bundle.json"))]
    if not bundles:
        raise BundleError(f"{path}: no bundle (a directory holding bundle.json) here")
    kernel = Kernel(bundles)
    # Tuning tables of `tritonc tune` next to the variants: a launch that leaves the
    # tuned meta-parameters out takes them from the table (docs/tune.md, "Dispatch").
    kernel._tables = _tuned.tables_in(path, kernel.name)
    return kernel


class Kernel:
    """Compiled variants of one kernel."""

    def __init__(self, bundles: List[Bundle]):
        kernels = {b.kernel_name for b in bundles}
        if len(kernels) != 1:
            raise BundleError(f"bundles of several kernels given: {', '.join(sorted(kernels))}")
        names = {tuple(p.name for p in b.params) for b in bundles}
        if len(names) != 1:
            raise BundleError("the variants do not share one parameter list")
        self.name = kernels.pop()
        self.params = [p.name for p in bundles[0].params]
        # Most specialized first: the first that accepts the arguments is launched.
        self.variants = [Loaded(b) for b in
                         sorted(bundles, key=specialization_score, reverse=True)]
        # The fast path (_fast.py), built after the first launch has loaded the driver;
        # False: not built yet.
        self._fast: Any = False
        # Tuning tables (`tritonc tune`) found next to the variants.
        self._tables: List[_tuned.TuneTable] = []
        # What a tuned launch decides once, not per call: the variants' code digests,
        # the meta-parameter names the configs set, each device's name and table, and
        # per (device, key values) the config chosen, its variants and their fast path.
        self._digests: Optional[set] = None
        self._meta_names: Optional[List[str]] = None
        self._device_tables: Dict[int, Tuple[str, Optional[_tuned.TuneTable]]] = {}
        self._choices: Dict[Tuple[int, Tuple[Any, ...]], "_Choice"] = {}
        #: How the last launch's config was chosen from a tuning table, if it was.
        self.last_tuned: Optional[str] = None

    def __repr__(self) -> str:
        return f"<tritonc_rt.Kernel {self.name} ({len(self.variants)} variant(s))>"

    def __getitem__(self, grid: Grid) -> Callable[..., None]:
        def launcher(*args: Any, stream: Optional[int] = None, **kwargs: Any) -> None:
            fast = self._fast
            if fast and self._tables and self._tuned_missing(args, kwargs):
                # A tuned call: the fast path of the chosen config's variants, whose
                # folded meta-parameters default to that config's values.
                choice = self._tuned_choice(args, kwargs)
                fast = choice.fast if choice is not None else None
                if fast is not None:
                    self.last_tuned = choice.how
            if fast:
                try:
                    if fast(grid, stream, *args, **kwargs):
                        return
                except TypeError as e:
                    if e.__traceback__ is not None and e.__traceback__.tb_next is not None:
                        raise  # raised inside the launch, not by binding the call
                    # A call the fast path does not bind: the general path says why.
            self.launch(grid, *args, stream=stream, **kwargs)
        return launcher

    def bind(self, args: Sequence[Any], kwargs: Dict[str, Any]) -> List[Any]:
        """One value per source parameter, from positional and keyword arguments; a
        folded parameter (constexpr, ``==1``) left out takes its compiled value."""
        if len(args) > len(self.params):
            raise TypeError(f"{self.name} takes {len(self.params)} arguments, {len(args)} given")
        unknown = set(kwargs) - set(self.params)
        if unknown:
            raise TypeError(f"{self.name} has no parameter {', '.join(sorted(unknown))}")
        bound: List[Any] = []
        for i, name in enumerate(self.params):
            if i < len(args):
                if name in kwargs:
                    raise TypeError(f"{self.name} got two values for `{name}`")
                bound.append(args[i])
            elif name in kwargs:
                bound.append(kwargs[name])
            else:
                p = self.variants[0].bundle.params[i]
                if p.role == "constexpr":
                    bound.append(p.value)
                elif p.role == "equal_to_one":
                    bound.append(1)
                else:
                    raise TypeError(f"{self.name} is missing the argument `{name}`")
        return bound

    def select(self, bound: Sequence[Any], stream: Optional[int] = None,
               among: Optional[List[Loaded]] = None) -> Tuple[Loaded, List[Any]]:
        """The most specialized variant (of ``among``, default all) that accepts
        ``bound``, and its parameters (``stream``: the launch's, for tensors exported
        through DLPack)."""
        refusals = []
        for v in (self.variants if among is None else among):
            try:
                return v, check_args(v.bundle, bound, stream)
            except LaunchError as e:
                refusals.append(e)
        if len(refusals) == 1:
            raise refusals[0]
        raise NoMatchingVariantError(self.name, refusals)

    def launch(self, grid: Grid, *args: Any, stream: Optional[int] = None, **kwargs: Any) -> None:
        """Checks the arguments, then launches asynchronously on ``stream`` (a
        ``CUstream`` handle as an int; default: PyTorch's current stream when PyTorch is
        loaded, else the default stream)."""
        only = None
        if self._tables and self._tuned_missing(args, kwargs):
            only, kwargs = self._tuned_config(args, kwargs)
        bound = self.bind(args, kwargs)
        device = _device_of(bound)
        # The stream, known before the checks (a DLPack producer is told it); PyTorch's
        # is asked without the driver, so argument errors still come first.
        given = stream
        if stream is None:
            stream = _current_stream(device)
        variant, values = self.select(bound, stream, only)
        _check_devices(variant.bundle, bound, device)
        if callable(grid):
            grid = grid(dict(zip(self.params, bound)))
        dims = (grid,) if isinstance(grid, int) else tuple(grid)
        if not 1 <= len(dims) <= 3 or not all(isinstance(d, int) and d >= 0 for d in dims):
            raise ValueError(f"grid {grid!r} is not 1 to 3 non-negative ints")
        dims = dims + (1,) * (3 - len(dims))
        if dims[0] >= 2**31 or dims[1] > 65535 or dims[2] > 65535:
            raise ValueError(f"grid {dims} exceeds CUDA's limits (2^31-1, 65535, 65535)")
        if 0 in dims:
            return  # as Triton: no programs, nothing to launch
        d = driver()
        ctx, dev = d.context(device)
        function = variant.function(d, ctx, dev)
        if dev != device and _tensor_devices(bound):
            # The current context (PyTorch's current device, or one the caller made
            # current) is another GPU's: the kernel would run there and read the tensors
            # through pointers of another device.
            raise LaunchError(variant.bundle.describe(), [Violation(
                name, f"is on cuda:{device}, but the current CUDA context is on device {dev}; "
                f"make cuda:{device} current (`with torch.cuda.device({device}):`)")
                for name, _ in _tensor_devices(bound, self.params)[:1]])
        if given is None and dev != device:
            stream = _current_stream(dev)  # the current context's device, not the tensor's
        b = variant.bundle
        d.launch(function, dims, 32 * b.num_warps, b.dynamic_shared_bytes, stream, values)
        if self._fast is False and os.environ.get("TRITONC_RT_FAST", "1") != "0":
            self._fast_state = d.fast_state()
            self._fast = _fast.build(self.name, self.params, self.variants, self._fast_state)


    def _tuned_missing(self, args: Sequence[Any], kwargs: Dict[str, Any]) -> bool:
        """Whether the tuning table decides this call's config: it leaves out a
        meta-parameter the configs set, or the configs set none (warps, stages)."""
        given = set(self.params[:len(args)]) | set(kwargs)
        if self._meta_names is None:
            self._meta_names = [n for t in self._tables for n in t.meta_names()]
        names = self._meta_names
        # Configs that differ in warps or stages only: the table always decides.
        return not names or any(n not in given for n in names)

    def _tuned_choice(self, args: Sequence[Any], kwargs: Dict[str, Any]) -> Optional["_Choice"]:
        """The config the table for this call's device picks for its key values, decided
        once per device and key values; None when the call does not name the key
        (the general path reports what is missing)."""
        named = dict(zip(self.params, args))
        named.update(kwargs)
        device = _device_of([named[p] for p in self.params if p in named])
        known = self._device_tables.get(device)
        if known is None:
            if self._digests is None:
                self._digests = {_tuned.code_digest(v.bundle) for v in self.variants}
            name = _device_name(device)
            known = (name, _tuned.matching_table(self._tables, name, self._digests))
            self._device_tables[device] = known
        table = known[1]
        if table is None:
            values: Tuple[Any, ...] = ()
        else:
            if any(k not in named for k in table.key):
                return None
            values = tuple(_tuned.key_value(named[k]) for k in table.key)
        choice = self._choices.get((device, values))
        if choice is None:
            if table is None:
                table, index = self._tables[0], 0
                how = "config 0 (default: no tuning table for this device)"
            else:
                index, rule = table.choose(dict(zip(table.key, values)))
                how = f"config {index} ({rule})"
            config = table.configs[index]
            # The config's variants (its warps and stages: constexpr values alone do not
            # tell configs apart); the most specialized that accepts the arguments launches.
            mine = [v for v in self.variants
                    if v.bundle.num_warps == config["num_warps"]
                    and int(v.bundle.meta["key"].get("num_stages", 3)) == config["num_stages"]]
            choice = _Choice(index, how, dict(config["values"]), mine or None)
            self._choices[(device, values)] = choice
        if choice.fast is False and self._fast:
            # Built once the general path has loaded the driver (self._fast is then set).
            choice.fast = (_fast.build(self.name, self.params, choice.variants,
                                       self._fast_state) if choice.variants else None)
        return choice

    def _tuned_config(self, args: Sequence[Any], kwargs: Dict[str, Any]):
        """The variants and the keyword arguments completed with the config the table
        for this device picks for the actual key values; the first config's values
        when no table fits (the dispatch rule's default)."""
        choice = self._tuned_choice(args, kwargs)
        if choice is None:
            return None, kwargs  # a key argument missing: bind() names it
        self.last_tuned = choice.how
        kwargs = dict(kwargs)
        for k, v in choice.values.items():
            kwargs.setdefault(k, v)
        return choice.variants, kwargs


class _Choice:
    """A tuning table's decision for one device and key values."""

    def __init__(self, index: int, how: str, values: Dict[str, Any],
                 variants: Optional[List[Loaded]]):
        self.index, self.how, self.values, self.variants = index, how, values, variants
        #: The fast launcher of ``variants``: False until built, None when it cannot be.
        self.fast: Any = False


def _device_name(device: int) -> str:
    """The CUDA device's name (``NVIDIA H200``), as tuning tables record it."""
    torch = sys.modules.get("torch")
    if torch is not None and torch.cuda.is_available():
        return str(torch.cuda.get_device_name(device))
    return driver().device_name(device)


def _tensor_devices(bound: Sequence[Any], params: Optional[Sequence[str]] = None) -> List[Tuple[str, int]]:
    """(parameter, CUDA device index) of each PyTorch CUDA tensor and DLPack export in
    CUDA memory among the arguments."""
    out = []
    for i, a in enumerate(bound):
        name = params[i] if params else str(i)
        if hasattr(a, "__dlpack_device__") and not hasattr(a, "data_ptr"):
            kind, index = a.__dlpack_device__()
            if int(kind) in (2, 13):
                out.append((name, int(index)))
            continue
        index = getattr(getattr(a, "device", None), "index", None)
        if hasattr(a, "data_ptr") and getattr(a, "is_cuda", False) is True \
                and isinstance(index, int):
            out.append((name, index))
    return out


def _check_devices(bundle: Any, bound: Sequence[Any], device: int) -> None:
    """Every CUDA tensor on ``device`` (the first one's): one launch runs on one GPU,
    and a pointer into another GPU's memory is an illegal address there (or, with peer
    access, a silent trip over the interconnect). Raises :class:`LaunchError` naming
    each tensor elsewhere, before the driver is touched."""
    names = [p.name for p in bundle.params]
    others = [(n, d) for n, d in _tensor_devices(bound, names) if d != device]
    if others:
        raise LaunchError(bundle.describe(), [
            Violation(n, f"is on cuda:{d}, but the launch runs on cuda:{device} (the device "
                         "of the first tensor): move every tensor to one device")
            for n, d in others])


def _device_of(bound: Sequence[Any]) -> int:
    """The CUDA device of the first PyTorch tensor (or DLPack export in CUDA memory)
    among the arguments (else 0)."""
    for a in bound:
        if hasattr(a, "__dlpack_device__") and not hasattr(a, "data_ptr"):
            kind, index = a.__dlpack_device__()
            if int(kind) in (2, 13):
                return int(index)
            continue
        device = getattr(a, "device", None)
        index = getattr(device, "index", None)
        if hasattr(a, "data_ptr") and isinstance(index, int):
            return index
    return 0


def _current_stream(device: int) -> int:
    """PyTorch's current stream on ``device`` (as Triton's launcher asks for it: the raw
    handle, without building a ``torch.cuda.Stream``), or the default stream."""
    torch = sys.modules.get("torch")
    if torch is not None and torch.cuda.is_initialized():
        raw = getattr(getattr(torch, "_C", None), "_cuda_getCurrentRawStream", None)
        if raw is not None:
            return int(raw(device))
        return int(torch.cuda.current_stream(device).cuda_stream)
    return 0
