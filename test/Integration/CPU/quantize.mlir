// quantize / dequantize on the CPU against the float64 reference: f8E4M3FN
// and i8, with and without pow2_scale, min_absmax, static and dynamic.
// RUN: indexpool-run %s --function=f8_pow2 --random-inputs=1 --verify | FileCheck %s --check-prefix=F8
// RUN: indexpool-run %s --function=i8_f32 --random-inputs=2 --verify | FileCheck %s --check-prefix=I8
// RUN: indexpool-run %s --function=dynamic_f16 --random-inputs=3 --input-shape=0:129x100 --verify | FileCheck %s --check-prefix=DYN
// RUN: indexpool-run %s --function=dequant_f8 --random-inputs=4 --verify | FileCheck %s --check-prefix=DQF8
// RUN: indexpool-run %s --function=dequant_i8_dynamic --random-inputs=5 --input-shape=0:33x40 --input-shape=1:33 --verify | FileCheck %s --check-prefix=DQI8

// F8: result #0 (tensor<256x128xf8E4M3FN>): {{.*}} off_by_one={{.*}} -> ok
// F8-NEXT: result #1 (tensor<256xf32>): {{.*}} -> ok
func.func @f8_pow2(%x: tensor<256x128xbf16>) -> (tensor<256x128xf8E4M3FN>, tensor<256xf32>) {
  %q, %s = indexpool.quantize %x {pow2_scale} : (tensor<256x128xbf16>) -> (tensor<256x128xf8E4M3FN>, tensor<256xf32>)
  return %q, %s : tensor<256x128xf8E4M3FN>, tensor<256xf32>
}

// I8: result #0 (tensor<200x64xi8>): {{.*}} -> ok
// I8-NEXT: result #1 (tensor<200xf32>): {{.*}} -> ok
func.func @i8_f32(%x: tensor<200x64xf32>) -> (tensor<200x64xi8>, tensor<200xf32>) {
  %q, %s = indexpool.quantize %x : (tensor<200x64xf32>) -> (tensor<200x64xi8>, tensor<200xf32>)
  return %q, %s : tensor<200x64xi8>, tensor<200xf32>
}

// min_absmax = 8 exceeds every |x| of N(0,1) inputs most of the time.
// DYN: result #0 (tensor<129x100xf8E4M3FN>): {{.*}} -> ok
// DYN-NEXT: result #1 (tensor<129xf32>): {{.*}} -> ok
func.func @dynamic_f16(%x: tensor<?x?xf16>) -> (tensor<?x?xf8E4M3FN>, tensor<?xf32>) {
  %q, %s = indexpool.quantize %x {min_absmax = 8.0 : f32} : (tensor<?x?xf16>) -> (tensor<?x?xf8E4M3FN>, tensor<?xf32>)
  return %q, %s : tensor<?x?xf8E4M3FN>, tensor<?xf32>
}

// DQF8: result #0 (tensor<64x128xf32>): {{.*}} -> ok
func.func @dequant_f8(%q: tensor<64x128xf8E4M3FN>, %s: tensor<64xf32>) -> tensor<64x128xf32> {
  %x = indexpool.dequantize %q, %s : (tensor<64x128xf8E4M3FN>, tensor<64xf32>) -> tensor<64x128xf32>
  return %x : tensor<64x128xf32>
}

// DQI8: result #0 (tensor<33x40xbf16>): {{.*}} -> ok
func.func @dequant_i8_dynamic(%q: tensor<?x?xi8>, %s: tensor<?xf32>) -> tensor<?x?xbf16> {
  %x = indexpool.dequantize %q, %s : (tensor<?x?xi8>, tensor<?xf32>) -> tensor<?x?xbf16>
  return %x : tensor<?x?xbf16>
}
