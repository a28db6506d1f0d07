//===- IndexPoolPlugin.cpp - the dialect as an mlir-opt plugin ------------===//
#include "indexpool/Dialect/IndexPoolDialect.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/Tools/Plugins/DialectPlugin.h"
#include "llvm/Config/llvm-config.h"

extern "C" LLVM_ATTRIBUTE_WEAK mlir::DialectPluginLibraryInfo
mlirGetDialectPluginInfo() {
  return {MLIR_PLUGIN_API_VERSION, "IndexPool", LLVM_VERSION_STRING,
          [](mlir::DialectRegistry *registry) {
            registry->insert<mlir::indexpool::IndexPoolDialect>();
          }};
}
