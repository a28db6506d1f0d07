//===- ir_parser.cpp - fuzz the IR parser, verifiers and printer ----------===//
//
// Input: the text of a module of func, arith, tensor and indexpool ops. It
// must parse and verify or fail with diagnostics (captured, not printed).
// A module that verifies must print, in the custom and in the generic form,
// as text that parses and verifies again, and print the same after that (an
// op that drops an operand prints IR that no longer parses). Every function
// whose arguments have static shapes also goes through the evaluator's shape
// rules, which must accept or fail with one line: never crash or allocate
// for sizes the verifier let through.
//
//===----------------------------------------------------------------------===//

#include "FuzzCommon.h"

#include "indexpool/Dialect/IndexPoolDialect.h"
#include "indexpool/Evaluator/Evaluator.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/OperationSupport.h"
#include "mlir/Parser/Parser.h"

#include "llvm/Support/raw_ostream.h"

#include <memory>
#include <string>

using namespace mlir;
using ::indexpool::fuzz::finding;

namespace {

/// One context for many inputs (creating one costs more than most inputs);
/// replaced now and then, since every type and attribute parsed stays in it.
class Session {
public:
  MLIRContext &get() {
    if (!context || ++uses > 2000) {
      DialectRegistry registry;
      registry
          .insert<arith::ArithDialect, func::FuncDialect, tensor::TensorDialect,
                  mlir::indexpool::IndexPoolDialect>();
      context = std::make_unique<MLIRContext>(registry,
                                              MLIRContext::Threading::DISABLED);
      context->loadAllAvailableDialects();
      context->printOpOnDiagnostic(false);
      context->printStackTraceOnDiagnostic(false);
      uses = 0;
    }
    return *context;
  }

private:
  std::unique_ptr<MLIRContext> context;
  int uses = 0;
};

std::string print(ModuleOp module, bool generic) {
  std::string text;
  llvm::raw_string_ostream os(text);
  OpPrintingFlags flags;
  if (generic)
    flags.printGenericOpForm();
  module->print(os, flags);
  return text;
}

/// The evaluator's shape rules on a function with static argument shapes.
void evaluateShapes(func::FuncOp func) {
  std::vector<::indexpool::ref::HostTensor> inputs;
  for (Type type : func.getArgumentTypes()) {
    auto tensor = dyn_cast<RankedTensorType>(type);
    if (!tensor || !tensor.hasStaticShape())
      return;
    std::optional<::indexpool::ref::ElementType> element =
        mlir::indexpool::toElementType(tensor.getElementType());
    if (!element)
      return;
    ::indexpool::ref::HostTensor input;
    input.type = *element;
    input.shape.assign(tensor.getShape().begin(), tensor.getShape().end());
    inputs.push_back(std::move(input));
  }
  std::string error;
  if (failed(mlir::indexpool::evaluateFunction(func, inputs, error,
                                               /*shapesOnly=*/true)) &&
      (error.empty() || error.find('\n') != std::string::npos))
    finding("the evaluator failed without one line: '" + error + "'");
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  static Session session;
  MLIRContext &context = session.get();
  ScopedDiagnosticHandler quiet(&context,
                                [](Diagnostic &) { return success(); });

  // MLIR's lexer reads up to a terminating NUL, which the fuzzer's buffer
  // lacks: a std::string has one.
  std::string text(reinterpret_cast<const char *>(data), size);
  OwningOpRef<ModuleOp> module = parseSourceString<ModuleOp>(text, &context);
  if (!module)
    return 0;

  for (bool generic : {false, true}) {
    std::string printed = print(*module, generic);
    std::string diagnostics;
    ScopedDiagnosticHandler collect(&context, [&](Diagnostic &diag) {
      diagnostics += diag.str() + "; ";
      return success();
    });
    OwningOpRef<ModuleOp> again =
        parseSourceString<ModuleOp>(printed, &context);
    if (!again)
      finding(std::string("the ") + (generic ? "generic" : "custom") +
              " form of a verified module does not parse: " + diagnostics +
              "\n" + printed);
    if (print(*again, generic) != printed)
      finding(std::string("printing the re-parsed ") +
              (generic ? "generic" : "custom") + " form changed it:\n" +
              printed + "\n---\n" + print(*again, generic));
  }

  for (auto func : module->getOps<func::FuncOp>())
    if (!func.isExternal())
      evaluateShapes(func);
  return 0;
}
