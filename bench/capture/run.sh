#!/usr/bin/env bash
# Captures the Triton launches of a small PyTorch workload (bench/capture/workload.py: a
# transformer block's forward pass and loss on the example kernels, checked against
# PyTorch) as tritonc launch specs, with the tensors each launch got, then verifies every
# captured spec against upstream Triton with tritonc. On a GPU host with torch and
# triton, from the repository root:
#
#   bench/capture/run.sh OUT
#
# Writes OUT/specs/ (the specs, their .npy inputs, captured.json), OUT/verify/NAME.txt
# (each `tritonc verify SPEC --against triton` report) and OUT/summary.txt. TRITONC names
# a tritonc binary (default target/release/tritonc, built if missing); STAGES the verify
# stages (default 1: correctness on the captured inputs; 1-5 for all).
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
out=$(realpath -m "${1:?usage: bench/capture/run.sh OUT}")
mkdir -p "$out/verify"
tritonc=${TRITONC:-target/release/tritonc}
if [ ! -x "$tritonc" ]; then
  cargo build --release --locked -p tritonc || exit 1
fi
stages=${STAGES:-1}

PYTHONPATH=python python3 -m tritonc_rt.capture --out "$out/specs" --save-tensors \
  bench/capture/workload.py 2>&1 | tee "$out/workload.txt"
[ "${PIPESTATUS[0]}" -eq 0 ] || { echo "the workload failed" | tee "$out/summary.txt"; exit 1; }

pass=0; fail=0
: > "$out/summary.txt"
for spec in "$out"/specs/*.toml; do
  name=$(basename "$spec" .toml)
  "$tritonc" verify "$spec" --against triton --stages "$stages" > "$out/verify/$name.txt" 2>&1
  code=$?
  if [ $code -eq 0 ]; then pass=$((pass + 1)); else fail=$((fail + 1)); fi
  echo "$name: exit $code" | tee -a "$out/summary.txt"
done
echo "verified against Triton: $pass passed, $fail failed (stages $stages)" | tee -a "$out/summary.txt"
[ "$fail" -eq 0 ]
