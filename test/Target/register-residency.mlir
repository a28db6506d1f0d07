// Kernels that say what ptxas must fit (issue 38: no spill on any chip).
// The tensor-core score keeps its head tiles a loop (.pragma "nounroll":
// unrolled, ptxas hoisted the next tiles' query loads and spilled at 128
// heads on sm_120). compress counts its registers: on sm_120, 384 threads
// of 80 registers, two blocks per SM, which ptxas is told
// (.minnctapersm 2; left to itself it spilled 4 bytes); at 512 threads
// (sm_90) one block fits, which is not told.
// RUN: rm -rf %t && indexpool-compile %s --chip=sm_120 --emit=ptx -o %t
// RUN: FileCheck %s --check-prefix=SCORE < %t/score_heads.sm_120.ptx
// RUN: python3 %S/../ptxas_report.py --arch=sm_120 --no-spills --no-stack %t/score_heads.sm_120.ptx
// RUN: FileCheck %s --check-prefix=COMPRESS-TWO < %t/compress_rows.sm_120.ptx
// RUN: python3 %S/../ptxas_report.py --arch=sm_120 --no-spills --no-stack %t/compress_rows.sm_120.ptx
// RUN: indexpool-compile %s --chip=sm_90 --function=compress_rows --emit=ptx -o %t
// RUN: FileCheck %s --check-prefix=COMPRESS-ONE < %t/compress_rows.sm_90.ptx
// RUN: python3 %S/../ptxas_report.py --arch=sm_90 --no-spills --no-stack %t/compress_rows.sm_90.ptx

// SCORE: .entry score_heads_kernel(
// SCORE: mma.sync
// SCORE: .pragma "nounroll";
func.func @score_heads(%q: tensor<2x128x64xbf16>, %w: tensor<2x128xf32>,
                       %k: tensor<700x64xf8E4M3FN>, %s: tensor<700xf32>) -> tensor<2x700xf32> {
  %l = indexpool.score %q, %w, %k scales(%s)
      : (tensor<2x128x64xbf16>, tensor<2x128xf32>, tensor<700x64xf8E4M3FN>, tensor<700xf32>) -> tensor<2x700xf32>
  return %l : tensor<2x700xf32>
}

// COMPRESS-TWO: .entry compress_rows_kernel(
// COMPRESS-TWO: .maxntid 384, 1, 1
// COMPRESS-TWO-NEXT: .minnctapersm 2
// COMPRESS-ONE: .entry compress_rows_kernel(
// COMPRESS-ONE: .maxntid 512, 1, 1
// COMPRESS-ONE-NOT: .minnctapersm
func.func @compress_rows(%keys: tensor<1048576x128xbf16>, %scores: tensor<1048576x128xf32>, %bias: tensor<4x128xf32>)
    -> (tensor<262144x128xf8E4M3FN>, tensor<262144xf32>, tensor<262144x4x128xf32>) {
  %q, %s, %w = indexpool.compress %keys, %scores bias(%bias) {pool_size = 4 : i64, rotate, pow2_scale}
      : (tensor<1048576x128xbf16>, tensor<1048576x128xf32>, tensor<4x128xf32>)
        -> (tensor<262144x128xf8E4M3FN>, tensor<262144xf32>, tensor<262144x4x128xf32>)
  return %q, %s, %w : tensor<262144x128xf8E4M3FN>, tensor<262144xf32>, tensor<262144x4x128xf32>
}
