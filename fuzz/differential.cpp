//===- differential.cpp - compiled code against the float64 reference -----===//
//
// Input: bytes that choose a small indexpool function -- one op of pool,
// hadamard, quantize, dequantize, score, topk, expand, compress, select,
// refine, or
// one of the chains pool -> hadamard -> quantize and score -> topk -> expand
// -- with small random sizes, element types and properties, static or
// dynamic shapes, and the seed of its random inputs (drawn by use, never all
// zeros). A function the verifier accepts must pass the evaluator's shape
// rules, compile for the CPU JIT and give results within the tolerances of
// `indexpool-run --verify` (Runtime/Compare.h); one input byte in four also
// runs it through the GPU emulator of a chip. Anything else is a finding.
//
// FUZZ_DIFFERENTIAL_VERBOSE=1 prints every function and why it was skipped.
//
//===----------------------------------------------------------------------===//

#include "FuzzCommon.h"

#include "indexpool/Dialect/IndexPoolDialect.h"
#include "indexpool/Evaluator/Evaluator.h"
#include "indexpool/Tooling/CPUJit.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/InitAllDialects.h"
#include "mlir/InitAllExtensions.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"

#include <fuzzer/FuzzedDataProvider.h>

#include <cstdlib>
#include <map>
#include <memory>
#include <string>
#include <vector>

using namespace mlir;
using ::indexpool::fuzz::finding;
namespace ref = ::indexpool::ref;

namespace {

/// The diagnostics of the current input (parser, verifier, pipeline).
std::string diagnostics;

bool verbose() {
  static bool on = std::getenv("FUZZ_DIFFERENTIAL_VERBOSE") != nullptr;
  return on;
}

/// A function argument or result: its sizes and element type.
struct TensorSpec {
  std::vector<int64_t> shape;
  std::string element;
};

/// Builds the text of one function from the fuzz bytes.
class Generator {
public:
  explicit Generator(FuzzedDataProvider &bytes) : bytes(bytes) {
    dynamic = bytes.ConsumeIntegralInRange<int>(0, 3) == 0;
  }

  /// The function's text; `shapes` receives the argument shapes.
  std::string build(std::vector<std::vector<int64_t>> &shapes);

private:
  int64_t size(int64_t lo, int64_t hi) {
    return bytes.ConsumeIntegralInRange<int64_t>(lo, hi);
  }
  int64_t pow2(int lo, int hi) { return int64_t(1) << size(lo, hi); }
  template <size_t N> const char *pick(const char *const (&options)[N]) {
    return options[bytes.ConsumeIntegralInRange<size_t>(0, N - 1)];
  }
  const char *keyType() { return pick({"f32", "f16", "bf16"}); }
  const char *quantType() { return pick({"i8", "f8E4M3FN"}); }
  const char *temperature() {
    // Small temperatures scale logits up: the softmax must subtract the max.
    return pick({"1.0", "0.5", "2.0", "0.01", "0.1"});
  }
  const char *minAbsmax() { return pick({"1.0e-4", "1.0e-3", "0.5"}); }

  std::string arg(std::vector<int64_t> shape, const std::string &element) {
    std::string name = "%a" + std::to_string(args.size());
    args.push_back({std::move(shape), element});
    return name;
  }
  std::string value() { return "%v" + std::to_string(values++); }
  std::string type(const TensorSpec &spec) const {
    std::string text = "tensor<";
    for (int64_t d : spec.shape)
      text += (dynamic ? std::string("?") : std::to_string(d)) + "x";
    return text + spec.element + ">";
  }
  std::string types(const std::vector<TensorSpec> &specs) const {
    std::string text;
    for (const TensorSpec &spec : specs)
      text += (text.empty() ? "" : ", ") + type(spec);
    return text;
  }
  /// "%r0, %r1 = NAME OPERANDS ATTRS : (TYPES) -> (TYPES)"; returns the
  /// result names.
  std::vector<std::string> op(const std::string &name,
                              const std::vector<std::string> &operands,
                              const std::vector<TensorSpec> &operandTypes,
                              const std::string &attrs,
                              const std::vector<TensorSpec> &resultTypes);

  void pool(bool fusedTail);
  void hadamard();
  void quantize();
  void dequantize();
  void scoreOperands(const TensorSpec &query, int64_t n,
                     std::vector<std::string> &operands,
                     std::vector<TensorSpec> &operandTypes);
  void score();
  void topk();
  void expand();
  void compress();
  void select();
  void refine();
  void scoreTopkExpand();

