#!/usr/bin/env bash
# Installs the build into a temporary prefix, builds the out-of-tree consumer
# (consumer/) against it with find_package(IndexPool CONFIG), and runs its C++,
# C and runtime programs. Usage: run-consumer.sh BUILD_DIR
set -euo pipefail
BUILD=$(cd "$1" && pwd)
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT

cmake --install "$BUILD" --prefix "$WORK/prefix" >/dev/null
cmake -G Ninja -S "$HERE/consumer" -B "$WORK/build" \
  -DCMAKE_PREFIX_PATH="$WORK/prefix" \
  -DCMAKE_C_COMPILER=clang-22 -DCMAKE_CXX_COMPILER=clang++-22 >/dev/null
cmake --build "$WORK/build" >/dev/null
"$WORK/build/consumer_cpp"
mkdir "$WORK/artifacts"
"$WORK/build/consumer_c" "$WORK/artifacts"
"$WORK/build/consumer_runtime" "$WORK/artifacts/pool.sm_90.json"
# GpuFunction through the project's fake driver (no GPU here), on a manifest
# of the fake driver's test kernel.
INDEXPOOL_LIBCUDA_PATH="$BUILD/lib/libindexpool-fake-cuda.so" \
  "$WORK/build/consumer_runtime" "$WORK/artifacts/pool.sm_90.json" \
  "$(cd "$HERE/.." && pwd)/Tools/Inputs/launch/expand-dynamic.json"
# The installed tools and plugin run from the prefix too: every tool starts
# (finds its libraries from the prefix).
for tool in indexpool-opt indexpool-run indexpool-compile indexpool-launch; do
  "$WORK/prefix/bin/$tool" --version >/dev/null
done
echo 'func.func @f(%x: tensor<8x16xf32>) -> tensor<8x16xf32> { %r = indexpool.hadamard %x : (tensor<8x16xf32>) -> tensor<8x16xf32>
  return %r : tensor<8x16xf32> }' |
  /usr/lib/llvm-22/bin/mlir-opt --load-dialect-plugin="$WORK/prefix/lib/IndexPoolPlugin.so" \
    --load-pass-plugin="$WORK/prefix/lib/IndexPoolPlugin.so" \
    --pass-pipeline="builtin.module(func.func(indexpool-fuse))" >/dev/null
echo "run-consumer: the installed package builds and runs the C++, C and runtime consumers"
