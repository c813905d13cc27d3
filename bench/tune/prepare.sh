#!/usr/bin/env bash
# Compiles every config of the tuning benchmark's kernels for sm_90 into bench/tune/out/
# (or OUT), here, where the compiler is: `tritonc tune SPEC --compile-only`, the compile
# cache off so compile.json records the full compile time of each case. The GPU host then
# runs bench/tune/gpu_run.sh with the slim runner over these bundles.
#
#   bench/tune/prepare.sh [OUT]        (TRITONC=path/to/full/tritonc, default target/release/tritonc)
set -euo pipefail
cd "$(dirname "$0")/../.."
out=${1:-bench/tune/out}
tritonc=${TRITONC:-target/release/tritonc}
mkdir -p "$out"
echo "{" > "$out/compile.json.tmp"
sep=""
for name in matmul attention norm; do
  rm -rf "${out:?}/$name"
  start=$(date +%s.%N)
  "$tritonc" tune "bench/tune/$name.toml" --compile-only --no-cache --target sm_90 -o "$out/$name" --json > "$out/$name-compile.json"
  end=$(date +%s.%N)
  wall=$(python3 -c "print($end - $start)")
  echo "$name: $(ls -d "$out/$name"/*.tcb | wc -l) variants in ${wall} s"
  printf '%s "%s": {"compile_s": %s, "cores": %s}\n' "$sep" "$name" "$wall" "$(nproc)" >> "$out/compile.json.tmp"
  sep=","
done
echo "}" >> "$out/compile.json.tmp"
mv "$out/compile.json.tmp" "$out/compile.json"