  FuzzedDataProvider &bytes;
  bool dynamic = false;
  std::vector<TensorSpec> args;
  std::vector<std::pair<std::string, TensorSpec>> returns;
  std::string body;
  int values = 0;
  std::map<std::string, TensorSpec> specs;
};

std::vector<std::string>
Generator::op(const std::string &name, const std::vector<std::string> &operands,
              const std::vector<TensorSpec> &operandTypes,
              const std::string &attrs,
              const std::vector<TensorSpec> &resultTypes) {
  std::vector<std::string> results;
  for (const TensorSpec &spec : resultTypes) {
    results.push_back(value());
    specs[results.back()] = spec;
  }
  body += "  ";
  for (size_t i = 0; i < results.size(); ++i)
    body += (i ? ", " : "") + results[i];
  body += " = indexpool." + name + " ";
  for (size_t i = 0; i < operands.size(); ++i)
    body += (i ? ", " : "") + operands[i];
  if (!attrs.empty())
    body += " " + attrs;
  body += " : (" + types(operandTypes) + ") -> (" + types(resultTypes) + ")\n";
  return results;
}

/// pool (or compress): keys [T, D], scores [T] or [T, D], bias [P(, D)].
void Generator::pool(bool fused) {
  int64_t p = pow2(1, 3),
          d = fused && bytes.ConsumeBool() ? pow2(0, 6) : size(1, 40);
  int64_t t = size(0, 40);
  int64_t g = t / p;
  bool perChannel = bytes.ConsumeBool(), withBias = bytes.ConsumeBool();
  TensorSpec keys{{t, d}, keyType()};
  TensorSpec scores{perChannel ? std::vector<int64_t>{t, d}
                               : std::vector<int64_t>{t},
                    keyType()};
  std::vector<std::string> operands{arg(keys.shape, keys.element),
                                    arg(scores.shape, scores.element)};
  std::vector<TensorSpec> operandTypes{keys, scores};
  std::string bias;
  if (withBias) {
    TensorSpec b{perChannel ? std::vector<int64_t>{p, d}
                            : std::vector<int64_t>{p},
                 keyType()};
    bias = " bias(" + arg(b.shape, b.element) + ")";
    operandTypes.push_back(b);
  }
  std::string attrs = "{pool_size = " + std::to_string(p) +
                      " : i64, temperature = " + temperature() + " : f32";
  TensorSpec weights{perChannel ? std::vector<int64_t>{g, p, d}
                                : std::vector<int64_t>{g, p},
                     "f32"};
  // The name and operands, printed as op() would, plus the bias.
  std::string operandText = operands[0] + ", " + operands[1] + bias;
  if (!fused) {
    TensorSpec pooled{{g, d}, bytes.ConsumeBool() ? "f32" : keys.element};
    std::vector<std::string> r =
        op("pool", {operandText}, operandTypes, attrs + "}", {pooled, weights});
    returns.push_back({r[0], pooled});
    returns.push_back({r[1], weights});
    return;
  }
  bool rotate = bytes.ConsumeBool() && (d & (d - 1)) == 0;
  if (rotate)
    attrs += ", rotate";
  if (bytes.ConsumeBool())
    attrs += ", pow2_scale";
  attrs += std::string(", min_absmax = ") + minAbsmax() + " : f32}";
  TensorSpec codes{{g, d}, quantType()}, scales{{g}, "f32"};
  std::vector<std::string> r = op("compress", {operandText}, operandTypes,
                                  attrs, {codes, scales, weights});
  returns.push_back({r[0], codes});
  returns.push_back({r[1], scales});
  returns.push_back({r[2], weights});
}

void Generator::hadamard() {
  std::vector<int64_t> shape;
  for (int64_t rank = size(1, 3); rank > 1; --rank)
    shape.push_back(size(0, 6));
  shape.push_back(pow2(0, 7));
  TensorSpec input{shape, keyType()};
  TensorSpec result{shape, bytes.ConsumeBool() ? "f32" : input.element};
  std::vector<std::string> r =
      op("hadamard", {arg(input.shape, input.element)}, {input}, "", {result});
  returns.push_back({r[0], result});
}

void Generator::quantize() {
  int64_t n = size(0, 24), d = size(1, 48);
  TensorSpec input{{n, d}, keyType()};
  TensorSpec codes{{n, d}, quantType()}, scales{{n}, "f32"};
  std::string attrs = std::string("{min_absmax = ") + minAbsmax() + " : f32" +
                      (bytes.ConsumeBool() ? ", pow2_scale}" : "}");
  std::vector<std::string> r = op("quantize", {arg(input.shape, input.element)},
                                  {input}, attrs, {codes, scales});
  returns.push_back({r[0], codes});
  returns.push_back({r[1], scales});
}

void Generator::dequantize() {
  int64_t n = size(0, 24), d = size(1, 48);
  TensorSpec codes{{n, d}, quantType()}, scales{{n}, "f32"};
  TensorSpec result{{n, d}, keyType()};
  std::vector<std::string> r =
      op("dequantize",
         {arg(codes.shape, codes.element), arg(scales.shape, scales.element)},
         {codes, scales}, "", {result});
  returns.push_back({r[0], result});
}

/// The operands score and select share: `query`, weights [M, H], keys
/// [N, D] of a key or quantized type and, for quantized keys, scales [N].
void Generator::scoreOperands(const TensorSpec &query, int64_t n,
                              std::vector<std::string> &operands,
                              std::vector<TensorSpec> &operandTypes) {
  int64_t m = query.shape[0], h = query.shape[1], d = query.shape[2];
  TensorSpec weights{{m, h}, "f32"};
  bool quantized = bytes.ConsumeBool();
  TensorSpec keys{{n, d}, quantized ? quantType() : keyType()};
  operands = {arg(query.shape, query.element),
              arg(weights.shape, weights.element),
              arg(keys.shape, keys.element)};
  operandTypes = {query, weights, keys};
  if (quantized) {
    TensorSpec scales{{n}, "f32"};
    operands.back() += " scales(" + arg(scales.shape, scales.element) + ")";
    operandTypes.push_back(scales);
  }
}

void Generator::score() {
  int64_t m = size(1, 3), h = size(1, 4), d = size(1, 40), n = size(0, 40);
  TensorSpec query{{m, h, d}, bytes.ConsumeBool() ? "f8E4M3FN" : keyType()};
  std::vector<std::string> operands;
  std::vector<TensorSpec> operandTypes;
  scoreOperands(query, n, operands, operandTypes);
  TensorSpec logits{{m, n}, "f32"};
  std::vector<std::string> r =
      op("score", operands, operandTypes, "", {logits});
  returns.push_back({r[0], logits});
}

void Generator::topk() {
  int64_t m = size(1, 4), n = size(1, 64), k = size(1, n);
  TensorSpec logits{{m, n}, "f32"};
  std::vector<std::string> operands{arg(logits.shape, logits.element)};
  std::vector<TensorSpec> operandTypes{logits};
  if (bytes.ConsumeBool()) {
    TensorSpec valid{{m}, "i32"};
    operands.back() += " valid(" + arg(valid.shape, valid.element) + ")";
    operandTypes.push_back(valid);
  }
  TensorSpec values{{m, k}, "f32"}, indices{{m, k}, "i32"};
  std::vector<std::string> r =
      op("topk", operands, operandTypes,
         "{k = " + std::to_string(k) + " : i64}", {values, indices});
  returns.push_back({r[0], values});
  returns.push_back({r[1], indices});
}

void Generator::expand() {
  int64_t m = size(1, 4), k = size(0, 16), p = pow2(1, 6);
  TensorSpec indices{{m, k}, "i32"}, tokens{{m, k * p}, "i32"};
  std::vector<std::string> r =
      op("expand", {arg(indices.shape, indices.element)}, {indices},
         "{pool_size = " + std::to_string(p) + " : i64}", {tokens});
  returns.push_back({r[0], tokens});
}

void Generator::select() {
  int64_t m = size(1, 3), h = size(1, 4), d = size(1, 40), n = size(1, 40);
  int64_t k = size(1, n), p = pow2(1, 3);
  TensorSpec query{{m, h, d}, keyType()};
  std::vector<std::string> operands;
  std::vector<TensorSpec> operandTypes;
  scoreOperands(query, n, operands, operandTypes);
  if (bytes.ConsumeBool()) {
    TensorSpec valid{{m}, "i32"};
    operands.back() += " valid(" + arg(valid.shape, valid.element) + ")";
    operandTypes.push_back(valid);
  }
  TensorSpec tokens{{m, k * p}, "i32"};
  std::vector<std::string> r =
      op("select", operands, operandTypes,
         "{k = " + std::to_string(k) +
             " : i64, pool_size = " + std::to_string(p) + " : i64}",
         {tokens});
  returns.push_back({r[0], tokens});
}

/// refine: candidates [M, C] (random ids, padding included, drawn by the
/// reference's input rules) re-scored against keys [T, D].
void Generator::refine() {
  int64_t m = size(1, 3), h = size(1, 4), d = size(1, 40), t = size(1, 40);
  int64_t c = size(1, 48), k = size(1, c);
  TensorSpec query{{m, h, d}, bytes.ConsumeBool() ? "f8E4M3FN" : keyType()};
  TensorSpec weights{{m, h}, "f32"}, candidates{{m, c}, "i32"};
  bool quantized = bytes.ConsumeBool();
  TensorSpec keys{{t, d}, quantized ? quantType() : keyType()};
  std::vector<std::string> operands = {
      arg(query.shape, query.element), arg(weights.shape, weights.element),
      arg(candidates.shape, candidates.element),
      arg(keys.shape, keys.element)};
  std::vector<TensorSpec> operandTypes = {query, weights, candidates, keys};
  if (quantized) {
    TensorSpec scales{{t}, "f32"};
    operands.back() += " scales(" + arg(scales.shape, scales.element) + ")";
    operandTypes.push_back(scales);
  }
  TensorSpec tokens{{m, k}, "i32"};
  std::vector<std::string> r =
      op("refine", operands, operandTypes,
         "{k = " + std::to_string(k) + " : i64}", {tokens});
  returns.push_back({r[0], tokens});
}

/// score -> topk -> expand: the chain select fuses, unfused.
void Generator::scoreTopkExpand() {
  score();
  auto [logitsName, logits] = returns.back();
  returns.pop_back();
  int64_t m = logits.shape[0], n = logits.shape[1];
  if (n == 0) {
    returns.push_back({logitsName, logits});
    return;
  }
  int64_t k = size(1, n), p = pow2(1, 3);
  TensorSpec values{{m, k}, "f32"}, indices{{m, k}, "i32"};
  std::vector<std::string> t =
      op("topk", {logitsName}, {logits},
         "{k = " + std::to_string(k) + " : i64}", {values, indices});
  TensorSpec tokens{{m, k * p}, "i32"};
  std::vector<std::string> e =
      op("expand", {t[1]}, {indices},
         "{pool_size = " + std::to_string(p) + " : i64}", {tokens});
  returns.push_back({t[0], values});
  returns.push_back({e[0], tokens});
}

std::string Generator::build(std::vector<std::vector<int64_t>> &shapes) {
  switch (bytes.ConsumeIntegralInRange<int>(0, 10)) {
  case 0:
    pool(/*fused=*/false);
    break;
  case 1:
    hadamard();
    break;
  case 2:
    quantize();
    break;
  case 3:
    dequantize();
    break;
  case 4:
    score();
    break;
  case 5:
    topk();
    break;
  case 6:
    expand();
    break;
  case 7:
    pool(/*fused=*/true);
    break;
  case 8:
    select();
    break;
  case 9:
    refine();
    break;
  default:
    scoreTopkExpand();
    break;
  }
  std::string text = "func.func @f(";
  for (size_t i = 0; i < args.size(); ++i)
    text += (i ? ", %a" : "%a") + std::to_string(i) + ": " + type(args[i]);
  std::vector<TensorSpec> resultTypes;
  for (auto &entry : returns)
    resultTypes.push_back(entry.second);
  text += ") -> (" + types(resultTypes) + ") {\n" + body + "  return ";
  for (size_t i = 0; i < returns.size(); ++i)
    text += (i ? ", " : "") + returns[i].first;
  text += " : " + types(resultTypes) + "\n}\n";
  for (const TensorSpec &spec : args)
    shapes.push_back(spec.shape);
  return text;
}

/// Runs the compiled function and compares every result with `reference`.
void runAndCompare(func::FuncOp func, const std::string &text,
                   ArrayRef<ref::HostTensor> inputs,
                   ArrayRef<ref::HostTensor> predicted,
                   const mlir::indexpool::ReferenceRun &reference,
                   std::optional<std::string> emulatedGPU) {
  std::string where = emulatedGPU ? "the GPU emulator (" + *emulatedGPU + ")"
                                  : std::string("the CPU JIT");
  mlir::indexpool::CPUJitOptions options;
  options.vectorWidth = 8;
  options.emulatedGPU = emulatedGPU;
  options.toolName = "fuzz-differential";
  // The JIT's code is not instrumented by ASan: its accesses are checked
  // against their buffers instead (one outside exits, which libFuzzer
  // reports as a finding).
  options.checkBounds = true;
  std::string error;
  std::unique_ptr<mlir::indexpool::CPUJitFunction> compiled =
      mlir::indexpool::CPUJitFunction::compile(func, options, error);
  if (!compiled)
    finding("a verified function does not compile for " + where + ": " +
            error + "\n" + diagnostics + text);
  compiled->setInputs(inputs);
  std::vector<ref::HostTensor> results;
  if (failed(compiled->call(predicted, &results, error)))
    finding(where + ": " + error + "\n" + text);
  for (size_t i = 0; i < results.size(); ++i) {
    const std::optional<mlir::indexpool::SelectionContext> &selection =
        reference.selections[i];
    mlir::indexpool::Comparison comparison =
        mlir::indexpool::compareWithReference(results[i], reference.results[i],
                                              selection ? &*selection
                                                        : nullptr);
    if (!comparison.ok)
      finding(where + ": result #" + std::to_string(i) + " is out of " +
              "tolerance: " +
              mlir::indexpool::formatComparison(comparison, results[i].type) +
              "\n" + text);
  }
}

} // namespace

