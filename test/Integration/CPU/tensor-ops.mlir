// The ordinary tensor ops around the indexpool ops in a real model:
// collapse_shape and a (strided) extract_slice feeding compress and select,
// expand_shape, extract_slice and insert_slice on their results, a
// tensor.empty filled by insert_slice. The evaluator computes them like the
// compiled CPU code (strided copies through the MLIR runtime's memrefCopy),
// checked against the float64 reference, with and without --check-bounds.
// RUN: indexpool-run %s --function=compress_view --random-inputs=4 --verify | FileCheck %s --check-prefix=TWO
// RUN: indexpool-run %s --function=compress_view --random-inputs=5 --verify --check-bounds | FileCheck %s --check-prefix=TWO
// RUN: indexpool-run %s --function=select_view --random-inputs=6 --verify | FileCheck %s --check-prefix=ONE
// RUN: not indexpool-run %s --function=slice_outside --random-inputs=1 --input-shape=0:8x4 --verify 2>&1 | FileCheck %s --check-prefix=OUTSIDE

// TWO-COUNT-2: -> ok
// TWO-NOT: FAILED
// ONE: result #0 {{.*}} -> ok
// OUTSIDE: indexpool-run: error: tensor.extract_slice at {{.*}}tensor-ops.mlir:{{[0-9]+}}:{{[0-9]+}}: dimension 0: the slice [4, +4 x 2) leaves the size 8

func.func @compress_view(%x: tensor<2x1024x128xbf16>, %s: tensor<2048xf32>)
    -> (tensor<2x64x128xf8E4M3FN>, tensor<256x128xf8E4M3FN>) {
  %flat = tensor.collapse_shape %x [[0, 1], [2]] : tensor<2x1024x128xbf16> into tensor<2048x128xbf16>
  %keys = tensor.extract_slice %flat[512, 0] [1024, 128] [1, 1] : tensor<2048x128xbf16> to tensor<1024x128xbf16>
  %sc = tensor.extract_slice %s[512] [1024] [1] : tensor<2048xf32> to tensor<1024xf32>
  %codes, %scales, %w = indexpool.compress %keys, %sc {pool_size = 4 : i64, rotate}
      : (tensor<1024x128xbf16>, tensor<1024xf32>) -> (tensor<256x128xf8E4M3FN>, tensor<256xf32>, tensor<256x4xf32>)
  // Every second pooled row, as [2, 64, 128]; row block 1 copied over 0.
  %half = tensor.extract_slice %codes[0, 0] [128, 128] [2, 1] : tensor<256x128xf8E4M3FN> to tensor<128x128xf8E4M3FN>
  %e = tensor.expand_shape %half [[0, 1], [2]] output_shape [2, 64, 128] : tensor<128x128xf8E4M3FN> into tensor<2x64x128xf8E4M3FN>
  %row = tensor.extract_slice %e[1, 0, 0] [1, 64, 128] [1, 1, 1] : tensor<2x64x128xf8E4M3FN> to tensor<64x128xf8E4M3FN>
  %ins = tensor.insert_slice %row into %e[0, 0, 0] [1, 64, 128] [1, 1, 1] : tensor<64x128xf8E4M3FN> into tensor<2x64x128xf8E4M3FN>
  return %ins, %codes : tensor<2x64x128xf8E4M3FN>, tensor<256x128xf8E4M3FN>
}

func.func @select_view(%q: tensor<4x8x128xbf16>, %w: tensor<4x8xf32>, %cache: tensor<2x512x128xf8E4M3FN>, %s: tensor<1024xf32>)
    -> tensor<2x256xi32> {
  // Two of the four query rows (a strided slice), one layer of the cache.
  %q2 = tensor.extract_slice %q[1, 0, 0] [2, 8, 128] [2, 1, 1] : tensor<4x8x128xbf16> to tensor<2x8x128xbf16>
  %w2 = tensor.extract_slice %w[1, 0] [2, 8] [2, 1] : tensor<4x8xf32> to tensor<2x8xf32>
  %keys = tensor.extract_slice %cache[1, 0, 0] [1, 512, 128] [1, 1, 1] : tensor<2x512x128xf8E4M3FN> to tensor<512x128xf8E4M3FN>
  %sc = tensor.extract_slice %s[512] [512] [1] : tensor<1024xf32> to tensor<512xf32>
  %t = indexpool.select %q2, %w2, %keys scales(%sc) {k = 64 : i64, pool_size = 4 : i64}
      : (tensor<2x8x128xbf16>, tensor<2x8xf32>, tensor<512x128xf8E4M3FN>, tensor<512xf32>) -> tensor<2x256xi32>
  return %t : tensor<2x256xi32>
}

// A slice that a dynamic size hides from the verifier: one error line.
func.func @slice_outside(%x: tensor<?x4xf32>) -> tensor<4x4xf32> {
  %s = tensor.extract_slice %x[4, 0] [4, 4] [2, 1] : tensor<?x4xf32> to tensor<4x4xf32>
  return %s : tensor<4x4xf32>
}
