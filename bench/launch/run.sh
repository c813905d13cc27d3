#!/usr/bin/env bash
# Host launch overhead of one small kernel (examples/vector_add.py's add_kernel on 16 Ki
# floats: 16 programs, about 2 µs of GPU time, so the host is the bottleneck) from C
# (`--emit c`), Rust (tritonc-runtime through tritonc-build's generated functions) and
# Python (tritonc_rt, fast and general paths), with upstream Triton's own launch of the
# same source in the same Python process. On a GPU host, from the repository root:
#
#   bench/launch/run.sh OUT
#
# Writes OUT/c.json, OUT/rust.json, OUT/python.json and OUT/summary.txt. Needs cc,
# cargo, and torch + triton for the Python part; TRITONC names a tritonc binary (default:
# target/release/tritonc, built if missing), TARGET the GPU architecture (default sm_90).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
out=$(realpath -m "${1:?usage: bench/launch/run.sh OUT}")
mkdir -p "$out"
target=${TARGET:-sm_90}
tritonc=${TRITONC:-target/release/tritonc}
if [ ! -x "$tritonc" ]; then
  cargo build --release --locked -p tritonc
fi
tritonc=$(realpath "$tritonc")

echo "== C"
"$tritonc" compile examples/vector_add.py --target "$target" --emit c -o "$out/c-build"
cc -O2 -std=c11 -I"$out/c-build" bench/launch/c_overhead.c "$out/c-build/vector_add.c" \
  -ldl -pthread -o "$out/c-build/c_overhead"
"$out/c-build/c_overhead" "$out" | tee "$out/summary.txt"

echo "== Rust"
TRITONC="$tritonc" cargo run --release --locked -q \
  --manifest-path examples/rust-build/Cargo.toml --target-dir "$out/rust-build" \
  --bin launch_overhead -- "$out" | tee -a "$out/summary.txt"

echo "== Python"
"$tritonc" compile examples/vector_add.py --target "$target" -o "$out/py-bundle"
PYTHONPATH=python python3 bench/launch/overhead.py "$out" \
  --bundle "$(ls -d "$out"/py-bundle/add_kernel-*.tcb | head -1)" | tee -a "$out/summary.txt"
