//===- Configure.cpp - --indexpool-configure ------------------------------===//
//
// Attaches #indexpool.launch to every indexpool op (docs/design.md): the cost
// model's choice for the chip (CostModel.cpp), or the fields of the first
// matching entry of a JSON tuning database. This file turns ops into the
// model's plain description and reads the database; the model itself has no
// MLIR in it.
//
//===----------------------------------------------------------------------===//

#include "indexpool/Dialect/IndexPoolAttrs.h"
#include "indexpool/Dialect/IndexPoolOps.h"
#include "indexpool/Target/Chips.h"
#include "indexpool/Transforms/CostModel.h"
#include "indexpool/Transforms/Passes.h"
#include "indexpool/Runtime/FileRead.h"
#include "indexpool/Runtime/Json.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/TypeSwitch.h"
#include "llvm/Support/DebugLog.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"

#include <optional>

#define DEBUG_TYPE "indexpool-configure"

namespace mlir::indexpool {
#define GEN_PASS_DEF_INDEXPOOLCONFIGURE
#include "indexpool/Dialect/Passes.h.inc"
} // namespace mlir::indexpool

using namespace mlir;
using namespace mlir::indexpool;
namespace cost = ::indexpool::cost;
namespace target = ::indexpool::target;

//===----------------------------------------------------------------------===//
// Ops as the cost model sees them
//===----------------------------------------------------------------------===//

namespace {

/// An op's description for the model, and its sizes in docs/IndexPoolOps.md notation
/// (T, G, D, P, N, M, H, K) for the tuning database's shape classes.
struct OpShape {
  cost::OpDesc desc;
  SmallVector<std::pair<StringRef, int64_t>> sizes;
};

} // namespace

static int64_t dimOf(Value v, unsigned i) {
  return cast<RankedTensorType>(v.getType()).getDimSize(i);
}

static int elemBytesOf(Value v) {
  Type element = cast<RankedTensorType>(v.getType()).getElementType();
  return std::max(1u, element.getIntOrFloatBitWidth() / 8);
}

/// Bytes of one row (everything but the first dimension) of `v`; dynamic
/// when a size is (or the product overflows).
static int64_t rowBytesOf(Value v) {
  auto type = cast<RankedTensorType>(v.getType());
  int64_t bytes = elemBytesOf(v);
  for (int64_t size : type.getShape().drop_front())
    bytes = mulDims(bytes, size);
  return bytes;
}

static OpShape rowsShape(int64_t items, Value main, int64_t rowElems,
                         int64_t bytesPerItem) {
  OpShape shape;
  shape.desc.kind = cost::OpKind::Rows;
  shape.desc.items = items;
  shape.desc.rowElems = rowElems;
  shape.desc.elemBytes = elemBytesOf(main);
  shape.desc.bytesPerItem = bytesPerItem;
  return shape;
}

/// pool and compress read P key rows and P score rows per pool.
template <typename PoolLike>
static OpShape poolShape(PoolLike op) {
  int64_t p = op.getPoolSize();
  int64_t t = dimOf(op.getKeys(), 0), d = dimOf(op.getKeys(), 1);
  int64_t g = numGroups(t, p);
  int64_t perToken = addDims(rowBytesOf(op.getKeys()), rowBytesOf(op.getScores()));
  OpShape shape = rowsShape(g, op.getKeys(), d, mulDims(p, perToken));
  shape.sizes = {{"T", t}, {"G", g}, {"D", d}, {"P", p}};
  return shape;
}

/// score and select stream key rows (and their scales) past the query.
template <typename ScoreLike>
static OpShape keyStreamShape(ScoreLike op) {
  Value keys = op.getKeys();
  OpShape shape;
  shape.desc.kind = cost::OpKind::KeyStream;
  shape.desc.items = dimOf(keys, 0);
  shape.desc.rowElems = dimOf(keys, 1);
  shape.desc.elemBytes = elemBytesOf(keys);
  shape.desc.bytesPerItem = addDims(rowBytesOf(keys), op.getScales() ? 4 : 0);
  shape.sizes = {{"M", dimOf(op.getQuery(), 0)},
                 {"H", dimOf(op.getQuery(), 1)},
                 {"N", dimOf(keys, 0)},
                 {"D", dimOf(keys, 1)}};
  return shape;
}

