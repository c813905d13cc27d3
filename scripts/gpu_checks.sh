#!/usr/bin/env bash
# The GPU checks of the project, in the ahead-of-time flow (README): compile here, run on a
# GPU host with only the slim runner, Python, upstream Triton, PyTorch and CuPy.
#
#   scripts/gpu_checks.sh prepare DIR   # here: build the slim runner, compile every bundle into DIR
#   scripts/gpu_checks.sh run DIR OUT   # GPU host: verify every spec, benchmark, golden PTX checks
#
# `prepare` needs a full build (`cargo build --release -p tritonc`); `run` writes logs and
# JSON reports into OUT and ends with one 'N passed, N failed' line per part.
set -uo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"
PLANTED="crates/tritonc-verify/tests/fixtures/int32_offsets_large.toml"

prepare() {
  local dir=$1
  rm -rf "$dir" && mkdir -p "$dir/verify"
  cargo build --release -q -p tritonc || exit 2
  local full=target/release/tritonc
  cargo build --release -q -p tritonc --no-default-features --target-dir target/slim || exit 2
  cp target/slim/release/tritonc "$dir/tritonc" && strip "$dir/tritonc"
  for spec in examples/*.toml; do
    name=$(basename "$spec" .toml)
    if "$full" compile --spec "$spec" --target sm_90 -o "$dir/verify/$name" >"$dir/verify/$name.log" 2>&1; then
      echo "compiled $name"
    else
      echo "NOT compiled $name: $(grep -m1 -E 'error' "$dir/verify/$name.log")"
    fi
  done
  # Planted defects that need a GPU run of their own (they must fail).
  mkdir -p "$dir/planted"
  for spec in $PLANTED; do
    name=$(basename "$spec" .toml)
    if "$full" compile --spec "$spec" --target sm_90 -o "$dir/planted/$name" >"$dir/planted/$name.log" 2>&1; then
      echo "compiled planted $name"
    else
      echo "NOT compiled planted $name: $(grep -m1 -E 'error' "$dir/planted/$name.log")"
    fi
  done
  bench/build.sh "$full"
  rm -rf "$dir/bench-bundles" && cp -r bench/out/bundles "$dir/bench-bundles"
}

run() {
  local dir=$1 out=$2
  mkdir -p "$out"
  export PYTHONUNBUFFERED=1
  nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv | tee "$out/device.txt"
  # The quick parts first (benchmark, golden PTX checks), then every spec's verification.
  python3 bench/gpu_bench.py --bundles "$dir/bench-bundles" --json "$out/bench.json" 2>&1 | tee "$out/bench.txt"
  python3 crates/tritonc-codegen/tests/gpu/check_golden.py 2>&1 | tee "$out/golden.txt" | tail -3
  python3 crates/tritonc-codegen/tests/gpu/check_assert.py 2>&1 | tee "$out/assert.txt" | tail -1
  local pass=0 fail=0
  for spec in examples/*.toml; do
    name=$(basename "$spec" .toml)
    # debug_assert fails by design; debug_assert_check below runs it.
    [ "$name" = debug_assert ] && continue
    [ -d "$dir/verify/$name" ] || { echo "skip $name (not compiled)"; continue; }
    if "$dir/tritonc" verify "$spec" --bundle "$dir/verify/$name" --against triton >"$out/verify-$name.txt" 2>&1; then
      pass=$((pass + 1)); echo "verify $name: pass"
    else
      fail=$((fail + 1)); echo "verify $name: FAIL"; tail -25 "$out/verify-$name.txt"
    fi
  done
  echo "verify: $pass passed, $fail failed"
  debug_assert_check "$dir" "$out"
  # Planted defects: verify must fail them (exit 1), in stage 3's large-input check.
  local caught=0 missed=0
  for spec in $PLANTED; do
    name=$(basename "$spec" .toml)
    [ -d "$dir/planted/$name" ] || { echo "skip planted $name (not compiled)"; continue; }
    "$dir/tritonc" verify "$spec" --bundle "$dir/planted/$name" --stages 3 >"$out/planted-$name.txt" 2>&1
    rc=$?
    if [ "$rc" = 1 ] && grep -F 'large (> 2^31 elements)' "$out/planted-$name.txt" | grep -q FAIL; then
      caught=$((caught + 1)); echo "planted $name: caught"
    else
      missed=$((missed + 1)); echo "planted $name: NOT caught (exit $rc)"; tail -25 "$out/planted-$name.txt"
    fi
  done
  echo "planted: $caught caught, $missed missed"
}

# examples/debug_assert.toml (debug = true) gathers 4096 indices from a 4000-element source:
# program 31's threads 32..127 fail `tl.device_assert`. Expected: each prints
# `examples/debug_assert.py:26: unknown: block: [31,0,0], thread: [T,0,0] Assertion
# `gather index out of bounds` failed.` (up to 96 lines, T in 32..127), and tritonc exits 1 with E0607
# (CUDA_ERROR_ASSERT). Upstream Triton on the same source prints the same lines (with the
# absolute path) before `device-side assert triggered`.
debug_assert_check() {
  local dir=$1 out=$2
  [ -d "$dir/verify/debug_assert" ] || { echo "debug_assert: skip (not compiled)"; return; }
  "$dir/tritonc" run examples/debug_assert.toml --bundle "$dir/verify/debug_assert" \
    >"$out/debug_assert.txt" 2>&1
  local rc=$?
  local lanes
  lanes=$(grep -c 'examples/debug_assert.py:26: unknown: block: \[31,0,0\], thread: \[[0-9]*,0,0\] Assertion `gather index out of bounds` failed.' "$out/debug_assert.txt")
  if [ "$rc" -eq 1 ] && [ "$lanes" -ge 1 ] && grep -q 'E0607' "$out/debug_assert.txt"; then
    echo "debug_assert: pass (exit 1, $lanes failing lanes reported)"
  else
    echo "debug_assert: FAIL (exit $rc, $lanes lane lines)"; tail -8 "$out/debug_assert.txt"
  fi
  python3 examples/debug_assert.py >"$out/debug_assert_triton.txt" 2>&1
  echo "debug_assert (Triton): exit $?, $(grep -c 'Assertion `gather index out of bounds` failed' "$out/debug_assert_triton.txt") lane lines"
}

case "${1:-}" in
  prepare) prepare "${2:?DIR}" ;;
  run) run "${2:?DIR}" "${3:?OUT}" ;;
  *) echo "usage: $0 prepare DIR | run DIR OUT" >&2; exit 2 ;;
esac
