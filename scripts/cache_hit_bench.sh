#!/bin/bash
# What a compile answered from the cache costs against a bare `tritonc --version`
# (docs/benchmarks.md): CPU time (perf stat task-clock) and wall time per process, in
# alternating rounds, for one binary:
#   before: the remembered toolchain identities unusable (DIR/v1/toolchain is a file),
#           so ptxas --version runs and libdevice is hashed on every compile, as before;
#   after:  the identities remembered.
# Usage: scripts/cache_hit_bench.sh TRITONC [KERNEL.py] [ROUNDS] [RUNS_PER_ROUND]
set -e
B=$(realpath "$1"); K=${2:-examples/vector_add.py}; ROUNDS=${3:-5}; N=${4:-20}
cd "$(dirname "${BASH_SOURCE[0]}")/.."
export CUDA_HOME=${CUDA_HOME:-$PWD/.tools/cuda}
export TRITONC_CACHE_DIR=$(mktemp -d); OUT=$(mktemp -d)
$B compile $K --target sm_90 -o $OUT -q >/dev/null 2>&1
$B compile $K --target sm_90 -o $OUT -q >/dev/null 2>&1
p() { perf stat -r $N -x, -e task-clock "$@" 2>&1 >/dev/null | awk -F, '/task-clock/{printf "%.2f", $1}'; }
w() { local s=$(date +%s%N); for i in $(seq $N); do "$@" >/dev/null 2>&1; done; echo $(( ($(date +%s%N)-s)/N/10000 )) | awk '{printf "%.2f", $1/100}'; }
memo_off() { mv $TRITONC_CACHE_DIR/v1/toolchain $TRITONC_CACHE_DIR/v1/toolchain.aside; touch $TRITONC_CACHE_DIR/v1/toolchain; }
memo_on() { rm $TRITONC_CACHE_DIR/v1/toolchain; mv $TRITONC_CACHE_DIR/v1/toolchain.aside $TRITONC_CACHE_DIR/v1/toolchain; }
echo "round cpu_ms:version before after | wall_ms:version before after"
for r in $(seq $ROUNDS); do
  cv=$(p $B --version); wv=$(w $B --version)
  memo_off; cb=$(p $B compile $K --target sm_90 -o $OUT -q); wb=$(w $B compile $K --target sm_90 -o $OUT -q); memo_on
  ca=$(p $B compile $K --target sm_90 -o $OUT -q); wa=$(w $B compile $K --target sm_90 -o $OUT -q)
  echo "$r $cv $cb $ca | $wv $wb $wa"
done
echo "hits: $($B compile $K --target sm_90 -o $OUT 2>&1 | grep -c "from the cache") bundle(s) from the cache"
rm -rf $TRITONC_CACHE_DIR $OUT