/// The op's description, or nullopt for an op the model does not know.
static std::optional<OpShape> describe(Operation *op) {
  return llvm::TypeSwitch<Operation *, std::optional<OpShape>>(op)
      .Case<PoolOp, CompressOp>([](auto op) { return poolShape(op); })
      .Case<HadamardOp>([](HadamardOp op) {
        auto type = op.getInput().getType();
        int64_t d = dimOf(op.getInput(), type.getRank() - 1);
        int64_t n = 1;
        for (unsigned i = 0; i + 1 < type.getRank(); ++i)
          n = mulDims(n, dimOf(op.getInput(), i));
        OpShape shape = rowsShape(n, op.getInput(), d,
                                  mulDims(d, elemBytesOf(op.getInput())));
        shape.sizes = {{"N", n}, {"D", d}};
        return shape;
      })
      .Case<QuantizeOp>([](QuantizeOp op) {
        int64_t n = dimOf(op.getInput(), 0), d = dimOf(op.getInput(), 1);
        OpShape shape =
            rowsShape(n, op.getInput(), d, rowBytesOf(op.getInput()));
        shape.sizes = {{"N", n}, {"D", d}};
        return shape;
      })
      .Case<DequantizeOp>([](DequantizeOp op) {
        int64_t n = dimOf(op.getCodes(), 0), d = dimOf(op.getCodes(), 1);
        OpShape shape =
            rowsShape(n, op.getCodes(), d, addDims(rowBytesOf(op.getCodes()), 4));
        shape.sizes = {{"N", n}, {"D", d}};
        return shape;
      })
      .Case<ResidualOp>([](ResidualOp op) {
        int64_t p = op.getPoolSize();
        int64_t g = dimOf(op.getPooled(), 0), d = dimOf(op.getKeys(), 1);
        OpShape shape =
            rowsShape(g, op.getKeys(), d,
                      addDims(mulDims(p, rowBytesOf(op.getKeys())),
                              rowBytesOf(op.getPooled())));
        shape.sizes = {
            {"T", dimOf(op.getKeys(), 0)}, {"G", g}, {"D", d}, {"P", p}};
        return shape;
      })
      .Case<ReconstructOp>([](ReconstructOp op) {
        int64_t p = op.getPoolSize();
        int64_t g = dimOf(op.getPooled(), 0), d = dimOf(op.getPooled(), 1);
        int64_t residual =
            op.getResidual() ? mulDims(p, rowBytesOf(op.getResidual())) : 0;
        OpShape shape = rowsShape(g, op.getPooled(), d,
                                  addDims(rowBytesOf(op.getPooled()), residual));
        shape.sizes = {{"T", mulDims(g, p)}, {"G", g}, {"D", d}, {"P", p}};
        return shape;
      })
      .Case<ScoreOp>([](ScoreOp op) { return keyStreamShape(op); })
      .Case<SelectOp>([](SelectOp op) {
        OpShape shape = keyStreamShape(op);
        shape.sizes.push_back({"K", static_cast<int64_t>(op.getK())});
        shape.sizes.push_back({"P", static_cast<int64_t>(op.getPoolSize())});
        return shape;
      })
      .Case<RefineOp>([](RefineOp op) {
        // The gather-score kernel streams the C candidates of each row:
        // each an id and its key row (and scale). Its topk and take run
        // with the same configuration.
        OpShape shape = keyStreamShape(op);
        int64_t c = dimOf(op.getCandidates(), 1);
        shape.desc.items = c;
        shape.desc.bytesPerItem = addDims(shape.desc.bytesPerItem, 4);
        shape.sizes = {{"M", dimOf(op.getQuery(), 0)},
                       {"H", dimOf(op.getQuery(), 1)},
                       {"C", c},
                       {"D", dimOf(op.getKeys(), 1)},
                       {"K", static_cast<int64_t>(op.getK())}};
        return shape;
      })
      .Case<TopKOp>([](TopKOp op) {
        Value logits = op.getLogits();
        int64_t m = dimOf(logits, 0), n = dimOf(logits, 1);
        OpShape shape;
        shape.desc.kind = cost::OpKind::RowSelect;
        shape.desc.items = m;
        shape.desc.rowElems = n;
        shape.desc.elemBytes = elemBytesOf(logits);
        shape.desc.bytesPerItem = addDims(mulDims(n, 4), op.getValid() ? 4 : 0);
        shape.sizes = {{"M", m}, {"N", n}, {"K", static_cast<int64_t>(op.getK())}};
        return shape;
      })
      .Case<ExpandOp>([](ExpandOp op) {
        int64_t m = dimOf(op.getIndices(), 0), k = dimOf(op.getIndices(), 1);
        OpShape shape =
            rowsShape(m, op.getIndices(), k, rowBytesOf(op.getIndices()));
        shape.sizes = {{"M", m}, {"K", k}, {"P", static_cast<int64_t>(op.getPoolSize())}};
        return shape;
      })
      .Default([](Operation *) { return std::nullopt; });
}

