//===- TuningDb.cpp - the JSON tuning database ----------------------------===//
//
// Reads and checks the database of docs/design.md, "The tuning database",
// for --indexpool-configure (GPU entries) and --indexpool-configure-cpu (CPU
// entries), and names each op's sizes for its shape classes.
//
//===----------------------------------------------------------------------===//

#include "TuningDb.h"

#include "indexpool/Dialect/IndexPoolOps.h"
#include "indexpool/Dialect/Shapes.h"
#include "indexpool/Runtime/FileRead.h"
#include "indexpool/Runtime/Json.h"
#include "indexpool/Target/Chips.h"
#include "indexpool/Target/CpuTargets.h"
#include "indexpool/Transforms/TuningDb.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/TypeSwitch.h"
#include "llvm/Support/JSON.h"

using namespace mlir;
using namespace mlir::indexpool;
using namespace mlir::indexpool::tuning;
namespace target = ::indexpool::target;

//===----------------------------------------------------------------------===//
// Sizes
//===----------------------------------------------------------------------===//

/// The sizes a shape class may name (refine's C may not).
static constexpr StringLiteral kNames[] = {"T", "G", "D", "P",
                                           "N", "M", "H", "K"};

static int64_t dimOf(Value v, unsigned i) {
  return cast<RankedTensorType>(v.getType()).getDimSize(i);
}

template <typename PoolLike>
static Sizes poolSizes(PoolLike op) {
  int64_t p = op.getPoolSize();
  int64_t t = dimOf(op.getKeys(), 0);
  return {{"T", t},
          {"G", numGroups(t, p)},
          {"D", dimOf(op.getKeys(), 1)},
          {"P", p}};
}

template <typename ScoreLike>
static Sizes keyStreamSizes(ScoreLike op) {
  return {{"M", dimOf(op.getQuery(), 0)},
          {"H", dimOf(op.getQuery(), 1)},
          {"N", dimOf(op.getKeys(), 0)},
          {"D", dimOf(op.getKeys(), 1)}};
}

Sizes tuning::opSizes(Operation *op) {
  return llvm::TypeSwitch<Operation *, Sizes>(op)
      .Case<PoolOp, CompressOp>([](auto op) { return poolSizes(op); })
      .Case<HadamardOp>([](HadamardOp op) -> Sizes {
        auto type = op.getInput().getType();
        int64_t n = 1;
        for (unsigned i = 0; i + 1 < type.getRank(); ++i)
          n = mulDims(n, dimOf(op.getInput(), i));
        return {{"N", n}, {"D", dimOf(op.getInput(), type.getRank() - 1)}};
      })
      .Case<QuantizeOp>([](QuantizeOp op) -> Sizes {
        return {{"N", dimOf(op.getInput(), 0)}, {"D", dimOf(op.getInput(), 1)}};
      })
      .Case<DequantizeOp>([](DequantizeOp op) -> Sizes {
        return {{"N", dimOf(op.getCodes(), 0)}, {"D", dimOf(op.getCodes(), 1)}};
      })
      .Case<ResidualOp>([](ResidualOp op) -> Sizes {
        return {{"T", dimOf(op.getKeys(), 0)},
                {"G", dimOf(op.getPooled(), 0)},
                {"D", dimOf(op.getKeys(), 1)},
                {"P", static_cast<int64_t>(op.getPoolSize())}};
      })
      .Case<ReconstructOp>([](ReconstructOp op) -> Sizes {
        int64_t p = op.getPoolSize(), g = dimOf(op.getPooled(), 0);
        return {{"T", mulDims(g, p)},
                {"G", g},
                {"D", dimOf(op.getPooled(), 1)},
                {"P", p}};
      })
      .Case<ScoreOp>([](ScoreOp op) { return keyStreamSizes(op); })
      .Case<SelectOp>([](SelectOp op) {
        Sizes sizes = keyStreamSizes(op);
        sizes.push_back({"K", static_cast<int64_t>(op.getK())});
        sizes.push_back({"P", static_cast<int64_t>(op.getPoolSize())});
        return sizes;
      })
      .Case<RefineOp>([](RefineOp op) -> Sizes {
        return {{"M", dimOf(op.getQuery(), 0)},
                {"H", dimOf(op.getQuery(), 1)},
                {"C", dimOf(op.getCandidates(), 1)},
                {"D", dimOf(op.getKeys(), 1)},
                {"K", static_cast<int64_t>(op.getK())}};
      })
      .Case<TopKOp>([](TopKOp op) -> Sizes {
        return {{"M", dimOf(op.getLogits(), 0)},
                {"N", dimOf(op.getLogits(), 1)},
                {"K", static_cast<int64_t>(op.getK())}};
      })
      .Case<ExpandOp>([](ExpandOp op) -> Sizes {
        return {{"M", dimOf(op.getIndices(), 0)},
                {"K", dimOf(op.getIndices(), 1)},
                {"P", static_cast<int64_t>(op.getPoolSize())}};
      })
      .Default([](Operation *) { return Sizes(); });
}

std::vector<std::pair<std::string, int64_t>>
mlir::indexpool::tuningSizes(Operation *op) {
  std::vector<std::pair<std::string, int64_t>> result;
  for (auto [name, value] : opSizes(op))
    if (value != kShapeDynamic && llvm::is_contained(kNames, name))
      result.emplace_back(name.str(), value);
  return result;
}

