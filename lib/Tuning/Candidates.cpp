//===- Candidates.cpp - the launches worth measuring per op ---------------===//
//
// The model's choice comes from --indexpool-configure itself (run on the
// caller's module, which is the tuner's own parsed copy), so candidate 0 is
// exactly what an untuned compile does. The other candidates vary only the
// fields the op's kernel reads on a GPU (dialect/IndexPoolAttrs.td): a
// field with no effect would only measure noise. Every combination of the
// knobs is enumerated and ranked by the cost model's estimate
// (estimateMicroseconds, from the same description --indexpool-configure
// uses), and only the best are kept: compiling is cheap, measuring on the
// GPU is what a device run's budget cannot afford for hundreds of launches.
//
//===----------------------------------------------------------------------===//

#include "indexpool/Tuning/Candidates.h"

#include "indexpool/Dialect/IndexPoolAttrs.h"
#include "indexpool/Dialect/IndexPoolDialect.h"
#include "indexpool/Target/Chips.h"
#include "indexpool/Transforms/CostModel.h"
#include "indexpool/Transforms/CostModelOps.h"
#include "indexpool/Transforms/Passes.h"
#include "indexpool/Transforms/TuningDb.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/Pass/PassManager.h"

#include "llvm/ADT/STLExtras.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <tuple>

