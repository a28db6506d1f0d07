// On a machine with a CUDA driver and GPU: the hand-written PTX expand kernel
// (Inputs/launch/expand.ptx, JIT-compiled by the driver for any chip from
// sm_80 on) runs from its manifest, matches the reference and is timed.
// REQUIRES: cuda
//
// RUN: indexpool-launch %S/Inputs/launch/expand.json --random-inputs=1 --verify --benchmark=20 --copy-anchor --print-device | FileCheck %s
// CHECK: device: {{.*}} (sm_{{[0-9]+}}, {{[0-9]+}} SMs
// CHECK-NEXT: result #0 (tensor<4x256xi32>): max_abs_err=0 max_rel_err=0 differing=0/1024 (0%) near_tie_swaps=0 -> ok
// CHECK-NEXT: median_ms={{[0-9]+\.[0-9]+}} effective_GBps={{[0-9]+\.[0-9]+}}
// CHECK-NEXT: copy_median_ms={{[0-9]+\.[0-9]+}} copy_GBps={{[0-9]+\.[0-9]+}} ratio_to_copy={{[0-9]+\.[0-9]+}}
