#!/usr/bin/env bash
# Installs what IndexPool needs on Debian 12 (only the missing packages) and
# builds it in ${BUILD_DIR:-build}. Sourced by run-example.sh and test.sh.
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
BUILD_DIR=${BUILD_DIR:-$ROOT/build}
export CUDA_HOME=${CUDA_HOME:-/usr/local/cuda}

PACKAGES=(cmake ninja-build ccache python3
          llvm-22-dev llvm-22-tools libmlir-22-dev mlir-22-tools clang-22 lld-22
          libgtest-dev libgmock-dev libbenchmark-dev libomp-22-dev python3-numpy
          python3-psutil python3-pybind11 pybind11-dev python3-torch
          python3-pytest python3-matplotlib libxxhash-dev redis-server
          libhiredis-dev stunnel4 openssl libcli11-dev)

source "$ROOT/scripts/install-packages.sh"
install_missing "${PACKAGES[@]}"

echo "== building in $BUILD_DIR"
cmake -G Ninja -S "$ROOT" -B "$BUILD_DIR" \
  -DCMAKE_BUILD_TYPE="${BUILD_TYPE:-Release}" \
  -DCMAKE_C_COMPILER=clang-22 -DCMAKE_CXX_COMPILER=clang++-22 \
  -DLLVM_USE_LINKER=lld \
  -DMLIR_DIR=/usr/lib/llvm-22/lib/cmake/mlir \
  ${CMAKE_EXTRA_ARGS:-} >/dev/null
cmake --build "$BUILD_DIR"
