//===- DialectTest.cpp - the C++ API of the indexpool dialect -------------===//
//
// What lit cannot see: the generated builders and accessors, the default
// property values, the size helpers shared with the runtimes, and that the
// verifier reports through the diagnostic engine (one error, named operand).
//
//===----------------------------------------------------------------------===//

#include "indexpool/Dialect/IndexPoolDialect.h"
#include "indexpool/Dialect/IndexPoolOps.h"
#include "indexpool/Dialect/Shapes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Parser/Parser.h"

#include "gtest/gtest.h"

#include <string>
#include <vector>

using namespace mlir;
using namespace mlir::indexpool;

namespace {

class IndexPoolDialectTest : public ::testing::Test {
protected:
  IndexPoolDialectTest() : builder(&context) {
    context.loadDialect<IndexPoolDialect, func::FuncDialect>();
    // Collect every diagnostic instead of printing it.
    handler = std::make_unique<ScopedDiagnosticHandler>(
        &context, [this](Diagnostic &diag) {
          messages.push_back(diag.str());
          return success();
        });
  }

  RankedTensorType tensor(ArrayRef<int64_t> shape, Type element) {
    return RankedTensorType::get(shape, element);
  }

  /// A function whose arguments have `types`, with the builder inside it.
  func::FuncOp makeFunc(TypeRange types) {
    module = ModuleOp::create(builder.getUnknownLoc());
    builder.setInsertionPointToEnd(module->getBody());
    auto fn = func::FuncOp::create(builder, builder.getUnknownLoc(), "f",
                                   builder.getFunctionType(types, {}));
    builder.setInsertionPointToStart(fn.addEntryBlock());
    return fn;
  }

  MLIRContext context;
  OpBuilder builder;
  OwningOpRef<ModuleOp> module;
  std::unique_ptr<ScopedDiagnosticHandler> handler;
  std::vector<std::string> messages;
};

TEST(ShapesTest, PoolSizeIsPowerOfTwoBetween2And64) {
  for (int64_t p : {2, 4, 8, 16, 32, 64})
    EXPECT_TRUE(isValidPoolSize(p)) << p;
  for (int64_t p : {-4, 0, 1, 3, 6, 12, 128})
    EXPECT_FALSE(isValidPoolSize(p)) << p;
}

TEST(ShapesTest, GroupsDropTheTailAndStayDynamic) {
  EXPECT_EQ(numGroups(1024, 4), 256);
  EXPECT_EQ(numGroups(1027, 4), 256);
  EXPECT_EQ(numGroups(3, 4), 0);
  EXPECT_EQ(numGroups(kShapeDynamic, 4), kShapeDynamic);
  EXPECT_EQ(mulDims(64, 4), 256);
  EXPECT_EQ(mulDims(kShapeDynamic, 4), kShapeDynamic);
  EXPECT_TRUE(isValidHadamardDim(1024));
  EXPECT_FALSE(isValidHadamardDim(2048));
  EXPECT_FALSE(isValidHadamardDim(96));
}

TEST_F(IndexPoolDialectTest, BuiltPoolHasSpecDefaultsAndVerifies) {
  Type bf16 = builder.getBF16Type(), f32 = builder.getF32Type();
  auto keys = tensor({1026, 128}, bf16);
  auto scores = tensor({1026}, f32);
  func::FuncOp fn = makeFunc({keys, scores});
  auto pool = PoolOp::create(builder, builder.getUnknownLoc(),
                             tensor({256, 128}, bf16), tensor({256, 4}, f32),
                             fn.getArgument(0), fn.getArgument(1),
                             /*bias=*/Value(), builder.getI64IntegerAttr(4),
                             /*temperature=*/FloatAttr());
  EXPECT_EQ(pool.getPoolSize(), 4);
  EXPECT_EQ(pool.getTemperature().convertToFloat(), 1.0f);
  EXPECT_TRUE(succeeded(verify(pool)));
  EXPECT_TRUE(messages.empty());
}

TEST_F(IndexPoolDialectTest, VerifierNamesTheResultAndTheExpectedSize) {
  Type bf16 = builder.getBF16Type(), f32 = builder.getF32Type();
  auto keys = tensor({1024, 128}, bf16);
  auto scores = tensor({1024}, f32);
  func::FuncOp fn = makeFunc({keys, scores});
  auto pool = PoolOp::create(builder, builder.getUnknownLoc(),
                             tensor({255, 128}, bf16), tensor({256, 4}, f32),
                             fn.getArgument(0), fn.getArgument(1), Value(),
                             builder.getI64IntegerAttr(4), FloatAttr());
  EXPECT_TRUE(failed(verify(pool)));
  ASSERT_EQ(messages.size(), 1u);
  EXPECT_NE(messages[0].find("result 'pooled' dimension 0 must be G = "
                             "floor(T / P) = 256, got 255"),
            std::string::npos)
      << messages[0];
}

TEST_F(IndexPoolDialectTest, ParsedSelectExposesBothOptionalOperands) {
  const char *source = R"mlir(
    func.func @f(%q: tensor<1x64x128xbf16>, %w: tensor<1x64xf32>,
                 %k: tensor<?x128xf8E4M3FN>, %s: tensor<?xf32>,
                 %len: tensor<1xi32>) -> tensor<1x2048xi32> {
      %t = indexpool.select %q, %w, %k scales(%s) valid(%len)
          {k = 512 : i64, pool_size = 4 : i64}
          : (tensor<1x64x128xbf16>, tensor<1x64xf32>, tensor<?x128xf8E4M3FN>,
             tensor<?xf32>, tensor<1xi32>) -> tensor<1x2048xi32>
      return %t : tensor<1x2048xi32>
    })mlir";
  OwningOpRef<ModuleOp> parsed =
      parseSourceString<ModuleOp>(source, ParserConfig(&context));
  ASSERT_TRUE(parsed) << (messages.empty() ? "" : messages[0]);
  SelectOp select;
  parsed->walk([&](SelectOp op) { select = op; });
  ASSERT_TRUE(select);
  EXPECT_EQ(select.getK(), 512);
  EXPECT_EQ(select.getPoolSize(), 4);
  EXPECT_TRUE(select.getScales());
  EXPECT_TRUE(select.getValid());
  auto args = select->getParentOfType<func::FuncOp>().getArguments();
  EXPECT_EQ(select.getScales(), args[3]);
  EXPECT_EQ(select.getValid(), args[4]);
}

TEST_F(IndexPoolDialectTest, OpsArePureSoUnusedOnesCanBeErased) {
  func::FuncOp fn = makeFunc({tensor({4, 16}, builder.getI32Type())});
  auto expand = ExpandOp::create(builder, builder.getUnknownLoc(),
                                 tensor({4, 64}, builder.getI32Type()),
                                 fn.getArgument(0), 4);
  EXPECT_TRUE(isPure(expand));
  EXPECT_TRUE(isOpTriviallyDead(expand));
}

} // namespace
