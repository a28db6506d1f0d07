//===- TuningDb.h - the JSON tuning database (internal) ---------*- C++ -*-===//
//
// Internal to lib/Transforms: the database both configure passes read
// (docs/design.md, "The tuning database"). GPU entries give fields of
// #indexpool.launch for one chip; CPU entries ("chip": "cpu") give the
// vector width of the loops. Each pass takes the entries of its target.
//
//===----------------------------------------------------------------------===//
#ifndef INDEXPOOL_LIB_TRANSFORMS_TUNINGDB_H
#define INDEXPOOL_LIB_TRANSFORMS_TUNINGDB_H

#include "indexpool/Dialect/IndexPoolAttrs.h"
#include "indexpool/Target/CpuTargets.h"

#include "mlir/Support/LLVM.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"

#include <optional>
#include <string>
#include <utility>

namespace mlir {
class MLIRContext;
class Operation;
} // namespace mlir

namespace mlir::indexpool::tuning {

/// The chip of a CPU entry: "cpu" (any CPU target) or "cpu:NAME".
using ::indexpool::target::kCpuChip;

/// An op's sizes by name, as shape classes see them; a dynamic size is
/// kShapeDynamic.
using Sizes = SmallVector<std::pair<StringRef, int64_t>>;

/// The sizes of `op` in docs/IndexPoolOps.md notation (T, G, D, P, N, M, H,
/// K, and C for refine); empty for an op without any.
Sizes opSizes(Operation *op);

/// One condition of a shape class: `D=128`, `T>=65536`.
struct Condition {
  std::string name;
  std::string cmp;
  int64_t value = 0;

  bool holds(ArrayRef<std::pair<StringRef, int64_t>> sizes) const;
};

/// One database entry. A GPU entry sets the launch fields it gives (the
/// others come from the cost model); a CPU entry sets the vector width.
struct TuningEntry {
  std::string chip;
  std::string op;
  SmallVector<Condition> conditions;
  std::optional<int64_t> threadsPerBlock, itemsPerBlock, elementsPerThread,
      vectorBytes;
  std::optional<GridPolicy> grid;
  std::optional<int64_t> vectorWidth; // CPU entries: always set
  unsigned number = 0;                // 1-based, for messages

  bool matches(StringRef chipName, StringRef opName,
               ArrayRef<std::pair<StringRef, int64_t>> sizes) const;
};

using TuningDb = SmallVector<TuningEntry>;

/// Reads and checks the whole database at `path`; every error names the
/// file (and the entry) and what is wrong, reported at the file.
LogicalResult loadTuningDb(MLIRContext *context, StringRef path, TuningDb &db);

/// The first entry of `db` for `chip` and op mnemonic `opName` whose shape
/// class holds for `sizes`, or null.
const TuningEntry *findEntry(const TuningDb &db, StringRef chip,
                             StringRef opName,
                             ArrayRef<std::pair<StringRef, int64_t>> sizes);

} // namespace mlir::indexpool::tuning

#endif // INDEXPOOL_LIB_TRANSFORMS_TUNINGDB_H
