#!/usr/bin/env python3
"""`tritonc tune` against Triton's own autotuning, on one GPU host, in one run.

For each case (a launch spec of an autotuned kernel, compiled by bench/tune/prepare.sh):
  1. `tritonc tune SPEC --bundle DIR --force --json`: wall time of the whole process
     (inputs generated, every config run once and checked against the first, timed with
     the L2 flushed, winner written), then the same command again without `--force`: a
     second process reusing the table (its wall time);
  2. Triton's autotuner on the same configs and shapes, in a fresh process with an empty
     TRITON_CACHE_DIR: wall time of the first call (every config compiled and benchmarked
     by Triton's do_bench), and its best config;
  3. the tuned kernels' speed: tritonc's winner launched through tritonc_rt (which reads
     the tuning table: the call leaves the tuned meta-parameters out) against Triton's
     best config compiled by Triton, on the same inputs; L2 flushed before every launch,
     CUDA events around it, the two sides alternated, median of ROUNDS; outputs compared.
The end-to-end tritonc time adds the compile time measured where the bundles were
compiled (prepare.sh's compile.json, `--no-cache`): that machine is not the GPU host.

    python3 bench/tune/compare.py --tritonc gpurun/tritonc --bundles bench/tune/out --out OUTDIR
"""

import argparse
import importlib.util
import json
import os
import pathlib
import statistics
import subprocess
import sys
import tempfile
import time
import types

ROOT = pathlib.Path(__file__).resolve().parent.parent.parent
HERE = ROOT / "bench" / "tune"
CASES = ["matmul", "attention", "norm"]
L2_FLUSH_BYTES = 256 << 20

try:
    import tomllib
except ModuleNotFoundError:  # Python < 3.11
    import tomli as tomllib  # type: ignore


def load_case(name):
    """The case's spec as a dict, with the kernel file's path and the kernel's name."""
    path = HERE / f"{name}.toml"
    with open(path, "rb") as f:
        spec = tomllib.load(f)
    kernel_file = (path.parent / spec["kernel"]).resolve()
    return path, spec, kernel_file, spec["name"]


