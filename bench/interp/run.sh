#!/usr/bin/env bash
# The interpreter benchmark on a many-core host, in one command (well under 8 minutes on
# 16 cores): tritonc's interpreter at 1, 2, 4, 8 and 16 threads (up to the cores there
# are) beside Triton's interpreter, same CPU, same process; then the PNG.
#
#   bench/interp/run.sh OUT [LIB]
#
# LIB: libtritonc_pyinterp.so built by `cargo build --release -p tritonc-pyinterp` (no
# LLVM needed); default target/release/libtritonc_pyinterp.so, built first when cargo is
# there and it is missing. Needs python3 with torch and triton (no GPU used).
set -euo pipefail
out=$1
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
lib=${2:-${TRITONC_INTERP_LIB:-$root/target/release/libtritonc_pyinterp.so}}
if [ ! -f "$lib" ] && command -v cargo >/dev/null; then
  (cd "$root" && cargo build --release -p tritonc-pyinterp)
fi
mkdir -p "$out"
lscpu > "$out/cpu.txt" 2>/dev/null || true
export TRITONC_INTERP_LIB=$lib
timeout 470 python3 "$root/bench/interp/bench.py" "$out" 2>&1 | tee "$out/bench.txt"
