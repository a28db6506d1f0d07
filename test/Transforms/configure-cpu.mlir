// RUN: indexpool-opt %s -split-input-file \
// RUN:   --indexpool-configure-cpu=tuning-db=%S/Inputs/tuning-db-cpu.json | FileCheck %s
// The CPU entries set the vector width of the loops; without them every op
// gets --indexpool-to-loops' default of 8 lanes:
// RUN: indexpool-opt %s -split-input-file \
// RUN:   --indexpool-configure-cpu=tuning-db=%S/Inputs/tuning-db-cpu.json --indexpool-to-loops \
// RUN:   | FileCheck %s --check-prefix=LOOPS
// RUN: indexpool-opt %s -split-input-file --indexpool-to-loops \
// RUN:   | FileCheck %s --check-prefix=DEFAULT
// So does the indexpool-to-cpu pipeline's tuning-db option:
// RUN: indexpool-opt %s -split-input-file \
// RUN:   --indexpool-to-cpu="tuning-db=%S/Inputs/tuning-db-cpu.json" | FileCheck %s --check-prefix=PIPELINE
// The GPU pass takes the GPU entries of the same file and ignores the CPU ones:
// RUN: indexpool-opt %s -split-input-file \
// RUN:   --indexpool-configure="chip=sm_90 tuning-db=%S/Inputs/tuning-db-cpu.json" | FileCheck %s --check-prefix=GPU
// The tuned compress runs and matches the float64 reference, through
// indexpool-run --tuning-db and through the attribute in the IR:
// RUN: indexpool-run %s --function=tuned --random-inputs=1 --verify \
// RUN:   --tuning-db=%S/Inputs/tuning-db-cpu.json | FileCheck %s --check-prefix=JIT
// RUN: indexpool-opt %s --indexpool-configure-cpu=tuning-db=%S/Inputs/tuning-db-cpu.json \
// RUN:   | indexpool-run - --function=tuned --random-inputs=1 --verify | FileCheck %s --check-prefix=JIT

// Bad databases: one error naming the file and the entry.
// RUN: not indexpool-opt %s --indexpool-configure-cpu 2>&1 | FileCheck %s --check-prefix=NODB
// NODB: error: --indexpool-configure-cpu needs tuning-db=FILE
// RUN: not indexpool-opt %s --indexpool-configure-cpu=tuning-db=%S/Inputs/tuning-db-cpu-gpu-field.json 2>&1 \
// RUN:   | FileCheck %s --check-prefix=GPUFIELD
// GPUFIELD: error: tuning-db '{{.*}}tuning-db-cpu-gpu-field.json' entry 2: launch field "threads_per_block" is a GPU field; a CPU entry's launch takes only vector_width
// GPUFIELD-NOT: error
// RUN: not indexpool-opt %s --indexpool-configure-cpu=tuning-db=%S/Inputs/tuning-db-cpu-bad-width.json 2>&1 \
// RUN:   | FileCheck %s --check-prefix=WIDTH
// WIDTH: error: tuning-db '{{.*}}tuning-db-cpu-bad-width.json' entry 1: launch field "vector_width" must be a power of two from 1 to 64, got 3
// WIDTH-NOT: error
// RUN: not indexpool-opt %s --indexpool-configure-cpu=tuning-db=%S/Inputs/tuning-db-cpu-no-width.json 2>&1 \
// RUN:   | FileCheck %s --check-prefix=NOWIDTH
// NOWIDTH: error: tuning-db '{{.*}}tuning-db-cpu-no-width.json' entry 1: a CPU entry's launch needs "vector_width"
// RUN: not indexpool-run %s --function=tuned --random-inputs=1 \
// RUN:   --tuning-db=%S/Inputs/tuning-db-cpu-bad-width.json 2>&1 | FileCheck %s --check-prefix=RUNWIDTH
// RUNWIDTH: error: tuning-db '{{.*}}tuning-db-cpu-bad-width.json' entry 1: launch field "vector_width" must be a power of two from 1 to 64, got 3
// RUNWIDTH: indexpool-run: error:
// RUN: not indexpool-run %s --function=tuned --random-inputs=1 --device=gpu-emulator \
// RUN:   --tuning-db=%S/Inputs/tuning-db-cpu.json 2>&1 | FileCheck %s --check-prefix=RUNDEVICE
// RUNDEVICE: indexpool-run: error: --tuning-db only applies with --device=cpu
// Both passes check the whole file:
// RUN: not indexpool-opt %s --indexpool-configure-cpu=tuning-db=%S/Inputs/tuning-db-cpu-width-in-gpu.json 2>&1 \
// RUN:   | FileCheck %s --check-prefix=INGPU
// RUN: not indexpool-opt %s --indexpool-configure="chip=sm_90 tuning-db=%S/Inputs/tuning-db-cpu-width-in-gpu.json" 2>&1 \
// RUN:   | FileCheck %s --check-prefix=INGPU
// INGPU: error: tuning-db '{{.*}}tuning-db-cpu-width-in-gpu.json' entry 2: launch field "vector_width" is for CPU entries ("chip": "cpu"); a GPU entry's launch takes threads_per_block, items_per_block, elements_per_thread, vector_bytes, grid
// INGPU-NOT: error

