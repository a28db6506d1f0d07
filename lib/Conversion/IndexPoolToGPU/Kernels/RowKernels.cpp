//===- RowKernels.cpp - hadamard and quantize as warp-row kernels ---------===//
//
// One row per row of lanes (WarpRows.h), read with the layout's loads: hadamard
// rotates it with shuffles and stores it, quantize reduces its absmax with
// shuffles and stores codes and the scale. No stack frame.
//
//===----------------------------------------------------------------------===//

#include "GPUKernels.h"
#include "WarpRows.h"

using namespace mlir;
using namespace mlir::indexpool::gpukernels;
using mlir::indexpool::loops::Emitter;

void mlir::indexpool::gpukernels::emitHadamardKernel(
    ImplicitLocOpBuilder &b, Value input, Value output,
    const KernelLaunch &launch) {
  WarpLayout lay = warpLayoutOf(input, launch);
  Emitter e(b, lay.elems, /*stackScopes=*/false);
  Type outElement = cast<MemRefType>(output.getType()).getElementType();
  forEachRow(e, lay, launch, input, [&](const WarpRow &row) {
    SmallVector<Value> x = loadRow(e, input, row);
    rotateRow(e, lay, row, x, outElement);
    storeRow(e, x, output, row);
  });
}

void mlir::indexpool::gpukernels::emitQuantizeKernel(
    ImplicitLocOpBuilder &b, Value input, Value codes, Value scales,
    bool pow2Scale, double minAbsmax, const KernelLaunch &launch,
    bool hardwareFp8) {
  WarpLayout lay = warpLayoutOf(input, launch);
  Emitter e(b, lay.elems, /*stackScopes=*/false);
  forEachRow(e, lay, launch, input, [&](const WarpRow &row) {
    quantizeRow(e, lay, row, loadRow(e, input, row),
                {codes, scales, pow2Scale, minAbsmax, hardwareFp8});
  });
}