def import_file(path):
    spec = importlib.util.spec_from_file_location(path.stem + "_bench", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def tuned_meta(autotuner):
    """The meta-parameter names the configs set."""
    names = []
    for c in autotuner.configs:
        for k in c.kwargs:
            if k not in names:
                names.append(k)
    return names


def build_inputs(spec, torch, triton):
    """Tensors (on the GPU, seeded) and the argument values of the spec; an argument whose
    expression names a meta-parameter the configs set is left out."""
    torch.manual_seed(int(spec.get("seed", 0)))
    dtypes = {"float16": torch.float16, "bfloat16": torch.bfloat16, "float32": torch.float32}
    tensors, views = {}, {}

    def value(e):
        return eval(e, {"triton": triton, **views}) if isinstance(e, str) else e  # noqa: S307

    for name, t in spec["tensors"].items():
        raw = value(t["shape"])
        shape = [int(value(d)) for d in raw]
        dt = dtypes[t["dtype"]]
        init = t.get("init", "zeros")
        if init == "randn":
            x = torch.randn(shape, device="cuda", dtype=torch.float32).to(dt)
        elif init == "rand":
            x = torch.rand(shape, device="cuda", dtype=torch.float32).to(dt)
        else:
            x = torch.zeros(shape, device="cuda", dtype=dt)
        tensors[name] = x
        views[name] = types.SimpleNamespace(shape=list(x.shape), stride=list(x.stride()))
    env = {"triton": triton, **views}
    args = {}
    for k, v in spec["args"].items():
        if isinstance(v, str) and v in tensors:
            args[k] = tensors[v]
        elif isinstance(v, str):
            args[k] = eval(v, env)  # noqa: S307 - the benchmark's own specs
        else:
            args[k] = v
    return tensors, args


def grid_fn(spec, triton, tensors, args):
    """The spec's grid as Triton's launcher calls it: a function of the meta-parameters
    (the spec's expressions also read tensors and scalar arguments by name)."""
    views = {n: types.SimpleNamespace(shape=list(t.shape), stride=list(t.stride()))
             for n, t in tensors.items()}
    scalars = {k: v for k, v in args.items() if not hasattr(v, "data_ptr")}

    def grid(meta):
        env = {"triton": triton, **views, **scalars, **{k: v for k, v in meta.items()
                                                       if not hasattr(v, "data_ptr")}}
        return tuple(int(eval(g, env)) if isinstance(g, str) else int(g) for g in spec["grid"])  # noqa: S307
    return grid


def triton_autotune(name, out_json):
    """Child process: Triton's autotuner, first call, empty cache."""
    import torch
    import triton
    _, spec, kernel_file, kernel_name = load_case(name)
    mod = import_file(kernel_file)
    tuner = getattr(mod, kernel_name)
    meta = tuned_meta(tuner)
    tensors, args = build_inputs(spec, torch, triton)
    for m in meta:
        args.pop(m, None)
    grid = grid_fn(spec, triton, tensors, args)
    torch.cuda.synchronize()
    t0 = time.perf_counter()
    tuner[grid](**args)
    torch.cuda.synchronize()
    wall = time.perf_counter() - t0
    best = tuner.best_config
    timings = getattr(tuner, "configs_timings", None) or {}
    result = {
        "wall_s": wall,
        "best": {"kwargs": dict(best.kwargs), "num_warps": best.num_warps, "num_stages": best.num_stages},
        "bench_s": getattr(tuner, "bench_time", None),
        "config_ms": [{"kwargs": dict(c.kwargs), "num_warps": c.num_warps, "num_stages": c.num_stages,
                       "ms": (t[0] if isinstance(t, (list, tuple)) else t)} for c, t in timings.items()],
        "triton": triton.__version__,
    }
    with open(out_json, "w") as f:
        json.dump(result, f, indent=1)


def speed(name, bundles, tritonc_json, triton_json, rounds, out_json):
    """Child process: the two tuned kernels on the same inputs."""
    import torch
    import triton
    sys.path.insert(0, str(ROOT / "python"))
    import tritonc_rt
    _, spec, kernel_file, kernel_name = load_case(name)
    mod = import_file(kernel_file)
    tuner = getattr(mod, kernel_name)
    meta = tuned_meta(tuner)
    with open(tritonc_json) as f:
        tc = json.load(f)["results"][0]
    with open(triton_json) as f:
        tr = json.load(f)
    tensors, args = build_inputs(spec, torch, triton)
    for m in meta:
        args.pop(m, None)
    grid = grid_fn(spec, triton, tensors, args)
    outputs = [n for n, t in spec["tensors"].items() if t.get("output")]
    # tritonc: the variants and the tuning table; the call leaves the meta-parameters out.
    kernel = tritonc_rt.load(str(bundles / name))
    tc_grid = grid(tc["winner_values"])
    # Triton: its best config, compiled by Triton (the autotuner's own function).
    best = tr["best"]
    tr_grid = grid(best["kwargs"])
    # Each side writes its own outputs.
    out_args = [k for k, v in spec["args"].items() if v in outputs]
    tc_args, tr_args = dict(args), dict(args)
    for k in out_args:
        tc_args[k] = torch.zeros_like(args[k])
        tr_args[k] = torch.zeros_like(args[k])

    def run_tc():
        kernel[tc_grid](**tc_args)

    def run_tr():
        tuner.fn[tr_grid](**tr_args, **best["kwargs"], num_warps=best["num_warps"],
                          num_stages=best["num_stages"])

    run_tc()
    run_tr()
    torch.cuda.synchronize()
    diffs = {k: float((tc_args[k].float() - tr_args[k].float()).abs().max()) for k in out_args}
    scale = {k: float(tr_args[k].float().abs().max()) for k in out_args}
    flush = torch.empty(L2_FLUSH_BYTES, dtype=torch.uint8, device="cuda")
    times = {"tritonc": [], "triton": []}
    sides = [("tritonc", run_tc), ("triton", run_tr)]
    for _ in range(5):
        run_tc()
        run_tr()
    for r in range(rounds):
        for side, fn in (sides if r % 2 == 0 else sides[::-1]):
            flush.zero_()
            s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
            s.record()
            fn()
            e.record()
            e.synchronize()
            times[side].append(s.elapsed_time(e))
    med = {k: statistics.median(v) for k, v in times.items()}
    result = {
        "tritonc_ms": med["tritonc"],
        "triton_ms": med["triton"],
        "ratio_triton_over_tritonc": med["triton"] / med["tritonc"],
        "dispatch": kernel.last_tuned,
        "max_abs_diff": diffs,
        "output_scale": scale,
        "rounds": rounds,
    }
    with open(out_json, "w") as f:
        json.dump(result, f, indent=1)


def same_config(tc, tr):
    """Whether tritonc's winner is Triton's best config."""
    vals = {k: v for k, v in tc["winner_values"].items()}
    return (vals == {k: v for k, v in tr["best"]["kwargs"].items()}
            and tc["winner_num_warps"] == tr["best"]["num_warps"]
            and tc["winner_num_stages"] == tr["best"]["num_stages"])


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--tritonc", default="gpurun/tritonc")
    ap.add_argument("--bundles", default=str(HERE / "out"))
    ap.add_argument("--out", required=True)
    ap.add_argument("--cases", default=",".join(CASES))
    ap.add_argument("--rounds", type=int, default=50)
    ap.add_argument("--triton-autotune", nargs=2, metavar=("CASE", "JSON"), help=argparse.SUPPRESS)
    ap.add_argument("--speed", nargs=4, metavar=("CASE", "TRITONC_JSON", "TRITON_JSON", "OUT"),
                    help=argparse.SUPPRESS)
    a = ap.parse_args()
    bundles = pathlib.Path(a.bundles).resolve()
    if a.triton_autotune:
        return triton_autotune(*a.triton_autotune)
    if a.speed:
        case, tcj, trj, outj = a.speed
        return speed(case, bundles, tcj, trj, a.rounds, outj)
    out = pathlib.Path(a.out).resolve()
    out.mkdir(parents=True, exist_ok=True)
    compile_info = {}
    if (bundles / "compile.json").exists():
        compile_info = json.loads((bundles / "compile.json").read_text())
    summary = {"cases": {}}
    for name in a.cases.split(","):
        spec_path, _, _, _ = load_case(name)
        case = {}
        # 1. tritonc tune, then a second process that reuses the table.
        for label, extra in (("tune", ["--force"]), ("reuse", [])):
            t0 = time.perf_counter()
            p = subprocess.run([a.tritonc, "tune", str(spec_path), "--bundle", str(bundles / name),
                                "--json", *extra], capture_output=True, text=True, cwd=ROOT)
            wall = time.perf_counter() - t0
            (out / f"{name}-tritonc-{label}.json").write_text(p.stdout)
            (out / f"{name}-tritonc-{label}.stderr").write_text(p.stderr)
            case[f"tritonc_{label}_wall_s"] = wall
            case[f"tritonc_{label}_exit"] = p.returncode
            print(f"{name}: tritonc tune ({label}) {wall:.2f} s, exit {p.returncode}", flush=True)
        if case["tritonc_tune_exit"] != 0:
            print((out / f"{name}-tritonc-tune.stderr").read_text()[-3000:])
            summary["cases"][name] = case
            continue
        tc = json.loads((out / f"{name}-tritonc-tune.json").read_text())["results"][0]
        reuse = json.loads((out / f"{name}-tritonc-reuse.json").read_text() or '{"results":[{}]}')["results"][0]
        case["tritonc_winner"] = tc["winner_label"]
        case["tritonc_outcomes"] = tc["outcomes"]
        case["tritonc_labels"] = tc["labels"]
        case["tritonc_reuse_reused"] = reuse.get("reused")
        case["tritonc_tune_s"] = tc.get("tune_s")
        case["tritonc_total_s"] = tc.get("total_s")
        case["tritonc_tune_phases_s"] = tc.get("tune_phases_s")
        print(f"{name}: tritonc tune_s {tc.get('tune_s')}, total_s {tc.get('total_s')}, "
              f"phases {tc.get('tune_phases_s')}", flush=True)
        case["tritonc_compile_s"] = compile_info.get(name, {}).get("compile_s")
        if case["tritonc_compile_s"] is not None:
            case["tritonc_end_to_end_s"] = case["tritonc_compile_s"] + case["tritonc_tune_wall_s"]
        # 2. Triton's autotuner, cold cache, own process.
        with tempfile.TemporaryDirectory() as cache:
            env = dict(os.environ, TRITON_CACHE_DIR=cache)
            trj = out / f"{name}-triton-autotune.json"
            t0 = time.perf_counter()
            p = subprocess.run([sys.executable, __file__, "--out", str(out), "--triton-autotune", name, str(trj)],
                               capture_output=True, text=True, env=env)
            case["triton_process_wall_s"] = time.perf_counter() - t0
        if p.returncode != 0:
            print(p.stderr[-3000:])
            case["triton_error"] = p.stderr[-3000:]
            summary["cases"][name] = case
            continue
        tr = json.loads(trj.read_text())
        case["triton_autotune_wall_s"] = tr["wall_s"]
        case["triton_best"] = tr["best"]
        case["triton_config_ms"] = tr["config_ms"]
        case["same_winner"] = same_config(tc, tr)
        ref = case.get("tritonc_end_to_end_s") or case["tritonc_tune_wall_s"]
        case["speedup_end_to_end"] = tr["wall_s"] / ref
        case["speedup_gpu_host_only"] = tr["wall_s"] / case["tritonc_tune_wall_s"]
        # 3. The tuned kernels' speed.
        spj = out / f"{name}-speed.json"
        p = subprocess.run([sys.executable, __file__, "--out", str(out), "--bundles", str(bundles),
                            "--rounds", str(a.rounds), "--speed", name,
                            str(out / f"{name}-tritonc-tune.json"), str(trj), str(spj)],
                           capture_output=True, text=True)
        if p.returncode != 0:
            print(p.stderr[-3000:])
            case["speed_error"] = p.stderr[-3000:]
        else:
            case["speed"] = json.loads(spj.read_text())
        summary["cases"][name] = case
        print(f"{name}: triton autotune {tr['wall_s']:.2f} s; tritonc {case['tritonc_tune_wall_s']:.2f} s on the GPU host"
              f" (+ {case.get('tritonc_compile_s')} s compile elsewhere); same winner: {case['same_winner']}"
              f"; tuned speed: {case.get('speed', {}).get('ratio_triton_over_tritonc')}", flush=True)
    (out / "tune_bench.json").write_text(json.dumps(summary, indent=1))


if __name__ == "__main__":
    main()