// --indexpool-to-loops checks a width it is given (the IR after BADIR:):
// RUN: sed -n 's|^// BADIR: ||p' %s | not indexpool-opt --indexpool-to-loops 2>&1 \
// RUN:   | FileCheck %s --check-prefix=BADATTR
// BADATTR: error: 'indexpool.compress' op 'indexpool.vector_width' must be an i64 power of two from 1 to 64, got 3 : i64
// BADATTR-NOT: error
// BADIR: func.func @bad_width(%keys: tensor<512x128xbf16>, %scores: tensor<512xf32>) -> tensor<128x128xf8E4M3FN> {
// BADIR:   %q, %s, %w = indexpool.compress %keys, %scores {pool_size = 4 : i64, indexpool.vector_width = 3 : i64}
// BADIR:       : (tensor<512x128xbf16>, tensor<512xf32>) -> (tensor<128x128xf8E4M3FN>, tensor<128xf32>, tensor<128x4xf32>)
// BADIR:   return %q : tensor<128x128xf8E4M3FN>
// BADIR: }

// T = 1024 >= 1024 and D = 128: the first CPU entry (16 lanes).
// CHECK-LABEL: func.func @tuned
// CHECK: indexpool.compress {{.*}}indexpool.vector_width = 16 : i64
// LOOPS-LABEL: func.func @tuned
// LOOPS-NOT: vector<8x
// LOOPS: vector<16xbf16>
// LOOPS-NOT: vector<8x
// LOOPS: return
// DEFAULT-LABEL: func.func @tuned
// DEFAULT-NOT: vector<16x
// DEFAULT: vector<8xbf16>
// DEFAULT-NOT: vector<16x
// DEFAULT: return
// PIPELINE-LABEL: llvm.func @tuned
// PIPELINE-NOT: vector<8x
// PIPELINE: vector<16xf32>
// PIPELINE-NOT: vector<8x
// PIPELINE: llvm.return
// The GPU entry's launch, and no vector width (attributes print sorted):
// GPU-LABEL: func.func @tuned
// GPU: indexpool.compress {{.*}} {indexpool.launch = #indexpool.launch<chip = "sm_90", threads_per_block = 128, {{[^>]*}}>, pool_size = 4 : i64, rotate}
// JIT-COUNT-3: -> ok
func.func @tuned(%keys: tensor<1024x128xbf16>, %scores: tensor<1024xf32>)
    -> (tensor<256x128xf8E4M3FN>, tensor<256xf32>, tensor<256x4xf32>) {
  %q, %s, %w = indexpool.compress %keys, %scores {pool_size = 4 : i64, rotate}
      : (tensor<1024x128xbf16>, tensor<1024xf32>) -> (tensor<256x128xf8E4M3FN>, tensor<256xf32>, tensor<256x4xf32>)
  return %q, %s, %w : tensor<256x128xf8E4M3FN>, tensor<256xf32>, tensor<256x4xf32>
}

