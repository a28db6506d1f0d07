//===- tuning_db_reader.cpp - fuzz the tuning database reader -------------===//
//
// Input: the text of a tuning database. It goes to the reader the way a user
// gives it, `--indexpool-configure=chip=sm_90 tuning-db=FILE`, run on a
// module whose ops cover every op kind the database can name, so that
// shape classes are evaluated and launch fields applied. The pass must
// succeed or fail with diagnostics (captured); every #indexpool.launch it
// writes must verify.
//
//===----------------------------------------------------------------------===//

#include "FuzzCommon.h"

#include "indexpool/Dialect/IndexPoolDialect.h"
#include "indexpool/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"

#include <memory>
#include <string>

using namespace mlir;
using ::indexpool::fuzz::finding;

/// One op of each kind the GPU path configures, static and dynamic shapes.
static const char *const kModule = R"mlir(
func.func @f(%keys: tensor<1024x128xbf16>, %scores: tensor<1024xf32>,
             %q: tensor<1x64x128xbf16>, %w: tensor<1x64xf32>,
             %qk: tensor<256x128xf8E4M3FN>, %s: tensor<256xf32>,
             %logits: tensor<?x?xf32>, %len: tensor<?xi32>)
    -> (tensor<256x128xf8E4M3FN>, tensor<256xf32>, tensor<256x4xf32>,
        tensor<1x256xf32>, tensor<?x16xf32>, tensor<?x16xi32>,
        tensor<?x64xi32>, tensor<1x64xi32>) {
  %cq, %cs, %cw = indexpool.compress %keys, %scores {pool_size = 4 : i64, rotate}
      : (tensor<1024x128xbf16>, tensor<1024xf32>)
        -> (tensor<256x128xf8E4M3FN>, tensor<256xf32>, tensor<256x4xf32>)
  %l = indexpool.score %q, %w, %qk scales(%s)
      : (tensor<1x64x128xbf16>, tensor<1x64xf32>, tensor<256x128xf8E4M3FN>,
         tensor<256xf32>) -> tensor<1x256xf32>
  %v, %i = indexpool.topk %logits valid(%len) {k = 16 : i64}
      : (tensor<?x?xf32>, tensor<?xi32>) -> (tensor<?x16xf32>, tensor<?x16xi32>)
  %t = indexpool.expand %i {pool_size = 4 : i64}
      : (tensor<?x16xi32>) -> tensor<?x64xi32>
  %sel = indexpool.select %q, %w, %qk scales(%s) {k = 16 : i64, pool_size = 4 : i64}
      : (tensor<1x64x128xbf16>, tensor<1x64xf32>, tensor<256x128xf8E4M3FN>,
         tensor<256xf32>) -> tensor<1x64xi32>
  return %cq, %cs, %cw, %l, %v, %i, %t, %sel
      : tensor<256x128xf8E4M3FN>, tensor<256xf32>, tensor<256x4xf32>,
        tensor<1x256xf32>, tensor<?x16xf32>, tensor<?x16xi32>,
        tensor<?x64xi32>, tensor<1x64xi32>
}
)mlir";

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  static ::indexpool::fuzz::MemFile database("tuning-db");
  static std::unique_ptr<MLIRContext> context;
  if (!context) {
    DialectRegistry registry;
    registry.insert<arith::ArithDialect, func::FuncDialect,
                    tensor::TensorDialect, mlir::indexpool::IndexPoolDialect>();
    context = std::make_unique<MLIRContext>(registry,
                                            MLIRContext::Threading::DISABLED);
    context->loadAllAvailableDialects();
    context->printOpOnDiagnostic(false);
  }
  database.write(data, size);

  std::string diagnostics;
  ScopedDiagnosticHandler collect(context.get(), [&](Diagnostic &diag) {
    diagnostics += diag.str() + "\n";
    return success();
  });
  OwningOpRef<ModuleOp> module =
      parseSourceString<ModuleOp>(kModule, context.get());
  if (!module)
    finding("the fixed module does not parse: " + diagnostics);

  PassManager pm(context.get());
  mlir::indexpool::IndexPoolConfigureOptions options;
  options.chip = "sm_90";
  options.tuningDb = database.path;
  pm.addPass(mlir::indexpool::createIndexPoolConfigure(options));
  if (failed(pm.run(*module))) {
    if (diagnostics.empty())
      finding("--indexpool-configure failed without a diagnostic");
    if (diagnostics.find('\n') != diagnostics.size() - 1)
      finding("--indexpool-configure failed with more than one line: " +
              diagnostics);
    return 0;
  }
  if (failed(verify(*module)))
    finding("--indexpool-configure wrote IR that does not verify: " +
            diagnostics);
  return 0;
}
