#!/usr/bin/env bash
# The tensor-core checks on a GPU host, over a directory DIR prepared here:
#   DIR/tritonc        the slim runner (cargo build --release -p tritonc --no-default-features
#                      --target-dir target/slim)
#   DIR/bench/         bench/tc/prepare.py --out DIR/bench
#   DIR/verify/NAME/   tritonc compile --spec SPEC --target sm_90 -o DIR/verify/NAME, for the
#                      specs of tests/tensor_cores/ and the dot examples
# Runs the benchmark (bench/tc/run.py), `tritonc verify --against triton` for every spec,
# and compute-sanitizer's racecheck and synccheck on two of them; writes into OUT.
#
#   bench/tc/gpu_run.sh DIR OUT
set -uo pipefail
dir=$1 out=$2
cd "$(dirname "$0")/../.."
mkdir -p "$out"
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv | tee "$out/device.txt"
timeout 300 python3 bench/tc/run.py --cases "$dir/bench" --rounds "${ROUNDS:-20}" --json "$out/tc_bench.json" 2>&1 | tee "$out/tc_bench.txt"
pass=0; fail=0
for d in "$dir"/verify/*/; do
  n=$(basename "$d")
  spec=tests/tensor_cores/$n.toml; [ -f "$spec" ] || spec=examples/$n.toml
  if timeout 90 "$dir/tritonc" verify "$spec" --bundle "$d" --against triton > "$out/verify-$n.txt" 2>&1; then
    pass=$((pass+1)); echo "verify $n: pass"
  else
    fail=$((fail+1)); echo "verify $n: FAIL"; tail -15 "$out/verify-$n.txt"
  fi
done
echo "verify: $pass passed, $fail failed"
if command -v compute-sanitizer >/dev/null; then
  for n in fp16_nn bf16_nn tf32x3_nn flash_attention; do
    spec=tests/tensor_cores/$n.toml; [ -f "$spec" ] || spec=examples/$n.toml
    for tool in racecheck synccheck; do
      timeout 90 compute-sanitizer --tool $tool "$dir/tritonc" run "$spec" --bundle "$dir/verify/$n" 2>&1 | tail -1 | sed "s/^/$tool $n: /"
    done
  done
fi
