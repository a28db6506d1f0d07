//===- Module.cpp - parse and inspect IndexPool IR for the API ------------===//

#include "ModuleImpl.h"

#include "indexpool/Dialect/IndexPoolDialect.h"
#include "indexpool/Dialect/IndexPoolOps.h"
#include "indexpool/Evaluator/Evaluator.h"
#include "indexpool/API/Tensor.h"
#include "indexpool/Runtime/FileRead.h"
#include "indexpool/Runtime/Storage.h"
#include "indexpool/Tooling/CPUJit.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/Verifier.h"
#include "mlir/InitAllDialects.h"
#include "mlir/InitAllExtensions.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Target/LLVM/NVVM/Target.h"
#include "mlir/Target/LLVMIR/Dialect/All.h"

#include "llvm/Support/raw_ostream.h"

using namespace indexpool;
using namespace mlir;

//===----------------------------------------------------------------------===//
// Diagnostics
//===----------------------------------------------------------------------===//

static const char *severityName(DiagnosticSeverity severity) {
  switch (severity) {
  case DiagnosticSeverity::Error: return "error";
  case DiagnosticSeverity::Warning: return "warning";
  case DiagnosticSeverity::Note: return "note";
  case DiagnosticSeverity::Remark: return "remark";
  }
  return "error";
}

static void appendDiagnostic(std::string &out, Location loc,
                             DiagnosticSeverity severity,
                             const std::string &message) {
  llvm::raw_string_ostream os(out);
  if (auto file = loc->findInstanceOf<FileLineColLoc>())
    os << file.getFilename().getValue() << ":" << file.getLine() << ":"
       << file.getColumn() << ": ";
  os << severityName(severity) << ": " << message << "\n";
}

api::DiagnosticCapture::DiagnosticCapture(MLIRContext &context)
    : context(context) {
  handler = context.getDiagEngine().registerHandler([this](Diagnostic &diag) {
    appendDiagnostic(diagnostics, diag.getLocation(), diag.getSeverity(),
                     diag.str());
    for (Diagnostic &note : diag.getNotes())
      appendDiagnostic(diagnostics, note.getLocation(), note.getSeverity(),
                       note.str());
    return success();
  });
}

api::DiagnosticCapture::~DiagnosticCapture() {
  context.getDiagEngine().eraseHandler(handler);
}

Status api::DiagnosticCapture::failure(const std::string &summary) const {
  std::string text = diagnostics;
  while (!text.empty() && text.back() == '\n')
    text.pop_back();
  if (text.empty())
    return Status::error(summary);
  if (summary.empty())
    return Status::error(text);
  return Status::error(summary + "\n" + text);
}

//===----------------------------------------------------------------------===//
// Types
//===----------------------------------------------------------------------===//

static std::string str(Type type) {
  std::string text;
  llvm::raw_string_ostream os(text);
  os << type;
  return text;
}

static Status tensorTypeOf(Type type, const std::string &what,
                           ::indexpool::TensorType &out) {
  auto tensor = dyn_cast<RankedTensorType>(type);
  std::optional<ref::ElementType> element =
      tensor ? mlir::indexpool::toElementType(tensor.getElementType())
             : std::nullopt;
  if (!element || !elementTypeInfo(*element).allows(ElementUse::Tensor))
    return Status::error(what + " has type " + str(type) +
                         ": the API passes ranked tensors of " +
                         elementTypeList(ElementUse::Tensor));
  out.dtype = *element;
  out.shape.clear();
  for (int64_t size : tensor.getShape())
    out.shape.push_back(ShapedType::isDynamic(size) ? -1 : size);
  return Status();
}

/// The operand name (the op contract's, as docs/IndexPoolOps.md gives it)
/// that `argument` fills in its first indexpool use, the single-input ops'
/// "input" only when nothing else names it.
static std::string argumentName(BlockArgument argument) {
  std::string generic;
  for (OpOperand &use : argument.getUses()) {
    Operation *op = use.getOwner();
    if (!isa<mlir::indexpool::IndexPoolDialect>(op->getDialect()))
      continue;
    // The contract's operands in order, absent optional ones skipped.
    unsigned number = 0;
    for (auto [contract, value] :
         llvm::zip_equal(mlir::indexpool::getOpContract(op).operands,
                         mlir::indexpool::getContractOperands(op))) {
      if (!value || number++ != use.getOperandNumber())
        continue;
      if (std::string_view(contract.name) != "input")
        return contract.name;
      if (generic.empty())
        generic = contract.name;
    }
  }
  return generic;
}