//===----------------------------------------------------------------------===//
// The tuning database
//===----------------------------------------------------------------------===//

namespace {

/// One condition of a shape class: `D=128`, `T>=65536`.
struct Condition {
  std::string name;
  std::string cmp;
  int64_t value = 0;

  bool holds(ArrayRef<std::pair<StringRef, int64_t>> sizes) const {
    const auto *it = llvm::find_if(
        sizes, [&](const auto &size) { return size.first == name; });
    if (it == sizes.end() || it->second == cost::kDynamic)
      return false;
    int64_t v = it->second;
    if (cmp == "=" || cmp == "==")
      return v == value;
    if (cmp == "!=")
      return v != value;
    if (cmp == "<")
      return v < value;
    if (cmp == "<=")
      return v <= value;
    if (cmp == ">")
      return v > value;
    return v >= value; // ">="
  }
};

/// One database entry; the launch fields it leaves out come from the model.
struct TuningEntry {
  std::string chip;
  std::string op;
  SmallVector<Condition> conditions;
  std::optional<int64_t> threadsPerBlock, itemsPerBlock, elementsPerThread,
      vectorBytes;
  std::optional<GridPolicy> grid;
  unsigned number = 0; // 1-based, for messages

  bool matches(StringRef chipName, StringRef opName,
               ArrayRef<std::pair<StringRef, int64_t>> sizes) const {
    return chip == chipName && op == opName &&
           llvm::all_of(conditions,
                        [&](const Condition &c) { return c.holds(sizes); });
  }
};

using TuningDb = SmallVector<TuningEntry>;

} // namespace

/// Parses "T>=65536, D=128" into `out`; returns an error message or "".
static std::string parseShapeClass(StringRef text,
                                   SmallVectorImpl<Condition> &out) {
  static constexpr StringLiteral kNames[] = {"T", "G", "D", "P",
                                             "N", "M", "H", "K"};
  SmallVector<StringRef> parts;
  text.split(parts, ',', /*MaxSplit=*/-1, /*KeepEmpty=*/false);
  for (StringRef part : parts) {
    part = part.trim();
    size_t opPos = part.find_first_of("<>=!");
    if (opPos == StringRef::npos)
      return ("'" + part + "' has no comparison (=, !=, <, <=, >, >=)").str();
    Condition cond;
    cond.name = part.take_front(opPos).trim().str();
    if (!llvm::is_contained(kNames, cond.name))
      return ("unknown size '" + cond.name +
              "' (sizes: T, G, D, P, N, M, H, K)");
    StringRef rest = part.drop_front(opPos);
    for (StringRef cmp : {">=", "<=", "!=", "==", "=", "<", ">"}) {
      if (rest.consume_front(cmp)) {
        cond.cmp = cmp.str();
        break;
      }
    }
    if (cond.cmp.empty() || rest.trim().getAsInteger(10, cond.value))
      return ("'" + part + "' is not NAME OP INTEGER").str();
    out.push_back(std::move(cond));
  }
  return "";
}

/// Reads an optional integer field of a launch object into `out`.
static bool intField(const llvm::json::Object &launch, StringRef key,
                     std::optional<int64_t> &out) {
  const llvm::json::Value *value = launch.get(key);
  if (!value)
    return true;
  out = value->getAsInteger();
  return out.has_value();
}

