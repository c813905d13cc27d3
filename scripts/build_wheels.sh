#!/usr/bin/env bash
# Builds the two wheels (docs/python.md, "Wheels") into OUT and checks each: auditwheel
# reports its platform tag, and it installs into a fresh virtual environment where the
# `tritonc` command runs from PATH and `import tritonc_rt` works.
#
#   scripts/build_wheels.sh OUT [lint|full|both]     (default: both)
#
# - tritonc-lint (pyproject.toml): the command without the MLIR back end, cross-linked
#   with zig (the `ziglang` package) against glibc 2.17: manylinux2014 / manylinux_2_17.
# - tritonc (packaging/full/pyproject.toml): the full compiler, LLVM/MLIR 22 and libstdc++
#   linked in statically; linked natively, so its tag follows this machine's glibc.
# Needs python3 with venv; maturin, ziglang and auditwheel are installed into a scratch
# virtual environment under OUT.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
out=$(realpath -m "${1:?usage: scripts/build_wheels.sh OUT [lint|full|both]}")
which=${2:-both}
mkdir -p "$out"
tools="$out/.tools-venv"
[ -x "$tools/bin/maturin" ] || { python3 -m venv "$tools" && "$tools/bin/pip" install -q "maturin>=1.5,<2" ziglang auditwheel; }
export PATH="$tools/bin:$PATH"

if [ "$which" != full ]; then
  maturin build --release --zig --compatibility manylinux2014 -o "$out"
fi
if [ "$which" != lint ]; then
  (cd packaging/full && maturin build --release -o "$out")
fi

for wheel in "$out"/*.whl; do
  echo "== $(basename "$wheel") ($(du -h "$wheel" | cut -f1))"
  auditwheel show "$wheel" | tr '\n' ' ' | sed 's/  */ /g'; echo
  venv=$(mktemp -d)
  python3 -m venv "$venv"
  "$venv/bin/pip" install -q "$wheel"
  "$venv/bin/tritonc" --version
  "$venv/bin/python" -c "import tritonc_rt, sys; print('tritonc_rt from', tritonc_rt.__file__)"
  rm -rf "$venv"
done