namespace indexpool::tuning {

using namespace mlir;
using mlir::indexpool::GridPolicy;
using mlir::indexpool::LaunchAttr;

std::string shapeClassOf(
    const std::vector<std::pair<std::string, int64_t>> &sizes) {
  std::string text;
  for (const auto &[name, value] : sizes)
    text += (text.empty() ? "" : ", ") + name + "=" + std::to_string(value);
  return text;
}

namespace {

/// How the op's kernel uses the launch fields (IndexPoolAttrs.td).
enum class KernelKind { WarpRows, Score, TopK, Expand, Select, RowLoops };

KernelKind kernelKind(StringRef op) {
  if (llvm::is_contained({"compress", "pool", "hadamard", "quantize"}, op))
    return KernelKind::WarpRows;
  if (op == "score")
    return KernelKind::Score;
  if (op == "topk")
    return KernelKind::TopK;
  if (op == "expand")
    return KernelKind::Expand;
  if (op == "select")
    return KernelKind::Select;
  return KernelKind::RowLoops;
}

/// The threads per block a kernel takes: score (and so select) and the row
/// loops at most kMaxThreadsAtMaxRegisters (their kernels' cap).
int64_t maxThreads(KernelKind kind) {
  return kind == KernelKind::Score || kind == KernelKind::Select ||
                 kind == KernelKind::RowLoops
             ? target::kMaxThreadsAtMaxRegisters
             : target::kMaxThreadsPerBlock;
}

/// The work items the op's grid covers, from its sizes; 0 when unknown.
int64_t workItems(StringRef op,
                  const std::vector<std::pair<std::string, int64_t>> &sizes) {
  auto size = [&](const char *name) -> int64_t {
    for (const auto &[n, v] : sizes)
      if (n == name)
        return v;
    return 0;
  };
  if (llvm::is_contained({"compress", "pool", "residual", "reconstruct"}, op))
    return size("G");
  if (llvm::is_contained({"topk", "expand"}, op))
    return size("M");
  return size("N");
}

/// One knob: its values, the model's first.
struct Knob {
  std::vector<std::function<void(LaunchChoice &)>> settings;
};

template <typename T>
Knob makeKnob(T model, std::vector<T> alternatives,
              std::function<void(LaunchChoice &, T)> set) {
  std::vector<T> values{model};
  for (T v : alternatives)
    if (!llvm::is_contained(values, v))
      values.push_back(v);
  Knob knob;
  for (T v : values)
    knob.settings.push_back([set, v](LaunchChoice &l) { set(l, v); });
  return knob;
}

/// The row layouts (vector_bytes, elements_per_thread) of a warp-row kernel
/// for rows of `d` elements of `elemBytes` bytes: E = vb / elemBytes
/// channels per access, C = ept / E accesses per lane, L = D / (E C) lanes,
/// E and L powers of two, L <= 32, C <= 8. Others fall back to 16-byte
/// accesses: the same kernel as a layout of this list.
std::vector<std::pair<int64_t, int64_t>> rowLayouts(int64_t d,
                                                    int64_t elemBytes) {
  std::vector<std::pair<int64_t, int64_t>> layouts;
  auto pow2 = [](int64_t v) { return v > 0 && (v & (v - 1)) == 0; };
  for (int64_t vb : {16, 8, 4}) {
    if (vb % elemBytes)
      continue;
    int64_t e = vb / elemBytes;
    for (int64_t c : {1, 2, 4, 8}) {
      int64_t ept = e * c;
      if (d <= 0 || d % ept)
        continue;
      int64_t lanes = d / ept;
      if (pow2(e) && pow2(lanes) && lanes <= 32)
        layouts.push_back({vb, ept});
    }
  }
  return layouts;
}

/// The knobs of `kind`, most important first.
std::vector<Knob> knobsFor(KernelKind kind, const LaunchChoice &model,
                           int64_t items, int64_t d, int64_t elemBytes) {
  std::vector<int64_t> threads;
  for (int64_t t : {256, 128, 512, 64, 1024, 32})
    if (t <= maxThreads(kind))
      threads.push_back(t);
  std::vector<int64_t> tiles;
  for (int64_t t : {1, 2, 4, 8, 16, 32, 64, 128})
    if (items <= 0 || t <= items)
      tiles.push_back(t);
  Knob threadKnob = makeKnob<int64_t>(
      model.threadsPerBlock, threads,
      [](LaunchChoice &l, int64_t v) { l.threadsPerBlock = v; });
  Knob tileKnob = makeKnob<int64_t>(
      model.itemsPerBlock, tiles,
      [](LaunchChoice &l, int64_t v) { l.itemsPerBlock = v; });
  Knob gridKnob = makeKnob<std::string>(
      model.grid, {"tiled", "grid_stride"},
      [](LaunchChoice &l, std::string v) { l.grid = v; });
  Knob vectorKnob = makeKnob<int64_t>(
      model.vectorBytes, {16, 8, 4},
      [](LaunchChoice &l, int64_t v) { l.vectorBytes = v; });
  Knob elementKnob = makeKnob<int64_t>(
      model.elementsPerThread, {1, 2, 4, 8, 16},
      [](LaunchChoice &l, int64_t v) { l.elementsPerThread = v; });
  switch (kind) {
  case KernelKind::WarpRows: {
    using Layout = std::pair<int64_t, int64_t>;
    Knob layoutKnob = makeKnob<Layout>(
        {model.vectorBytes, model.elementsPerThread}, rowLayouts(d, elemBytes),
        [](LaunchChoice &l, Layout v) {
          l.vectorBytes = v.first;
          l.elementsPerThread = v.second;
        });
    return {threadKnob, tileKnob, layoutKnob, gridKnob};
  }
  case KernelKind::Score:
    return {threadKnob, tileKnob, vectorKnob, gridKnob};
  case KernelKind::TopK:
    return {threadKnob, elementKnob, tileKnob, gridKnob};
  case KernelKind::Expand:
  case KernelKind::RowLoops:
    return {threadKnob, tileKnob, gridKnob};
  case KernelKind::Select:
    // Its topk part takes the cost model's topk launch, and score reads no
    // elements_per_thread: the select's fields are score's and expand's.
    return {threadKnob, tileKnob, vectorKnob, gridKnob};
  }
  return {};
}

/// Whether the attribute's verifier accepts `launch` on `chip`.
bool verifies(MLIRContext *context, const std::string &chip,
              const LaunchChoice &launch) {
  // Rejections are expected here: they only drop the candidate.
  ScopedDiagnosticHandler silence(context, [](Diagnostic &) {
    return success();
  });
  std::optional<GridPolicy> grid =
      mlir::indexpool::symbolizeGridPolicy(launch.grid);
  if (!grid)
    return false;
  return succeeded(LaunchAttr::verify(
      [&] { return emitError(UnknownLoc::get(context)); }, chip,
      launch.threadsPerBlock, launch.itemsPerBlock, launch.elementsPerThread,
      launch.vectorBytes, *grid));
}

/// At most this many launches per op are enumerated and ranked (every
/// op's knobs have fewer combinations today; this only bounds the work).
constexpr size_t kMaxEnumerated = 4096;

/// The model's choice first; then each knob alone, most important first,
/// through its other values; then the product of all knobs' values in
/// mixed-radix order, the most important knob the fastest digit. Ranking
/// sorts stably, so launches the model cannot tell apart keep this order:
/// single-knob changes before combinations.
std::vector<LaunchChoice> enumerate(MLIRContext *context,
                                    const std::string &chip,
                                    const LaunchChoice &model,
                                    const std::vector<Knob> &knobs) {
  size_t maxCandidates = kMaxEnumerated;
  std::vector<LaunchChoice> out{model};
  auto add = [&](const std::vector<size_t> &digits) {
    LaunchChoice launch = model;
    for (size_t i = 0; i < knobs.size(); ++i)
      knobs[i].settings[digits[i]](launch);
    if (!llvm::is_contained(out, launch) && verifies(context, chip, launch))
      out.push_back(launch);
  };
  std::vector<size_t> digits(knobs.size(), 0);
  for (size_t k = 0; k < knobs.size(); ++k) {
    for (size_t v = 1; v < knobs[k].settings.size(); ++v) {
      if (out.size() >= maxCandidates)
        return out;
      digits[k] = v;
      add(digits);
    }
    digits[k] = 0;
  }
  while (out.size() < maxCandidates) {
    size_t k = 0;
    for (; k < knobs.size(); ++k) {
      if (++digits[k] < knobs[k].settings.size())
        break;
      digits[k] = 0;
    }
    if (k == knobs.size())
      break; // every combination seen
    add(digits);
  }
  return out;
}

cost::Launch toCostLaunch(const LaunchChoice &launch) {
  cost::Launch out;
  out.threadsPerBlock = launch.threadsPerBlock;
  out.itemsPerBlock = launch.itemsPerBlock;
  out.elementsPerThread = launch.elementsPerThread;
  out.vectorBytes = launch.vectorBytes;
  out.grid = launch.grid == "tiled" ? cost::Grid::Tiled : cost::Grid::GridStride;
  return out;
}

/// Launches estimated within this fraction of the best rank as ties.
constexpr double kEstimateResolution = 0.05;

/// Keeps candidate 0 (the model's choice) and the `keep` - 1 others with
/// the lowest estimates: those near the best in enumeration order, then
/// the others in ascending order of estimate. Without estimates (a dynamic
/// size) the enumeration order stands.
void rankAndKeep(const target::ChipInfo &chip, const cost::OpDesc &desc,
                 int keep, OpCandidates &entry) {
  std::vector<double> estimates;
  for (const LaunchChoice &launch : entry.launches)
    estimates.push_back(
        cost::estimateMicroseconds(chip, desc, toCostLaunch(launch)));
  bool known = llvm::all_of(estimates, [](double us) { return us >= 0; });
  // The model sees only bytes in flight, tails and block starts: launches
  // within kEstimateResolution of the best estimate are equally good to
  // it, so they come first in enumeration order (each knob alone before
  // combinations, a spread of launches for the measurement to decide
  // between); the rest follow by estimate. The sort key ends in the
  // position, which makes std::sort stable.
  std::vector<size_t> order(entry.launches.size());
  for (size_t i = 0; i < order.size(); ++i)
    order[i] = i;
  if (known && order.size() > 1) {
    double best = *std::min_element(estimates.begin() + 1, estimates.end());
    auto key = [&](size_t i) {
      bool nearBest = estimates[i] <= best * (1 + kEstimateResolution);
      return std::make_tuple(!nearBest, nearBest ? 0.0 : estimates[i], i);
    };
    std::sort(order.begin() + 1, order.end(),
              [&](size_t a, size_t b) { return key(a) < key(b); });
  }
  if (order.size() > size_t(keep))
    order.resize(keep);
  std::vector<LaunchChoice> launches;
  entry.estimatesUs.clear();
  for (size_t i : order) {
    launches.push_back(entry.launches[i]);
    entry.estimatesUs.push_back(known ? estimates[i] : -1);
  }
  entry.launches = std::move(launches);
}

int64_t elementBytes(Operation *op) {
  if (op->getNumOperands() == 0)
    return 4;
  auto type = dyn_cast<RankedTensorType>(op->getOperand(0).getType());
  if (!type || !type.getElementType().isIntOrFloat())
    return 4;
  return std::max<int64_t>(1, type.getElementTypeBitWidth() / 8);
}

int64_t rowLength(Operation *op) {
  if (op->getNumOperands() == 0)
    return 0;
  auto type = dyn_cast<RankedTensorType>(op->getOperand(0).getType());
  if (!type || type.getRank() == 0 || type.isDynamicDim(type.getRank() - 1))
    return 0;
  return type.getDimSize(type.getRank() - 1);
}

} // namespace

bool generateCandidates(Operation *function, const std::string &chip,
                        int maxCandidates, std::vector<OpCandidates> &out,
                        std::string &error) {
  MLIRContext *context = function->getContext();
  bool cpu = isCpuChip(chip);
  // The ops the model configures are the ops a database entry can name;
  // on the CPU too (any chip of the table gives the same ops).
  std::string modelChip = cpu ? "sm_90" : chip;
  std::string diagnostics;
  ScopedDiagnosticHandler capture(context, [&](Diagnostic &diag) {
    diagnostics += (diagnostics.empty() ? "" : "; ") + diag.str();
    return success();
  });
  // The ops as compiled: fused chains (CompileOptions::fuse, on by
  // default) are the ops the database entries must name.
  PassManager pm(context, function->getName().getStringRef());
  pm.addPass(mlir::indexpool::createIndexPoolFuse());
  mlir::indexpool::IndexPoolConfigureOptions configure;
  configure.chip = modelChip;
  pm.addPass(mlir::indexpool::createIndexPoolConfigure(configure));
  if (failed(pm.run(function))) {
    error = "the cost model cannot configure the function: " + diagnostics;
    return false;
  }
  int opIndex = 0;
  function->walk([&](Operation *op) {
    auto attr = op->getAttrOfType<LaunchAttr>(
        mlir::indexpool::kLaunchAttrName);
    if (!attr)
      return;
    OpCandidates &entry = out.emplace_back();
    entry.op = op->getName().stripDialect().str();
    entry.opIndex = opIndex++;
    std::vector<std::pair<std::string, int64_t>> sizes =
        mlir::indexpool::tuningSizes(op);
    entry.shapeClass = shapeClassOf(sizes);
    if (cpu) {
      // No CPU estimate: the widths in their fixed order, the default first.
      for (int width : kCpuVectorWidths)
        if (int(entry.launches.size()) < maxCandidates) {
          entry.launches.push_back(LaunchChoice{0, 0, 0, 0, "", width});
          entry.estimatesUs.push_back(-1);
        }
      return;
    }
    LaunchChoice model;
    model.threadsPerBlock = attr.getThreadsPerBlock();
    model.itemsPerBlock = attr.getItemsPerBlock();
    model.elementsPerThread = attr.getElementsPerThread();
    model.vectorBytes = attr.getVectorBytes();
    model.grid = mlir::indexpool::stringifyGridPolicy(attr.getGrid()).str();
    KernelKind kind = kernelKind(entry.op);
    std::vector<Knob> knobs =
        knobsFor(kind, model, workItems(entry.op, sizes), rowLength(op),
                 elementBytes(op));
    entry.launches = enumerate(context, chip, model, knobs);
    std::optional<cost::OpDesc> desc =
        mlir::indexpool::describeForCostModel(op);
    const target::ChipInfo *chipInfo = target::lookupChip(chip);
    if (desc && chipInfo) {
      rankAndKeep(*chipInfo, *desc, maxCandidates, entry);
    } else {
      if (entry.launches.size() > size_t(maxCandidates))
        entry.launches.resize(maxCandidates);
      entry.estimatesUs.assign(entry.launches.size(), -1);
    }
  });
  if (out.empty()) {
    error = "the function has no indexpool op to tune";
    return false;
  }
  return true;
}

} // namespace indexpool::tuning
