#!/usr/bin/env bash
# Installs everything tritonc needs to build and test on Debian 12 (bookworm):
#   - LLVM/MLIR 22 from Debian's packages (the MLIR back end links them),
#   - the HIP runtime's headers and library from Debian's `libamdhip64-dev` (the AMD
#     launcher, cargo feature `hip`, links libamdhip64; no AMD GPU or ROCm install needed),
#   - NVIDIA's ptxas from the `nvidia-cuda-nvcc` wheel, unpacked under .tools/cuda
#     (validates generated PTX; no GPU or CUDA install needed),
#   - libdevice.10.bc from the `nvidia-nvvm` wheel under .tools/cuda/nvvm/libdevice
#     (linked into kernels calling erf, sin, cos, …).
# Idempotent: re-running skips what is already there.
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
sudo=""
if [ "$(id -u)" -ne 0 ]; then sudo="sudo"; fi

LLVM_VERSION=22
NVCC_WHEEL_VERSION=13.5.37
NVVM_WHEEL_VERSION=13.5.37

apt_packages=(
  build-essential pkg-config python3 python3-pip unzip
  "llvm-${LLVM_VERSION}-dev" "libmlir-${LLVM_VERSION}-dev" "mlir-${LLVM_VERSION}-tools"
  "libpolly-${LLVM_VERSION}-dev" "libclang-${LLVM_VERSION}-dev" "clang-${LLVM_VERSION}"
  # ld.lld links AMD code objects (HSACO); llvm-objdump (in llvm) disassembles them; the
  # ROCm device libraries (ocml, ockl bitcode) are linked into AMD kernels that call them.
  "lld-${LLVM_VERSION}" rocm-device-libs
  zlib1g-dev libzstd-dev libxml2-dev
  libamdhip64-dev
)

missing=()
for p in "${apt_packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ "${#missing[@]}" -gt 0 ]; then
  echo "installing Debian packages: ${missing[*]}"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

# ptxas (and libdevice) from NVIDIA's wheel on the Python package index.
tools="$root/.tools"
if [ ! -x "$tools/cuda/bin/ptxas" ]; then
  echo "fetching ptxas (nvidia-cuda-nvcc ${NVCC_WHEEL_VERSION})"
  tmp=$(mktemp -d)
  python3 -m pip download -q --no-deps "nvidia-cuda-nvcc==${NVCC_WHEEL_VERSION}" -d "$tmp"
  unzip -q -o "$tmp"/*.whl -d "$tmp/x"
  mkdir -p "$tools/cuda"
  cp -r "$tmp"/x/nvidia/cu*/* "$tools/cuda/"
  chmod +x "$tools"/cuda/bin/* || true
  rm -rf "$tmp"
fi
# libdevice (libdevice.10.bc: erf, sin, cos, … for kernels that need them) from the
# `nvidia-nvvm` wheel of the same CUDA release as ptxas.
if [ ! -f "$tools/cuda/nvvm/libdevice/libdevice.10.bc" ]; then
  echo "fetching libdevice (nvidia-nvvm ${NVVM_WHEEL_VERSION})"
  tmp=$(mktemp -d)
  python3 -m pip download -q --no-deps "nvidia-nvvm==${NVVM_WHEEL_VERSION}" -d "$tmp"
  unzip -q -o "$tmp"/*.whl -d "$tmp/x"
  mkdir -p "$tools/cuda/nvvm/libdevice"
  cp "$tmp"/x/nvidia/cu*/nvvm/libdevice/libdevice.10.bc "$tools/cuda/nvvm/libdevice/"
  rm -rf "$tmp"
fi
"$tools/cuda/bin/ptxas" --version | tail -1
ls "$tools/cuda/nvvm/libdevice/libdevice.10.bc"
"/usr/lib/llvm-${LLVM_VERSION}/bin/llvm-config" --version | sed 's/^/llvm /'
