// Every input a fuzz target once crashed on (test/Fuzz/Inputs/<target>/) runs
// clean through that target. Needs the fuzz build (scripts/fuzz.sh), which
// also replays them before fuzzing.
// REQUIRES: fuzz
// RUN: env LSAN_OPTIONS=suppressions=%S/../lsan.supp %fuzz_bin/fuzz-npy-reader -runs=1 %S/Inputs/npy_reader/* 2>&1 | FileCheck %s
// RUN: env LSAN_OPTIONS=suppressions=%S/../lsan.supp %fuzz_bin/fuzz-manifest-reader -runs=1 %S/Inputs/manifest_reader/* 2>&1 | FileCheck %s
// CHECK: Executed {{.*}} in {{[0-9]+}} ms
// CHECK-NOT: ERROR
// RUN: env LSAN_OPTIONS=suppressions=%S/../lsan.supp KMP_BLOCKTIME=0 %fuzz_bin/fuzz-differential -runs=1 %S/Inputs/differential/* 2>&1 | FileCheck %s
