// Valid paged ops with static zero-size parts compile for every GPU chip:
// a token-tier append (pool_size 1: the tail is [B, 0, D]) and an append of
// no tokens through a 0-wide block table. Upstream's lowering of gpu.func
// refused a zero-element buffer parameter ("failed to legalize operation
// 'gpu.func'"); --indexpool-drop-empty-kernel-args passes none. They
// agree with the reference in the GPU emulator, and the runtime accepts
// their manifests (the fake driver checks each launch's parameters against
// the kernel's .entry list in the PTX).
// RUN: rm -rf %t && indexpool-compile %s --chip=sm_90 --emit=ptx -o %t | FileCheck %s --check-prefix=WROTE
// RUN: indexpool-compile %s --chip=sm_80 --emit=ptx -o %t/sm80 | FileCheck %s --check-prefix=WROTE
// RUN: indexpool-compile %s --chip=sm_120 --emit=ptx -o %t/sm120 | FileCheck %s --check-prefix=WROTE
// WROTE: wrote {{.*}}tier_append.sm_{{[0-9]+}}.ptx
// WROTE: wrote {{.*}}append_none.sm_{{[0-9]+}}.ptx
// RUN: FileCheck %s --check-prefix=PARAMS < %t/tier_append.sm_90.json
// PARAMS-NOT: [3, 0, 64]{{.*}}"kind": "buffer"
// RUN: indexpool-run %s --device=gpu-emulator --chip=sm_90 --function=tier_append --random-inputs=1 --verify | FileCheck %s --check-prefix=OK
// RUN: indexpool-run %s --device=gpu-emulator --chip=sm_90 --function=append_none --random-inputs=2 --verify | FileCheck %s --check-prefix=OK
// OK-NOT: FAIL
// OK: ok
// RUN: env INDEXPOOL_LIBCUDA_PATH=%indexpool_libs/libindexpool-fake-cuda%shlibext INDEXPOOL_FAKE_CUDA_ANY_KERNEL=1 indexpool-launch %t/tier_append.sm_90.json --random-inputs=1 | FileCheck %s --check-prefix=LAUNCH
// RUN: env INDEXPOOL_LIBCUDA_PATH=%indexpool_libs/libindexpool-fake-cuda%shlibext INDEXPOOL_FAKE_CUDA_ANY_KERNEL=1 indexpool-launch %t/append_none.sm_90.json --random-inputs=1 | FileCheck %s --check-prefix=LAUNCH
// LAUNCH: result #0

func.func @tier_append(%k: tensor<3x2x64xbf16>, %s: tensor<3x2xbf16>,
    %tk: tensor<3x0x64xbf16>, %ts: tensor<3x0xbf16>, %l: tensor<3xi32>,
    %tier: tensor<6x2176xi8>, %t: tensor<3x2xi32>)
    -> (tensor<6x2176xi8>, tensor<3x0x64xbf16>, tensor<3x0xbf16>) {
  %r:3 = indexpool.append_paged %k, %s tail(%tk, %ts) lengths(%l) into %tier
      block_table(%t) {pool_size = 1 : i64, page_entries = 32 : i64, rotate}
      : (tensor<3x2x64xbf16>, tensor<3x2xbf16>, tensor<3x0x64xbf16>,
         tensor<3x0xbf16>, tensor<3xi32>, tensor<6x2176xi8>, tensor<3x2xi32>)
        -> (tensor<6x2176xi8>, tensor<3x0x64xbf16>, tensor<3x0xbf16>)
  return %r#0, %r#1, %r#2 : tensor<6x2176xi8>, tensor<3x0x64xbf16>, tensor<3x0xbf16>
}

func.func @append_none(%k: tensor<2x0x64xf32>, %s: tensor<2x0xf32>,
    %tk: tensor<2x3x64xf32>, %ts: tensor<2x3xf32>, %l: tensor<2xi32>,
    %pages: tensor<4x1088xi8>, %t: tensor<2x0xi32>)
    -> (tensor<4x1088xi8>, tensor<2x3x64xf32>, tensor<2x3xf32>) {
  %r:3 = indexpool.append_paged %k, %s tail(%tk, %ts) lengths(%l) into %pages
      block_table(%t) {pool_size = 4 : i64, page_entries = 16 : i64}
      : (tensor<2x0x64xf32>, tensor<2x0xf32>, tensor<2x3x64xf32>,
         tensor<2x3xf32>, tensor<2xi32>, tensor<4x1088xi8>, tensor<2x0xi32>)
        -> (tensor<4x1088xi8>, tensor<2x3x64xf32>, tensor<2x3xf32>)
  return %r#0, %r#1, %r#2 : tensor<4x1088xi8>, tensor<2x3x64xf32>, tensor<2x3xf32>
}
