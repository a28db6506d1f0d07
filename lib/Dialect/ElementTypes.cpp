//===- ElementTypes.cpp - MLIR types of the vocabulary's types ------------===//

#include "indexpool/Dialect/ElementTypes.h"

#include "mlir/AsmParser/AsmParser.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/MLIRContext.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;
using ::indexpool::ElementType;

std::optional<ElementType> mlir::indexpool::toElementType(Type type) {
  // Only builtin integers and floats have rows; printing them gives the
  // table's spelling ("i8", "f8E4M3FN").
  if (!type || !type.isIntOrFloat() ||
      (type.isInteger() && !type.isSignlessInteger()))
    return std::nullopt;
  SmallString<16> name;
  llvm::raw_svector_ostream os(name);
  type.print(os);
  return ::indexpool::parseElementType(name.str());
}

Type mlir::indexpool::toMlirType(ElementType type, MLIRContext *context) {
  return parseType(::indexpool::elementTypeName(type), context);
}
