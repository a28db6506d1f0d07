// residual / reconstruct on the CPU against the float64 reference.
// RUN: indexpool-run %s --function=residual_tail --random-inputs=1 --verify | FileCheck %s --check-prefix=RES
// RUN: indexpool-run %s --function=reconstruct_both --random-inputs=2 --verify | FileCheck %s --check-prefix=REC
// RUN: indexpool-run %s --function=dynamic --random-inputs=3 --input-shape=0:20x24 --input-shape=1:160x24 --verify | FileCheck %s --check-prefix=DYN

// RES: result #0 (tensor<1024x128xf32>): {{.*}} -> ok
func.func @residual_tail(%keys: tensor<1026x128xbf16>, %pooled: tensor<256x128xbf16>) -> tensor<1024x128xf32> {
  %r = indexpool.residual %keys, %pooled {pool_size = 4 : i64}
      : (tensor<1026x128xbf16>, tensor<256x128xbf16>) -> tensor<1024x128xf32>
  return %r : tensor<1024x128xf32>
}

// REC: result #0 (tensor<512x64xf32>): {{.*}} -> ok
// REC-NEXT: result #1 (tensor<512x64xbf16>): {{.*}} -> ok
func.func @reconstruct_both(%pooled: tensor<128x64xf32>, %r: tensor<512x64xf32>)
    -> (tensor<512x64xf32>, tensor<512x64xbf16>) {
  %k0 = indexpool.reconstruct %pooled {pool_size = 4 : i64} : (tensor<128x64xf32>) -> tensor<512x64xf32>
  %k1 = indexpool.reconstruct %pooled residual(%r) {pool_size = 4 : i64}
      : (tensor<128x64xf32>, tensor<512x64xf32>) -> tensor<512x64xbf16>
  return %k0, %k1 : tensor<512x64xf32>, tensor<512x64xbf16>
}

// DYN: result #0 (tensor<160x24xf16>): {{.*}} -> ok
func.func @dynamic(%pooled: tensor<?x?xf16>, %r: tensor<?x?xf16>) -> tensor<?x?xf16> {
  %k = indexpool.reconstruct %pooled residual(%r) {pool_size = 8 : i64}
      : (tensor<?x?xf16>, tensor<?x?xf16>) -> tensor<?x?xf16>
  return %k : tensor<?x?xf16>
}
