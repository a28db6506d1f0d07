// The GPU expand kernel on indices near the i32 limit, run by the GPU
// emulator against the float64 reference: an index whose tokens do not fit
// in i32 expands to -1 (the functions and their limits are in
// ../CPU/expand-overflow.mlir).
// RUN: indexpool-run %S/../CPU/expand-overflow.mlir --function=near_limit_p2 --random-inputs=1 --device=gpu-emulator --chip=sm_90 --verify | FileCheck %s
// RUN: indexpool-run %S/../CPU/expand-overflow.mlir --function=near_limit_p4 --random-inputs=2 --device=gpu-emulator --chip=sm_80 --verify | FileCheck %s
// RUN: indexpool-run %S/../CPU/expand-overflow.mlir --function=near_limit_p64 --random-inputs=3 --device=gpu-emulator --chip=sm_90 --verify | FileCheck %s

// CHECK: result #0 {{.*}} differing=0/{{[0-9]+}} {{.*}}-> ok
