//===- GPUKernels.h - the fused GPU kernels on buffers ----------*- C++ -*-===//
//
// One function per kernel. Each checks first whether it covers the shapes
// (`can...`), so that the pattern can leave other ops to the row loops.
//
//===----------------------------------------------------------------------===//
#ifndef INDEXPOOL_LIB_CONVERSION_INDEXPOOLTOGPU_KERNELS_GPUKERNELS_H
#define INDEXPOOL_LIB_CONVERSION_INDEXPOOLTOGPU_KERNELS_GPUKERNELS_H

#include "KernelBuilder.h"

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
/// itself, when smaller) are a power of two or a multiple of 32, or that
/// `launch`'s vector_bytes and elements_per_thread lay out (WarpRows.h).
bool canRowKernel(MemRefType rows, const KernelLaunch &launch);

/// compress as ONE kernel. `hardwareFp8`: cvt.rn.satfinite.e4m3x2.f32
/// (sm_89 and newer).
void emitCompressKernel(ImplicitLocOpBuilder &b, const CompressBuffers &c,
                        const KernelLaunch &launch, bool hardwareFp8);
/// pool: pooled [G, D] and the weights of `p`.
void emitPoolKernel(ImplicitLocOpBuilder &b, const loops::PoolBuffers &p,
                    Value pooled, const KernelLaunch &launch);
/// hadamard of the rows of a 2-d `input` into `output`.
void emitHadamardKernel(ImplicitLocOpBuilder &b, Value input, Value output,
                        const KernelLaunch &launch);
/// quantize of the rows of a 2-d `input`.
void emitQuantizeKernel(ImplicitLocOpBuilder &b, Value input, Value codes,
                        Value scales, bool pow2Scale, double minAbsmax,
                        const KernelLaunch &launch, bool hardwareFp8);

/// Whether the score kernel covers this query: static H and D, the query
/// (as f32) and weights of one row in 48 KiB of shared memory, and key rows
/// of whole 16-byte chunks.
bool canScore(MemRefType query, MemRefType keys);
/// Tiles of items_per_block key rows (default: one per thread) per query
/// row; grid-stride by default, with one block per SM (registers).
void emitScoreKernel(ImplicitLocOpBuilder &b, Value query, Value weights,
                     Value keys, Value scales, Value logits,
                     const KernelLaunch &launch);

/// topk of every row (any N, any k); `valid` may be null. `candidates` is
/// an [M, 2k] i32 temporary. Tiles of items_per_block rows (default 1), a
/// row at a time per block; tiled by default.
void emitTopKKernel(ImplicitLocOpBuilder &b, Value logits, Value valid,
                    Value values, Value indices, Value candidates,
                    const KernelLaunch &launch);

/// tokens [M, k*P] of indexpool.expand: tiles of items_per_block query
/// rows (default: the rows of one block of threads); tiled by default.
void emitExpandKernel(ImplicitLocOpBuilder &b, Value indices, Value tokens,
                      int64_t poolSize, const KernelLaunch &launch);

} // namespace mlir::indexpool::gpukernels

#endif // INDEXPOOL_LIB_CONVERSION_INDEXPOOLTOGPU_KERNELS_GPUKERNELS_H
