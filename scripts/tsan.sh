#!/usr/bin/env bash
# Runs the tests that share state between threads under ThreadSanitizer, in
# ${TSAN_BUILD_DIR:-build-tsan} (clang-22, -DINDEXPOOL_ENABLE_TSAN=ON):
#
#   scripts/tsan.sh                  the C++ tests (the CI run, after the fuzz
#                                    runs in scripts/test.sh; a build without
#                                    the compiler, about a minute on 2 cores):
#     IndexPoolCacheTests            the background compressor's worker
#                                    against appending, selecting, forking,
#                                    freeing and draining threads
#                                    (BackgroundCompressor.*), and the rest
#     IndexPoolCacheRedisTests       threads sharing one RedisStore (and its
#                                    RedisClient connections) on a
#                                    redis-server of the test's own, and the
#                                    rest (a thread closing a connection
#                                    during AUTH, a killed server, ...)
#   TSAN_PYTHON=1 scripts/tsan.sh    also, in a build with the compiler (its
#                                    libraries are what libIndexPool.so and
#                                    the extension link: about 12 CPU-minutes
#                                    cold, 6 to 9 minutes on 2 cores, seconds
#                                    with a warm ccache):
#     IndexPoolCacheStoreTests       the cache through its CPU kernels with a
#                                    store tier, the background compressor's
#                                    worker included
#     python/tests/test_threads.py   one compiled Function called from several
#                                    Python threads, one indexpool.Cache used
#                                    from several threads (the extension built
#                                    with -fsanitize=thread; Debian's python3
#                                    runs with the TSan runtime preloaded)
#
# Only those test programs and the Python extension (and what they link)
# are built. Any TSan report fails the run (halt_on_error=1, exit code 66):
# a data race, a lock-order inversion (with both stacks:
# second_deadlock_stack=1), a destroyed locked mutex, a signal-unsafe call
# in a handler; so does a failing test. Each program's output is kept in
# $TSAN_BUILD_DIR/tsan-<name>.log. test/tsan.supp holds the suppressions:
# third-party code only, each entry with its reason.
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
TSAN_BUILD_DIR=${TSAN_BUILD_DIR:-$ROOT/build-tsan}
TSAN_PYTHON=${TSAN_PYTHON:-0}

# The TSan runtime of clang-22; GoogleTest, hiredis and a redis-server for
# the store's tests; LLVM/MLIR, pybind11 and NumPy for the Python part.
PACKAGES=(cmake ninja-build clang-22 lld-22 libclang-rt-22-dev llvm-22-dev
          libgtest-dev libgmock-dev libxxhash-dev libcli11-dev
          libhiredis-dev redis-server)
if [ "$TSAN_PYTHON" != 0 ]; then
  PACKAGES+=(libmlir-22-dev mlir-22-tools libomp-22-dev python3
             python3-numpy python3-pytest python3-pybind11 pybind11-dev)
fi
source "$ROOT/scripts/install-packages.sh"
install_missing "${PACKAGES[@]}"

COMPILER=OFF
TARGETS=(IndexPoolCacheTests IndexPoolCacheRedisTests)
if [ "$TSAN_PYTHON" != 0 ]; then
  COMPILER=ON
  TARGETS+=(IndexPoolCacheStoreTests _indexpool)
fi

echo "== building the threaded tests in $TSAN_BUILD_DIR (ThreadSanitizer)"
# --no-warn-unused-cli: without the compiler, MLIR_DIR and the linker are
# not used.
cmake -G Ninja -S "$ROOT" -B "$TSAN_BUILD_DIR" --no-warn-unused-cli \
  -DCMAKE_BUILD_TYPE=Release \
  -DCMAKE_C_COMPILER=clang-22 -DCMAKE_CXX_COMPILER=clang++-22 \
  -DLLVM_USE_LINKER=lld \
  -DMLIR_DIR=/usr/lib/llvm-22/lib/cmake/mlir \
  -DINDEXPOOL_COMPILER=$COMPILER \
  -DINDEXPOOL_ENABLE_TSAN=ON >/dev/null
start=$(date +%s)
cmake --build "$TSAN_BUILD_DIR" --target "${TARGETS[@]}"
echo "== built in $(($(date +%s) - start)) s"

LLVM_LIB=/usr/lib/llvm-22/lib
# exitcode=66: a report fails the test even where the program would have
# passed; halt_on_error=1: at the first report, with its stacks.
export TSAN_OPTIONS=${TSAN_OPTIONS:-halt_on_error=1:exitcode=66:second_deadlock_stack=1:suppressions=$ROOT/test/tsan.supp:external_symbolizer_path=/usr/lib/llvm-22/bin/llvm-symbolizer}
# The compiled functions and the cache's kernels run on libomp's threads:
# archer (LLVM's OMPT tool) tells TSan about OpenMP's barriers and tasks,
# which libomp's own atomics hide from it.
export OMP_TOOL_LIBRARIES=$LLVM_LIB/libarcher.so
export KMP_BLOCKTIME=0

status=0
printf '%-26s %8s %s\n' test seconds result
# run NAME COMMAND...: runs one test program, prints its line.
run() {
  local name=$1 log="$TSAN_BUILD_DIR/tsan-$1.log" rc=0 t0 result
  shift
  t0=$(date +%s)
  "$@" >"$log" 2>&1 || rc=$?
  if grep -q "WARNING: ThreadSanitizer\|ERROR: ThreadSanitizer" "$log"; then
    status=1
    result="TSAN REPORT ($(grep -m1 -oE '(WARNING|ERROR): ThreadSanitizer: [^(]*' "$log" | sed 's/ *$//')); see $log"
  elif [ "$rc" -ne 0 ]; then
    status=1
    result="FAILED (exit code $rc); see $log"
  else
    result=ok
  fi
  printf '%-26s %8s %s\n' "$name" "$(($(date +%s) - t0))" "$result"
}

run cache "$TSAN_BUILD_DIR/unittests/Cache/IndexPoolCacheTests"
run cache-redis "$TSAN_BUILD_DIR/unittests/CacheRedis/IndexPoolCacheRedisTests"
if [ "$TSAN_PYTHON" != 0 ]; then
  # Not the test whose child process forks after the parent's threads
  # started and then starts threads itself: TSan does not support that
  # (it dies: "starting new threads after multi-threaded fork").
  run cache-store "$TSAN_BUILD_DIR/unittests/CacheRedis/IndexPoolCacheStoreTests" \
    --gtest_filter=-CacheStoreTest.ASequencePublishedByAnotherProcessIsAdopted
  # Debian's python3 is not instrumented: the TSan runtime must be loaded
  # first (CPython's GIL is a pthread mutex, which TSan sees).
  run python-threads env \
    LD_PRELOAD="$LLVM_LIB/clang/22/lib/linux/libclang_rt.tsan-x86_64.so" \
    PYTHONPATH="$TSAN_BUILD_DIR/python" \
    /usr/bin/python3 -m pytest -q -p no:cacheprovider \
    "$ROOT/python/tests/test_threads.py"
fi
exit $status
