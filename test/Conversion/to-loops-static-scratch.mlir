// --indexpool-to-loops=static-scratch=true (the GPU pipeline's): an op
// whose row loops would allocate a scratch row sized by a dynamic D is
// refused with one error at the op, before anything is rewritten: on the GPU
// every row is a thread, and its scratch would be local memory of unbounded
// size (a dynamic alloca, which LLVM cannot even emit for sm_80 / sm_86
// below PTX 7.3). The CPU's default (static-scratch=false) lowers them all.
// RUN: indexpool-opt %s -split-input-file -verify-diagnostics --indexpool-to-loops=static-scratch=true
// RUN: indexpool-opt %s -split-input-file --indexpool-to-loops 2>/dev/null | FileCheck %s --check-prefix=CPU
// The functions of the CPU integration tests with a dynamic D, compiled for
// the GPU: one error each, at the op.
// RUN: not indexpool-compile %S/../Integration/CPU/compress.mlir --function=dynamic_d --chip=sm_90 --emit=ptx -o %t 2>&1 | FileCheck %s --check-prefix=COMPRESS --implicit-check-not=error:
// RUN: not indexpool-compile %S/../Integration/CPU/compress.mlir --function=f32_dynamic --chip=sm_80 --emit=ptx -o %t 2>&1 | FileCheck %s --check-prefix=COMPRESS32 --implicit-check-not=error:
// RUN: not indexpool-compile %S/../Integration/CPU/hadamard.mlir --function=dynamic_f16 --chip=sm_90 --emit=ptx -o %t 2>&1 | FileCheck %s --check-prefix=HADAMARD --implicit-check-not=error:
// RUN: not indexpool-compile %S/../Integration/CPU/score.mlir --function=i8_dynamic --chip=sm_90 --emit=ptx -o %t 2>&1 | FileCheck %s --check-prefix=SCORE --implicit-check-not=error:
// RUN: not indexpool-compile %S/../Integration/CPU/select.mlir --function=i8_dynamic --chip=sm_90 --emit=ptx -o %t 2>&1 | FileCheck %s --check-prefix=SELECT --implicit-check-not=error:
// RUN: not indexpool-compile %S/../Integration/CPU/refine.mlir --function=i8_dynamic --chip=sm_86 --emit=ptx -o %t 2>&1 | FileCheck %s --check-prefix=REFINE --implicit-check-not=error:

// COMPRESS: compress.mlir:{{[0-9]+}}:{{[0-9]+}}: error: 'indexpool.compress' op a GPU kernel needs a static D (the last dimension of keys): a dynamic D would need a per-thread scratch row in local memory; compile for the CPU, or specialize the function first (indexpool-compile --function=dynamic_d --input-shape=I:AxB...)
// COMPRESS-NEXT: indexpool-compile: error: compiling @dynamic_d for sm_90 failed
// COMPRESS32: error: 'indexpool.compress' op a GPU kernel needs a static D (the last dimension of keys)
// COMPRESS32-NEXT: indexpool-compile: error: compiling @f32_dynamic for sm_80 failed
// HADAMARD: error: 'indexpool.hadamard' op a GPU kernel needs a static D (the last dimension of input)
// HADAMARD-NEXT: indexpool-compile: error: compiling @dynamic_f16 for sm_90 failed
// SCORE: score.mlir:{{[0-9]+}}:{{[0-9]+}}: error: 'indexpool.score' op a GPU kernel needs a static D (the last dimension of keys)
// SCORE-NEXT: indexpool-compile: error: compiling @i8_dynamic for sm_90 failed
// select is score -> topk -> expand on the GPU: the score is refused, at the
// select's location.
// SELECT: select.mlir:{{[0-9]+}}:{{[0-9]+}}: error: 'indexpool.score' op a GPU kernel needs a static D (the last dimension of keys)
// SELECT-NEXT: indexpool-compile: error: compiling @i8_dynamic for sm_90 failed
// REFINE: error: 'indexpool.refine' op a GPU kernel needs a static D (the last dimension of keys)
// REFINE-NEXT: indexpool-compile: error: compiling @i8_dynamic for sm_86 failed

// CPU-LABEL: func.func @compress(
// CPU: memref.alloca(%{{.*}}) {alignment = 32 : i64} : memref<?xf32>
func.func @compress(%keys: tensor<?x?xbf16>, %scores: tensor<?xf32>)
    -> (tensor<?x?xi8>, tensor<?xf32>) {
  // expected-error @+1 {{'indexpool.compress' op a GPU kernel needs a static D (the last dimension of keys): a dynamic D would need a per-thread scratch row in local memory; compile for the CPU, or specialize the function first (indexpool-compile --function=compress --input-shape=I:AxB...)}}
  %q, %s, %w = indexpool.compress %keys, %scores {pool_size = 4 : i64}
      : (tensor<?x?xbf16>, tensor<?xf32>) -> (tensor<?x?xi8>, tensor<?xf32>, tensor<?x4xf32>)
  return %q, %s : tensor<?x?xi8>, tensor<?xf32>
}

// -----

// CPU-LABEL: func.func @hadamard(
// CPU: memref.alloca(%{{.*}}) {alignment = 32 : i64} : memref<?xf32>
func.func @hadamard(%x: tensor<8x?xf16>) -> tensor<8x?xf32> {
  // expected-error @+1 {{'indexpool.hadamard' op a GPU kernel needs a static D (the last dimension of input)}}
  %y = indexpool.hadamard %x : (tensor<8x?xf16>) -> tensor<8x?xf32>
  return %y : tensor<8x?xf32>
}

