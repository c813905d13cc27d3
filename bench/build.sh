#!/usr/bin/env bash
# Compiles every benchmark case of bench/cases.py to a tritonc bundle (on this machine;
# no GPU needed), under bench/out/bundles/CASE/. bench/gpu_bench.py runs them on a GPU.
#
#   bench/build.sh [TRITONC]     (default: target/release/tritonc)
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
tritonc=${1:-$root/target/release/tritonc}
out=$root/bench/out/bundles
rm -rf "$out" && mkdir -p "$out"
cd "$root"
python3 - "$tritonc" "$out" <<'PY'
import subprocess, sys, time
sys.path.insert(0, "bench")
import cases
tritonc, out = sys.argv[1], sys.argv[2]
failed = 0
for c in cases.CASES:
    cmd = [tritonc, "compile", c.file, "--kernel", c.kernel, "--signature", c.signature,
           "--num-warps", str(c.num_warps), "--target", "sm_90", "-o", f"{out}/{c.name}"]
    t0 = time.perf_counter()
    p = subprocess.run(cmd, capture_output=True, text=True)
    ms = (time.perf_counter() - t0) * 1e3
    status = "ok" if p.returncode == 0 else f"exit {p.returncode}"
    print(f"{c.name:34} {status:8} {ms:7.1f} ms")
    if p.returncode != 0:
        failed += 1
        print("   " + (p.stderr.strip().splitlines() or [""])[0])
print(f"{len(cases.CASES) - failed} compiled, {failed} not compiled")
PY
