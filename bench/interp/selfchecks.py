#!/usr/bin/env python3
"""Runs kernel self-checks on the CPU under tritonc's drop-in (tritonc_rt.interpret): the
`__main__` blocks of examples/*.py (kernels of Triton's tutorials with their checks
against PyTorch), and of every *.py under each --dir (e.g. a Triton checkout's
python/tutorials), with "cuda" devices moved to the CPU; a pass/fail table with the reason
of each failure.

    python3 bench/interp/selfchecks.py OUT [--dir TRITON/python/tutorials] [--timeout 300]
    python3 bench/interp/selfchecks.py OUT --triton     (the same under Triton's interpreter)
    python3 bench/interp/selfchecks.py OUT --only vector_add_large --timeout 300
                                                        (only the scripts of those names)

Writes OUT/selfchecks.json and OUT/selfchecks.md. Needs torch and triton (CPU is enough)
and libtritonc_pyinterp.so (docs/python.md).
"""

import argparse
import glob
import json
import os
import re
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))

# Runs one script's __main__ with its devices on the CPU (in a child process).
RUNNER = r'''
import os, re, sys, runpy
sys.path.insert(0, os.path.join(sys.argv[1], "python"))
path, engine = sys.argv[2], sys.argv[3]
import torch, triton
if engine == "tritonc":
    from tritonc_rt import interpret
    interpret.install()
cpu = torch.device("cpu")
torch.cuda.synchronize = lambda *a, **k: None
torch.cuda.manual_seed = lambda *a, **k: None
torch.cuda.manual_seed_all = lambda *a, **k: None
try:
    triton.runtime.driver.active.get_active_torch_device = lambda: cpu
except Exception:
    pass
src = open(path).read()
src = re.sub(r"""(["'])cuda(:\d+)?\1""", '"cpu"', src).replace(".cuda()", ".cpu()")
sys.path.insert(0, os.path.dirname(path))
code = compile(src, path, "exec")  # the kernels' file name stays the real file
g = {"__name__": "__main__", "__file__": path}
exec(code, g)
print("SELFCHECK-DONE")
'''


def run_one(path, engine, timeout):
    env = dict(os.environ)
    if engine == "triton":
        env["TRITON_INTERPRET"] = "1"
    env.pop("TRITONC_INTERPRET", None)
    t0 = time.perf_counter()
    try:
        p = subprocess.run([sys.executable, "-c", RUNNER, ROOT, path, engine], env=env,
                           capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return {"status": "timeout", "seconds": timeout, "reason": f"over {timeout} s"}
    secs = time.perf_counter() - t0
    if p.returncode == 0 and "SELFCHECK-DONE" in p.stdout:
        return {"status": "pass", "seconds": secs, "reason": ""}
    lines = [ln for ln in p.stderr.strip().splitlines() if ln.strip()]
    # The exception line, and for tritonc's diagnostics the headline after it.
    reason = next((ln for ln in reversed(lines) if re.match(r"^\w[\w.]*(Error|Exception)", ln)),
                  lines[-1] if lines else f"exit {p.returncode}")
    return {"status": "fail", "seconds": secs, "reason": reason[:300],
            "stderr_tail": "\n".join(lines[-25:])}



def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("out")
    ap.add_argument("--dir", action="append", default=[])
    ap.add_argument("--timeout", type=int, default=300)
    ap.add_argument("--triton", action="store_true", help="also run under Triton's interpreter")
    ap.add_argument("--only", action="append", default=[], metavar="NAME",
                    help="run only the scripts named NAME (file name without .py; repeatable)")
    args = ap.parse_args()
    os.makedirs(args.out, exist_ok=True)
    scripts = sorted(glob.glob(os.path.join(ROOT, "examples", "*.py")))
    for d in args.dir:
        scripts += sorted(glob.glob(os.path.join(d, "*.py")))
    if args.only:
        scripts = [s for s in scripts
                   if os.path.splitext(os.path.basename(s))[0] in args.only]
        if not scripts:
            sys.exit(f"no script named {', '.join(args.only)}")
    engines = ["tritonc"] + (["triton"] if args.triton else [])
    rows = []
    for s in scripts:
        row = {"script": os.path.relpath(s, ROOT) if s.startswith(ROOT) else s}
        for e in engines:
            row[e] = run_one(s, e, args.timeout)
            print(f"{row['script']:60} {e:8} {row[e]['status']:8} {row[e]['seconds']:7.1f} s  "
                  f"{row[e]['reason'][:120]}", flush=True)
        rows.append(row)
    with open(os.path.join(args.out, "selfchecks.json"), "w") as f:
        json.dump(rows, f, indent=1)
    with open(os.path.join(args.out, "selfchecks.md"), "w") as f:
        f.write("| script | " + " | ".join(engines) + " | reason |\n")
        f.write("| --- | " + " | ".join("---" for _ in engines) + " | --- |\n")
        for r in rows:
            cells = [f"{r[e]['status']} ({r[e]['seconds']:.1f} s)" for e in engines]
            reason = r["tritonc"]["reason"].replace("|", "\\|")
            f.write(f"| {r['script']} | " + " | ".join(cells) + f" | {reason} |\n")
    passed = sum(r["tritonc"]["status"] == "pass" for r in rows)
    print(f"tritonc: {passed} of {len(rows)} self-checks pass; wrote {args.out}/selfchecks.md")


if __name__ == "__main__":
    main()
