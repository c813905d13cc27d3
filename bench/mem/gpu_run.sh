#!/usr/bin/env bash
# The memory-bound sweep on a GPU host (H200; Triton 3.6, PyTorch and CuPy installed), over
# the directory bench/mem/prepare.py filled here (OUT/device of `prepare.py --out OUT`):
#
#   bench/mem/gpu_run.sh DIR RESULTS
#
# Writes RESULTS/device.txt, RESULTS/mem_sweep.{txt,json} and one PNG per family
# (RESULTS/mem_FAMILY.png, where matplotlib is installed). Takes 2-5 minutes.
set -uo pipefail
dir=$1 out=$2
cd "$(dirname "$0")/../.."
mkdir -p "$out"
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv | tee "$out/device.txt"
timeout 460 python3 bench/mem/run.py --cases "$dir" --rounds "${ROUNDS:-60}" --budget "${BUDGET:-380}" \
  --out "$out" 2>&1 | tee "$out/mem_sweep.txt"