// -----

// CPU-LABEL: func.func @score(
// CPU: memref.alloca(%{{.*}}) {alignment = 32 : i64} : memref<8x?xf32>
func.func @score(%q: tensor<?x?x?xf16>, %w: tensor<?x?xf32>, %k: tensor<?x?xi8>, %s: tensor<?xf32>) -> tensor<?x?xf32> {
  // expected-error @+1 {{'indexpool.score' op a GPU kernel needs a static D (the last dimension of keys)}}
  %l = indexpool.score %q, %w, %k scales(%s)
      : (tensor<?x?x?xf16>, tensor<?x?xf32>, tensor<?x?xi8>, tensor<?xf32>) -> tensor<?x?xf32>
  return %l : tensor<?x?xf32>
}

// -----

// CPU-LABEL: func.func @select(
// CPU: memref.alloca(%{{.*}}) {alignment = 32 : i64} : memref<8x?xf32>
func.func @select(%q: tensor<?x?x?xf32>, %w: tensor<?x?xf32>, %k: tensor<?x?xi8>, %s: tensor<?xf32>,
                  %len: tensor<?xi32>) -> tensor<?x400xi32> {
  // expected-error @+1 {{'indexpool.select' op a GPU kernel needs a static D (the last dimension of keys)}}
  %t = indexpool.select %q, %w, %k scales(%s) valid(%len) {k = 100 : i64, pool_size = 4 : i64}
      : (tensor<?x?x?xf32>, tensor<?x?xf32>, tensor<?x?xi8>, tensor<?xf32>, tensor<?xi32>) -> tensor<?x400xi32>
  return %t : tensor<?x400xi32>
}

// -----

// CPU-LABEL: func.func @refine(
// CPU: memref.alloca(%{{.*}}) {alignment = 32 : i64} : memref<8x?xf32>
func.func @refine(%q: tensor<?x?x?xf32>, %w: tensor<?x?xf32>, %c: tensor<?x?xi32>, %k: tensor<?x?xi8>,
                  %s: tensor<?xf32>) -> tensor<?x100xi32> {
  // expected-error @+1 {{'indexpool.refine' op a GPU kernel needs a static D (the last dimension of keys)}}
  %t = indexpool.refine %q, %w, %c, %k scales(%s) {k = 100 : i64}
      : (tensor<?x?x?xf32>, tensor<?x?xf32>, tensor<?x?xi32>, tensor<?x?xi8>, tensor<?xf32>) -> tensor<?x100xi32>
  return %t : tensor<?x100xi32>
}

// -----

// CPU-LABEL: func.func @compress_paged(
// CPU: indexpool.compress_paged {{.*}}indexpool.stack_scopes = true
func.func @compress_paged(%keys: tensor<64x?xbf16>, %scores: tensor<64xf32>, %pages: tensor<2x?xi8>,
                          %slots: tensor<16xi64>) -> tensor<2x?xi8> {
  // expected-error @+1 {{'indexpool.compress_paged' op a GPU kernel needs a static D (the last dimension of keys)}}
  %p = indexpool.compress_paged %keys, %scores into %pages at %slots
      {pool_size = 4 : i64}
      : (tensor<64x?xbf16>, tensor<64xf32>, tensor<2x?xi8>, tensor<16xi64>) -> tensor<2x?xi8>
  return %p : tensor<2x?xi8>
}

// -----

// CPU-LABEL: func.func @select_paged(
// CPU: indexpool.select_paged
func.func @select_paged(%q: tensor<2x1x4x?xbf16>, %w: tensor<2x1x4xf32>, %pages: tensor<4x?xi8>,
                        %table: tensor<2x2xi32>, %len: tensor<2x1xi32>) -> tensor<2x1x35xi32> {
  // expected-error @+1 {{'indexpool.select_paged' op a GPU kernel needs a static D (the last dimension of query)}}
  %t = indexpool.select_paged %q, %w pages(%pages) block_table(%table)
      lengths(%len) {k = 8 : i64, pool_size = 4 : i64}
      : (tensor<2x1x4x?xbf16>, tensor<2x1x4xf32>, tensor<4x?xi8>,
         tensor<2x2xi32>, tensor<2x1xi32>) -> tensor<2x1x35xi32>
  return %t : tensor<2x1x35xi32>
}

// -----

// Marked by --indexpool-to-gpu-kernels: its bufferization emits GPU kernels,
// not these loops, and has no scratch to refuse.
// CPU-LABEL: func.func @compress_paged_kernels(
// CPU: indexpool.compress_paged
func.func @compress_paged_kernels(%keys: tensor<64x?xbf16>, %scores: tensor<64xf32>, %pages: tensor<2x?xi8>,
                                  %slots: tensor<16xi64>) -> tensor<2x?xi8> {
  %p = indexpool.compress_paged %keys, %scores into %pages at %slots
      {pool_size = 4 : i64, indexpool.gpu_chip = "sm_90"}
      : (tensor<64x?xbf16>, tensor<64xf32>, tensor<2x?xi8>, tensor<16xi64>) -> tensor<2x?xi8>
  return %p : tensor<2x?xi8>
}
