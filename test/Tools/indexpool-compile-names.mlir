// A function's name may be any string. The kernels compiled from it get PTX
// identifiers ("_" + the name with $XX for other bytes), the manifest names
// the function as written and the kernels as compiled, and the files are
// named inside -o DIR ("%XX" for '/', '%' and other bytes, and a leading
// '.'): no LLVM abort, no file written outside DIR.
// RUN: rm -rf %t && mkdir -p %t/out
// RUN: indexpool-compile %s --chip=sm_90 --emit=ptx -o %t/out | FileCheck %s --check-prefix=WROTE
// RUN: FileCheck %s --check-prefix=PTX < "%t/out/my%%20kernel-1.x.sm_90.ptx"
// RUN: FileCheck %s --check-prefix=MANIFEST < "%t/out/my%%20kernel-1.x.sm_90.json"
// RUN: FileCheck %s --check-prefix=PTX-UP < "%t/out/%%2E.%%2Fup.sm_90.ptx"
// RUN: FileCheck %s --check-prefix=PTX-DIGIT < "%t/out/1st.sm_90.ptx"
// RUN: FileCheck %s --check-prefix=PTX-QUOTE < "%t/out/a%%22b%%5Cc%%0A.sm_90.ptx"
// RUN: test -s "%t/out/%%.sm_90.json"
// RUN: ls -A %t | FileCheck %s --check-prefix=OUTSIDE --implicit-check-not={{.}}
// RUN: ls -A %t/out | FileCheck %s --check-prefix=INSIDE --implicit-check-not=.sm_90
// cubin: ptxas accepts the identifiers.
// RUN: indexpool-compile %s --chip=sm_90 --emit=cubin --function="my kernel-1.x" -o %t/cubin
// RUN: test -s "%t/cubin/my%%20kernel-1.x.sm_90.cubin"
// The emulator runs the same kernels and agrees with the reference.
// RUN: indexpool-run %s --device=gpu-emulator --chip=sm_90 "--function=../up" --random-inputs=3 --verify | FileCheck %s --check-prefix=EMU

// WROTE-DAG: wrote {{.*}}out/my%20kernel-1.x.sm_90.ptx and {{.*}}out/my%20kernel-1.x.sm_90.json
// WROTE-DAG: wrote {{.*}}out/%2E.%2Fup.sm_90.ptx and {{.*}}out/%2E.%2Fup.sm_90.json
// WROTE-DAG: wrote {{.*}}out/1st.sm_90.ptx and {{.*}}out/1st.sm_90.json
// WROTE-DAG: wrote {{.*}}out/caf%C3%A9.sm_90.ptx and {{.*}}out/caf%C3%A9.sm_90.json
// PTX: .entry _my$20kernel$2D1$2Ex_kernel(
// PTX-UP: .entry _$2E$2E$2Fup_kernel(
// PTX-DIGIT: .entry _$31st_kernel(
// PTX-QUOTE: .entry _a$22b$5Cc$0A_kernel(
// MANIFEST: "binary": {
// MANIFEST-NEXT: "format": "ptx",
// MANIFEST-NEXT: "path": "my%20kernel-1.x.sm_90.ptx"
// MANIFEST: "function": "my kernel-1.x",
// MANIFEST: "kernel": "_my$20kernel$2D1$2Ex_kernel",
// OUTSIDE: out
// INSIDE-COUNT-12: .sm_90.{{json|ptx}}
// EMU-COUNT-2: -> ok

func.func @"my kernel-1.x"(%k: tensor<64x64xbf16>, %s: tensor<64xf32>) -> (tensor<16x64xbf16>, tensor<16x4xf32>) {
  %p, %w = indexpool.pool %k, %s {pool_size = 4 : i64} : (tensor<64x64xbf16>, tensor<64xf32>) -> (tensor<16x64xbf16>, tensor<16x4xf32>)
  return %p, %w : tensor<16x64xbf16>, tensor<16x4xf32>
}
func.func @"../up"(%k: tensor<64x64xbf16>, %s: tensor<64xf32>) -> (tensor<16x64xbf16>, tensor<16x4xf32>) {
  %p, %w = indexpool.pool %k, %s {pool_size = 4 : i64} : (tensor<64x64xbf16>, tensor<64xf32>) -> (tensor<16x64xbf16>, tensor<16x4xf32>)
  return %p, %w : tensor<16x64xbf16>, tensor<16x4xf32>
}
func.func @"1st"(%x: tensor<8x64xf32>) -> tensor<8x64xf32> {
  %y = indexpool.hadamard %x : (tensor<8x64xf32>) -> tensor<8x64xf32>
  return %y : tensor<8x64xf32>
}
func.func @"café"(%q: tensor<8x64xf8E4M3FN>, %s: tensor<8xf32>) -> tensor<8x64xf32> {
  %x = indexpool.dequantize %q, %s : (tensor<8x64xf8E4M3FN>, tensor<8xf32>) -> tensor<8x64xf32>
  return %x : tensor<8x64xf32>
}
func.func @"a\"b\\c\n"(%x: tensor<8x64xf32>) -> tensor<8x64xf32> {
  %y = indexpool.hadamard %x : (tensor<8x64xf32>) -> tensor<8x64xf32>
  return %y : tensor<8x64xf32>
}
func.func @""(%x: tensor<8x64xf32>) -> tensor<8x64xf32> {
  %y = indexpool.hadamard %x : (tensor<8x64xf32>) -> tensor<8x64xf32>
  return %y : tensor<8x64xf32>
}