/// Checks and converts entry `number` of the database at `path`; errors are
/// reported at `loc` (the file).
static LogicalResult parseEntry(MLIRContext *context, Location loc,
                                StringRef path, unsigned number,
                                const llvm::json::Value &value,
                                TuningEntry &entry) {
  auto fail = [&]() {
    return emitError(loc) << "tuning-db '" << path << "' entry " << number
                          << ": ";
  };
  entry.number = number;
  const llvm::json::Object *object = value.getAsObject();
  if (!object)
    return fail() << "expected an object";
  for (const auto &field : *object)
    if (!llvm::is_contained({"chip", "op", "shape_class", "launch"},
                            field.first.str()))
      return fail() << "unknown field \"" << field.first.str()
                    << "\" (fields: chip, op, shape_class, launch)";

  std::optional<StringRef> chip = object->getString("chip");
  if (!chip)
    return fail() << "\"chip\" must be a string";
  if (!target::lookupChip(*chip))
    return fail() << "unknown chip '" << *chip
                  << "'; known chips: " << target::knownChipNames();
  entry.chip = chip->str();

  std::optional<StringRef> op = object->getString("op");
  if (!op)
    return fail() << "\"op\" must be a string";
  if (!RegisteredOperationName::lookup(("indexpool." + *op).str(), context))
    return fail() << "unknown op '" << *op << "' (an indexpool op's mnemonic)";
  entry.op = op->str();

  if (const llvm::json::Value *shapeClass = object->get("shape_class")) {
    std::optional<StringRef> text = shapeClass->getAsString();
    if (!text)
      return fail() << "\"shape_class\" must be a string";
    std::string error = parseShapeClass(*text, entry.conditions);
    if (!error.empty())
      return fail() << "bad shape_class \"" << *text << "\": " << error;
  }

  const llvm::json::Object *launch = object->getObject("launch");
  if (!launch)
    return fail() << "\"launch\" must be an object";
  for (const auto &field : *launch)
    if (!llvm::is_contained({"threads_per_block", "items_per_block",
                             "elements_per_thread", "vector_bytes", "grid"},
                            field.first.str()))
      return fail() << "unknown launch field \"" << field.first.str()
                    << "\" (fields: threads_per_block, items_per_block, "
                       "elements_per_thread, vector_bytes, grid)";
  for (auto [key, field] :
       {std::pair{"threads_per_block", &entry.threadsPerBlock},
        std::pair{"items_per_block", &entry.itemsPerBlock},
        std::pair{"elements_per_thread", &entry.elementsPerThread},
        std::pair{"vector_bytes", &entry.vectorBytes}})
    if (!intField(*launch, key, *field))
      return fail() << "launch field \"" << key << "\" must be an integer";
  if (const llvm::json::Value *grid = launch->get("grid")) {
    std::optional<StringRef> text = grid->getAsString();
    entry.grid = text ? symbolizeGridPolicy(*text) : std::nullopt;
    if (!entry.grid)
      return fail()
             << "launch field \"grid\" must be \"tiled\" or \"grid_stride\"";
  }

  // The fields given must pass the attribute's verifier already; the ones
  // left to the model take valid stand-ins here.
  return LaunchAttr::verify(fail, entry.chip,
                            entry.threadsPerBlock.value_or(32),
                            entry.itemsPerBlock.value_or(1),
                            entry.elementsPerThread.value_or(1),
                            entry.vectorBytes.value_or(16),
                            entry.grid.value_or(GridPolicy::Tiled));
}

/// Reads the database at `path`; errors name the file and what is wrong.
static LogicalResult loadTuningDb(MLIRContext *context, StringRef path,
                                  TuningDb &db) {
  Location loc = FileLineColLoc::get(context, path, 0, 0);
  auto fail = [&]() { return emitError(loc) << "tuning-db '" << path << "': "; };
  // Bounded: a character device or an endless FIFO must not read forever,
  // and llvm::json::parse recurses once per nesting level, so the depth is
  // checked first (the runtime's limit, as for manifests).
  ::indexpool::runtime::InputFile file;
  std::string text, why;
  if (!file.open(path.str(), why))
    return fail() << "cannot read: " << why;
  if (!file.readAll(::indexpool::runtime::kMaxJsonBytes, "a tuning database",
                    text, why))
    return fail() << StringRef(why).drop_front(path.size() + 2); // "PATH: "
  if (!::indexpool::runtime::json::checkNestingDepth(text, why))
    return fail() << "invalid JSON: " << why;
  llvm::Expected<llvm::json::Value> json = llvm::json::parse(text);
  if (!json)
    return fail() << "invalid JSON: " << llvm::toString(json.takeError());
  const llvm::json::Array *entries = json->getAsArray();
  if (!entries)
    return fail() << "expected a JSON array of entries";
  for (const auto &[i, value] : llvm::enumerate(*entries)) {
    TuningEntry entry;
    if (failed(parseEntry(context, loc, path, i + 1, value, entry)))
      return failure();
    db.push_back(std::move(entry));
  }
  return success();
}

