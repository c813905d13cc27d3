#!/usr/bin/env bash
# Compiles every launch spec of the repository (examples/, tests/tensor_cores/) for sm_80,
# sm_90 and sm_90a into OUT/<sm>/<spec>/, one bundle per variant, and prints a digest of each
# bundle's PTX. Run it before and after a back-end change and diff the two listings: a
# refactoring that claims to change nothing must leave every digest unchanged.
#
#   scripts/snapshot_bundles.sh OUT [TRITONC]
set -euo pipefail
out=${1:?usage: snapshot_bundles.sh OUT [TRITONC]}
tritonc=${2:-target/debug/tritonc}
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
for sm in 80 90 90a; do
  for spec in examples/*.toml tests/tensor_cores/*.toml; do
    name=$(basename "$spec" .toml)
    dir="$out/sm_$sm/$name"
    mkdir -p "$dir"
    if ! "$tritonc" compile --target "sm_$sm" -o "$dir" --spec "$spec" >"$dir/log" 2>&1; then
      echo "sm_$sm $name: compile failed (see $dir/log)"
      continue
    fi
    for b in "$dir"/*.tcb; do
      echo "sm_$sm $name $(basename "$b") $(sha256sum <"$b/kernel.ptx" | cut -c1-16) $(wc -c <"$b/kernel.ptx")"
    done
  done
done