Status api::signatureOf(func::FuncOp func, FunctionSignature &out) {
  out.name = func.getSymName().str();
  out.argumentNames.clear();
  for (BlockArgument argument : func.getArguments())
    out.argumentNames.push_back(argumentName(argument));
  out.arguments.assign(func.getNumArguments(), TensorType());
  out.results.assign(func.getNumResults(), TensorType());
  std::string at = " of @" + out.name;
  for (auto [i, type] : llvm::enumerate(func.getArgumentTypes()))
    if (Status s = tensorTypeOf(type, "argument #" + std::to_string(i) + at,
                                out.arguments[i]);
        !s)
      return s;
  for (auto [i, type] : llvm::enumerate(func.getResultTypes()))
    if (Status s = tensorTypeOf(type, "result #" + std::to_string(i) + at,
                                out.results[i]);
        !s)
      return s;
  return Status();
}

Status api::checkTensor(const TensorRef &t, const TensorType &type,
                        const std::string &what) {
  std::string expected = "tensor<";
  for (int64_t size : type.shape)
    expected += (size < 0 ? std::string("?") : std::to_string(size)) + "x";
  expected += std::string(dtypeName(type.dtype)) + ">";
  if (t.dtype != type.dtype)
    return Status::error(what + " is " + dtypeName(t.dtype) + ", expected " +
                         expected);
  if (t.rank < 0 || t.rank > kMaxRank)
    return Status::error(what + " has rank " + std::to_string(t.rank) +
                         " (at most " + std::to_string(kMaxRank) + ")");
  std::vector<int64_t> shape = t.sizes();
  bool fits = shape.size() == type.shape.size();
  for (size_t d = 0; fits && d < shape.size(); ++d)
    fits = shape[d] >= 0 && (type.shape[d] < 0 || type.shape[d] == shape[d]);
  if (!fits)
    return Status::error(what + " is " + ref::shapeString(shape) +
                         ", expected " + expected);
  int64_t elements = ref::numElements(shape);
  if (elements < 0 || elements > runtime::kMaxHostElements)
    return Status::error(what + " " + ref::shapeString(shape) +
                         " is too large (at most 2^30 elements)");
  if (elements > 0 && !t.data)
    return Status::error(what + " has no data (a null pointer)");
  return Status();
}

ref::HostTensor api::toHostTensor(const TensorRef &t) {
  return runtime::unpackTensor(static_cast<const char *>(t.data),
                               t.dtype, t.sizes());
}

//===----------------------------------------------------------------------===//
// Module
//===----------------------------------------------------------------------===//

static DialectRegistry makeRegistry() {
  DialectRegistry registry;
  registerAllDialects(registry);
  registerAllExtensions(registry);
  registry.insert<mlir::indexpool::IndexPoolDialect>();
  mlir::indexpool::registerCPUJitTranslations(registry);
  registerAllToLLVMIRTranslations(registry);
  NVVM::registerNVVMTargetInterfaceExternalModels(registry);
  return registry;
}

Module::Impl::Impl() : context(makeRegistry()) {
  // A Status carries the message and its location; the op printed after a
  // diagnostic (a whole kernel, for a failed conversion) is noise there.
  context.printOpOnDiagnostic(false);
}

Status Module::Impl::lookup(const std::string &name,
                            func::FuncOp &func) const {
  std::string bare = name.rfind("@", 0) == 0 ? name.substr(1) : name;
  func = module.get().lookupSymbol<func::FuncOp>(bare);
  if (!func || func.isExternal())
    return Status::error("no function @" + bare + " in the module");
  return Status();
}

Module::Module(std::shared_ptr<Impl> implementation)
    : implementation(std::move(implementation)) {}
Module::~Module() = default;

std::unique_ptr<Module> Module::parse(const std::string &text, Status &status,
                                      const std::string &name) {
  if (int64_t(text.size()) > runtime::kMaxMlirTextBytes) {
    status = Status::error(name + " is larger than 256 MiB");
    return nullptr;
  }
  if (std::string deep = runtime::mlirNestingError(text, name); !deep.empty()) {
    status = Status::error(deep);
    return nullptr;
  }
  auto impl = std::make_shared<Impl>();
  api::DiagnosticCapture capture(impl->context);
  ParserConfig config(&impl->context);
  impl->module = parseSourceString<ModuleOp>(text, config, name);
  if (!impl->module) {
    status = capture.failure("cannot parse " + name);
    return nullptr;
  }
  status = Status();
  return std::unique_ptr<Module>(new Module(std::move(impl)));
}

std::vector<std::string> Module::functionNames() const {
  std::vector<std::string> names;
  for (auto func : implementation->module->getOps<func::FuncOp>())
    if (func.isPublic() && !func.isExternal())
      names.push_back(func.getSymName().str());
  return names;
}

Status Module::signature(const std::string &name,
                         FunctionSignature &out) const {
  func::FuncOp func;
  if (Status s = implementation->lookup(name, func); !s)
    return s;
  return api::signatureOf(func, out);
}

std::string Module::str() const {
  std::string text;
  llvm::raw_string_ostream os(text);
  implementation->module->print(os);
  return text;
}
