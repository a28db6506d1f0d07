//===- CostModel.h - launch configurations for memory-bound kernels -*- C++ -*-===//
//
// Chooses how an indexpool op is launched on a chip of the target table:
// threads per block, work items per block, elements per thread, vector
// width and grid policy. Plain C++ on ChipInfo and a description of the op
// (no MLIR), so that it is unit-tested on its own; --indexpool-configure
// turns the op into an OpDesc and the result into #indexpool.launch. The
// model itself is described at the top of CostModel.cpp and in
// docs/design.md ("GPU configuration").
//
//===----------------------------------------------------------------------===//
#ifndef INDEXPOOL_TRANSFORMS_COSTMODEL_H
#define INDEXPOOL_TRANSFORMS_COSTMODEL_H

#include "indexpool/Dialect/Shapes.h"
#include "indexpool/Target/Chips.h"

#include <cstdint>

namespace indexpool::cost {

/// An unknown (dynamic) size: the one marker of Shapes.h (also
/// mlir::ShapedType::kDynamic), so sizes pass between the verifier's rules
/// and the cost model unchanged.
constexpr int64_t kDynamic = mlir::indexpool::kShapeDynamic;

/// How an op's kernel walks its data.
enum class OpKind {
  /// Independent rows (or pools of rows): pool, hadamard, quantize,
  /// dequantize, residual, reconstruct, compress, expand.
  Rows,
  /// Key rows streamed past a query that each block loads once: score,
  /// select.
  KeyStream,
  /// A selection over each whole row: topk.
  RowSelect,
};

struct OpDesc {
  OpKind kind = OpKind::Rows;
  /// Work items: pools for pool/compress, rows otherwise (key rows for
  /// score/select, query rows for topk/expand); kDynamic when unknown.
  int64_t items = kDynamic;
  /// Elements of one row of the main operand (D; N for topk; k for expand);
  /// kDynamic when unknown.
  int64_t rowElems = kDynamic;
  /// Bytes of one element of the main operand (2 for bf16).
  int elemBytes = 4;
  /// Bytes one work item reads from memory, all streamed operands together
  /// (for a compress pool: P key rows plus P score rows); kDynamic when
  /// unknown, then one row of the main operand is assumed.
  int64_t bytesPerItem = kDynamic;
};

enum class Grid { Tiled, GridStride };

struct Launch {
  int64_t threadsPerBlock = 0;
  int64_t itemsPerBlock = 0;
  int64_t elementsPerThread = 0;
  int64_t vectorBytes = 0;
  Grid grid = Grid::Tiled;
};

/// The model's assumed DRAM latency under load, in ns (see CostModel.cpp).
constexpr double kDramLatencyNs = 600.0;
/// Resident blocks per SM the row kernels aim for.
constexpr int kBlocksPerSM = 4;
/// Tiled grids of more waves than this become grid-stride loops.
constexpr int kMaxTiledWaves = 8;
/// Upper bound on the rows a thread group keeps in flight.
constexpr int kMaxRowsInFlight = 8;

/// Bytes that must be in flight per SM to sustain the chip's DRAM bandwidth
/// (Little's law): bandwidth / SMs x latency.
int64_t bytesInFlightPerSM(const indexpool::target::ChipInfo &chip);

/// The widest of 16, 8 and 4 bytes that divides a row of `rowElems`
/// elements (16 when the row length is unknown, 4 when none divides).
int64_t vectorBytesFor(int64_t rowElems, int elemBytes);

/// The model's launch configuration for `op` on `chip`.
Launch chooseLaunch(const indexpool::target::ChipInfo &chip, const OpDesc &op);

/// A kernel launch's fixed cost in us, the same for every launch: an
/// assumption (launch latency is a few us on the CUDA driver), not a
/// measured figure; it only makes a function's estimate count its launches.
constexpr double kLaunchOverheadUs = 3.0;

/// The model's estimate, in microseconds, of one launch of `op` on `chip`
/// with `launch` (any valid launch, not only the model's): the op's bytes
/// at the DRAM bandwidth the launch sustains by Little's law, over the SMs
/// it keeps busy, stretched by the uneven last round of tiles, plus a DRAM
/// latency per round of block starts and kLaunchOverheadUs. An ESTIMATE for
/// ranking candidates (the tuner), blind to anything but bytes in flight
/// (instruction issue, registers, caches); -1 when a size is dynamic.
double estimateMicroseconds(const indexpool::target::ChipInfo &chip,
                            const OpDesc &op, const Launch &launch);

} // namespace indexpool::cost

#endif // INDEXPOOL_TRANSFORMS_COSTMODEL_H
