//===- GPUKernels.h - the fused GPU kernels on buffers ----------*- C++ -*-===//
//
// One function per kernel. Each checks first whether it covers the shapes
// (`can...`), so that the pattern can leave other ops to the row loops.
//
//===----------------------------------------------------------------------===//
#ifndef INDEXPOOL_LIB_CONVERSION_INDEXPOOLTOGPU_KERNELS_GPUKERNELS_H
#define INDEXPOOL_LIB_CONVERSION_INDEXPOOLTOGPU_KERNELS_GPUKERNELS_H

#include "Common/Kernels.h"

#include "mlir/IR/ImplicitLocOpBuilder.h"

namespace mlir::indexpool::gpukernels {

/// Buffers and properties of indexpool.compress.
struct CompressBuffers {
  loops::PoolBuffers pool;      // keys, scores, bias, weights, P, temperature
  Value codes, scales;          // results
  bool rotate, pow2Scale;
  double minAbsmax;
};

/// Whether the warp-row kernels (compress, pool, hadamard, quantize) cover
/// rows of this [N, D] buffer: a static D whose 16-byte chunks (or D
/// itself, when smaller) are a power of two or a multiple of 32
/// (WarpRows.h).
bool canRowKernel(MemRefType rows);

/// compress as ONE kernel. `hardwareFp8`: cvt.rn.satfinite.e4m3x2.f32
/// (sm_89 and newer).
void emitCompressKernel(ImplicitLocOpBuilder &b, const CompressBuffers &c,
                        int64_t threadsPerBlock, bool hardwareFp8);
/// pool: pooled [G, D] and the weights of `p`.
void emitPoolKernel(ImplicitLocOpBuilder &b, const loops::PoolBuffers &p,
                    Value pooled, int64_t threadsPerBlock);
/// hadamard of the rows of a 2-d `input` into `output`.
void emitHadamardKernel(ImplicitLocOpBuilder &b, Value input, Value output,
                        int64_t threadsPerBlock);
/// quantize of the rows of a 2-d `input`.
void emitQuantizeKernel(ImplicitLocOpBuilder &b, Value input, Value codes,
                        Value scales, bool pow2Scale, double minAbsmax,
                        int64_t threadsPerBlock, bool hardwareFp8);

/// Whether the score kernel covers this query: static H and D, the query
/// (as f32) and weights of one row in 48 KiB of shared memory, and key rows
/// of whole 16-byte chunks.
bool canScore(MemRefType query, MemRefType keys);
/// `maxBlocks` per query row: the blocks stride over the keys.
void emitScoreKernel(ImplicitLocOpBuilder &b, Value query, Value weights,
                     Value keys, Value scales, Value logits,
                     int64_t threadsPerBlock, int64_t maxBlocks);

/// topk of every row (any N, any k); `valid` may be null. `candidates` is
/// an [M, 2k] i32 temporary.
void emitTopKKernel(ImplicitLocOpBuilder &b, Value logits, Value valid,
                    Value values, Value indices, Value candidates,
                    int64_t threadsPerBlock);

/// tokens [M, k*P] of indexpool.expand.
void emitExpandKernel(ImplicitLocOpBuilder &b, Value indices, Value tokens,
                      int64_t poolSize, int64_t threadsPerBlock);

} // namespace mlir::indexpool::gpukernels

#endif // INDEXPOOL_LIB_CONVERSION_INDEXPOOLTOGPU_KERNELS_GPUKERNELS_H
