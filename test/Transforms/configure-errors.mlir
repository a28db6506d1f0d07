// The chip is required and must be in the target table; a tuning database
// that cannot be used stops the pass with the file name and what is wrong.

// RUN: not indexpool-opt %s --indexpool-configure 2>&1 | FileCheck %s --check-prefix=NOCHIP
// NOCHIP: error: --indexpool-configure needs chip=NAME; known chips: sm_80, sm_86, sm_89, sm_90, sm_90a, sm_100, sm_120

// RUN: not indexpool-opt %s --indexpool-configure=chip=sm_91 2>&1 | FileCheck %s --check-prefix=BADCHIP
// BADCHIP: error: --indexpool-configure: unknown chip 'sm_91'; known chips: sm_80, sm_86, sm_89, sm_90, sm_90a, sm_100, sm_120

// RUN: not indexpool-opt %s --indexpool-configure="chip=sm_90 tuning-db=%S/Inputs/no-such-file.json" 2>&1 \
// RUN:   | FileCheck %s --check-prefix=MISSING
// MISSING: no-such-file.json:0:0: error: tuning-db '{{.*}}no-such-file.json': cannot read: No such file or directory

// RUN: not indexpool-opt %s --indexpool-configure="chip=sm_90 tuning-db=%S/Inputs/tuning-db-bad-json.json" 2>&1 \
// RUN:   | FileCheck %s --check-prefix=JSON
// JSON: error: tuning-db '{{.*}}tuning-db-bad-json.json': invalid JSON: [2:0, byte=71]: Expected , or } after object property

// RUN: not indexpool-opt %s --indexpool-configure="chip=sm_90 tuning-db=%S/Inputs/tuning-db-not-array.json" 2>&1 \
// RUN:   | FileCheck %s --check-prefix=ARRAY
// ARRAY: error: tuning-db '{{.*}}tuning-db-not-array.json': expected a JSON array of entries

// RUN: not indexpool-opt %s --indexpool-configure="chip=sm_90 tuning-db=%S/Inputs/tuning-db-bad-chip.json" 2>&1 \
// RUN:   | FileCheck %s --check-prefix=ENTRYCHIP
// ENTRYCHIP: error: tuning-db '{{.*}}tuning-db-bad-chip.json' entry 2: unknown chip 'sm_91'; known chips: cpu, sm_80, sm_86, sm_89, sm_90, sm_90a, sm_100, sm_120

// RUN: not indexpool-opt %s --indexpool-configure="chip=sm_90 tuning-db=%S/Inputs/tuning-db-bad-op.json" 2>&1 \
// RUN:   | FileCheck %s --check-prefix=OP
// OP: error: tuning-db '{{.*}}tuning-db-bad-op.json' entry 1: unknown op 'compres' (an indexpool op's mnemonic)

// RUN: not indexpool-opt %s --indexpool-configure="chip=sm_90 tuning-db=%S/Inputs/tuning-db-bad-shape.json" 2>&1 \
// RUN:   | FileCheck %s --check-prefix=SHAPE
// SHAPE: error: tuning-db '{{.*}}tuning-db-bad-shape.json' entry 1: bad shape_class "T>>65536": 'T>>65536' is not NAME OP INTEGER

// RUN: not indexpool-opt %s --indexpool-configure="chip=sm_90 tuning-db=%S/Inputs/tuning-db-bad-size.json" 2>&1 \
// RUN:   | FileCheck %s --check-prefix=SIZE
// SIZE: error: tuning-db '{{.*}}tuning-db-bad-size.json' entry 1: bad shape_class "L=3": unknown size 'L' (sizes: T, G, D, P, N, M, H, K)

// RUN: not indexpool-opt %s --indexpool-configure="chip=sm_90 tuning-db=%S/Inputs/tuning-db-bad-launch.json" 2>&1 \
// RUN:   | FileCheck %s --check-prefix=LAUNCH
// LAUNCH: error: tuning-db '{{.*}}tuning-db-bad-launch.json' entry 1: vector_bytes must be 4, 8 or 16, got 12

// RUN: not indexpool-opt %s --indexpool-configure="chip=sm_90 tuning-db=%S/Inputs/tuning-db-bad-field.json" 2>&1 \
// RUN:   | FileCheck %s --check-prefix=FIELD
// FIELD: error: tuning-db '{{.*}}tuning-db-bad-field.json' entry 1: unknown launch field "threads" (fields: threads_per_block, items_per_block, elements_per_thread, vector_bytes, grid)

// RUN: not indexpool-opt %s --indexpool-configure="chip=sm_90 tuning-db=%S/Inputs/tuning-db-bad-grid.json" 2>&1 \
// RUN:   | FileCheck %s --check-prefix=GRID
// GRID: error: tuning-db '{{.*}}tuning-db-bad-grid.json' entry 1: launch field "grid" must be "tiled" or "grid_stride"

// RUN: not indexpool-opt %s --indexpool-configure="chip=sm_90 tuning-db=%S/Inputs/tuning-db-bad-int.json" 2>&1 \
// RUN:   | FileCheck %s --check-prefix=INT
// INT: error: tuning-db '{{.*}}tuning-db-bad-int.json' entry 1: launch field "items_per_block" must be an integer

func.func @f(%x: tensor<256x128xbf16>) -> tensor<256x128xbf16> {
  %y = indexpool.hadamard %x : (tensor<256x128xbf16>) -> tensor<256x128xbf16>
  return %y : tensor<256x128xbf16>
}