// -----

// T = 512 is outside the shape class, and a dynamic T never in one: both
// are left alone, and their loops take the pass option.
// CHECK-LABEL: func.func @untouched
// CHECK-NOT: indexpool.vector_width
// CHECK: return
// LOOPS-LABEL: func.func @untouched
// LOOPS-NOT: vector<16x
// LOOPS: vector<8xbf16>
// LOOPS-NOT: vector<16x
// LOOPS: return
func.func @untouched(%keys: tensor<512x128xbf16>, %scores: tensor<512xf32>,
                     %dkeys: tensor<?x128xbf16>, %dscores: tensor<?xf32>)
    -> (tensor<128x128xf8E4M3FN>, tensor<?x128xf8E4M3FN>) {
  %q, %s, %w = indexpool.compress %keys, %scores {pool_size = 4 : i64}
      : (tensor<512x128xbf16>, tensor<512xf32>) -> (tensor<128x128xf8E4M3FN>, tensor<128xf32>, tensor<128x4xf32>)
  %dq, %ds, %dw = indexpool.compress %dkeys, %dscores {pool_size = 4 : i64}
      : (tensor<?x128xbf16>, tensor<?xf32>) -> (tensor<?x128xf8E4M3FN>, tensor<?xf32>, tensor<?x4xf32>)
  return %q, %dq : tensor<128x128xf8E4M3FN>, tensor<?x128xf8E4M3FN>
}

// -----

// The first matching entry wins (D = 64: 4 lanes, not the catch-all 32); a
// width already there is replaced where an entry matches and kept where
// none does.
// CHECK-LABEL: func.func @first_match
// CHECK: indexpool.hadamard {{.*}}indexpool.vector_width = 4 : i64
// CHECK: indexpool.hadamard {{.*}}indexpool.vector_width = 32 : i64
// CHECK: indexpool.compress {{.*}}indexpool.vector_width = 16 : i64
// CHECK: indexpool.compress {{.*}}indexpool.vector_width = 2 : i64
// LOOPS-LABEL: func.func @first_match
// LOOPS: vector<4xf32>
// LOOPS: vector<32xf32>
func.func @first_match(%x: tensor<32x64xf32>, %y: tensor<32x128xf32>,
                       %keys: tensor<1024x128xbf16>, %scores: tensor<1024xf32>,
                       %small: tensor<512x128xbf16>, %sscores: tensor<512xf32>)
    -> (tensor<32x64xf32>, tensor<32x128xf32>, tensor<256x128xf8E4M3FN>, tensor<128x128xf8E4M3FN>) {
  %a = indexpool.hadamard %x : (tensor<32x64xf32>) -> tensor<32x64xf32>
  %b = indexpool.hadamard %y {indexpool.vector_width = 8 : i64} : (tensor<32x128xf32>) -> tensor<32x128xf32>
  %q, %s, %w = indexpool.compress %keys, %scores {pool_size = 4 : i64, indexpool.vector_width = 2 : i64}
      : (tensor<1024x128xbf16>, tensor<1024xf32>) -> (tensor<256x128xf8E4M3FN>, tensor<256xf32>, tensor<256x4xf32>)
  %sq, %ss, %sw = indexpool.compress %small, %sscores {pool_size = 4 : i64, indexpool.vector_width = 2 : i64}
      : (tensor<512x128xbf16>, tensor<512xf32>) -> (tensor<128x128xf8E4M3FN>, tensor<128xf32>, tensor<128x4xf32>)
  return %a, %b, %q, %sq : tensor<32x64xf32>, tensor<32x128xf32>, tensor<256x128xf8E4M3FN>, tensor<128x128xf8E4M3FN>
}