//===----------------------------------------------------------------------===//
// The pass
//===----------------------------------------------------------------------===//

static GridPolicy toGridPolicy(cost::Grid grid) {
  return grid == cost::Grid::Tiled ? GridPolicy::Tiled : GridPolicy::GridStride;
}

namespace {

struct IndexPoolConfigure
    : mlir::indexpool::impl::IndexPoolConfigureBase<IndexPoolConfigure> {
  using Base::Base;

  LogicalResult initialize(MLIRContext *context) override {
    Location loc = UnknownLoc::get(context);
    chipInfo = target::lookupChip(chip);
    if (!chipInfo) {
      if (chip.empty())
        return emitError(loc)
               << "--indexpool-configure needs chip=NAME; known chips: "
               << target::knownChipNames();
      return emitError(loc) << "--indexpool-configure: unknown chip '" << chip
                            << "'; known chips: " << target::knownChipNames();
    }
    // Shared, read-only, by the copies the pass manager makes for threads.
    auto db = std::make_shared<TuningDb>();
    if (!tuningDb.empty() && failed(loadTuningDb(context, tuningDb, *db)))
      return failure();
    tuning = std::move(db);
    return success();
  }

  void runOnOperation() override {
    MLIRContext *context = &getContext();
    WalkResult result = getOperation()->walk([&](Operation *op) {
      if (!isa_and_present<IndexPoolDialect>(op->getDialect()))
        return WalkResult::advance();
      std::optional<OpShape> shape = describe(op);
      if (!shape)
        return WalkResult::advance();

      cost::Launch launch = cost::chooseLaunch(*chipInfo, shape->desc);
      GridPolicy grid = toGridPolicy(launch.grid);
      StringRef opName = op->getName().stripDialect();
      const TuningEntry *entry = nullptr;
      for (const TuningEntry &candidate : *tuning) {
        if (candidate.matches(chipInfo->name, opName, shape->sizes)) {
          entry = &candidate;
          break;
        }
      }
      if (entry) {
        LDBG() << opName << ": tuning-db entry " << entry->number;
        launch.threadsPerBlock =
            entry->threadsPerBlock.value_or(launch.threadsPerBlock);
        launch.itemsPerBlock =
            entry->itemsPerBlock.value_or(launch.itemsPerBlock);
        launch.elementsPerThread =
            entry->elementsPerThread.value_or(launch.elementsPerThread);
        launch.vectorBytes = entry->vectorBytes.value_or(launch.vectorBytes);
        grid = entry->grid.value_or(grid);
      }

      // The model's values and each database field were checked already;
      // this only guards rules that would relate the fields.
      auto emitInvalid = [&]() {
        InFlightDiagnostic diag = op->emitError();
        diag << "invalid launch configuration";
        if (entry)
          diag << " (tuning-db '" << tuningDb << "' entry " << entry->number
               << ")";
        diag << ": ";
        return diag;
      };
      LaunchAttr attr = LaunchAttr::getChecked(
          function_ref<InFlightDiagnostic()>(emitInvalid), context,
          StringRef(chipInfo->name), launch.threadsPerBlock,
          launch.itemsPerBlock, launch.elementsPerThread, launch.vectorBytes,
          grid);
      if (!attr)
        return WalkResult::interrupt();
      op->setAttr(kLaunchAttrName, attr);
      return WalkResult::advance();
    });
    if (result.wasInterrupted())
      signalPassFailure();
  }

private:
  const target::ChipInfo *chipInfo = nullptr;
  std::shared_ptr<const TuningDb> tuning;
};

} // namespace
