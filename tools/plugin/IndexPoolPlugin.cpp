//===- IndexPoolPlugin.cpp - IndexPool as an mlir-opt plugin --------------===//
//
// The dialect (--load-dialect-plugin) and the passes and pipelines
// (--load-pass-plugin) for the stock mlir-opt, from one shared object:
//   mlir-opt --load-dialect-plugin=IndexPoolPlugin.so \
//            --load-pass-plugin=IndexPoolPlugin.so --indexpool-to-cpu
//
//===----------------------------------------------------------------------===//
#include "indexpool/Conversion/Passes.h"
#include "indexpool/Dialect/IndexPoolDialect.h"
#include "indexpool/Transforms/Passes.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/Tools/Plugins/DialectPlugin.h"
#include "mlir/Tools/Plugins/PassPlugin.h"
#include "llvm/Config/llvm-config.h"

extern "C" LLVM_ATTRIBUTE_WEAK mlir::DialectPluginLibraryInfo
mlirGetDialectPluginInfo() {
  return {MLIR_PLUGIN_API_VERSION, "IndexPool", LLVM_VERSION_STRING,
          [](mlir::DialectRegistry *registry) {
            registry->insert<mlir::indexpool::IndexPoolDialect>();
          }};
}

extern "C" LLVM_ATTRIBUTE_WEAK mlir::PassPluginLibraryInfo
mlirGetPassPluginInfo() {
  return {MLIR_PLUGIN_API_VERSION, "IndexPool", LLVM_VERSION_STRING, []() {
            mlir::indexpool::registerIndexPoolPasses();
            mlir::indexpool::registerIndexPoolConversionPasses();
            mlir::indexpool::registerIndexPoolPipelines();
            mlir::indexpool::registerIndexPoolGPUPipeline();
          }};
}