extern "C" int LLVMFuzzerInitialize(int *, char ***) {
  // The emulated teams block in barriers: waiting threads must sleep, not
  // spin. Read once, when libomp starts (possibly before any emulator run).
  setenv("KMP_BLOCKTIME", "0", /*overwrite=*/0);
  // The JIT applies the pass manager's command-line options (defaults here),
  // as indexpool-run does: they must exist.
  registerPassManagerCLOptions();
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  static std::unique_ptr<MLIRContext> context;
  if (!context) {
    DialectRegistry registry;
    // What indexpool-run registers: the pipeline's dialects and their
    // bufferization and lowering interfaces.
    registerAllDialects(registry);
    registerAllExtensions(registry);
    registry.insert<mlir::indexpool::IndexPoolDialect>();
    mlir::indexpool::registerCPUJitTranslations(registry);
    context = std::make_unique<MLIRContext>(registry);
    context->loadAllAvailableDialects();
    context->printOpOnDiagnostic(false);
  }
  FuzzedDataProvider bytes(data, size);
  uint64_t seed = bytes.ConsumeIntegral<uint64_t>();
  bool emulate = bytes.ConsumeIntegralInRange<int>(0, 3) == 0;
  const char *chip = bytes.ConsumeBool() ? "sm_90" : "sm_80";
  Generator generator(bytes);
  std::vector<std::vector<int64_t>> shapes;
  std::string text = generator.build(shapes);
  if (verbose())
    llvm::errs() << "---\n" << text;

  diagnostics.clear();
  ScopedDiagnosticHandler collect(context.get(), [&](Diagnostic &diag) {
    diagnostics += diag.str() + "\n";
    return success();
  });
  OwningOpRef<ModuleOp> module =
      parseSourceString<ModuleOp>(text, context.get());
  if (!module) {
    // The generator also writes functions the verifier rightly rejects.
    if (verbose())
      llvm::errs() << "rejected: " << diagnostics;
    return 0;
  }
  auto func = module->lookupSymbol<func::FuncOp>("f");
  std::string error;
  FailureOr<std::vector<ref::HostTensor>> inputs =
      mlir::indexpool::generateRandomInputs(func, shapes, seed, error);
  if (failed(inputs))
    finding("no random inputs for a verified function: " + error + "\n" + text);
  FailureOr<std::vector<ref::HostTensor>> predicted =
      mlir::indexpool::evaluateFunction(func, *inputs, error,
                                        /*shapesOnly=*/true);
  if (failed(predicted))
    finding("the evaluator rejects a verified function on inputs of its "
            "shapes: " +
            error + "\n" + text);
  FailureOr<mlir::indexpool::ReferenceRun> reference =
      mlir::indexpool::evaluateReference(func, *inputs, error);
  if (failed(reference))
    finding("the reference fails where the shape rules passed: " + error +
            "\n" + text);
  runAndCompare(func, text, *inputs, *predicted, *reference, std::nullopt);
  if (emulate)
    runAndCompare(func, text, *inputs, *predicted, *reference,
                  std::string(chip));
  if (verbose())
    llvm::errs() << "ok\n";
  return 0;
}
