//===- MmaScoreParts.h - what the two tensor-core scores share --*- C++ -*-===//
//
// The mma.sync kernel (MmaScoreKernel.cpp) and the wgmma kernel
// (WgmmaScoreKernel.cpp) decode FP8 keys and finish their logits with the
// same operations in the same order: the parts below (MmaScoreParts.cpp), so
// that a logit does not depend on which kernel or which tile position
// produced it.
//
//===----------------------------------------------------------------------===//
#ifndef INDEXPOOL_LIB_CONVERSION_INDEXPOOLTOGPU_KERNELS_MMASCOREPARTS_H
#define INDEXPOOL_LIB_CONVERSION_INDEXPOOLTOGPU_KERNELS_MMASCOREPARTS_H

#include "Common/Emitter.h"

#include "mlir/IR/ImplicitLocOpBuilder.h"

#include <array>

namespace mlir::indexpool::gpukernels {

/// f32 values that are bf16 values, as bf16 (their top halves).
Value truncExact(ImplicitLocOpBuilder &b, Value v);

/// Two e4m3 codes (vector<2xi8>) as bf16 bits (vector<2xi16>) with
/// cvt.rn.f16x2.e4m3x2 (sm_89+).
Value hardwareFp8ToBf16(ImplicitLocOpBuilder &b, Value codes);

/// e4m3 codes (vector<n x i8>) as f32 with integer operations and one
/// multiply (chips without cvt.rn.f16x2.e4m3x2).
Value softwareFp8ToF32(ImplicitLocOpBuilder &b, Value codes);

/// e4m3 codes (vector<n x i8>, n even) as the bits of the same values in
/// bf16 (vector<n x i16>), exactly: cvt.rn.f16x2.e4m3x2 with `hardwareFp8`
/// (sm_89+), integer operations before.
Value fp8ToBf16Bits(ImplicitLocOpBuilder &b, Value codes, bool hardwareFp8);

/// Heads h and h + 1 of query row m's weights, as f32.
std::array<Value, 2> headWeightPair(ImplicitLocOpBuilder &b,
                                    loops::Emitter &e, Value weights,
                                    Value m, Value h);

/// One 8-head tile of the epilogue, for a lane's accumulators acc[2 i + j]
/// (key row g + 8 i, head 2t + j of the tile, as mma.sync and wgmma lay
/// them out): sums[i] += w[j] * relu(scales[i] * acc[2 i + j]) (a null
/// scale: none), j in order.
void addHeadTile(ImplicitLocOpBuilder &b, loops::Emitter &e,
                 ArrayRef<Value> acc, ArrayRef<Value> w,
                 ArrayRef<Value> scales, MutableArrayRef<Value> sums);

/// The sum over the 4 lanes of a group g (xor shuffles 1, 2: every lane of
/// the warp must execute it), NaN where `present` (null: always) is false,
/// stored as logits[m, n] by lane t == half when n < dimN.
void storeKeyRowLogit(ImplicitLocOpBuilder &b, loops::Emitter &e, Value sum,
                      Value present, Value n, int64_t half, Value t,
                      Value dimN, Value logits, Value m);

} // namespace mlir::indexpool::gpukernels

#endif // INDEXPOOL_LIB_CONVERSION_INDEXPOOLTOGPU_KERNELS_MMASCOREPARTS_H
