// A bad pass or pipeline option is ONE error line that names the option and
// what it accepts: checked before the pass runs, at no operation (an error at
// the module would print the whole module after it), without the empty
// "error:" line MLIR adds after an option llvm::cl rejected, and with the
// known chips from the target table (lib/Target/Chips.cpp).
// RUN: not indexpool-opt %s --indexpool-to-gpu-kernels=chip=sm_99 2> %t.chip
// RUN: FileCheck %s --check-prefix=CHIP < %t.chip && count 1 < %t.chip
// RUN: not indexpool-opt %s --indexpool-to-gpu-kernels="chip=sm_90 threads-per-block=33" 2> %t.tpb
// RUN: FileCheck %s --check-prefix=TPB < %t.tpb && count 1 < %t.tpb
// RUN: not indexpool-opt %s --pass-pipeline="builtin.module(indexpool-tile-rows{threads-per-block=0})" 2> %t.tile
// RUN: FileCheck %s --check-prefix=TILE < %t.tile && count 1 < %t.tile
// RUN: not indexpool-opt %s --indexpool-configure=chip 2> %t.novalue
// RUN: FileCheck %s --check-prefix=NOVALUE < %t.novalue && count 1 < %t.novalue
// RUN: not indexpool-opt %s --indexpool-configure="chip=sm_90 bogus=1" 2> %t.unknown
// RUN: FileCheck %s --check-prefix=UNKNOWN < %t.unknown && count 1 < %t.unknown
// RUN: not indexpool-opt %s --indexpool-to-nvvm 2> %t.nochip
// RUN: FileCheck %s --check-prefix=NOCHIP < %t.nochip && count 1 < %t.nochip
// RUN: not indexpool-opt %s --indexpool-to-nvvm="chip=sm_90 vector-width=3" 2> %t.vw
// RUN: FileCheck %s --check-prefix=VW < %t.vw && count 1 < %t.vw
// RUN: not indexpool-opt %s --indexpool-to-nvvm="chip=sm_90 ptx=5" 2> %t.ptx
// RUN: FileCheck %s --check-prefix=PTX < %t.ptx && count 1 < %t.ptx
// RUN: not indexpool-opt %s --indexpool-to-nvvm="chip=sm_89 ptx=80" 2> %t.ptxold
// RUN: FileCheck %s --check-prefix=PTXOLD < %t.ptxold && count 1 < %t.ptxold
// RUN: not indexpool-opt %s --pass-pipeline="builtin.module(indexpool-to-nvvm{chip=sm_99})" 2> %t.textual
// RUN: FileCheck %s --check-prefix=TEXTUAL < %t.textual && count 1 < %t.textual
// RUN: not indexpool-opt %s --pass-pipeline="builtin.module(indexpool-to-nvvm{chip=sm_90 format=elf})" 2> %t.textfmt
// RUN: FileCheck %s --check-prefix=FORMAT < %t.textfmt && count 1 < %t.textfmt
// RUN: not indexpool-opt %s --indexpool-configure=chip=sm_99 2> %t.configure
// RUN: FileCheck %s --check-prefix=CONFIGURE < %t.configure && count 1 < %t.configure

// CHIP: error: indexpool-to-gpu-kernels: unknown chip 'sm_99'; known chips: sm_80, sm_86, sm_89, sm_90, sm_90a, sm_100, sm_120
// TPB: error: indexpool-to-gpu-kernels: threads-per-block must be a multiple of 32 in [32, 1024], got 33
// TILE: error: indexpool-tile-rows: threads-per-block must be a multiple of 32 in [32, 1024], got 0
// NOVALUE: indexpool-opt: for the --chip option: requires a value!
// UNKNOWN: error: <Pass-Options-Parser>: no such option bogus
// NOCHIP: error: indexpool-to-nvvm: no chip given; known chips: sm_80,
// VW: error: indexpool-to-nvvm: vector width must be a power of two from 1 to 64, got 3
// PTX: error: indexpool-to-nvvm: ptx=5 is not a PTX ISA version for sm_90: use 78 (the default) up to 90
// PTXOLD: error: indexpool-to-nvvm: ptx=80 is not a PTX ISA version for sm_89: use 81 (the default) up to 90
// TEXTUAL: error: indexpool-to-nvvm: unknown chip 'sm_99'; known chips: sm_80,
// FORMAT: error: indexpool-to-nvvm: format must be isa, bin or fatbin, got 'elf'
// CONFIGURE: error: --indexpool-configure: unknown chip 'sm_99'; known chips: sm_80,

func.func @f(%x: tensor<8x64xf32>) -> tensor<8x64xf32> {
  %y = indexpool.hadamard %x : (tensor<8x64xf32>) -> tensor<8x64xf32>
  return %y : tensor<8x64xf32>
}
