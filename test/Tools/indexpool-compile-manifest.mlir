// The manifest indexpool-compile writes carries each kernel's parameter
// signature (format_version 3, docs/manifest.md), read from the launch's
// operand types, with the bytes the kernel may access through each buffer
// and the alignment its pointer needs (the indices are read as i32, the
// tokens written with 16-byte vector stores);
// indexpool-launch loads it and checks every launch against it (then stops
// here at the missing driver, after every check that needs none). Sizes the
// reader would reject are refused at compile time.
//
// RUN: rm -rf %t && indexpool-compile %s --chip=sm_90 --emit=ptx -o %t --function=expand_tokens
// RUN: FileCheck %s --check-prefix=MANIFEST < %t/expand_tokens.sm_90.json
// MANIFEST: "format_version": 3,
// MANIFEST: "kernels": [
// MANIFEST-NEXT: {
// MANIFEST-NEXT: "name": "expand_tokens_kernel",
// MANIFEST-NEXT: "params": [
// MANIFEST-NEXT: {
// MANIFEST-NEXT: "align": 4,
// MANIFEST-NEXT: "bytes": 1024,
// MANIFEST-NEXT: "kind": "buffer"
// MANIFEST-NEXT: },
// MANIFEST-NEXT: {
// MANIFEST-NEXT: "align": 16,
// MANIFEST-NEXT: "bytes": 4096,
// MANIFEST-NEXT: "kind": "buffer"
// MANIFEST-NEXT: }
// MANIFEST-NEXT: ]
// MANIFEST: "launches": [
// MANIFEST: "kernel": "expand_tokens_kernel",
// RUN: not env INDEXPOOL_LIBCUDA_PATH=%t/no-libcuda.so indexpool-launch %t/expand_tokens.sm_90.json --random-inputs=1 --verify 2>&1 | FileCheck %s --check-prefix=LOADS --implicit-check-not=error:
// LOADS: indexpool-launch: error: no CUDA driver: {{.*}}no-libcuda.so not found
//
// A buffer of more than 2^40 elements (2^34 x 128) is refused by the writer
// instead of producing a manifest that indexpool-launch rejects.
// RUN: sh -c "indexpool-compile %s --chip=sm_90 --emit=ptx -o %t --function=too_large 2>&1; echo rc=\$?" | FileCheck %s --check-prefix=LARGE
// LARGE: indexpool-compile: error: @too_large has a buffer of type memref<17179869184x128xbf16>, more than the 2^40 elements a manifest buffer may have
// LARGE-NEXT: rc=1

func.func @expand_tokens(%idx: tensor<4x64xi32>) -> tensor<4x256xi32> {
  %t = indexpool.expand %idx {pool_size = 4 : i64} : (tensor<4x64xi32>) -> tensor<4x256xi32>
  return %t : tensor<4x256xi32>
}

func.func @too_large(%x: tensor<17179869184x128xbf16>) -> tensor<17179869184x128xbf16> {
  %y = indexpool.hadamard %x : (tensor<17179869184x128xbf16>) -> tensor<17179869184x128xbf16>
  return %y : tensor<17179869184x128xbf16>
}
