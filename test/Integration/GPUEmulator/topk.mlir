// The topk kernels (prefix histogram by row segments, candidates at or above
// the threshold bin, exact radix select among them) in the GPU emulator,
// checked against the float64 reference: a single long row split over many
// blocks (decode, M = 1), ties that crowd the threshold bin with k beyond
// the 2048 winners kept in shared memory, a row of equal values (every
// column a candidate), valid lengths cutting segments, and a configured
// launch whose short segments (elements_per_thread = 1) put several blocks
// on every row.
// RUN: indexpool-run %s --function=decode_row --random-inputs=21 --device=gpu-emulator --chip=sm_90 --verify | FileCheck %s --check-prefix=TWO
// RUN: indexpool-run %s --function=decode_ties --random-inputs=22 --device=gpu-emulator --chip=sm_80 --verify | FileCheck %s --check-prefix=TWO
// RUN: indexpool-run %s --function=equal_row --random-inputs=23 --device=gpu-emulator --chip=sm_120 --verify | FileCheck %s --check-prefix=TWO
// RUN: indexpool-run %s --function=rows_valid --random-inputs=24 --device=gpu-emulator --chip=sm_90 --verify | FileCheck %s --check-prefix=TWO
// RUN: indexpool-run %s --function=configured --random-inputs=25 --device=gpu-emulator --chip=sm_90 --verify | FileCheck %s --check-prefix=TWO
//
// The structure at decode on an H200-sized part (132 SMs): M = 1 over
// 2^18 pools, as --indexpool-configure launches it, spreads the histogram
// and filter kernels over more blocks than SMs; the exact select runs one
// block.
// RUN: rm -rf %t && mkdir -p %t
// RUN: indexpool-opt %s --indexpool-configure=chip=sm_90 -o %t/configured.mlir
// RUN: indexpool-compile %t/configured.mlir --chip=sm_90 --function=decode_2e18 -o %t > /dev/null
// RUN: python3 %S/../../Tools/Inputs/eval_sizes.py %t/decode_2e18.sm_90.json 132 1x262144 | FileCheck %s --check-prefix=GRID
// A configured select's topk takes the topk launch, not the score's fields.
// RUN: indexpool-compile %t/configured.mlir --chip=sm_90 --function=select_2e18 -o %t > /dev/null
// RUN: python3 %S/../../Tools/Inputs/eval_sizes.py %t/select_2e18.sm_90.json 132 1x64x128 1x64 262144x128 262144 | FileCheck %s --check-prefix=SELECT

// TWO-COUNT-2: -> ok
// TWO-NOT: FAILED

// 4097 counters zeroed by blocks of 1024 threads, 2^18 / (1024 x 1)
// segments (a wave would be 132 x 2 = 264), one block for the selection.
// GRID: launch {{.*}} grid 5x1x1
// GRID-NEXT: launch {{.*}} grid 256x1x1
// GRID-NEXT: launch {{.*}} grid 256x1x1
// GRID-NEXT: launch {{.*}} grid 1x1x1

// The tensor-core score: blocks of 256 threads (at most), one wave of
// 132 SMs x 8 such blocks.
// SELECT: launch select_2e18_kernel grid 1056x1x1
// SELECT-NEXT: launch {{.*}} grid 5x1x1
// SELECT-NEXT: launch {{.*}} grid 256x1x1
// SELECT-NEXT: launch {{.*}} grid 256x1x1
// SELECT-NEXT: launch {{.*}} grid 1x1x1

func.func @decode_row(%l: tensor<1x20000xf32>) -> (tensor<1x512xf32>, tensor<1x512xi32>) {
  %v, %i = indexpool.topk %l {k = 512 : i64} : (tensor<1x20000xf32>) -> (tensor<1x512xf32>, tensor<1x512xi32>)
  return %v, %i : tensor<1x512xf32>, tensor<1x512xi32>
}

// Values clamped to [-0.25, 0.25]: about a quarter of the columns tie at
// 0.25, more than k, so the winners among them are the smallest columns.
func.func @decode_ties(%x: tensor<1x12000xf32>) -> (tensor<1x2500xf32>, tensor<1x2500xi32>) {
  %lo = arith.constant dense<-0.25> : tensor<1x12000xf32>
  %hi = arith.constant dense<0.25> : tensor<1x12000xf32>
  %a = arith.maximumf %x, %lo : tensor<1x12000xf32>
  %l = arith.minimumf %a, %hi : tensor<1x12000xf32>
  %v, %i = indexpool.topk %l {k = 2500 : i64} : (tensor<1x12000xf32>) -> (tensor<1x2500xf32>, tensor<1x2500xi32>)
  return %v, %i : tensor<1x2500xf32>, tensor<1x2500xi32>
}

// x * 0 is -0 or +0: one bin holds every column.
func.func @equal_row(%x: tensor<1x6000xf32>) -> (tensor<1x300xf32>, tensor<1x300xi32>) {
  %zero = arith.constant dense<0.0> : tensor<1x6000xf32>
  %l = arith.mulf %x, %zero : tensor<1x6000xf32>
  %v, %i = indexpool.topk %l {k = 300 : i64} : (tensor<1x6000xf32>) -> (tensor<1x300xf32>, tensor<1x300xi32>)
  return %v, %i : tensor<1x300xf32>, tensor<1x300xi32>
}

func.func @rows_valid(%l: tensor<3x5000xf32>, %len: tensor<3xi32>) -> (tensor<3x200xf32>, tensor<3x200xi32>) {
  %v, %i = indexpool.topk %l valid(%len) {k = 200 : i64}
      : (tensor<3x5000xf32>, tensor<3xi32>) -> (tensor<3x200xf32>, tensor<3x200xi32>)
  return %v, %i : tensor<3x200xf32>, tensor<3x200xi32>
}

func.func @configured(%l: tensor<2x3000xf32>) -> (tensor<2x64xf32>, tensor<2x64xi32>) {
  %v, %i = indexpool.topk %l {k = 64 : i64, indexpool.launch = #indexpool.launch<chip = "sm_90", threads_per_block = 64, items_per_block = 1, elements_per_thread = 1, vector_bytes = 4, grid = grid_stride>}
      : (tensor<2x3000xf32>) -> (tensor<2x64xf32>, tensor<2x64xi32>)
  return %v, %i : tensor<2x64xf32>, tensor<2x64xi32>
}

func.func @decode_2e18(%l: tensor<1x262144xf32>) -> (tensor<1x512xf32>, tensor<1x512xi32>) {
  %v, %i = indexpool.topk %l {k = 512 : i64} : (tensor<1x262144xf32>) -> (tensor<1x512xf32>, tensor<1x512xi32>)
  return %v, %i : tensor<1x512xf32>, tensor<1x512xi32>
}

func.func @select_2e18(%q: tensor<1x64x128xbf16>, %w: tensor<1x64xf32>, %keys: tensor<262144x128xf8E4M3FN>,
                       %scales: tensor<262144xf32>) -> tensor<1x2048xi32> {
  %t = indexpool.select %q, %w, %keys scales(%scales) {k = 512 : i64, pool_size = 4 : i64}
      : (tensor<1x64x128xbf16>, tensor<1x64xf32>, tensor<262144x128xf8E4M3FN>, tensor<262144xf32>) -> tensor<1x2048xi32>
  return %t : tensor<1x2048xi32>
}
