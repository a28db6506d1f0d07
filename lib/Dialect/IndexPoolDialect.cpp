//===- IndexPoolDialect.cpp - the indexpool dialect -----------------------===//
#include "indexpool/Dialect/IndexPoolDialect.h"
#include "indexpool/Dialect/IndexPoolAttrs.h"
#include "indexpool/Dialect/IndexPoolOps.h"
#include "indexpool/Target/Chips.h"

#include "mlir/IR/Builders.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace mlir::indexpool;

#include "indexpool/Dialect/IndexPoolDialect.cpp.inc"
#include "indexpool/Dialect/IndexPoolEnums.cpp.inc"

#define GET_ATTRDEF_CLASSES
#include "indexpool/Dialect/IndexPoolAttrs.cpp.inc"

void IndexPoolDialect::initialize() {
  addOperations<
#define GET_OP_LIST
#include "indexpool/Dialect/IndexPoolOps.cpp.inc"
      >();
  addAttributes<
#define GET_ATTRDEF_LIST
#include "indexpool/Dialect/IndexPoolAttrs.cpp.inc"
      >();
}

LogicalResult
IndexPoolDialect::verifyOperationAttribute(Operation *op,
                                           NamedAttribute attribute) {
  // Other `indexpool.*` names are left to the passes that use them.
  if (attribute.getName() == kLaunchAttrName &&
      !isa<LaunchAttr>(attribute.getValue()))
    return op->emitError() << "'" << kLaunchAttrName
                           << "' must be a #indexpool.launch attribute, got "
                           << attribute.getValue();
  return success();
}

/// The one chip grammar (target::parseChipName: sm_90, sm_90a, sm_100f).
/// Which chips exist is the target table's business (--indexpool-configure
/// checks it); here only the spelling.
static bool isChipName(StringRef chip) {
  int major, minor;
  bool archSpecific;
  return ::indexpool::target::parseChipName(chip, major, minor, archSpecific);
}

LogicalResult
LaunchAttr::verify(function_ref<InFlightDiagnostic()> emitError, StringRef chip,
                   int64_t threadsPerBlock, int64_t itemsPerBlock,
                   int64_t elementsPerThread, int64_t vectorBytes,
                   GridPolicy grid) {
  if (!isChipName(chip))
    return emitError() << "chip must be named like \"sm_90\", got \"" << chip
                       << "\"";
  // The one rule of every threads-per-block setting: whole warps, within
  // the block limit of every chip.
  if (std::string why =
          ::indexpool::target::threadsPerBlockRule(threadsPerBlock);
      !why.empty())
    return emitError() << why;
  if (itemsPerBlock <= 0)
    return emitError() << "items_per_block must be positive, got "
                       << itemsPerBlock;
  if (elementsPerThread <= 0)
    return emitError() << "elements_per_thread must be positive, got "
                       << elementsPerThread;
  // The widths of ld/st.global.{b32, v2.b32, v4.b32}.
  if (vectorBytes != 4 && vectorBytes != 8 && vectorBytes != 16)
    return emitError() << "vector_bytes must be 4, 8 or 16, got "
                       << vectorBytes;
  return success();
}
