#!/usr/bin/env bash
# The tuning benchmark on a GPU host (Triton 3.6 and PyTorch installed): `tritonc tune`
# against Triton's autotuner on the same configs and shapes, the winners of both and the
# tuned kernels' speed, for examples/matmul.py and bench/tune/kernels.py's attention and
# RMSNorm (compare.py says how each is measured). Needs, carried from where they were
# built:
#   gpurun/tritonc    the slim runner (cargo build --release -p tritonc --no-default-features
#                     --target-dir target/slim), or TRITONC=path
#   bench/tune/out/   bench/tune/prepare.sh's bundles (every config compiled), or BUNDLES=dir
# Writes OUT/tune_bench.json (the summary) and each step's output.
#
#   bench/tune/gpu_run.sh OUT
set -uo pipefail
out=${1:?usage: bench/tune/gpu_run.sh OUT}
cd "$(dirname "$0")/../.."
mkdir -p "$out"
tritonc=${TRITONC:-gpurun/tritonc}
bundles=${BUNDLES:-bench/tune/out}
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv | tee "$out/device.txt"
"$tritonc" --version | tee "$out/tritonc-version.txt"
python3 -c "import triton, torch; print('triton', triton.__version__, 'torch', torch.__version__)" | tee "$out/python-versions.txt"
timeout 540 python3 bench/tune/compare.py --tritonc "$tritonc" --bundles "$bundles" --out "$out" --rounds "${ROUNDS:-50}" 2>&1 | tee "$out/compare.txt"
