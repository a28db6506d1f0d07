// compress and select give bit for bit what the chains they fuse give, on the
// CPU, for the same random inputs; and --indexpool-fuse turns each chain into
// the fused op.
// The chains run as written (--fuse=false); by default indexpool-run fuses.
// RUN: indexpool-run %s --function=compress_chain --fuse=false --random-inputs=11 --output=@%t.cc.q.npy --output=@%t.cc.s.npy --output=@%t.cc.w.npy
// RUN: indexpool-run %s --function=compress_fused --random-inputs=11 --output=@%t.cf.q.npy --output=@%t.cf.s.npy --output=@%t.cf.w.npy
// RUN: cmp %t.cc.q.npy %t.cf.q.npy
// RUN: cmp %t.cc.s.npy %t.cf.s.npy
// RUN: cmp %t.cc.w.npy %t.cf.w.npy
// RUN: indexpool-run %s --function=select_chain --fuse=false --random-inputs=12 --output=@%t.sc.npy
// RUN: indexpool-run %s --function=select_fused --random-inputs=12 --output=@%t.sf.npy
// RUN: cmp %t.sc.npy %t.sf.npy
// RUN: indexpool-opt %s --indexpool-fuse | FileCheck %s --check-prefix=FUSE
// RUN: indexpool-opt %s --indexpool-fuse -o %t.fused.mlir
// RUN: indexpool-run %t.fused.mlir --function=compress_chain --random-inputs=11 --output=@%t.fc.q.npy --output=@%t.fc.s.npy --output=@%t.fc.w.npy
// RUN: cmp %t.cc.q.npy %t.fc.q.npy
// RUN: cmp %t.cc.w.npy %t.fc.w.npy
// The default run compiles the fused op (and still equals the chain).
// RUN: indexpool-run %s --function=compress_chain --random-inputs=11 --output=@%t.cd.q.npy --output=@%t.cd.s.npy --output=@%t.cd.w.npy --mlir-print-ir-after=indexpool-fuse 2>&1 | FileCheck %s --check-prefix=DEFAULT
// RUN: cmp %t.cc.q.npy %t.cd.q.npy
// RUN: cmp %t.cc.s.npy %t.cd.s.npy
// RUN: indexpool-run %s --function=compress_chain --fuse=false --random-inputs=11 --mlir-print-ir-after=indexpool-fuse 2>&1 | FileCheck %s --check-prefix=NOFUSE

// DEFAULT: IR Dump After IndexPoolFuse
// DEFAULT-NOT: indexpool.pool
// DEFAULT: indexpool.compress
// NOFUSE-NOT: IR Dump After IndexPoolFuse
// NOFUSE: result #0
// FUSE-LABEL: func.func @compress_chain
// FUSE: indexpool.compress {{.*}} {pool_size = 4 : i64, pow2_scale, rotate}
// FUSE-LABEL: func.func @select_chain
// FUSE: indexpool.select {{.*}} {k = 256 : i64, pool_size = 4 : i64}

func.func @compress_chain(%keys: tensor<4098x128xbf16>, %scores: tensor<4098x128xf32>, %b: tensor<4x128xf32>)
    -> (tensor<1024x128xf8E4M3FN>, tensor<1024xf32>, tensor<1024x4x128xf32>) {
  %p, %w = indexpool.pool %keys, %scores bias(%b) {pool_size = 4 : i64}
      : (tensor<4098x128xbf16>, tensor<4098x128xf32>, tensor<4x128xf32>)
        -> (tensor<1024x128xbf16>, tensor<1024x4x128xf32>)
  %r = indexpool.hadamard %p : (tensor<1024x128xbf16>) -> tensor<1024x128xbf16>
  %q, %s = indexpool.quantize %r {pow2_scale}
      : (tensor<1024x128xbf16>) -> (tensor<1024x128xf8E4M3FN>, tensor<1024xf32>)
  return %q, %s, %w : tensor<1024x128xf8E4M3FN>, tensor<1024xf32>, tensor<1024x4x128xf32>
}

func.func @compress_fused(%keys: tensor<4098x128xbf16>, %scores: tensor<4098x128xf32>, %b: tensor<4x128xf32>)
    -> (tensor<1024x128xf8E4M3FN>, tensor<1024xf32>, tensor<1024x4x128xf32>) {
  %q, %s, %w = indexpool.compress %keys, %scores bias(%b) {pool_size = 4 : i64, rotate, pow2_scale}
      : (tensor<4098x128xbf16>, tensor<4098x128xf32>, tensor<4x128xf32>)
        -> (tensor<1024x128xf8E4M3FN>, tensor<1024xf32>, tensor<1024x4x128xf32>)
  return %q, %s, %w : tensor<1024x128xf8E4M3FN>, tensor<1024xf32>, tensor<1024x4x128xf32>
}

func.func @select_chain(%q: tensor<1x64x128xbf16>, %w: tensor<1x64xf32>, %k: tensor<2048x128xf8E4M3FN>,
                        %s: tensor<2048xf32>, %len: tensor<1xi32>) -> tensor<1x1024xi32> {
  %l = indexpool.score %q, %w, %k scales(%s)
      : (tensor<1x64x128xbf16>, tensor<1x64xf32>, tensor<2048x128xf8E4M3FN>, tensor<2048xf32>) -> tensor<1x2048xf32>
  %v, %i = indexpool.topk %l valid(%len) {k = 256 : i64}
      : (tensor<1x2048xf32>, tensor<1xi32>) -> (tensor<1x256xf32>, tensor<1x256xi32>)
  %t = indexpool.expand %i {pool_size = 4 : i64} : (tensor<1x256xi32>) -> tensor<1x1024xi32>
  return %t : tensor<1x1024xi32>
}

func.func @select_fused(%q: tensor<1x64x128xbf16>, %w: tensor<1x64xf32>, %k: tensor<2048x128xf8E4M3FN>,
                        %s: tensor<2048xf32>, %len: tensor<1xi32>) -> tensor<1x1024xi32> {
  %t = indexpool.select %q, %w, %k scales(%s) valid(%len) {k = 256 : i64, pool_size = 4 : i64}
      : (tensor<1x64x128xbf16>, tensor<1x64xf32>, tensor<2048x128xf8E4M3FN>, tensor<2048xf32>, tensor<1xi32>)
        -> tensor<1x1024xi32>
  return %t : tensor<1x1024xi32>
}
