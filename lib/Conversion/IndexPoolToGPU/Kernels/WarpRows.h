//===- WarpRows.h - rows of D values spread over the lanes of a warp -*- C++ -*-===//
//
// The building blocks of the warp-cooperative row kernels (compress, pool,
// hadamard, quantize). A row of D values is held by L lanes of a warp: lane
// l's chunk c has the E channels d = (c*L + l)*E + i, E*bytes = 16, so every
// row is read with one 16-byte access per lane and chunk (or E*bytes =
// vector_bytes and E*C = elements_per_thread of the op's #indexpool.launch,
// where those make a layout). Bit j of d is an
// in-register element bit for j < log2 E, a lane bit next, then a chunk
// bit: the Hadamard butterflies h = 1, 2, 4, ... run in that order as vector
// shuffles, `gpu.shuffle xor` and register pairs, with the CPU's fma(+-1,
// .., ..), so the rotated values agree with the CPU bit for bit.
//
// A block of T threads has T / L row groups; its tile of items_per_block
// rows (default: one per group) is handled by each group a row at a time,
// rows g, g + T/L, ... of the tile, so that each step reads consecutive
// rows. Every lane of a warp runs every shuffle: rows past the tile or the
// last row clamp their row index, and only stores are guarded.
//
//===----------------------------------------------------------------------===//
#ifndef INDEXPOOL_LIB_CONVERSION_INDEXPOOLTOGPU_KERNELS_WARPROWS_H
#define INDEXPOOL_LIB_CONVERSION_INDEXPOOLTOGPU_KERNELS_WARPROWS_H

#include "KernelBuilder.h"

#include "Common/Emitter.h"
#include "Common/Kernels.h"

#include <optional>

namespace mlir::indexpool::gpukernels {

/// E channels per lane and chunk, L lanes per row, C chunks per lane.
struct WarpLayout {
  int64_t elems, lanes, chunks;
  int64_t rowLength() const { return elems * lanes * chunks; }
  int64_t rowsPerWarp() const { return kWarpSize / lanes; }
};

/// The layout of rows of `d` elements of `elementBytes`, if the warp
/// kernels cover it: a static D whose 16-byte chunks (or D itself, when
/// smaller) are a power of two or a multiple of 32 (at most 8 per lane).
std::optional<WarpLayout> warpLayoutFor(int64_t d, int64_t elementBytes);

/// The layout `launch` asks for: E = vector_bytes / elementBytes, C =
/// elements_per_thread / E, L = d / (E*C), where that is a layout (E and L
/// powers of two, L <= 32, C <= 8); otherwise warpLayoutFor's.
std::optional<WarpLayout> warpLayoutFor(int64_t d, int64_t elementBytes,
                                        const KernelLaunch &launch);

/// The layout of the rows of a 2-d buffer that canRowKernel accepted.
WarpLayout warpLayoutOf(Value rows, const KernelLaunch &launch);

/// What one thread knows of its row.
struct WarpRow {
  Value index;   ///< the row, for stores (may be past the last row)
  Value clamped; ///< the row, for loads: min(index, rows - 1)
  Value active;  ///< within the tile and index < rows
  Value leader;  ///< active and the row's lane 0
  Value lane;    ///< lane within the row, [0, L)
  SmallVector<Value> offsets; ///< first channel of each chunk
};

/// Launches a warp-row kernel over the rows [0, dim 0 of `rowsOf`) as
/// `launch` says (block size, tile, grid) and runs `body` for every row of
/// the thread's share: tiles (one, or grid-stride) x rows per group.
void forEachRow(loops::Emitter &e, const WarpLayout &lay,
                const KernelLaunch &launch, Value rowsOf,
                function_ref<void(const WarpRow &)> body);
/// The same over [0, rowCount()) rows, a count no buffer has: `rowCount`
/// emits it from the buffers' sizes, once for the grid and once in the
/// kernel (whose parameters stay buffers).
void forEachRow(loops::Emitter &e, const WarpLayout &lay,
                const KernelLaunch &launch, function_ref<Value()> rowCount,
                function_ref<void(const WarpRow &)> body);

/// The row's chunks of `memref[row, :]` as f32 vectors of E lanes.
SmallVector<Value> loadRow(loops::Emitter &e, Value memref,
                           const WarpRow &row);
/// Stores the chunks, rounded to `memref`'s element type, when active.
void storeRow(loops::Emitter &e, ArrayRef<Value> x, Value memref,
              const WarpRow &row);

/// Rotates the row by H_D / sqrt(D) and rounds it to `roundTo`, as
/// loops::emitHadamardRow does.
void rotateRow(loops::Emitter &e, const WarpLayout &lay, const WarpRow &row,
               SmallVector<Value> &x, Type roundTo);

/// indexpool.quantize of the row into codes[row, :] and scales[row].
struct QuantizeSink {
  Value codes, scales;
  bool pow2Scale;
  double minAbsmax;
  /// cvt.rn.satfinite.e4m3x2.f32 (sm_89 and newer) for FP8 codes.
  bool hardwareFp8;
};
void quantizeRow(loops::Emitter &e, const WarpLayout &lay, const WarpRow &row,
                 ArrayRef<Value> x, const QuantizeSink &sink);

/// A row quantized, not yet stored: its f32 scale and the codes of each
/// chunk (vectors of E codes of the code type; i4 codes as i8 values).
struct QuantizedRow {
  Value scale;
  SmallVector<Value> codes;
};
/// quantizeRow's arithmetic for codes of `codeType`; every lane of the row
/// must run it (the absmax is a shuffle reduction).
QuantizedRow quantizedRow(loops::Emitter &e, const WarpLayout &lay,
                          ArrayRef<Value> x, Type codeType, bool pow2Scale,
                          double minAbsmax, bool hardwareFp8);

/// The row of indexpool.compress before quantization (PoolKernels.cpp):
/// group row.clamped of `pool` pooled (weights stored when pool.weights),
/// rounded to the key type and, with `rotate`, rotated.
SmallVector<Value> compressedRow(loops::Emitter &e, const WarpLayout &lay,
                                 const WarpRow &row,
                                 const loops::PoolBuffers &pool, bool rotate);

} // namespace mlir::indexpool::gpukernels

#endif // INDEXPOOL_LIB_CONVERSION_INDEXPOOLTOGPU_KERNELS_WARPROWS_H
