// indexpool.hadamard on the CPU against the float64 reference: rows rotated
// in registers (static D <= 256) and with scalar butterflies (dynamic or
// larger D), any rank, f32 / f16 / bf16.
// RUN: indexpool-run %s --function=bf16_rows --random-inputs=1 --verify | FileCheck %s --check-prefix=BF16
// RUN: indexpool-run %s --function=dynamic_f16 --random-inputs=2 --input-shape=0:77x64 --verify | FileCheck %s --check-prefix=DYN
// RUN: indexpool-run %s --function=rank3 --random-inputs=3 --verify | FileCheck %s --check-prefix=RANK3
// RUN: indexpool-run %s --function=wide --random-inputs=4 --verify | FileCheck %s --check-prefix=WIDE
// RUN: indexpool-run %s --function=vector1d --random-inputs=5 --verify | FileCheck %s --check-prefix=VEC
// RUN: indexpool-run %s --function=dynamic_rows --random-inputs=6 --input-shape=0:7x1x64x128 --verify | FileCheck %s --check-prefix=ROWS

// BF16: result #0 (tensor<300x128xbf16>): {{.*}} -> ok
func.func @bf16_rows(%x: tensor<300x128xbf16>) -> tensor<300x128xbf16> {
  %y = indexpool.hadamard %x : (tensor<300x128xbf16>) -> tensor<300x128xbf16>
  return %y : tensor<300x128xbf16>
}

// DYN: result #0 (tensor<77x64xf32>): {{.*}} normwise_rel_err={{.*}} -> ok
func.func @dynamic_f16(%x: tensor<?x?xf16>) -> tensor<?x?xf32> {
  %y = indexpool.hadamard %x : (tensor<?x?xf16>) -> tensor<?x?xf32>
  return %y : tensor<?x?xf32>
}

// RANK3: result #0 (tensor<2x3x256xf32>): {{.*}} -> ok
func.func @rank3(%x: tensor<2x3x256xf32>) -> tensor<2x3x256xf32> {
  %y = indexpool.hadamard %x : (tensor<2x3x256xf32>) -> tensor<2x3x256xf32>
  return %y : tensor<2x3x256xf32>
}

// WIDE: result #0 (tensor<10x1024xbf16>): {{.*}} -> ok
func.func @wide(%x: tensor<10x1024xbf16>) -> tensor<10x1024xbf16> {
  %y = indexpool.hadamard %x : (tensor<10x1024xbf16>) -> tensor<10x1024xbf16>
  return %y : tensor<10x1024xbf16>
}

// VEC: result #0 (tensor<32xf32>): {{.*}} -> ok
func.func @vector1d(%x: tensor<32xf32>) -> tensor<32xf32> {
  %y = indexpool.hadamard %x : (tensor<32xf32>) -> tensor<32xf32>
  return %y : tensor<32xf32>
}

// A decode step's query, rows dynamic and D static (the GPU's row kernel).
// ROWS: result #0 (tensor<7x1x64x128xf32>): {{.*}} -> ok
func.func @dynamic_rows(%x: tensor<?x1x64x128xf32>) -> tensor<?x1x64x128xf32> {
  %y = indexpool.hadamard %x : (tensor<?x1x64x128xf32>) -> tensor<?x1x64x128xf32>
  return %y : tensor<?x1x64x128xf32>
}
