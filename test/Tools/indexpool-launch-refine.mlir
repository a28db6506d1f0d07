// indexpool.refine compiled for the GPU (a gather-score, a topk and a take
// kernel): indexpool-compile writes a manifest whose computes list the op,
// and indexpool-launch on the fake driver draws the inputs (candidates:
// token ids of [0, T), some -1), binds the sizes, runs every check before
// the device and stops at the kernel lookup (the fake driver has no refine
// kernels). A dynamic C is checked against k at launch.
//
// RUN: rm -rf %t && indexpool-compile %s --chip=sm_90 --emit=ptx -o %t --function=refine_fp8 | FileCheck %s --check-prefix=COMPILE
// COMPILE: wrote {{.*}}refine_fp8.sm_90.ptx and {{.*}}refine_fp8.sm_90.json
// RUN: FileCheck %s --check-prefix=MANIFEST < %t/refine_fp8.sm_90.json
// MANIFEST: "computes": [
// MANIFEST-NEXT: {
// MANIFEST-NEXT: "op": "refine",
// MANIFEST-NEXT: "operands": {
// MANIFEST-NEXT: "candidates": 2,
// MANIFEST-NEXT: "keys": 3,
// MANIFEST-NEXT: "query": 0,
// MANIFEST-NEXT: "scales": 4,
// MANIFEST-NEXT: "weights": 1
// MANIFEST-NEXT: },
// MANIFEST-NEXT: "properties": {
// MANIFEST-NEXT: "k": 32
// MANIFEST: "kernels": [
// MANIFEST: "name": "refine_fp8_kernel",
// MANIFEST: "name": "refine_fp8_kernel_0",
// MANIFEST: "name": "refine_fp8_kernel_1",
// RUN: not env INDEXPOOL_LIBCUDA_PATH=%indexpool_libs/libindexpool-fake-cuda%shlibext indexpool-launch %t/refine_fp8.sm_90.json --random-inputs=1 --verify 2>&1 | FileCheck %s --check-prefix=LOOKUP --implicit-check-not=error:
// LOOKUP: indexpool-launch: error: kernel 'refine_fp8_kernel' is not in the binary
//
// RUN: indexpool-compile %s --chip=sm_90 --emit=ptx -o %t --function=refine_any > /dev/null
// RUN: not env INDEXPOOL_LIBCUDA_PATH=%indexpool_libs/libindexpool-fake-cuda%shlibext indexpool-launch %t/refine_any.sm_90.json --random-inputs=1 --input-shape=2:2x300 --input-shape=3:1000x64 --verify 2>&1 | FileCheck %s --check-prefix=ANY --implicit-check-not=error:
// ANY: indexpool-launch: error: kernel 'refine_any_kernel' is not in the binary
// RUN: not env INDEXPOOL_LIBCUDA_PATH=%indexpool_libs/libindexpool-fake-cuda%shlibext indexpool-launch %t/refine_any.sm_90.json --random-inputs=1 --input-shape=2:2x16 --input-shape=3:1000x64 2>&1 | FileCheck %s --check-prefix=SHORT --implicit-check-not=error:
// SHORT: indexpool-launch: error: {{.*}}refine_any.sm_90.json:{{[0-9]+}}:5: computes[0] (refine): k must be at most C = 16 (the candidates of a row), got 32

func.func @refine_fp8(%q: tensor<2x16x64xbf16>, %w: tensor<2x16xf32>, %c: tensor<2x256xi32>,
                      %k: tensor<1000x64xf8E4M3FN>, %s: tensor<1000xf32>) -> tensor<2x32xi32> {
  %t = indexpool.refine %q, %w, %c, %k scales(%s) {k = 32 : i64}
      : (tensor<2x16x64xbf16>, tensor<2x16xf32>, tensor<2x256xi32>, tensor<1000x64xf8E4M3FN>,
         tensor<1000xf32>) -> tensor<2x32xi32>
  return %t : tensor<2x32xi32>
}

// C and T known at launch only.
func.func @refine_any(%q: tensor<2x16x64xbf16>, %w: tensor<2x16xf32>, %c: tensor<2x?xi32>,
                      %k: tensor<?x64xbf16>) -> tensor<2x32xi32> {
  %t = indexpool.refine %q, %w, %c, %k {k = 32 : i64}
      : (tensor<2x16x64xbf16>, tensor<2x16xf32>, tensor<2x?xi32>, tensor<?x64xbf16>) -> tensor<2x32xi32>
  return %t : tensor<2x32xi32>
}