//===----------------------------------------------------------------------===//
// Entries
//===----------------------------------------------------------------------===//

bool Condition::holds(ArrayRef<std::pair<StringRef, int64_t>> sizes) const {
  const auto *it = llvm::find_if(
      sizes, [&](const auto &size) { return size.first == name; });
  if (it == sizes.end() || it->second == kShapeDynamic)
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

bool TuningEntry::matches(StringRef chipName, StringRef opName,
                          ArrayRef<std::pair<StringRef, int64_t>> sizes) const {
  return chip == chipName && op == opName &&
         llvm::all_of(conditions,
                      [&](const Condition &c) { return c.holds(sizes); });
}

const TuningEntry *
tuning::findEntry(const TuningDb &db, StringRef chip, StringRef opName,
                  ArrayRef<std::pair<StringRef, int64_t>> sizes) {
  for (const TuningEntry &entry : db)
    if (entry.matches(chip, opName, sizes))
      return &entry;
  return nullptr;
}

/// Parses "T>=65536, D=128" into `out`; returns an error message or "".
static std::string parseShapeClass(StringRef text,
                                   SmallVectorImpl<Condition> &out) {
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

static constexpr StringLiteral kGpuLaunchFields[] = {
    "threads_per_block", "items_per_block", "elements_per_thread",
    "vector_bytes", "grid"};
static constexpr StringLiteral kCpuLaunchField = "vector_width";

/// The launch object of a CPU entry: {"vector_width": W} alone.
template <typename Fail>
static LogicalResult parseCpuLaunch(const llvm::json::Object &launch,
                                    TuningEntry &entry, Fail fail) {
  for (const auto &field : launch) {
    StringRef key = field.first;
    if (llvm::is_contained(kGpuLaunchFields, key))
      return fail() << "launch field \"" << key
                    << "\" is a GPU field; a CPU entry's launch takes only "
                       "vector_width";
    if (key != kCpuLaunchField)
      return fail() << "unknown launch field \"" << key
                    << "\" (a CPU entry's launch takes only vector_width)";
  }
  if (!launch.get(kCpuLaunchField))
    return fail() << "a CPU entry's launch needs \"vector_width\"";
  if (!intField(launch, kCpuLaunchField, entry.vectorWidth))
    return fail() << "launch field \"vector_width\" must be an integer";
  if (!isValidVectorWidth(*entry.vectorWidth))
    return fail() << "launch field \"vector_width\" must be a power of two "
                     "from 1 to "
                  << kMaxVectorWidth << ", got " << *entry.vectorWidth;
  return success();
}

/// The launch object of a GPU entry: any subset of #indexpool.launch's
/// fields.
template <typename Fail>
static LogicalResult parseGpuLaunch(const llvm::json::Object &launch,
                                    TuningEntry &entry, Fail fail) {
  for (const auto &field : launch) {
    StringRef key = field.first;
    if (key == kCpuLaunchField)
      return fail() << "launch field \"vector_width\" is for CPU entries "
                       "(\"chip\": \"cpu\"); a GPU entry's launch takes "
                       "threads_per_block, items_per_block, "
                       "elements_per_thread, vector_bytes, grid";
    if (!llvm::is_contained(kGpuLaunchFields, key))
      return fail() << "unknown launch field \"" << key
                    << "\" (fields: threads_per_block, items_per_block, "
                       "elements_per_thread, vector_bytes, grid)";
  }
  for (auto [key, field] :
       {std::pair{"threads_per_block", &entry.threadsPerBlock},
        std::pair{"items_per_block", &entry.itemsPerBlock},
        std::pair{"elements_per_thread", &entry.elementsPerThread},
        std::pair{"vector_bytes", &entry.vectorBytes}})
    if (!intField(launch, key, *field))
      return fail() << "launch field \"" << key << "\" must be an integer";
  if (const llvm::json::Value *grid = launch.get("grid")) {
    std::optional<StringRef> text = grid->getAsString();
    entry.grid = text ? symbolizeGridPolicy(*text) : std::nullopt;
    if (!entry.grid)
      return fail()
             << "launch field \"grid\" must be \"tiled\" or \"grid_stride\"";
  }

  // The fields given must pass the attribute's verifier already; the ones
  // left to the model take valid stand-ins here.
  return LaunchAttr::verify(
      fail, entry.chip, entry.threadsPerBlock.value_or(32),
      entry.itemsPerBlock.value_or(1), entry.elementsPerThread.value_or(1),
      entry.vectorBytes.value_or(16), entry.grid.value_or(GridPolicy::Tiled));
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
  std::string_view cpuRow;
  bool cpu = target::parseCpuChip(*chip, cpuRow);
  if (!cpu && !target::lookupChip(*chip))
    return fail() << target::unknownChipMessage(*chip, kCpuChip)
                  << " (or cpu:NAME, NAME a CPU target)";
  if (cpu && !cpuRow.empty() && !target::lookupCpuTarget(cpuRow))
    return fail() << target::unknownCpuTargetMessage(cpuRow);
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
  return cpu ? parseCpuLaunch(*launch, entry, fail)
             : parseGpuLaunch(*launch, entry, fail);
}

LogicalResult tuning::loadTuningDb(MLIRContext *context, StringRef path,
                                   TuningDb &db) {
  Location loc = FileLineColLoc::get(context, path, 0, 0);
  auto fail = [&]() {
    return emitError(loc) << "tuning-db '" << path << "': ";
  };
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
