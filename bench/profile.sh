#!/usr/bin/env bash
# Nsight Compute profile of one benchmark case, upstream Triton and tritonc side by side
# (GPU host). bench/gpu_bench.py launches Triton twice (through the example's wrapper,
# then the check launch) before tritonc's first launch, so launches 2 and 3 of the kernel
# are Triton's and tritonc's.
#
#   bench/profile.sh BUNDLES CASE KERNEL OUT   # writes OUT/CASE.ncu.txt
set -euo pipefail
bundles=$1 case=$2 kernel=$3 out=$4
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
mkdir -p "$out"
ncu --set full --kernel-name "regex:^${kernel}$" --launch-skip 1 --launch-count 2 \
  --print-details all \
  python3 "$root/bench/gpu_bench.py" --bundles "$bundles" --only "$case" --rounds 3 \
  >"$out/$case.ncu.txt" 2>&1
echo "$case: $(grep -c '^  [a-z_]*(' "$out/$case.ncu.txt" || true) kernel reports in $out/$case.ncu.txt"
